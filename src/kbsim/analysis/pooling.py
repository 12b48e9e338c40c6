"""Effects averaged over player counts, with a test of whether they differ between counts.

A study plays every player count on its own deals, so the counts' estimates are independent. The **pooled**
effect of a comparison is their plain average (each count weighing the same: the answer to "on average over
2-5 players"), with standard error ``sqrt(sum se_i^2) / k`` and a two-sided z test; ``se_i`` is read off each
count's 95% interval (``(high - low) / 3.92``; a t interval at small n gives a slightly larger ``se``, so the
pooled test errs on the safe side). Whether pooling is meaningful is Cochran's Q test of equal effects across
the counts (chi-square with ``k - 1`` degrees of freedom, :func:`scipy.stats.chi2`, over the counts whose
effect has a spread); a small Q p-value means the effect depends on the player count, and the page says so
instead of leaning on the average.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from kbsim.analysis.metrics import NAN, Z95, Delta

POOLED_TEST = "z test of the average over player counts"


def interval_se(d: Delta) -> float:
    """The standard error of an effect, from its 95% interval (nan without one)."""
    if d.low is None or d.high is None or math.isnan(d.low) or math.isnan(d.high):
        return NAN
    return (d.high - d.low) / (2 * Z95)


def pool(deltas: Sequence[Delta]) -> tuple[Delta, float]:
    """The average of independent per-player-count effects, and Cochran's Q p-value of their equality.

    Args:
        deltas: one effect per player count (the same comparison and measure).

    Returns:
        ``(pooled, q_p)``: a :class:`~kbsim.analysis.metrics.Delta` (mean, 95% normal interval, ``n`` = the
        deals of all counts, a z-test p-value; no p-value when no count's effect could be tested, so the
        average stays out of the page's family too) and the heterogeneity p-value (nan with fewer than two
        counts that have a spread).
    """
    ds = [d for d in deltas if d is not None and not math.isnan(d.mean)]
    if not ds:
        return Delta(NAN, NAN, NAN, NAN, 0, test="none"), NAN
    k = len(ds)
    mean = sum(d.mean for d in ds) / k
    ses = [interval_se(d) for d in ds]
    n = sum(d.n for d in ds)
    discordant = sum(d.discordant or 0 for d in ds) if any(d.discordant is not None for d in ds) else None
    if any(math.isnan(s) for s in ses):
        return Delta(mean, NAN, NAN, NAN, n, test="none", discordant=discordant), NAN
    se = math.sqrt(sum(s * s for s in ses)) / k
    if all(d.identical for d in ds):
        return Delta(mean, mean, mean, 0.0, n, p=1.0, test="paired t", discordant=0), NAN
    from scipy import stats

    p = float(2 * stats.norm.sf(abs(mean) / se)) if se > 0 else (0.0 if mean else 1.0)
    if not any(d.testable for d in ds):
        p = NAN
    pooled = Delta(
        mean, mean - Z95 * se, mean + Z95 * se, se * math.sqrt(n), n, p=p, test=POOLED_TEST, discordant=discordant
    )
    spread = [(d.mean, s) for d, s in zip(ds, ses, strict=True) if s > 0]
    q_p = NAN
    if len(spread) >= 2:
        w = [1 / (s * s) for _, s in spread]
        center = sum(wi * m for wi, (m, _) in zip(w, spread, strict=True)) / sum(w)
        q = sum(wi * (m - center) ** 2 for wi, (m, _) in zip(w, spread, strict=True))
        q_p = float(stats.chi2.sf(q, len(spread) - 1))
    return pooled, q_p


__all__ = ["POOLED_TEST", "interval_se", "pool"]
