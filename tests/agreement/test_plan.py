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


def _agreement_values(n_units: int, seed: int) -> tuple[list[int], list[int]]:
    """Three raters per unit; each gives the unit's true value (of 0, 1, 2) 70 % of the
    time and a uniform value otherwise: (unit, value) of every rating, rater-minor."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_units)
    units, values = [], []
    for u in range(n_units):
        for _ in range(3):
            units.append(u)
            values.append(int(truth[u]) if rng.random() < 0.7 else int(rng.integers(0, 3)))
    return units, values


def _agreement_table(n_units: int, seed: int) -> RatingTable:
    units, values = _agreement_values(n_units, seed)
    return RatingTable.from_arrays(units, [0, 1, 2] * n_units, values, level="nominal")


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


# --- planning by simulation from a fitted crossed model (issue 23, item 3) -------------

import statsmodels.api as sm  # noqa: E402
from scipy import special, stats  # noqa: E402

from scoring.agreement.plan import (  # noqa: E402
    Design,
    alpha_assurance,
    logistic_components,
    plan_half_width,
    plan_power,
    simulate_difference_pvalues,
)


def _study(mu: float, comp, n_people: int, k: int, pool: int, item_effect, rng):
    """One simulated study, written independently of the module: each person answers k
    items, going round the pool in a random order; logistic crossed intercepts."""
    order = rng.permutation(pool)
    items = np.array([order[(j * k + t) % pool] for j in range(n_people) for t in range(k)])
    person = np.repeat(np.arange(n_people), k)
    u = rng.normal(0, comp.sd_person, n_people)
    eta = mu + u[person] + item_effect[items]
    y = (rng.random(eta.size) < 1 / (1 + np.exp(-eta))).astype(float)
    return y, person, items


def _two_way_se(y: np.ndarray, x: np.ndarray, person: np.ndarray, items: np.ndarray):
    """statsmodels' two-way (people × items) cluster-robust OLS (Cameron, Gelbach &
    Miller 2011) with the independent-answers floor."""
    fit = sm.OLS(y, x).fit(
        cov_type="cluster", cov_kwds={"groups": np.column_stack([person, items])}
    )
    return fit


def _wilson(p: float, n_eff: float, crit: float) -> tuple[float, float]:
    c2 = crit * crit
    centre = (p + c2 / (2 * n_eff)) / (1 + c2 / n_eff)
    half = crit / (1 + c2 / n_eff) * np.sqrt(p * (1 - p) / n_eff + c2 / (4 * n_eff**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def test_components_reproduce_the_observed_share_and_iccs() -> None:
    comp = logistic_components(0.7, 0.08, 0.15)
    rng = np.random.default_rng(0)
    u = rng.normal(0, comp.sd_person, (4000, 1))
    v = rng.normal(0, comp.sd_item, (1, 400))
    p = special.expit(comp.mu + u + v)  # P(right) per person × item
    share = p.mean()
    var = share * (1 - share)
    assert share == pytest.approx(0.7, abs=0.01)
    assert (p.mean(axis=1).var()) / var == pytest.approx(0.08, abs=0.01)
    assert (p.mean(axis=0).var()) / var == pytest.approx(0.15, abs=0.015)
    none = logistic_components(0.4, 0.0, float("nan"))
    assert none.sd_person < 1e-6 and none.sd_item < 1e-6


@pytest.mark.slow
def test_planned_volunteers_give_the_promised_half_width_and_coverage() -> None:
    """The planned n, simulated independently (numpy model, statsmodels' two-way
    clustered variance, Wilson at the effective n with scipy's t): mean half-width at
    the goal and the promised coverage, within Monte Carlo error."""
    comp = logistic_components(0.7, 0.08, 0.05)
    design, goal = Design(10, 200), 0.06
    plan = plan_half_width(comp, design, goal, 10, reps=200, seed=1)
    assert plan.n_needed is not None and plan.at_needed is not None
    n = plan.n_needed
    assert n > 10 and plan.at_now.mean > goal
    rng = np.random.default_rng(99)
    reps, halves, hits = 300, [], 0
    for _ in range(reps):
        effect = rng.normal(0, comp.sd_item, design.pool)
        y, person, items = _study(comp.mu, comp, n, design.per_person, design.pool, effect, rng)
        fit = _two_way_se(y, np.ones_like(y), person, items)
        m = y.size
        v_ind = ((y - y.mean()) ** 2).sum() / (m - 1) / m
        v = max(float(fit.cov_params()[0, 0]), v_ind)
        df = min(n, np.unique(items).size) - 1
        low, high = _wilson(y.mean(), m * v_ind / v, stats.t.ppf(0.975, df))
        halves.append((high - low) / 2)
        hits += low <= comp.share <= high
    coverage = hits / reps
    mc = np.sqrt(0.95 * 0.05 / reps) + np.sqrt(0.95 * 0.05 / 200)
    assert abs(coverage - plan.at_needed.coverage) <= 3 * mc
    assert coverage >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps)
    assert np.mean(halves) <= goal * 1.02
    assert np.mean(halves) == pytest.approx(plan.at_needed.mean, rel=0.03)


@pytest.mark.slow
@pytest.mark.parametrize(("design", "partial"), [(Design(10, 100), False), (Design(4, 2000), True)])
def test_planned_volunteers_give_the_promised_power(design: Design, partial: bool) -> None:
    """Two groups (70 % and 60 %) over one item pool: at the planned n per group the
    people × items clustered t test, recomputed with statsmodels (OLS on a group
    indicator, two-way cluster-robust, t with min(G) − 1 df), has the promised power.
    The second design's pool is larger than a group's answers: the two groups answer
    partly different items."""
    comp_a = logistic_components(0.7, 0.08, 0.1)
    comp_b = logistic_components(0.6, 0.08, 0.1)
    plan = plan_power(comp_a, comp_b, design, 0.8, 10, reps=200, seed=2)
    assert plan.n_needed is not None and plan.at_needed is not None
    n = plan.n_needed
    k = design.per_person
    assert (n * k < design.pool) == partial
    rng = np.random.default_rng(7)
    sd_i = (comp_a.sd_item + comp_b.sd_item) / 2
    reps, rejected = 300, 0
    for _ in range(reps):
        effect = rng.normal(0, sd_i, design.pool)
        ya, pa, ia = _study(comp_a.mu, comp_a, n, k, design.pool, effect, rng)
        yb, pb, ib = _study(comp_b.mu, comp_b, n, k, design.pool, effect, rng)
        y = np.concatenate([ya, yb])
        group = np.concatenate([np.ones_like(ya), np.zeros_like(yb)])
        person, items = np.concatenate([pa, pb + n]), np.concatenate([ia, ib])
        fit = _two_way_se(y, np.column_stack([np.ones_like(y), group]), person, items)
        t = fit.params[1] / np.sqrt(fit.cov_params()[1, 1])
        df = min(2 * n, np.unique(items).size) - 1
        rejected += 2 * stats.t.sf(abs(t), df) < 0.05
    power = rejected / reps
    mc = np.sqrt(0.8 * 0.2 / reps) + np.sqrt(0.8 * 0.2 / 200)
    assert abs(power - plan.at_needed.mean) <= 3 * mc
    assert power >= 0.8 - 3 * np.sqrt(0.8 * 0.2 / reps)


def test_the_planned_test_holds_its_size_under_no_difference() -> None:
    """The clustered test the plan sizes for rejects ~5 % of studies without a
    difference (the z test over answers rejected 15 %: issue 23)."""
    comp = logistic_components(0.65, 0.1, 0.1)
    rng = np.random.default_rng(3)
    p = simulate_difference_pvalues(comp, comp, 20, Design(10, 60), reps=1000, rng=rng)
    size = float((p < 0.05).mean())
    assert size <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 1000)


def test_alpha_assurance_needs_more_items_than_the_mean_width() -> None:
    plan = alpha_plan(_agreement_table(40, 1))
    assert plan.replicate is not None and plan.units is not None
    out = alpha_assurance(plan.replicate, plan.units.size, 0.3, n_sims=60, n_inner=60, seed=3)
    assert out.n_needed is not None and out.n_needed_mean is not None
    assert out.n_needed >= out.n_needed_mean > 40
    assert out.assurance[out.n_needed] >= 0.8
    assert out.mean_width[out.n_needed_mean] <= 0.3
    # about half the studies at the mean-width size reach it (issue 23: 54-71 %)
    assert out.assurance[out.n_needed_mean] < 0.8


def _package_width(counts: np.ndarray, weights: np.ndarray) -> float:
    """One simulated study's 95 % percentile bootstrap width: each resample's alpha by the
    ``krippendorff`` package on its units' value counts (a unit drawn w times, w rows)."""
    import krippendorff

    alphas = []
    for w in weights:
        try:
            a = krippendorff.alpha(
                value_counts=np.repeat(counts, w, axis=0), level_of_measurement="nominal"
            )
        except ValueError:  # one value only: alpha undefined
            continue
        if np.isfinite(a):
            alphas.append(a)
    if len(alphas) < len(weights) // 2:
        return math.nan
    low, high = np.percentile(alphas, [2.5, 97.5])
    return float(high - low)


@pytest.mark.slow
def test_alpha_assurance_matches_an_independent_simulation() -> None:
    """The mean width and the assurance at two sizes against an independent simulation
    of the same design: numpy's multinomial draws of each study's units from the
    observed ones and of its resamples from the study's, every alpha by the
    ``krippendorff`` package (not our replicate); equal within Monte Carlo error."""
    units, values = _agreement_values(30, 1)
    counts = np.zeros((30, 3), dtype=int)
    np.add.at(counts, (np.array(units), np.array(values)), 1)
    plan = alpha_plan(_agreement_table(30, 1))
    assert plan.replicate is not None and plan.units is not None
    sims, inner, goal = 200, 50, 0.3
    ours = alpha_assurance(plan.replicate, 30, goal, n_sims=sims, n_inner=inner, seed=5, grid=(60,))
    assert sorted(ours.mean_width) == [30, 60]
    rng = np.random.default_rng(11)
    for n in (30, 60):
        widths = []
        for _ in range(sims):
            study = rng.multinomial(n, np.full(30, 1 / 30))
            widths.append(_package_width(counts, rng.multinomial(n, study / n, size=inner)))
        ref = np.array(widths)
        ref = ref[np.isfinite(ref)]
        se = ref.std(ddof=1) / np.sqrt(ref.size)
        assert ours.mean_width[n] == pytest.approx(ref.mean(), abs=4 * np.sqrt(2) * se)
        share = float((ref <= goal).sum() / sims)
        mc = np.sqrt(2 * max(share * (1 - share), 0.05 * 0.95) / sims)
        assert abs(ours.assurance[n] - share) <= 3.5 * mc
    # the sizes straddle the goal, so the comparison is about a share, not 0 or 1
    assert ours.assurance[30] < 0.8 < ours.assurance[60]


def test_clustered_difference_matches_statsmodels_two_way_ols() -> None:
    """``crossed.clustered_difference`` (the test the plan sizes for) against
    statsmodels' OLS on a group indicator with two-way (people × items) cluster-robust
    errors: the same difference, standard error and p-value (t with min(G) − 1 df)."""
    from scoring.agreement.crossed import clustered_difference

    rng = np.random.default_rng(21)
    effect = rng.normal(0, 0.8, 40)
    comp = logistic_components(0.6, 0.1, 0.1)
    ya, pa, ia = _study(0.6, comp, 15, 8, 40, effect, rng)
    yb, pb, ib = _study(0.1, comp, 12, 8, 40, effect, rng)
    y = np.concatenate([ya, yb])
    group = np.concatenate([np.ones_like(ya), np.zeros_like(yb)])
    person, items = np.concatenate([pa, pb + 15]), np.concatenate([ia, ib])
    ours = clustered_difference(y, group == 1, {"person": person, "item": items})
    fit = _two_way_se(y, np.column_stack([np.ones_like(y), group]), person, items)
    se = float(np.sqrt(fit.cov_params()[1, 1]))
    assert ours.value == pytest.approx(fit.params[1])
    # statsmodels' small-sample factor (N − 1)/(N − K) with K = 2 regressors
    assert ours.se == pytest.approx(se / np.sqrt((y.size - 1) / (y.size - 2)), rel=1e-9)
    df = min(27, np.unique(items).size) - 1
    assert ours.df == df
    assert ours.p_value == pytest.approx(2 * stats.t.sf(abs(ours.value / ours.se), df))
