"""Shared docutils node helpers and rule-file model helpers of the kbsim Sphinx extension."""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from docutils import nodes
from pydantic import BaseModel
from sphinx.util import logging

from kbsim.sphinx.i18n import N_

logger = logging.getLogger(__name__)

#: Meaning of the confidence marks of options and clarifications.
CONFIDENCE = {
    "R": N_("stated by the rulebook"),
    "I": N_("inferred: a reasoned default where the sources are not explicit"),
    "?": N_("a guess: the sources leave it open, so the option is worth measuring"),
}

# Section titles for rule-file fields; a field not listed here is titled from its name.
TITLES = {
    "cards": N_("Cards"),
    "table": N_("Table"),
    "rows": N_("Rows"),
    "completion": N_("Completing a row"),
    "setup": N_("Setup"),
    "turn": N_("The turn"),
    "lay_out": N_("Lay out"),
    "rebuild": N_("Rebuilding"),
    "exchange": N_("Exchange"),
    "pass": N_("Pass"),
    "refill": N_("Refilling the hand"),
    "end": N_("End of the game"),
    "win": N_("Winning"),
    "stalemate": N_("Stalemate"),
    "turn_limit": N_("Turn limit"),
    "minus": N_("Minus pile"),
    "score": N_("Score"),
    "family": N_("Engine family"),
    "currency": N_("Currency"),
    "tokens": N_("Company tokens"),
    "market": N_("Market"),
    "objectives": N_("Objectives"),
    "contracts": N_("Contracts"),
    "patterns": N_("Patterns"),
    "events": N_("Events"),
    "take": N_("Take a card"),
    "claim": N_("Claim an objective"),
    "trigger": N_("End trigger"),
    "stall": N_("Stalled game"),
    "penalties": N_("Penalties"),
    "match": N_("Match"),
}

CODE = re.compile(r"`([^`]+)`")


def same(text: str) -> str:
    """``text`` unchanged: the words of a helper called without a page's language (English)."""
    return text


# ------------------------------------------------------------------ small node helpers
def slug(text: str) -> str:
    """Lower-case ``text`` with every run of other characters than a-z, 0-9 and ``_`` made one ``-``."""
    return re.sub(r"[^a-z0-9_]+", "-", str(text).lower()).strip("-") or "x"


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def scalar(value: Any) -> str:
    """``value`` written as in a rule file (YAML flow style): ``true``, ``5``, ``end``, ``[1, 13]``."""
    text = yaml.safe_dump(_plain(value), default_flow_style=True, width=10_000, sort_keys=False).strip()
    return text.removesuffix("...").strip()


def inline(text: str) -> list[nodes.Node]:
    """Text nodes, with ```code``` spans (the rule files' only markup) as literals."""
    out: list[nodes.Node] = []
    pos = 0
    for m in CODE.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos : m.start()]))
        out.append(nodes.literal(m.group(1), m.group(1)))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def fill(node: nodes.Element, parts: Iterable[str | nodes.Node]) -> nodes.Element:
    """Append ``parts`` to ``node``: strings parsed with :func:`inline`, nodes as they are; returns ``node``."""
    for part in parts:
        if isinstance(part, str):
            node.extend(inline(part))
        else:
            node += part
    return node


def para(*parts: str | nodes.Node, classes: Iterable[str] = ()) -> nodes.paragraph:
    """A paragraph from strings (parsed with :func:`inline`) and nodes."""
    return fill(nodes.paragraph(classes=list(classes)), parts)


def code(text: Any, classes: Iterable[str] = ()) -> nodes.literal:
    """An inline literal showing ``text``."""
    return nodes.literal(str(text), str(text), classes=list(classes))


def local_ref(refid: str, *content: str | nodes.Node) -> nodes.reference:
    """A link to an anchor on the same page."""
    ref = nodes.reference("", "", internal=True, refid=refid)
    for c in content:
        ref += nodes.Text(c) if isinstance(c, str) else c
    return ref


def _cell(content: Any) -> nodes.entry:
    entry = nodes.entry()
    if content is None or content == "":
        return entry
    if isinstance(content, str):
        entry += para(content)
    elif isinstance(content, nodes.Body | nodes.Structural):
        entry += content
    elif isinstance(content, nodes.Node):
        entry += para(content)
    else:
        entry += fill(nodes.paragraph(), content)
    return entry


def table(
    header: list[str], rows: list[list[Any]], classes: Iterable[str] = (), widths: list[int] | None = None
) -> nodes.table:
    """A docutils table; a cell is a string, a node or a list of strings and inline nodes."""
    t = nodes.table(classes=list(classes))
    group = nodes.tgroup(cols=len(header))
    t += group
    for w in widths or [1] * len(header):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    hrow = nodes.row()
    for h in header:
        hrow += _cell(h)
    head += hrow
    group += head
    body = nodes.tbody()
    for r in rows:
        row = nodes.row()
        for c in r:
            row += _cell(c)
        body += row
    group += body
    return t


def field_list(items: list[tuple[str, Any]]) -> nodes.field_list:
    """A field list (``name: value`` lines) from (name, cell content) pairs."""
    fl = nodes.field_list(classes=["kbsim-fields"])
    for name, content in items:
        f = nodes.field()
        f += nodes.field_name(name, name)
        body = nodes.field_body()
        body += _cell(content).children
        f += body
        fl += f
    return fl


def bullets(items: Iterable[Any]) -> nodes.bullet_list:
    """A bullet list; an item is a cell as for :func:`table`."""
    bl = nodes.bullet_list()
    for it in items:
        li = nodes.list_item()
        li += _cell(it).children
        bl += li
    return bl


def provisional_note(obj: Any, tr: Callable[[str], str] = same) -> list[nodes.Node]:
    """A warning box when ``obj`` (a rule file or a part of one) carries a ``provisional`` reason or flag.

    Args:
        obj: the rule file or a part of it.
        tr: translates kbsim's words into the page's language (:class:`kbsim.sphinx.i18n.Words`).
    """
    reason = getattr(obj, "provisional", None)
    if not reason:
        return []
    box = nodes.warning(classes=["kbsim-provisional"])
    lead = tr("Provisional data.")
    box += para(
        nodes.strong(lead, lead),
        " ",
        reason
        if isinstance(reason, str)
        else tr(
            "This part of the rule file is not taken from a published source; replace it when the "
            "real data is known. Results that depend on it are provisional too."
        ),
    )
    return [box]


def character_items(model: Any) -> list[tuple[str, Any]]:
    """(key, character) of every character of a rule file; empty when the file has none.

    The characters are its ``characters.roster``, or a plain ``characters`` mapping or list.
    """
    chars = getattr(model, "characters", None)
    if chars is None:
        return []
    if isinstance(chars, BaseModel):
        chars = getattr(chars, "roster", None)
    return [(str(k), c) for k, c in items_of(chars)]


def fields_of(obj: BaseModel) -> Iterator[tuple[str, Any, Any]]:
    """(key as written in a rule file, value, FieldInfo) for each field of a model instance."""
    for name, info in type(obj).model_fields.items():
        yield (info.alias or name), getattr(obj, name), info


def has_summary(obj: Any) -> bool:
    """Whether ``obj`` is a rule model with a ``summary`` field (it then gets a section of its own)."""
    return isinstance(obj, BaseModel) and "summary" in type(obj).model_fields


def title_for(key: str) -> str:
    """The section title of a rule-file field (:data:`TITLES`, else its name capitalised)."""
    return TITLES.get(key, key.replace("_", " ").capitalize())


def items_of(container: Any) -> list[tuple[str, Any]]:
    """(key, item) pairs of a mapping, or of a list whose items carry a ``name`` (or ``id``)."""
    if container is None:
        return []
    if isinstance(container, dict):
        return list(container.items())
    out = []
    for i, item in enumerate(container):
        key = getattr(item, "name", None) or getattr(item, "id", None) or getattr(item, "key", None) or str(i + 1)
        out.append((str(key), item))
    return out


EXAMPLE_LABELS = {
    "hand": N_("Hand"),
    "draw_pile": N_("Draw pile"),
    "discard": N_("Discard pile"),
    "completed": N_("Rows completed"),
    "laid": N_("Hand cards laid"),
    "won": N_("Won"),
    "parked": N_("Parked cards"),
    "character": N_("Character"),
    "opponents": N_("Other players"),
    "opponent_piles": N_("Other players' draw piles"),
}


def cards_cell(text: str, tr: Callable[[str], str] = same) -> Any:
    """A cell showing a card text as a literal, or ``empty`` (in the page's language, ``tr``)."""
    return [code(text)] if text else tr("empty")


def value_cell(value: Any, tr: Callable[[str], str] = same) -> Any:
    """A field-list cell for an example value: card text, a list of card texts, or a scalar."""
    if isinstance(value, str):
        return cards_cell(value, tr)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts: list[Any] = []
        for i, v in enumerate(value):
            parts += (["; "] if i else []) + [code(v or "_")]
        return parts or tr("none")
    return [code(scalar(value))]


def meaning_of(description: str, value: str) -> str:
    """The part of a description that lists values (```a```: ...; ```b```: ...) about ``value``, else all of it."""
    parts = re.split(r";\s+(?=`[^`]+`:)", description)
    found = [re.match(r"^`([^`]+)`:\s*(.*)$", p.strip(), re.S) for p in parts]
    if len(parts) > 1 and all(found):
        for m in found:
            if m is not None and m.group(1) == value:
                return m.group(2).rstrip(".") + "."
    return description


def model_of(ann: Any) -> type[BaseModel] | None:
    """The first pydantic model in a type annotation (``list[Row] | None`` gives ``Row``), or None."""
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for arg in get_args(ann):
        found = model_of(arg)
        if found is not None:
            return found
    return None


def field_at(model: type[BaseModel], dotted: str) -> Any:
    """The pydantic FieldInfo at a dotted rule-file path (aliases allowed), or None."""
    info = None
    cls: type[BaseModel] | None = model
    for part in dotted.split("."):
        if cls is None:
            return None
        info = next((fi for name, fi in cls.model_fields.items() if part in (name, fi.alias)), None)
        if info is None:
            return None
        cls = model_of(info.annotation)
    return info


def constraints(info: Any) -> str:
    """The numeric bounds and pattern of a pydantic field, in words (``>= 1, <= 13``)."""
    parts = []
    for meta in getattr(info, "metadata", []):
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            if getattr(meta, attr, None) is not None:
                parts.append(f"{sign} {getattr(meta, attr)}")
        if getattr(meta, "pattern", None):
            parts.append(f"matching {meta.pattern}")
    return ", ".join(parts)


class _Meta:
    """Bare annotation metadata (``Ge(1)``...) seen as a field's, for :func:`constraints`."""

    def __init__(self, metadata: list) -> None:
        self.metadata = metadata


def type_words(ann: Any, tr: Callable[[str], str] = same) -> str:
    """A short description of a field type (no links), in the page's language (``tr``)."""
    simple = {
        int: N_("a whole number"),
        str: N_("text"),
        bool: N_("true or false"),
        float: N_("a number"),
        Any: N_("any value"),
    }
    if ann in simple:
        return tr(simple[ann])
    if ann is type(None):
        return "null"
    origin = get_origin(ann)
    if origin is Annotated:  # a type with bounds: Annotated[int, Field(ge=1)] reads "a whole number (>= 1)"
        inner, *extra = get_args(ann)
        bounds = ", ".join(b for m in extra if (b := constraints(m if hasattr(m, "metadata") else _Meta([m]))))
        return type_words(inner, tr) + (f" ({bounds})" if bounds else "")
    if origin is Literal:
        args = get_args(ann)
        if len(args) == 1:
            return tr("exactly {value}").format(value=scalar(args[0]))
        return tr("one of {values}").format(values=", ".join(scalar(a) for a in args))
    if origin in (Union, types.UnionType):
        return tr(" or ").join(type_words(a, tr) for a in get_args(ann))
    if origin is list:
        (inner,) = get_args(ann) or (Any,)
        return tr("a list of ({items})").format(items=type_words(inner, tr))
    if origin is dict:
        k, v = get_args(ann) or (str, Any)
        return tr("a mapping of {keys} to ({values})").format(keys=type_words(k, tr), values=type_words(v, tr))
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return tr("a {name} section").format(name=ann.__name__)
    return str(ann)


# ------------------------------------------------------------------ the market family
def rule_anchor(path: str) -> str:
    """The anchor :meth:`RulesRenderer.block` gives the rule section at a dotted path (``rule-contracts-...``)."""
    return "rule-" + slug(path.replace(".", "-").replace("_", "-"))
