"""Report helpers: mean CIs, differences of means, percentile ranks, degenerate inputs."""

from __future__ import annotations

import math

import pytest

from scoring.agreement import (
    correlations,
    mean_ci,
    mean_difference_ci,
    percentile_rank,
    wilson_interval,
)


def test_mean_ci_normal_is_mean_plus_minus_1_96_se() -> None:
    values = [2, 4, 4, 4, 5, 5, 7, 9]
    result = mean_ci(values)
    sd = 2.138089935299395  # sample SD (n - 1) of the classic 2,4,4,4,5,5,7,9
    se = sd / math.sqrt(8)
    assert result.mean == 5.0 and result.sd == pytest.approx(sd)
    assert result.ci_low == pytest.approx(5 - 1.959964 * se, abs=1e-6)
    assert result.ci_high == pytest.approx(5 + 1.959964 * se, abs=1e-6)


def test_mean_ci_t_uses_student_quantile() -> None:
    result = mean_ci([2, 4, 4, 4, 5, 5, 7, 9], method="t")
    # t(0.975, 7) = 2.364624
    assert result.ci_high - result.mean == pytest.approx(2.364624 * result.se, abs=1e-6)


def test_mean_ci_degenerate_inputs() -> None:
    assert math.isnan(mean_ci([]).mean)
    one = mean_ci([3.0, None])
    assert one.mean == 3.0 and math.isnan(one.ci_low) and one.n == 1


def test_mean_difference_ci() -> None:
    result = mean_difference_ci([4, 5, 6], [1, 2, 3])
    assert result.mean == 3.0
    se = math.sqrt(1 / 3 + 1 / 3)
    assert result.ci_low == pytest.approx(3 - 1.959964 * se, abs=1e-6)
    assert math.isnan(mean_difference_ci([1], [2, 3]).ci_low)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.5, 0.0), (1.0, 12.5), (2.0, 50.0), (3.0, 87.5), (9.0, 100.0)],
)
def test_percentile_rank_counts_below_plus_half_ties(value: float, expected: float) -> None:
    # members 1, 2, 2, 3: below 2 is one member, two tie: (1 + 2/2) / 4 = 50.
    assert percentile_rank(value, [1, 2, 2, 3]) == pytest.approx(expected)


def test_percentile_rank_of_empty_group_is_nan() -> None:
    assert math.isnan(percentile_rank(1.0, []))


def test_correlations_degenerate_inputs() -> None:
    constant = correlations([1, 2, 3], [2, 2, 2])
    assert math.isnan(constant.pearson) and constant.mean_diff == 0.0
    single = correlations([1], [2])
    assert single.n == 1 and math.isnan(single.kendall) and single.mean_diff == -1.0
    with pytest.raises(ValueError):
        correlations([1, 2], [1])


def test_wilson_interval_edge_cases() -> None:
    assert math.isnan(wilson_interval(0, 0).value)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
