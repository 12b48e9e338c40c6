"""Strict, bounded input and clean output shared by every command.

* :func:`load_yaml` reads YAML the way a rule file, example file or study file
  must be read: YAML 1.2 core-schema scalars (``yes``/``on``/``no`` are text,
  ``010`` is ten, ``1:30`` is text, no timestamps, no ``<<`` merge keys), a
  duplicate key is an error naming the dotted key and its line, and the
  document is bounded (size, nesting, nodes counted with every alias expanded)
  before anything is built from it, so a "billion laughs" or a recursive alias
  is refused in milliseconds.
* :func:`preview` shows a value in an error message from a bounded walk (never
  serialising the whole value first).
* :func:`dumps_json` writes strict JSON: NaN and infinities become ``null``
  (nowhere ``NaN``), so any JSON parser can read every ``--json`` output.

* :func:`read_input_text` reads a whole input file (rule file, card table, example file, study file) the one
  safe way: a regular file only (a named pipe, device or folder is refused at once, never waited on), at
  most :data:`MAX_INPUT_BYTES`, UTF-8 (a byte-order mark is accepted); :func:`check_regular_file` refuses a
  path that is not a regular file, for readers that open the file themselves (records, read by pyarrow).

Limits of every input file kbsim reads (one table, :data:`INPUT_LIMITS`; the rules language adds its own, see
:data:`kbsim.rules.schema.LIMITS`; documented in ``docs/guide/rule-files.md`` and ``docs/guide/studies.md``):

=======================  ==========================================================
``MAX_INPUT_BYTES``      1,000,000 bytes per rule, card-table, example or study file
``MAX_YAML_DEPTH``       32 levels of nested mappings/lists
``MAX_YAML_NODES``       200,000 values, aliases expanded
``MAX_TEXT``             20,000 characters of prose (summary, question, reading)
``MAX_NAME``             200 characters of a name, title or key
``MAX_LIST``             1,000 items of a list or mapping
``MAX_PATH``             4,096 characters of a file path named inside a file
=======================  ==========================================================
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

MAX_INPUT_BYTES = 1_000_000
MAX_YAML_BYTES = MAX_INPUT_BYTES  # the same limit, by its older name
MAX_YAML_DEPTH = 32
MAX_YAML_NODES = 200_000
MAX_TEXT = 20_000
MAX_NAME = 200
MAX_LIST = 1_000
MAX_PATH = 4_096

INPUT_LIMITS = {
    "file size (bytes)": f"{MAX_INPUT_BYTES:,}",
    "nesting (levels)": f"{MAX_YAML_DEPTH}",
    "values, aliases expanded": f"{MAX_YAML_NODES:,}",
    "text (summary, reading, question)": f"at most {MAX_TEXT:,} characters",
    "names, titles, keys": f"at most {MAX_NAME} characters",
    "list items (examples, moves, roster, options, variants, arms)": f"at most {MAX_LIST:,}",
    "file paths named in a file": f"at most {MAX_PATH:,} characters",
}
"""The limits every input file obeys, with their allowed range (for the docs and tests)."""


class InputFileError(Exception):
    """An input path that cannot be read as a file: missing, not a regular file, too large, not UTF-8.

    ``str(err)`` is one line naming the path and the problem.
    """


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(path: str | Path, mode: int, what: str) -> InputFileError:
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return InputFileError(f"{path}: is {kind}; expected {what} (a regular file)")


def check_regular_file(path: str | Path, what: str = "a file") -> None:
    """Refuse ``path`` unless it names a regular file (symbolic links are followed).

    For readers that open the file themselves (pyarrow reading records): a named pipe would block them for
    ever, a device would feed them without end.

    Args:
        path: the file.
        what: what the file should be, for the message (``a records file``).

    Raises:
        InputFileError: no such file, unreadable, or not a regular file (a FIFO, device, socket or folder).
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file; expected {what}") from None
    except OSError as e:
        raise InputFileError(f"{path}: cannot read: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode, what)


def read_input_text(path: str | Path, what: str = "a file", limit: int = MAX_INPUT_BYTES) -> str:
    """Read a whole text input file, the one safe way every reader of kbsim's input files uses.

    The file is opened without blocking and checked on the open descriptor (so it cannot be swapped for a
    named pipe between a check and the read): only a regular file of at most ``limit`` bytes is read. The
    text is UTF-8; a leading byte-order mark (``EF BB BF``, written by some Windows editors) is dropped.

    Args:
        path: the file.
        what: what the file should be, for messages (``a rule file``).
        limit: the most bytes accepted (default :data:`MAX_INPUT_BYTES`).

    Returns:
        The decoded text.

    Raises:
        InputFileError: no such file, unreadable, not a regular file, larger than ``limit``, or not UTF-8;
            one line naming the path.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file; expected {what}") from None
    except OSError as e:
        raise InputFileError(f"{path}: cannot read: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode, what)
        too_big = InputFileError(f"{path}: the file is larger than {limit:,} bytes; expected at most {limit:,}")
        if st.st_size > limit:
            raise too_big
        chunks, size = [], 0
        while size <= limit:  # the size may have changed since fstat: read at most limit + 1 bytes
            block = os.read(fd, min(1 << 20, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
        if size > limit:
            raise too_big
    except OSError as e:
        raise InputFileError(f"{path}: cannot read: {e.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{path}: not UTF-8 text (byte {e.start}); save the file as UTF-8") from None


def check_bounds(value: Any, where: str = "") -> None:
    """Refuse a parsed document (plain dicts and lists) deeper or larger than the input limits.

    :func:`load_yaml` checks a YAML document as it is composed; this is the same check for a document
    another parser built (a TOML study file).

    Raises:
        YamlInputError: nested deeper than :data:`MAX_YAML_DEPTH` or more than :data:`MAX_YAML_NODES` values.
    """
    count = 0
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        node, path, depth = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            raise YamlInputError(
                f"the document holds more than {MAX_YAML_NODES:,} values; expected at most {MAX_YAML_NODES:,}"
            )
        if depth > MAX_YAML_DEPTH:
            raise YamlInputError(
                f"{path}: nested more than {MAX_YAML_DEPTH} levels deep; expected at most {MAX_YAML_DEPTH}"
            )
        if isinstance(node, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}.{i}" if path else str(i), depth + 1) for i, v in enumerate(node))


_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlInputError(Exception):
    """A YAML document that cannot be used. ``line`` is 1-based (None when unknown)."""

    def __init__(self, message: str, line: int | None = None):
        self.message = message
        self.line = line
        super().__init__(message if line is None else f"line {line}: {message}")


class _Core12Loader(_Base):  # type: ignore[misc, valid-type]
    """A safe loader resolving plain scalars by the YAML 1.2 core schema."""

    yaml_implicit_resolvers: dict = {}


for _tag, _regexp, _first in (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
):
    _Core12Loader.add_implicit_resolver(_tag, re.compile(_regexp), list(_first))


def _construct_int(loader, node) -> int:
    text = loader.construct_scalar(node)
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if body.startswith("0o"):
        return sign * int(body[2:], 8)
    if body.startswith("0x"):
        return sign * int(body[2:], 16)
    return sign * int(body, 10)


def _construct_bool(loader, node) -> bool:
    return loader.construct_scalar(node).lower() == "true"


_Core12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Core12Loader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)


def _key_text(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return str(node.value)
    return "<complex key>"


def _check(root: yaml.Node) -> None:
    """Bound the composed document and refuse duplicate keys and recursive aliases.

    Sizes are computed once per distinct node (memoised), so the check costs
    time proportional to the text, however many times aliases repeat a node.
    """
    sizes: dict[int, int] = {}
    on_path: set[int] = set()

    def walk(node: yaml.Node, path: str, depth: int) -> int:
        nid = id(node)
        if nid in sizes:
            return sizes[nid]
        if nid in on_path:
            raise YamlInputError(
                f"{path or '(top level)'}: an alias refers to a value that contains it "
                f"(a recursive alias); expected a finite value",
                node.start_mark.line + 1,
            )
        if depth > MAX_YAML_DEPTH:
            raise YamlInputError(
                f"{path}: nested more than {MAX_YAML_DEPTH} levels deep; expected at most {MAX_YAML_DEPTH}",
                node.start_mark.line + 1,
            )
        total = 1
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            on_path.add(nid)
            if isinstance(node, yaml.MappingNode):
                seen: dict[str, int] = {}
                for k, v in node.value:
                    key = _key_text(k)
                    dotted = f"{path}.{key}" if path else key
                    if isinstance(k, yaml.ScalarNode):
                        if key in seen:
                            raise YamlInputError(
                                f"duplicate key `{dotted}` (first at line {seen[key]}); expected "
                                f"each key once per mapping",
                                k.start_mark.line + 1,
                            )
                        seen[key] = k.start_mark.line + 1
                    total += walk(k, dotted, depth + 1) + walk(v, dotted, depth + 1)
                    if total > MAX_YAML_NODES:
                        break
            else:
                for i, v in enumerate(node.value):
                    total += walk(v, f"{path}.{i}" if path else str(i), depth + 1)
                    if total > MAX_YAML_NODES:
                        break
            on_path.discard(nid)
        if total > MAX_YAML_NODES:
            raise YamlInputError(
                f"{path or '(top level)'}: the document holds more than {MAX_YAML_NODES:,} values "
                f"once its aliases are expanded; expected at most {MAX_YAML_NODES:,}",
                node.start_mark.line + 1,
            )
        sizes[nid] = total
        return total

    walk(root, "", 0)


def load_yaml(text: str) -> Any:
    """Parse one YAML document strictly and within bounds.

    Args:
        text: the document (already decoded).

    Returns:
        The plain Python value (dicts, lists, str, int, float, bool, None).

    Raises:
        YamlInputError: syntax error, duplicate key, recursive alias, or a
            document over a limit (``MAX_YAML_BYTES``, ``MAX_YAML_DEPTH``,
            ``MAX_YAML_NODES``); ``line`` says where when known.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_YAML_BYTES:
        raise YamlInputError(f"the file is larger than {MAX_YAML_BYTES:,} bytes; expected at most {MAX_YAML_BYTES:,}")
    loader = _Core12Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise YamlInputError(f"nested too deeply; expected at most {MAX_YAML_DEPTH} levels") from None
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise YamlInputError(f"YAML syntax error: {problem}", mark.line + 1 if mark else None) from None
        if node is None:
            return None
        _check(node)
        try:
            return loader.construct_document(node)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise YamlInputError(f"YAML error: {problem}", mark.line + 1 if mark else None) from None
        except (ValueError, TypeError) as e:  # e.g. an unhashable (mapping) key
            raise YamlInputError(f"YAML error: {e}") from None
    finally:
        loader.dispose()


def load_yaml_scalar(text: str) -> Any:
    """Read the VALUE of ``--option KEY=VALUE`` by YAML 1.2 core rules.

    ``7`` is an int, ``7.0`` a float, ``true`` a bool, ``yes`` the text ``yes``, ``[edgar, agatha]`` a list (for
    list options); a mapping or anything unreadable is taken as text (the rules' strict validation then names the
    expected type).

    Args:
        text: the VALUE as typed on the command line.

    Returns:
        The value: an int, float, bool, None, list or str.
    """
    try:
        value = load_yaml(text)
    except YamlInputError:
        return text
    if isinstance(value, dict):
        return text
    return value


def kind_in_words(value: Any) -> str:
    """What kind of value ``value`` is, in words for a message (never a Python type name).

    Args:
        value: a value read from an input file (YAML, TOML or JSON).

    Returns:
        E.g. ``"a list"``, ``"a text"``, ``"a whole number"``, ``"nothing"`` (for ``None``).
    """
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a yes/no value"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "a value of another kind"


def top_level_problem(value: Any, expected: str) -> str:
    """The message for a document whose top level is not what is expected (an empty file says so).

    Args:
        value: the parsed document.
        expected: what was expected, e.g. ``"a mapping of rule sections at the top level"``.

    Returns:
        ``"the file is empty; expected ..."`` or ``"expected ..., got a list"``.
    """
    if value is None:
        return f"the file is empty; expected {expected}"
    return f"expected {expected}, got {kind_in_words(value)}"


def preview(value: Any, limit: int = 60) -> str:
    """A JSON-like preview of ``value`` of at most ``limit`` characters, built from a bounded walk.

    Shared (aliased) sub-values are not expanded more than the preview needs, so
    previewing a huge value costs O(limit).
    """
    parts: list[str] = []
    budget = [limit + 1]

    def emit(s: str) -> bool:
        parts.append(s[: budget[0]])
        budget[0] -= len(s)
        return budget[0] > 0

    def walk(v: Any, depth: int) -> bool:
        if depth > 8:
            return emit("…")
        if isinstance(v, dict):
            if not emit("{"):
                return False
            for i, (k, x) in enumerate(v.items()):
                if (i and not emit(", ")) or not emit(json.dumps(str(k)) + ": ") or not walk(x, depth + 1):
                    return False
            return emit("}")
        if isinstance(v, (list, tuple)):
            if not emit("["):
                return False
            for i, x in enumerate(v):
                if (i and not emit(", ")) or not walk(x, depth + 1):
                    return False
            return emit("]")
        if isinstance(v, str):
            return emit(json.dumps(v[: limit + 2], ensure_ascii=False))
        if isinstance(v, float) and not math.isfinite(v):
            return emit(str(v))
        if v is None or isinstance(v, (bool, int, float)):
            return emit(json.dumps(v))
        return emit(str(v)[: limit + 1])

    walk(value, 0)
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clean_json(value: Any) -> Any:
    """A copy of ``value`` in which every non-finite float (NaN, ±inf) is ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_json(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and type(value).__module__ == "numpy":
        return clean_json(value.item())
    return value


def dumps_json(value: Any, **kwargs: Any) -> str:
    """Strict JSON text of ``value``: NaN/±inf written as ``null``, never as ``NaN``.

    Raises:
        ValueError: never for non-finite floats (they are replaced); ``TypeError`` for
            values JSON cannot hold unless ``default=`` is given.
    """
    return json.dumps(clean_json(value), allow_nan=False, **kwargs)


def loads_json_strict(text: str) -> Any:
    """Parse JSON, refusing the non-standard constants ``NaN``, ``Infinity`` and ``-Infinity``."""

    def refuse(name: str) -> Any:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)
