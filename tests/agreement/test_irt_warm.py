"""Warm starts of the IRT fits (issue #24 item 5; ``fit_1pl`` / ``fit_2pl`` with
``start``): after a few new answers, a fit started from the previous one takes fewer
evaluations and agrees with the cold fit within 0.01 standard error of each parameter
(the same stopping rule, ``irt.STOP_SE``). The standard errors come from the test's own
marginal likelihood (numpy, Gauss–Hermite quadrature, central second differences: the
conditional SE, at most the marginal one, so the check is the stricter for it). A start
of another number of units is ignored: the cold start, bit for bit."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import special

from scoring.agreement.irt import MISSING, ItemFit, fit_1pl, fit_2pl

N_UNITS, N_PERSONS = 30, 500
TOLERANCE_SE = 0.01


def simulate(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0, 0.3, N_UNITS)
    b = rng.normal(0, 1, N_UNITS)
    theta = rng.normal(0, 1, N_PERSONS)
    p = 1 / (1 + np.exp(-a[:, None] * (theta[None, :] - b[:, None])))
    x = (rng.random(p.shape) < p).astype(np.int64)
    x[rng.random(x.shape) < 0.4] = MISSING
    return x


def before_new_answers(x: np.ndarray, n_new: int, seed: int) -> np.ndarray:
    """``x`` without ``n_new`` of its answers (they arrive later)."""
    rng = np.random.default_rng(seed)
    answered = np.argwhere(x != MISSING)
    earlier = x.copy()
    for i, j in answered[rng.choice(len(answered), n_new, replace=False)]:
        earlier[i, j] = MISSING
    return earlier


def log_likelihood(x: np.ndarray) -> Callable[[np.ndarray, np.ndarray], float]:
    """The marginal log-likelihood of the 2PL over N(0, 1), by numpy alone."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(81)
    log_w = np.log(weights / weights.sum())
    right, wrong = (x == 1).astype(float), (x == 0).astype(float)

    def value(a: np.ndarray, b: np.ndarray) -> float:
        z = a[:, None] * (nodes[None, :] - b[:, None])
        per_person = right.T @ -np.logaddexp(0, -z) + wrong.T @ -np.logaddexp(0, z)
        return float(special.logsumexp(per_person + log_w, axis=1).sum())

    return value


def standard_errors(x: np.ndarray, fit: ItemFit) -> tuple[np.ndarray, np.ndarray]:
    """Conditional SEs of each difficulty and slope (a shared slope for the 1PL)."""
    loglik = log_likelihood(x)
    a, b = fit.discrimination.astype(float), fit.difficulty.astype(float)
    h = 1e-3
    centre = loglik(a, b)

    def se(shift: Callable[[float], tuple[np.ndarray, np.ndarray]]) -> float:
        second = (loglik(*shift(h)) - 2 * centre + loglik(*shift(-h))) / h**2
        return float(1 / np.sqrt(-second))

    se_b = np.array(
        [se(lambda d, i=i: (a, b + d * np.eye(N_UNITS)[i])) for i in range(N_UNITS)]  # type: ignore[misc]
    )
    if fit.model == "1pl":
        se_a = np.full(N_UNITS, se(lambda d: (a + d, b)))
    else:
        se_a = np.array(
            [se(lambda d, i=i: (a + d * np.eye(N_UNITS)[i], b)) for i in range(N_UNITS)]  # type: ignore[misc]
        )
    return se_a, se_b


def within(x: np.ndarray, warm: ItemFit, cold: ItemFit) -> tuple[float, float]:
    """The largest |warm − cold| of the slopes and of the difficulties, in SEs."""
    se_a, se_b = standard_errors(x, cold)
    da = np.abs(warm.discrimination - cold.discrimination) / se_a
    db = np.abs(warm.difficulty - cold.difficulty) / se_b
    return float(da.max()), float(db.max())


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_warm_fit_after_a_few_new_answers_agrees_with_the_cold_fit(seed: int) -> None:
    x = simulate(seed)
    earlier = before_new_answers(x, n_new=15, seed=seed)
    prev_1, prev_2 = fit_1pl(earlier), None
    prev_2 = fit_2pl(earlier, start=prev_1)
    cold_1 = fit_1pl(x)
    cold_2 = fit_2pl(x, start=cold_1)
    warm_1 = fit_1pl(x, start=prev_1)
    warm_2 = fit_2pl(x, start=prev_2)
    for warm, cold in ((warm_1, cold_1), (warm_2, cold_2)):
        assert warm.converged and cold.converged
        da, db = within(x, warm, cold)
        assert da < TOLERANCE_SE and db < TOLERANCE_SE, (warm.model, da, db)
        assert abs(warm.loglik - cold.loglik) < 1e-3
    # fewer evaluations of the likelihood (the 2PL's cold fit also pays for its 1PL)
    assert warm_1.evaluations <= cold_1.evaluations
    assert warm_2.evaluations < cold_2.evaluations + cold_1.evaluations
    assert warm_2.evaluations <= cold_2.evaluations


def test_the_difference_is_seen_when_there_is_one() -> None:
    """The check can fail: a fit stopped early (a start far off, one evaluation's
    worth of difference) is many SEs away in the same measure."""
    x = simulate(3)
    cold = fit_1pl(x)
    off = ItemFit("1pl", cold.difficulty + 0.2, cold.discrimination, 0.0, N_UNITS + 1, True)
    _da, db = within(x, off, cold)
    assert db > 1.0


def test_a_start_of_other_units_is_ignored() -> None:
    x = simulate(4)
    fewer = fit_1pl(x[:-1])  # an item removed
    more = fit_1pl(np.vstack([x, x[:1]]))  # an item added
    cold_1 = fit_1pl(x)
    cold_2 = fit_2pl(x, start=cold_1)
    for start in (fewer, more):
        again_1 = fit_1pl(x, start=start)
        assert np.array_equal(again_1.difficulty, cold_1.difficulty)
        assert again_1.evaluations == cold_1.evaluations
        again_2 = fit_2pl(x, start=fit_2pl(x[:-1]) if start is fewer else start)
        assert np.array_equal(again_2.difficulty, cold_2.difficulty)
        assert np.array_equal(again_2.discrimination, cold_2.discrimination)
