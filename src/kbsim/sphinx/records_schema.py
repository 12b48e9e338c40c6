"""``{kbsim-records}`` and ``{kbsim-schema}``: the records columns and the rule-file field reference."""

from __future__ import annotations

import json
import re
import types
from typing import Any, Union, get_args, get_origin

from docutils import nodes
from docutils.parsers.rst import directives
from pydantic import BaseModel
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from kbsim.rules.families import RULE_MODELS
from kbsim.sphinx.helpers import code, constraints, local_ref, para, scalar, table, type_words

logger = logging.getLogger(__name__)


# ------------------------------------------------------------------ records schema
def _docstring_meanings(doc: str) -> dict[str, str]:
    """Map of column -> meaning, from the simple reST table (name, type, meaning) in a module docstring.

    Cells are cut at the column positions of the table's ``====`` border, so a type with a
    space in it (``int16 (null)``) is read correctly.
    """
    out: dict[str, str] = {}
    lines = doc.splitlines()
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"\s*=+(\s+=+)+\s*", line)]
    if not borders:
        return out
    starts = [m.start() for m in re.finditer(r"=+", lines[borders[0]])]
    first = borders[1] if len(borders) >= 3 else borders[0]  # skip the header row when the table has one
    for line in lines[first + 1 : borders[-1]]:
        if not line.strip() or re.fullmatch(r"\s*=+(\s+=+)+\s*", line):
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line) + 1], strict=True)]
        if len(cells) >= 3 and cells[0] and cells[-1]:
            out[cells[0]] = cells[-1]
    return out


class RecordsDirective(SphinxDirective):
    """``{kbsim-records}``: the columns of a records file, from :data:`kbsim.sim.records.ALL_FIELDS`.

    A column's meaning is its field metadata ``description`` when present, else the
    line of the module docstring's table that names it; a column with neither warns.
    """

    def run(self) -> list[nodes.Node]:
        """The columns table; a column without a description warns."""
        from kbsim.sim import records

        meanings = _docstring_meanings(records.__doc__ or "")
        rows = []
        for f in records.ALL_FIELDS:  # every family's columns; the meaning names the family
            meta = f.metadata or {}
            meaning = meta.get(b"description", b"").decode() or meanings.get(f.name, "")
            if not meaning:
                logger.warning(
                    "kbsim: records column %r has no description", f.name, location=(self.env.docname, self.lineno)
                )
            rows.append([[code(f.name)], [code(str(f.type))], meaning.replace("``", "`")])
        return [table(["Column", "Arrow type", "Meaning"], rows, classes=["kbsim-records"], widths=[3, 3, 8])]


# ------------------------------------------------------------------ rule-file schema
def models_in_order(root: type[BaseModel]) -> list[type[BaseModel]]:
    """``root`` and every model its fields use, each once, in the order they are first met (depth first)."""
    seen: list[type[BaseModel]] = []

    def walk(cls: type[BaseModel]) -> None:
        if cls in seen:
            return
        seen.append(cls)
        for info in cls.model_fields.values():
            for sub in _all_models(info.annotation):
                walk(sub)

    walk(root)
    return seen


def _all_models(ann: Any) -> list[type[BaseModel]]:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [ann]
    return [m for arg in get_args(ann) for m in _all_models(arg)]


def _type_nodes(ann: Any, anchors: dict[type, str] | None = None) -> list[Any]:
    """Like :func:`type_words` but model types link to their own table (``anchors``: model -> anchor)."""
    anchors = anchors or {}
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [local_ref(anchors.get(ann, f"schema-{ann.__name__.lower()}"), code(ann.__name__))]
    origin = get_origin(ann)
    if origin in (Union, types.UnionType):
        out: list[Any] = []
        for i, a in enumerate(get_args(ann)):
            out += ([" or "] if i else []) + _type_nodes(a, anchors)
        return out
    if origin is list and _all_models(ann):
        return ["a list of ", *_type_nodes(get_args(ann)[0], anchors)]
    if origin is dict and _all_models(ann):
        return ["a mapping of names to ", *_type_nodes(get_args(ann)[1], anchors)]
    return [type_words(ann)]


#: The root model of the rule files of each engine family (``family:`` in a rule file), from the registry.
SCHEMA_FAMILIES = {name: f"{m.__module__}:{m.__qualname__}" for name, m in RULE_MODELS.items()}


def schema_roots() -> list[tuple[str, type[BaseModel]]]:
    """(family, root model) of every engine family, from :data:`SCHEMA_FAMILIES`."""
    import importlib

    out = []
    for family, target in SCHEMA_FAMILIES.items():
        module, _, attr = target.partition(":")
        out.append((family, getattr(importlib.import_module(module), attr)))
    return out


class SchemaDirective(SphinxDirective):
    """``{kbsim-schema}``: the rule-file field reference of every engine family, then the JSON Schema.

    Per engine family, a table per rule-file model (field, type, default, meaning), then
    the JSON Schema ``kbsim rules schema`` prints.

    A model two families share (``Option``, ``Variant``, ...) is described once, under the first
    family; a model name both families use for different models gets the family in its anchor
    (``schema-market-setup``) and title.
    """

    option_spec = {"no-json": directives.flag}

    def run(self) -> list[nodes.Node]:
        """One section per engine family (a table per model), then the JSON Schema unless ``:no-json:``."""
        roots = schema_roots()
        anchors: dict[type, str] = {}
        per_family: list[tuple[str, type[BaseModel], list[type[BaseModel]]]] = []
        for family, root in roots:
            mine = []
            for cls in models_in_order(root):
                if cls in anchors:
                    continue
                ident = f"schema-{cls.__name__.lower()}"
                if ident in anchors.values():
                    ident = f"schema-{family}-{cls.__name__.lower()}"
                anchors[cls] = ident
                mine.append(cls)
            per_family.append((family, root, mine))
        out: list[nodes.Node] = []
        for family, root, models in per_family:
            ident = f"schema-family-{family}"
            fam = nodes.section(ids=[ident], names=[ident])
            title = f"The {family} family"
            fam += nodes.title(title, title)
            self.state.document.note_explicit_target(fam, fam)
            optional = not root.model_fields["family"].is_required()
            fam += para(
                f"Rule files with `family: {family}`"
                + (" (or no `family`)" if optional else "")
                + ". The root of such a file is ",
                local_ref(anchors[root], code(root.__name__)),
                "; models already described above are linked, not repeated.",
            )
            for cls in models:
                fam += self.model_section(cls, anchors, family)
            out.append(fam)
        if "no-json" not in self.options:
            text = self.json_schema(roots)
            sec = nodes.section(ids=["json-schema"], names=["json-schema"])
            sec += nodes.title("JSON Schema", "JSON Schema")
            self.state.document.note_explicit_target(sec, sec)
            sec += para(
                "The same models as JSON Schema, as ",
                code("kbsim rules schema"),
                " prints it (every family; ",
                code("--family rows"),
                " or ",
                code("--family market"),
                " prints one):",
            )
            sec += nodes.literal_block(text, text, language="json", classes=["no-search"])
            out.append(sec)
        return out

    def model_section(self, cls: type[BaseModel], anchors: dict[type, str], family: str) -> nodes.section:
        """The table of one model's fields (field, type, default, meaning), under its anchor."""
        from pydantic_core import PydanticUndefined

        ident = anchors[cls]
        sec = nodes.section(ids=[ident], names=[ident])
        label = cls.__name__ + (f" ({family})" if ident.startswith(f"schema-{family}-") else "")
        sec += nodes.title("", "", code(label))
        self.state.document.note_explicit_target(sec, sec)
        doc = (cls.__doc__ or "").strip().split("\n\n")[0]
        if doc and cls.__doc__ != BaseModel.__doc__:
            sec += para(" ".join(doc.split()).replace("``", "`"))
        rows = []
        for name, info in cls.model_fields.items():
            key = info.alias or name
            bounds = constraints(info)
            type_cell = _type_nodes(info.annotation, anchors) + ([f" ({bounds})"] if bounds else [])
            if info.is_required():
                default: Any = "required"
            elif info.default_factory is not None:
                default = [code(scalar(info.default_factory()))]
            elif info.default is PydanticUndefined:
                default = ""
            else:
                default = [code(scalar(info.default))]
            rows.append([[code(key)], type_cell, default, (info.description or "").replace("``", "`")])
        sec += table(["Field", "Type", "Default", "Meaning"], rows, classes=["kbsim-schema"], widths=[3, 4, 2, 7])
        return sec

    def json_schema(self, roots: list[tuple[str, type[BaseModel]]]) -> str:
        """What ``kbsim rules schema`` prints (:func:`kbsim.rules.families.json_schema`), indented."""
        from kbsim.rules.families import json_schema

        return json.dumps(json_schema("all"), indent=2)
