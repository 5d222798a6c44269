"""Item fit by summed scores: Orlando & Thissen's S-X² for the 1PL and 2PL.

Source: M. Orlando & D. Thissen (2000), "Likelihood-based item-fit indices for
dichotomous item response theory models", *Applied Psychological Measurement* 24:50-64;
the summed-score likelihoods by the recursion of F. M. Lord & M. S. Wingersky (1984),
"Comparison of IRT true-score and equipercentile observed-score 'equatings'", *Applied
Psychological Measurement* 8:453-461.

For unit i and summed score s (over all n units), the model's expected share right
among the respondents with score s is

    E_is = ∫ P_i(θ) S*_i(s − 1 | θ) φ(θ) dθ / ∫ S(s | θ) φ(θ) dθ

where S(s | θ) is the probability of summed score s at ability θ and S*_i the same
without unit i (Lord–Wingersky). Against the observed share O_is of the N_s
respondents with score s:

    S-X²_i = Σ_s N_s (O_is − E_is)² / (E_is (1 − E_is)),   s = 1 … n − 1

(scores 0 and n say nothing about fit), with adjacent score groups pooled until every
group's expected right and wrong counts reach ``MIN_EXPECTED`` (1, as in Orlando &
Thissen 2000), and df = groups − the unit's free parameters (2 for the
2PL, 1 for the 1PL: its slope is shared). Approximately χ² under the model, unlike
Pearson statistics over groups of *estimated* abilities, since the groups are observed
scores. Unlike the mean squares (``irt.mean_squares``) it has a reference
distribution, hence a p-value.

Summed scores are comparable only over the same units, so respondents are grouped into
**booklets**: the sets of units they answered (every respondent who answered exactly
units U is in booklet U). Within a booklet the statistic above is computed over its own
units (S and S*_i over U; the respondents who answered every unit are one booklet); a
unit's S-X² is the sum of its contributions from every booklet that contains it, and its
df the sum of their groups − the unit's free parameters (estimated once for all
booklets). Under the model the booklets' statistics are independent (different
respondents), so the sum is approximately χ² as each one is; it assumes, as the
complete-data statistic does, that which units a respondent answered does not depend on
their ability beyond what the fit's population N(0, 1) says (missing by design). Only
booklets of at least ``MIN_RESPONDENTS`` respondents, 2 or more units and at most
``MAX_UNITS`` units (the recursion is O(n³) over a booklet's units) count (``n``: their
respondents), the largest first until their Σ units³ would pass ``MAX_WORK``; a unit in
none of them has NaN and ``reasons`` says why (``reason``: when no unit has the
statistic). Volunteers who each answer a random subset of a large pool
form no booklet of 50 and get no S-X²: there the mean squares are the item fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import special, stats

from .irt import ItemFit, Responses, responses_of
from .table import FloatArray, IntArray

MIN_EXPECTED = 1.0
MIN_RESPONDENTS = 50
MAX_UNITS = 200
#: Σ (units of a booklet)³ over the booklets computed (the recursion's cost): four
#: booklets of ``MAX_UNITS`` units, about 3 s; booklets of 10 units are nearly free.
MAX_WORK = 4 * MAX_UNITS**3
GRID = np.linspace(-6.0, 6.0, 241)  # θ nodes (step 0.05) with N(0, 1) weights


@dataclass(frozen=True)
class SumScoreFit:
    statistic: FloatArray  # S-X² per unit
    df: FloatArray
    p_value: FloatArray
    n: int  # respondents in the booklets that count
    reason: str | None = None  # why no unit has the statistic
    reasons: tuple[str | None, ...] = ()  # per unit: why it has none (None: it has one)
    booklets: int = 0  # booklets that count


def booklets(x: Responses) -> list[tuple[IntArray, IntArray]]:
    """Every set of answered units (sorted unit indices) with its respondents, largest
    first (ties: by the units)."""
    order = np.lexsort((x.unit, x.person))
    person, unit = x.person[order], x.unit[order]
    starts = np.flatnonzero(np.r_[True, person[1:] != person[:-1]])
    by_set: dict[bytes, list[int]] = {}
    units_of: dict[bytes, IntArray] = {}
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < starts.size else person.size
        units = unit[start:stop]
        key = units.tobytes()
        by_set.setdefault(key, []).append(int(person[start]))
        units_of[key] = units
    found = [(units_of[k], np.asarray(v, dtype=np.int64)) for k, v in by_set.items()]
    found.sort(key=lambda b: (-b[1].size, b[0].size, b[0].tolist()))
    return found


def score_likelihoods(p: FloatArray) -> FloatArray:
    """Lord–Wingersky: P(summed score = s | θ) for s = 0 … n, from P_i(θ) (units × nodes);
    (n + 1) × nodes."""
    n_units, n_nodes = p.shape
    dist = np.zeros((n_units + 1, n_nodes))
    dist[0] = 1.0
    for k in range(n_units):
        right = dist[: k + 1] * p[k]
        dist[: k + 1] *= 1 - p[k]
        dist[1 : k + 2] += right
    return dist


def _weights() -> FloatArray:
    w = stats.norm.pdf(GRID)
    return np.asarray(w / w.sum(), dtype=np.float64)


def expected_shares(fit: ItemFit) -> FloatArray:
    """E_is of every unit i and score s = 0 … n (units × (n + 1); the module doc)."""
    a, b = fit.discrimination, fit.difficulty
    p = special.expit(a[:, None] * (GRID[None, :] - b[:, None]))
    w = _weights()
    n_units = p.shape[0]
    marginal = score_likelihoods(p) @ w
    out = np.full((n_units, n_units + 1), math.nan)
    for i in range(n_units):
        rest = score_likelihoods(np.delete(p, i, axis=0))  # scores 0 … n − 1 without i
        right = (rest * p[i]) @ w  # P(unit i right and the others sum to s − 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[i, 1:] = right / marginal[1:]
    return out


def _pooled(counts: FloatArray, expected: FloatArray) -> list[slice]:
    """Adjacent score groups pooled from the low score up until each has expected right
    and wrong counts of at least ``MIN_EXPECTED``; a short last group joins the one
    before it."""

    def enough(group: slice) -> bool:
        e = float(np.dot(counts[group], expected[group]))
        return min(e, float(counts[group].sum()) - e) >= MIN_EXPECTED

    groups: list[slice] = []
    start, size = 0, counts.size
    while start < size:
        stop = start + 1
        while stop < size and not enough(slice(start, stop)):
            stop += 1
        groups.append(slice(start, stop))
        start = stop
    while len(groups) > 1 and not enough(groups[-1]):
        last = groups.pop()
        groups[-1] = slice(groups[-1].start, last.stop)
    return groups


def _booklet_terms(complete: np.ndarray, fit: ItemFit) -> tuple[FloatArray, FloatArray]:
    """Σ_groups N_g (O − E)² / (E (1 − E)) and the number of pooled groups of every unit
    of one booklet (``complete``: its units × respondents, every cell answered; ``fit``:
    those units' parameters)."""
    n_units = complete.shape[0]
    score = complete.sum(axis=0)
    inner = (score > 0) & (score < n_units)
    counts = np.bincount(score[inner], minlength=n_units + 1)[1:n_units].astype(np.float64)
    expected = expected_shares(fit)[:, 1:n_units]
    chi2, n_groups = np.zeros(n_units), np.zeros(n_units)
    for i in range(n_units):
        rights = np.bincount(
            score[inner], weights=complete[i, inner].astype(np.float64), minlength=n_units + 1
        )[1:n_units]
        total = 0.0
        groups = _pooled(counts, expected[i])
        for g in groups:
            n_g = float(counts[g].sum())
            if n_g == 0:
                continue
            e = float(np.dot(counts[g], expected[i, g])) / n_g
            o = float(rights[g].sum()) / n_g
            total += n_g * (o - e) ** 2 / (e * (1 - e))
        chi2[i], n_groups[i] = total, len(groups)
    return chi2, n_groups


def _of_units(fit: ItemFit, units: IntArray) -> ItemFit:
    return replace(fit, difficulty=fit.difficulty[units], discrimination=fit.discrimination[units])


def s_x2(responses: np.ndarray | Responses, fit: ItemFit) -> SumScoreFit:
    """Orlando & Thissen's S-X² of every unit, summed over the booklets (sets of answered
    units) that count (``SumScoreFit``; the module doc)."""
    x = responses_of(responses)
    n_units = x.n_units
    nan = np.full(n_units, math.nan)
    chi2, n_groups = np.zeros(n_units), np.zeros(n_units)
    n, counted = 0, 0
    too_long = np.zeros(n_units, dtype=np.int64)  # a unit's longest booklet over MAX_UNITS
    over_budget = np.zeros(n_units, dtype=bool)
    work = 0
    for units, persons in booklets(x):
        if persons.size < MIN_RESPONDENTS:
            break  # largest first: no later booklet counts
        if units.size > MAX_UNITS:
            too_long[units] = np.maximum(too_long[units], units.size)
            continue
        if units.size < 2:
            continue
        if work + units.size**3 > MAX_WORK:
            over_budget[units] = True
            continue
        work += units.size**3
        terms, groups = _booklet_terms(x.matrix(persons)[units], _of_units(fit, units))
        chi2[units] += terms
        n_groups[units] += groups
        n, counted = n + int(persons.size), counted + 1
    has = n_groups > 0
    reasons = tuple(
        None
        if h
        else f"{long} units: S-X² is computed up to {MAX_UNITS}"
        if long
        else "its booklets are past S-X²'s computing budget (larger booklets first)"
        if over
        else f"fewer than {MIN_RESPONDENTS} respondents share a set of answered units "
        "with this one in it (S-X²)"
        for h, long, over in zip(has, too_long.tolist(), over_budget.tolist(), strict=True)
    )
    if not has.any():
        reason = next((r for r in reasons if r), None)
        return SumScoreFit(nan, nan.copy(), nan.copy(), 0, reason, reasons, 0)
    params = 2 if fit.model == "2pl" else 1
    df = np.where(has, n_groups - params, math.nan)
    chi2 = np.where(has, chi2, math.nan)
    with np.errstate(invalid="ignore"):
        p_value = np.where(df > 0, stats.chi2.sf(chi2, np.maximum(df, 1)), math.nan)
    return SumScoreFit(chi2, df, p_value.astype(np.float64), n, None, reasons, counted)
