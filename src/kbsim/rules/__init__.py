"""The rules language: schema, loading, variants and options."""

from kbsim.rules.loader import LoadedRules, RulesError, load_rules

__all__ = ["LoadedRules", "RulesError", "load_rules"]
