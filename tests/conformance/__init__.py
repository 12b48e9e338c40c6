"""Whole-game properties checked over every shipped game, variant, player count and bot (issue #16)."""
