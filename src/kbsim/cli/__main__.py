"""``python -m kbsim.cli``: the same as the ``kbsim`` command (Ctrl-C while it loads included)."""

from kbsim.cli import main

main()
