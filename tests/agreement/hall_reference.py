"""An independent reference for the skewness-corrected Welch interval (docs §24), written
from the formulas with scipy only: scipy's adjusted skewness of the pooled residuals,
scipy's Welch df, and Hall's (1992) transformation g inverted by root finding (the code
under test inverts it in closed form)."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats


def hall_g(t: float, lam: float) -> float:
    """Hall's (1992) transformation t + λt²/3 + λ²t³/27 + λ/6."""
    return t + lam * t**2 / 3 + lam**2 * t**3 / 27 + lam / 6


def reference_interval(
    a: np.ndarray, b: np.ndarray, confidence: float = 0.95
) -> tuple[float, float]:
    na, nb = len(a), len(b)
    residuals = np.concatenate([a - a.mean(), b - b.mean()])
    gamma = float(stats.skew(residuals, bias=False))
    lam = gamma * (1 / na**2 - 1 / nb**2) / (1 / na + 1 / nb) ** 1.5
    welch = stats.ttest_ind(a, b, equal_var=False)
    c = float(stats.t.ppf((1 + confidence) / 2, welch.df))
    se = math.sqrt(a.var(ddof=1) / na + b.var(ddof=1) / nb)
    d = a.mean() - b.mean()

    def inverse(u: float) -> float:
        return optimize.brentq(lambda t: hall_g(t, lam) - u, -1e4, 1e4, xtol=1e-12)

    return d - se * inverse(c), d - se * inverse(-c)
