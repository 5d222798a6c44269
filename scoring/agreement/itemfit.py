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

It needs every respondent's summed score over the same units: only respondents who
answered every unit count (``n``); with fewer than ``MIN_RESPONDENTS`` of them, or more
than ``MAX_UNITS`` units (the recursion is O(n³) over all units), the statistic is
not computed (NaN) and ``reason`` says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .irt import ItemFit, Responses, responses_of
from .table import FloatArray

MIN_EXPECTED = 1.0
MIN_RESPONDENTS = 50
MAX_UNITS = 200
GRID = np.linspace(-6.0, 6.0, 241)  # θ nodes (step 0.05) with N(0, 1) weights


@dataclass(frozen=True)
class SumScoreFit:
    statistic: FloatArray  # S-X² per unit
    df: FloatArray
    p_value: FloatArray
    n: int  # respondents with every unit answered
    reason: str | None = None


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


def s_x2(responses: np.ndarray | Responses, fit: ItemFit) -> SumScoreFit:
    """Orlando & Thissen's S-X² of every unit (``SumScoreFit``; the module doc)."""
    x = responses_of(responses)
    n_units = x.n_units
    nan = np.full(n_units, math.nan)
    everyone = np.flatnonzero(x.per_person() == n_units)  # who answered every unit
    n = int(everyone.size)
    reason = None
    if n_units > MAX_UNITS:
        reason = f"{n_units} units: S-X² is computed up to {MAX_UNITS}"
    elif n < MIN_RESPONDENTS:
        reason = f"{n} respondents answered every unit: S-X² needs {MIN_RESPONDENTS}"
    if reason:
        return SumScoreFit(nan, nan.copy(), nan.copy(), n, reason)
    complete = x.matrix(everyone)
    score = complete.sum(axis=0)
    inner = (score > 0) & (score < n_units)
    counts = np.bincount(score[inner], minlength=n_units + 1)[1:n_units].astype(np.float64)
    expected = expected_shares(fit)[:, 1:n_units]
    params = 2 if fit.model == "2pl" else 1
    chi2, df = nan.copy(), nan.copy()
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
        chi2[i], df[i] = total, len(groups) - params
    with np.errstate(invalid="ignore"):
        p_value = np.where(df > 0, stats.chi2.sf(chi2, np.maximum(df, 1)), math.nan)
    return SumScoreFit(chi2, df, p_value.astype(np.float64), n)
