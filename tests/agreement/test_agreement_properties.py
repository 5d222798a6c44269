"""Property tests: the count-matrix route equals the package's reliability-data route; invariances."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.agreement import (
    Level,
    RatingTable,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
)

# raters x units matrices with values 1..5 or missing (None)
matrices = st.integers(2, 5).flatmap(
    lambda raters: st.integers(1, 8).flatmap(
        lambda units: st.lists(
            st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=units, max_size=units),
            min_size=raters,
            max_size=raters,
        )
    )
)
LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def to_table(matrix: list[list[int | None]], level: str) -> RatingTable:
    return RatingTable.from_wide({f"r{i}": row for i, row in enumerate(matrix)}, level=level)


def package_alpha(matrix: list[list[int | None]], level: Level) -> float:
    data = np.asarray([[np.nan if v is None else v for v in row] for row in matrix], float)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:  # the package refuses: one value, or nothing pairable
        return math.nan


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(matrices, st.sampled_from(LEVELS))
def test_alpha_from_counts_equals_alpha_from_reliability_data(
    matrix: list[list[int | None]], level: Level
) -> None:
    ours = krippendorff_alpha(to_table(matrix, level)).value
    reference = package_alpha(matrix, level)
    if math.isnan(reference):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(reference, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(matrices, st.randoms(use_true_random=False), st.sampled_from(LEVELS))
def test_coefficients_ignore_unit_and_rater_order(
    matrix: list[list[int | None]], rnd: object, level: str
) -> None:
    rng = rnd  # hypothesis' Random
    raters = list(range(len(matrix)))
    units = list(range(len(matrix[0])))
    rng.shuffle(raters)  # type: ignore[attr-defined]
    rng.shuffle(units)  # type: ignore[attr-defined]
    shuffled = [[matrix[r][u] for u in units] for r in raters]
    a, b = to_table(matrix, level), to_table(shuffled, level)
    for statistic in (krippendorff_alpha, fleiss_kappa, gwet_ac1, percent_agreement):
        x, y = statistic(a).value, statistic(b).value
        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=1, max_size=30),
    st.sampled_from(["none", "linear", "quadratic"]),
)
def test_cohen_kappa_is_symmetric_in_the_two_raters(
    pairs: list[tuple[int, int]], weights: str
) -> None:
    rows = [(i, "a", x) for i, (x, _) in enumerate(pairs)] + [
        (i, "b", y) for i, (_, y) in enumerate(pairs)
    ]
    swapped = [(u, "b" if r == "a" else "a", v) for u, r, v in rows]
    k1 = cohen_kappa(RatingTable.from_rows(rows, level="ordinal"), weights=weights).value
    k2 = cohen_kappa(RatingTable.from_rows(swapped, level="ordinal"), weights=weights).value
    assert (math.isnan(k1) and math.isnan(k2)) or k1 == pytest.approx(k2)
    assert math.isnan(k1) or k1 <= 1 + 1e-12


@settings(max_examples=100, deadline=None)
@given(matrices)
def test_percent_agreement_is_a_proportion_and_ac1_at_most_one(
    matrix: list[list[int | None]],
) -> None:
    table = to_table(matrix, "nominal")
    pa = percent_agreement(table).value
    assert math.isnan(pa) or 0 <= pa <= 1
    ac1 = gwet_ac1(table).value
    assert math.isnan(ac1) or ac1 <= 1 + 1e-12


@settings(max_examples=100, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda m: st.lists(
            st.lists(st.integers(0, 3), min_size=m, max_size=m), min_size=1, max_size=10
        )
    )
)
def test_fleiss_kappa_equals_the_1971_formula_with_a_constant_number_of_raters(
    values: list[list[int]],
) -> None:
    # Fleiss (1971): P_i = (sum_j n_ij^2 - m) / (m (m - 1)), p_j = sum_i n_ij / (N m).
    m = len(values[0])
    rows = [(u, r, v) for u, unit in enumerate(values) for r, v in enumerate(unit)]
    table = RatingTable.from_rows(rows)
    n = np.asarray([[unit.count(c) for c in range(4)] for unit in values], float)
    p_bar = ((n**2).sum(axis=1) - m).mean() / (m * (m - 1))
    p_e = ((n.sum(axis=0) / (len(values) * m)) ** 2).sum()
    result = fleiss_kappa(table)
    if p_e >= 1 - 1e-12:
        assert math.isnan(result.value)
    else:
        assert result.value == pytest.approx((p_bar - p_e) / (1 - p_e), abs=1e-12)
