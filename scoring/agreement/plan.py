"""Sample sizes: how many answers (or items) a target precision or power needs.

Sources: E. B. Wilson (1927) and R. G. Newcombe (1998) for the score interval whose
half-width is targeted; J. Cohen (1988), *Statistical Power Analysis for the Behavioral
Sciences*, 2nd ed., ch. 6 (the effect size h = 2·asin√p₁ − 2·asin√p₂ for two
proportions and the normal-approximation power, computed by ``statsmodels``'
``NormalIndPower``); for Krippendorff's alpha, a simulation in the spirit of
Krippendorff (2004, *Content Analysis*, 2nd ed., §11.4: the bootstrap of alpha's
sampling distribution from the observed coincidences): studies of n units are drawn
from the observed pairable units (each with its coincidences) and alpha is recomputed
on each; the interval width at n is the spread of the central ``confidence`` share of
those alphas.

Every answer is treated as independent. When people differ in ability, answers by one
person are correlated and the effective n is smaller (a design effect): read the
numbers as lower bounds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from .describe import wilson_interval
from .table import FloatArray

MAX_N = 10_000_000
#: Numbers of items tried for alpha's interval width (then the first that meets it).
ALPHA_GRID: tuple[int, ...] = (
    5, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000,
    3000, 5000, 10000,
)  # fmt: skip


def wilson_half_width(p: float, n: int, *, confidence: float = 0.95) -> float:
    """Half the width of the Wilson interval of a share ``p`` observed over ``n`` answers."""
    if n <= 0:
        return math.nan
    successes = min(n, max(0, round(p * n)))
    ci = wilson_interval(successes, n, confidence=confidence)
    return (ci.ci_high - ci.ci_low) / 2


def _half_width_at(p: float, n: int, confidence: float) -> float:
    # the exact share p (not rounded to n), so the search is monotone in n
    z = float(stats.norm.ppf((1 + confidence) / 2))
    denom = 1 + z * z / n
    return z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))


def wilson_n(p: float, half_width: float, *, confidence: float = 0.95) -> int:
    """The fewest answers whose Wilson interval around a share ``p`` is at most
    ``half_width`` wide on each side (the unclipped score interval)."""
    if not 0 <= p <= 1:
        raise ValueError("p must be a share between 0 and 1")
    if not 0 < half_width < 0.5:
        raise ValueError("half_width must be between 0 and 0.5")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    low, high = 1, 1
    while _half_width_at(p, high, confidence) > half_width:
        low, high = high, high * 2
        if high > MAX_N:
            return MAX_N
    while low < high:
        mid = (low + high) // 2
        if _half_width_at(p, mid, confidence) <= half_width:
            high = mid
        else:
            low = mid + 1
    return high


@dataclass(frozen=True)
class TwoGroups:
    effect_h: float  # Cohen's h
    n_per_group: float  # answers per group for the power (inf when p1 == p2)
    power_now: float  # at the answers collected so far (NaN if none)


def two_group_n(
    p1: float,
    p2: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    n1_now: int = 0,
    n2_now: int = 0,
) -> TwoGroups:
    """Answers per group to tell shares ``p1`` and ``p2`` apart (two-sided z test at
    ``alpha`` with ``power``; Cohen's h, ``statsmodels.stats.power.NormalIndPower``)."""
    if not 0 < power < 1 or not 0 < alpha < 1:
        raise ValueError("power and alpha must be between 0 and 1")
    h = float(proportion_effectsize(p1, p2))
    analysis = NormalIndPower()
    if h == 0 or not math.isfinite(h):
        n = math.inf
    else:
        n = float(analysis.solve_power(effect_size=abs(h), alpha=alpha, power=power, ratio=1.0))
    now = math.nan
    if n1_now > 0 and n2_now > 0 and h != 0:
        now = float(
            analysis.power(effect_size=abs(h), nobs1=n1_now, alpha=alpha, ratio=n2_now / n1_now)
        )
    return TwoGroups(h, n, now)


@dataclass(frozen=True)
class AlphaPlan:
    width_now: float  # simulated width at the current number of units
    n_units_now: int
    n_units_needed: int | None  # None: no size on the grid meets the goal
    widths: dict[int, float]  # every size tried


def alpha_units_for_width(
    replicate: Callable[[FloatArray], FloatArray],
    n_units_now: int,
    width: float,
    *,
    confidence: float = 0.95,
    n_sims: int = 200,
    seed: int = 0,
    grid: Sequence[int] = ALPHA_GRID,
) -> AlphaPlan:
    """Units needed for alpha's interval to be at most ``width`` wide (module doc).

    ``replicate`` maps weights (simulations × observed pairable units: how many times
    each observed unit is in a simulated study) to alpha values, as
    ``scoring.agreement.alpha.alpha_plan`` builds it.
    """
    if n_units_now < 2:
        raise ValueError("alpha needs at least 2 pairable units to simulate from")
    if not 0 < width < 2:
        raise ValueError("width must be between 0 and 2")
    rng = np.random.default_rng(seed)
    uniform = np.full(n_units_now, 1.0 / n_units_now)
    tail = (1 - confidence) / 2 * 100

    def width_at(n: int) -> float:
        w = rng.multinomial(n, uniform, size=n_sims).astype(np.float64)
        values = replicate(w)
        values = values[np.isfinite(values)]
        if values.size < n_sims // 2:
            return math.nan
        low, high = np.percentile(values, [tail, 100 - tail])
        return float(high - low)

    widths: dict[int, float] = {n_units_now: width_at(n_units_now)}
    needed = None
    for n in sorted(grid):
        widths.setdefault(n, width_at(n))
        if math.isfinite(widths[n]) and widths[n] <= width:
            needed = n
            break
    return AlphaPlan(widths[n_units_now], n_units_now, needed, widths)
