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
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kbsim.rules.families import RuleDocument, rule_model
from kbsim.rules.files import RulesError, display_path, format_validation, read_document, shipped_dir
from kbsim.strict_io import InputFileError, check_regular_file, load_yaml_scalar

_CACHE: dict[tuple, tuple[LoadedRules, list]] = {}  # key -> (rules, [(file it depends on, mtime)])


def shipped_games() -> list[str]:
    """Names of the games whose rule files ship with kbsim, sorted."""
    d = shipped_dir()
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
        if not p.exists():
            raise RulesError(f"{game}: no such rule file")
        try:
            check_regular_file(p, "a YAML rule file")
        except InputFileError as e:
            raise RulesError(str(e)) from None
        return p
    d = shipped_dir()
    if d is not None and (d / f"{game}.yaml").is_file():
        return d / f"{game}.yaml"
    known = ", ".join(shipped_games()) or "none"
    raise RulesError(f"unknown game {game!r}: expected one of {known}, or a path to a rule file")


def validate_document(doc: dict[str, Any], source: Path | str, rule_file: Path | None = None) -> RuleDocument:
    """Validate a rule document.

    Args:
        doc: the parsed document.
        source: the file (or a label naming file, variants and options) used in error messages.
        rule_file: the rule file the document comes from (files it names are resolved against it);
            defaults to ``source`` when that is a path.

    Raises:
        RulesError: one line per problem: ``FILE: field.path: message (got VALUE)``.
    """
    model = rule_model(doc.get("family"))
    where = rule_file if rule_file is not None else (source if isinstance(source, Path) else None)
    try:
        return model.model_validate(doc, context={"source": where})
    except ValidationError as e:
        raise RulesError(format_validation(source, e, doc=doc)) from None


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
    """Parse the VALUE of ``--option KEY=VALUE`` by YAML 1.2 core rules.

    ``5`` is an int, ``5.0`` a float, ``true`` a bool, ``yes`` and ``either`` are text, ``[edgar]`` a
    list (for list options); the rules' strict validation then refuses a value of the wrong type.
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

    model: RuleDocument
    source: Path
    variants: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    changed: dict[str, Any] = field(default_factory=dict)

    @property
    def rules_hash(self) -> str:
        """A hash of the validated rules in force (file content, variants and options applied).

        Part of a run's identity: records of edited rules are never mixed with older ones. The file's
        ``language`` is left out: it names the language of the text, and a hash taken before the field
        existed stays the same. So is a match's ``at_max_hands`` at its default (:func:`unhashed_defaults`).
        """
        import hashlib

        text = self.model.model_dump_json(by_alias=True, exclude={"language": True} | unhashed_defaults(self.model))
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file these rules were read from: the rule file, then the files it names (a card table).

        The loader checks their modification times to reuse a load; the documentation
        build notes them as the dependencies of a generated page.
        """
        return (self.source, *(Path(p) for p in getattr(self.model, "dependencies", lambda: [])()))

    @property
    def variant_label(self) -> str:
        """``base`` or the variant names joined by ``+``."""
        return "+".join(self.variants) or "base"


def unhashed_defaults(model: Any) -> dict[str, Any]:
    """Fields left out of the rules' identity while they hold their defaults (a pydantic ``exclude`` mapping).

    Fields added to the rules language after records were written: at their default the game plays as before, so
    its records keep their run id and a study keeps its records. Now: ``end.match.at_max_hands`` (``no_winner``).
    """
    match = getattr(getattr(model, "end", None), "match", None)
    if match is not None and getattr(match, "at_max_hands", None) == "no_winner":
        return {"end": {"match": {"at_max_hands": True}}}
    return {}


def apply_options(
    doc: dict[str, Any], base: RuleDocument, options: dict[str, Any], source: Path | str, where: str = "--option"
) -> dict[str, Any]:
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


def load_rules(
    game: str = "kingsbridge",
    variants: list[str] | tuple[str, ...] = (),
    options: dict[str, Any] | None = None,
    overlay: dict[str, Any] | None = None,
) -> LoadedRules:
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
        key = (
            str(path.resolve()),
            path.stat().st_mtime_ns,
            tuple(variants),
            json.dumps(options or {}, sort_keys=True, default=str),
            json.dumps(overlay or {}, sort_keys=True, default=str),
        )
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
        deps = [(p, _mtime(p)) for p in loaded.files[1:]]
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
    name_ = display_path(path)  # messages name a shipped file `kingsbridge (shipped)`
    for name, opt in base.options.items():
        try:
            _get_path(doc, opt.path)
        except KeyError:
            raise RulesError(f"{name_}: options.{name}.path: {opt.path!r} names no field of this file") from None
    merged = doc
    for v in variants:
        if v not in base.variants:
            known = ", ".join(sorted(base.variants)) or "none"
            raise RulesError(f"{name_}: unknown variant {v!r}; expected one of: {known}")
        var = base.variants[v]
        merged = deep_merge(merged, var.overlay)
        merged = apply_options(merged, base, var.options, name_, where=f"variants.{v}.options")
    merged = apply_options(merged, base, options or {}, name_)
    if overlay:
        merged = deep_merge(merged, overlay)
    label = f"{name_} (with {'+'.join(variants) or 'no variant'}, options {options or {}})"
    model = validate_document(merged, label, path) if merged is not doc else base
    effective = {name: _get_path(merged, opt.path) for name, opt in base.options.items()}
    defaults = {name: _get_path(doc, opt.path) for name, opt in base.options.items()}
    changed = {k: v for k, v in effective.items() if defaults[k] != v}
    return LoadedRules(model=model, source=path, variants=tuple(variants), options=effective, changed=changed)
