"""Finding, reading, overlaying and validating rule files.

A game name (``kingsbridge``) resolves to the rule file shipped inside the
installed package (``kbsim/_rules/NAME.yaml``), or, in a source checkout, to
``rules/NAME.yaml``. A path to a YAML file is read as it is.

Variants and options are applied to the *document* (plain dicts) before
validation, so an overlay can never produce something the schema would refuse.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kbsim.rules.schema import RuleFile
from kbsim.strict_io import YamlInputError, load_yaml, load_yaml_scalar, preview

MAX_RULE_FILE_BYTES = 1_000_000
_CACHE: dict[tuple, tuple[LoadedRules, list]] = {}  # key -> (rules, [(file it depends on, mtime)])


class RulesError(Exception):
    """A rule file, variant or option that cannot be used.

    ``str(err)`` is one or more lines, each naming the file, the field path,
    the problem and what was expected.
    """

    def __init__(self, lines: list[str] | str):
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))


def _shipped_dir() -> Path | None:
    """The rule files inside the installed package, or the checkout's ``rules/``."""
    packaged = resources.files("kbsim") / "_rules"
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[3] / "rules"
    return checkout if checkout.is_dir() else None


def shipped_games() -> list[str]:
    """Names of the games whose rule files ship with kbsim, sorted."""
    d = _shipped_dir()
    return sorted(p.stem for p in d.glob("*.yaml")) if d else []


def find_rule_file(game: str) -> Path:
    """Resolve a game name or a path to a rule file.

    Args:
        game: a shipped game's name (``kingsbridge``) or a path to a ``.yaml`` file.

    Returns:
        The rule file's path.

    Raises:
        RulesError: no such file or game.
    """
    p = Path(game)
    if p.suffix in (".yaml", ".yml") or p.exists():
        if not p.is_file():
            raise RulesError(f"{game}: no such rule file")
        return p
    d = _shipped_dir()
    if d is not None and (d / f"{game}.yaml").is_file():
        return d / f"{game}.yaml"
    known = ", ".join(shipped_games()) or "none"
    raise RulesError(f"unknown game {game!r}: expected one of {known}, or a path to a rule file")


def read_document(path: Path) -> dict[str, Any]:
    """Parse a YAML rule file (or example file) into a dict, strictly and within bounds.

    YAML 1.2 core scalars (``yes`` is text, not true); see :func:`kbsim.strict_io.load_yaml`.

    Raises:
        RulesError: unreadable, not UTF-8, larger than the size limit, a syntax error,
            a duplicate key (``duplicate key `setup.hand_size` ``), a recursive alias or a
            document over the nesting/node limits; the message names the file and line.
    """
    try:
        if path.stat().st_size > MAX_RULE_FILE_BYTES:
            raise RulesError(f"{path}: the file is larger than {MAX_RULE_FILE_BYTES:,} bytes; expected at most "
                             f"{MAX_RULE_FILE_BYTES:,}")
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RulesError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RulesError(f"{path}: not UTF-8 text (byte {e.start}); save the rule file as UTF-8") from None
    try:
        doc = load_yaml(text)
    except YamlInputError as e:
        where = f" at line {e.line}" if e.line else ""
        raise RulesError(f"{path}{where}: {e.message}") from None
    if not isinstance(doc, dict):
        raise RulesError(f"{path}: expected a mapping of rule sections at the top level, got {type(doc).__name__}")
    return doc


def format_validation(path: Path | str, err: ValidationError) -> list[str]:
    lines = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown field (not part of the rules language; check the spelling)"
        got = e.get("input")
        shown = "" if e["type"] in ("missing", "extra_forbidden") else f" (got {preview(got)})"
        lines.append(f"{path}: {loc}: {msg}{shown}")
    return lines


def validate_document(doc: dict[str, Any], source: Path | str, rule_file: Path | None = None) -> RuleFile:
    """Validate a rule document.

    Args:
        doc: the parsed document.
        source: the file (or a label naming file, variants and options) used in error messages.
        rule_file: the rule file the document comes from (files it names are resolved against it);
            defaults to ``source`` when that is a path.

    Raises:
        RulesError: one line per problem: ``FILE: field.path: message (got VALUE)``.
    """
    model = RuleFile
    if doc.get("family") == "market":
        from kbsim.rules.market_schema import MarketRuleFile

        model = MarketRuleFile
    where = rule_file if rule_file is not None else (source if isinstance(source, Path) else None)
    try:
        return model.model_validate(doc, context={"source": where})
    except ValidationError as e:
        raise RulesError(format_validation(source, e)) from None


def _step(node: Any, part: str) -> Any:
    if isinstance(node, dict) and part in node:
        return node[part]
    if isinstance(node, dict) and part.lstrip("-").isdigit() and int(part) in node:
        return node[int(part)]
    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return node[int(part)]
    raise KeyError(part)


def _get_path(doc: dict[str, Any], dotted: str) -> Any:
    """The value at a dotted path (``a.b.0.c``: list items by index)."""
    node: Any = doc
    for part in dotted.split("."):
        try:
            node = _step(node, part)
        except KeyError:
            raise KeyError(dotted) from None
    return node


def _set_path(doc: dict[str, Any], dotted: str, value: Any) -> None:
    """Set the value at a dotted path, creating missing mappings (list items must exist)."""
    parts = dotted.split(".")
    node: Any = doc
    for part in parts[:-1]:
        if isinstance(node, dict) and part not in node:
            node[part] = {}
        node = _step(node, part)
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    elif last not in node and last.lstrip("-").isdigit() and int(last) in node:
        node[int(last)] = value
    else:
        node[last] = value


def deep_merge(base: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
    """Merge ``overlay`` into a copy of ``base``: mappings merge key by key, anything else replaces."""
    out = copy.deepcopy(base)
    for k, v in overlay.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def parse_option_value(text: str) -> Any:
    """Parse the VALUE of ``--option KEY=VALUE`` as a YAML 1.2 core scalar.

    ``5`` is an int, ``5.0`` a float, ``true`` a bool, ``yes`` and ``either`` are text;
    the rules' strict validation then refuses a value of the wrong type.
    """
    return load_yaml_scalar(text)


@dataclass(frozen=True)
class LoadedRules:
    """A validated rule file with its variants and options applied.

    Attributes:
        model: the validated rules (overlays and options merged in).
        source: the rule file read.
        variants: variant names applied, in order.
        options: effective value of every declared option (name -> value).
        changed: options whose value differs from the base file's default.
    """

    model: RuleFile
    source: Path
    variants: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    changed: dict[str, Any] = field(default_factory=dict)

    @property
    def rules_hash(self) -> str:
        """A hash of the validated rules in force (file content, variants and options applied).

        Part of a run's identity: records of edited rules are never mixed with older ones.
        """
        import hashlib

        return hashlib.blake2b(self.model.model_dump_json(by_alias=True).encode(), digest_size=8).hexdigest()

    @property
    def variant_label(self) -> str:
        """``base`` or the variant names joined by ``+``."""
        return "+".join(self.variants) or "base"


def apply_options(doc: dict[str, Any], base: RuleFile, options: dict[str, Any], source: Path | str,
                  where: str = "--option") -> dict[str, Any]:
    """Set named options in a document (a copy is returned).

    Raises:
        RulesError: unknown option name, or a value outside the option's choices.
    """
    doc = copy.deepcopy(doc)
    for name, value in options.items():
        opt = base.options.get(name)
        if opt is None:
            known = ", ".join(sorted(base.options)) or "none"
            raise RulesError(f"{source}: {where}: unknown option {name!r}; expected one of: {known}")
        if opt.choices is not None and value not in opt.choices:
            choices = ", ".join(str(c) for c in opt.choices)
            raise RulesError(f"{source}: {where}: option {name} = {value!r} is not allowed; expected one of: {choices}")
        _set_path(doc, opt.path, value)
    return doc


def load_rules(game: str = "kingsbridge", variants: list[str] | tuple[str, ...] = (),
               options: dict[str, Any] | None = None, overlay: dict[str, Any] | None = None) -> LoadedRules:
    """Load a game's rules with variants and options applied, validated.

    Args:
        game: shipped game name or path to a rule file.
        variants: names of variants declared in the file, applied in order.
        options: option name -> value, applied after the variants.
        overlay: a partial document merged last (used by tools, e.g. to switch characters on).

    Returns:
        The :class:`LoadedRules`.

    Raises:
        RulesError: unreadable or invalid file, unknown variant or option, or an
            overlay that makes the rules invalid.
    """
    path = find_rule_file(game)
    try:
        key = (str(path.resolve()), path.stat().st_mtime_ns, tuple(variants),
               json.dumps(options or {}, sort_keys=True, default=str), json.dumps(overlay or {}, sort_keys=True,
                                                                               default=str))
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        loaded, deps = _CACHE[key]
        if all(_mtime(p) == m for p, m in deps):
            return loaded
    loaded = _load_rules(path, variants, options, overlay)
    if key is not None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        deps = [(p, _mtime(p)) for p in getattr(loaded.model, "dependencies", lambda: [])()]
        _CACHE[key] = (loaded, deps)
    return loaded


def _mtime(path: Path) -> int | None:
    try:
        return Path(path).stat().st_mtime_ns
    except OSError:
        return None


def _load_rules(path: Path, variants, options, overlay) -> LoadedRules:
    doc = read_document(path)
    base = validate_document(doc, path)
    for name, opt in base.options.items():
        try:
            _get_path(doc, opt.path)
        except KeyError:
            raise RulesError(f"{path}: options.{name}.path: {opt.path!r} names no field of this file") from None
    merged = doc
    for v in variants:
        if v not in base.variants:
            known = ", ".join(sorted(base.variants)) or "none"
            raise RulesError(f"{path}: unknown variant {v!r}; expected one of: {known}")
        var = base.variants[v]
        merged = deep_merge(merged, var.overlay)
        merged = apply_options(merged, base, var.options, path, where=f"variants.{v}.options")
    merged = apply_options(merged, base, options or {}, path)
    if overlay:
        merged = deep_merge(merged, overlay)
    label = f"{path} (with {'+'.join(variants) or 'no variant'}, options {options or {}})"
    model = validate_document(merged, label, path) if merged is not doc else base
    effective = {name: _get_path(merged, opt.path) for name, opt in base.options.items()}
    defaults = {name: _get_path(doc, opt.path) for name, opt in base.options.items()}
    changed = {k: v for k, v in effective.items() if defaults[k] != v}
    return LoadedRules(model=model, source=path, variants=tuple(variants), options=effective, changed=changed)
