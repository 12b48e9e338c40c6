"""``{kbsim-fields} MODULE:MODEL``: the field tables of a study-file section, walked from its pydantic models.

Used by the tuning guide for the ``[tune]`` section (:class:`kbsim.sim.tune_spec.TuneSection`),
so the documented fields, types, bounds, defaults and meanings are those the study loader
validates. With ``:terms: MODULE:DICT`` a table of named terms follows (e.g. the measures a
target may name, :data:`kbsim.sim.tune_spec.MEASURES`).
"""

from __future__ import annotations

import importlib
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives

from kbsim.sphinx.helpers import code, table
from kbsim.sphinx.records_schema import SchemaDirective, models_in_order


def _resolve(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


class FieldsDirective(SchemaDirective):
    """``{kbsim-fields} MODULE:MODEL``: a table per model (the root, then the models its fields use)."""

    required_arguments = 1
    option_spec = {"prefix": directives.unchanged, "terms": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        """The models' field tables (anchors ``PREFIX-MODEL``), then the terms table if asked for."""
        root = _resolve(self.arguments[0])
        prefix = self.options.get("prefix", "fields")
        models = models_in_order(root)
        anchors = {cls: f"{prefix}-{cls.__name__.lower()}" for cls in models}
        out: list[nodes.Node] = [self.model_section(cls, anchors, prefix) for cls in models]
        if "terms" in self.options:
            terms = _resolve(self.options["terms"])
            rows = [[[code(k)], v.replace("``", "`")] for k, v in terms.items()]
            out.append(table(["Name", "Meaning"], rows, classes=["kbsim-schema"], widths=[3, 9]))
        return out
