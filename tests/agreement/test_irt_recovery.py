"""IRT with known parameters at 20, 200 and 2,000 items per respondent (issue 23, item 5):
the fitted 1PL slope within 5 % of the truth, abilities' 95 % intervals covering 93–97 %
of the true abilities, one ability per response pattern; item fit (outfit/infit mean
squares) recomputed by hand; plausible-value percentiles covering the true percentile."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from scoring.agreement.irt import (
    MISSING,
    ItemFit,
    abilities_eap,
    fit_1pl,
    fit_2pl,
    mean_squares,
    percentile_interval,
    plausible_values,
)

SLOPE = 1.3


def rasch(n_units: int, n_persons: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    b = rng.normal(0, 1, n_units)
    theta = rng.normal(0, 1, n_persons)
    p = special.expit(SLOPE * (theta[None, :] - b[:, None]))
    return (rng.random(p.shape) < p).astype(np.int64), theta


@pytest.mark.parametrize(
    ("n_units", "n_persons"),
    [
        pytest.param(20, 3000, marks=pytest.mark.slow),
        pytest.param(200, 1000, marks=pytest.mark.slow),
        pytest.param(2000, 500, marks=pytest.mark.slow),
    ],
)
def test_1pl_slope_coverage_and_distinct_abilities(n_units: int, n_persons: int) -> None:
    x, theta = rasch(n_units, n_persons, seed=n_units)
    fit = fit_1pl(x)
    assert fit.converged
    # the 41 fixed nodes gave 1.195 at 200 items and 0.76 at 2,000 (issue 23)
    assert fit.discrimination[0] == pytest.approx(SLOPE, rel=0.05)
    ab = abilities_eap(x, fit)
    coverage = float((np.abs(ab.theta - theta) <= 1.96 * ab.se).mean())
    assert 0.93 <= coverage <= 0.97
    # the 1PL's sufficient statistic is the raw score: one ability per score, and
    # every distinct score its own ability (no snapping to a grid)
    score = (x == 1).sum(axis=0)
    for s in np.unique(score):
        assert np.ptp(ab.theta[score == s]) < 1e-9
    assert np.unique(np.round(ab.theta, 9)).size == np.unique(score).size


@pytest.mark.slow
def test_2pl_distinct_patterns_get_distinct_abilities_at_2000_items() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.lognormal(0, 0.3, 2000), rng.normal(0, 1, 2000)
    theta = np.linspace(-2.5, 2.5, 41)
    p = special.expit(a[:, None] * (theta[None, :] - b[:, None]))
    x = (rng.random(p.shape) < p).astype(np.int64)
    ab = abilities_eap(x, ItemFit("2pl", b, a, 0.0, 4000, True))
    assert np.unique(np.round(ab.theta, 6)).size == 41
    assert np.all(ab.se > 0.01)


def test_mean_squares_by_hand_and_a_noisy_item_misfits() -> None:
    x, _theta = rasch(30, 1000, seed=3)
    rng = np.random.default_rng(4)
    x[5] = rng.integers(0, 2, x.shape[1])  # a coin-flip item (e.g. mis-keyed)
    x[rng.random(x.shape) < 0.1] = MISSING
    fit = fit_1pl(x)
    ab = abilities_eap(x, fit)
    ms = mean_squares(x, fit, ab.theta)
    # by hand (Wright & Masters 1982, eqs. 5.4.1-5.4.3) for every unit
    for i in range(30):
        seen = x[i] != MISSING
        p = 1 / (1 + np.exp(-fit.discrimination[i] * (ab.theta[seen] - fit.difficulty[i])))
        z2 = (x[i, seen] - p) ** 2 / (p * (1 - p))
        assert ms.outfit[i] == pytest.approx(z2.mean())
        assert ms.infit[i] == pytest.approx(((x[i, seen] - p) ** 2).sum() / (p * (1 - p)).sum())
        assert ms.n[i] == seen.sum()
    others = np.delete(np.arange(30), 5)
    assert ms.outfit[5] > 1.3 and ms.infit[5] > 1.2
    assert np.all(np.abs(ms.outfit[others] - 1) < 0.3)
    assert np.all(np.abs(ms.infit[others] - 1) < 0.2)


def test_plausible_values_have_the_posterior_moments() -> None:
    x, _ = rasch(20, 50, seed=9)
    fit = fit_2pl(x)
    ab = abilities_eap(x, fit)
    pv = plausible_values(ab, 4000, seed=1)
    assert pv.shape == (4000, 50)
    assert np.abs(pv.mean(axis=0) - ab.theta).max() < 4 * ab.se.max() / np.sqrt(4000) * 1.5
    assert np.allclose(pv.std(axis=0), ab.se, rtol=0.08)


def test_model_percentile_interval_covers_the_true_percentile() -> None:
    """A model at the population's 66th percentile answering 400 items, among groups of
    30 people answering 20 each (known items): over 100 simulated groups the
    plausible-value interval covers 66 at least 90 % of the time; the mid-rank among
    the people's EAPs has no interval at all."""
    reps, members, true_pct = 100, 30, 66.0
    theta_model = float(stats.norm.ppf(true_pct / 100))
    rng = np.random.default_rng(12)
    b_people, b_model = rng.normal(0, 1, 20), rng.normal(0, 1, 400)
    theta = rng.normal(0, 1, reps * members)
    x = (rng.random((20, theta.size)) < special.expit(theta[None, :] - b_people[:, None])).astype(
        np.int64
    )
    people = abilities_eap(x, ItemFit("1pl", b_people, np.ones(20), 0.0, 21, True))
    y = (rng.random((400, reps)) < special.expit(theta_model - b_model[:, None])).astype(np.int64)
    models = abilities_eap(y, ItemFit("1pl", b_model, np.ones(400), 0.0, 401, True))
    pv_people = plausible_values(people, 500, seed=2)
    pv_models = plausible_values(models, 500, seed=3)
    hits = 0
    for r in range(reps):
        cols = slice(r * members, (r + 1) * members)
        pct = percentile_interval(pv_models[:, r], pv_people[:, cols], seed=r)
        hits += pct.low <= true_pct <= pct.high
    assert hits / reps >= 0.9
