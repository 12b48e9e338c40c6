"""Statistics a designer can trust: page-wide adjustment, exact paired tests, power, verdicts, calibration."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from kbsim.analysis import metrics as M
from kbsim.analysis.arms import compute
from kbsim.analysis.reading import ReportInput
from kbsim.analysis.tables import text_summary
from kbsim.sim.conditions import Condition


def _page(df: pl.DataFrame, arms: list[str]) -> dict:
    return compute(_input(df, arms))


def _input(df: pl.DataFrame, arms: list[str]) -> ReportInput:
    """A report input of ``arms`` (labels = keys), each compared with the first."""
    conds = [Condition(a, a, a) for a in arms]
    return ReportInput(
        title="t",
        name="t",
        question="",
        source="test",
        parameters=[],
        conditions=conds,
        comparisons=[(a, arms[0]) for a in arms[1:]],
        sweep=None,
        records=df,
    )


def _synthetic(rng: np.random.Generator, arms: list[str], players: list[int], deals: int) -> pl.DataFrame:
    """Records of arms that are the same rules under different labels: every arm draws from the same laws.

    A deal shares its luck across arms (a per-deal strength of seat 0 and a per-deal length), as real paired
    deals do; the arms' outcomes on a deal are independent draws given that luck.
    """
    frames = []
    for p in players:
        seeds = np.arange(deals)
        lean = rng.uniform(0.5, 2.0, size=deals)  # seat 0's weight on this deal
        length = rng.integers(20, 60, size=deals)
        for a in arms:
            w = np.ones((deals, p))
            w[:, 0] = lean
            u = rng.random(deals)[:, None]
            winner = (np.cumsum(w / w.sum(1, keepdims=True), 1) < u).sum(1)
            stale = rng.random(deals) < 0.03
            turns = length + rng.integers(0, 6, size=deals)
            frames.append(
                pl.DataFrame(
                    {
                        "condition": a,
                        "players": p,
                        "seed": seeds,
                        "game_index": seeds,
                        "bots": [["greedy"] * p] * deals,
                        "winners": [[] if s else [int(x)] for s, x in zip(stale, winner, strict=True)],
                        "end_reason": ["stalemate" if s else "won" for s in stale],
                        "turns": turns,
                    },
                    schema_overrides={"winners": pl.List(pl.Int8), "players": pl.Int8, "turns": pl.Int64},
                )
            )
    return pl.concat(frames)


def test_calibration_identical_arms_flag_at_most_5_percent_of_pages():
    """Two (here: four) arms that are the same rules under different labels: pages with any 'resolved' <= 5%.

    40 pages estimate the page-wise error rate with a binomial error of about 3.4 points, so the claim "at most 5%"
    is tested as such: the count of flagged pages must not be improbably high for a rate of 5% (exact binomial
    tail, p > 0.01: 7 or more of 40 fail). A true rate of 20% fails it with probability 0.71, 30% with 0.98.
    Checked at 200 pages (seed 1): 5 flagged (2.5%) with Tarone's exclusions, 1 without.
    """
    from scipy.stats import binom

    rng = np.random.default_rng(20261130)
    pages, flagged, raw_flags, tested, untestable = 40, 0, 0, 0, 0
    for _ in range(pages):
        st = _page(_synthetic(rng, ["base", "b", "c", "d"], [2, 4], 100), ["base", "b", "c", "d"])
        adj = st["adjustment"]
        tested += adj["comparisons"]
        untestable += adj["untestable"]
        flagged += adj["resolved"] > 0
        raw_flags += adj["resolved_raw"]
    # 3 comparisons x 2 player counts x 6 measures per page (5 per-game outcomes and the largest seat gap)
    assert tested + untestable == pages * 3 * 2 * 6
    # the turn-limit rate is 0 in every synthetic game: identical on every deal, left out of the family (Tarone)
    assert untestable >= pages * 3 * 2
    assert binom.sf(flagged - 1, pages, 0.05) > 0.01, f"{flagged} of {pages} pages flagged"
    assert raw_flags > 0  # without the adjustment, identical arms would be flagged


def test_holm_gives_statsmodels_numbers_to_the_last_bit_without_a_garbage_collection(monkeypatch):
    """:func:`metrics.holm` against ``multipletests(method="holm")``: random families (1 to 40 p-values), ties,
    products above 1 (capped), a nan; equal bit for bit. statsmodels runs ``gc.collect()`` on every call (a whole
    second per report page in a large test process); ours must not."""
    import gc

    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(7)
    families = [list(rng.random(int(rng.integers(1, 41))) ** 3) for _ in range(200)]
    families += [[0.01, 0.04, 0.03, 0.5], [0.02, 0.02, 0.02], [0.9, 0.6, 0.7], [0.003, float("nan"), 0.2], [0.5]]
    monkeypatch.setattr(gc, "collect", lambda *args: 0)  # the reference's collections would take seconds here
    expected = [[float(q) for q in multipletests(f, alpha=M.ALPHA, method="holm")[1]] for f in families]

    def no_collect(*args):
        raise AssertionError("gc.collect() called")

    monkeypatch.setattr(gc, "collect", no_collect)
    for f, want in zip(families, expected, strict=True):
        got = M.holm(f)
        assert len(got) == len(f)
        assert np.array_equal(np.array(got), np.array(want), equal_nan=True), (f, got, want)
        assert got == want or any(math.isnan(x) for x in f)
    ds = [M.Delta(0.1, 0.01, 0.2, 0.5, 100, p=p) for p in families[0]]
    assert [d.p_adj for d in M.adjust(ds)] == expected[0]


def test_holm_adjustment_shown_raw_and_adjusted():
    ds = [M.Delta(0.1, 0.01, 0.2, 0.5, 100, p=p) for p in (0.01, 0.04, 0.03, 0.5)]
    adj = M.adjust(ds)
    # Holm: sorted p 0.01, 0.03, 0.04, 0.5 -> 0.04, 0.09, 0.09, 0.5
    assert [round(d.p_adj, 4) for d in adj] == [0.04, 0.09, 0.09, 0.5]
    assert [d.resolved for d in adj] == [True, False, False, False]
    assert [d.resolved_raw for d in adj] == [True, True, True, False]


def test_exact_sign_test_for_few_discordant_deals():
    # 4 of 1,000 deals differ, all in the same direction: the normal interval excludes 0, the exact test does not
    d = np.zeros(1000)
    d[:4] = 1
    delta = M.paired(d, binary=True)
    assert delta.low > 0  # the t interval alone would call it resolved
    assert delta.test.startswith("exact sign test") and delta.discordant == 4
    assert delta.p == pytest.approx(0.125)
    assert not delta.resolved


def test_deals_needed_at_80_percent_power_and_omitted_near_zero():
    rng = np.random.default_rng(3)
    d = rng.normal(0.1, 1.0, size=400)
    d = d - d.mean() + 0.08  # mean 0.08, sd ~1: t ~ 1.6, not resolved
    delta = M.paired(d)
    assert not delta.resolved
    from statsmodels.stats.power import TTestPower

    want = TTestPower().solve_power(effect_size=0.08 / delta.sd, alpha=0.05, power=0.8)
    assert delta.deals_needed == int(np.ceil(want))
    # the 50%-power formula n = (1.96 sd / mean)^2 gives about half of that
    assert delta.deals_needed > 1.9 * (1.96 * delta.sd / 0.08) ** 2
    tiny = M.paired(d - d.mean() + 0.001)  # effect far inside its standard error
    assert tiny.deals_needed is None and "indistinguishable" in tiny.deals_needed_reason
    few = M.paired(d[:12] - d[:12].mean() + 0.6)  # a clear-looking effect on a quick look's 12 deals
    assert not few.resolved and few.deals_needed is None and "fewer than 20 deals" in few.deals_needed_reason


def test_zero_of_ten_thousand_shows_its_upper_bound():
    r = M.rate(0, 10_000)
    text = M.fmt_rate(r)
    assert r["high"] == pytest.approx(0.000384, abs=2e-6)
    assert "0.038%" in text and "0.0% - 0.0%" not in text and "[0.0%, 0.0%]" not in text


def test_verdict_words_and_ranking():
    fair = M.seat_balance([300, 200, 250, 250], 1000)
    v = fair["verdict"]
    assert v["largest"]["seat"] == 0 and v["largest"]["gap"] == pytest.approx(0.05)
    assert v["text"].startswith(
        "seat 0 wins alone 5.0 pp more often than a fair share (of the games someone won "
        "alone, it won 30.0% against a fair 25.0%;"
    )
    # chi-square = (50^2 + 50^2) / 250 = 20 on 3 degrees of freedom
    assert fair["test"]["test"] == "chi-square" and fair["test"]["p"] == pytest.approx(0.000170, rel=0.01)
    even = M.seat_balance([250, 251, 249, 250], 1000)
    ranked = M.rank_verdicts(
        [{"arm": "skewed", "players": 4, "verdict": v}, {"arm": "even", "players": 4, "verdict": even["verdict"]}]
    )
    assert [(c["arm"], c["rank"]) for c in ranked] == [("even", 1), ("skewed", 2)]
    tied = M.rank_verdicts(
        [
            {"arm": a, "players": 4, "verdict": x}
            for a, x in (("skewed", v), ("even", even["verdict"]), ("same", v), ("also", v))
        ]
    )
    assert [(c["arm"], c["rank"]) for c in tied] == [("even", 1), ("skewed", 2), ("same", 2), ("also", 2)]
    small = M.seat_balance([3, 0, 0], 3)
    assert small["test"]["test"] == "exact multinomial" and small["test"]["p"] == pytest.approx(3 / 27)


def test_equal_seat_gaps_go_to_the_lowest_seat_whatever_the_rounding():
    """Handed case (variants-search page): 114 of 200 games won alone by seat 0 at 2 players, so seat 0 is 7.0 pp
    above a fair share and seat 1 7.0 pp below; in floats 0.57 - 0.5 < |0.43 - 0.5|, and the page named seat 1
    -7.0 pp as the largest gap beside seat 0 +11.0 pp in the other arm. Equal gaps now go to the lowest seat."""
    for k, n in ((114, 200), (122, 200), (86, 200), (57, 100), (43, 100), (1, 3)):
        v = M.seat_balance([k, n - k], n)["verdict"]["largest"]
        assert v["seat"] == 0 and v["gap"] == pytest.approx(k / n - 0.5)
    three = M.seat_balance([40, 20, 30], 90)["verdict"]["largest"]  # 44.4% and 22.2% against 33.3%: a tie at 3
    assert three["seat"] == 0


def test_report_states_verdict_and_adjustment_in_text():
    rng = np.random.default_rng(5)
    st = _page(_synthetic(rng, ["base", "b"], [3], 200), ["base", "b"])
    assert {(v["condition"], v["players"]) for v in st["verdicts"]} == {("base", 3), ("b", 3)}
    conds = [Condition("base", "base", "base"), Condition("b", "b", "b")]
    inp = ReportInput(
        title="t",
        name="t",
        question="",
        source="test",
        parameters=[],
        conditions=conds,
        comparisons=[("b", "base")],
        sweep=None,
        records=_synthetic(rng, ["base", "b"], [3], 200),
    )
    st = compute(inp)
    lines = text_summary(inp, st)
    assert any(line.startswith("distance from fair") for line in lines)
    assert any("resolved after Holm's adjustment" in line for line in lines)
    # identical arms: nothing resolved, and the page says so before anyone reads the ranks
    nothing = any(line.startswith("NOTE: nothing on this page is resolved") for line in lines)
    assert nothing == (st["adjustment"]["resolved"] == 0)
    assert nothing  # (this seed's page resolves nothing, as it should between identical arms)
    resolved = dict(st["adjustment"], resolved=1)
    assert not any(line.startswith("NOTE: nothing") for line in text_summary(inp, dict(st, adjustment=resolved)))


# ------------------------------------------------------------------ summaries per game mode and readable pages
def test_run_summary_is_built_from_the_metrics_module():
    from kbsim.analysis.summary import Summary

    s = Summary()
    s.add(
        {
            "game_index": list(range(6)),
            "players": [3] * 6,
            "bots": [["greedy", "random", "greedy"]] * 6,
            "winners": [[0], [0], [0], [1], [2], [0, 1]],
            "end_reason": ["won"] * 6,
            "turns": [10] * 6,
        }
    )
    r = s.result()
    assert r["starts"].startswith("seat 0 plays first (assumed") and r["fair_share"] == pytest.approx(1 / 3)
    assert r["seat_balance"]["test"]["test"] == "exact multinomial"  # 5 wins over 3 seats: < 5 expected
    assert r["seat_balance"]["verdict"]["largest"]["seat"] == 0
    assert {b["bot"]: b["k"] for b in r["bot_shares"]} == {"greedy": 4, "random": 1}


def test_solo_summary_has_a_histogram_not_a_pair_per_score():
    from kbsim.analysis.summary import Summary

    s = Summary(1, 12)
    scores = list(range(-100, 20))  # 120 different scores
    s.add(
        {
            "game_index": list(range(120)),
            "players": [1] * 120,
            "winners": [[]] * 120,
            "end_reason": ["all_out"] * 120,
            "turns": [30] * 120,
            "score": scores,
        }
    )
    r = s.result()
    assert r["mode"] == "team" and r["fair_share"] is None
    assert len(r["score"]["histogram"]) <= 12 and sum(b["count"] for b in r["score"]["histogram"]) == 120
    assert r["score"]["won"]["count"] == 19 and r["score"]["expert"]["count"] == 8


def test_characters_page_ranks_with_display_names_and_small_figures(tmp_path):
    from kbsim.analysis.figures import build_figures

    rng = np.random.default_rng(9)
    keys = [f"c{i}" for i in range(10)]
    rows = []
    for arm in ("all", "without c0"):
        for p in (2, 3, 4, 5):
            for deal in range(40):
                plays = [
                    {"seat": int(rng.integers(p)), "character": k, "plays": 1}
                    for k in keys
                    if not (arm != "all" and k == "c0") and rng.random() < 0.5
                ]
                rows.append(
                    {
                        "condition": arm,
                        "players": p,
                        "seed": deal,
                        "game_index": deal,
                        "bots": ["greedy"] * p,
                        "winners": [int(rng.integers(p))],
                        "end_reason": "won",
                        "turns": 30,
                        "character_plays": plays,
                    }
                )
    df = pl.DataFrame(rows, schema_overrides={"winners": pl.List(pl.Int8), "players": pl.Int8})
    conds = [Condition("all", "all ten", "all ten"), Condition("without c0", "without c0", "without c0")]
    inp = ReportInput(
        title="t",
        name="t",
        question="",
        source="test",
        parameters=[],
        conditions=conds,
        comparisons=[("without c0", "all")],
        sweep=None,
        records=df,
        names={"characters": {k: f"Name {k.upper()}" for k in keys}},
    )
    st = compute(inp)
    ranking = st["characters"]["ranking"]
    assert len(ranking) == 40 and st["characters"]["base"] == "all"
    assert all(r["name"].startswith("Name C") for r in ranking)
    assert all(not np.isnan(r["p_adj"]) for r in ranking)
    for f in build_figures(inp, st):
        if f["section"].startswith("char-"):
            import json

            spec = json.loads(f["json"])
            assert sum(len(t["x"]) for t in spec["data"]) <= 40
            assert all("Name C" in x for t in spec["data"] for x in t["x"])
            for ax, lay in spec["layout"].items():
                if ax.startswith(("xaxis", "yaxis")) and ax in ("xaxis", "yaxis"):
                    assert lay.get("title", {}).get("text"), ax


def test_unused_arm_is_warned_at_the_top():
    rng = np.random.default_rng(2)
    df = _synthetic(rng, ["base"], [3], 50)
    df = pl.concat([df, df.with_columns(condition=pl.lit("same"))])
    conds = [Condition("base", "base", "base"), Condition("same", "same", "same", bots="greedy")]
    inp = ReportInput(
        title="t",
        name="t",
        question="",
        source="test",
        parameters=[],
        conditions=conds,
        comparisons=[("same", "base")],
        sweep=None,
        records=df,
    )
    st = compute(inp)
    assert st["unused"] == ["same"]
    lines = text_summary(inp, st)
    assert lines[0].startswith("WARNING: arm 'same' played exactly like its baseline") and "planner" in lines[0]


def test_bots_figure_lists_every_bot_in_its_legend():
    import json

    from kbsim.analysis.figures import build_figures

    rows = []
    for arm, lineup in (("gr", ["greedy", "random"]), ("gp", ["greedy", "planner"])):
        for deal in range(10):
            for r in range(2):
                rows.append(
                    {
                        "condition": arm,
                        "players": 2,
                        "seed": deal,
                        "game_index": deal,
                        "bots": lineup[r:] + lineup[:r],
                        "winners": [deal % 2],
                        "end_reason": "won",
                        "turns": 9,
                    }
                )
    df = pl.DataFrame(rows, schema_overrides={"winners": pl.List(pl.Int8), "players": pl.Int8})
    inp = ReportInput(
        title="t",
        name="t",
        question="",
        source="test",
        parameters=[],
        conditions=[Condition("gr", "gr", "gr"), Condition("gp", "gp", "gp")],
        comparisons=[],
        sweep=None,
        records=df,
    )
    fig = next(f for f in build_figures(inp, compute(inp)) if f["section"] == "bots")
    shown = {t["name"] for t in json.loads(fig["json"])["data"] if t.get("showlegend", True)}
    assert {"greedy", "random", "planner"} <= shown


def test_rate_bounds_at_zero_and_all_are_exact():
    """0/n has a lower bound of exactly 0 and n/n an upper bound of exactly 1 (no 1.1e-17% residue)."""
    assert M.rate(0, 2_000)["low"] == 0.0 and M.rate(2_000, 2_000)["high"] == 1.0
    assert "e-" not in M.fmt_rate(M.rate(0, 2_000))


def test_binary_paired_interval_stays_within_100_pp():
    """A paired difference of 0/1 outcomes never has an interval beyond +-100 pp, even at n = 3."""
    d = M.paired([1.0, 0.0, 0.0], binary=True)
    assert -1.0 <= d.low <= d.mean <= d.high <= 1.0


def test_untestable_comparisons_are_left_out_of_the_family():
    """Tarone's rule: identical arms, or an exact sign test over < 6 differing deals, can never give p < 0.05."""
    real = M.Delta(0.1, 0.01, 0.2, 0.5, 100, p=0.01, test="paired t")
    identical = M.Delta(0.0, 0.0, 0.0, 0.0, 100, p=1.0, test="paired t", discordant=0)
    few = M.Delta(0.05, -0.1, 0.2, 0.3, 100, p=0.0625, test="exact sign test (McNemar)", discordant=5)
    enough = M.Delta(0.06, -0.1, 0.2, 0.3, 100, p=0.03125, test="exact sign test (McNemar)", discordant=6)
    assert [d.testable for d in (real, identical, few, enough)] == [True, False, False, True]
    out = M.adjust([real, identical, few, enough])
    assert math.isnan(out[1].p_adj) and math.isnan(out[2].p_adj)
    # Holm over the two testable ones only: 0.01 * 2 = 0.02, max(0.03125 * 1, 0.02) = 0.03125
    assert out[0].p_adj == pytest.approx(0.02) and out[3].p_adj == pytest.approx(0.03125)
    assert out[0].resolved and out[3].resolved and not out[1].resolved and not out[2].resolved


# ------------------------------------------------------------------ which arm is fairer (largest seat gap)
def _deal_wins(rng, deals: int, weights, games_per_deal: int = 1) -> np.ndarray:
    """Games won alone per deal and seat: ``games_per_deal`` games per deal, the winner drawn with ``weights``."""
    p = len(weights)
    w = np.zeros((deals, p))
    for _ in range(games_per_deal):
        w[np.arange(deals), rng.choice(p, size=deals, p=np.asarray(weights) / np.sum(weights))] += 1
    return w


def test_largest_gap_is_the_verdicts_measure():
    wins = [30, 20, 25, 25]
    v = M.seat_balance(wins, 110)["verdict"]["largest"]
    assert M.largest_gap(np.array(wins)) == pytest.approx(abs(v["gap"]))
    assert M.largest_gap(np.array(wins)) == pytest.approx(0.05)
    assert np.isnan(M.largest_gap(np.zeros(3)))


def test_seat_gap_difference_identical_arms_is_left_out_of_the_family():
    a = _deal_wins(np.random.default_rng(0), 50, [1, 1, 1])
    d = M.paired_seat_gap(a, a.copy())
    assert d.identical and not d.testable and d.mean == 0


def test_seat_gap_difference_resolves_a_clear_effect_with_the_right_sign():
    rng = np.random.default_rng(1)
    fair = _deal_wins(rng, 1500, [1, 1, 1, 1])
    unfair = _deal_wins(rng, 1500, [2, 1, 1, 1])  # seat 0 wins 40%: gap 0.15
    d = M.paired_seat_gap(fair, unfair)  # B = unfair: further from fair, so B - A > 0
    assert d.mean > 0.1 and d.low > 0 and d.p < 0.001 and d.resolved
    assert d.low < 0.15 - M.largest_gap(fair.sum(0)) < d.high
    back = M.paired_seat_gap(unfair, fair)  # B = fair: closer to fair, negative
    assert back.mean == pytest.approx(-d.mean) and back.high < 0


def test_seat_gap_difference_is_deterministic_and_checks_shapes():
    rng = np.random.default_rng(2)
    a, b = _deal_wins(rng, 200, [1, 1]), _deal_wins(rng, 200, [1, 1])
    assert M.paired_seat_gap(a, b) == M.paired_seat_gap(a, b)
    with pytest.raises(ValueError, match="same"):
        M.paired_seat_gap(a, b[:10])


@pytest.mark.parametrize("deals, games", [(40, 1), (900, 1), (600, 3)])
def test_seat_gap_difference_does_not_depend_on_the_order_of_the_deals(deals, games):
    """The same deals in any order: the same p-value, interval and spread, to the last bit (issue 28: the order
    came from an unordered group_by, and the p-value, the bootstrap bound and 'deals needed' moved with it)."""
    rng = np.random.default_rng(deals)
    a, b = _deal_wins(rng, deals, [1.3, 1, 1], games), _deal_wins(rng, deals, [1, 1, 1], games)
    d = M.paired_seat_gap(a, b)
    assert d.test == M.SEAT_GAP_TEST and 0 < d.p <= 1 and d.low < d.high
    for k in range(3):
        order = np.random.default_rng(k).permutation(deals)
        assert M.paired_seat_gap(a[order], b[order]) == d


def test_seat_gap_permutation_p_is_exact_for_few_differing_deals():
    """Few differing deals: every swap pattern is enumerated. One deal in B moves a win from seat 1 to seat 0
    in 8 deals of 40: swapping any subset of them is as extreme only for none or all, p = 2 / 2**8."""
    a = np.tile([[0.0, 1.0]], (40, 1))
    a[::2] = [1.0, 0.0]  # A: 20 / 20, fair
    b = a.copy()
    b[1:16:2] = [1.0, 0.0]  # B: seat 0 wins 8 more deals
    d = M.paired_seat_gap(a, b)
    assert d.discordant == 8 and d.p == pytest.approx(2 / 2**8)


@pytest.mark.long
def test_seat_gap_permutation_test_is_calibrated_under_no_effect():
    """Arms that are the same game on every deal (the outcome a fresh draw): p < 0.05 in about 5% of studies.

    200 studies of 120 deals with rotations (4 games per deal); the count below 0.05 must not be improbably high
    for a rate of 5% (exact binomial tail, p > 0.01: 19 or more of 200 fail; 7 of 200 at this seed), and the
    p-values must not pile up near 1 either (an overly conservative test would never resolve anything: at least
    2 below 0.05).
    """
    from scipy.stats import binom

    rng = np.random.default_rng(20261201)
    small = 0
    for _ in range(200):
        lean = [1.3, 1, 1, 1]
        a, b = _deal_wins(rng, 120, lean, 4), _deal_wins(rng, 120, lean, 4)
        small += M.paired_seat_gap(a, b).p < 0.05
    assert binom.sf(small - 1, 200, 0.05) > 0.01, f"{small} of 200 below 0.05"
    assert small >= 2


def test_seat_gap_difference_on_too_few_differing_deals_is_left_out():
    """5 differing deals: swapping all of them mirrors the observation, so p >= 2 * 0.5**5 > 0.05 (Tarone)."""
    a = _deal_wins(np.random.default_rng(3), 400, [1, 1, 1])
    others = np.flatnonzero(a[:, 0] == 0)  # deals seat 0 did not win in A
    b = a.copy()
    b[others[:5]] = [1, 0, 0]  # seat 0 wins 5 more deals in B
    d = M.paired_seat_gap(a, b)
    assert d.discordant == 5 and not d.identical and not d.testable
    assert d.p >= 2 * 0.5**5
    b[others[5:12]] = [1, 0, 0]
    assert M.paired_seat_gap(a, b).testable


def test_answer_names_the_fairer_arm_only_where_resolved():
    """The page's answer: B clearly unfair (seat 0 wins 3 times as often) -> 'further from fair' at that player
    count; an arm identical to the baseline -> 'the same games on every deal', and no finding."""
    from kbsim.analysis.sections import build_page, section_tests

    rng = np.random.default_rng(7)
    deals, p = 600, 2
    seeds = np.arange(deals)
    fair = rng.integers(0, p, size=deals)
    unfair = np.where(rng.random(deals) < 0.75, 0, 1)

    def arm(name, winners):
        return pl.DataFrame(
            {
                "condition": name,
                "players": p,
                "seed": seeds,
                "game_index": seeds,
                "bots": [["greedy"] * p] * deals,
                "winners": [[int(w)] for w in winners],
                "end_reason": ["won"] * deals,
                "turns": rng.integers(20, 40, size=deals),
            },
            schema_overrides={"winners": pl.List(pl.Int8), "players": pl.Int8, "turns": pl.Int64},
        )

    inp = _input(pl.concat([arm("base", fair), arm("skewed", unfair), arm("same", fair)]), ["base", "skewed", "same"])
    st = compute(inp, section_tests())
    _, _, answer = build_page(inp, st)
    got = {b["title"]: " ".join(b["lines"]) for b in answer["blocks"]}
    skewed, same = got["skewed against base"], got["same against base"]
    assert "skewed is further from fair than base" in skewed and "2 players" in skewed
    assert "closer to fair" not in skewed
    assert "same games on every deal" in same and "fair than" not in same
    summary = text_summary(inp, st, answer)
    assert any(line.startswith("ANSWER, skewed against base") for line in summary)
    # every Answer line says something (the fairness block at one player count is a table and its headline)
    answers = [line for line in summary if line.startswith("ANSWER, ")]
    assert answers and all(line.split(": ", 1)[1].strip() for line in answers), answers
    assert any(line.startswith("ANSWER, How fair is each player count?: Base:") for line in answers), answers
    verdict_lines = [line for line in text_summary(inp, compute(inp)) if line.startswith("  2 players, #")]
    by_arm = {line.split(": ")[0].split(" ")[-1]: line for line in verdict_lines}
    assert by_arm["skewed"].endswith("; further from fair than base (resolved)")
    assert by_arm["same"].endswith("; same games as base on every deal")
    assert by_arm["base"].endswith("; baseline")
    from kbsim.analysis.tables import report_tables

    cell = next(r for r in report_tables(inp, compute(inp))["deltas"] if r["b"] == "skewed")["cells"]["seat_gap"]
    assert cell["resolved"] and cell["status"].startswith("resolved (p(adj)") and "raw" not in cell["status"]
    assert "raw" in cell["detail"] and M.SEAT_GAP_TEST in cell["detail"]  # the tooltip keeps the whole status


def test_a_difference_without_spread_is_not_resolved_on_two_deals():
    """Handed case (characters-search at -n 2): two deals with the same difference were flagged "resolved"
    (p = 0: a t test with no spread). Now the exact sign test: p = 2 x 0.5^n, so 2 deals give 0.5 and only six or
    more agreeing deals can resolve; such a comparison with fewer is left out of the Holm family."""
    two = M.paired([-0.5, -0.5])
    assert (two.mean, two.p, two.test) == (-0.5, 0.5, "exact sign test") and not two.resolved_raw
    assert not two.testable and not two.identical
    five, six = M.paired([1.0] * 5), M.paired([1.0] * 6)
    assert five.p == pytest.approx(0.0625) and not five.testable
    assert six.p == pytest.approx(0.03125) and six.testable and six.resolved_raw
    assert M.paired([0.0, 0.0]).identical and M.paired([0.0, 0.0]).p == 1.0
    assert M.paired([1.0, 1.0], binary=True).p == 0.5  # (0/1 outcomes: already the exact sign test)


def test_two_constant_samples_get_the_exact_permutation_p_not_zero():
    """Two constant samples (no spread for Welch's t): the exact permutation p of the labels, never 0."""
    d = M.unpaired_mean([3.0, 3.0], [1.0, 1.0])
    assert d.mean == 2.0 and d.p == pytest.approx(2 / 6) and d.test == "exact permutation"  # C(4, 2) labellings
    assert M.unpaired_mean([3.0] * 3, [1.0] * 2).p == pytest.approx(1 / 10)
    assert M.unpaired_mean([3.0] * 10, [1.0] * 10).p < 1e-4
    assert M.unpaired_mean([1.0, 1.0], [1.0, 1.0]).p == 1.0


def test_an_unresolved_first_seat_edge_names_where_it_is_resolved():
    """Handed case (bots page, search rung): "the first seat's edge is +3.2 to +11.4 pp, not resolved at every
    player count" read as "resolved nowhere" when it was resolved at 2, 4 and 5 players; now each count is named."""
    from kbsim.analysis.fairness import _edge_by_count

    firsts = [
        {"low": 0.02, "high": 0.12},  # 2 players: more
        {"low": -0.02, "high": 0.09},  # 3: not resolved
        {"low": 0.01, "high": 0.1},  # 4: more
        {"low": -0.2, "high": -0.01},  # 5: less
    ]
    assert _edge_by_count([2, 3, 4, 5], firsts) == (
        "more than its fair share at 2 and 4 players, not resolved at 3 players, less than its fair share at 5 players"
    )
    assert _edge_by_count([3], firsts[1:2]) == "not resolved at 3 players"


def test_an_interval_is_cut_at_what_the_difference_can_be():
    """Handed case (characters-search at -n 2): a character's value "+25.0 pp [-292.7 pp, +342.7 pp]": the t
    interval of a win-rate change on two deals reaches beyond +-100 pp; it is cut at the bounds given."""
    free = M.paired([0.5, 0.0])
    assert free.low < -1.0 and free.high > 1.0  # (the plain t interval on two deals)
    cut = M.paired([0.5, 0.0], bounds=(-1.0, 1.0))
    assert (cut.low, cut.high, cut.mean, cut.p) == (-1.0, 1.0, free.mean, free.p)
    assert M.paired([0.5, 0.0], binary=True).low == -1.0


def test_the_bots_headline_names_the_bot_and_an_edge_lost_to_the_adjustment():
    """Handed case (bots page at -n 5): "greedy and random are not separated: it wins 100.0% ... (+44.4 pp [+29.4,
    +59.5])": "it" named no bot, and the interval (unadjusted) excluded 0 while the verdict (adjusted) did not."""
    from kbsim.analysis.strength import _headline

    per_count = [{"share": 1.0, "fair": 0.5}, {"share": 1.0, "fair": 2 / 3}]
    d = M.Delta(0.444, 0.294, 0.595, 0.1, 5, p=0.01, test="paired t", p_adj=0.2)
    line = _headline("greedy and random are not separated", "greedy", per_count, d, "averaged over the counts")
    assert line.startswith("greedy and random are not separated: greedy wins 100.0% of the games won alone")
    assert line.endswith("averaged over the counts; not resolved after the adjustment for the page's many comparisons)")
    done = M.Delta(0.444, 0.294, 0.595, 0.1, 50, p=0.001, test="paired t", p_adj=0.004)
    assert "adjustment" not in _headline("greedy is stronger than random", "greedy", per_count, done, "x")
