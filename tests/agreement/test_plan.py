"""Sample sizes: Wilson half-width targets, two-group power, alpha's interval width."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint

from scoring.agreement import RatingTable
from scoring.agreement.alpha import alpha_plan
from scoring.agreement.plan import (
    alpha_units_for_width,
    two_group_n,
    wilson_half_width,
    wilson_n,
)


@pytest.mark.parametrize(("p", "goal"), [(0.5, 0.05), (0.3, 0.03), (0.9, 0.05), (0.0, 0.1)])
def test_wilson_n_is_the_smallest_n_meeting_the_half_width(p: float, goal: float) -> None:
    n = wilson_n(p, goal)

    def half(k: int) -> float:
        # statsmodels' Wilson interval at the exact share (count may be fractional)
        low, high = proportion_confint(p * k, k, alpha=0.05, method="wilson")
        return (high - low) / 2

    assert half(n) <= goal + 1e-12 < half(n - 1)


def test_wilson_n_textbook_value() -> None:
    # p = 0.5, ±0.05 at 95 %: the Wald rule gives 385; Wilson's interval needs 381
    assert wilson_n(0.5, 0.05) == 381
    assert wilson_half_width(0.5, 381) <= 0.05


def test_two_groups_matches_statsmodels_and_cohens_table() -> None:
    got = two_group_n(0.40, 0.60, power=0.8, alpha=0.05, n1_now=50, n2_now=50)
    h = 2 * math.asin(math.sqrt(0.40)) - 2 * math.asin(math.sqrt(0.60))
    assert got.effect_h == pytest.approx(h)
    expected = NormalIndPower().solve_power(effect_size=abs(h), alpha=0.05, power=0.8)
    assert got.n_per_group == pytest.approx(expected)
    # Cohen (1988), Table 6.4.1: h = 0.40 needs n = 98 per group at power .80
    p2 = math.sin(math.asin(math.sqrt(0.5)) + 0.2) ** 2  # h = 0.40 from p1 = 0.5
    assert round(two_group_n(0.5, p2, power=0.8).n_per_group) == 98
    assert got.power_now == pytest.approx(
        NormalIndPower().power(effect_size=abs(h), nobs1=50, alpha=0.05, ratio=1.0)
    )
    assert math.isinf(two_group_n(0.5, 0.5).n_per_group)


def _agreement_table(n_units: int, seed: int) -> RatingTable:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_units)
    units, raters, values = [], [], []
    for u in range(n_units):
        for r in range(3):
            units.append(u)
            raters.append(r)
            values.append(int(truth[u]) if rng.random() < 0.7 else int(rng.integers(0, 3)))
    return RatingTable.from_arrays(units, raters, values, level="nominal")


def test_alpha_width_shrinks_with_items_and_meets_the_goal() -> None:
    plan = alpha_plan(_agreement_table(30, 1))
    assert plan.replicate is not None and plan.units is not None
    out = alpha_units_for_width(plan.replicate, plan.units.size, 0.05, n_sims=200, seed=3)
    sizes = sorted(out.widths)
    widths = [out.widths[n] for n in sizes]
    assert widths[0] > widths[-1]
    assert out.n_units_needed is not None and out.widths[out.n_units_needed] <= 0.05
    smaller = [n for n in sizes if n < out.n_units_needed and n != 30]
    assert all(out.widths[n] > 0.05 for n in smaller)
    # the width at n behaves like 1/sqrt(n): quadrupling the items roughly halves it
    assert out.widths[400] / out.widths[100] == pytest.approx(0.5, abs=0.12)


def test_bad_goals_are_refused() -> None:
    with pytest.raises(ValueError, match="half_width"):
        wilson_n(0.5, 0.7)
    with pytest.raises(ValueError, match="power"):
        two_group_n(0.4, 0.5, power=1.5)
