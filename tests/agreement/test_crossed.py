"""The crossed (people × items) cluster-robust interval against independent references:
a crossed random-intercepts linear mixed model fitted with statsmodels, the known
variance of a simulated design, scipy's t over item means and statsmodels' Wilson."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from scoring.agreement.crossed import clustered_mean

SA, SB, SE = 0.6, 0.8, 1.0  # person, item and residual SDs


def _crossed(rng: np.random.Generator, people: int, items: int) -> pd.DataFrame:
    grid = np.meshgrid(np.arange(people), np.arange(items), indexing="ij")
    p, i = grid[0].ravel(), grid[1].ravel()
    a, b = rng.normal(0, SA, people), rng.normal(0, SB, items)
    y = 2.0 + a[p] + b[i] + rng.normal(0, SE, p.size)
    return pd.DataFrame({"y": y, "person": p, "item": i, "g": 1})


def _known_var(people: int, items: int) -> float:
    return SA**2 / people + SB**2 / items + SE**2 / (people * items)


@pytest.mark.slow
def test_se_and_iccs_match_a_crossed_mixed_model() -> None:
    import statsmodels.formula.api as smf

    frame = _crossed(np.random.default_rng(7), 60, 60)
    model = smf.mixedlm(
        "y ~ 1",
        frame,
        groups="g",
        re_formula="0",
        vc_formula={"person": "0 + C(person)", "item": "0 + C(item)"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(reml=True)
    vc = dict(zip(model.exog_vc.names, fit.vcomp, strict=True))
    total = vc["person"] + vc["item"] + fit.scale
    ours = clustered_mean(frame["y"], {"person": frame["person"], "item": frame["item"]})
    # The mixed model's SE of the intercept is √(σ²_A/R + σ²_B/C + σ²_E/RC) in a balanced design.
    assert ours.se == pytest.approx(float(fit.bse["Intercept"]), rel=0.2)
    assert ours.value == pytest.approx(float(fit.fe_params["Intercept"]), abs=1e-9)
    assert ours.icc["person"] == pytest.approx(vc["person"] / total, abs=0.04)
    assert ours.icc["item"] == pytest.approx(vc["item"] / total, abs=0.04)
    assert ours.design_effect > 20  # answers treated as independent: far too narrow
    assert ours.method == "person+item-clustered t (CGM)"


def test_variance_is_unbiased_for_the_known_components() -> None:
    rng = np.random.default_rng(11)
    people, items = 20, 30
    estimates, variances, covered = [], [], 0
    for _ in range(300):
        frame = _crossed(rng, people, items)
        r = clustered_mean(frame["y"], {"person": frame["person"], "item": frame["item"]})
        estimates.append(r.value)
        variances.append(r.se**2)
        covered += r.ci_low <= 2.0 <= r.ci_high
    truth = _known_var(people, items)
    assert np.var(estimates) == pytest.approx(truth, rel=0.2)  # the simulation itself
    assert np.mean(variances) == pytest.approx(truth, rel=0.12)
    assert 0.91 <= covered / 300 <= 0.99


def test_one_way_item_clustering_with_equal_item_weights_is_the_t_over_item_means() -> None:
    rng = np.random.default_rng(3)
    items = np.repeat(np.arange(12), rng.integers(2, 7, 12))
    values = rng.normal(3, 1, items.size) + items * 0.1
    counts = np.bincount(items)
    r = clustered_mean(values, {"item": items}, weights=1 / counts[items])
    means = pd.Series(values).groupby(items).mean()
    low, high = stats.t.interval(0.95, len(means) - 1, means.mean(), stats.sem(means))
    assert r.value == pytest.approx(means.mean())
    assert (r.ci_low, r.ci_high) == pytest.approx((low, high), rel=1e-9)
    assert r.df == 11


def test_no_clustering_on_a_share_is_wilson() -> None:
    y = np.r_[np.ones(81), np.zeros(182)]
    r = clustered_mean(y, {}, proportion=True)
    low, high = proportion_confint(81, 263, method="wilson")
    assert (r.ci_low, r.ci_high) == pytest.approx((low, high), rel=1e-12)
    assert r.method == "Wilson"
    assert r.design_effect == pytest.approx(1.0)


def test_a_single_cluster_is_conditioned_on() -> None:
    """One model answering every item: the interval is over items only."""
    y = np.r_[np.ones(30), np.zeros(10)]
    r = clustered_mean(y, {"person": np.zeros(40), "item": np.arange(40)}, proportion=True)
    assert r.n_clusters == {"person": 1, "item": 40}
    assert r.method == "item-clustered Wilson (CGM)"
    assert math.isfinite(r.ci_low) and r.ci_low < 0.75 < r.ci_high


def test_shares_clustered_in_people_are_wider_than_wilson_and_stay_in_0_1() -> None:
    rng = np.random.default_rng(5)
    people = np.repeat(np.arange(10), 10)
    items = np.tile(np.arange(10), 10)
    skill = rng.normal(0, 1.2, 10)
    y = (rng.random(100) < 1 / (1 + np.exp(-(1.5 + skill[people])))).astype(float)
    r = clustered_mean(y, {"person": people, "item": items}, proportion=True)
    w_low, w_high = proportion_confint(int(y.sum()), 100, method="wilson")
    assert r.ci_high - r.ci_low > w_high - w_low
    assert 0 <= r.ci_low <= r.value <= r.ci_high <= 1
    assert r.icc["person"] > 0.05
    assert r.design_effect > 1


def test_all_right_is_not_a_zero_width_interval() -> None:
    r = clustered_mean(
        np.ones(50), {"person": np.repeat(np.arange(5), 10), "item": np.tile(np.arange(10), 5)},
        proportion=True,
    )  # fmt: skip
    assert r.value == 1.0 and r.ci_high == 1.0 and r.ci_low < 0.95
