"""The rule-file model of every engine family (``family:`` in a rule file -> pydantic model).

The rules layer's half of the family registry: the loader validates a rule file
with the model its ``family`` names; :mod:`kbsim.engine.families` reuses this
table as each family's ``schema``.
"""

from __future__ import annotations

from kbsim.rules.market_schema import MarketRuleFile
from kbsim.rules.schema import RuleFile

#: A validated rule document of any family.
RuleDocument = RuleFile | MarketRuleFile

RULE_MODELS: dict[str, type[RuleFile] | type[MarketRuleFile]] = {"rows": RuleFile, "market": MarketRuleFile}


def rule_model(family: str | None) -> type[RuleFile] | type[MarketRuleFile]:
    """The model of rule files of ``family``.

    Args:
        family: the rule file's ``family`` value, or None when it has none.

    Returns:
        The pydantic model; the rows model when the family is missing or unknown, so that the rows model's own
        validation names the bad ``family`` value.
    """
    return RULE_MODELS.get(family or "rows", RuleFile)


def json_schema(family: str = "all") -> dict:
    """The JSON Schema of rule files, as ``kbsim rules schema`` prints it and the rule-file guide shows it.

    Args:
        family: an engine family (``rows``, ``market``) or ``all`` (any of them: an ``anyOf`` of the models).

    Returns:
        The schema as a JSON-ready dict.

    Raises:
        KeyError: ``family`` is neither a family nor ``all``.
    """
    from pydantic.json_schema import models_json_schema

    if family != "all":
        return RULE_MODELS[family].model_json_schema(by_alias=True)
    models = list(RULE_MODELS.values())
    refs, schema = models_json_schema([(m, "validation") for m in models], by_alias=True, title="kbsim rule file")
    schema["anyOf"] = [refs[(m, "validation")] for m in models]
    return schema


__all__ = ["RULE_MODELS", "RuleDocument", "json_schema", "rule_model"]
