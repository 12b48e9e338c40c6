"""Bot specs: one syntax for naming a bot with parameters, everywhere bots are named.

A **bot spec** is a bot name, optionally followed by keyword parameters in parentheses::

    greedy
    planner(budget=2000)
    search(iterations=400)
    search(iterations=50, rollout=greedy)

The same text is accepted by ``kbsim run --bots``, ``kbsim replay --bots``, the ``bots`` field of study files,
:func:`kbsim.play_game` and :func:`kbsim.bots.make_bot`, and is what records store in their ``bots`` column (in
its canonical form, :meth:`BotSpec.canonical`). A **lineup** is a comma-separated list of specs, one per seat or
one for every seat (``greedy,search(iterations=50, rollout=greedy)``): commas inside parentheses belong to a spec.

The syntax is parsed with Python's own expression parser (:mod:`ast`): a name, or a call with keyword arguments
whose values are literals (numbers, strings, ``true``/``false``), bare or dotted words (read as strings, e.g.
``greedy`` or ``characters.play.agatha``),
lists of these, or nested specs (``rollout=planner(budget=200)``, kept as their canonical text). A bot declares
its parameters with a pydantic model in its class attribute ``Params`` (fields with types, defaults, bounds and
descriptions); a bot without ``Params`` takes none. Values are validated by that model, and the bot is created as
``cls(**validated)``.

**Restricted play.** Every bot of every family also takes ``bar``: the kinds of move its seat is barred from, as
a list of move-kind names (``planner(bar=[characters.play.agatha])``, ``greedy(bar=[turn.exchange.allowed,
characters.enabled])``; one name may be written without brackets). The engine enforces the bar on that seat's
turns (:mod:`kbsim.engine.rows.restrict`); the names are checked against the rules of a game by
:func:`kbsim.bots.check_bars`. The canonical spec lists the names sorted, so records show the bar.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError


class BotSpecError(ValueError):
    """A bot spec that cannot be parsed, names no bot of the family, or gives parameters the bot refuses."""


_WORDS = {"true": True, "false": False, "True": True, "False": False, "null": None, "None": None}
BAR = "bar"  # the parameter every bot takes: the move kinds its seat is barred from (restricted play)
_KIND = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")  # a move-kind name: dotted lower-case words
_MAX_SPEC = 500  # characters in one lineup: specs are short, and the parser's work stays bounded
_CACHE = 256  # distinct lineup texts and validated specs remembered (a run names a few; memory stays bounded)


@dataclass(frozen=True)
class BotSpec:
    """A bot name and its parameters, as written (before validation by the bot's ``Params`` model).

    Attributes:
        name: the bot's name in its family's registry (``greedy``, ``planner``, ``search``...).
        params: ``(parameter, value)`` pairs sorted by parameter name; values are ints, floats, bools, strings,
            None, or tuples of these (a nested spec is kept as its canonical text).
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def canonical(self) -> str:
        """The spec's canonical text: ``name`` or ``name(a=1, b=x)``, parameters sorted, values normalised."""
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={_text(v)}' for k, v in self.params)})"

    def __str__(self) -> str:
        return self.canonical()


def _text(value: Any) -> str:
    """A parameter value as spec text (the inverse of :func:`_value`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, tuple):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, str):
        return value if _is_word(value) else repr(value)
    return repr(value)


def _is_word(text: str) -> bool:
    """Whether ``text`` reads back as itself when written bare (a name, a dotted word, or a nested spec)."""
    if text in _WORDS:
        return False
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    try:
        if isinstance(node, ast.Attribute):
            return _value(node, text) == text
        return _spec(node, text).canonical() == text
    except BotSpecError:
        return False


def _value(node: ast.expr, where: str) -> Any:
    """A parameter value from its expression node (see the module docstring for what is accepted)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str | bool | type(None)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        v = node.operand.value
        if isinstance(v, int | float) and not isinstance(v, bool):
            return -v
    if isinstance(node, ast.Name):
        return _WORDS.get(node.id, node.id)
    if isinstance(node, ast.Attribute):  # a dotted word, e.g. a rule-usage counter: characters.play.agatha
        return f"{_value(node.value, where)}.{node.attr}"
    if isinstance(node, ast.List | ast.Tuple):
        return tuple(_value(e, where) for e in node.elts)
    if isinstance(node, ast.Call):
        return _spec(node, where).canonical()
    raise BotSpecError(f"{where}: a parameter value must be a number, a word, a string or a list")


def _spec(node: ast.expr, where: str) -> BotSpec:
    """A :class:`BotSpec` from a name or call node."""
    if isinstance(node, ast.Name):
        return BotSpec(node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.args:
            raise BotSpecError(f"{where}: parameters are given by name, as in search(iterations=400)")
        params: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise BotSpecError(f"{where}: '**' is not allowed in a bot spec")
            if kw.arg in params:
                raise BotSpecError(f"{where}: parameter {kw.arg!r} given twice")
            params[kw.arg] = _value(kw.value, where)
        return BotSpec(node.func.id, tuple(sorted(params.items())))
    raise BotSpecError(f"{where}: expected a bot name, optionally with parameters, as in search(iterations=400)")


def parse_lineup(text: str) -> list[BotSpec]:
    """The specs of a comma-separated lineup (commas inside parentheses belong to a spec).

    Args:
        text: e.g. ``"greedy"``, ``"planner,greedy"``, ``"greedy,search(iterations=50, rollout=greedy)"``.

    Returns:
        One :class:`BotSpec` per entry, in order (not yet checked against a family's bots).

    Raises:
        BotSpecError: empty text, text over 500 characters, or text that is not a list of bot specs.
    """
    stripped = text.strip()
    if not stripped:
        raise BotSpecError("empty bot spec; expected a bot name, e.g. greedy or search(iterations=400)")
    if len(stripped) > _MAX_SPEC:
        raise BotSpecError(f"bot spec of {len(stripped)} characters; expected at most {_MAX_SPEC}")
    return list(_parsed(stripped))


@lru_cache(maxsize=_CACHE)
def _parsed(stripped: str) -> tuple[BotSpec, ...]:
    """The specs of a stripped lineup text of at most 500 characters.

    Cached: specs are immutable, and a run names the same few bots for every game and seat (``make_bot`` is called
    per game and seat). An error is not cached: it is raised again each time.
    """
    try:
        node = ast.parse(f"({stripped},)", mode="eval").body
    except SyntaxError:
        raise BotSpecError(
            f"{stripped!r}: not a bot spec; expected names with optional parameters, as in "
            "greedy,search(iterations=400)"
        ) from None
    assert isinstance(node, ast.Tuple)  # (the text was wrapped as a tuple)
    return tuple(_spec(e, stripped) for e in node.elts)


def parse_spec(text: str) -> BotSpec:
    """One bot spec (see :func:`parse_lineup`).

    Raises:
        BotSpecError: the text is not exactly one bot spec.
    """
    specs = parse_lineup(text)
    if len(specs) != 1:
        raise BotSpecError(f"{text.strip()!r}: expected one bot, got {len(specs)}")
    return specs[0]


def params_model(cls: type) -> type[BaseModel] | None:
    """The pydantic model of a bot class's parameters (its ``Params`` attribute), or None if it takes none."""
    model = getattr(cls, "Params", None)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def validated(spec: BotSpec, registry: dict[str, type]) -> tuple[type, dict[str, Any], BotSpec]:
    """The bot class of ``spec``, its validated constructor arguments, and the spec in canonical form.

    Parameters equal to their default are dropped from the canonical spec, so ``planner`` and
    ``planner(budget=<default>)`` name the same bot in records. The ``bar`` every bot takes (restricted play) is
    checked here, not by the bot's model: it is not a constructor argument (:func:`kbsim.bots.make_bot` sets it
    on the bot), and it stays in the canonical spec, its names sorted (an empty bar is dropped).

    Args:
        spec: a parsed spec.
        registry: the family's bots (name -> class).

    Returns:
        ``(cls, kwargs, canonical_spec)``.

    Raises:
        BotSpecError: unknown bot, a parameter the bot does not take, or a value its model refuses (one line).
    """
    cls = registry.get(spec.name)
    if cls is None:
        raise BotSpecError(f"unknown bot {spec.name!r}; expected one of: {', '.join(sorted(registry))}")
    kwargs, canonical = _validated(_typed(spec), spec, cls)
    return cls, dict(kwargs), canonical


def _typed(spec: BotSpec) -> tuple[Any, ...]:
    """A cache key for ``spec`` that tells apart values Python counts equal (``1``, ``1.0``, ``True``)."""
    return (spec.name, tuple((k, _typed_value(v)) for k, v in spec.params))


def _typed_value(value: Any) -> Any:
    """A parameter value with its type (nested for lists), for :func:`_typed`."""
    if isinstance(value, tuple):
        return (tuple, tuple(_typed_value(v) for v in value))
    return (type(value), value)


_IMMUTABLE = (int, float, str, bool, type(None), tuple, frozenset)


def _validated(key: tuple[Any, ...], spec: BotSpec, cls: type) -> tuple[dict[str, Any], BotSpec]:
    """:func:`validated`'s work for a known bot class, remembered per (typed spec, class).

    Only results whose every argument is an immutable value are kept (a bot made from them cannot change the
    remembered ones); the caller copies the dict. Keyed on the class, so a registry changed at run time (a test's
    bot) is looked up afresh.
    """
    hit = _CACHED.get((key, cls))
    if hit is not None:
        return hit
    out = _validate(spec, cls)
    if all(isinstance(v, _IMMUTABLE) for v in out[0].values()):
        if len(_CACHED) >= _CACHE:
            _CACHED.clear()  # (bounded; a run names a few specs, so this does not happen in practice)
        _CACHED[(key, cls)] = out
    return out


_CACHED: dict[tuple[tuple[Any, ...], type], tuple[dict[str, Any], BotSpec]] = {}


def _validate(spec: BotSpec, cls: type) -> tuple[dict[str, Any], BotSpec]:
    """The validated constructor arguments of ``cls`` for ``spec`` and the canonical spec (see :func:`validated`)."""
    model = params_model(cls)
    given = dict(spec.params)
    bar = _bar(spec.name, given.pop(BAR)) if BAR in given else ()
    barred = ((BAR, bar),) if bar else ()
    if model is None:
        if given:
            raise BotSpecError(f"bot {spec.name!r} takes no parameters but bar (got {', '.join(given)})")
        return {}, BotSpec(spec.name, barred)
    unknown = sorted(set(given) - set(model.model_fields))
    if unknown:
        known = ", ".join(model.model_fields) or "none"
        raise BotSpecError(f"bot {spec.name!r}: unknown parameter {unknown[0]!r}; expected one of: {known}")
    try:
        values = model(**given)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise BotSpecError(
            f"bot {spec.name!r}: parameter {field}={_text(given.get(str(err['loc'][0])))}: {err['msg']}"
        ) from None
    kwargs = values.model_dump()
    defaults = model().model_dump()
    kept = tuple((k, _normal(v)) for k, v in kwargs.items() if k in given and v != defaults.get(k))
    return kwargs, BotSpec(spec.name, tuple(sorted(kept + barred)))


def _bar(name: str, value: Any) -> tuple[str, ...]:
    """The move kinds of a ``bar`` parameter, sorted, each once (one name may be given without a list).

    Raises:
        BotSpecError: a value that is not a move-kind name (dotted lower-case words such as
            ``characters.play.agatha``) or a list of them.
    """
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, tuple) or not all(isinstance(v, str) and _KIND.match(v) for v in names):
        raise BotSpecError(
            f"bot {name!r}: parameter bar={_text(value)}: expected a list of move kinds such as "
            "[characters.play.KEY, turn.exchange.allowed]"
        )
    return tuple(sorted(set(names)))


def bar_of(spec: BotSpec) -> tuple[str, ...]:
    """The move kinds a (validated, canonical) spec bars its seat from: its ``bar`` parameter, or ()."""
    value = dict(spec.params).get(BAR, ())
    return (value,) if isinstance(value, str) else tuple(value)


def _normal(value: Any) -> Any:
    """A validated value in the plain types of :class:`BotSpec` (lists as tuples)."""
    if isinstance(value, list | tuple):
        return tuple(_normal(v) for v in value)
    return value


__all__ = ["BAR", "BotSpec", "BotSpecError", "bar_of", "params_model", "parse_lineup", "parse_spec", "validated"]
