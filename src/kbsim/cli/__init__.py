"""The ``kbsim`` command line: :data:`app` (typer) and the console-script entry point :func:`main`."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def main() -> None:
    """Console-script entry point (:func:`kbsim.cli.application.main`).

    Ctrl-C while the modules load exits 130 with one line, not a traceback.
    """
    try:
        _load()
    except KeyboardInterrupt:
        print("kbsim: interrupted", file=sys.stderr)
        sys.exit(130)
    from kbsim.cli.application import main as run_app

    run_app()


def _load() -> Any:
    """The typer app, imported on first use."""
    from kbsim.cli.application import app

    globals()["app"] = app
    return app


def __getattr__(name: str) -> Any:
    """``kbsim.cli.app`` (the typer app) on first use, so that the entry point can guard the imports."""
    if name == "app":
        return _load()
    raise AttributeError(name)


__all__ = ["app", "main"]
