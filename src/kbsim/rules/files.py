"""The lowest layer of the rules package: the rules error, the shipped rules folder, reading and reporting.

Shared by the loader and the rule-file models (a market rule file reads its card
table through :func:`read_document`), so that neither imports the other.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kbsim.strict_io import (
    MAX_INPUT_BYTES,
    InputFileError,
    YamlInputError,
    load_yaml,
    preview,
    read_input_text,
    top_level_problem,
)

MAX_RULE_FILE_BYTES = MAX_INPUT_BYTES  # a rule, example or card-table file larger than this is refused


class RulesError(Exception):
    """A rule file, variant or option that cannot be used.

    ``str(err)`` is one or more lines, each naming the file, the field path,
    the problem and what was expected.
    """

    def __init__(self, lines: list[str] | str):
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))


def shipped_dir() -> Path | None:
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
        RulesError: unreadable, not a regular file (a named pipe, a folder), not UTF-8, larger than the size
            limit, a syntax error, a duplicate key (e.g. ``setup.hand_size`` twice), a recursive alias or a
            document over the nesting/node limits; the message names the file (:func:`display_path`) and line.
    """
    name = display_path(path)
    try:
        text = read_input_text(path, "a YAML rule file")
    except InputFileError as e:
        raise RulesError(str(e).replace(str(path), name, 1)) from None
    try:
        doc = load_yaml(text)
    except YamlInputError as e:
        where = f" at line {e.line}" if e.line else ""
        raise RulesError(f"{name}{where}: {e.message}") from None
    if not isinstance(doc, dict):
        raise RulesError(f"{name}: {top_level_problem(doc, 'a mapping of rule sections at the top level')}")
    return doc


def display_path(path: Path | str, *, with_path: bool = False) -> str:
    """How messages name a file: a file shipped inside the installed package as ``kingsbridge (shipped)``.

    The installed package's folder (``.../site-packages/kbsim/_rules/kingsbridge.yaml``) means nothing to a
    user who typed ``kingsbridge``; any other file keeps the path as given.

    Args:
        path: the file.
        with_path: name a shipped file by its game *and* the real path read (``kingsbridge (shipped) /.../
            kbsim/_rules/kingsbridge.yaml``), for the commands that tell which file is read (``kbsim rules show``,
            ``kbsim rules check``).

    Returns:
        The name to print.
    """
    text = str(path)
    try:
        packaged = Path(str(resources.files("kbsim") / "_rules")).resolve()
        resolved = Path(path).resolve()
    except (OSError, TypeError, ValueError):
        return text
    if resolved.parent == packaged:
        stem = resolved.name.removesuffix(".yaml").removesuffix(".yml")
        return f"{stem} (shipped) {resolved}" if with_path else f"{stem} (shipped)"
    return text


def item_path(field: str, i: int, name: str | None = None) -> str:
    """An item of a list field as a person counts it: ``item_path("arms", 1, "late")`` is ``arms #2 "late"``.

    Args:
        field: the list's field path (``arms``, ``tune.targets``).
        i: the item's 0-based index.
        name: the item's name, if it has one.
    """
    return f"{field} #{i + 1}" + (f' "{name}"' if name else "")


def _field_path(loc: tuple[Any, ...], doc: Any) -> list[str]:
    """The parts of a field path as a person counts them (an item of a list from 1, by its name where it has one).

    ``("arms", 1, "games")`` over a document whose second arm is named ``late`` gives ``arms #2 "late"`` and
    ``games``; other parts stay as they are.

    Args:
        loc: pydantic's location of an error (keys and 0-based list indices).
        doc: the document validated (followed along ``loc`` to find the items' names), or None.
    """
    parts: list[str] = []
    node = doc
    for x in loc:
        if isinstance(x, int) and not isinstance(x, bool) and isinstance(node, list):
            item = node[x] if 0 <= x < len(node) else None
            named = item.get("name") if isinstance(item, dict) else None
            label = item_path(parts.pop() if parts else "", x, named if isinstance(named, str) else None)
            parts.append(label.lstrip())
            node = item
            continue
        parts.append(str(x))
        node = node.get(x) if isinstance(node, dict) else None
    return parts


def format_validation(
    path: Path | str, err: ValidationError, what: str = "the rules language", doc: Any = None
) -> list[str]:
    """One line per validation error: ``FILE: field.path: message (got PREVIEW)`` (a bounded preview).

    pydantic's ``Value error,`` prefix is dropped. A check of the whole document (a cross-field check, no field
    path of its own) names its field in its message, so it is shown as ``FILE: message``, without an echo of
    the whole document. With ``doc``, an item of a list is named by its place from 1 and its ``name``
    (``arms #2 "late".games``, not pydantic's ``arms.1.games``).

    Args:
        path: the file (a shipped file is named as :func:`display_path` does).
        err: the validation error.
        what: what the document is written in, for an unknown field (``the study format``).
        doc: the document that was validated (a dict read from the file), or None (list items then by their
            0-based index).
    """
    name = display_path(path) if isinstance(path, Path) else str(path)
    lines = []
    for e in err.errors():
        parts = _field_path(e["loc"], doc) if doc is not None else [str(x) for x in e["loc"]]
        msg = e["msg"].removeprefix("Value error, ")
        if parts[-1:] == ["[key]"]:  # a mapping key, not its value: `characters.deal: key 9: ...`
            parts, msg = parts[:-2], f"key {parts[-2]}: {msg}"
        loc = ".".join(parts)
        if e["type"] == "extra_forbidden":
            msg = f"unknown field (not part of {what}; check the spelling)"
        got = e.get("input")
        # a check of a whole section names its fields in its message: the section itself is not echoed
        if not loc or (e["type"] == "value_error" and isinstance(got, dict)):
            # (a whole-document check may list several problems, one per line of its message)
            lines += [f"{name}: {loc + ': ' if loc else ''}{m}" for m in msg.split("\n")]
            continue
        shown = "" if e["type"] in ("missing", "extra_forbidden") else f" (got {preview(got)})"
        lines.append(f"{name}: {loc}: {msg}{shown}")
    return lines


__all__ = ["MAX_RULE_FILE_BYTES", "RulesError", "display_path", "format_validation", "item_path", "read_document"]
