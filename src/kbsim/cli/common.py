"""What every command shares: the consoles, user errors, loading rules from options, printing a report summary.

Every user error is one line on stderr starting with ``kbsim: error:`` and
exit code 2, never a traceback (:func:`fail`, :class:`kbsim.cli.checks.ArgError`).
"""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from kbsim.strict_io import dumps_json

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
out.on_broken_pipe = lambda: closed_pipe()  # type: ignore[method-assign] # rich would exit 1


class UserError(Exception):
    """A problem with the user's input: printed as one line, exit code 2."""


def notation_key(starts: str = "") -> str:
    """The one-line key to the move notation that ``replay`` and ``solve`` print.

    The full list is in the docs' rule-file guide ("Examples and their notation", from
    :mod:`kbsim.engine.rows.notation`). ``starts`` (e.g. ``"seat 1 plays first"``, from the rules) adds how
    seats are numbered and who starts.
    """
    who = f"seats count from 0 ({starts}); " if starts else ""
    return (
        "key: rows count from 1 on the left; " + who + "a-b is the run a to b (in a hand too: 11-12 = 11 and 12), "
        "_ an empty row; 'lay C on R' lays card C on row R; 'rebuild R from V on S' moves row R's cards from its "
        "card V to its end onto row S; the full notation is in the docs (rule files: examples and their notation)"
    )


def fail(message: str) -> None:
    """Stop the command with a user error: ``kbsim: error: MESSAGE`` on stderr, exit 2."""
    raise UserError(message)


def run_failed(e: Exception, kept: str, again: str = "run the same command again to continue") -> NoReturn:
    """End a command whose games failed (an engine or bot error in a game, a worker that died): one line, exit 1.

    The line says what failed (the exception's type and message, the cell and game when known: see
    :class:`kbsim.sim.run.RunFailed`), what is kept and how to continue; never a traceback.

    Args:
        e: the :class:`kbsim.sim.run.RunFailed`.
        kept: what is kept on disk, in words (``finished chunks are kept in DIR``).
        again: how to continue.
    """
    where = getattr(e, "where", "")
    cause = " ".join(str(e).split())  # (one line, whatever the exception's message holds)
    print(f"kbsim: error: the run failed{f' in {where}' if where else ''} ({cause}); {kept}; {again}", file=sys.stderr)
    sys.exit(1)


def parse_options(pairs: list[str]) -> dict:
    """Parse ``--option KEY=VALUE`` pairs into ``{key: value}`` (values typed like the rule files')."""
    from kbsim.rules.loader import parse_option_value

    opts = {}
    for p in pairs:
        if "=" not in p:
            fail(f"--option {p!r}: expected KEY=VALUE, e.g. --option hand_size=7")
        k, v = p.split("=", 1)
        opts[k.strip()] = parse_option_value(v.strip())
    return opts


def load(game: str, variants: list[str], options: list[str]):
    """Load and compile the rules of ``--game``/``--variant``/``--option``; a rules error is a user error.

    Returns:
        ``(LoadedRules, compiled game)``.
    """
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.rules.loader import RulesError, load_rules

    try:
        loaded = load_rules(game, variants, parse_options(options))
    except RulesError as e:
        fail(str(e))  # one line per problem
    return loaded, compile_rules(loaded)


def check_players(game, players: int, loaded=None) -> None:
    """Refuse a ``--players`` count the rules do not allow, naming variants that would allow it."""
    if not game.min_players <= players <= game.max_players:
        hint = ""
        if loaded is not None:
            fits = [
                name
                for name, v in loaded.model.variants.items()
                if isinstance(v.overlay.get("players"), dict)
                and v.overlay["players"].get("min", 0) <= players <= v.overlay["players"].get("max", 99)
            ]
            if fits:
                hint = f" (for {players} player(s) try --variant {' or '.join(fits)})"
        fail(
            f"--players {players}: {game.game} ({game.variant}) is played by {game.min_players} to "
            f"{game.max_players} players{hint}"
        )


GameOpt = Annotated[str, typer.Option("--game", "-g", help="Shipped game name or path to a rule file.")]
VariantOpt = Annotated[
    list[str], typer.Option("--variant", "-v", help="Variant declared in the rule file (repeatable, applied in order).")
]
OptionOpt = Annotated[
    list[str],
    typer.Option(
        "--option", metavar="KEY=VALUE", help="Set a named rule option, e.g. rebuild_segments=either (repeatable)."
    ),
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Replace an existing output file (only one kbsim wrote, of the same kind).")
]
BotsOpt = Annotated[
    str,
    typer.Option(
        "--bots",
        "-b",
        help="One bot for all seats (greedy) or one per seat "
        "(greedy,random,greedy,greedy); a bot may take parameters: planner(budget=2000). "
        "Bots: random, greedy, planner, search (market games: random, greedy, search); "
        "search(iterations=400) looks further, at more CPU per decision.",
    ),
]


def print_report(result, head: list[str], json_out: bool, extra: dict) -> None:
    """Print a written report's summary: JSON (with ``extra``) or the page path, ``head`` lines and the text."""
    if json_out:
        print(dumps_json(result.as_json() | extra, indent=2, default=str))
        return
    print(
        f"report: {result.path} ({result.size / 1e6:.1f} MB, {result.figures} figures, "
        f"rendered in {result.seconds:.1f} s)"
    )
    for line in head + result.summary:
        print(line)


#: ASCII stand-ins for the symbols kbsim prints, used when the terminal's encoding cannot show them.
ASCII_SYMBOLS = {
    "\u2013": "-",  # en dash (an empty cell)
    "\u2014": "--",  # em dash
    "\u2212": "-",  # minus sign
    "\u00b7": "-",  # middle dot
    "\u2026": "...",
    "\u00b1": "+/-",
    "\u2248": "~",
    "\u00d7": "x",
    "\u2192": "->",
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2022": "*",
    "\u2501": "-",  # heavy horizontal line (progress bar)
}


def _ascii_fallback(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: each character the stream cannot encode as an ASCII stand-in (accents dropped, ``?``).

    Registered as ``kbsim-ascii`` (:func:`safe_streams`).
    """
    import unicodedata

    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = []
    for ch in error.object[error.start : error.end]:
        plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
        out.append(ASCII_SYMBOLS.get(ch) or plain or "?")
    return "".join(out), error.end


def safe_streams() -> None:
    """Let stdout and stderr take any text whatever their encoding (``PYTHONIOENCODING=ascii``, a latin-1 terminal).

    A character the encoding cannot hold is written as an ASCII stand-in (:data:`ASCII_SYMBOLS`, else without
    its accent, else ``?``) instead of failing with ``UnicodeEncodeError`` after the work is done.
    """
    import codecs

    try:
        codecs.lookup_error("kbsim-ascii")
    except LookupError:
        codecs.register_error("kbsim-ascii", _ascii_fallback)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = str(getattr(stream, "encoding", "") or "").lower().replace("-", "").replace("_", "")
        if reconfigure is not None and not encoding.startswith("utf"):
            try:
                reconfigure(errors="kbsim-ascii")
            except (ValueError, OSError):  # a closed or detached stream: nothing to protect
                pass


def closed_pipe() -> None:
    """The reader of stdout went away (``kbsim ... | head``): stop quietly with exit 0."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush cannot fail again
    except (OSError, ValueError):
        pass
    sys.exit(0)
