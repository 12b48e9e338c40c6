"""The lowest layer of the rules package: the rules error, the shipped rules folder, reading and reporting.

Shared by the loader and the rule-file models (a market rule file reads its card
table through :func:`read_document`), so that neither imports the other.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class RulesError(Exception):
    """A rule file, variant or option that cannot be used.

    ``str(err)`` is one or more lines, each naming the file, the field path,
    the problem and what was expected.
    """

    def __init__(self, lines: list[str] | str):
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))


def _shipped_dir() -> Path | None:
    """The rule files inside the installed package, or the checkout's ``rules/``."""
    packaged = resources.files("kbsim") / "_rules"
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[3] / "rules"
    return checkout if checkout.is_dir() else None


def read_document(path: Path) -> dict[str, Any]:
    """Parse a YAML rule file into a dict; syntax errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RulesError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RulesError(f"{path}: not UTF-8 text (byte {e.start}); save the rule file as UTF-8") from None
    try:
        doc = yaml.load(text, Loader=_YAML_LOADER)  # noqa: S506 - a safe loader (C version when available)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "?"
        problem = getattr(e, "problem", None) or str(e)
        raise RulesError(f"{path}: YAML syntax error at {where}: {problem}") from None
    if not isinstance(doc, dict):
        raise RulesError(f"{path}: expected a mapping of rule sections at the top level, got {type(doc).__name__}")
    return doc


def format_validation(path: Path | str, err: ValidationError) -> list[str]:
    lines = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown field (not part of the rules language; check the spelling)"
        got = e.get("input")
        shown = "" if e["type"] in ("missing", "extra_forbidden") else f" (got {json.dumps(got, default=str)[:60]})"
        lines.append(f"{path}: {loc}: {msg}{shown}")
    return lines


__all__ = ["RulesError", "format_validation", "read_document"]
