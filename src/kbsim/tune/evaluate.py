"""Playing a setting: blocks of deals run as ordinary study cells through the one run path.

A setting (option -> value) is played on **blocks** of deals. Block ``b`` of phase ``p``
(0 the search, 1 the replay on fresh deals, 2 the skill check) is a run seed of its own,
:func:`kbsim.engine.seeds.tune_seed`, so every setting meets the same deals in the same
block (common random numbers), a setting that goes on to more deals only plays the
blocks it has not played yet, and the replay's deals were never seen by the search.

Each (setting, block) is a one-arm study planned by :func:`kbsim.sim.study.plan_study`
and played by :func:`kbsim.sim.study.run_study` on the backend kept open for the whole
tuning (a pool of processes, or Dask). Its records go to the tuning's records folder,
named by a hash of everything that decides them: a second ``kbsim tune`` (or an
interrupted one, run again) reads them back instead of playing them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbsim.engine.seeds import tune_seed
from kbsim.sim.study import Study, StudyError, plan_study, run_study, study_from_dict
from kbsim.tune.measures import DealStats, deal_stats

__all__ = ["SEARCH", "SKILL", "VERIFY", "Block", "Evaluator", "SettingRefused", "blocks_for"]

SEARCH, VERIFY, SKILL = 0, 1, 2  # phases (the second element of a block's spawn key)


class SettingRefused(Exception):
    """A setting the rules refuse (each value alone was accepted, the combination is not)."""


@dataclass(frozen=True)
class Block:
    """A block of deals: ``deals`` deals from the run seed ``tune_seed(study seed, phase, index)``."""

    phase: int
    index: int
    deals: int

    def seed(self, study_seed: int) -> int:
        """The block's run seed."""
        return tune_seed(study_seed, self.phase, self.index)


def blocks_for(phase: int, cumulative: list[int]) -> list[Block]:
    """Blocks whose deals add up to each of ``cumulative`` (increasing deal counts) in turn."""
    out, before = [], 0
    for i, c in enumerate(cumulative):
        out.append(Block(phase, i, c - before))
        before = c
    return out


class Evaluator:
    """Plays settings on blocks of deals and reads their per-deal statistics.

    Args:
        study: the tune study (its game, one arm, player counts, seed, seat rotation).
        source: the study file (named in messages).
        players: the player counts to play (those the targets measure).
        records_dir: where the records go.
        backend: a backend from :func:`kbsim.sim.run.make_backend` (kept open by the caller's ``session()``).
        usage_keys: ``character:KEY`` / ``rule:KEY`` the targets count.
        on_games: called with the games played by each finished chunk.
    """

    def __init__(
        self,
        study: Study,
        source: Path,
        players: list[int],
        records_dir: Path,
        backend: Any,
        usage_keys: tuple[str, ...] = (),
        on_games: Callable[[int], None] | None = None,
    ):
        self.study = study
        self.source = source
        self.players = players
        self.records_dir = records_dir
        self.backend = backend
        self.usage_keys = usage_keys
        self.on_games = on_games
        self.games_played = 0
        self.runs_reused = 0
        self._cache: dict[tuple[str, str, Block], dict[int, DealStats]] = {}

    def _lineup(self, bots: str | list[str] | None) -> str | list[str]:
        return self.study.arms[0].bots if bots is None else bots

    def _block(self, setting: dict[str, Any], block: Block, bots: str | list[str] | None) -> dict[int, DealStats]:
        lineup = self._lineup(bots)
        key = (json.dumps(setting, sort_keys=True), json.dumps(lineup), block)
        if key in self._cache:
            return self._cache[key]
        arm = self.study.arms[0]
        label = hashlib.blake2b(key[0].encode(), digest_size=5).hexdigest()
        doc = {
            "name": f"{self.study.name}-p{block.phase}b{block.index}",
            "game": self.study.game,
            "players": self.players,
            "games": block.deals,
            "seed": block.seed(self.study.seed),
            "rotate_seats": self.study.rotate_seats,
            "arms": [
                {"name": f"s-{label}", "variants": arm.variants, "options": arm.options | setting, "bots": lineup}
            ],
        }
        try:
            plan = plan_study(study_from_dict(doc, self.source), records_dir=self.records_dir)
        except StudyError as e:
            raise SettingRefused(e.one_line()) from None
        seen = 0

        def progress(done: int, total: int) -> None:
            nonlocal seen
            if self.on_games is not None and done > seen:
                self.on_games(done - seen)
            seen = done

        stats = run_study(plan, backend=self.backend, progress=progress)
        self.games_played += stats.games_played
        self.runs_reused += stats.reused
        out = {}
        for p in self.players:
            paths = [r.path for r in plan.runs if r.players == p]
            out[p] = deal_stats(paths, p, self.usage_keys)
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[key] = out
        return out

    def stats(
        self, setting: dict[str, Any], blocks: list[Block], bots: str | list[str] | None = None
    ) -> dict[int, DealStats]:
        """Play ``setting`` on ``blocks`` (what is not on disk yet) and return its deals, block after block.

        Args:
            setting: option -> value (merged over the arm's own options).
            blocks: the blocks, in order.
            bots: the lineup (default: the study's arm).

        Returns:
            player count -> :class:`DealStats` of every deal of the blocks.

        Raises:
            SettingRefused: the rules refuse the setting (a combination of values each allowed alone).
            kbsim.sim.run.RunInterrupted: Ctrl-C or SIGTERM (finished chunks are kept).
        """
        parts = [self._block(setting, b, bots) for b in blocks]
        return {p: DealStats.concat([part[p] for part in parts]) for p in self.players}
