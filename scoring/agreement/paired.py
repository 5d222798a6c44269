"""Paired scores of two raters (a judge and a reference) with an interval for each measure.

Pearson's r, Spearman's rho and Kendall's tau-b (``describe.correlations``, via scipy)
with Fisher-z intervals: z = atanh(r) ± c / sqrt(...) mapped back with tanh, where the
standard error is 1 / sqrt(n − 3) for Pearson (Fisher 1921), sqrt(1.06 / (n − 3)) for
Spearman and sqrt(0.437 / (n − 4)) for Kendall (Fieller, Hartley & Pearson 1957; as
recommended by Bonett & Wright 2000). The mean difference mean(a − b) (leniency of a)
with Student's t interval over the paired differences. Too few pairs for an interval
(n ≤ 3, n ≤ 4 for Kendall, n < 2 for the mean) or an undefined coefficient: NaN.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import stats

from .classify import Estimate
from .table import FloatArray

NAN = math.nan
FISHER = "Fisher z"
T_PAIRED = "t over paired differences"
#: (variance numerator, pairs lost) of atanh(r) for each coefficient.
_FISHER_SE = {"pearson": (1.0, 3), "spearman": (1.06, 3), "kendall": (0.437, 4)}


@lru_cache(maxsize=64)
def _normal_quantile(p: float) -> float:
    return float(stats.norm.ppf(p))


def fisher_interval(r: float, n: int, coefficient: str, confidence: float) -> tuple[float, float]:
    """The Fisher-z interval of a correlation ``r`` over ``n`` pairs."""
    numerator, lost = _FISHER_SE[coefficient]
    if not math.isfinite(r) or n - lost <= 0:
        return NAN, NAN
    crit = _normal_quantile((1 + confidence) / 2)
    half = crit * math.sqrt(numerator / (n - lost))
    z = math.atanh(min(max(r, -1.0), 1.0)) if abs(r) < 1 else math.copysign(math.inf, r)
    return math.tanh(z - half), math.tanh(z + half)


@lru_cache(maxsize=4096)
def _t_quantile(p: float, df: int) -> float:
    return float(stats.t.ppf(p, df))


def _coefficients(x: FloatArray, y: FloatArray) -> tuple[float, float, float]:
    """Pearson, Spearman (Pearson of average ranks, as scipy) and Kendall tau-b."""
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return NAN, NAN, NAN
    pearson = float(np.corrcoef(x, y)[0, 1])
    spearman = float(np.corrcoef(stats.rankdata(x), stats.rankdata(y))[0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kendall = float(stats.kendalltau(x, y).statistic)
    return pearson, spearman, kendall


def paired_estimates(
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95
) -> tuple[int, list[Estimate]]:
    """(n pairs, [pearson, spearman, kendall, mean_diff]) each with its interval.

    The coefficients equal ``describe.correlations``' (scipy's); pairs with a missing
    side are dropped.
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = int(x.size)
    out = []
    for name, value in zip(("pearson", "spearman", "kendall"), _coefficients(x, y), strict=True):
        low, high = fisher_interval(value, n, name, confidence)
        out.append(Estimate(name, value, low, high, FISHER))
    d = x - y
    mean = float(d.mean()) if n else NAN
    low = high = NAN
    if n >= 2:
        half = _t_quantile((1 + confidence) / 2, n - 1) * float(d.std(ddof=1)) / math.sqrt(n)
        low, high = mean - half, mean + half
    out.append(Estimate("mean_diff", mean, low, high, T_PAIRED))
    return n, out
