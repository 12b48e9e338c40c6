"""``python -m kbsim.cli``: the same as the ``kbsim`` command."""

from kbsim.cli.application import main

main()
