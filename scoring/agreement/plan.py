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

at the current number and then ``PEOPLE_GRID``'s sizes above it in turn (a size below
the current number is never the one needed, so it is not simulated). The goal is met
*now* when the data's own interval meets it; otherwise the size needed is the first size
above the current one whose simulated studies meet it (so no row says "short" with
nothing more to collect). For Krippendorff's alpha, studies of n units are drawn from
the observed units (with their coincidences) and each gets its own bootstrap interval
(``alpha_assurance``): the units for 80 % of studies to reach the width, beside those
for the mean width; every resample of every simulated study is drawn at once, as unit
indices, and scored by one ``replicate`` call per chunk of studies.

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
from functools import cache

import numpy as np
from scipy import optimize, special, stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from .crossed import ZERO_VARIANCE
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


@cache
def _nodes() -> tuple[FloatArray, FloatArray]:
    """Gauss–Hermite nodes and normalised weights for a standard normal (computed once:
    the solver evaluates the moments about a hundred times per fit)."""
    x, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    return x, w / w.sum()


def _moments(mu: float, sd_p: float, sd_i: float) -> tuple[float, float, float]:
    """Share, person ICC and item ICC on the 0/1 scale of the logistic model, by
    Gauss–Hermite quadrature over both intercepts."""
    x, w = _nodes()
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


# How the simulation lays the answers out (exact, and cheaper than drawing every item
# index): answer t of a group's volunteers (person-major, ``k`` each) is at position
# t mod pool of the group's random order of the pool. Item effects are independent of
# that order and identically distributed, so an item's effect can be drawn for its
# position: one group needs no order at all, and a second group over the same items
# needs only the random permutation taking its positions to the first group's. Every
# per-answer array is then a reshape, and the statistics need only each volunteer's
# and each position's number right.


#: Answers simulated per pass (a few studies at a time, so each pass's arrays stay in the
#: processor's cache instead of streaming every study's answers through memory).
CHUNK_ANSWERS = 1 << 16


def _tiled(at_position: FloatArray, n: int) -> FloatArray:
    """The value of each of ``n`` answers from the value of each position (reps × pool):
    answer t is at position t mod pool."""
    cycles = -(-n // at_position.shape[1])
    out: FloatArray = np.tile(at_position, (1, cycles))[:, :n]
    return out


def _by_position(y: np.ndarray, pool: int) -> FloatArray:
    """Sums of ``y`` (reps × answers) over the answers at each position (reps × pool)."""
    reps, n = y.shape
    cycles = -(-n // pool)
    if n != cycles * pool:
        padded = np.zeros((reps, cycles * pool), dtype=y.dtype)
        padded[:, :n] = y
        y = padded
    out: FloatArray = y.reshape(reps, cycles, pool).sum(axis=1, dtype=np.float64)
    return out


def _position_counts(n: int, pool: int) -> FloatArray:
    """How many of ``n`` answers are at each position."""
    out: FloatArray = n // pool + (np.arange(pool) < n % pool).astype(np.float64)
    return out


def _right(
    rng: np.random.Generator,
    mu: float,
    sd_person: float,
    effect: FloatArray,
    n_people: int,
    k: int,
) -> tuple[FloatArray, FloatArray]:
    """Simulated answers of ``n_people`` volunteers with ``k`` items each, the items'
    effects by position (reps × pool): each volunteer's number right (reps × people)
    and each position's (reps × pool)."""
    reps, pool = effect.shape
    person = rng.standard_normal((reps, n_people)) * sd_person
    by_person = np.empty((reps, n_people))
    by_position = np.empty((reps, pool))
    chunk = max(1, CHUNK_ANSWERS // (n_people * k))  # studies per pass, held in cache
    for start in range(0, reps, chunk):
        rows = slice(start, min(start + chunk, reps))
        c = rows.stop - rows.start
        eta = (mu + person[rows])[:, :, None] + _tiled(effect[rows], n_people * k).reshape(
            c, n_people, k
        )
        y = rng.random((c, n_people, k)) < special.expit(eta)
        by_person[rows] = y.sum(axis=2)
        by_position[rows] = _by_position(y.reshape(c, -1), pool)
    return by_person, by_position


def _crossed_variance(
    n: int, v_ind: FloatArray, person_sums: FloatArray, item_sums: FloatArray, g_i: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """CGM's people × items variance of each simulated study, the rule of
    ``crossed.multiway_variance`` (one answer per person and item, so the intersection
    term is the independent-answers variance ``v_ind``), and its degrees of freedom;
    ``person_sums`` and ``item_sums``: the scores summed by person and by item (an
    unused item's sum is 0), ``g_i`` the items used, ``n`` the answers."""
    g_p = float(person_sums.shape[1])
    v = v_ind.copy()
    df = np.full(v_ind.shape[0], np.inf)
    by_person = 1 < g_p < n  # people with more than one answer each
    if by_person:
        v_p = g_p / (g_p - 1) * (person_sums**2).sum(axis=1)
        v = v_p
        df = np.minimum(df, g_p - 1)
    crossed = g_i < n
    with np.errstate(divide="ignore", invalid="ignore"):
        v_i = np.where(crossed, g_i / (g_i - 1) * (item_sums**2).sum(axis=1), v_ind)
    if by_person:
        two = v_p + v_i - v_ind
        both = np.where(two > ZERO_VARIANCE * v_ind, two, np.maximum(v_p, v_i))
        v = np.where(crossed, both, v_p)
    else:
        v = np.where(crossed, v_i, v)
    df = np.where(crossed, np.minimum(df, g_i - 1), df)
    return v, df


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
    k = min(design.per_person, design.pool)
    n = n_people * k
    effect = rng.standard_normal((reps, design.pool)) * comp.sd_item
    by_person, by_item = _right(rng, comp.mu, comp.sd_person, effect, n_people, k)
    theta = by_person.sum(axis=1) / n
    # the scores u = (y - theta) / n summed by person and by item, and n / (n - 1) Σ u²
    person_sums = (by_person - k * theta[:, None]) / n
    item_sums = (by_item - _position_counts(n, design.pool) * theta[:, None]) / n
    v_ind = theta * (1 - theta) / (n - 1)
    g_i = np.full(reps, float(min(n, design.pool)))
    v, df = _crossed_variance(n, v_ind, person_sums, item_sums, g_i)
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = v / v_ind
        # a variance zero up to rounding: design effect taken as 1, as clustered_mean does
        n_eff = np.where(np.isfinite(deff) & (deff > ZERO_VARIANCE), n / deff, float(n))
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
    pool = design.pool
    k = min(design.per_person, pool)
    n_a = n_people * k
    effect = rng.standard_normal((reps, pool)) * sd_i  # by item = group A's position
    to_item = np.argsort(rng.random((reps, pool)), axis=1)  # group B's position → item
    a_person, a_item = _right(rng, comp_a.mu, sd_p, effect, n_people, k)
    b_person, b_position = _right(
        rng, comp_b.mu, sd_p, np.take_along_axis(effect, to_item, axis=1), n_people, k
    )
    m_a, m_b = a_person.sum(axis=1) / n_a, b_person.sum(axis=1) / n_a
    # the scores u: (y - m_a) / n_a for group A's answers, -(y - m_b) / n_a for B's
    counts = _position_counts(n_a, pool)
    person_sums = np.concatenate(
        [(a_person - k * m_a[:, None]) / n_a, -(b_person - k * m_b[:, None]) / n_a], axis=1
    )
    b_item = np.empty_like(b_position)
    np.put_along_axis(b_item, to_item, -(b_position - counts * m_b[:, None]) / n_a, axis=1)
    item_sums = (a_item - counts * m_a[:, None]) / n_a + b_item
    used = min(n_a, pool)  # A's items are the positions below it; B's add those it maps above
    g_i = used + (to_item[:, :used] >= used).sum(axis=1).astype(np.float64)
    n = 2 * n_a
    v_ind = n / (n - 1) * (m_a * (1 - m_a) + m_b * (1 - m_b)) / n_a
    v, df = _crossed_variance(n, v_ind, person_sums, item_sums, g_i)
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
    grid: tuple[SizePoint, ...]  # the sizes simulated: the current number and up


def _plan(points: list[SizePoint], needed: SizePoint | None, n_now: int) -> SizePlan:
    now = next(p for p in points if p.n_people == max(n_now, 2))
    return SizePlan(needed.n_people if needed else None, needed, now, tuple(points))


def _grid(n_now: int) -> list[int]:
    """The sizes simulated: the current number, then the grid above it (a size below
    the current number is never the one needed)."""
    now = max(n_now, 2)
    return [now, *sorted(n for n in PEOPLE_GRID if n > now)]


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
    # the width, and the fewest whose mean width meets it (None: not on the grid, or
    # not searched because the data's own interval meets the width: ``search_if_met``)
    n_needed: int | None
    n_needed_mean: int | None
    # the sizes simulated: the current number, then the grid above it in turn
    mean_width: dict[int, float]
    assurance: dict[int, float]


#: Most unit draws held at once by ``alpha_assurance`` (int64: 8 bytes each), so a large
#: study's simulation runs in chunks of studies instead of one array of every resample.
DRAW_BUDGET = 4_000_000


def _spreads(values: FloatArray, tail: float) -> FloatArray:
    """Each row's percentile interval width (NaN where fewer than half its values are
    finite): ``np.percentile`` of the row's finite values, every row at once."""
    values = np.where(np.isfinite(values), values, np.nan)
    finite = np.isfinite(values)
    out = np.full(values.shape[0], np.nan)
    full = finite.all(axis=1)
    if full.any():
        low, high = np.percentile(values[full], [tail, 100 - tail], axis=1)
        out[full] = high - low
    part = ~full & (finite.sum(axis=1) >= values.shape[1] // 2)
    if part.any():
        low, high = np.nanpercentile(values[part], [tail, 100 - tail], axis=1)
        out[part] = high - low
    return out


def _indices(rng: np.random.Generator, bound: int, size: tuple[int, ...]) -> np.ndarray:
    """Uniform draws from 0 .. bound - 1 (16-bit where they fit: fewer random bits)."""
    return rng.integers(0, bound, size=size, dtype=np.uint16 if bound <= 1 << 16 else np.int64)


def _unit_weights(units: np.ndarray, n_units: int, out: FloatArray | None = None) -> FloatArray:
    """How many times each of ``n_units`` units is in each row of draws (rows × draws of
    unit indices): the rows' weights for a ``replicate`` (written into ``out``)."""
    rows = units.shape[0]
    flat = (units + n_units * np.arange(rows, dtype=np.int64)[:, None]).ravel()
    counts = np.bincount(flat, minlength=rows * n_units).reshape(rows, n_units)
    if out is None:
        return counts.astype(np.float64)
    out[...] = counts
    return out


def _study_widths(
    replicate: Callable[[FloatArray], FloatArray],
    rng: np.random.Generator,
    n_units_now: int,
    n: int,
    n_sims: int,
    n_inner: int,
    tail: float,
) -> FloatArray:
    """The bootstrap interval widths of ``n_sims`` simulated studies of ``n`` units.

    A study draws n of the observed units at random with replacement (a multinomial
    draw of n over the units); each of its ``n_inner`` resamples draws n of the study's
    n draws at random with replacement (a multinomial draw of n over the study's
    counts). Drawn as unit indices, every resample of a chunk of studies at once, and
    turned into weights for one ``replicate`` call per chunk."""
    chunk = max(1, DRAW_BUDGET // (n_inner * max(n, n_units_now)))
    out = np.empty(n_sims)
    for start in range(0, n_sims, chunk):
        c = min(chunk, n_sims - start)
        outer = _indices(rng, n_units_now, (c, n))
        slots = _indices(rng, n, (c, n_inner, n))
        weights = np.empty((c * n_inner, n_units_now))
        for k in range(c):  # one study at a time: its draws stay in cache
            rows = weights[k * n_inner : (k + 1) * n_inner]
            _unit_weights(np.take(outer[k], slots[k]), n_units_now, rows)
        values = replicate(weights)
        out[start : start + c] = _spreads(values.reshape(c, n_inner), tail)
    return out


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
    search_if_met: bool = True,
) -> AlphaAssurance:
    """Units for alpha's own bootstrap interval to be at most ``width`` wide in
    ``assurance`` of studies (and, beside it, on average).

    Each of ``n_sims`` simulated studies of n units draws n of the observed units (with
    their coincidences) and computes its own percentile bootstrap interval from
    ``n_inner`` resamples of its units, as the report does for the real study; the
    assurance at n is the share of studies whose interval is at most ``width`` wide
    (Kelley & Rausch 2006 call it the assurance of an accuracy-in-parameter-estimation
    plan: meeting the width on average leaves about half the studies short).

    Simulated: the current number of units, then the grid's sizes above it in turn until
    both sizes are found (sizes below the current number cannot be needed). With
    ``search_if_met=False`` the search stops at the current number when the data's own
    interval already meets the width (the plan's rows need nothing more then)."""
    if n_units_now < 2:
        raise ValueError("alpha needs at least 2 pairable units to simulate from")
    if not 0 < width < 2 or not 0 < assurance < 1:
        raise ValueError("width must be between 0 and 2, assurance between 0 and 1")
    rng = np.random.default_rng(seed)
    tail = (1 - confidence) / 2 * 100
    # the data as they are: one bootstrap interval of their own units
    resamples = _indices(rng, n_units_now, (n_inner * 2, n_units_now))
    width_now = float(_spreads(replicate(_unit_weights(resamples, n_units_now))[None, :], tail)[0])
    met_now = math.isfinite(width_now) and width_now <= width
    mean_width: dict[int, float] = {}
    share_met: dict[int, float] = {}
    needed = needed_mean = None
    for n in [n_units_now, *sorted(m for m in set(grid) if m > n_units_now)]:
        widths = _study_widths(replicate, rng, n_units_now, n, n_sims, n_inner, tail)
        ok = widths[np.isfinite(widths)]
        mean_width[n] = float(ok.mean()) if ok.size else math.nan
        share_met[n] = float((ok <= width).sum() / n_sims)
        if n == n_units_now:
            if met_now and not search_if_met:
                break
            continue
        if needed_mean is None and ok.size and mean_width[n] <= width:
            needed_mean = n
        if needed is None and share_met[n] >= assurance:
            needed = n
        if needed is not None and needed_mean is not None:
            break
    return AlphaAssurance(width_now, n_units_now, needed, needed_mean, mean_width, share_met)
