"""The ``kbsim`` command line (typer): the app, its commands (one module each), and the entry point :func:`main`.

Each command parses, validates, calls the library and prints. Every user error
is one line on stderr starting with ``kbsim: error:`` and exit code 2, never a
traceback; a failed run leaves existing files untouched.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from kbsim import __version__
from kbsim.cli import compare, play, replay, report, rules, run, solve, tune
from kbsim.cli.checks import ArgError
from kbsim.cli.common import UserError, closed_pipe, safe_streams

app = typer.Typer(
    name="kbsim",
    help="Simulate shared-tableau card games (Kingsbridge first) from rule files, and check those rule files.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
rules_app = typer.Typer(
    help="Check, show, test, describe and publish rule files.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(rules_app, name="rules")


def _version(value: bool) -> None:
    if value:
        from kbsim.build_info import build_info

        print(f"kbsim {__version__}, {build_info().mode}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """kbsim: rules-driven simulation and reference toolkit for shared-tableau card games."""


def main() -> None:
    """Console-script entry point: run the app, turning every user error into one line and exit 2."""
    safe_streams()  # any terminal encoding: symbols it cannot show are written as ASCII stand-ins
    try:
        rc = app(standalone_mode=False)
        sys.stdout.flush()  # a closed pipe shows here, inside the handlers below
        if rc == 130:  # typer turns a KeyboardInterrupt that left the command into exit code 130, silently
            print("kbsim: interrupted", file=sys.stderr)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except (UserError, ArgError) as e:
        for line in str(e).splitlines() or [""]:  # one line per problem, each a whole message
            print(f"kbsim: error: {line}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        print("kbsim: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        closed_pipe()
    except SystemExit:
        # click turns a closed stdout (EPIPE) into exit 1 after wrapping stdout: a closed pipe is not a failure
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            closed_pipe()
        raise
    except Exception as e:  # click/typer usage errors (exit code 2), whichever click typer bundles
        _other_error(e)
    except KeyboardInterrupt:
        print("kbsim: interrupted; nothing was written", file=sys.stderr)
        sys.exit(130)


def _other_error(e: Exception) -> None:
    """End kbsim for an exception no command handled: one line and exit 2 for a user's error, else re-raise."""
    from kbsim.records import RecordsError  # imported only here: pyarrow is not needed to start kbsim

    if isinstance(e, RecordsError):  # a records file that cannot be used (damaged, not records...)
        for line in str(e).splitlines() or [""]:  # one line per problem, each a whole message
            print(f"kbsim: error: {line}", file=sys.stderr)
        sys.exit(2)
    if getattr(e, "exit_code", None) == 2 and hasattr(e, "format_message"):
        ctx = getattr(e, "ctx", None)
        where = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        print(f"kbsim: error: {e.format_message()}{where}", file=sys.stderr)
        sys.exit(2)
    if type(e).__name__ == "Abort":
        print("kbsim: interrupted", file=sys.stderr)
        sys.exit(130)
    if type(e).__name__ == "Exit":
        sys.exit(getattr(e, "exit_code", 0))
    if isinstance(e.__context__, BrokenPipeError) or isinstance(e.__cause__, BrokenPipeError):
        closed_pipe()
    if _engine_error(e) and not os.environ.get("KBSIM_TRACEBACK"):
        cause = " ".join(str(e).split())  # (one line, whatever the message holds)
        print(
            f"kbsim: error: a game failed ({type(e).__name__}: {cause}); this is a fault of the engine, a bot or the "
            "rule file, not of the command: please report it with the command (KBSIM_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        sys.exit(1)
    raise


def _engine_error(e: Exception) -> bool:
    """Whether ``e`` is the engine's or a bot's failure inside a game (an illegal move, a broken invariant...)."""
    from kbsim.engine.results import IllegalMove, InvariantError
    from kbsim.engine.rows.search.frontier import BoardError, PlanError

    return isinstance(e, (IllegalMove, InvariantError, BoardError, PlanError))


app.command()(run.run)
app.command()(replay.replay)
app.command()(report.report)
app.command()(compare.compare)
app.command()(solve.solve)
app.command()(tune.tune)
app.command()(play.play)
rules_app.command("check")(rules.rules_check)
rules_app.command("show")(rules.rules_show)
rules_app.command("schema")(rules.rules_schema)
rules_app.command("test")(rules.rules_test)
rules_app.command("publish")(rules.rules_publish)
