"""Sequential halving on common worlds (kbsim.bots.halving), the core of the search bots."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbsim.bots.halving import halve, rounds_for


def test_rounds_are_the_ceiling_of_log2():
    assert [rounds_for(k) for k in (1, 2, 3, 4, 5, 8, 9, 16, 17)] == [0, 1, 2, 2, 3, 3, 4, 4, 5]


def test_one_candidate_is_chosen_without_scoring():
    calls = []
    r = halve(1, 100, lambda c, w: calls.append((c, w)) or 0.0)
    assert r.best == 0 and not calls and r.iterations == 0


@pytest.mark.parametrize(("candidates", "iterations"), [(0, 10), (3, 0)])
def test_bad_arguments_are_refused(candidates, iterations):
    with pytest.raises(ValueError):
        halve(candidates, iterations, lambda c, w: 0.0)


def test_the_best_candidate_wins_and_the_budget_is_kept():
    means = [0.5, 0.2, 0.9, 0.4, 0.6, 0.1]
    rng = random.Random(3)
    noise = [rng.gauss(0, 0.05) for _ in range(1000)]
    calls = []

    def pull(c: int, w: int) -> float:
        calls.append((c, w))
        return means[c] + noise[w]  # the same world shifts every candidate alike (common random numbers)

    r = halve(len(means), 120, pull)
    assert r.best == 2
    assert r.iterations == len(calls) <= 120
    assert r.iterations >= 120 - len(means) * rounds_for(len(means))


def test_every_candidate_in_a_round_sees_the_same_worlds():
    seen: dict[int, set[int]] = {}

    def pull(c: int, w: int) -> float:
        seen.setdefault(c, set()).add(w)
        return -c

    r = halve(5, 60, pull)
    assert r.best == 0
    # candidate 0 (the best, and the default) is scored in every world; the others in a prefix of them
    assert seen[0] == set(range(r.worlds))
    for c, worlds in seen.items():
        assert worlds == set(range(len(worlds))), c


def test_the_default_is_kept_unless_beaten_by_the_margin():
    means = [0.50, 0.52, 0.10]
    assert halve(3, 30, lambda c, w: means[c], margin=0.05).best == 0
    assert halve(3, 30, lambda c, w: means[c], margin=0.01).best == 1


def test_the_default_stays_to_the_end_even_when_it_ranks_low():
    counts: dict[int, int] = {}

    def pull(c: int, w: int) -> float:
        counts[c] = counts.get(c, 0) + 1
        return [0.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4][c]

    r = halve(8, 96, pull)
    assert r.best == 1
    assert counts[0] == counts[1] == max(counts.values())


@given(
    st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=12),
    st.integers(1, 300),
    st.floats(0, 0.5, allow_nan=False),
)
def test_the_choice_is_never_worse_than_the_default_by_its_own_measure(means, iterations, margin):
    r = halve(len(means), iterations, lambda c, w: means[c], margin=margin)
    assert means[r.best] >= means[0]
    if r.best != 0:
        assert means[r.best] - means[0] > margin - 1e-9  # (the mean of n equal differences, summed in floats)
    assert r.mean(r.best) == pytest.approx(means[r.best]) or r.counts[r.best] == 0
