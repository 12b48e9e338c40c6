"""Checks the command line shares: output files, names that become paths or markup, common values.

Every command validates the same kind of value with the same rule and range
(seeds, game indexes, counts of games and workers, output files), so each
check lives here once. A check returns nothing or raises :class:`ArgError`
with the one-line message (the CLI prints it as ``kbsim: error: ...``, exit 2).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlparse

from kbsim.strict_io import InputFileError, check_regular_file

MAX_GAMES = 10**12
"""Most games one run (or one study cell) may ask for."""
MAX_WORKERS = 1024
"""Most worker processes one command may ask for (fewer are started when there is less work)."""


class ArgError(Exception):
    """A command-line value that cannot be used: one line, exit 2."""


def check_count(flag: str, value: int | None, lo: int, hi: int, what: str) -> None:
    """Refuse ``value`` outside ``lo..hi`` (None passes): ``--games 0: expected a number of games from 1 to ...``."""
    if value is not None and not lo <= value <= hi:
        raise ArgError(f"{flag} {value}: expected {what} from {lo:,} to {hi:,}")


def check_games(value: int | None, flag: str = "--games") -> None:
    """Refuse a number of games outside 1..:data:`MAX_GAMES` (None passes)."""
    check_count(flag, value, 1, MAX_GAMES, "a number of games")


def check_workers(value: int | None) -> None:
    """Refuse a worker count outside 1..:data:`MAX_WORKERS` (None passes)."""
    check_count("--workers", value, 1, MAX_WORKERS, "a number of worker processes")


def check_seed(value: int | None, flag: str = "--seed") -> None:
    """Refuse a seed outside 0..``MAX_SEED`` (None passes)."""
    from kbsim.engine.seeds import MAX_SEED

    check_count(flag, value, 0, MAX_SEED, "an integer")


def check_scheduler(address: str | None) -> None:
    """A Dask scheduler address must look like ``tcp://HOST:PORT`` (or another ``SCHEME://HOST[:PORT]``)."""
    if address is None:
        return
    try:
        u = urlparse(address)
        ok = bool(u.scheme) and bool(u.hostname) and " " not in address
        _ = u.port  # raises on a bad port
    except ValueError:
        ok = False
    if not ok:
        raise ArgError(f"--scheduler {address!r}: expected a scheduler address such as tcp://HOST:8786")


def safe_name(text: str, limit: int = 60) -> str:
    """Make ``text`` safe as one file-name component.

    Letters, digits, ``.``, ``_``, ``+``, ``-`` only; no leading dot, at most ``limit`` characters (so a
    variant named ``a/../../x`` stays inside its folder).
    """
    s = re.sub(r"[^A-Za-z0-9._+-]+", "-", text).strip("-.")
    return (s[:limit] or "x").rstrip("-.") or "x"


def esc(text: object) -> str:
    """``text`` with rich console markup escaped (a title ``K [/oops]`` prints as written)."""
    from rich.markup import escape

    return escape(str(text))


def is_kbsim_records(path: Path) -> bool:
    """Whether ``path`` is a Parquet file written by ``kbsim run`` (it carries kbsim's run metadata)."""
    try:
        from kbsim.records import read_metadata

        return "run" in read_metadata(path)
    except Exception:
        return False


def is_kbsim_report(path: Path) -> bool:
    """Whether ``path`` is an HTML page written by ``kbsim report``/``compare`` (kbsim's generator tag)."""
    try:
        check_regular_file(path)
        with open(path, "rb") as f:
            head = f.read(4096)
    except (OSError, InputFileError):
        return False
    return b'<meta name="generator" content="kbsim' in head


_KINDS = {
    "records": (".parquet", is_kbsim_records, "a kbsim records file"),
    "report": (".html", is_kbsim_report, "a kbsim report page"),
}


def check_out(
    path: Path, kind: str, force: bool, flag: str = "--out", explicit: bool = True, protected: tuple[Path, ...] = ()
) -> None:
    """Refuse an output path that would replace something it should not.

    Args:
        path: the file to write.
        kind: ``records`` (``.parquet``) or ``report`` (``.html``).
        force: the user asked to replace an existing file (``--force``).
        flag: the option named in messages.
        explicit: the user gave the path (a default path may replace kbsim's own file of that kind without
            ``--force``).
        protected: files that are never replaced (the rule file, the study file, the inputs).

    Raises:
        ArgError: wrong suffix, a folder, a missing or unwritable folder, an input file, or an existing file
            that is not kbsim's own output of this kind, or is but ``--force`` was not given.
    """
    suffix, own, what = _KINDS[kind]
    if path.suffix.lower() != suffix:
        raise ArgError(f"{flag} {path}: expected a {suffix} file path")
    if path.is_dir():
        raise ArgError(f"{flag} {path}: is a folder; expected a {suffix} file path")
    for p in protected:
        try:
            if path.resolve() == Path(p).resolve():
                raise ArgError(f"{flag} {path}: is an input of this command; refusing to replace it")
        except OSError:
            pass
    parent = path.parent
    if explicit and not parent.exists():  # a default path's folder (runs/, reports/_build) is made when written
        raise ArgError(f"{flag} {path}: folder {parent} does not exist")
    if parent.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise ArgError(f"{flag} {path}: folder {parent} is not writable")
    if path.exists() or path.is_symlink():
        if not own(path):
            raise ArgError(f"{flag} {path}: exists and is not {what}; refusing to replace it (choose another path)")
        if explicit and not force:
            raise ArgError(f"{flag} {path}: exists; add --force to replace it")


def check_comparable(files: list[Path]) -> None:
    """Refuse records that cannot be compared.

    Different games, or the same run parameters played under different rules (a rule file edited between
    the runs), cannot be compared.

    Files that are not kbsim records are left to the reader (it names the problem).

    Raises:
        ArgError: naming both files and the reason; or a path that is neither a regular file nor a folder.
    """
    from kbsim.records import read_metadata

    for f in files:  # a named pipe or a device would block or feed the reader for ever
        if Path(f).exists() and not Path(f).is_dir():
            try:
                check_regular_file(f, "a records file (.parquet)")
            except InputFileError as e:
                raise ArgError(str(e)) from None
    seen: list[tuple[Path, dict]] = []
    for f in files:
        try:
            run = read_metadata(Path(f)).get("run")
        except Exception:
            continue
        if not isinstance(run, dict):
            continue
        for other, orun in seen:
            if run.get("game") != orun.get("game"):
                raise ArgError(
                    f"{f}: records of {run.get('game')!s}, but {other} holds records of "
                    f"{orun.get('game')!s}; records of different games cannot be compared"
                )
            same_run = all(run.get(k) == orun.get(k) for k in ("variant", "options", "players", "bots", "seed"))
            if same_run and run.get("rules_hash") != orun.get("rules_hash"):
                raise ArgError(
                    f"{f}: the same run parameters as {other} but played under different rules "
                    f"(the rule file changed between the runs); they cannot be compared as one arm"
                )
        seen.append((Path(f), run))
