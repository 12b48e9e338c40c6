"""The ``kbsim`` command line: :data:`app` (typer) and the console-script entry point :func:`main`."""

from kbsim.cli.app import app, main

__all__ = ["app", "main"]
