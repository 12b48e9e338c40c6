"""The search space of a tuning study, checked against its rule file, and the check that its targets are measurable.

Every option of ``[tune.options]`` must be an option the rule file declares; its values
(the range's ends, or every choice) must be accepted by the rules with the study's
variants and fixed options (so a range outside the schema's bounds, or past a check
such as "the deck must hold every hand", is refused with the rules' own words), and
must include the value the search starts from (the rule file's, or the arm's). A value
type follows the option's current value: an int option gets every int from ``low`` to
``high``, a float option a continuous range, a yes/no option or one with declared
choices every value when no ``choices`` are given.

A target is measurable when the records of the game can hold what it reads: a team
score, per-seat points, a character in play, a rule-usage counter the rules enable, a
bot in the lineup, two seats for a seat measure. This is checked on a probe of two deals
per player count played in memory (nothing is written).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product
from math import prod
from pathlib import Path
from typing import Any

from kbsim.rules.files import item_path
from kbsim.sim.study import Study, StudyError
from kbsim.sim.tune_spec import OptionRange
from kbsim.strict_io import kind_in_words

__all__ = ["Dimension", "SearchSpace", "build_space", "canonical", "check_targets", "rules_message"]

MAX_CHOICES = 1000  # values of one option's list of choices


def rules_message(line: str, rule_file: Path) -> str:
    """A rules error without the rule file and option label it starts with (the caller names the field)."""
    from kbsim.rules.files import display_path

    rest = line
    for name in (str(rule_file), display_path(rule_file)):  # a shipped file is named `kingsbridge (shipped)`
        if rest.startswith(name):
            rest = rest[len(name) :]
            break
    if rest.startswith(" (with "):
        cut = rest.find("}): ")
        rest = rest[cut + 4 :] if cut >= 0 else rest
    rest = rest.removeprefix(": --option: ").removeprefix(": ")
    rest = rest.replace("Value error, ", "")
    return re.sub(r" \(got \{.*\)$", "", rest)


def _text(v: Any) -> str:
    """An option value as a study file writes it (strings bare)."""
    return v if isinstance(v, str) else json.dumps(v)


@dataclass(frozen=True)
class Dimension:
    """One searched option.

    Attributes:
        name: the option's name in the rule file.
        kind: ``int`` (every int from low to high by step), ``float`` or ``choice``.
        default: the value the search starts from (rule file or arm).
        low, high, step, log: the range (int and float).
        choices: the values (``choice``), in the study's order.
    """

    name: str
    kind: str
    default: Any
    low: float = 0
    high: float = 0
    step: float | None = None
    log: bool = False
    choices: tuple = ()

    def values(self) -> Sequence[Any] | None:
        """Every value (an int range lazily, as a ``range``; None for a float range)."""
        if self.kind == "choice":
            return list(self.choices)
        if self.kind == "int":
            return range(int(self.low), int(self.high) + 1, int(self.step or 1))
        return None

    def distribution(self) -> Any:
        """The Optuna distribution (choices are encoded as JSON text: Optuna keeps only plain values)."""
        from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

        if self.kind == "choice":
            return CategoricalDistribution([json.dumps(c, sort_keys=True) for c in self.choices])
        if self.kind == "int":
            return IntDistribution(int(self.low), int(self.high), step=int(self.step or 1), log=self.log)
        return FloatDistribution(float(self.low), float(self.high), step=self.step, log=self.log)

    def encode(self, value: Any) -> Any:
        """The Optuna parameter of a value."""
        return json.dumps(value, sort_keys=True) if self.kind == "choice" else value

    def decode(self, param: Any) -> Any:
        """The value of an Optuna parameter."""
        if self.kind == "choice":
            return json.loads(param)
        return int(param) if self.kind == "int" else float(param)

    def describe(self) -> str:
        """The values in words, e.g. ``4 to 8`` or ``end, either``."""
        if self.kind == "choice":
            return ", ".join(_text(c) for c in self.choices)
        step = f" by {self.step:g}" if self.step not in (None, 1) else ""
        return f"{self.low:g} to {self.high:g}{step}" + (" (log scale)" if self.log else "")


@dataclass
class SearchSpace:
    """The options searched, and the setting the search starts from (every option at its default)."""

    dims: list[Dimension]

    @property
    def default(self) -> dict[str, Any]:
        """The starting setting: option -> its default."""
        return {d.name: d.default for d in self.dims}

    def size(self) -> int | None:
        """Number of settings (None when a float range makes it infinite)."""
        counts = [len(v) if (v := d.values()) is not None else None for d in self.dims]
        return None if any(c is None for c in counts) else prod(c for c in counts if c is not None)

    def settings(self) -> list[dict[str, Any]]:
        """Every setting of a finite space, in a fixed order.

        Raises:
            ValueError: the space is infinite.
        """
        vals = [d.values() for d in self.dims]
        if any(v is None for v in vals):
            raise ValueError("a float range has no list of settings")
        return [dict(zip([d.name for d in self.dims], combo, strict=True)) for combo in product(*vals)]  # type: ignore[arg-type]

    def distributions(self) -> dict[str, Any]:
        """Option name -> Optuna distribution."""
        return {d.name: d.distribution() for d in self.dims}

    def from_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """The setting of an Optuna trial's parameters."""
        return {d.name: d.decode(params[d.name]) for d in self.dims}

    def to_params(self, setting: dict[str, Any]) -> dict[str, Any]:
        """Optuna parameters of a setting."""
        return {d.name: d.encode(setting[d.name]) for d in self.dims}

    def changed(self, setting: dict[str, Any]) -> dict[str, Any]:
        """The options a setting changes from the start (name -> value)."""
        return {d.name: setting[d.name] for d in self.dims if not _same(setting[d.name], d.default)}

    @staticmethod
    def key(setting: dict[str, Any]) -> str:
        """A canonical text of a setting (equal settings, equal keys)."""
        return json.dumps(setting, sort_keys=True)

    def change_words(self, setting: dict[str, Any]) -> str:
        """The changes of a setting with the values they replace, e.g. ``hand_size=5 (was 6), rows=7 (was 6)``."""
        return (
            ", ".join(f"{k}={_text(v)} (was {_text(self.default[k])})" for k, v in self.changed(setting).items())
            or "no change"
        )

    def words(self, setting: dict[str, Any], changed_only: bool = True) -> str:
        """A setting in words, e.g. ``hand_size=7, rows=5`` (``no change`` for the defaults)."""
        items = self.changed(setting) if changed_only else setting
        return ", ".join(f"{k}={_text(v)}" for k, v in items.items()) or "no change"


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _refusal(rule_file: Path, variants: list[str], fixed: dict[str, Any], name: str, value: Any) -> str | None:
    """The rules' objection to ``name = value`` (with the arm's variants and options), or None."""
    from kbsim.rules.loader import RulesError, load_rules

    try:
        load_rules(str(rule_file), variants, fixed | {name: value})
    except RulesError as e:
        return "; ".join(rules_message(line, rule_file) for line in e.lines)
    return None


def _range(
    name: str, spec: OptionRange, default: Any, check: Callable[[Any], str | None], where: str
) -> tuple[Dimension | None, list[str]]:
    """An int or float option's range, or the problems with it."""
    is_int = isinstance(default, int) and not isinstance(default, bool)
    if not (is_int or isinstance(default, float)):
        kind = kind_in_words(default)
        return None, [f"{where}: {name} takes {kind} (now {_text(default)}), not a range; give choices"]
    assert spec.low is not None and spec.high is not None
    if is_int and not all(isinstance(v, int) for v in (spec.low, spec.high, spec.step or 1)):
        return None, [f"{where}: {name} takes whole numbers; low, high and step must be ints"]
    if spec.log and spec.low <= 0:
        return None, [f"{where}.low: a log-scale range must start above 0, got {spec.low}"]
    dim = Dimension(name, "int" if is_int else "float", default, spec.low, spec.high, spec.step, spec.log)
    values = dim.values()
    if spec.step and values is not None and values[-1] != spec.high:
        return None, [f"{where}.high: {spec.high} is not low + a whole number of steps ({spec.step})"]
    errors = [
        f"{where}.{end}: {_text(v)} is refused by the rules: {why}"
        for end, v in (("low", spec.low), ("high", spec.high))
        if (why := check(v)) is not None
    ]
    inside = spec.low <= default <= spec.high and (values is None or default in values)
    if not errors and not inside:
        errors.append(
            f"{where}: the range {dim.describe()} leaves out {_text(default)}, the value the search starts "
            f"from; include it (fewest changes are counted from it)"
        )
    return (None if errors else dim), errors


def _choices(
    name: str, spec: OptionRange, default: Any, declared: list | None, check: Callable[[Any], str | None], where: str
) -> tuple[Dimension | None, list[str]]:
    """An option's list of values (given, or every value of a yes/no option or of its declared choices)."""
    choices = spec.choices
    if choices is None:
        if isinstance(default, bool):
            choices = [False, True]
        elif declared:
            choices = list(declared)
        else:
            return None, [
                f"{where}: {name} is neither yes/no nor declares its choices in the rule file; give low and high, "
                f"or choices"
            ]
    if len(choices) > MAX_CHOICES:
        return None, [f"{where}.choices: {len(choices):,} values; a search lists at most {MAX_CHOICES:,}"]
    errors = [
        f"{where}.choices: {_text(v)} is refused by the rules: {why}" for v in choices if (why := check(v)) is not None
    ]
    if not errors and not any(_same(default, c) for c in choices):
        errors.append(
            f"{where}.choices: {', '.join(_text(c) for c in choices)} leave out {_text(default)}, the value the "
            f"search starts from; include it (fewest changes are counted from it)"
        )
    return (None if errors else Dimension(name, "choice", default, choices=tuple(choices))), errors


def build_space(study: Study, source: Path) -> SearchSpace:
    """The search space of a study's ``[tune.options]``, checked against its rule file.

    Args:
        study: a validated study with a ``tune`` section.
        source: the study file (named in messages).

    Returns:
        The :class:`SearchSpace` (dimensions in the study's order).

    Raises:
        StudyError: one line per problem: an unknown option, a value the rules refuse (outside the schema's
            bounds or its cross-checks), a range of the wrong type, a space that leaves out the starting value.
    """
    from kbsim.rules.loader import RulesError, find_rule_file, load_rules

    assert study.tune is not None
    arm = study.arms[0]
    try:
        rule_file = find_rule_file(study.game)
        base = load_rules(str(rule_file), arm.variants, arm.options)
    except RulesError as e:
        raise StudyError([f"{source}: game: {rules_message(line, Path(study.game))}" for line in e.lines]) from None
    declared = base.model.options
    errors: list[str] = []
    dims: list[Dimension] = []
    for name, spec in study.tune.options.items():
        where = f"{source}: tune.options.{name}"
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            errors.append(f"{where}: unknown option {name!r}; the rule file declares: {known}")
            continue

        def check(v: Any, name: str = name) -> str | None:
            return _refusal(rule_file, arm.variants, dict(arm.options), name, v)

        if spec.low is not None:
            dim, problems = _range(name, spec, base.options[name], check, where)
        else:
            dim, problems = _choices(name, spec, base.options[name], declared[name].choices, check, where)
        errors += problems
        if dim is not None:
            dims.append(dim)
    if errors:
        raise StudyError(errors)
    return SearchSpace(dims)


def canonical(spec: str, family: str) -> str:
    """A bot spec's canonical text (as records store it), or the text itself when it is not a valid spec."""
    from kbsim.bots import UnknownBot, canonical_bot

    try:
        return canonical_bot(spec, family)
    except UnknownBot:
        return spec


def check_targets(study: Study, source: Path, family: str, columns: dict[int, dict[str, list]], game: Any) -> None:
    """Refuse a target that no record of this game can measure.

    Args:
        study: the tune study.
        source: the study file.
        family: the rules' engine family (for the bots it has).
        columns: player count -> records of a probe played at the starting setting (column lists).
        game: the compiled rules of the starting setting (for the characters in play).

    Raises:
        StudyError: one line per target that cannot be measured, saying why.
    """
    from kbsim.bots import UnknownBot, canonical_bot
    from kbsim.sim.runner import display_names

    assert study.tune is not None
    arm = study.arms[0]

    def lineup(p: int) -> list[str]:
        return [canonical(b, family) for b in arm.lineup(p)]

    roster = sorted((display_names(game).get("characters") or {}).keys())
    errors = []
    for i, t in enumerate(study.tune.targets):
        where = f"{source}: {item_path('tune.targets', i)} ({t.measure})"
        for p in t.players or study.players:
            cols = columns[p]
            if t.measure in ("seat_gap", "first_seat") and p < 2:
                errors.append(f"{where}: {p} player: a one-seat game has no seat balance")
            elif t.measure == "score" and all(v is None for v in cols.get("score", [None])):
                errors.append(f"{where}: the records of this game hold no team score (solo and cooperative games)")
            elif t.measure == "score_gap" and not any(
                len(v or []) >= 2 for c in ("scores", "penalties") for v in cols.get(c, [])
            ):
                errors.append(f"{where}: the records of this game hold no points per seat (scores or penalties)")
            elif t.measure == "wins" and t.bot is not None and canonical(t.bot, family) not in lineup(p):
                errors.append(f"{where}: bot {t.bot!r} does not play at {p} players (lineup {', '.join(lineup(p))})")
            elif t.measure == "usage" and t.character is not None and t.character not in roster:
                known = ", ".join(roster) or "none (no character is in play; add the variant with characters)"
                errors.append(f"{where}: character {t.character!r} is not in play; characters: {known}")
            elif t.measure == "usage" and t.rule is not None:
                counted = sorted({u["rule"] for uses in cols.get("rule_usage", []) for u in uses or []})
                if t.rule not in counted:
                    known = ", ".join(counted) or "none"
                    errors.append(f"{where}: the records count no rule {t.rule!r}; counted rules: {known}")
            else:
                continue
            break
    if study.tune.skill is not None:
        names = [study.tune.skill.bots] if isinstance(study.tune.skill.bots, str) else study.tune.skill.bots
        for n in names:
            try:
                canonical_bot(n, family)
            except UnknownBot as e:
                errors.append(f"{source}: tune.skill.bots: {e}")
    if errors:
        raise StudyError(errors)
