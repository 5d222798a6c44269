"""Item response theory: people and models on one ability scale (1PL and 2PL).

Sources: F. M. Lord & M. R. Novick (1968), *Statistical Theories of Mental Test Scores*,
ch. 16-20 (the logistic models); F. B. Baker & S.-H. Kim (2004), *Item Response Theory:
Parameter Estimation Techniques*, 2nd ed., ch. 6 (marginal maximum likelihood over a
normal ability distribution, Bock & Aitkin 1981) and ch. 7 (EAP abilities and their
posterior standard deviations, Bock & Mislevy 1982).

The two-parameter logistic model: person j answers unit i right with probability

    P_i(θ_j) = 1 / (1 + exp(−a_i (θ_j − b_i)))

with ability θ_j ~ N(0, 1) in the population, difficulty b_i and discrimination
a_i > 0. The 1PL (Rasch family) has one slope a shared by every unit.

* **Why not girth at run time**: girth's ``twopl_mml`` optimises unit by unit with
  nested scalar searches and takes minutes for 2,000 units, its ``onepl_mml`` 16 s for
  2,000 units × 1,000 people (bench/bench_irt.py); both stay the tests' reference. Here
  the marginal likelihood

      log L(a, b) = Σ_j log Σ_q w_q Π_{i answered by j} P_i(θ_q)^x_ij (1 − P_i(θ_q))^(1−x_ij)

  (Gauss–Hermite nodes θ_q with normal weights w_q, ``N_QUADRATURE`` of them)
  is maximised over all (log a_i, b_i) at once (2PL; the 1PL: one log a and every b_i)
  by ``scipy.optimize.minimize`` (L-BFGS-B) with its exact gradient (Fisher's identity:
  the expected complete-data score under the posterior of θ_j), bounds ``A_BOUNDS`` and
  ``B_BOUNDS``; the 2PL starts from the 1PL. The tests check both against girth's
  ``onepl_mml`` and ``twopl_mml`` on data small enough for them.
* **Abilities**: EAP (the posterior mean of θ_j given the fitted units and N(0, 1)) with
  its posterior SD as standard error, for people and models alike, by adaptive
  Gauss–Hermite quadrature centred on each person's posterior mode (``abilities_eap``).

Units that everyone right or everyone wrong carry no information on their own
parameters (their difficulty runs off to ±∞); respondents with very few answers have
abilities that mostly echo the prior. The report leaves both out and says so
(``scoring.report.abilities``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from scipy import optimize, sparse, special
from threadpoolctl import threadpool_limits

from .table import FloatArray

N_QUADRATURE = 41
A_BOUNDS = (0.05, 8.0)
B_BOUNDS = (-8.0, 8.0)
MISSING = -1  # in the response matrices of this module
Z_LIMIT = 35.0
SPARSE_BELOW = 0.2  # share answered below which the indicators are sparse matrices
TINY = 1e-250  # posterior weights below it are set to 0 (no subnormal floats)
ADAPTIVE_NODES = 21  # per-person Gauss–Hermite nodes of the adaptive EAP


@dataclass(frozen=True)
class ItemFit:
    model: str  # "1pl" or "2pl"
    difficulty: FloatArray
    discrimination: FloatArray
    loglik: float  # marginal log-likelihood at the estimates
    n_parameters: int
    converged: bool
    message: str = ""

    def aic(self) -> float:
        return 2 * self.n_parameters - 2 * self.loglik

    def bic(self, n_persons: int) -> float:
        return self.n_parameters * math.log(max(n_persons, 1)) - 2 * self.loglik


@dataclass(frozen=True)
class Abilities:
    theta: FloatArray  # EAP
    se: FloatArray  # posterior SD


def quadrature(n: int = N_QUADRATURE) -> tuple[FloatArray, FloatArray]:
    """Nodes and weights of N(0, 1) (probabilists' Gauss–Hermite), weights summing to 1."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(n)
    return nodes.astype(np.float64), (weights / weights.sum()).astype(np.float64)


def check_matrix(responses: np.ndarray) -> np.ndarray:
    """``responses``: units × persons of 1 (right), 0 (wrong), ``MISSING``."""
    x = np.asarray(responses)
    if x.ndim != 2:
        raise ValueError("IRT needs a 2-d units × persons matrix")
    if not np.isin(x, (0, 1, MISSING)).all():
        raise ValueError(f"IRT responses must be 1 (right), 0 (wrong) or {MISSING} (missing)")
    return x.astype(np.int64)


Matrix: TypeAlias = "FloatArray | sparse.csr_array"


def _parts(x: np.ndarray) -> tuple[Matrix, Matrix, Matrix]:
    """Right, wrong and answered indicators (units × persons): sparse when most of the
    matrix is missing (volunteers who each see a few items of a large pool)."""
    seen = x != MISSING
    right = x == 1
    wrong = seen & ~right
    if seen.size and seen.mean() < SPARSE_BELOW:
        r, w, s = (sparse.csr_array(m, dtype=np.float64) for m in (right, wrong, seen))
        return r, w, s
    return right.astype(np.float64), wrong.astype(np.float64), seen.astype(np.float64)


def _transposed(m: Matrix) -> Matrix:
    """Persons × units: a sparse matrix is stored again row by row (CSR), which multiplies
    faster than the transposed view and sums each person's terms in the same order (unit
    by unit), so the products are the same to the last bit (tested)."""
    return sparse.csr_array(m.T) if sparse.issparse(m) else m.T


def logsumexp_rows(a: FloatArray) -> FloatArray:
    """``scipy.special.logsumexp(a, axis=1)`` of a finite 2-d array, the same operations
    in the same order (so the same bits, tested) without the array-API dispatch and the
    second, unused pass for infinite results that take two thirds of its time here (the
    fit calls it once per likelihood evaluation). Non-finite input goes to scipy."""
    if not np.isfinite(a).all():
        return np.asarray(special.logsumexp(a, axis=1))
    a_max = a.max(axis=1, keepdims=True)
    at_max = a == a_max
    m = at_max.sum(axis=1, keepdims=True, dtype=a.dtype)  # the terms equal to the max
    rest = np.exp(np.where(at_max, -np.inf, a) - a_max)
    s = rest.sum(axis=1, keepdims=True, dtype=rest.dtype)
    s = np.where(s == 0, s, s / m)
    out: FloatArray = (np.log1p(s) + np.log(m) + a_max)[:, 0]
    return out


def _log_posterior(
    right: Matrix, wrong: Matrix, a: FloatArray, b: FloatArray, nodes: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """log P(x_j, θ_q) up to the weights (persons × nodes) and P (units × nodes);
    ``right`` and ``wrong`` are persons × units (``_transposed``)."""
    # |z| > 35 changes P by less than 1e-15 and keeps log P out of subnormal floats
    # (which slow the matrix products below by two orders of magnitude)
    z = np.clip(a[:, None] * (nodes[None, :] - b[:, None]), -Z_LIMIT, Z_LIMIT)
    log_p, log_q = -np.logaddexp(0, -z), -np.logaddexp(0, z)
    like = np.asarray(right @ log_p + wrong @ log_q)
    return like, special.expit(z)


def marginal_loglik(
    responses: np.ndarray, difficulty: FloatArray, discrimination: FloatArray
) -> float:
    x = check_matrix(responses)
    right, wrong, _seen = _parts(x)
    nodes, weights = quadrature()
    a = np.broadcast_to(np.asarray(discrimination, dtype=float), difficulty.shape)
    b = np.asarray(difficulty, dtype=float)
    like, _ = _log_posterior(_transposed(right), _transposed(wrong), a, b, nodes)
    return float(logsumexp_rows(like + np.log(weights)[None, :]).sum())


def fit_1pl(responses: np.ndarray) -> ItemFit:
    """1PL (one slope shared by every unit) by marginal ML (module doc)."""
    x = check_matrix(responses)
    right, wrong, seen = _parts(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.asarray(right.sum(axis=1)).ravel() / np.asarray(seen.sum(axis=1)).ravel()
    share = np.clip(np.nan_to_num(share, nan=0.5), 0.02, 0.98)
    b0 = np.clip(-np.log(share / (1 - share)), *B_BOUNDS)  # logit of the share right
    return _fit(right, wrong, seen, np.concatenate([[0.0], b0]), shared=True)


def fit_2pl(responses: np.ndarray, *, start: ItemFit | None = None) -> ItemFit:
    """2PL by marginal ML (module doc), started from the 1PL fit (or ``start``)."""
    x = check_matrix(responses)
    right, wrong, seen = _parts(x)
    if start is None:
        start = fit_1pl(x)
    log_a = np.log(np.clip(start.discrimination, *A_BOUNDS))
    x0 = np.concatenate([log_a, np.clip(start.difficulty, *B_BOUNDS)])
    return _fit(right, wrong, seen, x0, shared=False)


def _fit(right: Matrix, wrong: Matrix, seen: Matrix, x0: FloatArray, *, shared: bool) -> ItemFit:
    """Maximise the marginal log-likelihood over (log a, b): L-BFGS-B, exact gradient.

    ``shared``: one log a for every unit (the 1PL), else one per unit (the 2PL).
    """
    n_units = right.shape[0]
    n_a = 1 if shared else n_units
    nodes, weights = quadrature()
    log_w = np.log(weights)
    right_t, wrong_t = _transposed(right), _transposed(wrong)

    def objective(params: FloatArray) -> tuple[float, FloatArray]:
        log_a, b = params[:n_a], params[n_a:]
        a = np.broadcast_to(np.exp(log_a), (n_units,))
        like, p = _log_posterior(right_t, wrong_t, a, b, nodes)
        joint = like + log_w[None, :]
        norm = logsumexp_rows(joint)
        post = np.exp(joint - norm[:, None])  # persons × nodes
        post[post < TINY] = 0.0
        # Fisher's identity: the score is the posterior expectation of the complete-data
        # score; d log L / d z_iq = r_iq - n_iq P_i(θ_q) with expected counts r and n.
        resid = np.asarray(right @ post) - np.asarray(seen @ post) * p
        grad_a = (resid * (nodes[None, :] - b[:, None])).sum(axis=1) * a
        grad_b = -a * resid.sum(axis=1)
        grad_log_a = np.asarray([grad_a.sum()]) if shared else grad_a
        return -float(norm.sum()), -np.concatenate([grad_log_a, grad_b])

    bounds = [(math.log(A_BOUNDS[0]), math.log(A_BOUNDS[1]))] * n_a + [B_BOUNDS] * n_units
    # One BLAS thread: these products are small and many; threads that wait on a busy
    # machine made each call 20 times slower in the benchmark (bench/bench_irt.py).
    with threadpool_limits(limits=1, user_api="blas"):
        res = optimize.minimize(
            objective,
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            # a relative change of 1e-11 in log L, or a projected gradient under 1e-6: tight
            # enough that the sparse and dense sums of the same likelihood stop at the same
            # optimum (tests/agreement/test_irt.py); bench_irt: 7.2 s at 1,000 x 2,000
            options={"maxiter": 2000, "maxfun": 4000, "ftol": 1e-11, "gtol": 1e-6},
        )
    a = np.broadcast_to(np.exp(res.x[:n_a]), (n_units,)).astype(np.float64)
    b = res.x[n_a:].astype(np.float64)
    return ItemFit(
        "1pl" if shared else "2pl",
        b,
        a,
        -float(res.fun),
        n_units + n_a,
        bool(res.success),
        str(res.message),
    )


def abilities_eap(responses: np.ndarray, fit: ItemFit, *, method: str = "adaptive") -> Abilities:
    """EAP abilities and posterior SDs of every person (column) under ``fit``.

    ``adaptive`` (default): adaptive Gauss–Hermite quadrature per person (Naylor & Smith
    1982; Liu & Pierce 1994): the posterior's mode m_j and curvature σ_j by Newton's
    method, then ``ADAPTIVE_NODES`` nodes m_j + σ_j x_q. However many answers a person
    gave (a model answering 2,000 items has a posterior SD of ~0.03), the nodes sit
    where the posterior is, so abilities do not snap to a fixed grid and their SDs are
    not ~0. ``grid``: the fixed ``N_QUADRATURE`` nodes (Bock & Mislevy 1982; girth's
    ``ability_eap``), exact enough for short tests only.
    """
    if method == "grid":
        return _abilities_grid(responses, fit)
    if method != "adaptive":
        raise ValueError("method: adaptive or grid")
    x = check_matrix(responses)
    n_persons = x.shape[1]
    unit, person = np.nonzero(x != MISSING)  # the answered cells only
    right = x[unit, person] == 1
    slope, level = fit.discrimination[unit], fit.difficulty[unit]
    sign = np.where(right, 1.0, -1.0)

    def per_person(values: FloatArray) -> FloatArray:
        return np.bincount(person, weights=values, minlength=n_persons).astype(np.float64)

    theta = np.zeros(n_persons)
    for _ in range(100):
        p = special.expit(slope * (theta[person] - level))
        grad = per_person(slope * (right - p)) - theta
        info = per_person(slope * slope * p * (1 - p)) + 1.0
        step = np.clip(grad / info, -1.0, 1.0)
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
        # log P(right) = −log(1 + e^−z), log P(wrong) = −log(1 + e^z)
        loglik = per_person(-np.logaddexp(0.0, -sign * z))
        log_w[:, q] = math.log(w_q[q]) + loglik - nodes[:, q] ** 2 / 2 + x_q[q] ** 2 / 2
    post = np.exp(log_w - logsumexp_rows(log_w)[:, None])
    mean = (post * nodes).sum(axis=1)
    var = (post * nodes**2).sum(axis=1) - mean**2
    return Abilities(mean.astype(np.float64), np.sqrt(np.maximum(var, 0)).astype(np.float64))


def _abilities_grid(responses: np.ndarray, fit: ItemFit) -> Abilities:
    x = check_matrix(responses)
    right, wrong, _seen = _parts(x)
    nodes, weights = quadrature()
    with threadpool_limits(limits=1, user_api="blas"):
        like, _ = _log_posterior(
            _transposed(right), _transposed(wrong), fit.discrimination, fit.difficulty, nodes
        )
    joint = like + np.log(weights)[None, :]
    post = np.exp(joint - logsumexp_rows(joint)[:, None])
    mean = post @ nodes
    var = post @ nodes**2 - mean**2
    return Abilities(mean.astype(np.float64), np.sqrt(np.maximum(var, 0)).astype(np.float64))
