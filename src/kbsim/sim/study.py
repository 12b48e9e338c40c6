"""Studies as data: the study file format, its validation, and running the cells of a study.

A study file (``reports/NAME.toml``, or ``.yaml``/``.yml``) names a rule set, the
**arms** to compare (variants + options + bots), the player counts, the games per
cell and one run seed. Example::

    name = "variants"                  # letters, digits, - _ . (used in file names)
    title = "Base game against its variants"
    question = "How do the rebuild readings change game length?"
    game = "kingsbridge"               # shipped game or path to a rule file
    players = [2, 3, 4, 5]
    games = 10000                      # deals per cell
    seed = 20240601
    baseline = "base"                  # arm the others are compared with (default: the first)
    ladder = ["greedy", { bot = "search", games = 300 }]  # optional; a rung may play the first N deals only

    [[arms]]
    name = "base"

    [[arms]]
    name = "rebuild either end"
    variants = ["rebuild-either-end"]  # applied in order, like --variant
    options = { min_hand_cards = 1 }   # like --option KEY=VALUE
    bots = "greedy"                    # one bot for every seat, or a lineup: ["greedy", "random"]

    [[arms]]
    name = "no exchanges"
    bar = ["turn.exchange.allowed"]    # restricted play: one seat barred from these move kinds (see below)

    [[arms]]
    name = "search vs planner"
    bots = ["search", "planner"]       # a head-to-head arm: played as written, not on the ladder
    games = 300                        # optional; a costly arm may play the first N deals only

    [sweep]                            # optional: every arm is also played at each value of one option
    option = "hand_size"
    values = [5, 6, 7]
    baseline = 6                       # default: the first value

The file is validated with pydantic (unknown fields are errors); every problem is
reported as ``FILE: field.path: message``. The rule set, variants, options, bots
and player counts are checked against the rules *before* any game is played.

**Cells and runs.** A cell is (arm, player count[, sweep value]). A bot lineup
is cycled over the seats (``["greedy", "random"]`` at 3 players is greedy,
random, greedy). With ``rotate_seats = true`` (the default) a mixed lineup is
played once per distinct rotation of the seats, every rotation on the same
deals, so each bot sits in each seat of every deal; a lineup of one bot needs no
rotation. Each rotation of a cell is an ordinary run, written with
:class:`kbsim.sim.output.RunOutput` to ``RECORDS/<cell>-<hash>.parquet`` where the
hash covers every parameter that determines the records (rule set digest,
variant, options, players, bots, games, seed, chunk size); those parameters are
also in the file's metadata. A second ``kbsim report`` therefore reuses finished
files, completes interrupted ones, and never mixes runs.

**Restricted play** (Jaffe et al., AIIDE 2012): an arm with ``bar`` has one seat whose bot is barred from those
move kinds (the bot spec's ``bar``, enforced by the engine: :mod:`kbsim.engine.restrict`) and the other seats
play the same bot unbarred; with ``rotate_seats`` the barred seat takes every seat of every deal in turn. The
study setting ``restricted = ["characters.play.*", "turn.exchange.allowed"]`` adds one such arm per move kind it
names (``*`` matches any part of a name; the kinds are those the baseline arm's rules offer, in their order), each
with the baseline arm's variants, options and bot: the change of the barred seat's win rate from the baseline on
the same deals is what that move kind is worth to a player (:mod:`kbsim.analysis.restricted`).

**Common random numbers.** Every run of a study uses the study's seed, so game
``i`` of every arm and sweep value starts from the deal ``game_seed(seed, i)``: arm
differences are measured as paired differences on the same deals
(:mod:`kbsim.analysis.metrics`).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator

from kbsim.engine.seeds import MAX_SEED
from kbsim.rules.files import display_path, format_validation, item_path
from kbsim.sim.conditions import Condition, deals_at
from kbsim.sim.ladder_spec import Rung, head_to_head
from kbsim.sim.study_files import StudyError, available_studies, find_study
from kbsim.sim.study_sections import OptionValue, StrictModel, Sweep, UntilDecided
from kbsim.sim.tune_spec import TuneSection
from kbsim.strict_io import (
    MAX_LIST,
    MAX_NAME,
    MAX_PATH,
    MAX_TEXT,
    MAX_YAML_DEPTH,
    InputFileError,
    YamlInputError,
    check_bounds,
    load_yaml,
    read_input_text,
    top_level_problem,
)

# doc-only keys left out of the rules digest: rewording a summary does not invalidate records
_DOC_KEYS = frozenset({"summary", "title", "examples", "clarifications", "description", "confidence"})


_Strict = StrictModel


class Arm(_Strict):
    """One arm of a study: a rule set configuration and the bots that play it."""

    name: str = Field(
        min_length=1, max_length=MAX_NAME, description="Label of the arm (any text; unique in the study)."
    )
    summary: str = Field("", max_length=MAX_TEXT, description="What the arm is, for the report.")
    variants: list[Annotated[str, Field(max_length=MAX_NAME)]] = Field(
        default_factory=list, max_length=MAX_LIST, description="Variants of the rule file, applied in order."
    )
    options: dict[Annotated[str, Field(max_length=MAX_NAME)], OptionValue] = Field(
        default_factory=dict, max_length=MAX_LIST, description="Option name -> value."
    )
    bots: str | list[str] = Field("greedy", description="One bot for all seats, or a lineup cycled over the seats.")
    games: int | None = Field(
        None,
        ge=1,
        le=100_000_000,
        description="Deals per cell of this arm: the first N of the study's deals (a costly arm, e.g. a search bot's "
        "head-to-head; default: the study's games; at most the study's games).",
    )
    bar: list[str] = Field(
        default_factory=list,
        description="Restricted play: move kinds (e.g. characters.play.agatha) one seat's bot is barred from; the "
        "other seats play the same bot unbarred, and the barred seat is rotated over the seats.",
    )

    @field_validator("variants", mode="before")
    @classmethod
    def _one_variant(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("bots")
    @classmethod
    def _bots_not_empty(cls, v: str | list[str]) -> str | list[str]:
        names = [v] if isinstance(v, str) else v
        if not names or any(not n.strip() for n in names):
            raise ValueError("expected a bot name or a non-empty list of bot names")
        if len(names) > MAX_LIST or any(len(n) > MAX_NAME for n in names):
            raise ValueError(
                f"expected at most {MAX_LIST:,} bot names of at most {MAX_NAME} characters each (a bot with "
                f"parameters: `search(iterations=400)`)"
            )
        return v

    @model_validator(mode="after")
    def _one_bot_when_barred(self) -> Arm:
        if self.bar and not (isinstance(self.bots, str) or len(self.bots) == 1):
            raise ValueError("bar: a restricted-play arm has one bot, barred in one seat and unbarred in the others")
        return self

    def lineup(self, players: int, bot: str | None = None) -> tuple[str, ...]:
        """Bot per seat for ``players`` seats (a list is cycled over the seats).

        With ``bar``: the first seat's bot is barred from those move kinds (:func:`barred_spec`), the others play
        it unbarred. ``bot`` replaces the arm's bot (a rung of a skill ladder).
        """
        names = [self.bots] if isinstance(self.bots, str) else list(self.bots)
        if bot is not None:
            names = [bot]
        if self.bar:
            return (barred_spec(names[0], self.bar), *names[:1] * (players - 1))
        return tuple(names[s % len(names)] for s in range(players))


def barred_spec(spec: str, bar: list[str] | tuple[str, ...]) -> str:
    """The bot spec ``spec`` with the move kinds ``bar`` added to its ``bar`` parameter (canonical text).

    Raises:
        StudyError: ``spec`` is not one bot spec.
    """
    from kbsim.bots.spec import BAR, BotSpec, BotSpecError, bar_of, parse_spec

    try:
        parsed = parse_spec(spec)
    except BotSpecError as e:
        raise StudyError(str(e)) from None
    kinds = tuple(sorted({*bar_of(parsed), *bar}))
    params = tuple(sorted([*(kv for kv in parsed.params if kv[0] != BAR), (BAR, kinds)]))
    return BotSpec(parsed.name, params).canonical()


class Study(_Strict):
    """A study file: which arms x player counts [x sweep values] to play, how many games, which seed."""

    name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=100, description="Identifier (used in file names)."
    )
    title: str | None = Field(None, max_length=MAX_NAME, description="Heading of the report (default: the name).")
    question: str = Field(
        "", max_length=MAX_TEXT, description="The question the study answers, shown at the top of the report."
    )
    game: str = Field(
        "kingsbridge", min_length=1, max_length=MAX_PATH, description="Shipped game name or path to a rule file."
    )
    players: list[Annotated[int, Field(ge=1, le=20)]] = Field(min_length=1, description="Player counts.")
    games: int = Field(ge=1, le=100_000_000, description="Deals per cell (each rotation of a lineup plays them all).")
    seed: int = Field(ge=0, le=MAX_SEED, description="Run seed shared by every cell (common random numbers).")
    arms: list[Arm] = Field(min_length=1, max_length=MAX_LIST)
    baseline: str | None = Field(
        None, max_length=MAX_NAME, description="Arm the others are compared with (default: the first)."
    )
    sweep: Sweep | None = None
    rotate_seats: bool = Field(True, description="Play a mixed bot lineup in every rotation of the seats.")
    restricted: list[str] = Field(
        default_factory=list,
        description="Restricted play: move kinds (patterns with *, e.g. characters.play.*), one arm each with a "
        "seat of the baseline arm's bot barred from it.",
    )
    ladder: list[Rung] | None = Field(
        None,
        min_length=1,
        max_length=12,
        description="Skill ladder: bot specs from the weakest to the strongest; every arm whose lineup is one bot "
        'is played once per rung with the rung\'s bot in every seat. A rung { bot = "search", games = 300 } plays '
        "the first 300 of the study's deals per cell.",
    )
    until_decided: UntilDecided | None = Field(
        None, description="Play deals in batches until every comparison is decided (games is the cap)."
    )
    tune: TuneSection | None = Field(
        None, description="Options to search toward targets (`kbsim tune`); the one arm is where the search starts."
    )

    _source: Path | None = PrivateAttr(None)

    @model_validator(mode="before")
    @classmethod
    def _tune_arm(cls, data: Any) -> Any:
        """A tune study may leave out ``arms``: it then starts from the rule file's defaults, played by greedy."""
        if isinstance(data, dict) and "tune" in data and "arms" not in data:
            data = dict(data) | {"arms": [{"name": "rule file defaults"}]}
        return data

    def _tune_checks(self) -> None:
        """A tune study: one arm, no sweep, ladder or stopping rule of its own, targets among its players."""
        if self.tune is None:
            return
        if len(self.arms) != 1:
            raise ValueError(
                f"arms: a tune study has one arm (the rules and bots the search starts from), got {len(self.arms)}"
            )
        if self.sweep is not None:
            raise ValueError("sweep: a tune study searches its options itself; leave out [sweep]")
        if self.ladder is not None:
            raise ValueError(
                "ladder: a tune study plays its arm's bots (a target's bot checks another); leave out ladder"
            )
        if self.until_decided is not None:
            raise ValueError("until_decided: a tune study sizes its own rungs of deals; leave out [until_decided]")
        if self.arms[0].games is not None:
            raise ValueError(
                f"{item_path('arms', 0, self.arms[0].name)}.games: a tune study sizes its own rungs of deals (games); "
                "leave out the arm's games"
            )
        for name in self.tune.options:
            if name in self.arms[0].options:
                raise ValueError(
                    f"{item_path('arms', 0, self.arms[0].name)}.options: sets {name!r}, an option the search varies"
                )
        for i, t in enumerate(self.tune.targets):
            extra = sorted(set(t.players or []) - set(self.players))
            if extra:
                raise ValueError(f"{item_path('tune.targets', i)}.players: {extra} are not among the study's players")

    @model_validator(mode="after")
    def _cross_checks(self) -> Study:
        self._tune_checks()
        if len(set(self.players)) != len(self.players):
            raise ValueError("players: every player count must appear once")
        seen: dict[str, int] = {}
        for i, arm in enumerate(self.arms):
            if arm.name in seen:
                raise ValueError(
                    f"{item_path('arms', i)}.name: {arm.name!r} is already the name of "
                    f"{item_path('arms', seen[arm.name])}"
                )
            seen[arm.name] = i
            if self.sweep is not None and self.sweep.option in arm.options:
                raise ValueError(
                    f"{item_path('arms', i, arm.name)}.options: sets {self.sweep.option!r}, the option the sweep varies"
                )
        if self.baseline is not None and self.baseline not in seen:
            raise ValueError(f"baseline: {self.baseline!r} is not the name of an arm")
        problems = []
        for i, arm in enumerate(self.arms):
            if arm.games is None:
                continue
            if arm.games > self.games:
                problems.append(
                    f"{item_path('arms', i, arm.name)}.games: {arm.games:,} is more than the study's games; "
                    f"expected at most {self.games:,} (an arm plays the first N of the study's deals)"
                )
            one_bot = isinstance(arm.bots, str) or len(set(arm.bots)) == 1
            if self.ladder and (one_bot or arm.bar):
                problems.append(
                    f"{item_path('arms', i, arm.name)}.games: the arm is played on the ladder, whose rungs set its "
                    'deals; expected no games here, or a rung with its own, e.g. { bot = "search", games = 300 }'
                )
        if problems:
            raise ValueError("\n".join(problems))
        for i, rung in enumerate(self.ladder or []):
            if not rung.bot.strip():
                raise ValueError(
                    f"{item_path('ladder', i)}: expected a bot spec, e.g. greedy or search(iterations=100)"
                )
            if rung.games is not None and rung.games > self.games:
                raise ValueError(
                    f"{item_path('ladder', i)}.games: {rung.games:,} is more than the study's games; expected at most "
                    f"{self.games:,} (a rung plays the first N of the study's deals)"
                )
        return self

    @property
    def source(self) -> Path | None:
        """The file the study was read from (None when built in code)."""
        return self._source

    @property
    def base_arm(self) -> Arm:
        """The baseline arm."""
        name = self.baseline or self.arms[0].name
        return next(a for a in self.arms if a.name == name)


def load_study(ref: str | Path) -> Study:
    """Read and validate a study file (TOML or YAML).

    Args:
        ref: see :func:`find_study`.

    Returns:
        The validated :class:`Study` (its ``source`` is the file read).

    Raises:
        StudyError: no such file, a syntax error (with line), or invalid content
            (one line per problem: ``FILE: field.path: message``).
    """
    path = find_study(ref)
    try:  # a regular file of at most MAX_INPUT_BYTES, UTF-8 with or without a byte-order mark
        text = read_input_text(path, "a study file (.toml, .yaml)")
    except InputFileError as e:
        raise StudyError(str(e)) from None
    try:
        if path.suffix == ".toml":
            try:
                doc = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                raise StudyError(f"{path}: TOML syntax error: {e}") from None
            except RecursionError:
                raise YamlInputError(f"nested too deeply; expected at most {MAX_YAML_DEPTH} levels") from None
            check_bounds(doc)  # the same nesting and size limits as a YAML document
        else:
            doc = load_yaml(text)  # strict: duplicate keys, YAML 1.2 core scalars, bounded aliases
    except YamlInputError as e:
        raise StudyError(f"{path}{f' at line {e.line}' if e.line else ''}: {e.message}") from None
    if not isinstance(doc, dict):
        raise StudyError(f"{path}: {top_level_problem(doc, 'a table of study fields at the top level')}")
    return study_from_dict(doc, path)


def study_from_dict(doc: dict[str, Any], source: Path | str = "<study>") -> Study:
    """Validate a study given as a dict.

    Raises:
        StudyError: invalid content, one line per problem.
    """
    try:
        study = Study.model_validate(doc)
    except ValidationError as e:
        raise StudyError(format_validation(source, e, "the study format", doc)) from None
    study._source = Path(source)
    return study


def with_ladder(study: Study, ladder: list[str | Rung]) -> Study:
    """The study played on another skill ladder (``kbsim report --ladder``), its source kept.

    Args:
        study: a validated study.
        ladder: rungs from the weakest to the strongest: bot specs, or :class:`Rung` with their own deals per
            cell (the specs are checked by :func:`plan_study`).

    Raises:
        StudyError: an empty ladder or an empty rung, or a rung with more deals than the study's games.
    """
    rungs = [r.model_dump(exclude_none=True) if isinstance(r, Rung) else r for r in ladder]
    doc = study.model_dump(mode="python", exclude_unset=True) | {"ladder": rungs}
    return study_from_dict(doc, study.source or f"{study.name}.toml")


# ------------------------------------------------------------------ planning
def slug(text: str, limit: int = 40) -> str:
    """A file-name-safe version of ``text`` (letters, digits, ``-_.=``), at most ``limit`` characters."""
    s = re.sub(r"[^A-Za-z0-9_.=-]+", "-", text).strip("-.")
    return (s or "x")[:limit]


def _strip_docs(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_docs(v) for k, v in node.items() if k not in _DOC_KEYS}
    if isinstance(node, list):
        return [_strip_docs(v) for v in node]
    return node


def rules_digest(loaded) -> str:
    """A short hash of the rules in force: records of other rules never mix.

    Left out, so that they do not invalidate records: documentation text, the
    option and variant declarations (their effect is already applied, and the
    effective options are part of the run parameters), and the character cards
    when they are not in play.
    """
    from kbsim.rules.loader import unhashed_defaults

    doc = loaded.model.model_dump(mode="json", by_alias=True, exclude=unhashed_defaults(loaded.model) or None)
    doc.pop("options", None)
    doc.pop("variants", None)
    chars = doc.get("characters")
    if not (isinstance(chars, dict) and chars.get("enabled")):
        doc.pop("characters", None)
    doc = _strip_docs(doc)
    return hashlib.blake2b(json.dumps(doc, sort_keys=True).encode(), digest_size=6).hexdigest()


def chunk_size_for(games: int) -> int:
    """Games per chunk of a study run: a function of ``games`` only, so a rerun finds the same chunks."""
    return max(1, min(500, max(25, games // 16)))


def rotations(lineup: tuple[str, ...], rotate: bool) -> list[tuple[str, ...]]:
    """The distinct seat rotations of a lineup (rotation r gives seat s the bot ``lineup[(s + r) % P]``).

    A lineup of one bot, or ``rotate`` false, gives only the lineup itself.
    """
    if not rotate or len(set(lineup)) <= 1:
        return [lineup]
    out: list[tuple[str, ...]] = []
    for r in range(len(lineup)):
        rot = lineup[r:] + lineup[:r]
        if rot not in out:
            out.append(rot)
    return out


@dataclass(frozen=True)
class CellRun:
    """One run of a study: a cell (condition x player count) in one seat rotation.

    Attributes:
        condition: the arm (and sweep value) played.
        players: seats.
        rotation: index of the seat rotation (0 = the lineup as written).
        spec: what :mod:`kbsim.sim.runner` plays.
        params: the parameters stored in the records file (and compared on reuse).
        path: the records file.
        meta: metadata written besides the parameters (:func:`kbsim.sim.run.rules_metadata`).
    """

    condition: Condition
    players: int
    rotation: int
    spec: Any
    params: dict
    path: Path
    meta: dict = field(default_factory=dict)


@dataclass
class StudyPlan:
    """A validated study with its rules loaded: the conditions, the runs and where their records go."""

    study: Study
    source: Path
    conditions: list[Condition]
    runs: list[CellRun]
    records_dir: Path
    games: int
    comparisons: list[tuple[str, str]]
    rules_source: str = ""
    ladder: list[str] = field(default_factory=list)

    def upto_of(self, run: CellRun, upto: int) -> int:
        """The deals ``run`` plays at a look of ``upto`` deals per cell (:func:`kbsim.sim.conditions.deals_at`)."""
        return deals_at(upto, run.spec.games, self.games)


def _condition_label(arm: Arm, study: Study, value: Any) -> str:
    """The arm's name, and at a sweep value the option in words with its value (``hand size 5``)."""
    if study.sweep is None:
        return arm.name
    v = f"{study.sweep.option.replace('_', ' ')} {json.dumps(value) if not isinstance(value, str) else value}"
    return v if len(study.arms) == 1 else f"{arm.name} · {v}"


def _comparisons(
    study: Study, values: list, key_of: dict[tuple[str, str, str | None], str], ladder: list[str | None]
) -> list[tuple[str, str]]:
    """The (B, A) condition-key pairs to compare.

    At every rung of the ladder (one rung, None, without a ladder): each arm against the baseline arm at every
    sweep value, then each sweep value against the baseline value within every arm. Then, for every arm played
    on the ladder, each rung against the first (the same arm under stronger play). A head-to-head arm (a mixed
    lineup, played as written) is compared with the baseline only when the baseline is not on the ladder either.
    """
    base = study.base_arm.name
    comparisons: list[tuple[str, str]] = []
    for rung in ladder:
        for value in values:
            vk = json.dumps(value, sort_keys=True)
            for arm in study.arms:
                pair = (key_of.get((arm.name, vk, rung)), key_of.get((base, vk, rung)))
                if arm.name != base and pair[0] and pair[1]:
                    comparisons.append((pair[0], pair[1]))
        if study.sweep is not None:
            bk = json.dumps(study.sweep.base_value, sort_keys=True)
            for arm in study.arms:
                for value in values:
                    vk = json.dumps(value, sort_keys=True)
                    pair = (key_of.get((arm.name, vk, rung)), key_of.get((arm.name, bk, rung)))
                    if vk != bk and pair[0] and pair[1]:
                        comparisons.append((pair[0], pair[1]))
    for rung in ladder[1:]:
        for arm in study.arms:
            for value in values:
                vk = json.dumps(value, sort_keys=True)
                pair = (key_of.get((arm.name, vk, rung)), key_of.get((arm.name, vk, ladder[0])))
                if pair[0] and pair[1]:
                    comparisons.append((pair[0], pair[1]))
    return comparisons


def _canonical_lineups(where: str, lineups: dict[int, tuple[str, ...]], game: Any) -> dict[int, tuple[str, ...]]:
    """The lineups with every bot spec in canonical form (``where`` names the study file and the arm).

    Raises:
        StudyError: an unknown bot, parameter or value for the game's family, or a bar naming no move kind of
            the game.
    """
    from kbsim.bots import UnknownBot, canonical_bot

    try:
        return {p: tuple(canonical_bot(b, game.family, game=game) for b in lu) for p, lu in lineups.items()}
    except UnknownBot as e:
        raise StudyError(f"{where}.bots: {e}") from None


def _bar_words(game: Any) -> dict[str, str]:
    """Move kind -> what a bar on it keeps a seat from doing, for the rules ``game`` (its family's ``bar_kinds``)."""
    from kbsim.engine.families import family_of

    return family_of(game).part("bar_kinds")(game)


def _rung_lineups(
    where: str, arm: Arm, rung: str | None, lineups: dict[int, tuple[str, ...]], players: list[int], game: Any
) -> dict[int, tuple[str, ...]]:
    """An arm's lineups at a rung of the ladder (``lineups``, canonical, when None).

    Every seat plays the rung's bot; one seat of a restricted-play arm is barred (:meth:`Arm.lineup`).
    """
    if rung is None:
        return lineups
    return _canonical_lineups(where, {p: arm.lineup(p, rung) for p in players}, game)


def _canonical_ladder(source: Path, ladder: list[Rung], family: str) -> dict[str, int | None]:
    """The ladder's bot specs in canonical form, each once, weakest first -> the rung's own games (or None).

    Raises:
        StudyError: an unknown bot, parameter or value, or a rung given twice.
    """
    from kbsim.bots import UnknownBot, canonical_bot

    out: dict[str, int | None] = {}
    for i, rung in enumerate(ladder):
        try:
            spec = canonical_bot(rung.bot, family)
        except UnknownBot as e:
            raise StudyError(f"{source}: {item_path('ladder', i)}: {e}") from None
        if spec in out:
            raise StudyError(
                f"{source}: {item_path('ladder', i)}: {spec!r} is already rung {list(out).index(spec) + 1} of the "
                "ladder"
            )
        out[spec] = rung.games
    return out


def build_dir(source: Path) -> Path:
    """Where a study's records and page go.

    Args:
        source: the study file.

    Returns:
        ``_build/`` beside the study file, or, for a study shipped inside the installed package (never written
        to), ``reports/_build/`` in the current directory.
    """
    if source.resolve().parent.name == "_reports":  # the packaged studies (kbsim/_reports)
        return Path.cwd() / "reports" / "_build"
    return source.parent / "_build"


def _cell_runs(
    study: Study,
    cond: Condition,
    lineups: dict[int, tuple[str, ...]],
    game: Any,
    loaded: Any,
    games: int,
    records_dir: Path,
    meta: dict,
) -> list[CellRun]:
    """The runs of one condition: a run per player count and distinct seat rotation of its lineup."""
    from kbsim.sim.runner import RunSpec

    digest = rules_digest(loaded)
    runs = []
    for p in study.players:
        for r, lineup in enumerate(rotations(lineups[p], study.rotate_seats)):
            spec = RunSpec(
                game=game, players=p, bots=lineup, games=games, seed=study.seed, rules_hash=loaded.rules_hash
            )
            params = spec.parameters() | {"chunk_size": chunk_size_for(games), "rules_digest": digest}
            h = hashlib.blake2b(json.dumps(params, sort_keys=True).encode(), digest_size=5).hexdigest()
            path = records_dir / f"{cond.key}-{p}p-r{r}-{h}.parquet"
            runs.append(CellRun(condition=cond, players=p, rotation=r, spec=spec, params=params, path=path, meta=meta))
    return runs


def plan_study(study: Study, records_dir: Path | None = None, games: int | None = None) -> StudyPlan:
    """Check a study against its rules and bots and list its runs.

    Args:
        study: a validated study (from :func:`load_study`).
        records_dir: folder for the cell records (default: ``_build/records/NAME/``
            beside the study file).
        games: deals per cell instead of the study's ``games`` (e.g. for a quick look).

    Returns:
        The :class:`StudyPlan`.

    Raises:
        StudyError: unknown game, variant, option, option value or bot, or a player count the game does not
            allow; each message names the study file, the arm and the unknown name.
    """
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.rules.loader import RulesError, find_rule_file, load_rules
    from kbsim.sim.run import rules_metadata

    source = study.source or Path(f"{study.name}.toml")
    n_games = study.games if games is None else games
    if n_games < 1:
        raise StudyError(f"--games {n_games}: expected a number of games >= 1")
    try:
        rule_file = find_rule_file(study.game)
    except RulesError as e:
        raise StudyError(f"{source}: game: {'; '.join(e.lines)}") from None
    if records_dir is None:
        records_dir = build_dir(source) / "records" / study.name
    study = with_restricted_arms(study, rule_file)
    values = study.sweep.values if study.sweep else [None]
    conditions: list[Condition] = []
    runs: list[CellRun] = []
    key_of: dict[tuple[str, str, str | None], str] = {}
    ladder: dict[str, int | None] | None = None
    for i, arm in enumerate(study.arms):
        where = f"{source}: {item_path('arms', i, arm.name)}"
        lineups = {p: arm.lineup(p) for p in study.players}
        rungs: list[str | None] = [None]
        for j, value in enumerate(values):
            opts = dict(arm.options)
            if study.sweep is not None:
                opts[study.sweep.option] = value
            try:
                loaded = load_rules(str(rule_file), arm.variants, opts)
            except RulesError as e:  # the loader speaks of --option; in a study it is the arm's options
                msg = "; ".join(e.lines).replace(": --option: ", ": options: ")
                raise StudyError(f"{where}: {msg}") from None
            g = compile_rules(loaded)
            if ladder is None and study.ladder:
                ladder = _canonical_ladder(source, study.ladder, g.family)
            if j == 0:
                lineups = _canonical_lineups(where, lineups, g)
                if ladder and (arm.bar or not head_to_head(lineups)):  # (a barred arm: the rung, one seat barred)
                    rungs = list(ladder)
            for p in study.players:
                if not g.min_players <= p <= g.max_players:
                    raise StudyError(
                        f"{source}: players: {p} is not allowed; {g.game} is played by "
                        f"{g.min_players} to {g.max_players} players"
                    )
            stem = f"{i:02d}-{slug(arm.name, 32)}"
            if study.sweep is not None:
                stem += f"-{j:02d}-{slug(study.sweep.option, 16)}={slug(json.dumps(value), 16)}"
            meta = rules_metadata(loaded, g)
            for k, rung in enumerate(rungs):
                own = [n for n in (arm.games, ladder.get(rung) if ladder and rung is not None else None) if n]
                cell_games = min([n_games, *own])  # (a quick look caps every rung and arm)
                key = stem if rung is None else f"{stem}-L{k}-{slug(rung, 24)}"
                key_of[(arm.name, json.dumps(value, sort_keys=True), rung)] = key
                cells = _rung_lineups(where, arm, rung, lineups, study.players, g)
                label = _condition_label(arm, study, value)
                cond = Condition(
                    key=key,
                    label=label if rung is None else f"{label} · {rung}",
                    arm=arm.name,
                    summary=arm.summary,
                    variants=tuple(arm.variants),
                    options=opts,
                    changed=dict(loaded.changed),
                    effective=dict(loaded.options),
                    bots=rung if rung is not None else arm.bots if isinstance(arm.bots, str) else ",".join(arm.bots),
                    sweep_value=value,
                    rung=rung,
                    stem=stem if rung is not None else "",
                    bar=tuple(arm.bar),
                    bar_words="; ".join(_bar_words(g).get(k, k) for k in arm.bar),
                    games=cell_games if cell_games < n_games else None,
                )
                conditions.append(cond)
                runs += _cell_runs(study, cond, cells, g, loaded, cell_games, records_dir, meta)
    comparisons = _comparisons(study, values, key_of, list(ladder) if ladder else [None])
    return StudyPlan(
        study=study,
        source=source,
        conditions=conditions,
        runs=runs,
        records_dir=records_dir,
        games=n_games,
        comparisons=comparisons,
        rules_source=display_path(rule_file),
        ladder=list(ladder or []),
    )


def with_restricted_arms(study: Study, rule_file: Path | str) -> Study:
    """The study with one restricted-play arm per move kind its ``restricted`` setting names (itself without).

    Each added arm is the baseline arm (variants, options, bot) with ``bar = [kind]``, named by what the bar
    keeps a seat from doing (``barred from playing Mother Agatha``); the kinds are matched (``*`` patterns,
    :mod:`fnmatch`) against the move kinds the baseline arm's rules offer (:func:`kbsim.bots.check_bars`), in
    their order.

    Args:
        study: a validated study.
        rule_file: its rule file.

    Raises:
        StudyError: the baseline arm's rules do not load, its lineup is not one bot, a pattern matches no move
            kind of the rules, or an added arm's name is already taken.
    """
    from fnmatch import fnmatchcase

    from kbsim.engine.families import family_of
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.rules.loader import RulesError, load_rules

    if not study.restricted:
        return study
    source = study.source or Path(f"{study.name}.toml")
    base = study.base_arm
    if base.bar or not (isinstance(base.bots, str) or len(base.bots) == 1):
        raise StudyError(f"{source}: restricted: the baseline arm {base.name!r} must be one unbarred bot")
    try:
        g = compile_rules(load_rules(str(rule_file), base.variants, dict(base.options)))
    except RulesError as e:
        raise StudyError(f"{source}: arm {base.name!r}: {'; '.join(e.lines)}") from None
    kinds = family_of(g).part("bar_kinds")(g)
    chosen: list[str] = []
    for i, pattern in enumerate(study.restricted):
        hits = [k for k in kinds if fnmatchcase(k, pattern)]
        if not hits:
            raise StudyError(
                f"{source}: {item_path('restricted', i)}: {pattern!r} matches no move kind of {g.game}; expected "
                "some of: " + ", ".join(kinds)
            )
        chosen += [k for k in hits if k not in chosen]
    taken = {a.name for a in study.arms}
    bot = base.bots if isinstance(base.bots, str) else base.bots[0]
    arms = list(study.arms)
    for kind in chosen:
        name = f"barred from {kinds[kind]}"
        if name in taken:
            raise StudyError(f"{source}: restricted: an arm is already named {name!r}")
        arms.append(
            Arm(
                name=name,
                summary=f"One seat barred from {kinds[kind]}, against the same bot unbarred; seats rotated.",
                variants=list(base.variants),
                options=dict(base.options),
                bots=bot,
                bar=[kind],
                games=base.games,  # (the same deals as the baseline it is compared with)
            )
        )
    out = study.model_copy(update={"arms": arms, "restricted": []})
    out._source = study.source
    return out


# ------------------------------------------------------------------ running
@dataclass
class RunStats:
    """What :func:`run_study` did.

    Attributes:
        runs: runs in the study.
        reused: runs whose finished records were already on disk.
        played: runs (fully or partly) played now.
        games_played: games played now.
        paths: records file of every run, in plan order.
    """

    runs: int = 0
    reused: int = 0
    played: int = 0
    games_played: int = 0
    paths: list[Path] = field(default_factory=list)


def _close(run: Any) -> bool:
    """Release an opened run that has nothing to play at this look; False (so it is dropped from the list)."""
    run.output.close()
    return False


def run_study(
    plan: StudyPlan,
    workers: int | None = None,
    backend: Any = "processes",
    progress: Callable[[int, int], None] | None = None,
    upto: int | None = None,
) -> RunStats:
    """Play the runs whose records are missing; reuse finished files; complete interrupted ones.

    Args:
        plan: from :func:`plan_study`.
        workers: worker processes (default: all cores); 1 plays in this process.
        backend: ``processes`` (default) or ``serial``, or a backend object (:func:`kbsim.sim.run.make_backend`,
            e.g. kept open by its ``session()`` for many studies; ``workers`` is then ignored).
        progress: called as ``progress(games_done_now, games_to_play)`` after each chunk
            (and once with 0 before the first game).
        upto: play only the first ``upto`` deals of every run (a look of a study run until decided: the
            chunks that start below it; a ladder rung with fewer deals plays the same share of its own,
            :meth:`StudyPlan.upto_of`); runs stay unfinished until their last chunk is played.

    Returns:
        :class:`RunStats`.

    Raises:
        StudyError: the records folder cannot be created, or a records file there belongs to other parameters.
        kbsim.sim.run.RunFailed: a game or a worker failed (``cell``: arm, rung, players); finished chunks are kept.
    """
    from kbsim import __version__
    from kbsim.sim.run import OutputError, make_backend, open_run, play_run
    from kbsim.sim.runner import default_workers

    try:
        plan.records_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StudyError(f"--records {plan.records_dir}: cannot create the folder: {e.strerror}") from None
    if isinstance(backend, str):
        n_workers = workers or default_workers()
        be = make_backend("serial" if backend == "serial" or n_workers <= 1 else "processes", n_workers)
    else:
        be = backend
    stats = RunStats(runs=len(plan.runs), paths=[r.path for r in plan.runs])
    opened = []
    look: dict[int, int | None] = {}  # id of an opened run -> its deals at this look (a smaller rung: its share)
    cell_of: dict[int, str] = {}  # id of an opened run -> its cell in words (for a failure)
    for run in plan.runs:
        try:
            opened.append(
                open_run(
                    run.spec,
                    run.path,
                    version=__version__,
                    chunk_size=run.params["chunk_size"],
                    resume=True,
                    extra_params={"rules_digest": run.params["rules_digest"]},
                    meta=run.meta,
                )
            )
        except OutputError as e:
            raise StudyError(
                f"{plan.source}: records of arm {run.condition.arm!r}, {run.players} players: {e}"
            ) from None
        if opened[-1].output.complete:
            stats.reused += 1
            opened.pop()
        else:
            cell_of[id(opened[-1])] = f"arm {run.condition.label!r}, {run.players} players"
            look[id(opened[-1])] = None if upto is None else plan.upto_of(run, upto)
    if upto is not None:
        for r in opened:  # only the chunks that start below the look
            r.pending_games = sum(len(c) for c in r.pending() if c.start < look[id(r)])  # type: ignore[operator]
        opened = [r for r in opened if r.pending_games or _close(r)]
    total = sum(r.pending_games for r in opened)
    played = 0
    if progress is not None:
        progress(0, total)

    def advance(n: int) -> None:
        nonlocal played
        played += n
        if progress is not None:
            progress(played, total)

    for r in opened:
        play_run(r, be, advance, upto=look[id(r)], cell=cell_of[id(r)])
        stats.played += 1
    stats.games_played = played
    return stats


__all__ = [
    "Arm",
    "CellRun",
    "RunStats",
    "Study",
    "StudyError",
    "StudyPlan",
    "Sweep",
    "UntilDecided",
    "available_studies",
    "chunk_size_for",
    "find_study",
    "head_to_head",
    "load_study",
    "plan_study",
    "rotations",
    "rules_digest",
    "run_study",
    "slug",
    "study_from_dict",
    "with_restricted_arms",
    "barred_spec",
    "with_ladder",
]
