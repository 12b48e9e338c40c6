"""Finding study files, and the error every study problem raises.

A study is named by its path, its path without suffix, or its name, looked up in ``./reports``, the source
checkout's ``reports/`` and the studies shipped in the wheel (``kbsim/_reports``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from kbsim.strict_io import InputFileError, check_regular_file

STUDY_SUFFIXES = (".toml", ".yaml", ".yml")
"""The suffixes a study file may have (TOML or YAML)."""


class StudyError(Exception):
    """A study that cannot be used: unreadable or invalid file, unknown variant/option/bot, bad records folder.

    ``str(err)`` is one or more lines, each naming the study file and the field (or arm).
    """

    def __init__(self, lines: list[str] | str):
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))

    def one_line(self) -> str:
        """All problems on one line (for the CLI)."""
        return "; ".join(self.lines)


def _search_dirs() -> list[Path]:
    """The folders a study name is looked up in, in order."""
    dirs = [Path.cwd() / "reports"]
    checkout = Path(__file__).resolve().parents[3] / "reports"
    if checkout.is_dir() and checkout not in dirs:
        dirs.append(checkout)
    packaged = Path(str(resources.files("kbsim") / "_reports"))  # the studies shipped in the wheel
    if packaged.is_dir() and packaged not in dirs:
        dirs.append(packaged)
    return dirs


def available_studies() -> list[str]:
    """Names of the study files in ``./reports`` (and the source checkout's ``reports/``), sorted."""
    names = set()
    for d in _search_dirs():
        if d.is_dir():
            names.update(p.stem for p in d.iterdir() if p.suffix in STUDY_SUFFIXES)
    return sorted(names)


def find_study(ref: str | Path) -> Path:
    """Resolve a study reference to its file.

    Args:
        ref: a path (``reports/variants.toml``), a path without suffix
            (``reports/variants``), or a name looked up in ``./reports`` and in the
            source checkout's ``reports/`` (``variants``).

    Returns:
        The study file's path.

    Raises:
        StudyError: nothing matches.
    """
    p = Path(ref)
    if p.is_file():
        return p
    if p.exists():  # a named pipe, a folder...: refused by name, never read
        try:
            check_regular_file(p, "a study file (.toml, .yaml)")
        except InputFileError as e:
            raise StudyError(str(e)) from None
    candidates = [p.with_name(p.name + s) for s in STUDY_SUFFIXES]
    if len(p.parts) == 1:
        candidates += [d / (p.name + s) for d in _search_dirs() for s in STUDY_SUFFIXES]
    for c in candidates:
        if c.is_file():
            return c
    known = ", ".join(available_studies()) or "none found"
    raise StudyError(f"{ref}: no such study file (tried .toml, .yaml, .yml); studies in reports/: {known}")


__all__ = ["STUDY_SUFFIXES", "StudyError", "available_studies", "find_study"]
