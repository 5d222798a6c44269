"""Krippendorff's alpha at the nominal, ordinal, interval and ratio levels.

Source: K. Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
Annenberg School for Communication, University of Pennsylvania (section C:
data with missing values); K. Krippendorff (2019), "Content Analysis", 4th ed.,
ch. 12. alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck,
where o is the coincidence matrix of pairable values (units with two or more
values), n_c its margins, n their total, and d the level's squared distance.

The value is evaluated here from per-unit sums in units x values memory (no
units x values^2 coincidence arrays). The tests check it against the reference
implementation, the ``krippendorff`` package (Castro 2017), and the paper's
worked example; the package is a test dependency only (it is GPL-3.0).
The ordinal distance is an interval distance on mid-ranks
a_c = n_1 + ... + n_(c-1) + n_c / 2 (Krippendorff 2011, ordinal metric), which
is what makes the per-unit and vectorised bootstrap formulas possible.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .analytic import alpha_se
from .bootstrap import Plan, Seed, with_intervals
from .results import AgreementResult, undefined
from .table import FloatArray, Level, RatingTable, check_level

# Above this many units x values^2 cells the ordinal bootstrap replicates are computed from
# per-unit sums rather than from the per-unit outer products (memory).
PACKAGE_CELL_BUDGET = 4_000_000
METRIC = "krippendorff_alpha"


def _ratio_distance(x: FloatArray) -> FloatArray:
    s = x[:, None] + x[None, :]
    diff = x[:, None] - x[None, :]
    out: FloatArray = np.divide(diff, s, out=np.zeros_like(diff), where=s != 0) ** 2
    return out


def agreement_weights(level: Level, x: FloatArray) -> FloatArray:
    """1 - the level's distance scaled to [0, 1] (the agreement weights of Gwet's form of
    alpha): identity for nominal data, quadratic for interval, Krippendorff's ratio
    distance for ratio. Not for ordinal data (its distance depends on the margins)."""
    if level == "nominal":
        return np.eye(x.size)
    d = _ratio_distance(x) if level == "ratio" else (x[:, None] - x[None, :]) ** 2
    top = float(d.max())
    out: FloatArray = 1.0 - d / top if top > 0 else np.ones_like(d)
    return out


def _midranks(n_v: FloatArray) -> FloatArray:
    """Mid-rank position of each value among all pairable values, centred."""
    cum = np.cumsum(n_v, axis=-1)
    a = cum - n_v / 2.0
    return a - cum[..., -1:] / 2.0


def _spread(counts: FloatArray, m: FloatArray, x: FloatArray) -> FloatArray:
    """sum_ck n_uc n_uk (x_c - x_k)^2 for each row = 2 m sum_c n_uc (x_c - mean_u)^2."""
    mean = (counts @ x) / m
    out: FloatArray = 2.0 * m * (counts * (x[None, :] - mean[:, None]) ** 2).sum(axis=1)
    return out


def _expected_sum(n_v: FloatArray, level: Level, x: FloatArray) -> float:
    """n_v' d n_v from the pairable-value margins alone."""
    n = n_v.sum()
    if level == "nominal":
        return float(n**2 - (n_v**2).sum())
    if level == "ratio":
        return float(n_v @ _ratio_distance(x) @ n_v)
    pos = _midranks(n_v) if level == "ordinal" else x - x.mean()
    return float(_spread(n_v[None, :], np.asarray([n]), pos)[0])


def _sums(counts: FloatArray, m: FloatArray, level: Level, x: FloatArray) -> tuple[float, float]:
    """(sum_u n_u' d n_u / (m_u - 1), n_v' d n_v): observed and expected sums."""
    n_v = counts.sum(axis=0)
    if level == "nominal":
        within = m**2 - (counts**2).sum(axis=1)
    elif level == "ratio":
        within = ((counts @ _ratio_distance(x)) * counts).sum(axis=1)
    else:
        pos = _midranks(n_v) if level == "ordinal" else x - x.mean()
        within = _spread(counts, m, pos)
    return float((within / (m - 1)).sum()), _expected_sum(n_v, level, x)


def _replicates(
    counts: FloatArray, m: FloatArray, level: Level, x: FloatArray
) -> Callable[[FloatArray], FloatArray]:
    """A function from draw weights (B x units) to B alpha values."""
    if level == "ordinal" and counts.shape[0] * counts.shape[1] ** 2 <= PACKAGE_CELL_BUDGET:
        # sum_u w_u n_u' d n_u / (m_u - 1) with d = (a_c - a_k)^2 equals
        # 2 [sum_c a_c^2 (w @ C m/(m-1))_c - a' (w @ P) a], P_u = n_u n_u' / (m_u - 1):
        # two matrix products per chunk of replicates.
        v = counts.shape[1]
        lead = counts * (m / (m - 1))[:, None]
        outer = (counts[:, :, None] * counts[:, None, :]).reshape(-1, v * v) / (m - 1)[:, None]

        def ordinal_small(w: FloatArray) -> FloatArray:
            n_v = w @ counts
            n = n_v.sum(axis=1)
            a = _midranks(n_v)
            quad = np.einsum("bc,bck,bk->b", a, (w @ outer).reshape(-1, v, v), a)
            observed = 2.0 * (((w @ lead) * a**2).sum(axis=1) - quad)
            between = 2.0 * (n * (n_v * a**2).sum(axis=1) - (n_v * a).sum(axis=1) ** 2)
            return _finish(observed, between, n_v)

        return ordinal_small
    if level == "ordinal":

        def ordinal(w: FloatArray) -> FloatArray:
            n_v = w @ counts
            n = n_v.sum(axis=1)
            a = _midranks(n_v)  # B x V
            s1 = counts @ a.T  # units x B
            s2 = counts @ (a**2).T
            within = 2.0 * (m[:, None] * s2 - s1**2) / (m[:, None] - 1)
            observed = (w * within.T).sum(axis=1)
            between = 2.0 * (n * (n_v * a**2).sum(axis=1) - (n_v * a).sum(axis=1) ** 2)
            return _finish(observed, between, n_v)

        return ordinal
    if level == "nominal":
        per_unit = (m**2 - (counts**2).sum(axis=1)) / (m - 1)
        d = 1.0 - np.eye(x.size)
    else:
        d = _ratio_distance(x) if level == "ratio" else (x[:, None] - x[None, :]) ** 2
        per_unit = ((counts @ d) * counts).sum(axis=1) / (m - 1)

    def fixed(w: FloatArray) -> FloatArray:
        n_v = w @ counts
        between = np.einsum("bi,ij,bj->b", n_v, d, n_v)
        return _finish(w @ per_unit, between, n_v)

    return fixed


def _finish(observed: FloatArray, between: FloatArray, n_v: FloatArray) -> FloatArray:
    """alpha per replicate; NaN where fewer than two distinct values were drawn."""
    n = n_v.sum(axis=1)
    varied = (n_v > 0).sum(axis=1) >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - (n - 1) * observed / between
    return np.where(varied, out, np.nan)


#: Beyond 2^53 float64 no longer holds every integer: distinct values may coincide and
#: their differences lose digits.
EXACT_LIMIT = 2.0**53


def _precision_problem(x: FloatArray) -> str | None:
    """Why float64 cannot measure the differences of these values (None when it can)."""
    if not np.all(np.isfinite(x)):
        return "a value is infinite or too large for float64: alpha is undefined"
    top = float(np.max(np.abs(x)))
    if top >= EXACT_LIMIT or np.unique(x).size < x.size:
        return (
            f"values as large as {top:.17g} (2^53 or more): float64 cannot hold their "
            "differences exactly (distinct values may coincide), so alpha is not computed"
        )
    return None


def krippendorff_alpha(
    table: RatingTable,
    *,
    level: str | None = None,
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Krippendorff's alpha; ``level`` defaults to the table's level.

    Units with fewer than two ratings carry no pairable values and are left
    out (Krippendorff 2011, step C.1). If there is no pairable unit, or all
    pairable values are equal (D_e = 0, alpha = 0/0), or interval/ratio values are
    too large for float64 to hold their differences (|value| >= 2^53, or squares
    that overflow), the value is NaN with a reason. ``n_boot > 0`` adds a percentile bootstrap CI over the
    pairable units (vectorised).
    """
    plan = alpha_plan(table, level=level)
    return with_intervals([plan], n_boot=n_boot, confidence=confidence, seed=seed)[0]


def alpha_plan(table: RatingTable, *, level: str | None = None) -> Plan:
    """The point estimate and its bootstrap recipe (see ``krippendorff_alpha``)."""
    lvl = check_level(level or table.level)
    table = table.with_level(lvl) if lvl != table.level else table
    all_counts = table.counts()
    per_unit = all_counts.sum(axis=1)  # ratings per unit: one pass over the ratings only
    keep_units = per_unit >= 2
    if not keep_units.all():
        all_counts = all_counts[keep_units]
    used = all_counts.sum(axis=0) > 0
    counts = (all_counts[:, used] if not used.all() else all_counts).astype(np.float64)
    m = per_unit[keep_units].astype(np.float64)
    n_units = int(counts.shape[0])
    n_ratings = int(m.sum())
    # Raters with a pairable value (a resampled table may name raters it has no rating of).
    raters = (
        table.rater_codes if keep_units.all() else table.rater_codes[keep_units[table.unit_codes]]
    )
    n_raters = int(np.count_nonzero(np.bincount(raters)))
    if n_units == 0:
        return Plan(undefined(METRIC, lvl, "no unit has two or more ratings (no pairable values)"))
    if counts.shape[1] < 2:
        result = undefined(
            METRIC,
            lvl,
            "all pairable values are identical: expected disagreement D_e = 0, "
            "alpha = 0/0 is undefined",
            n_units=n_units,
            n_raters=n_raters,
            n_ratings=n_ratings,
        )
        return Plan(result, np.flatnonzero(keep_units), None)
    x = table.numeric_domain()[used] if lvl in ("interval", "ratio") else np.arange(used.sum())
    x = x.astype(np.float64)
    imprecise = _precision_problem(x) if lvl in ("interval", "ratio") else None
    if imprecise is not None:
        return Plan(
            undefined(
                METRIC, lvl, imprecise, n_units=n_units, n_raters=n_raters, n_ratings=n_ratings
            )
        )
    n = float(n_ratings)
    with np.errstate(over="ignore", invalid="ignore"):
        within, between = _sums(counts, m, lvl, x)
        value = 1.0 - (n - 1) * within / between
    if not np.isfinite(value):
        why = (
            "the squared differences of the values overflow float64 "
            f"(largest |value| {np.max(np.abs(x)):.3g}): alpha is not a finite number"
        )
        return Plan(
            undefined(METRIC, lvl, why, n_units=n_units, n_raters=n_raters, n_ratings=n_ratings)
        )
    result = AgreementResult(
        metric=METRIC,
        level=lvl,
        value=value,
        n_units=n_units,
        n_raters=n_raters,
        n_ratings=n_ratings,
        observed=within / n,
        expected=between / (n * (n - 1)),
    )
    if lvl != "ordinal":
        rated = int(np.count_nonzero(per_unit))
        result = result.with_se(*alpha_se(counts, agreement_weights(lvl, x), rated))
    built: list[Callable[[FloatArray], FloatArray]] = []

    def replicate(w: FloatArray) -> FloatArray:
        # Built on first use: its per-unit precomputation is wasted without a CI.
        if not built:
            built.append(_replicates(counts, m, lvl, x))
        return built[0](w)

    return Plan(result, np.flatnonzero(keep_units), replicate)
