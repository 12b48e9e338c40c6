"""Run until decided: group-sequential boundaries, repeated p-values under optional stopping, the CLI (issue 23)."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from conftest import run_cli
from kbsim.analysis.sequential import Looks, SequentialAnalysis, boundaries, run_until_decided, spent
from test_metrics import _input, _synthetic


def test_spending_is_the_lan_demets_obrien_fleming_function():
    from scipy import stats

    assert spent(0.0) == 0.0 and spent(1.0) == pytest.approx(0.05)
    for t in (0.1, 0.25, 0.5, 0.9):
        assert spent(t) == pytest.approx(2 * stats.norm.sf(stats.norm.isf(0.025) / math.sqrt(t)))
    assert boundaries([1.0]) == [pytest.approx(stats.norm.isf(0.025), abs=1e-3)]


def test_two_look_boundaries_spend_exactly_the_alpha_by_a_bivariate_normal():
    """Independent check of the recursion: P(|Z1| >= c1) = alpha(t1), P(|Z1| < c1, |Z2| < c2) = 1 - alpha(1).

    Z1, Z2 are the z statistics of one Brownian motion at t1 and 1: bivariate normal with correlation sqrt(t1).
    """
    from scipy import stats

    for t1 in (0.3, 0.5, 0.75):
        c1, c2 = boundaries([t1, 1.0])
        assert 2 * stats.norm.sf(c1) == pytest.approx(spent(t1), rel=1e-3)
        mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, math.sqrt(t1)], [math.sqrt(t1), 1]])
        inside = mvn.cdf([c1, c2]) - mvn.cdf([-c1, c2]) - mvn.cdf([c1, -c2]) + mvn.cdf([-c1, -c2])
        assert 1 - inside == pytest.approx(0.05, abs=5e-4)
        assert c1 > c2 > stats.norm.isf(0.025)  # little spent early, the last boundary just above 1.96


def _null_paths(rng: np.random.Generator, pages: int, comparisons: int, fractions: list[float]) -> np.ndarray:
    """z statistics at each look of independent comparisons with no effect: (pages, comparisons, looks)."""
    steps = np.diff([0.0, *fractions])
    walk = np.cumsum(rng.standard_normal((pages, comparisons, len(fractions))) * np.sqrt(steps), axis=2)
    return walk / np.sqrt(fractions)


def test_repeated_p_values_with_holm_keep_the_page_error_rate_under_optional_stopping():
    """Identical arms, deals stopped at the first look where anything is flagged (the most optimistic stopping):
    pages with any comparison resolved after Holm stay at <= 5%; naive fixed-sample p-values at each look do not.

    2,000 seeded pages of 4 comparisons and 6 looks; the binomial error of the rate is about 0.5 points.
    """
    from scipy.stats import binom, norm

    rng = np.random.default_rng(20261202)
    fractions = [1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0]
    looks = Looks.of(fractions)
    z = _null_paths(rng, 2000, 4, fractions)
    # Holm flags something on a page exactly when its smallest p-value is below 0.05 / (comparisons)
    repeated = np.array([[looks.repeated_p(path) for path in page] for page in z])
    flagged = int((repeated.min(axis=1) < 0.05 / 4).sum())
    naive = int(((2 * norm.sf(np.abs(z))).min(axis=(1, 2)) < 0.05 / 4).sum())
    assert binom.sf(flagged - 1, 2000, 0.05) > 0.01, f"{flagged} of 2000 pages flagged"
    assert flagged > 40  # the test is not vacuous: the rate is near, not far below, 5%
    assert naive / 2000 > 0.08  # peeking with fixed-sample p-values inflates the error: what the method prevents


def _look_from(frame: pl.DataFrame, arms: list[str]):
    def look(n: int):
        return _input(frame.filter(pl.col("seed") < n), arms)

    return look


def test_identical_arms_are_not_resolved_and_a_real_effect_stops_early():
    """End to end on records: identical laws reach the cap (or the margin) without a finding; arms whose first
    seat wins far more often are resolved at an early look, with the stopping rule on the page's input."""
    rng = np.random.default_rng(11)
    same = _synthetic(rng, ["base", "b"], [2], 800)
    inp, stats, stop = run_until_decided(_look_from(same, ["base", "b"]), 800, 200, margin=0.10, turns_margin=3.0)
    assert stats["adjustment"]["resolved"] == 0 and stop.resolved == 0
    assert stop.looks[-1] in (200, 400, 600, 800) and inp.stopping is stop
    if stop.decided:  # every comparison within the (wide) margin before the cap
        assert stop.equivalent > 0 and stop.open == 0
    else:
        assert stop.looks == [200, 400, 600, 800]

    skew = same.with_columns(
        winners=pl.when((pl.col("condition") == "b") & (pl.col("seed") % 3 != 0))
        .then(pl.lit([0], dtype=pl.List(pl.Int8)))
        .otherwise(pl.col("winners")),
        end_reason=pl.when((pl.col("condition") == "b") & (pl.col("seed") % 3 != 0))
        .then(pl.lit("won"))
        .otherwise(pl.col("end_reason")),
    )
    _, stats, stop = run_until_decided(_look_from(skew, ["base", "b"]), 800, 200, margin=0.10, turns_margin=3.0)
    first = [d for d in stats["deltas"] if d["metric"] == "seat0"]
    assert first and first[0]["delta"].resolved
    assert stop.looks[0] == 200
    sentence = stop.sentence
    assert "Lan-DeMets O'Brien-Fleming" in sentence and f"{stop.looks[-1]:,} deals per cell" in sentence


def test_sequential_analysis_widens_intervals_to_repeated_ones():
    rng = np.random.default_rng(5)
    frame = _synthetic(rng, ["base", "b"], [2], 300)
    from kbsim.analysis.arms import compute

    seq = SequentialAnalysis(cap=300, batch=100)
    fixed = compute(_input(frame.filter(pl.col("seed") < 100), ["base", "b"]))
    seq.add(100, fixed)
    widths = {d["metric"]: d["delta"].high - d["delta"].low for d in fixed["deltas"]}
    seq.apply(fixed)
    for d in fixed["deltas"]:
        w = d["delta"].high - d["delta"].low
        if not math.isnan(widths[d["metric"]]) and widths[d["metric"]] > 0:
            assert w > widths[d["metric"]]  # the first look's boundary (about 3.5) is far above 1.96


def test_cli_until_decided_plays_in_looks_and_says_so(tmp_path):
    (tmp_path / "s.toml").write_text(
        'name = "s"\nplayers = [2]\ngames = 40\nseed = 9\n[until_decided]\nbatch = 20\nmargin = 50\n'
        'turns_margin = 100\nchanges_margin = 100\n[[arms]]\nname = "base"\n[[arms]]\nname = "hand 7"\n'
        "options = { hand_size = 7 }\n",
        encoding="utf-8",
    )
    out = run_cli("report", "s.toml", "--workers", "1", "--json", "-o", "p.html", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    stopping = info["stopping"]
    # looks of 20 deals up to the cap of 40; with margins this wide nothing stays open at the last look
    assert stopping["looks"] in ([20], [20, 40]) and stopping["decided"] and stopping["open"] == 0
    n = stopping["looks"][-1]
    assert info["games_played"] == 2 * n  # two arms, one player count: only the looks' deals were played
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    looks = len(stopping["looks"])
    assert (
        f"Played until decided: {n} deals per cell after {looks} look{'s' if looks > 1 else ''} of 20 (cap 40)" in page
    )
    again = run_cli("report", "s.toml", "--workers", "1", "--json", "-o", "p.html", "--force", cwd=tmp_path)
    assert again.returncode == 0 and json.loads(again.stdout)["games_played"] == 0
    # a study without the table, run until decided from the command line: the default batch (50) and margins
    (tmp_path / "t.toml").write_text(
        (tmp_path / "s.toml")
        .read_text(encoding="utf-8")
        .replace("[until_decided]\nbatch = 20\nmargin = 50\nturns_margin = 100\nchanges_margin = 100\n", "")
        .replace('"s"', '"t"'),
        encoding="utf-8",
    )
    cli = run_cli(
        "report", "t.toml", "--until-decided", "-n", "60", "--workers", "1", "--json", "-o", "q.html", cwd=tmp_path
    )
    assert cli.returncode == 0, cli.stderr
    looks = json.loads(cli.stdout)["stopping"]["looks"]
    assert looks in ([50], [50, 60])
