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
from collections.abc import Sequence

import numpy as np
from scipy import stats

from .classify import Estimate
from .describe import correlations, mean_ci

NAN = math.nan
FISHER = "Fisher z"
T_PAIRED = "t over paired differences"
#: (variance numerator, pairs lost) of atanh(r) for each coefficient.
_FISHER_SE = {"pearson": (1.0, 3), "spearman": (1.06, 3), "kendall": (0.437, 4)}


def fisher_interval(r: float, n: int, coefficient: str, confidence: float) -> tuple[float, float]:
    """The Fisher-z interval of a correlation ``r`` over ``n`` pairs."""
    numerator, lost = _FISHER_SE[coefficient]
    if not math.isfinite(r) or n - lost <= 0:
        return NAN, NAN
    crit = float(stats.norm.ppf((1 + confidence) / 2))
    half = crit * math.sqrt(numerator / (n - lost))
    z = math.atanh(min(max(r, -1.0), 1.0)) if abs(r) < 1 else math.copysign(math.inf, r)
    return math.tanh(z - half), math.tanh(z + half)


def paired_estimates(
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95
) -> tuple[int, list[Estimate]]:
    """(n pairs, [pearson, spearman, kendall, mean_diff]) each with its interval."""
    c = correlations(list(a), list(b))
    out = []
    for name, value in (("pearson", c.pearson), ("spearman", c.spearman), ("kendall", c.kendall)):
        low, high = fisher_interval(value, c.n, name, confidence)
        out.append(Estimate(name, value, low, high, FISHER))
    x = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    diff = mean_ci(x[np.isfinite(x)].tolist(), confidence=confidence, method="t")
    out.append(Estimate("mean_diff", diff.mean, diff.ci_low, diff.ci_high, T_PAIRED))
    return c.n, out
