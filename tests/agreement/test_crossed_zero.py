"""A clustered variance that is zero up to rounding (docs/statistics.md §22): the demo's
辨认词牌 · 初中及以下 cell (2 people, 6 answers, 1 of 3 right each) had a design effect of
1.7e-32, an effective n of ~1e32 and a zero-width interval 0.333 [0.333, 0.333]. The
interval must instead be Wilson's at the answers' n with the t on min(G) − 1 df; and
on an estimable design the standard error is statsmodels' two-way cluster-robust OLS."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from scoring.agreement.crossed import clustered_difference, clustered_mean
from scoring.agreement.gaps import skew_corrected_columns, welch_columns

PEOPLE = [0, 0, 0, 1, 1, 1]
# Two designs found by enumerating every 2-person, 6-answer, 2-right design: both gave
# design_effect 1.7333e-32 before the guard (the figure the demo showed).
CANCELLING = [
    ([0, 0, 0, 1, 1, 1], [0, 0, 1, 0, 0, 1]),  # items nested in people
    ([0, 0, 1, 0, 1, 1], [0, 0, 1, 1, 0, 0]),  # two item units crossed with the people
]


def _cluster_ols_se(y: list[int], groups: list[list[int]]) -> float:
    x = np.ones((len(y), 1))
    arr = np.column_stack(groups) if len(groups) > 1 else np.asarray(groups[0])
    fit = sm.OLS(np.asarray(y, dtype=float), x).fit(cov_type="cluster", cov_kwds={"groups": arr})
    return float(fit.bse[0])


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt")
@pytest.mark.parametrize(("items", "y"), CANCELLING)
def test_a_variance_zero_up_to_rounding_is_not_a_zero_width_interval(
    items: list[int], y: list[int]
) -> None:
    # the reference also finds ~0, or NaN from a variance of −1e-33 (the cancellation is
    # the estimator's, not our arithmetic's)
    assert not _cluster_ols_se(y, [PEOPLE, items]) > 1e-12
    ci = clustered_mean(y, {"person": PEOPLE, "item": items}, proportion=True)
    assert ci.value == pytest.approx(1 / 3)
    assert np.isnan(ci.design_effect)
    assert ci.reason is not None and "not estimable" in ci.reason
    assert ci.df == 1
    # Wilson's interval at n = 6 with t(1)'s critical value, by statsmodels
    alpha = 2 * stats.norm.sf(stats.t.ppf(0.975, 1))
    low, high = proportion_confint(2, 6, alpha=alpha, method="wilson")
    assert (ci.ci_low, ci.ci_high) == pytest.approx((low, high), rel=1e-9)
    # and it contains the validation table's Wilson interval [0.097, 0.700]
    w_low, w_high = proportion_confint(2, 6, alpha=0.05, method="wilson")
    assert ci.ci_low < w_low and ci.ci_high > w_high


def test_estimable_small_design_matches_two_way_cluster_robust_ols() -> None:
    rng = np.random.default_rng(7)
    people = np.repeat(np.arange(5), 6)
    items = np.tile(np.arange(6), 5)
    skill = rng.normal(0, 1, 5)[people] + rng.normal(0, 1, 6)[items]
    y = (skill + rng.normal(0, 1, 30) > 0).astype(int).tolist()
    ci = clustered_mean(y, {"person": people, "item": items}, proportion=True)
    se = _cluster_ols_se(y, [people.tolist(), items.tolist()])
    assert se > 0 and ci.reason is None
    assert ci.se == pytest.approx(se, rel=1e-9)
    # the Wilson interval at n / deff with t(min(G) − 1), by statsmodels
    n_eff = 30 / ci.design_effect
    alpha = 2 * stats.norm.sf(stats.t.ppf(0.975, 4))
    p = float(np.mean(y))
    low, high = proportion_confint(p * n_eff, n_eff, alpha=alpha, method="wilson")
    assert (ci.ci_low, ci.ci_high) == pytest.approx((low, high), rel=1e-9)
    # one-way (people) too
    one = clustered_mean(y, {"person": people}, proportion=True)
    assert one.se == pytest.approx(_cluster_ols_se(y, [people.tolist()]), rel=1e-9)


def test_a_mean_without_variation_is_not_estimable() -> None:
    ci = clustered_mean([0.1] * 6, {"person": PEOPLE, "item": [0, 1, 2] * 2})
    assert np.isnan(ci.ci_low) and np.isnan(ci.ci_high)
    assert ci.reason is not None


def test_a_difference_with_cancelling_clusters_uses_the_answers_variance() -> None:
    # side a: the cancelling design; side b: two more people, 1 of 3 right each
    y = [0, 0, 1, 0, 0, 1] * 2
    side = [True] * 6 + [False] * 6
    people = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    items = [0, 1, 2] * 4
    d = clustered_difference(y, side, {"person": people, "item": items})
    assert d.se > 1e-3  # not ~1e-17
    assert d.ci_low < 0 < d.ci_high
    flat = clustered_difference([1.0] * 12, side, {"person": people, "item": items})
    assert np.isnan(flat.ci_low) and np.isnan(flat.p_value)


def test_welch_columns_constant_sides_whose_variance_rounds_above_zero() -> None:
    a = np.full((3, 1), 0.1)
    b = np.full((4, 1), 0.7)
    assert a.var(axis=0, ddof=1)[0] > 0  # the rounding the guard is for
    for low, high, flat in (welch_columns(a, b), skew_corrected_columns(a, b)):
        assert flat[0] and np.isnan(low[0]) and np.isnan(high[0])


def test_a_coefficients_t_interval_with_a_standard_error_zero_up_to_rounding() -> None:
    from scoring.agreement.analytic import t_interval

    assert all(np.isnan(t_interval(1.0, 3e-17, 5, 0.95)))  # no spread: no interval
    low, high = t_interval(0.5, 0.1, 5, 0.95)
    half = stats.t.ppf(0.975, 5) * 0.1
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half))
