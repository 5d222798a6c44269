"""IRT: parameters recovered from simulated data; the 2PL fit checked against girth."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import girth
import numpy as np
import pytest
from scipy import optimize, special

from scoring.agreement import irt
from scoring.agreement.irt import (
    MISSING,
    Abilities,
    ItemFit,
    Responses,
    abilities_eap,
    fit_1pl,
    fit_2pl,
    marginal_loglik,
    quadrature,
)
from tests.agreement.irt_dense import two_pl_draw


def simulate(
    n_units: int, n_persons: int, missing: float, seed: int, rasch: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = np.ones(n_units) if rasch else rng.lognormal(0, 0.3, n_units)
    b = rng.normal(0, 1, n_units)
    theta = rng.normal(0, 1, n_persons)
    p = 1 / (1 + np.exp(-a[:, None] * (theta[None, :] - b[:, None])))
    x = (rng.random(p.shape) < p).astype(np.int64)
    x[rng.random(x.shape) < missing] = MISSING
    return x, a, b, theta


def corr(u: np.ndarray, v: np.ndarray) -> float:
    return float(np.corrcoef(u, v)[0, 1])


def test_2pl_recovers_known_parameters_and_abilities() -> None:
    x, a, b, theta = simulate(60, 1500, missing=0.3, seed=11)
    fit = fit_2pl(x)
    assert fit.converged
    assert corr(fit.difficulty, b) >= 0.9
    assert corr(fit.discrimination, a) >= 0.7  # slopes are the hardest part to recover
    ab = abilities_eap(x, fit)
    assert corr(ab.theta, theta) >= 0.9
    assert np.all(ab.se > 0) and np.all(ab.se < 1)


def test_1pl_recovers_rasch_data() -> None:
    x, _a, b, theta = simulate(60, 800, missing=0.3, seed=12, rasch=True)
    fit = fit_1pl(x)
    assert corr(fit.difficulty, b) >= 0.95
    assert np.allclose(fit.discrimination, fit.discrimination[0])
    assert fit.discrimination[0] == pytest.approx(1.0, abs=0.15)
    assert corr(abilities_eap(x, fit).theta, theta) >= 0.9


def test_1pl_agrees_with_girths_own_1pl_fit() -> None:
    x, *_ = simulate(30, 600, missing=0.3, seed=16, rasch=True)
    ours = fit_1pl(x)
    ref = girth.onepl_mml(np.where(x == MISSING, girth.INVALID_RESPONSE, x))
    assert ours.converged
    assert corr(ours.difficulty, ref["Difficulty"]) >= 0.999
    assert np.abs(ours.difficulty - ref["Difficulty"]).max() < 0.1
    assert ours.discrimination[0] == pytest.approx(ref["Discrimination"], abs=0.05)
    assert (
        ours.loglik
        >= marginal_loglik(x, ref["Difficulty"], np.full(30, ref["Discrimination"])) - 1e-6
    )


def test_2pl_agrees_with_girths_own_2pl_fit() -> None:
    x, *_ = simulate(25, 500, missing=0.2, seed=13)
    ours = fit_2pl(x)
    ref = girth.twopl_mml(np.where(x == MISSING, girth.INVALID_RESPONSE, x))
    assert corr(ours.difficulty, ref["Difficulty"]) >= 0.995
    assert corr(ours.discrimination, ref["Discrimination"]) >= 0.99
    assert np.abs(ours.difficulty - ref["Difficulty"]).max() < 0.15
    # ours is the maximum of the likelihood we state: girth's estimates score no higher
    assert ours.loglik >= marginal_loglik(x, ref["Difficulty"], ref["Discrimination"]) - 1e-6


def test_eap_matches_girth_and_the_posterior_by_hand() -> None:
    x, *_ = simulate(20, 50, missing=0.2, seed=14)
    fit = fit_2pl(x)
    ab = abilities_eap(x, fit, method="grid")
    ref = girth.ability_eap(
        np.where(x == MISSING, girth.INVALID_RESPONSE, x), fit.difficulty, fit.discrimination
    )
    assert np.abs(ab.theta - ref).max() < 0.01
    # person 0 by hand on the quadrature
    nodes, weights = quadrature()
    seen = x[:, 0] != MISSING
    p = 1 / (1 + np.exp(-fit.discrimination[seen, None] * (nodes - fit.difficulty[seen, None])))
    like = np.prod(np.where(x[seen, 0, None] == 1, p, 1 - p), axis=0) * weights
    post = like / like.sum()
    assert ab.theta[0] == pytest.approx(post @ nodes)
    assert ab.se[0] == pytest.approx(np.sqrt(post @ nodes**2 - (post @ nodes) ** 2))


@pytest.mark.slow
def test_loglik_is_the_stated_marginal_likelihood_maximum() -> None:
    k = 5
    x, *_ = simulate(k, 300, missing=0.1, seed=15)
    fit = fit_2pl(x)

    def negative(params: np.ndarray) -> float:
        return -marginal_loglik(x, params[k:], np.exp(params[:k]))

    start = np.concatenate([np.log(fit.discrimination), fit.difficulty])
    assert fit.loglik == pytest.approx(-negative(start))
    # scipy's own optimiser, started off the fit (BFGS with numerical gradients: about
    # 230 likelihoods where Nelder-Mead needed 1,850 for the same optimum)
    other = optimize.minimize(negative, start + 0.05, method="BFGS", options={"gtol": 1e-7})
    assert fit.loglik >= -other.fun - 1e-3


def test_bad_matrices_are_refused() -> None:
    with pytest.raises(ValueError, match="1 \\(right\\), 0 \\(wrong\\)"):
        fit_1pl(np.array([[0, 2], [1, 0]]))
    with pytest.raises(ValueError, match="2-d"):
        fit_2pl(np.array([0, 1]))


def test_sparse_and_dense_paths_give_the_same_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sparse matrices compute the same likelihood and abilities as the dense ones,
    to rounding; the two fits reach the same optimum to the optimiser's tolerance
    (summed in another order, the rounding differs in the last bits, and L-BFGS-B then
    stops at another point of the flat ridge of an item few answered: compare the
    parameters the data determine, not the ridge)."""
    import scoring.agreement.irt as irt

    x, *_ = simulate(30, 400, missing=0.9, seed=17)  # 10 % answered: the sparse path
    sparse_fit = fit_2pl(x)
    b, a = sparse_fit.difficulty, sparse_fit.discrimination
    sparse_ll, sparse_ab = marginal_loglik(x, b, a), abilities_eap(x, sparse_fit)
    monkeypatch.setattr(irt, "SPARSE_BELOW", 0.0)  # force dense matrices
    assert marginal_loglik(x, b, a) == pytest.approx(sparse_ll, rel=1e-12)
    assert np.allclose(abilities_eap(x, sparse_fit).theta, sparse_ab.theta, atol=1e-10)
    dense_fit = fit_2pl(x)
    assert dense_fit.converged and sparse_fit.converged
    assert dense_fit.loglik == pytest.approx(sparse_fit.loglik, rel=1e-7)
    answered = (x >= 0).sum(axis=1)
    firm = (answered >= np.median(answered)) & (np.abs(dense_fit.difficulty) < 3)
    assert firm.sum() >= 10
    assert np.allclose(sparse_fit.difficulty[firm], dense_fit.difficulty[firm], atol=0.02)
    assert np.allclose(sparse_fit.discrimination[firm], dense_fit.discrimination[firm], rtol=0.05)
    dense_ab = abilities_eap(x, dense_fit)
    assert np.corrcoef(sparse_ab.theta, dense_ab.theta)[0, 1] > 0.9999


def test_logsumexp_rows_is_scipys_to_the_bit() -> None:
    from scoring.agreement.irt import logsumexp_rows

    rng = np.random.default_rng(3)
    for a in (
        rng.normal(-300, 80, size=(2000, 41)),  # log-likelihoods of a fit
        np.round(rng.normal(0, 2, size=(500, 7))),  # ties at the maximum
        np.full((3, 5), -12.5),  # every term equal
        rng.normal(0, 1, size=(4, 1)),  # one term
    ):
        assert np.array_equal(logsumexp_rows(a), special.logsumexp(a, axis=1))
    with_inf = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]])
    assert np.array_equal(logsumexp_rows(with_inf), special.logsumexp(with_inf, axis=1))


def test_transposed_sparse_products_are_the_views_to_the_bit() -> None:
    from scipy import sparse

    from scoring.agreement.irt import _transposed

    rng = np.random.default_rng(8)
    m = sparse.random_array((300, 2000), density=0.03, rng=rng, format="csr")
    m.data[:] = 1.0
    dense = rng.normal(-2, 3, size=(300, 41))
    assert np.array_equal(np.asarray(_transposed(m) @ dense), np.asarray(m.T @ dense))


@pytest.mark.slow
def test_fit_is_unchanged_by_the_faster_likelihood(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fit with scipy's logsumexp and a second exponential for the posterior, and the
    transposed views (the code before the speed-ups), gives the same estimates to the
    optimiser's tolerance (the fused posterior rounds differently in the last bits)."""
    import scoring.agreement.irt as irt

    x, *_ = simulate(40, 600, missing=0.9, seed=23)  # the sparse path
    fast = fit_2pl(x)
    fast_ab = abilities_eap(x, fast)

    def posterior(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        norm = special.logsumexp(joint, axis=1)
        post = np.exp(joint - norm[:, None])
        post[post < irt.TINY] = 0.0
        return norm, post

    monkeypatch.setattr(irt, "_posterior", posterior)
    monkeypatch.setattr(irt, "_transposed", lambda m: m.T)
    slow = fit_2pl(x)
    assert fast.loglik == pytest.approx(slow.loglik, rel=1e-8)
    # the optimiser stops once a step gains less than 1e-11 of log L: where the
    # likelihood is this flat, the parameters are pinned to ~1e-3 (as in the sparse and
    # dense test above, compare the units the data determine)
    answered = (x >= 0).sum(axis=1)
    firm = (answered >= np.median(answered)) & (np.abs(slow.difficulty) < 3)
    assert firm.sum() >= 10
    assert np.allclose(fast.difficulty[firm], slow.difficulty[firm], rtol=0, atol=0.01)
    assert np.allclose(fast.discrimination[firm], slow.discrimination[firm], rtol=0.02)
    assert np.corrcoef(fast_ab.theta, abilities_eap(x, slow).theta)[0, 1] > 0.99999


def test_fused_posterior_is_scipys() -> None:
    from scoring.agreement.irt import _posterior

    rng = np.random.default_rng(4)
    joint = rng.normal(-300, 80, size=(500, 121))
    norm = special.logsumexp(joint, axis=1)
    got_norm, got_post = _posterior(joint.copy())
    assert np.allclose(got_norm, norm, rtol=1e-14, atol=0)
    want = np.exp(joint - norm[:, None])
    assert np.allclose(got_post, np.where(want < 1e-250, 0.0, want), rtol=1e-12, atol=0)


def _known(n_units: int, n_persons: int, seed: int):
    x, a, b, theta = two_pl_draw(n_units, n_persons, np.random.default_rng(seed))
    fit = ItemFit("2pl", b, a, 0.0, 2 * n_units, True)
    return x, fit, theta


def _covers(n_units: int, n_persons: int, seed: int) -> tuple[float, Abilities]:
    x, fit, theta = _known(n_units, n_persons, seed)
    ab = abilities_eap(x, fit)
    hit = np.abs(ab.theta - theta) <= 1.96 * ab.se
    return float(hit.mean()), ab


@pytest.mark.parametrize("n_units", [20, pytest.param(200, marks=pytest.mark.slow)])
def test_adaptive_eap_intervals_cover_the_true_abilities(n_units: int) -> None:
    """Known item parameters: the EAP ± 1.96 posterior SD covers θ 93–97 % of the time
    (the fixed 41-node grid gave SDs of ~0 for long tests; issue 23)."""
    coverage, ab = _covers(n_units, 1500, seed=n_units)
    assert 0.93 <= coverage <= 0.97
    assert np.all(ab.se > 0)


@pytest.mark.slow
def test_adaptive_eap_at_2000_items_covers_and_tells_patterns_apart() -> None:
    coverage, ab = _covers(2000, 1000, seed=2000)
    assert 0.93 <= coverage <= 0.97
    assert float(np.median(ab.se)) == pytest.approx(0.035, rel=0.5)  # ~1/√information
    # 41 people spread over the range: 41 distinct abilities (the grid gave 16)
    x, fit, _ = _known(2000, 41, seed=5)
    theta = np.linspace(-2.5, 2.5, 41)
    rng = np.random.default_rng(6)
    p = 1 / (1 + np.exp(-fit.discrimination[:, None] * (theta[None, :] - fit.difficulty[:, None])))
    x = (rng.random(p.shape) < p).astype(np.int64)
    adaptive = abilities_eap(x, fit).theta
    grid = abilities_eap(x, fit, method="grid").theta
    assert np.unique(np.round(adaptive, 6)).size == 41
    assert np.unique(np.round(grid, 6)).size < 41
    assert np.corrcoef(adaptive, theta)[0, 1] > 0.99


def test_adaptive_and_grid_eap_agree_on_a_short_test() -> None:
    x, fit, _ = _known(15, 300, seed=3)
    adaptive, grid = abilities_eap(x, fit), abilities_eap(x, fit, method="grid")
    assert np.abs(adaptive.theta - grid.theta).max() < 0.01
    assert np.abs(adaptive.se - grid.se).max() < 0.01


def test_percentile_interval_counts_ties_as_the_resampled_mid_rank() -> None:
    """Against the resampled members' values compared one by one (the same draws)."""
    from scoring.agreement.irt import percentile_interval

    rng = np.random.default_rng(6)
    group = np.round(rng.normal(size=(400, 300)), 1)  # many ties
    one = np.round(rng.normal(size=400), 1)
    got = percentile_interval(one, group, seed=9)
    pick = np.random.default_rng(9).integers(0, 300, size=(400, 300))
    resampled = np.take_along_axis(group, pick, axis=1)
    pct = (
        100.0
        * ((resampled < one[:, None]).sum(axis=1) + 0.5 * (resampled == one[:, None]).sum(axis=1))
        / 300
    )
    tail = (1 - 0.95) / 2
    low, mid, high = np.quantile(pct, [tail, 0.5, 1 - tail])
    assert (got.value, got.low, got.high) == (mid, low, high)


def _central_gradient(f: Callable[[np.ndarray], float], x: np.ndarray, h: float) -> np.ndarray:
    out = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n_units,n_persons,missing,seed", [(8, 400, 0.0, 21), (20, 600, 0.7, 22)])
def test_stopping_rule_is_within_a_hundredth_of_a_standard_error(
    n_units: int, n_persons: int, missing: float, seed: int
) -> None:
    """``irt.STOP_SE`` (the projected gradient in standard-error units) against an
    independent tight fit of the same likelihood (the fit's grid, fixed): scipy's BFGS
    with central-difference gradients and gtol 1e-7, started off the fit. Every
    parameter within 0.01 of its standard error (from the numerical Hessian there),
    log L within 1e-6 relative."""
    x, *_ = simulate(n_units, n_persons, missing=missing, seed=seed)
    cells = Responses.from_matrix(x)
    one = fit_1pl(cells)
    for fit, n_a in ((one, 1), (fit_2pl(cells, start=one), n_units)):
        # the fit's grid: at SLOPE_MARGIN × its start's slopes (1 for the 1PL, at least 1)
        slopes = np.ones(n_units) if n_a == 1 else np.maximum(one.discrimination, 1.0)
        designs = irt._designs(cells, slopes * irt.SLOPE_MARGIN)

        def negative(params: np.ndarray, designs: list[Any] = designs, n_a: int = n_a) -> float:
            a = np.broadcast_to(np.exp(params[:n_a]), (n_units,))
            return -irt._loglik_and_counts(designs, a, params[n_a:], counts=False)[0]

        ours = np.concatenate([np.log(fit.discrimination[:n_a]), fit.difficulty])
        assert -negative(ours) == pytest.approx(fit.loglik, rel=1e-12)
        ref = optimize.minimize(
            negative,
            ours + 0.05,
            jac=lambda p, f=negative: _central_gradient(f, p, 1e-5),
            method="BFGS",
            options={"gtol": 1e-7, "maxiter": 5000},
        )
        h = 1e-4
        hessian = np.array(
            [
                (
                    _central_gradient(negative, ref.x + h * e, 1e-5)
                    - _central_gradient(negative, ref.x - h * e, 1e-5)
                )
                / (2 * h)
                for e in np.eye(ref.x.size)
            ]
        )
        se = np.sqrt(np.diag(np.linalg.inv((hessian + hessian.T) / 2)))
        assert np.all(np.abs(ours - ref.x) < 0.01 * se), np.abs(ours - ref.x) / se
        assert fit.loglik == pytest.approx(-ref.fun, rel=1e-6)
