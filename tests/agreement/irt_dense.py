"""A dense reference of ``scoring.agreement.irt``'s fit, abilities and item fit.

The production code works on the answered cells only (``irt.Responses``: sparse matrices
of the answers, the spline taken per unit when that is cheaper). This is the code as it
was before (2026-11-28), on the dense units × persons matrix with every empty cell
present: dense 0/1 indicator matrices, each person's log-likelihood at the coarse nodes
spline'd onto the fine ones, the abilities and mean squares from ``np.nonzero`` of the
matrix. Only the tests use it, to check that the sparse path computes the same numbers
(``tests/agreement/test_irt_sparse.py``). It shares the grid (``fit_grid``),
the bounds and the log-sum-exp with production, and stops tighter than production (the
optimum itself, to compare production's stopping rule with): those are not what changed.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from scoring.agreement.irt import (
    A_BOUNDS,
    ADAPTIVE_NODES,
    B_BOUNDS,
    MISSING,
    SLOPE_MARGIN,
    TINY,
    Z_LIMIT,
    Abilities,
    Grid,
    ItemFit,
    fit_grid,
    logsumexp_rows,
    quadrature,
)


def parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    seen = x != MISSING
    right = x == 1
    return right.astype(float), (seen & ~right).astype(float), seen.astype(float)


def information(seen: np.ndarray, slopes: np.ndarray) -> float:
    return float((seen.T @ (slopes * slopes)).max() / 4) if seen.shape[1] else 0.0


def log_posterior(
    right_t: np.ndarray, wrong_t: np.ndarray, a: np.ndarray, b: np.ndarray, nodes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    z = np.clip(a[:, None] * (nodes[None, :] - b[:, None]), -Z_LIMIT, Z_LIMIT)
    like = right_t @ -np.logaddexp(0, -z) + wrong_t @ -np.logaddexp(0, z)
    return like, special.expit(z)


def integrate(like: np.ndarray, grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    joint = like @ grid.spline + grid.log_weights[None, :]
    norm = logsumexp_rows(joint)
    post = np.exp(joint - norm[:, None])
    post[post < TINY] = 0.0
    return norm, post @ grid.spline.T


def marginal_loglik(x: np.ndarray, b: np.ndarray, a: np.ndarray) -> float:
    right, wrong, seen = parts(x)
    a = np.broadcast_to(np.asarray(a, dtype=float), b.shape)
    grid = fit_grid(information(seen, np.asarray(a, dtype=float)))
    like, _ = log_posterior(right.T, wrong.T, a, b, grid.coarse)
    return float(integrate(like, grid)[0].sum())


def objective(
    x: np.ndarray, params: np.ndarray, grid: Grid, *, shared: bool
) -> tuple[float, np.ndarray]:
    """−log L and its gradient over (log a, b) on ``grid``: the fit's objective."""
    right, wrong, seen = parts(x)
    n_units = x.shape[0]
    n_a = 1 if shared else n_units
    b = params[n_a:]
    a = np.broadcast_to(np.exp(params[:n_a]), (n_units,))
    like, p = log_posterior(right.T, wrong.T, a, b, grid.coarse)
    norm, post = integrate(like, grid)
    resid = right @ post - (seen @ post) * p
    grad_a = (resid * (grid.coarse[None, :] - b[:, None])).sum(axis=1) * a
    grad_b = -a * resid.sum(axis=1)
    grad_log_a = np.asarray([grad_a.sum()]) if shared else grad_a
    return -float(norm.sum()), -np.concatenate([grad_log_a, grad_b])


def start_grid(x: np.ndarray, x0: np.ndarray, *, shared: bool) -> Grid:
    n_units = x.shape[0]
    slopes = np.broadcast_to(np.exp(x0[: 1 if shared else n_units]), (n_units,))
    return fit_grid(information(parts(x)[2], np.maximum(slopes, 1.0) * SLOPE_MARGIN))


def fit(x: np.ndarray, x0: np.ndarray, *, shared: bool, grid: Grid | None = None) -> ItemFit:
    """The tight fit from ``x0``, on the grid of ``x0``'s slopes (or ``grid``)."""
    n_units = x.shape[0]
    n_a = 1 if shared else n_units
    grid = start_grid(x, x0, shared=shared) if grid is None else grid
    bounds = [(math.log(A_BOUNDS[0]), math.log(A_BOUNDS[1]))] * n_a + [B_BOUNDS] * n_units
    res = optimize.minimize(
        lambda params: objective(x, params, grid, shared=shared),
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        # tighter than production's stopping rule (``irt.STOP_SE``), so that the
        # reference is the optimum itself: ftol 1e-11 stopped 0.047 short of it in log L
        # on the 50 × 150 design of test_irt_sparse (2026-11-28)
        options={"maxiter": 20000, "maxfun": 40000, "ftol": 1e-15, "gtol": 1e-8},
    )
    a = np.broadcast_to(np.exp(res.x[:n_a]), (n_units,)).astype(float)
    return ItemFit(
        "1pl" if shared else "2pl",
        res.x[n_a:].astype(float),
        a,
        -float(res.fun),
        n_units + n_a,
        bool(res.success),
        str(res.message),
    )


def start_1pl(x: np.ndarray) -> np.ndarray:
    right, _wrong, seen = parts(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = right.sum(axis=1) / seen.sum(axis=1)
    share = np.clip(np.nan_to_num(share, nan=0.5), 0.02, 0.98)
    return np.concatenate([[0.0], np.clip(-np.log(share / (1 - share)), *B_BOUNDS)])


def start_2pl(one: ItemFit) -> np.ndarray:
    log_a = np.log(np.clip(one.discrimination, *A_BOUNDS))
    return np.concatenate([log_a, np.clip(one.difficulty, *B_BOUNDS)])


def fit_1pl(x: np.ndarray) -> ItemFit:
    return fit(x, start_1pl(x), shared=True)


def fit_2pl(x: np.ndarray, start: ItemFit) -> ItemFit:
    return fit(x, start_2pl(start), shared=False)


def abilities_eap(x: np.ndarray, fit: ItemFit) -> Abilities:
    n_persons = x.shape[1]
    unit, person = np.nonzero(x != MISSING)
    right = x[unit, person] == 1
    slope, level = fit.discrimination[unit], fit.difficulty[unit]
    sign = np.where(right, 1.0, -1.0)

    def per_person(values: np.ndarray) -> np.ndarray:
        return np.bincount(person, weights=values, minlength=n_persons).astype(float)

    theta = np.zeros(n_persons)
    for _ in range(100):
        p = special.expit(slope * (theta[person] - level))
        step = np.clip(
            (per_person(slope * (right - p)) - theta)
            / (per_person(slope * slope * p * (1 - p)) + 1.0),
            -1.0,
            1.0,
        )
        theta = theta + step
        if np.abs(step).max() < 1e-10:
            break
    p = special.expit(slope * (theta[person] - level))
    sigma = 1 / np.sqrt(per_person(slope * slope * p * (1 - p)) + 1.0)
    x_q, w_q = quadrature(ADAPTIVE_NODES)
    nodes = theta[:, None] + sigma[:, None] * x_q[None, :]
    log_w = np.empty((n_persons, x_q.size))
    for q in range(x_q.size):
        z = slope * (nodes[person, q] - level)
        loglik = per_person(-np.logaddexp(0.0, -sign * z))
        log_w[:, q] = math.log(w_q[q]) + loglik - nodes[:, q] ** 2 / 2 + x_q[q] ** 2 / 2
    post = np.exp(log_w - logsumexp_rows(log_w)[:, None])
    mean = (post * nodes).sum(axis=1)
    var = (post * nodes**2).sum(axis=1) - mean**2
    return Abilities(mean, np.sqrt(np.maximum(var, 0)))


def mean_squares(
    x: np.ndarray, fit: ItemFit, theta: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Outfit, infit and answers per unit."""
    unit, person = np.nonzero(x != MISSING)
    right = (x[unit, person] == 1).astype(float)
    p = special.expit(fit.discrimination[unit] * (theta[person] - fit.difficulty[unit]))
    var = np.maximum(p * (1 - p), 1e-12)
    sq = (right - p) ** 2
    n = np.bincount(unit, minlength=x.shape[0]).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        outfit = np.bincount(unit, weights=sq / var, minlength=x.shape[0]) / n
        infit = np.bincount(unit, weights=sq, minlength=x.shape[0]) / np.bincount(
            unit, weights=var, minlength=x.shape[0]
        )
    return outfit, infit, n


def two_pl_draw(
    n_units: int, n_persons: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Answers (units × persons, 0/1) drawn from a 2PL with log-normal slopes, normal
    difficulties and abilities; with the slopes, difficulties and abilities drawn."""
    a = rng.lognormal(0, 0.3, n_units)
    b = rng.normal(0, 1, n_units)
    theta = rng.normal(0, 1, n_persons)
    p = 1 / (1 + np.exp(-a[:, None] * (theta[None, :] - b[:, None])))
    x = (rng.random(p.shape) < p).astype(np.int64)
    return x, a, b, theta
