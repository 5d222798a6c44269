"""Difference of two means with a stratified percentile-bootstrap interval."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoring.agreement.difference import bootstrap_mean_difference


def test_difference_is_mean_a_minus_mean_b() -> None:
    d = bootstrap_mean_difference([4.5, 4.5], [2.0, 1.5], n_boot=0)
    assert (d.diff, d.mean_a, d.mean_b, d.n_a, d.n_b) == (2.75, 4.5, 1.75, 2, 2)
    assert math.isnan(d.ci_low) and math.isnan(d.ci_high)


def test_interval_matches_a_plain_loop_over_the_same_draws() -> None:
    a, b = [5.0, 4.0, 4.5, 3.0, 5.0], [2.0, 1.0, 3.0, 2.5]
    d = bootstrap_mean_difference(a, b, n_boot=300, seed=7)
    rng = np.random.default_rng(7)
    ra = [np.mean(np.asarray(a)[rng.integers(0, 5, size=5)]) for _ in range(300)]
    rb = [np.mean(np.asarray(b)[rng.integers(0, 4, size=4)]) for _ in range(300)]
    low, high = np.quantile(np.subtract(ra, rb), [0.025, 0.975])
    assert (d.ci_low, d.ci_high) == pytest.approx((low, high), abs=1e-12)


def test_same_seed_same_interval_and_interval_contains_the_estimate() -> None:
    a, b = list(range(1, 30)), list(range(5, 20))
    first = bootstrap_mean_difference(a, b, n_boot=200, seed=1)
    again = bootstrap_mean_difference(a, b, n_boot=200, seed=1)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert first.ci_low <= first.diff <= first.ci_high


def test_missing_values_are_dropped_and_an_empty_side_is_undefined() -> None:
    d = bootstrap_mean_difference([1.0, None, float("nan")], [], n_boot=10)
    assert (d.n_a, d.n_b, d.mean_a) == (1, 0, 1.0)
    assert math.isnan(d.diff) and math.isnan(d.mean_b)


def test_constant_sides_give_a_degenerate_interval() -> None:
    d = bootstrap_mean_difference([3, 3, 3], [1], n_boot=50, seed=0)
    assert (d.diff, d.ci_low, d.ci_high) == (2.0, 2.0, 2.0)


def test_confidence_must_be_a_proportion() -> None:
    with pytest.raises(ValueError):
        bootstrap_mean_difference([1], [2], confidence=1.5)
