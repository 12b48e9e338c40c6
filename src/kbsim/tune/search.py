"""The search: Optuna proposes settings, successive halving gives the promising ones more deals.

Why Optuna (and not Nevergrad): the search needs a sampler for mixed integer, float
and categorical options (Optuna's TPE, with its multivariate mode for options that act
together), *pruning* so that deals go to promising settings (its successive-halving
pruner), a storage that survives an interrupted run (a local SQLite file), and an
ask-and-tell loop so that kbsim plays the games through its own run path. Nevergrad's
noisy optimisers (e.g. its NTBEA-like ones) re-sample settings to average noise but have
neither pruning nor a persistent storage; with common random numbers the noise between
two settings on the same deals is small, which is what successive halving exploits.

How a search runs (:func:`run_search`):

* the rule file's setting (the default) is trial 0 and is always played to the end: it is
  the baseline every other setting is compared with;
* trial ``n`` is proposed by a sampler seeded from (``search_seed``, ``n``), so the
  proposals follow from the study and the trials before, never from a process's history;
  a proposal of a setting already tried is not played again nor counted as a trial (it
  is stored as failed, which the sampler ignores), and the sampler is asked again, at
  most :data:`MAX_ASKS` times per trial in all; after :data:`REPEATS_BEFORE_RANDOM`
  such proposals in a row (TPE has settled on a few settings) a random setting is proposed;
* each trial plays the first block of deals, reports its objective, and goes on to the
  next block only while Optuna's :class:`~optuna.pruners.SuccessiveHalvingPruner` keeps it
  among the best ``1/reduction`` of the trials that reached that rung; every trial plays
  the same blocks, so a rung's comparisons are paired;
* the study is stored in ``reports/_build/tune/NAME/search-HASH.sqlite3`` (HASH covers
  everything that decides the trials' values); running the same command again continues
  it, replaying the settings that were running when it was stopped (their finished
  chunks are read back, not played again).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna.trial import TrialState

from kbsim.tune.evaluate import SEARCH, Block, Evaluator, SettingRefused, blocks_for
from kbsim.tune.measures import Objective, Resamples
from kbsim.tune.space import SearchSpace

MAX_ASKS = 10  # proposals per trial asked for at most (a proposal of a setting already tried is asked again)
REPEATS_BEFORE_RANDOM = 3  # after this many proposals in a row of settings already tried, one random proposal

__all__ = ["SearchSettings", "TrialRow", "rung_deals", "run_search", "storage_path"]


def rung_deals(games: int, rungs: int, reduction: int) -> list[int]:
    """Deals played by a setting that reaches each rung: ``games / reduction^(rungs-1)``, ..., ``games``.

    Increasing; rungs that would round to the same number of deals are merged (at least 2 deals each).
    """
    out: list[int] = []
    for k in range(rungs):
        d = max(2, math.ceil(games / reduction ** (rungs - 1 - k)))
        if not out or d > out[-1]:
            out.append(d)
    if out[-1] != games:
        out[-1] = max(games, out[-2] + 1 if len(out) > 1 else games)
    return out


@dataclass(frozen=True)
class SearchSettings:
    """How the search runs (from the ``[tune]`` section and the command line)."""

    trials: int
    sampler: str
    reduction: int
    search_seed: int
    deals: list[int]  # cumulative deals per rung

    @property
    def blocks(self) -> list[Block]:
        """The search's blocks of deals, one per rung."""
        return blocks_for(SEARCH, self.deals)


@dataclass
class TrialRow:
    """One trial of the search, as the page shows it.

    Attributes:
        number: Optuna's trial number.
        setting: option -> value.
        state: ``complete``, ``pruned`` or ``refused`` (the rules refuse the combination).
        deals: deals it played.
        value: what the optimiser minimised at its last rung.
        objective: the objective at its last rung (nan when refused).
        violation: summed violation of the bounds (constraints; 0 otherwise).
        low, high: 95% bootstrap interval of the objective over its deals (complete trials).
        measures: ``"TARGET:PLAYERS"`` -> the measure's value at its last rung.
        baseline: the starting setting.
        note: why it was refused.
    """

    number: int
    setting: dict[str, Any]
    state: str
    deals: int = 0
    value: float = math.nan
    objective: float = math.nan
    violation: float = 0.0
    low: float = math.nan
    high: float = math.nan
    measures: dict[str, float] = field(default_factory=dict)
    baseline: bool = False
    note: str = ""


def storage_path(folder: Path, identity: dict[str, Any]) -> Path:
    """The SQLite file of the search whose trials ``identity`` decides (equal identities resume each other)."""
    h = hashlib.blake2b(json.dumps(identity, sort_keys=True, default=str).encode(), digest_size=6).hexdigest()
    return folder / f"search-{h}.sqlite3"


def _seed(base: int, n: int) -> int:
    return int.from_bytes(hashlib.blake2b(f"{base}:{n}".encode(), digest_size=4).digest(), "little")


def _sampler(kind: str, seed: int, trials: int) -> Any:
    if kind == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    with warnings.catch_warnings():  # multivariate TPE is marked experimental
        warnings.simplefilter("ignore")
        return optuna.samplers.TPESampler(
            seed=seed, multivariate=True, n_startup_trials=min(10, max(2, trials // 4)), warn_independent_sampling=False
        )


def _open(path: Path, reduction: int) -> Any:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path.parent.mkdir(parents=True, exist_ok=True)
    pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=reduction)
    return optuna.create_study(
        storage=f"sqlite:///{path}", study_name="kbsim-tune", direction="minimize", pruner=pruner, load_if_exists=True
    )


def _row(t: Any, space: SearchSpace) -> TrialRow | None:
    attrs = t.user_attrs
    if t.state == TrialState.COMPLETE:
        state = "complete"
    elif t.state == TrialState.PRUNED:
        state = "pruned"
    elif t.state == TrialState.FAIL and "refused" in attrs:
        state = "refused"
    else:
        return None
    last = attrs.get("last", {})
    return TrialRow(
        number=t.number,
        setting=space.from_params(t.params),
        state=state,
        deals=int(last.get("deals", 0)),
        value=float(last.get("value", math.nan)),
        objective=float(last.get("objective", math.nan)),
        violation=float(last.get("violation", 0.0)),
        low=float(attrs.get("low", math.nan)),
        high=float(attrs.get("high", math.nan)),
        measures=dict(last.get("measures", {})),
        baseline=bool(attrs.get("baseline", False)),
        note=str(attrs.get("refused", "")),
    )


def _finished(rows: list[TrialRow | None]) -> int:
    return sum(1 for r in rows if r is not None)


def run_search(
    storage: Path,
    space: SearchSpace,
    objective: Objective,
    evaluator: Evaluator,
    settings: SearchSettings,
    boot_seed: int,
    on_trial: Callable[[TrialRow, int], None] | None = None,
) -> list[TrialRow]:
    """Run (or continue) the search until ``settings.trials`` trials are finished.

    Args:
        storage: the SQLite file (:func:`storage_path`).
        space: the options searched.
        objective: the targets combined.
        evaluator: plays settings on the search's blocks.
        settings: trials, sampler, reduction, seed, deals per rung.
        boot_seed: seed of the bootstrap resamples behind a complete trial's interval.
        on_trial: called with each finished trial and the number finished so far.

    Returns:
        Every finished trial (complete, pruned, refused), by trial number.

    Raises:
        kbsim.sim.run.RunInterrupted: Ctrl-C or SIGTERM; finished trials and chunks are kept for a resume.
    """
    study = _open(storage, settings.reduction)
    dists = space.distributions()
    old = study.get_trials(deepcopy=False)
    for t in old:  # trials a stopped run left running: end them and play their settings again
        if t.state == TrialState.RUNNING:
            study.tell(t.number, state=TrialState.FAIL)
            study.enqueue_trial(t.params, user_attrs=dict(t.user_attrs))
    if not old:
        study.enqueue_trial(space.to_params(space.default), user_attrs={"baseline": True})
        size = space.size()
        kind = settings.sampler
        if kind == "auto":
            kind = "brute-force" if size is not None and size <= settings.trials else "tpe"
        if kind == "brute-force":
            rest = [s for s in space.settings() if s != space.default]
            random.Random(settings.search_seed).shuffle(rest)
            for s in rest:
                study.enqueue_trial(space.to_params(s))
        study.set_user_attr("sampler", kind)
    kind = study.user_attrs.get("sampler", "tpe")
    rows = [_row(t, space) for t in study.get_trials(deepcopy=False)]
    seen = {space.key(r.setting) for r in rows if r is not None}
    size = space.size()
    repeats = 0
    while _finished(rows) < settings.trials:
        trials = study.get_trials(deepcopy=False)
        waiting = any(t.state == TrialState.WAITING for t in trials)
        if not waiting and (kind == "brute-force" or (size is not None and len(seen) >= size)):
            break  # every setting tried
        if len(trials) >= MAX_ASKS * settings.trials:
            break  # the sampler keeps proposing settings already tried: the space is explored
        explore = kind == "random" or repeats >= REPEATS_BEFORE_RANDOM
        study.sampler = _sampler(
            "random" if explore else "tpe", _seed(settings.search_seed, len(trials)), settings.trials
        )
        trial = study.ask(dists)
        key = space.key(space.from_params(trial.params))
        if key in seen:  # a setting tried before: not played again, not counted, ignored by the sampler
            trial.set_user_attr("repeat", True)
            study.tell(trial, state=TrialState.FAIL)
            repeats += 1
            continue
        repeats = 0
        seen.add(key)
        row = _play(trial, space, objective, evaluator, settings, boot_seed)
        study.tell(trial, row.value if row.state == "complete" else None, state=_STATES[row.state])
        rows.append(row)
        if on_trial is not None:
            on_trial(row, _finished(rows))
    final = [_row(t, space) for t in study.get_trials(deepcopy=False)]
    return [r for r in final if r is not None]


_STATES = {"complete": TrialState.COMPLETE, "pruned": TrialState.PRUNED, "refused": TrialState.FAIL}


def _play(
    trial: Any,
    space: SearchSpace,
    objective: Objective,
    evaluator: Evaluator,
    settings: SearchSettings,
    boot_seed: int,
) -> TrialRow:
    """Play one trial rung by rung; its attributes record every rung."""
    setting = space.from_params(trial.params)
    baseline = bool(trial.user_attrs.get("baseline", False))
    blocks = settings.blocks
    row = TrialRow(number=trial.number, setting=setting, state="complete", baseline=baseline)
    for k, deals in enumerate(settings.deals):
        try:
            stats = evaluator.stats(setting, blocks[: k + 1])
        except SettingRefused as e:
            trial.set_user_attr("refused", str(e))
            row.state, row.note = "refused", str(e)
            return row
        res = objective.evaluate(stats)
        if math.isnan(float(res["value"])):
            why = "its objective cannot be measured on these deals (e.g. no game was won alone)"
            trial.set_user_attr("refused", why)
            row.state, row.note = "refused", why
            return row
        row.deals, row.value, row.objective = deals, float(res["value"]), float(res["objective"])
        row.violation = float(res["violation"])
        row.measures = {f"{i}:{p}": float(v) for (i, p), v in res["measures"].items()}
        last = {
            "deals": deals,
            "value": row.value,
            "objective": row.objective,
            "violation": row.violation,
            "measures": row.measures,
        }
        trial.set_user_attr("last", last)
        trial.set_user_attr(f"rung{k}", last)
        trial.report(row.value, step=settings.reduction**k)
        if k < len(settings.deals) - 1 and not baseline and trial.should_prune():
            row.state = "pruned"
            return row

    def resampled(w: np.ndarray) -> np.ndarray:
        return np.asarray(objective.evaluate(stats, w)["objective"], dtype=float)

    boot = Resamples(deals, boot_seed).map(resampled)
    lo, hi = (float(x) for x in np.nanpercentile(boot, [2.5, 97.5]))
    trial.set_user_attr("low", lo)
    trial.set_user_attr("high", hi)
    row.low, row.high = lo, hi
    return row
