"""Sample sizes: how many volunteers (or items) a target precision or power needs.

**The planning the report uses (issue 23): simulation from a fitted crossed model.**
People and items are crossed random factors (Baayen, Davidson & Bates 2008). From the
data so far, each group's share right and its person and item intraclass correlations
(the moment estimates ``crossed.pairwise_icc`` gives, which the report's rows show) are
matched by a logistic model with crossed random intercepts,
P(right) = expit(mu + u_person + v_item), u ~ N(0, sd_person²), v ~ N(0, sd_item²)
(``logistic_components``: the 0/1-scale share and ICCs of the model by Gauss–Hermite
quadrature, solved for mu and the two SDs). Why moments and not a fitted GLMM: a
volunteer study's first data are small and sparse (10 people × 10 items per cell), where
statsmodels' mixed GLMs either lean on their priors (``BinomialBayesMixedGLM``'s
variational fit) or fit the linear model on the 0/1 scale (``MixedLM``, whose normal
draws leave [0, 1]); the moments are the ones the report's own intervals are built on,
cost nothing and are defined whenever the interval is.

Studies of n volunteers per group are then simulated from the model (``N_REPS`` of them
per size, vectorised numpy, one seed), each volunteer answering as many items as the
task gives a participant from the task's pool, handed out in turn (``Design``), and
each simulated study gets **the interval or test the report computes**:

* accuracy: the people × items clustered Wilson interval (``crossed.clustered_mean``,
  Cameron, Gelbach & Miller 2011): the mean half-width at each size, its coverage of
  the model's share and its assurance (the share of studies meeting the goal);
* two groups: the people × items clustered t test of the difference
  (``crossed.clustered_difference``): its power at each size;

over ``PEOPLE_GRID`` plus the current number. The goal is met *now* when the data's own
interval meets it; otherwise the size needed is the first size above the current one
whose simulated studies meet it (so no row says "short" with nothing more to collect).
For Krippendorff's alpha, studies of n units are drawn from the observed units (with
their coincidences) and each gets its own bootstrap interval (``alpha_assurance``): the
units for 80 % of studies to reach the width, beside those for the mean width.

**Independent-answers formulas** (kept as named alternatives, not used by the plan):
E. B. Wilson (1927) and R. G. Newcombe (1998) for the score interval's half-width
(``wilson_n``); J. Cohen (1988), *Statistical Power Analysis for the Behavioral
Sciences*, 2nd ed., ch. 6 (h = 2·asin√p₁ − 2·asin√p₂, ``NormalIndPower``:
``two_group_n``); ``alpha_units_for_width``: the spread of alpha over simulated studies
(its width is met on average only). Every answer is treated as independent there: on
a study with person or item effects they under-deliver (issue 23: 85–89 % coverage,
a type I error of 15 %, 54–71 % of studies reaching the alpha width).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats
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


# ---------------------------------------------------------------------------------------
# Planning by simulation from a fitted crossed model (issue 23, item 3)
# ---------------------------------------------------------------------------------------

#: Volunteers per group tried (the current number is always added).
PEOPLE_GRID: tuple[int, ...] = (
    3, 5, 10, 15, 20, 25, 30, 40, 50, 60, 75, 100, 125, 150, 200, 250, 300, 400, 500,
    750, 1000,
)  # fmt: skip
N_REPS = 200  # simulated studies per size (Monte Carlo SE of a 95 % coverage: 1.5 points)
GH_NODES = 24


@dataclass(frozen=True)
class Components:
    """Logistic crossed random intercepts: P(right) = expit(mu + u_person + v_item),
    u ~ N(0, sd_person²), v ~ N(0, sd_item²) (Baayen, Davidson & Bates 2008)."""

    mu: float
    sd_person: float
    sd_item: float
    share: float  # the population share right: E expit(mu + u + v)
    icc_person: float  # on the observed 0/1 scale (what was matched)
    icc_item: float


def _moments(mu: float, sd_p: float, sd_i: float) -> tuple[float, float, float]:
    """Share, person ICC and item ICC on the 0/1 scale of the logistic model, by
    Gauss–Hermite quadrature over both intercepts."""
    x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    w = w / w.sum()
    p = special.expit(mu + sd_p * x[:, None] + sd_i * x[None, :])  # person × item nodes
    share = float(w @ p @ w)
    var = share * (1 - share)
    if not var > 0:
        return share, 0.0, 0.0
    by_person, by_item = p @ w, w @ p
    icc_p = (float(w @ by_person**2) - share**2) / var
    icc_i = (float(w @ by_item**2) - share**2) / var
    return share, icc_p, icc_i


def logistic_components(share: float, icc_person: float, icc_item: float) -> Components:
    """The logistic crossed model whose 0/1-scale share and intraclass correlations are
    the observed ones (moment matching: the ICCs are ``crossed.pairwise_icc``'s moment
    estimates, the ones the report's rows show). A share of 0 or 1 is moved half an
    answer's worth inside (0.5 %, 99.5 %) so the model stays defined."""
    s = min(max(share, 0.005), 0.995)
    ip = 0.0 if not math.isfinite(icc_person) else min(max(icc_person, 0.0), 0.9)
    ii = 0.0 if not math.isfinite(icc_item) else min(max(icc_item, 0.0), 0.9)
    target = np.array([s, ip, ii])

    def gap(params: FloatArray) -> FloatArray:
        out: FloatArray = np.asarray(_moments(*params), dtype=np.float64) - target
        return out

    start = np.array([math.log(s / (1 - s)), 1.0 if ip > 0 else 0.0, 1.0 if ii > 0 else 0.0])
    res = optimize.least_squares(
        gap, start, bounds=([-12.0, 0.0, 0.0], [12.0, 12.0, 12.0]), xtol=1e-12, ftol=1e-12
    )
    mu, sd_p, sd_i = (float(v) for v in res.x)
    share_fit, icc_p, icc_i = _moments(mu, sd_p, sd_i)
    return Components(mu, sd_p, sd_i, share_fit, icc_p, icc_i)


@dataclass(frozen=True)
class Design:
    """Each volunteer answers ``per_person`` items of a pool of ``pool``, handed out in
    turn (each group's volunteers go round the pool in a random order, as the platform's
    balance rule keeps every item's count within one of the others')."""

    per_person: int
    pool: int

    def __post_init__(self) -> None:
        if self.per_person < 1 or self.pool < 1:
            raise ValueError("a design needs at least one item per person and in the pool")


def _assign(rng: np.random.Generator, reps: int, n_people: int, design: Design) -> np.ndarray:
    k = min(design.per_person, design.pool)
    order = np.argsort(rng.random((reps, design.pool)), axis=1)
    slots = (np.arange(n_people)[:, None] * k + np.arange(k)[None, :]).ravel() % design.pool
    return order[:, slots]  # reps × (n_people · k): person-major


def _draw(
    rng: np.random.Generator,
    mu: float,
    comp: Components,
    item_effect: FloatArray,
    items: np.ndarray,
    n_people: int,
) -> FloatArray:
    reps, n = items.shape
    k = n // n_people
    person = rng.standard_normal((reps, n_people)) * comp.sd_person
    eta = mu + np.repeat(person, k, axis=1) + np.take_along_axis(item_effect, items, axis=1)
    y: FloatArray = (rng.random((reps, n)) < special.expit(eta)).astype(np.float64)
    return y


def _item_sums(u: FloatArray, items: np.ndarray, pool: int) -> tuple[FloatArray, FloatArray]:
    reps = u.shape[0]
    idx = (items + pool * np.arange(reps)[:, None]).ravel()
    sums: FloatArray = (
        np.bincount(idx, weights=u.ravel(), minlength=reps * pool)
        .reshape(reps, pool)
        .astype(np.float64)
    )
    used = np.bincount(idx, minlength=reps * pool).reshape(reps, pool) > 0
    g: FloatArray = used.sum(axis=1).astype(np.float64)
    return sums, g


def _crossed_variance(
    u: FloatArray, person_sums: FloatArray, items: np.ndarray, pool: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """CGM's people × items variance of each simulated study, the rule of
    ``crossed.multiway_variance`` (one answer per person and item, so the intersection
    term is the independent-answers variance) and its degrees of freedom."""
    n = u.shape[1]
    g_p = float(person_sums.shape[1])
    v_ind = n / (n - 1) * (u * u).sum(axis=1)
    v = v_ind.copy()
    df = np.full(u.shape[0], np.inf)
    by_person = 1 < g_p < n  # people with more than one answer each
    if by_person:
        v_p = g_p / (g_p - 1) * (person_sums**2).sum(axis=1)
        v = v_p
        df = np.minimum(df, g_p - 1)
    sums, g_i = _item_sums(u, items, pool)
    crossed = g_i < n
    with np.errstate(divide="ignore", invalid="ignore"):
        v_i = np.where(crossed, g_i / (g_i - 1) * (sums**2).sum(axis=1), v_ind)
    if by_person:
        two = v_p + v_i - v_ind
        both = np.where(two > 0, two, np.maximum(v_p, v_i))
        v = np.where(crossed, both, v_p)
    else:
        v = np.where(crossed, v_i, v)
    df = np.where(crossed, np.minimum(df, g_i - 1), df)
    return v, v_ind, df


def simulate_share_intervals(
    comp: Components,
    n_people: int,
    design: Design,
    *,
    reps: int = N_REPS,
    confidence: float = 0.95,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``reps`` studies of ``n_people`` from the fitted model, each with the report's
    people × items clustered Wilson interval (``crossed.clustered_mean``, proportion):
    the shares and interval bounds (each reps long)."""
    items = _assign(rng, reps, n_people, design)
    item_effect = rng.standard_normal((reps, design.pool)) * comp.sd_item
    y = _draw(rng, comp.mu, comp, item_effect, items, n_people)
    n = y.shape[1]
    theta = y.mean(axis=1)
    u = (y - theta[:, None]) / n
    person_sums = u.reshape(reps, n_people, -1).sum(axis=2)
    v, v_ind, df = _crossed_variance(u, person_sums, items, design.pool)
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = v / v_ind
        n_eff = np.where(np.isfinite(deff) & (deff > 0), n / deff, float(n))
    q = (1 + confidence) / 2
    crit = np.where(np.isfinite(df), stats.t.ppf(q, np.where(np.isfinite(df), df, 1)), 0.0)
    crit = np.where(np.isfinite(df), crit, stats.norm.ppf(q))
    c2 = crit * crit
    denom = 1 + c2 / n_eff
    centre = (theta + c2 / (2 * n_eff)) / denom
    half = crit / denom * np.sqrt(np.maximum(theta * (1 - theta) / n_eff + c2 / (4 * n_eff**2), 0))
    return theta, np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)


def simulate_difference_pvalues(
    comp_a: Components,
    comp_b: Components,
    n_people: int,
    design: Design,
    *,
    reps: int = N_REPS,
    rng: np.random.Generator,
) -> FloatArray:
    """``reps`` studies with ``n_people`` per group (both groups from one item pool: the
    same item effects; the person SD the mean of the two fits'), each tested by
    ``crossed.clustered_difference`` over people and items: the p-values."""
    sd_p = (comp_a.sd_person + comp_b.sd_person) / 2
    sd_i = (comp_a.sd_item + comp_b.sd_item) / 2
    shared = Components(0.0, sd_p, sd_i, math.nan, math.nan, math.nan)
    item_effect = rng.standard_normal((reps, design.pool)) * sd_i
    items_a = _assign(rng, reps, n_people, design)
    items_b = _assign(rng, reps, n_people, design)
    y_a = _draw(rng, comp_a.mu, shared, item_effect, items_a, n_people)
    y_b = _draw(rng, comp_b.mu, shared, item_effect, items_b, n_people)
    n_a = y_a.shape[1]
    m_a, m_b = y_a.mean(axis=1), y_b.mean(axis=1)
    u = np.concatenate([(y_a - m_a[:, None]) / n_a, -(y_b - m_b[:, None]) / n_a], axis=1)
    items = np.concatenate([items_a, items_b], axis=1)
    person_sums = u.reshape(reps, 2 * n_people, -1).sum(axis=2)
    v, _v_ind, df = _crossed_variance(u, person_sums, items, design.pool)
    df = np.where(np.isfinite(df), df, 2 * n_a - 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (m_a - m_b) / np.sqrt(v)
    p = 2 * stats.t.sf(np.abs(t), df)
    return np.where(np.isfinite(t), p, 1.0)


@dataclass(frozen=True)
class SizePoint:
    n_people: int
    mean: float  # mean half-width (accuracy) or power (two groups)
    coverage: float  # accuracy: share of intervals covering the model's share
    assurance: float  # accuracy: share of studies whose half-width meets the goal


@dataclass(frozen=True)
class SizePlan:
    """``n_needed``: the fewest volunteers per group above the current number whose
    simulated studies meet the goal (None: none on the grid does). Whether the goal is
    met *now* is the caller's to say from the data's own interval or test, so a study
    is never told it is short while its interval already meets the goal."""

    n_needed: int | None
    at_needed: SizePoint | None
    at_now: SizePoint
    grid: tuple[SizePoint, ...]


def _plan(points: list[SizePoint], needed: SizePoint | None, n_now: int) -> SizePlan:
    now = next(p for p in points if p.n_people == max(n_now, 2))
    return SizePlan(needed.n_people if needed else None, needed, now, tuple(points))


def _grid(n_now: int) -> list[int]:
    return sorted({*PEOPLE_GRID, max(n_now, 2)})


def plan_half_width(
    comp: Components,
    design: Design,
    goal: float,
    n_now: int,
    *,
    confidence: float = 0.95,
    reps: int = N_REPS,
    seed: int = 0,
) -> SizePlan:
    """Volunteers per group for the people × items clustered interval's half-width to
    be at most ``goal`` on average, by simulation from ``comp`` (each size with its
    coverage of the model's share and its assurance)."""
    rng = np.random.default_rng(seed)
    points: list[SizePoint] = []
    needed: SizePoint | None = None
    for n in _grid(n_now):
        _theta, low, high = simulate_share_intervals(
            comp, n, design, reps=reps, confidence=confidence, rng=rng
        )
        half = (high - low) / 2
        cover = float(((low <= comp.share) & (comp.share <= high)).mean())
        point = SizePoint(n, float(half.mean()), cover, float((half <= goal).mean()))
        points.append(point)
        if point.mean <= goal and n > n_now:
            needed = point
            break
    return _plan(points, needed, n_now)


def plan_power(
    comp_a: Components,
    comp_b: Components,
    design: Design,
    power: float,
    n_now: int,
    *,
    alpha: float = 0.05,
    reps: int = N_REPS,
    seed: int = 0,
) -> SizePlan:
    """Volunteers per group for the clustered two-group test at ``alpha`` to have
    ``power``, by simulation from the two groups' fitted models (``mean``: the power)."""
    rng = np.random.default_rng(seed)
    points: list[SizePoint] = []
    needed: SizePoint | None = None
    for n in _grid(n_now):
        p = simulate_difference_pvalues(comp_a, comp_b, n, design, reps=reps, rng=rng)
        point = SizePoint(n, float((p < alpha).mean()), math.nan, math.nan)
        points.append(point)
        if point.mean >= power and n > n_now:
            needed = point
            break
    return _plan(points, needed, n_now)


@dataclass(frozen=True)
class AlphaAssurance:
    width_now: float  # the bootstrap interval's width of the data as they are
    n_units_now: int
    # the fewest units above the current number with ``assurance`` of studies meeting
    # the width, and the fewest whose mean width meets it (None: not on the grid)
    n_needed: int | None
    n_needed_mean: int | None
    mean_width: dict[int, float]
    assurance: dict[int, float]


def alpha_assurance(
    replicate: Callable[[FloatArray], FloatArray],
    n_units_now: int,
    width: float,
    *,
    confidence: float = 0.95,
    assurance: float = 0.8,
    n_sims: int = 100,
    n_inner: int = 100,
    seed: int = 0,
    grid: Sequence[int] = ALPHA_GRID,
) -> AlphaAssurance:
    """Units for alpha's own bootstrap interval to be at most ``width`` wide in
    ``assurance`` of studies (and, beside it, on average).

    Each of ``n_sims`` simulated studies of n units draws n of the observed units (with
    their coincidences) and computes its own percentile bootstrap interval from
    ``n_inner`` resamples of its units, as the report does for the real study; the
    assurance at n is the share of studies whose interval is at most ``width`` wide
    (Kelley & Rausch 2006 call it the assurance of an accuracy-in-parameter-estimation
    plan: meeting the width on average leaves about half the studies short)."""
    if n_units_now < 2:
        raise ValueError("alpha needs at least 2 pairable units to simulate from")
    if not 0 < width < 2 or not 0 < assurance < 1:
        raise ValueError("width must be between 0 and 2, assurance between 0 and 1")
    rng = np.random.default_rng(seed)
    uniform = np.full(n_units_now, 1.0 / n_units_now)
    tail = (1 - confidence) / 2 * 100

    def spread(values: FloatArray) -> FloatArray:
        out = np.full(values.shape[0], np.nan)
        for k, row in enumerate(values):
            ok = row[np.isfinite(row)]
            if ok.size >= values.shape[1] // 2:
                low, high = np.percentile(ok, [tail, 100 - tail])
                out[k] = high - low
        return out

    # the data as they are: one bootstrap interval of their own units
    resampled = rng.multinomial(n_units_now, uniform, size=n_inner * 2).astype(np.float64)
    now = spread(replicate(resampled)[None, :])
    width_now = float(now[0])
    mean_width: dict[int, float] = {}
    share_met: dict[int, float] = {}
    needed = needed_mean = None
    for n in sorted({*grid, n_units_now}):
        outer = rng.multinomial(n, uniform, size=n_sims).astype(np.float64)
        inner = rng.multinomial(n, outer / n, size=(n_inner, n_sims))  # inner × sims × units
        values = replicate(inner.transpose(1, 0, 2).reshape(n_sims * n_inner, -1).astype(float))
        widths = spread(values.reshape(n_sims, n_inner))
        ok = widths[np.isfinite(widths)]
        mean_width[n] = float(ok.mean()) if ok.size else math.nan
        share_met[n] = float((ok <= width).sum() / n_sims)
        if n <= n_units_now:
            continue
        if needed_mean is None and ok.size and mean_width[n] <= width:
            needed_mean = n
        if needed is None and share_met[n] >= assurance:
            needed = n
        if needed is not None and needed_mean is not None:
            break
    return AlphaAssurance(width_now, n_units_now, needed, needed_mean, mean_width, share_met)
