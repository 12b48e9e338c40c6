"""``kbsim tune`` as a library: check a tune study, search, choose, replay; the result the page and summary show.

:func:`plan_tuning` checks everything before a game is played (the study file, its
options against the rule file, its targets against what the records can hold, the
bots and player counts); :func:`run_tuning` runs the search (:mod:`kbsim.tune.search`),
chooses the setting with the fewest changes (:mod:`kbsim.tune.choose`) and replays it on
fresh deals, with the study's bots and, when asked, a stronger lineup
(:mod:`kbsim.tune.verify`).

Files: ``reports/_build/tune/NAME/`` beside the study file holds the search's SQLite
storage and ``records/`` (every block of every setting played, as ordinary records).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbsim.engine.seeds import tune_seed
from kbsim.rules.files import display_path
from kbsim.sim.study import Study, StudyError, build_dir, load_study, plan_study, rules_digest, study_from_dict
from kbsim.tune.choose import Choice, choose
from kbsim.tune.evaluate import SKILL, VERIFY, Evaluator
from kbsim.tune.measures import Objective, Resamples, usage_key
from kbsim.tune.search import SearchSettings, TrialRow, run_search, rung_deals, storage_path
from kbsim.tune.space import SearchSpace, build_space, canonical, check_targets
from kbsim.tune.verify import Check, deals_for_precision, replay

__all__ = ["TunePlan", "TuneResult", "plan_tuning", "run_tuning"]

PROBE_DEALS = 2  # deals per player count of the probe that checks the targets can be measured
MAX_SETTINGS = 100_000  # settings a brute-force search may list
MAX_DEALS = 1_000_000  # deals per setting (a setting's per-deal statistics are held in memory)


@dataclass
class TunePlan:
    """A checked tune study, ready to run.

    Attributes:
        study: the study.
        source: its file.
        space: the options searched.
        objective: the targets combined.
        search: trials, sampler, deals per rung.
        folder: ``_build/tune/NAME/`` (storage and records).
        storage: the search's SQLite file.
        rules_source: the rule file.
        family: its engine family.
        defaults: every option's value where the search starts (for the page).
    """

    study: Study
    source: Path
    space: SearchSpace
    objective: Objective
    search: SearchSettings
    folder: Path
    storage: Path
    rules_source: str
    family: str
    defaults: dict[str, Any] = field(default_factory=dict)

    @property
    def usage_keys(self) -> tuple[str, ...]:
        """The usage counters the targets read."""
        return tuple(sorted({k for t in self.objective.targets if (k := usage_key(t)) is not None}))

    def seed(self, purpose: int) -> int:
        """A 32-bit seed for resampling (bootstrap, permutations) derived from the study's seed."""
        return tune_seed(self.study.seed, 9, purpose) % 2**32


@dataclass
class TuneResult:
    """What a tuning found.

    Attributes:
        plan: the plan run.
        trials: every finished trial.
        choice: best, recommendation, runner-up and the account of the fewest-changes check.
        verify: the replay on fresh deals with the study's bots.
        skill: the skill check (None when the study asks for none, or nothing is recommended).
        seconds: wall time.
        games_played: games played now (the rest read from records on disk).
        runs_reused: runs whose records were on disk already.
    """

    plan: TunePlan
    trials: list[TrialRow]
    choice: Choice
    verify: Check
    skill: Check | None
    seconds: float
    games_played: int
    runs_reused: int


def plan_tuning(ref: str | Path, games: int | None = None, trials: int | None = None) -> TunePlan:
    """Read and check a tune study; nothing is played or written.

    Args:
        ref: the study file or name (:func:`kbsim.sim.study.find_study`).
        games: deals per setting at the search's last rung (default: the study's ``games``).
        trials: settings to try (default: the ``[tune]`` section's ``trials``).

    Returns:
        :class:`TunePlan`.

    Raises:
        StudyError: one line per problem: the file, its ``[tune]`` section, an option or range the rules refuse, a
            target the records cannot measure, a bot or player count the rules do not have.
        kbsim.sim.run.RunFailed: a probe game (played to check the targets) failed; nothing is kept.
    """
    from kbsim.engine.rows.compiled import compile_rules
    from kbsim.rules.loader import find_rule_file, load_rules
    from kbsim.sim.run import RunFailed
    from kbsim.sim.runner import Backend, RunSpec, run_games

    study = load_study(ref)
    source = study.source or Path(str(ref))
    if study.tune is None:
        raise StudyError(
            f"{source}: no [tune] section: kbsim tune needs the options to search and the targets "
            f"(see the tuning guide); kbsim report plays the study's arms"
        )
    if games is not None and games < 2:
        raise StudyError(f"--games {games}: expected at least 2 deals per setting")
    if trials is not None and trials < 1:
        raise StudyError(f"--trials {trials}: expected at least 1 trial")
    space = build_space(study, source)
    tune = study.tune
    size = space.size()
    if tune.sampler == "brute-force" and (size is None or size > MAX_SETTINGS):
        many = "a float range makes them endless" if size is None else f"they make {size:,}"
        raise StudyError(
            f"{source}: tune.sampler: brute-force tries every setting, but {many}; at most {MAX_SETTINGS:,} "
            f"(use tpe or random)"
        )
    targets = list(tune.targets)
    objective = Objective(targets, study.players, tune.combine)
    players = objective.player_counts
    folder = build_dir(source) / "tune" / study.name
    probe_doc = {
        "name": study.name,
        "game": study.game,
        "players": players,
        "games": PROBE_DEALS,
        "seed": study.seed,
        "rotate_seats": study.rotate_seats,
        "arms": [study.arms[0].model_dump()],
    }
    plan = plan_study(study_from_dict(probe_doc, source), records_dir=folder / "records")  # players and bots
    rule_file = find_rule_file(study.game)
    loaded = load_rules(str(rule_file), study.arms[0].variants, study.arms[0].options)
    game = compile_rules(loaded)
    columns = {}
    for p in players:
        run = next(r for r in plan.runs if r.players == p)
        spec = RunSpec(game=run.spec.game, players=p, bots=run.spec.bots, games=PROBE_DEALS, seed=study.seed)
        try:
            columns[p] = run_games(spec, Backend())
        except Exception as e:  # an engine or bot error in a probe game: the caller says it in one line
            where = f"the probe games of arm {study.arms[0].name!r}, {p} players"
            raise RunFailed(e, 0, PROBE_DEALS, folder, cell=where) from e
    check_targets(study, source, game.family, columns, game)
    for i, t in enumerate(targets):  # a bot as the records name it (its canonical spec)
        if t.bot is not None:
            targets[i] = t.model_copy(update={"bot": canonical(t.bot, game.family)})
    full = games if games is not None else study.games
    if full > MAX_DEALS:
        where = f"--games {full}" if games is not None else f"{source}: games"
        raise StudyError(f"{where}: kbsim tune plays at most {MAX_DEALS:,} deals per setting (got {full:,})")
    deals = rung_deals(full, tune.rungs, tune.reduction)
    search = SearchSettings(
        trials=trials if trials is not None else tune.trials,
        sampler=tune.sampler,
        reduction=tune.reduction,
        search_seed=tune.search_seed,
        deals=deals,
    )
    identity = {
        "rules": rules_digest(loaded),
        "game": study.game,
        "arm": study.arms[0].model_dump(),
        "players": players,
        "seed": study.seed,
        "rotate": study.rotate_seats,
        "tune": tune.model_dump(mode="json", exclude={"trials", "verify", "skill"}),
        "deals": deals,
    }
    return TunePlan(
        study=study,
        source=source,
        space=space,
        objective=objective,
        search=search,
        folder=folder,
        storage=storage_path(folder, identity),
        rules_source=display_path(rule_file),
        family=game.family,
        defaults=dict(loaded.options),
    )


def run_tuning(
    plan: TunePlan,
    backend: Any,
    on_trial: Any = None,
    on_games: Any = None,
) -> TuneResult:
    """Search, choose and replay (see the module's docstring).

    Args:
        plan: from :func:`plan_tuning`.
        backend: from :func:`kbsim.sim.run.make_backend`; kept open (``session()``) for the whole tuning.
        on_trial: called as ``on_trial(row, finished)`` after each trial of the search.
        on_games: called with the games of each chunk played.

    Returns:
        :class:`TuneResult`.

    Raises:
        kbsim.sim.run.RunInterrupted: Ctrl-C or SIGTERM (the search and the finished chunks are kept).
        kbsim.sim.run.RunFailed, kbsim.sim.runner.BackendError: the backend failed.
        StudyError: the records folder cannot be written.
    """
    t0 = time.perf_counter()
    study, space, objective = plan.study, plan.space, plan.objective
    tune = study.tune
    assert tune is not None
    try:
        plan.folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StudyError(f"{plan.folder}: cannot create the folder: {e.strerror}") from None
    with backend.session():
        ev = Evaluator(
            study, plan.source, objective.player_counts, plan.folder / "records", backend, plan.usage_keys, on_games
        )
        rows = run_search(plan.storage, space, objective, ev, plan.search, plan.seed(0), on_trial)
        full = plan.search.deals[-1]
        choice = choose(rows, space, objective, ev, plan.search.blocks, Resamples(full, plan.seed(1)))
        default = space.default
        settings = [("default", default)]
        if space.key(choice.recommended) != space.key(default):
            settings.append(("recommended", choice.recommended))
        if choice.runner_up is not None:
            settings.append(("runner-up", choice.runner_up))
        search_stats = [ev.stats(s, plan.search.blocks) for _, s in settings]
        deals = deals_for_precision(
            tune.verify.precision,
            objective,
            search_stats,
            full,
            tune.verify.min_deals,
            tune.verify.max_deals,
            plan.seed(2),
        )
        verify = replay("verify", settings, deals, VERIFY, None, objective, ev, space, plan.seed(3))
        skill = None
        if tune.skill is not None and settings[1:2] and settings[1][0] == "recommended":
            pair = settings[:2]
            skill = replay("skill", pair, tune.skill.deals, SKILL, tune.skill.bots, objective, ev, space, plan.seed(4))
    return TuneResult(
        plan=plan,
        trials=rows,
        choice=choice,
        verify=verify,
        skill=skill,
        seconds=time.perf_counter() - t0,
        games_played=ev.games_played,
        runs_reused=ev.runs_reused,
    )
