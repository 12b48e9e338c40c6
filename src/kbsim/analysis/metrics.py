"""The one metrics module: rates, seat balance, verdicts, paired and unpaired tests, page-wide adjustment.

Used by the terminal summary of ``kbsim run`` (:mod:`kbsim.analysis.summary`) and by
the report page (:mod:`kbsim.analysis.report`), so both show the same numbers.
Intervals, tests and the multiple-comparison adjustment come from statsmodels and
scipy; what is specific to card games (pairing by deal, the fair share of a seat,
seat rotation) is ours.

* A **rate** is ``k`` of ``n`` with its 95% Wilson score interval
  (:func:`statsmodels.stats.proportion.proportion_confint`); 0 of 10,000 shows its
  real upper bound (0.04%), never "0.0% - 0.0%" (:func:`fmt_rate`).
* **Seat balance** of one arm and player count: each seat's share of the games won
  alone against the fair share 1/P, a seat-equality test (Pearson's chi-square on the
  games won alone, :func:`scipy.stats.chisquare`; the exact multinomial test when
  fewer than 5 games per seat are expected) and a **verdict**: the largest gap between
  a seat's share and 1/P (with the seat's Wilson interval shifted by 1/P), the
  first-player advantage, and both in words.
* A **paired difference** (B - A on the same deals) has a t interval
  (:class:`statsmodels.stats.weightstats.DescrStatsW`) and a p-value: the exact sign
  test (exact McNemar, :func:`scipy.stats.binomtest`) for a 0/1 outcome with fewer
  than :data:`EXACT_BELOW` discordant deals, the one-sample t test otherwise.
* **Which arm is fairer** (the verdict's measure, the largest seat gap, B - A on the same deals):
  a paired permutation test and a percentile bootstrap interval over deals
  (:func:`paired_seat_gap`); negative means B is closer to fair.
* An **unpaired difference** (two runs without common deals) is Newcombe's hybrid
  score interval with the score test for two independent proportions
  (:func:`statsmodels.stats.proportion.confint_proportions_2indep`,
  :func:`~statsmodels.stats.proportion.test_proportions_2indep`), or Welch's t test
  for a mean (:func:`scipy.stats.ttest_ind` with ``equal_var=False``).
* **Across a page** the p-values are adjusted with Holm's step-down method
  (:func:`holm`, the numbers of :func:`statsmodels.stats.multitest.multipletests`), which keeps the chance that
  any comparison between identical arms is flagged at or below 5%. A difference is
  *resolved* when its adjusted p-value is below 0.05. A comparison that no outcome
  could resolve even unadjusted -- identical on every deal, or an exact sign test
  over fewer than :data:`MIN_DISCORDANT` differing deals (its smallest possible
  p-value, ``2 * 0.5**k``, is above 0.05) -- is left out of the family (Tarone's
  rule, *Biometrics* 46, 1990): it can never be flagged, so counting it would only
  make the real comparisons look less certain.
* **Deals needed** is the number of deals at which a new paired study would resolve the
  observed effect with 80% power at alpha 0.05 (:class:`statsmodels.stats.power.TTestPower`);
  it is omitted when the observed effect is smaller than its standard error
  (indistinguishable from 0: any number would be noise) and below :data:`MIN_DEALS_FOR_POWER`
  deals (a quick look's effect sizes are noise too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

ALPHA = 0.05
POWER = 0.8
EXACT_BELOW = 100  # discordant deals below which a 0/1 paired outcome uses the exact sign test
MIN_DEALS_FOR_POWER = 20  # fewer deals give no deal count: the effect's size and spread are not yet estimated
MIN_DISCORDANT = 6  # fewest differing deals with which an exact sign test can reach p < 0.05 (2 * 0.5**6 = 0.031)
ADJUSTMENT = "holm"
SEAT_GAP_TEST = "paired permutation"  # the test of a largest-seat-gap difference (paired_seat_gap)
ADJUSTMENT_NAME = "Holm"
NAN = float("nan")
Z95 = 1.959963984540054  # two-sided 95% normal quantile (interval of a mean turn count)


def _isnan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


# ------------------------------------------------------------------ rates
def wilson(k: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of ``k`` successes in ``n`` trials; (0, 1) when n is 0.

    Raises:
        ValueError: k outside [0, n].
    """
    from statsmodels.stats.proportion import proportion_confint

    if not 0 <= k <= n:
        raise ValueError(f"successes must be in [0, {n}], got {k}")
    if n == 0:
        return 0.0, 1.0
    lo, hi = proportion_confint(int(k), int(n), alpha=ALPHA, method="wilson")
    # the bound at an observed 0 (or n) is exactly 0 (or 1): no floating-point residue such as 1.1e-17
    return (0.0 if k == 0 else max(0.0, float(lo))), (1.0 if k == n else min(1.0, float(hi)))


def rate(k: int, n: int) -> dict:
    """A rate: ``{"k", "n", "rate", "low", "high"}`` (rate nan when n is 0; interval Wilson 95%)."""
    lo, hi = wilson(int(k), int(n))
    return {"k": int(k), "n": int(n), "rate": k / n if n else NAN, "low": lo, "high": hi}


def fmt_pct(x: float | None, digits: int = 1) -> str:
    """A share as a percentage; small nonzero values keep two significant digits (0.038% not 0.0%)."""
    if _isnan(x):
        return "–"
    v = 100 * x
    if v != 0 and abs(v) < 10**-digits * 5:
        return f"{v:.2g}%"
    return f"{v:.{digits}f}%"


def fmt_sig(x: float | None, digits: int = 3) -> str:
    """A measured quantity (a speed, a time) to ``digits`` significant figures, grouped, never in e-notation.

    ``1538.7`` reads ``1,540``, ``15.94`` reads ``15.9``, ``0.01234`` reads ``0.0123``; nan or None ``–``.
    """
    if _isnan(x):
        return "–"
    v = float(f"{float(x):.{digits}g}")  # type: ignore[arg-type] # rounded to the significant figures
    if v == 0 or not math.isfinite(v):
        return f"{v:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    return f"{v:,.{decimals}f}"


def fmt_rate(r: dict, digits: int = 1, n: bool = True) -> str:
    """``"12.3% [10.1%, 14.8%]"`` plus ``" (k/n)"``; a 0/10,000 rate reads ``"0% [0%, 0.038%] (0/10,000)"``."""
    if not r or r.get("n", 0) == 0:
        return "– (no games)"
    text = f"{fmt_pct(r['rate'], digits)} [{fmt_pct(r['low'], digits)}, {fmt_pct(r['high'], digits)}]"
    return text + (f" ({r['k']:,}/{r['n']:,})" if n else "")


# ------------------------------------------------------------------ seats and verdict
def seat_test(wins: Sequence[int]) -> dict:
    """Test that every seat wins alone equally often.

    Args:
        wins: games won alone by each seat (length P >= 2).

    Returns:
        ``{"test": name, "statistic", "p", "n"}``: Pearson's chi-square goodness of fit to 1/P
        (:func:`scipy.stats.chisquare`), or, when fewer than 5 wins per seat are expected, the exact
        multinomial test (sum of the probabilities of all outcomes no more likely than the one seen,
        enumerated; only for small counts). p is nan with fewer than 2 seats or no wins.
    """
    from scipy import stats

    w = [int(x) for x in wins]
    total, p_seats = sum(w), len(w)
    if p_seats < 2 or total == 0:
        return {"test": "none", "statistic": NAN, "p": NAN, "n": total}
    if total / p_seats >= 5:
        res = stats.chisquare(w)
        return {"test": "chi-square", "statistic": float(res.statistic), "p": float(res.pvalue), "n": total}
    return {"test": "exact multinomial", "statistic": NAN, "p": _exact_multinomial(w), "n": total}


def _exact_multinomial(w: list[int]) -> float:
    """P(an outcome no more likely than ``w``) under equal seats: every composition of ``sum(w)`` enumerated at once.

    Only called for small counts (fewer than 5 wins expected per seat, so at most ``5 * P`` compositions' total):
    the compositions are the stars-and-bars placements of ``P - 1`` bars, their log probabilities computed in one
    vectorised pass (``scipy.special.gammaln``), summed in a fixed order.
    """
    from itertools import combinations

    from scipy.special import gammaln

    total, k = sum(w), len(w)
    slots = total + k - 1
    bars = np.array(list(combinations(range(slots), k - 1)), dtype=np.int64).reshape(-1, k - 1)
    edges = np.hstack([np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), slots)])
    parts = np.diff(edges, axis=1) - 1  # every composition of total into k parts, one per row
    const = float(gammaln(total + 1)) - total * math.log(k)
    logp = const - gammaln(parts + 1).sum(axis=1)
    seen = const - float(gammaln(np.asarray(w, dtype=float) + 1).sum())
    p = float(np.exp(logp[logp <= seen + math.log1p(1e-9)]).sum())
    return min(1.0, p)


def seat_balance(wins: Sequence[int], games: int, first: int = 0) -> dict:
    """Seat shares of the games won alone, the seat-equality test and the verdict of one cell.

    Args:
        wins: games won alone by each seat, seat 0 first, length P.
        games: all games of the cell (games with a shared win or no winner included).
        first: the seat that plays first (:func:`kbsim.analysis.seats.first_seat`).

    Returns:
        ``players``, ``fair`` (1/P), ``decided`` (games won alone), ``shares`` (per seat a rate dict of
        its share of the games won alone), ``test`` (:func:`seat_test`), ``verdict`` with
        ``largest`` (``seat``, ``gap`` = share - 1/P, ``low``/``high`` its 95% interval), ``first``
        (the same for seat ``first``: the first-player advantage), ``text`` (the largest gap in words) and
        ``first_text``. Gaps are nan when no game was won alone.
    """
    p = len(wins)
    decided = int(sum(wins))
    fair = 1 / p if p else NAN
    shares = [rate(int(k), decided) for k in wins]

    def gap(s: int) -> dict:
        r = shares[s]
        if decided == 0:
            return {"seat": s, "gap": NAN, "low": NAN, "high": NAN}
        return {"seat": s, "gap": r["rate"] - fair, "low": r["low"] - fair, "high": r["high"] - fair}

    verdict: dict = {"fair": fair, "decided": decided}
    if p >= 2 and decided:
        # compared exactly, in whole games (|P k_s - decided| is P x decided x the gap): equal gaps (always so at 2
        # players) go to the lowest seat, never to whichever float rounding made a hair larger
        largest = max(range(p), key=lambda s: (abs(p * int(wins[s]) - decided), -s))
        verdict["largest"] = gap(largest)
        verdict["first"] = gap(first)
        verdict["text"] = gap_words(verdict["largest"], fair)
        verdict["first_text"] = gap_words(verdict["first"], fair)
    else:
        verdict["largest"] = {"seat": 0, "gap": NAN, "low": NAN, "high": NAN}
        verdict["first"] = {"seat": first, "gap": NAN, "low": NAN, "high": NAN}
        verdict["text"] = verdict["first_text"] = "one seat: no seat balance" if p < 2 else "no game was won alone"
    return {
        "players": p,
        "fair": fair,
        "decided": decided,
        "games": int(games),
        "shares": shares,
        "test": seat_test(wins),
        "verdict": verdict,
    }


def gap_words(g: dict, fair: float) -> str:
    """The verdict of one seat gap in words, e.g. ``"seat 0 wins alone 6.0 pp more often than a fair share ..."``.

    The share is of the games won alone (games with a shared win or no winner are left out), which is
    why it can differ from a seat's win rate over all games; the words say so.
    """
    if _isnan(g.get("gap")):
        return "no game was won alone"
    pp = 100 * g["gap"]
    ci = f"[{100 * g['low']:+.1f}, {100 * g['high']:+.1f} pp]"
    settled = g["low"] > 0 or g["high"] < 0
    if abs(pp) < 0.05:
        how = "as often as"
    else:
        how = f"{abs(pp):.1f} pp {'more' if pp > 0 else 'less'} often than"
    tail = "" if settled else "; the interval includes a fair share"
    share = fmt_pct(fair + g["gap"])
    return (
        f"seat {g['seat']} wins alone {how} a fair share (of the games someone won alone, it won {share} "
        f"against a fair {fmt_pct(fair)}; the seat table counts all games) {ci}{tail}"
    )


def rank_verdicts(cells: list[dict]) -> list[dict]:
    """Rank arms per player count by distance from fair (the absolute largest gap, smallest first).

    Args:
        cells: dicts with ``arm``, ``players`` and ``verdict`` (from :func:`seat_balance`).

    Returns:
        The same dicts, each with ``rank`` (1 = closest to fair within its player count), sorted by
        players then rank. Arms at the same distance share a rank (competition ranking: 1, 2, 2, 4), so arms
        that played identically are not ordered by chance. Cells without a gap (nan) come last and get rank None.
    """
    out = []
    for p in sorted({c["players"] for c in cells}):
        group = [c for c in cells if c["players"] == p]
        key = [
            (math.inf if _isnan(c["verdict"]["largest"]["gap"]) else abs(c["verdict"]["largest"]["gap"]), i)
            for i, c in enumerate(group)
        ]
        last, rank = None, 0
        for pos, (dist, i) in enumerate(sorted(key), start=1):
            if last is None or not math.isclose(dist, last, rel_tol=1e-9, abs_tol=1e-12):
                rank, last = pos, dist
            out.append(group[i] | {"rank": None if math.isinf(dist) else rank})
    return out


# ------------------------------------------------------------------ differences
@dataclass(frozen=True)
class Delta:
    """A difference B - A with its 95% interval and tests.

    Attributes:
        mean: the difference (nan when nothing to compare).
        low, high: 95% interval (nan when not computable).
        sd: standard deviation of the per-deal differences (paired) or nan (unpaired).
        n: paired deals, or the smaller sample of an unpaired comparison.
        p: raw two-sided p-value (nan when not computable).
        p_adj: p-value adjusted for the comparisons of the page (nan until :func:`adjust` is applied).
        test: the test used (``paired t``, ``exact sign test (McNemar)``, ``Newcombe / score``, ``Welch t``).
        paired: True when measured on common deals.
        discordant: deals on which the arms differ (paired 0/1 outcomes), else None.
        n_a, n_b: sample sizes of the two arms (unpaired), else None.
    """

    mean: float
    low: float
    high: float
    sd: float
    n: int
    p: float = NAN
    p_adj: float = NAN
    test: str = ""
    paired: bool = True
    discordant: int | None = None
    n_a: int | None = None
    n_b: int | None = None

    @property
    def resolved(self) -> bool:
        """True when the page-adjusted p-value is below 0.05 (the raw one when no adjustment was made)."""
        p = self.p if _isnan(self.p_adj) else self.p_adj
        return not _isnan(p) and p < ALPHA

    @property
    def resolved_raw(self) -> bool:
        """True when the raw p-value is below 0.05."""
        return not _isnan(self.p) and self.p < ALPHA

    @property
    def identical(self) -> bool:
        """True when the two arms gave the same outcome on every common deal."""
        return self.paired and self.n >= 2 and self.sd == 0 and self.mean == 0

    @property
    def testable(self) -> bool:
        """False when no outcome of this comparison could give p < 0.05 (so it is left out of the page's family).

        That is a comparison without a p-value, one identical on every deal, or an exact sign test or a seat-gap
        permutation test over fewer than :data:`MIN_DISCORDANT` differing deals (Tarone's rule for discrete tests:
        swapping all ``k`` differing deals mirrors the observation, so neither test can go below ``2 * 0.5**k``).
        """
        if _isnan(self.p) or self.identical:
            return False
        discrete = self.test.startswith("exact sign") or self.test == SEAT_GAP_TEST
        return not (discrete and (self.discordant or 0) < MIN_DISCORDANT)

    @property
    def deals_needed(self) -> int | None:
        """Deals for 80% power (paired, alpha 0.05) at the observed effect; None when not meaningful."""
        return deals_needed(self)

    @property
    def deals_needed_reason(self) -> str:
        """Why :attr:`deals_needed` is None ("" when it is not)."""
        return deals_needed_reason(self)

    def as_dict(self) -> dict:
        """JSON-able form (nan becomes None)."""

        def clean(v):
            return None if _isnan(v) else v

        return {
            "mean": clean(self.mean),
            "low": clean(self.low),
            "high": clean(self.high),
            "sd": clean(self.sd),
            "n": self.n,
            "p": clean(self.p),
            "p_adjusted": clean(self.p_adj),
            "adjustment": ADJUSTMENT_NAME,
            "test": self.test,
            "paired": self.paired,
            "discordant": self.discordant,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "resolved": self.resolved,
            "resolved_raw": self.resolved_raw,
            "deals_needed_80": self.deals_needed,
            "deals_needed_note": self.deals_needed_reason or None,
        }


def _se(d: Delta) -> float:
    if d.paired:
        return d.sd / math.sqrt(d.n) if d.n >= 2 and not _isnan(d.sd) else NAN
    return (d.high - d.low) / (2 * 1.959963984540054) if not _isnan(d.low) else NAN


def deals_needed_reason(d: Delta) -> str:
    """Why no deal count is given for ``d``: "" when one is."""
    if d.n < 2 or _isnan(d.mean):
        return "too few deals"
    if d.n < MIN_DEALS_FOR_POWER and not d.identical and not d.resolved:
        return f"fewer than {MIN_DEALS_FOR_POWER} deals: the effect's size and spread are not estimated well enough"
    if d.identical:
        return "identical on every deal"
    if d.resolved:
        return "already resolved"
    se = _se(d)
    if _isnan(se) or se == 0 or abs(d.mean) < se:
        return "effect within one standard error of 0: indistinguishable from no difference"
    if not d.paired:
        return "unpaired runs: play both arms with the same seed to pair them"
    return ""


def deals_needed(d: Delta) -> int | None:
    """Deals at which a new paired study resolves the observed effect with 80% power (alpha 0.05, two-sided).

    Uses :class:`statsmodels.stats.power.TTestPower` with effect size ``|mean| / sd``. None when
    :func:`deals_needed_reason` gives a reason.
    """
    if deals_needed_reason(d):
        return None
    from statsmodels.stats.power import TTestPower

    es = abs(d.mean) / d.sd
    n = TTestPower().solve_power(effect_size=es, alpha=ALPHA, power=POWER, alternative="two-sided")
    return max(2, int(math.ceil(float(np.asarray(n).item()))))


def paired(d: Sequence[float] | np.ndarray, binary: bool = False, bounds: tuple[float, float] | None = None) -> Delta:
    """Paired difference from per-deal differences ``d`` (B - A on each common deal).

    Args:
        d: one difference per deal (1-D).
        binary: the outcome is 0/1 per game (then few discordant deals use the exact sign test, and the interval
            is cut at +-1).
        bounds: the range the mean difference can take (e.g. ``(-1, 1)`` for a change of a win rate): the t
            interval is cut there (at small n it reaches far beyond, e.g. +-300 pp on two deals).

    Returns:
        :class:`Delta`: mean, 95% t interval, sd, n and raw p-value (exact sign test / McNemar for a
        0/1 outcome with fewer than :data:`EXACT_BELOW` discordant deals, else the one-sample t test). When every
        deal has the same non-zero difference (no spread: the t test has none to measure) the exact sign test,
        ``p = 2 x 0.5^n``: two deals that agree are not evidence (p = 0.5), twenty are.
    """
    from scipy import stats

    arr = np.asarray(d, dtype=float)
    n = int(arr.size)
    if n == 0:
        return Delta(NAN, NAN, NAN, NAN, 0, test="none")
    mean = float(arr.mean())
    if n < 2:
        return Delta(mean, NAN, NAN, NAN, n, test="none")
    sd = float(arr.std(ddof=1))
    up, down = int((arr > 0).sum()), int((arr < 0).sum())
    disc = up + down if binary else None
    if sd == 0:  # every deal the same difference: no spread for a t test; the exact sign test (2 x 0.5^n)
        if mean == 0:
            return Delta(mean, mean, mean, 0.0, n, p=1.0, test="paired t", discordant=disc)
        p = float(stats.binomtest(n, n, 0.5).pvalue)
        return Delta(mean, mean, mean, 0.0, n, p=p, test="exact sign test", discordant=n)  # (every deal differs)
    from statsmodels.stats.weightstats import DescrStatsW

    lo, hi = DescrStatsW(arr).tconfint_mean(alpha=ALPHA)
    if binary and bounds is None:  # a difference of two 0/1 outcomes lies in [-1, 1]
        bounds = (-1.0, 1.0)
    if bounds is not None:  # the t interval is cut at what the difference can be (it reaches beyond at small n)
        lo, hi = max(bounds[0], float(lo)), min(bounds[1], float(hi))
    if binary and up + down < EXACT_BELOW:
        p = float(stats.binomtest(up, up + down, 0.5).pvalue) if up + down else 1.0
        test = "exact sign test (McNemar)"
    else:
        p = float(stats.ttest_1samp(arr, 0.0).pvalue)
        test = "paired t"
    return Delta(mean, float(lo), float(hi), sd, n, p=p, test=test, discordant=disc)


SEAT_GAP_PERMUTATIONS = 9999  # resamples of the paired permutation test of a seat-gap difference (min p 1e-4)
SEAT_GAP_EXACT = 100_000  # swap patterns up to which that test is enumerated exactly instead of resampled
SEAT_GAP_BOOTSTRAP = 2000  # resamples of its percentile bootstrap interval


def largest_gap(wins: np.ndarray) -> np.ndarray:
    """The verdict's measure: the largest distance of a seat's share of the games won alone from 1/P.

    Args:
        wins: games won alone per seat, shape ``(..., P)`` (any leading shape: one cell, or one row per resample).

    Returns:
        ``max_s |wins_s / sum(wins) - 1/P|`` over the last axis, shape ``(...)``; nan where no game was won alone.
        The same quantity as :func:`seat_balance`'s ``verdict["largest"]["gap"]``, without its sign.
    """
    w = np.asarray(wins, dtype=float)
    decided = w.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = w / decided[..., None]
    return np.abs(share - 1.0 / w.shape[-1]).max(-1)


def resampling_seed(*arrays: np.ndarray | Sequence[float]) -> int:
    """A seed for resampling derived from the data resampled: the same records give the same draws.

    Never the clock, the process or Python's hash randomisation: the arrays' values (as little-endian float64,
    with their shapes) are hashed with BLAKE2b, so a statistic computed from resamples is a function of its data.
    The caller passes the data in a canonical order (e.g. deals sorted by their seed).

    Args:
        arrays: the data, each any shape (converted to float64; integers below 2**53 are exact).

    Returns:
        A 64-bit non-negative integer for :func:`numpy.random.default_rng`.
    """
    import hashlib

    h = hashlib.blake2b(digest_size=8, person=b"kbsim-resample")
    for x in arrays:
        arr = np.ascontiguousarray(np.asarray(x, dtype="<f8"))
        h.update(repr(arr.shape).encode())
        h.update(arr.tobytes())
    return int.from_bytes(h.digest(), "little")


def paired_seat_gap(a: np.ndarray, b: np.ndarray, seed: int | None = None) -> Delta:
    """Is arm B closer to fair than arm A on the same deals? The difference of the verdict's largest seat gap.

    The measure is :func:`largest_gap` of all the deals' games won alone together, so it is not a mean of
    per-deal values and the paired t machinery does not apply. Instead:

    * the **p-value** is a paired permutation test of "the arm makes no difference on any deal": a resample
      swaps the two arms' outcomes on each deal independently with probability 1/2. Only the deals on which the
      arms differ matter, and only through their difference ``a_i - b_i``: deals with the same difference are
      interchangeable, so a resample is, per distinct difference ``d_j`` held by ``m_j`` deals, the number of
      them swapped, Binomial(``m_j``, 1/2), and moves ``sum_j count_j * d_j`` from A to B. When the patterns of
      counts number at most :data:`SEAT_GAP_EXACT` (and ``k`` <= 62) they are all enumerated, each counted as
      the number of swap patterns giving it (an exact integer), and the p-value is exact (never below
      ``2 * 0.5**k`` for ``k`` differing deals: no swap and all swaps are as extreme as the observation);
      otherwise :data:`SEAT_GAP_PERMUTATIONS` resamples give ``p = (hits + 1) / (resamples + 1)`` (Phipson and
      Smyth 2010). Always the full count: an early stop (Besag and Clifford) saves time, but its p-value,
      ``20 / draws``, varies by about 20% with the stream;
    * the **interval** is the 2.5 and 97.5 percentiles of :data:`SEAT_GAP_BOOTSTRAP` bootstrap resamples of the
      deals (both arms resampled together, so the pairing is kept): a resample draws how many times each
      distinct (A, B) outcome pair is taken, multinomially in proportion to the deals holding it (the same
      distribution as drawing ``n`` deals with replacement; the cost does not grow with ``n``).

    Grouping equal deals makes both exact in distribution, fast for any number of deals (the distinct outcomes
    of a deal are few), and a function of the multiset of deals: the rows' order never matters. The random draws
    come from ``numpy.random.default_rng(seed)`` with, unless a seed is given, a seed derived from that multiset
    (:func:`resampling_seed`, never the clock or the process): the same records give the same page.

    Args:
        a: arm A's games won alone per deal and seat, shape ``(deals, P)`` (all of a deal's seat rotations
            summed).
        b: arm B's, the same shape, row ``i`` being the same deal as in ``a``.
        seed: seed of the resampling; default :func:`resampling_seed` of the distinct deals and their counts.

    Returns:
        :class:`Delta` with ``mean`` = gap(B) - gap(A) (negative: B is closer to fair), the bootstrap interval,
        ``sd`` = the bootstrap standard error times sqrt(deals) (so :func:`deals_needed` scales it like a
        per-deal standard deviation), ``n`` = deals, the permutation p-value and ``discordant`` = the deals on
        which the arms' games won alone differ (below :data:`MIN_DISCORDANT` the comparison is not
        :attr:`Delta.testable`). When the arms won alone the
        same games on every deal it is :attr:`Delta.identical`; when either arm won no game alone, nan.

    Raises:
        ValueError: ``a`` and ``b`` differ in shape or are not 2-D.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"per-deal seat wins must have the same (deals, seats) shape, got {a.shape} and {b.shape}")
    n, seats = a.shape
    obs = float(largest_gap(b.sum(0)) - largest_gap(a.sum(0)))
    if n < 2 or _isnan(obs):
        return Delta(obs, NAN, NAN, NAN, n, test="none")
    differing = int(np.count_nonzero((a != b).any(axis=1)))
    if differing == 0:
        return Delta(0.0, 0.0, 0.0, 0.0, n, p=1.0, test=SEAT_GAP_TEST, discordant=0)
    pairs, held = np.unique(np.hstack([a, b]), axis=0, return_counts=True)  # sorted: independent of row order
    rng = np.random.default_rng(resampling_seed(pairs, held) if seed is None else seed)
    p = _seat_gap_permutation_p(a, b, obs, rng)
    boot = np.empty(SEAT_GAP_BOOTSTRAP)
    for k in range(0, SEAT_GAP_BOOTSTRAP, 500):
        m = min(500, SEAT_GAP_BOOTSTRAP - k)
        taken = rng.multinomial(n, held / n, size=m).astype(np.float64)  # (m, distinct pairs)
        boot[k : k + m] = largest_gap(taken @ pairs[:, seats:]) - largest_gap(taken @ pairs[:, :seats])
    lo, hi = (float(x) for x in np.nanpercentile(boot, [2.5, 97.5]))
    se = float(np.nanstd(boot, ddof=1))
    return Delta(obs, lo, hi, se * math.sqrt(n), n, p=float(p), test=SEAT_GAP_TEST, discordant=differing)


def _seat_gap_permutation_p(a: np.ndarray, b: np.ndarray, obs: float, rng: np.random.Generator) -> float:
    """The paired permutation p-value of :func:`paired_seat_gap` (exact when the swap patterns are few)."""
    sa, sb = a.sum(0), b.sum(0)
    diffs, held = np.unique((a - b)[(a != b).any(axis=1)], axis=0, return_counts=True)

    def extreme(counts: np.ndarray) -> np.ndarray:
        """Whether each row of swap counts (per distinct difference) is at least as extreme as observed."""
        moved = counts @ diffs  # what the swapped deals move from A to B
        return np.abs(largest_gap(sb + moved) - largest_gap(sa - moved)) >= abs(obs) - 1e-12

    k = int(held.sum())
    if k <= 62 and math.prod(int(m) + 1 for m in held) <= SEAT_GAP_EXACT:  # every pattern: the exact p-value
        grids = np.meshgrid(*[np.arange(m + 1) for m in held], indexing="ij")
        counts = np.stack([g.ravel() for g in grids], axis=1)
        ways = np.ones(counts.shape[0], dtype=np.int64)  # swap patterns giving each row of counts (< 2**62)
        for j, m in enumerate(held):
            ways *= np.array([math.comb(int(m), c) for c in range(int(m) + 1)], dtype=np.int64)[counts[:, j]]
        return int(ways[extreme(counts.astype(np.float64))].sum()) / 2**k
    hits = 0
    for done in range(0, SEAT_GAP_PERMUTATIONS, 1000):
        m = min(1000, SEAT_GAP_PERMUTATIONS - done)
        hits += int(np.count_nonzero(extreme(rng.binomial(held, 0.5, size=(m, held.size)).astype(np.float64))))
    return (hits + 1) / (SEAT_GAP_PERMUTATIONS + 1)


def unpaired_rate(x_b: int, n_b: int, x_a: int, n_a: int) -> Delta:
    """Difference of two independent proportions ``x_b/n_b - x_a/n_a``: Newcombe interval, score test."""
    from statsmodels.stats.proportion import confint_proportions_2indep, test_proportions_2indep

    if n_a == 0 or n_b == 0:
        return Delta(NAN, NAN, NAN, NAN, 0, test="none", paired=False, n_a=n_a, n_b=n_b)
    diff = x_b / n_b - x_a / n_a
    lo, hi = confint_proportions_2indep(x_b, n_b, x_a, n_a, method="newcomb", compare="diff", alpha=ALPHA)
    if x_a + x_b in (0, n_a + n_b):
        p = 1.0
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = float(test_proportions_2indep(x_b, n_b, x_a, n_a, method="score", compare="diff").pvalue)
    return Delta(
        diff,
        float(lo),
        float(hi),
        NAN,
        min(n_a, n_b),
        p=p,
        test="Newcombe interval, score test",
        paired=False,
        n_a=n_a,
        n_b=n_b,
    )


def unpaired_mean(b: Sequence[float] | np.ndarray, a: Sequence[float] | np.ndarray) -> Delta:
    """Difference of two independent means ``mean(b) - mean(a)``: Welch's t test and interval.

    Two constant samples (no spread for Welch's test) get the exact permutation test of the labels instead:
    ``p = 1 / C(n_a + n_b, n_a)`` (twice that when the sizes agree), never 0.
    """
    from scipy import stats

    xb, xa = np.asarray(b, dtype=float), np.asarray(a, dtype=float)
    if xa.size < 2 or xb.size < 2:
        return Delta(NAN, NAN, NAN, NAN, 0, test="none", paired=False, n_a=int(xa.size), n_b=int(xb.size))
    diff = float(xb.mean() - xa.mean())
    if xa.var() == 0 and xb.var() == 0:  # two constant samples: the exact permutation test of the labels
        extreme = 2 if xa.size == xb.size else 1  # (the labelling observed, and its mirror when sizes agree)
        p = 1.0 if diff == 0 else min(1.0, extreme / math.comb(int(xa.size + xb.size), int(xa.size)))
        return Delta(
            diff,
            diff,
            diff,
            NAN,
            int(min(xa.size, xb.size)),
            p=p,
            test="Welch t" if diff == 0 else "exact permutation",
            paired=False,
            n_a=int(xa.size),
            n_b=int(xb.size),
        )
    res = stats.ttest_ind(xb, xa, equal_var=False)
    ci = res.confidence_interval(1 - ALPHA)
    return Delta(
        diff,
        float(ci.low),
        float(ci.high),
        NAN,
        int(min(xa.size, xb.size)),
        p=float(res.pvalue),
        test="Welch t",
        paired=False,
        n_a=int(xa.size),
        n_b=int(xb.size),
    )


def adjust(deltas: Sequence[Delta]) -> list[Delta]:
    """Holm-adjust the p-values of every difference shown on one page.

    Args:
        deltas: the page's differences; those that are not :attr:`Delta.testable` (no p-value, identical on every
            deal, too few differing deals for an exact test ever to give p < 0.05) are left as they are and not
            counted in the family (Tarone's rule).

    Returns:
        The same differences (same order) with ``p_adj`` set on the testable ones.
    """
    idx = [i for i, d in enumerate(deltas) if d.testable]
    out = list(deltas)
    if not idx:
        return out
    padj = holm([deltas[i].p for i in idx])
    for i, q in zip(idx, padj, strict=True):
        out[i] = replace(deltas[i], p_adj=float(q))
    return out


def holm(pvals: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values, in the order given.

    The same numbers, to the last bit, as :func:`statsmodels.stats.multitest.multipletests` with
    ``method="holm"`` (its operations, in its order: sort, multiply the i-th smallest by ``m - i``, running maximum,
    cap at 1), without the full garbage collection statsmodels runs on every call (which took most of a report's
    time in a large process).

    Args:
        pvals: the raw p-values (a nan stays nan, as in statsmodels).

    Returns:
        The adjusted p-values, one per input, same order.
    """
    p = np.asarray(pvals, dtype=float)
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(np.take(p, order) * np.arange(len(p), 0, -1))
    adjusted[adjusted > 1] = 1
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return [float(q) for q in out]


def fmt_p(p: float | None) -> str:
    """A p-value for a table: ``p = 0.034``, ``p < 0.001``, ``–``."""
    if _isnan(p):
        return "–"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.995 else "p = 1"


__all__ = [
    "ADJUSTMENT",
    "ADJUSTMENT_NAME",
    "ALPHA",
    "Delta",
    "EXACT_BELOW",
    "MIN_DEALS_FOR_POWER",
    "MIN_DISCORDANT",
    "POWER",
    "adjust",
    "deals_needed",
    "deals_needed_reason",
    "fmt_p",
    "fmt_pct",
    "fmt_rate",
    "fmt_sig",
    "gap_words",
    "holm",
    "largest_gap",
    "paired",
    "paired_seat_gap",
    "rank_verdicts",
    "rate",
    "resampling_seed",
    "seat_balance",
    "seat_test",
    "unpaired_mean",
    "unpaired_rate",
    "wilson",
]
