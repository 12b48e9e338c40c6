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


__all__ = ["RULE_MODELS", "RuleDocument", "rule_model"]
