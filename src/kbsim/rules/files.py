"""The lowest layer of the rules package: the rules error, the shipped rules folder, reading and reporting.

Shared by the loader and the rule-file models (a market rule file reads its card
table through :func:`read_document`), so that neither imports the other.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kbsim.strict_io import YamlInputError, load_yaml, preview

MAX_RULE_FILE_BYTES = 1_000_000  # a rule, example or card-table file larger than this is refused


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
    """Parse a YAML rule file (or example or card-table file) into a dict, strictly and within bounds.

    YAML 1.2 core scalars (``yes`` is text, not true); see :func:`kbsim.strict_io.load_yaml`.

    Args:
        path: the file to read (at most :data:`MAX_RULE_FILE_BYTES` bytes of UTF-8 text).

    Returns:
        The top-level mapping of the document.

    Raises:
        RulesError: unreadable, not UTF-8, larger than the size limit, a syntax error,
            a duplicate key (e.g. ``setup.hand_size`` twice), a recursive alias or a
            document over the nesting/node limits; the message names the file and line.
    """
    try:
        if path.stat().st_size > MAX_RULE_FILE_BYTES:
            raise RulesError(
                f"{path}: the file is larger than {MAX_RULE_FILE_BYTES:,} bytes; expected at most "
                f"{MAX_RULE_FILE_BYTES:,}"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RulesError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RulesError(f"{path}: not UTF-8 text (byte {e.start}); save the rule file as UTF-8") from None
    try:
        doc = load_yaml(text)
    except YamlInputError as e:
        where = f" at line {e.line}" if e.line else ""
        raise RulesError(f"{path}{where}: {e.message}") from None
    if not isinstance(doc, dict):
        raise RulesError(f"{path}: expected a mapping of rule sections at the top level, got {type(doc).__name__}")
    return doc


def format_validation(path: Path | str, err: ValidationError) -> list[str]:
    """One line per validation error: ``FILE: field.path: message (got PREVIEW)`` (a bounded preview)."""
    lines = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown field (not part of the rules language; check the spelling)"
        got = e.get("input")
        shown = "" if e["type"] in ("missing", "extra_forbidden") else f" (got {preview(got)})"
        lines.append(f"{path}: {loc}: {msg}{shown}")
    return lines


__all__ = ["MAX_RULE_FILE_BYTES", "RulesError", "format_validation", "read_document"]
