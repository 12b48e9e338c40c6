"""``{kbsim-cli}``: the command-line reference, walked from the typer application."""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from kbsim.sphinx.helpers import bullets, code, local_ref, para, slug, table

logger = logging.getLogger(__name__)

# ------------------------------------------------------------------ command line
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*(?:=[^\s,;)]+)?)")


def cli_para(text: str) -> nodes.paragraph:
    """A paragraph of help text with every ``--flag`` as a literal (so it is never typeset as a dash)."""
    p = nodes.paragraph()
    pos = 0
    for m in _FLAG.finditer(text):
        if m.start() > pos:
            p += nodes.Text(text[pos : m.start()])
        p += code(m.group(1))
        pos = m.end()
    if pos < len(text):
        p += nodes.Text(text[pos:])
    return p


class CliDirective(SphinxDirective):
    """``{kbsim-cli}``: every command of the ``kbsim`` typer app with its usage and options."""

    option_spec = {"app": directives.unchanged, "prog": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        """The sections of the root command and, nested, of every subcommand."""
        import importlib

        import typer.main

        target = self.options.get("app", "kbsim.cli:app")
        module, _, attr = target.partition(":")
        app = getattr(importlib.import_module(module), attr)
        prog = self.options.get("prog", "kbsim")
        command = typer.main.get_command(app)
        return self.command(command, prog, None, level=0)

    def command(self, cmd: Any, path: str, parent_ctx: Any, level: int) -> list[nodes.Node]:
        """A section for ``cmd`` (help, usage, options table, list of subcommands), then its subcommands.

        Args:
            cmd: the click command.
            path: the command line that reaches it (``kbsim rules check``).
            parent_ctx: the click context of the parent command (None for the root).
            level: nesting depth (0 for the root).
        """
        ctx = cmd.context_class(cmd, info_name=path.rsplit(" ", 1)[-1], parent=parent_ctx)
        ident = "cli-" + slug(path.replace(" ", "-"))
        sec = nodes.section(ids=[ident], names=[ident])
        sec += nodes.title("", "", code(path))
        self.state.document.note_explicit_target(sec, sec)
        for chunk in (cmd.help or "").split("\n\n"):
            text = " ".join(line.strip() for line in chunk.strip().splitlines() if line.strip() != "\b")
            text, _, example = text.partition("Example:")
            if text.strip():
                sec += cli_para(text.strip())
            if example.strip():
                sec += para(nodes.strong("Example:", "Example:"))
                cmdline = "$ " + example.strip()
                sec += nodes.literal_block(cmdline, cmdline, language="console")
        usage = cmd.get_usage(ctx).strip()
        sec += nodes.literal_block(usage, usage, language="text")
        rows = []
        std = self.env.get_domain("std")
        for param in cmd.params:
            if getattr(param, "hidden", False):
                continue
            record = param.get_help_record(ctx)
            if record is None:
                continue
            flags, help_text = record
            rows.append([[code(flags)], cli_para(help_text or "")])
            for opt in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
                if opt.startswith("-"):
                    std.add_program_option(path, opt, self.env.docname, ident)
        rows.append([[code("--help")], "Show the help of this command and exit."])
        sec += table(["Option / argument", "Meaning"], rows, classes=["kbsim-cli-options"], widths=[4, 8])
        subs = getattr(cmd, "commands", None)
        if subs:
            sec += para("Commands:")
            sec += bullets(
                [
                    [
                        local_ref("cli-" + slug(f"{path}-{name}"), code(f"{path} {name}")),
                        " — ",
                        *cli_para((sub.help or "").strip().split("\n")[0]).children,
                    ]
                    for name, sub in subs.items()
                    if not getattr(sub, "hidden", False)
                ]
            )
        out: list[nodes.Node] = [sec]
        for name, sub in (subs or {}).items():
            if not getattr(sub, "hidden", False):
                sec += self.command(sub, f"{path} {name}", ctx, level + 1)
        return out
