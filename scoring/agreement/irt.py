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

      log L(a, b) = Σ_j log ∫ Π_{i answered by j} P_i(θ)^x_ij (1 − P_i(θ))^(1−x_ij) φ(θ) dθ

  (each person's log-likelihood at ``N_COARSE`` nodes, spline-interpolated onto a
  trapezoid grid fine enough for the most informative response pattern: ``fit_grid``;
  the persons with a few answers on the coarsest such grid, ``_designs``; 41 fixed
  Gauss–Hermite nodes, the old integral, let the slopes shrink for long tests)
  is maximised over all (log a_i, b_i) at once (2PL; the 1PL: one log a and every b_i),
  bounds ``A_BOUNDS`` and ``B_BOUNDS``; the 2PL starts from the 1PL. First by Bock &
  Aitkin's EM (each E-step one likelihood evaluation, whose expected counts also give the
  exact gradient by Fisher's identity; the M-step by Fisher scoring per unit) accelerated
  by SQUAREM (Varadhan & Roland 2008) with its monotonicity guard (``_squarem``), then by
  ``scipy.optimize.minimize`` (L-BFGS-B) with the exact gradient from there; on small
  designs and those of few answers per unit (``_guarded``) also by L-BFGS-B alone from
  the start, and the higher maximum is kept (the likelihood can have several). Each
  parameter is scaled by its standard error at the start and the fit stops when the
  projected gradient in those units is under ``STOP_SE`` (``_scales``;
  docs/statistics.md §20). The tests check both against girth's ``onepl_mml`` and
  ``twopl_mml`` on data small enough for them.
* **Abilities**: EAP (the posterior mean of θ_j given the fitted units and N(0, 1)) with
  its posterior SD as standard error, for people and models alike, by adaptive
  Gauss–Hermite quadrature centred on each person's posterior mode (``abilities_eap``);
  plausible values (``plausible_values``, Mislevy 1991) for a respondent's percentile
  among a group with an interval (``percentile_interval``).
* **Item fit**: outfit and infit mean squares (``mean_squares``, Wright & Masters 1982);
  Orlando & Thissen's S-X² by summed scores is in ``itemfit``.

Every computation here reads the answered cells only (``Responses``; a units × persons
matrix with ``MISSING`` cells is accepted and converted): the likelihood as sparse ×
dense products over the answers (``_Design``), the abilities and item fit per answer,
so the cost grows with the answers × nodes and the respondents × nodes, not with the
empty cells of units × respondents.

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
import numpy.typing as npt
from scipy import interpolate, optimize, sparse, special
from threadpoolctl import threadpool_limits

from .table import FloatArray, IntArray

N_QUADRATURE = 41  # the fixed Gauss–Hermite nodes of the ``grid`` EAP (short tests)
N_COARSE = 61  # the fit's coarse nodes on [−GRID_LIMIT, GRID_LIMIT] (step 0.2)
GRID_LIMIT = 6.0
SLOPE_MARGIN = 1.5  # the fit's grid holds for slopes up to 1.5 × the starting ones
FINE_STEP = 0.1  # the fit's largest fine step (module doc, ``fit_grid``)
A_BOUNDS = (0.05, 8.0)
B_BOUNDS = (-8.0, 8.0)
MISSING = -1  # in the response matrices of this module
Z_LIMIT = 35.0
SPARSE_BELOW = 0.2  # share answered below which the indicators are sparse matrices
# a sparse product's cost per stored term and column, in dense (BLAS) multiply-adds: an
# estimate (scipy's CSR × dense loop has no BLAS blocking), not tuned
SPARSE_COST = 4.0
TINY = 1e-250  # posterior weights below it are set to 0 (no subnormal floats)
ADAPTIVE_NODES = 21  # per-person Gauss–Hermite nodes of the adaptive EAP
# the fit stops when no parameter's projected gradient, in units of its standard error
# (``_scales``), exceeds STOP_SE: a Newton step would move none by more than ~STOP_SE SE
STOP_SE = 3e-4
STOP_FTOL = 0.0  # no relative-change test: the gradient rule alone (docs/statistics.md §20)
# the EM phase before L-BFGS-B (``_squarem``; docs/statistics.md §20): at most this many
# E-steps (0: L-BFGS-B alone, from the start, as before 2026-11-28)
EM_MAX_STEPS = 300
SQUAREM_FACTOR = 4.0  # the SQUAREM package's ``mstep``: the step bound's growth
# below this many answers the fit also runs L-BFGS-B alone from the start and keeps the
# higher maximum (docs/statistics.md §20: on small sparse designs EM and L-BFGS-B can end
# on different maxima, each sometimes the higher; there both fits take well under 1 s)
GUARD_MAX_ANSWERS = 20_000
# ... or whose units have a median of fewer answers than this (different maxima seen in 6
# of 15 designs of 17-31 answers per unit, none in 6 of 44-80: docs/statistics.md §20)
GUARD_UNIT_ANSWERS = 40
M_ITERATIONS = 2  # Fisher-scoring steps per M-step (1 took 5 times the E-steps, 3 no fewer)
M_HALVINGS = 20  # step halvings per Fisher-scoring step at most


@dataclass(frozen=True)
class ItemFit:
    model: str  # "1pl" or "2pl"
    difficulty: FloatArray
    discrimination: FloatArray
    loglik: float  # marginal log-likelihood at the estimates
    n_parameters: int
    converged: bool
    message: str = ""
    evaluations: int = 0  # E-steps: of the likelihood and its expected counts (gradient)

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


@dataclass(frozen=True)
class Grid:
    """The fit's integration grid (module doc): each person's log-likelihood is computed
    at the ``coarse`` nodes (one matrix product for everyone), interpolated by a cubic
    spline (``spline``: coarse × fine, linear in the log-likelihoods) onto the ``fine``
    nodes, and integrated there by the trapezoid rule against N(0, 1) (``log_weights``)."""

    coarse: FloatArray
    fine: FloatArray
    spline: FloatArray
    log_weights: FloatArray


def fit_grid(information: float) -> Grid:
    """The grid for a matrix whose most informative response pattern has at most
    ``information`` (Σ a_i² / 4 over the person's answers: the Fisher information of θ
    is Σ a_i² P_i (1 − P_i) ≤ that).

    The posterior SD of θ is then at least 1 / √(1 + information); the fine step is that
    SD / 1.5 (at most ``FINE_STEP``): the trapezoid rule's relative
    error on a normal-shaped integrand of SD σ at step h is ~exp(−2π² σ² / h²) (< 1e-8
    here), so the integral holds however long the test (issue 23: 41 fixed Gauss–Hermite
    nodes gave a 1PL slope of 0.76 instead of 1.3 at 2,000 items).
    """
    n_fine = fine_size(information)
    coarse = np.linspace(-GRID_LIMIT, GRID_LIMIT, N_COARSE)
    fine = np.linspace(-GRID_LIMIT, GRID_LIMIT, n_fine)
    basis = interpolate.CubicSpline(coarse, np.eye(N_COARSE), axis=0)(fine)  # fine × coarse
    h = float(fine[1] - fine[0])
    log_w = -(fine**2) / 2 + math.log(h) - 0.5 * math.log(2 * math.pi)
    log_w[[0, -1]] += math.log(0.5)  # the trapezoid's end weights
    return Grid(coarse, fine, np.ascontiguousarray(basis.T), log_w)


def fine_size(information: float) -> int:
    """The fine nodes of ``fit_grid(information)``."""
    sd = 1.0 / math.sqrt(1.0 + max(information, 0.0))
    step = min(FINE_STEP, sd / 1.5)
    return 2 * math.ceil(GRID_LIMIT / step) + 1


def check_matrix(responses: np.ndarray) -> np.ndarray:
    """``responses``: units × persons of 1 (right), 0 (wrong), ``MISSING``."""
    x = np.asarray(responses)
    if x.ndim != 2:
        raise ValueError("IRT needs a 2-d units × persons matrix")
    if not np.isin(x, (0, 1, MISSING)).all():
        raise ValueError(f"IRT responses must be 1 (right), 0 (wrong) or {MISSING} (missing)")
    return x.astype(np.int64)


@dataclass(frozen=True)
class Responses:
    """The answered cells of a units × persons design, and nothing of the empty ones:
    cell k is person ``person[k]``'s answer to unit ``unit[k]``, ``right[k]`` whether it
    was right. Cells are sorted unit by unit, then person by person (the order of
    ``np.nonzero`` on the units × persons matrix), one per (unit, person).

    Every function of this module takes either this or the units × persons matrix of
    ``check_matrix`` (converted by ``responses_of``); volunteers who each answer 10 of a
    pool's 500 units leave 98 % of that matrix empty, so the report builds this directly
    from its answers (``from_cells``) and no computation here touches an empty cell."""

    n_units: int
    n_persons: int
    unit: IntArray
    person: IntArray
    right: npt.NDArray[np.bool_]

    @classmethod
    def from_cells(
        cls,
        unit: npt.ArrayLike,
        person: npt.ArrayLike,
        right: npt.ArrayLike,
        shape: tuple[int, int],
    ) -> Responses:
        """From one row per answer (any order): unit and person indices within ``shape``
        (units, persons) and 1/0 (or True/False) for right/wrong."""
        u, pr = np.asarray(unit, dtype=np.int64), np.asarray(person, dtype=np.int64)
        r = np.asarray(right)
        if not (u.ndim == pr.ndim == r.ndim == 1 and u.size == pr.size == r.size):
            raise ValueError("IRT cells need one unit, person and answer each")
        n_units, n_persons = int(shape[0]), int(shape[1])
        if u.size and (u.min() < 0 or u.max() >= n_units or pr.min() < 0 or pr.max() >= n_persons):
            raise ValueError("IRT cells must lie inside the units × persons shape")
        if not np.isin(r, (0, 1)).all():
            raise ValueError("IRT answers must be 1 (right) or 0 (wrong)")
        order = np.lexsort((pr, u))
        u, pr, r = u[order], pr[order], r[order].astype(bool)
        if u.size > 1 and ((np.diff(u) == 0) & (np.diff(pr) == 0)).any():
            raise ValueError("IRT cells: one answer per unit and person")
        return cls(n_units, n_persons, u, pr, r)

    @classmethod
    def from_matrix(cls, responses: np.ndarray) -> Responses:
        x = check_matrix(responses)
        unit, person = np.nonzero(x != MISSING)
        return cls(x.shape[0], x.shape[1], unit, person, x[unit, person] == 1)

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_units, self.n_persons

    @property
    def n_answers(self) -> int:
        return int(self.unit.size)

    def per_person(self, values: npt.ArrayLike | None = None) -> FloatArray:
        """Σ over each person's answers of ``values`` (one per cell; None: count them)."""
        out: FloatArray = np.bincount(self.person, weights=values, minlength=self.n_persons).astype(
            np.float64
        )
        return out

    def per_unit(self, values: npt.ArrayLike | None = None) -> FloatArray:
        """Σ over each unit's answers of ``values`` (one per cell; None: count them)."""
        out: FloatArray = np.bincount(self.unit, weights=values, minlength=self.n_units).astype(
            np.float64
        )
        return out

    def of_persons(self, keep: npt.NDArray[np.bool_]) -> Responses:
        """The cells of the persons ``keep`` marks, renumbered in their order."""
        index = np.cumsum(keep) - 1
        cell = keep[self.person]
        n = int(keep.sum())
        return Responses(
            self.n_units, n, self.unit[cell], index[self.person[cell]], self.right[cell]
        )

    def matrix(self, persons: IntArray | None = None) -> np.ndarray:
        """The units × persons matrix (1, 0, ``MISSING``) of ``persons`` (default: all)."""
        if persons is None:
            persons = np.arange(self.n_persons)
        column = np.full(self.n_persons, -1, dtype=np.int64)
        column[persons] = np.arange(persons.size)
        out = np.full((self.n_units, persons.size), MISSING, dtype=np.int64)
        keep = column[self.person] >= 0
        out[self.unit[keep], column[self.person[keep]]] = self.right[keep]
        return out


def responses_of(responses: np.ndarray | Responses) -> Responses:
    return responses if isinstance(responses, Responses) else Responses.from_matrix(responses)


Matrix: TypeAlias = "FloatArray | sparse.csr_array"


def _parts(x: Responses) -> tuple[Matrix, Matrix, Matrix]:
    """Right, wrong and answered indicators (units × persons): sparse when most of the
    matrix is missing (volunteers who each see a few items of a large pool)."""
    cells = x.n_units * x.n_persons
    right = x.right.astype(np.float64)
    if cells and x.n_answers < SPARSE_BELOW * cells:
        # only the nonzero entries stored, as ``csr_array`` of the dense indicator would
        r, w, s = (
            sparse.csr_array(
                (np.ones(int(keep.sum())), (x.unit[keep], x.person[keep])), shape=x.shape
            )
            for keep in (x.right, ~x.right, np.ones(x.n_answers, dtype=bool))
        )
        return r, w, s
    dense = np.zeros((3, *x.shape))
    dense[0][x.unit, x.person] = right
    dense[1][x.unit, x.person] = 1.0 - right
    dense[2][x.unit, x.person] = 1.0
    return dense[0], dense[1], dense[2]


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
    log_p, log_q, p = _log_p(a, b, nodes)
    like = np.asarray(right @ log_p + wrong @ log_q)
    return like, p


def _log_p(a: FloatArray, b: FloatArray, nodes: FloatArray) -> tuple[FloatArray, ...]:
    """log P, log (1 − P) and P of every unit at ``nodes`` (units × nodes)."""
    # |z| > 35 changes P by less than 1e-15 and keeps log P out of subnormal floats
    # (which slow the matrix products below by two orders of magnitude)
    z = np.clip(a[:, None] * (nodes[None, :] - b[:, None]), -Z_LIMIT, Z_LIMIT)
    return -np.logaddexp(0, -z), -np.logaddexp(0, z), special.expit(z)


def _posterior(joint: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Each person's log marginal likelihood and posterior on the fine nodes (``joint``:
    the log-likelihoods there plus the log weights, persons × fine; overwritten).

    The log-sum-exp and the normalised weights from one exponential of the shifted
    ``joint``, in place (every likelihood evaluation of the fit passes here: seven
    passes over persons × fine instead of the fifteen of ``logsumexp_rows`` and a second
    exponential; the same numbers to rounding, tested)."""
    top = joint.max(axis=1, keepdims=True)
    post = np.exp(np.subtract(joint, top, out=joint), out=joint)
    total = post.sum(axis=1, keepdims=True)
    post /= total
    post[post < TINY] = 0.0
    norm: FloatArray = (np.log(total) + top)[:, 0]
    return norm, post


@dataclass(frozen=True)
class _Design:
    """The indicator matrices of one fit and the order of its products.

    The spline is linear, so the fine log-likelihoods Σ_i x_ij log P_i(θ) spline'd are
    also Σ_i x_ij (log P_i spline'd): either each person's log-likelihood is computed at
    the coarse nodes and interpolated (persons × coarse × fine multiply-adds, the dense
    part) or each unit's log P is interpolated first and the answers summed on the fine
    nodes (units × coarse × fine, plus answers × fine in sparse products); likewise the
    gradient's posterior is carried back per unit instead of per person. ``fine_first``:
    the second, when its count of operations is lower (a few answers per person from a
    large population: 6,925 persons with 10 answers each of 500 units, about 1.7 times
    fewer at 121 fine nodes), weighing a sparse product's term ``SPARSE_COST`` dense
    ones. Either order gives the same sums up to rounding (tested)."""

    right: Matrix  # units × persons
    wrong: Matrix
    right_t: Matrix  # persons × units
    wrong_t: Matrix
    fine_first: bool

    @classmethod
    def of(cls, x: Responses, grid: Grid) -> _Design:
        right, wrong, seen = _parts(x)
        fine_first = sparse.issparse(seen) and _fine_first(x, grid)
        return cls(right, wrong, _transposed(right), _transposed(wrong), fine_first)

    def loglik(
        self, a: FloatArray, b: FloatArray, grid: Grid
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Each person's log marginal likelihood, posterior on the fine nodes (persons ×
        fine) and P (units × coarse)."""
        log_p, log_q, p = _log_p(a, b, grid.coarse)
        if self.fine_first:
            joint = np.asarray(
                self.right_t @ (log_p @ grid.spline) + self.wrong_t @ (log_q @ grid.spline)
            )
        else:
            joint = np.asarray(self.right_t @ log_p + self.wrong_t @ log_q) @ grid.spline
        norm, post = _posterior(joint + grid.log_weights[None, :])
        return norm, post, p

    def expected_counts(self, post: FloatArray, grid: Grid) -> tuple[FloatArray, FloatArray]:
        """Fisher's identity's expected right answers and answers of every unit at every
        coarse node (units × coarse), from the fine posteriors."""
        if self.fine_first:
            rights = np.asarray(self.right @ post) @ grid.spline.T
            wrongs = np.asarray(self.wrong @ post) @ grid.spline.T
        else:
            coarse = post @ grid.spline.T
            rights, wrongs = np.asarray(self.right @ coarse), np.asarray(self.wrong @ coarse)
        return rights, rights + wrongs


def _fine_first(x: Responses, grid: Grid) -> bool:
    """Whether ``_Design``'s second order of the products costs fewer operations."""
    n_units, n_persons = x.shape
    n_coarse, n_fine = grid.coarse.size, grid.fine.size
    terms = SPARSE_COST * 2 * x.n_answers  # every answer in the likelihood and the gradient
    coarse_cost = terms * n_coarse + 2 * n_persons * n_coarse * n_fine
    fine_cost = terms * n_fine + 4 * n_units * n_coarse * n_fine
    return fine_cost < coarse_cost


def _designs(x: Responses, slopes: FloatArray) -> list[tuple[_Design, Grid]]:
    """The fit's designs and grids at ``slopes`` (one per unit): each person's integral
    needs the fine step of its own information (``fit_grid``), so the persons whose
    information the coarsest fine grid serves (``FINE_STEP``: volunteers with a few
    answers) get that grid, and the others (models answering every unit) the grid of the
    most informative pattern, instead of everyone the latter: at 6,855 respondents of
    whom 10 models answer 500 units, 121 fine nodes for nearly everyone instead of 301.
    Each person's integral keeps the trapezoid rule's error bound of ``fit_grid``."""
    information = x.per_person(slopes[x.unit] ** 2) / 4
    widest = fit_grid(0.0)
    every = fit_grid(float(information.max(initial=0.0)))
    short = np.asarray([fine_size(float(i)) == widest.fine.size for i in information])
    if short.all() or not short.any():
        return [(_Design.of(x, every), every)]
    return [
        (_Design.of(x.of_persons(short), widest), widest),
        (_Design.of(x.of_persons(~short), every), every),
    ]


def _loglik_and_counts(
    designs: list[tuple[_Design, Grid]], a: FloatArray, b: FloatArray, *, counts: bool = True
) -> tuple[float, FloatArray, FloatArray, FloatArray]:
    """log L, the expected right answers and answers of every unit at every coarse node
    (units × coarse, summed over the designs; 0 when not ``counts``) and P."""
    total, rights, answers, p = 0.0, np.zeros(0), np.zeros(0), np.zeros(0)
    for k, (design, grid) in enumerate(designs):
        norm, post, p = design.loglik(a, b, grid)
        total += float(norm.sum())
        if counts:
            r, n = design.expected_counts(post, grid)
            rights, answers = (r, n) if k == 0 else (rights + r, answers + n)
    return total, rights, answers, p


def marginal_loglik(
    responses: np.ndarray | Responses, difficulty: FloatArray, discrimination: FloatArray
) -> float:
    """log L(a, b) of the module doc, integrated on the fit's grids (``_designs``)."""
    x = responses_of(responses)
    a = np.broadcast_to(np.asarray(discrimination, dtype=float), difficulty.shape)
    b = np.asarray(difficulty, dtype=float)
    designs = _designs(x, np.asarray(a, dtype=np.float64))
    return _loglik_and_counts(designs, a, b, counts=False)[0]


def fit_1pl(responses: np.ndarray | Responses, *, start: ItemFit | None = None) -> ItemFit:
    """1PL (one slope shared by every unit) by marginal ML (module doc), started from
    the logits of the units' shares right and slope 1, or from ``start``: an earlier fit
    of the same units (a warm start, e.g. the fit before a few new answers; ignored when
    its number of units differs). The stopping rule is the same from either start."""
    x = responses_of(responses)
    if fits_units(start, x.n_units):
        assert start is not None
        return _fit(x, _start_of(start, shared=True), shared=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = x.per_unit(x.right) / x.per_unit()
    share = np.clip(np.nan_to_num(share, nan=0.5), 0.02, 0.98)
    b0 = np.clip(-np.log(share / (1 - share)), *B_BOUNDS)  # logit of the share right
    return _fit(x, np.concatenate([[0.0], b0]), shared=True)


def fit_2pl(responses: np.ndarray | Responses, *, start: ItemFit | None = None) -> ItemFit:
    """2PL by marginal ML (module doc), started from the 1PL fit (or ``start``: the 1PL
    fit, or an earlier 2PL fit of the same units as a warm start; one of another
    number of units is ignored)."""
    x = responses_of(responses)
    if not fits_units(start, x.n_units):
        start = fit_1pl(x)
    assert start is not None
    return _fit(x, _start_of(start, shared=False), shared=False)


def fits_units(fit: ItemFit | None, n_units: int) -> bool:
    """Whether ``fit`` can start a fit of ``n_units`` units (one value per unit)."""
    return fit is not None and fit.difficulty.shape == (n_units,)


def _start_of(fit: ItemFit, *, shared: bool) -> FloatArray:
    """(log a, b) of ``fit`` within the bounds, as the optimiser's start; ``shared``:
    one log a (the 1PL's; a 2PL's mean log slope when it starts a 1PL)."""
    log_a = np.log(np.clip(fit.discrimination, *A_BOUNDS))
    if shared:
        log_a = np.asarray([float(np.mean(log_a))])
    return np.concatenate([log_a, np.clip(fit.difficulty, *B_BOUNDS)]).astype(np.float64)


@dataclass(frozen=True)
class _EStep:
    """One E-step (one likelihood evaluation) of the fit at ``params`` (log a, b): log L
    there, the expected right answers and answers of every unit at every coarse node
    (units × coarse: Bock & Aitkin's r_iq and n_iq, Fisher's identity's counts) and P.
    ``key``: the point in standard-error units (``_scales``) it was asked at, if any."""

    params: FloatArray
    key: FloatArray | None
    loglik: float
    rights: FloatArray
    answers: FloatArray
    p: FloatArray


class _Likelihood:
    """The fit's E-steps, counted (``count``: ``ItemFit.evaluations``); the last few are
    kept, so the point where the EM phase stops is not computed again as L-BFGS-B's
    first."""

    def __init__(self, designs: list[tuple[_Design, Grid]], n_a: int, n_units: int) -> None:
        self.designs, self.n_a, self.n_units = designs, n_a, n_units
        self.nodes = designs[0][1].coarse
        self.count = 0
        self._kept: list[_EStep] = []

    def at(self, params: FloatArray, key: FloatArray | None = None) -> _EStep:
        a = np.broadcast_to(np.exp(params[: self.n_a]), (self.n_units,))
        loglik, rights, answers, p = _loglik_and_counts(self.designs, a, params[self.n_a :])
        self.count += 1
        step = _EStep(params, key, loglik, rights, answers, p)
        self._kept = [step, *self._kept[:3]]
        return step

    def scaled(self, z: FloatArray, scale: FloatArray) -> _EStep:
        """The E-step at the point ``z`` in standard-error units."""
        for step in self._kept:
            if step.key is not None and np.array_equal(step.key, z):
                return step
        return self.at(z / scale, z.copy())

    def gradient(self, step: _EStep) -> FloatArray:
        """d log L / d (log a, b) at the E-step's point, by Fisher's identity: the score is
        the posterior expectation of the complete-data score (``_score`` at its counts)."""
        return _score(step.params, step.rights, step.answers, step.p, self.nodes, self.n_a)


def _score(
    params: FloatArray,
    rights: FloatArray,
    answers: FloatArray,
    p: FloatArray,
    nodes: FloatArray,
    n_a: int,
) -> FloatArray:
    """The gradient over (log a, b) of Σ_iq r_iq log P_i(θ_q) + (n_iq − r_iq) log(1 − P_i)
    at counts r (``rights``) and n (``answers``): d / d z_iq = r_iq − n_iq P_i(θ_q) with
    z_iq = a_i (θ_q − b_i); the 1PL's shared slope summed. At an E-step's counts it is
    d log L (Fisher's identity); it is also the M-step's gradient of Q."""
    n_units = rights.shape[0]
    a = np.broadcast_to(np.exp(params[:n_a]), (n_units,))
    resid = rights - answers * p
    grad_a = (resid * (nodes[None, :] - params[n_a:, None])).sum(axis=1) * a
    grad_b = -a * resid.sum(axis=1)
    grad_log_a = np.asarray([grad_a.sum()]) if n_a == 1 else grad_a
    return np.concatenate([grad_log_a, grad_b])


def _fit(x: Responses, x0: FloatArray, *, shared: bool) -> ItemFit:
    """Maximise the marginal log-likelihood over (log a, b): Bock–Aitkin EM accelerated
    by SQUAREM (``_squarem``), then L-BFGS-B with the exact gradient from where it
    stopped, to the stopping rule (``STOP_SE``; docs/statistics.md §20). On a small
    design or one of few answers per unit (``_guarded``), also L-BFGS-B alone from the
    start (the fit before 2026-11-28), and the higher of the two maxima; ``evaluations``
    counts both.

    ``shared``: one log a for every unit (the 1PL), else one per unit (the 2PL).
    """
    n_units = x.n_units
    n_a = 1 if shared else n_units
    # the grid for the most informative pattern, at slopes up to SLOPE_MARGIN times the
    # start's (at least 1.5 for the 1PL, which starts at 1)
    start_slopes = np.broadcast_to(np.exp(x0[:n_a]), (n_units,))
    designs = _designs(x, np.maximum(start_slopes, 1.0) * SLOPE_MARGIN)
    lo = np.asarray([math.log(A_BOUNDS[0])] * n_a + [B_BOUNDS[0]] * n_units)
    hi = np.asarray([math.log(A_BOUNDS[1])] * n_a + [B_BOUNDS[1]] * n_units)
    like = _Likelihood(designs, n_a, n_units)
    # One BLAS thread: these products are small and many; threads that wait on a busy
    # machine made each call 20 times slower in the benchmark (bench/bench_irt.py).
    with threadpool_limits(limits=1, user_api="blas"):
        first = like.at(x0)
        # each parameter in units of its standard error at the start (``_scales``), so
        # that L-BFGS-B's projected-gradient test reads "no parameter would still move by
        # STOP_SE of its standard error" (docs/statistics.md §20)
        scale = _scales(first, like.nodes, n_a)
        bounds = np.stack([lo, hi], axis=1) * scale[:, None]
        # (EM_MAX_STEPS 0: ``_squarem`` returns the start, and L-BFGS-B runs alone)
        res = _lbfgsb(like, scale, bounds, _squarem(like, first, scale, lo, hi))
        if EM_MAX_STEPS > 0 and _guarded(x):
            # the guard against a lower maximum (docs/statistics.md §20): also L-BFGS-B
            # alone, and the higher of the two maxima
            alone = _lbfgsb(like, scale, bounds, x0 * scale)
            if -alone.fun > -res.fun:
                res = alone
    params = res.x / scale
    a = np.broadcast_to(np.exp(params[:n_a]), (n_units,)).astype(np.float64)
    b = params[n_a:].astype(np.float64)
    return ItemFit(
        "1pl" if shared else "2pl",
        b,
        a,
        -float(res.fun),
        n_units + n_a,
        bool(res.success),
        str(res.message),
        like.count,
    )


def _guarded(x: Responses) -> bool:
    """Whether the fit also runs L-BFGS-B alone (the guard against a lower maximum,
    ``_fit``): a small design, or one whose units have few answers (the median over the
    answered units), where the likelihood was seen to have several maxima
    (docs/statistics.md §20)."""
    answers = x.per_unit()
    answered = answers[answers > 0]
    few = answered.size > 0 and float(np.median(answered)) < GUARD_UNIT_ANSWERS
    return x.n_answers < GUARD_MAX_ANSWERS or few


def _lbfgsb(
    like: _Likelihood, scale: FloatArray, bounds: FloatArray, z0: FloatArray
) -> optimize.OptimizeResult:
    """L-BFGS-B from ``z0`` (standard-error units) to the stopping rule."""

    def objective(z: FloatArray) -> tuple[float, FloatArray]:
        step = like.scaled(z, scale)
        return -step.loglik, -like.gradient(step) / scale

    return optimize.minimize(
        objective,
        z0,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": 2000, "maxfun": 4000, "ftol": STOP_FTOL, "gtol": STOP_SE},
    )


def _scales(step: _EStep, nodes: FloatArray, n_a: int) -> FloatArray:
    """√ of the diagonal of the complete-data information of (log a, b) at the E-step's
    point (the start): for unit i, Σ_q n_iq P(1 − P) a_i² (θ_q − b_i)² for log a_i and
    Σ_q n_iq P(1 − P) a_i² for b_i, with the expected answers n_iq at the coarse nodes
    (Fisher's identity's counts). It is at least the observed information's diagonal
    (the missing information is left out), so 1 / scale is at most the standard error,
    the stopping rule conservative."""
    info_a, _cross, info_b = _information(step.params, step.answers, step.p, nodes, n_a)
    if n_a == 1:
        info_a = np.asarray([info_a.sum()])
    info = np.concatenate([info_a, info_b])
    # a unit nobody answered informs nothing: keep it on its own (unscaled) footing
    out: FloatArray = np.sqrt(np.where(info > 1e-8, info, 1.0))
    return out


def _information(
    params: FloatArray, answers: FloatArray, p: FloatArray, nodes: FloatArray, n_a: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Each unit's complete-data (expected) information of (log a_i, b_i) at the expected
    answers n_iq: the diagonal terms and the cross term (units each)."""
    n_units = answers.shape[0]
    a = np.broadcast_to(np.exp(params[:n_a]), (n_units,))
    d = nodes[None, :] - params[n_a:, None]
    w = answers * p * (1 - p) * (a * a)[:, None]
    info_a: FloatArray = (w * d * d).sum(axis=1)
    cross: FloatArray = -(w * d).sum(axis=1)
    info_b: FloatArray = w.sum(axis=1)
    return info_a, cross, info_b


def _projected_gradient(
    z: FloatArray, grad: FloatArray, scale: FloatArray, lo: FloatArray, hi: FloatArray
) -> float:
    """L-BFGS-B's convergence measure at ``z`` (standard-error units) for the objective
    −log L: the largest |proj(z − g) − z|, g its gradient there, proj onto the bounds."""
    g = -grad / scale
    return float(np.abs(np.clip(z - g, lo * scale, hi * scale) - z).max(initial=0.0))


def _squarem(
    like: _Likelihood, first: _EStep, scale: FloatArray, lo: FloatArray, hi: FloatArray
) -> FloatArray:
    """Bock & Aitkin's EM (1981; Baker & Kim 2004, ch. 6) from ``first`` (the E-step at
    the start), accelerated by SQUAREM (Varadhan & Roland 2008, Scand. J. Statist. 35:
    335–353; scheme S3, the step length bounded as the authors' ``SQUAREM`` package does:
    at most ``step_max``, which starts at 1 and is multiplied by SQUAREM_FACTOR when a step
    of that length is taken, divided when the guard rejects one). Each cycle: two EM
    steps θ₁ = M(θ₀), θ₂ = M(θ₁), r = θ₁ − θ₀, v = θ₂ − θ₁ − r, α = −‖r‖ / ‖v‖ (in
    standard-error units), θ' = θ₀ − 2αr + α²v projected onto the bounds, then one EM step
    from θ'. The monotonicity guard: if log L(θ') < log L(θ₀), θ' is dropped and the next
    cycle starts at θ₂ (the plain EM step), so log L never decreases (EM's own
    monotonicity).

    Stops when the point meets the fit's stopping rule (``_projected_gradient`` under
    STOP_SE, the same test L-BFGS-B makes) or after EM_MAX_STEPS E-steps; returns the
    point, in standard-error units (L-BFGS-B starts there)."""
    n_a = like.n_a
    z_lo, z_hi = lo * scale, hi * scale

    def done(step: _EStep) -> bool:
        return _projected_gradient(key(step), like.gradient(step), scale, lo, hi) < STOP_SE

    def em(step: _EStep) -> FloatArray:
        """M(θ) in standard-error units."""
        out: FloatArray = np.clip(_m_step(step, like.nodes, n_a, lo, hi) * scale, z_lo, z_hi)
        return out

    def key(step: _EStep) -> FloatArray:
        return step.params * scale if step.key is None else step.key

    step_max = 1.0
    now = first
    while not done(now) and like.count + 3 <= EM_MAX_STEPS:
        z0 = key(now)
        one = like.scaled(em(now), scale)
        if done(one):
            return key(one)
        z1, z2 = key(one), em(one)
        r, v = z1 - z0, z2 - 2 * z1 + z0
        vv = float(v @ v)
        alpha = -math.sqrt(float(r @ r) / vv) if vv > 0 else -1.0
        alpha = min(max(alpha, -step_max), -1.0)
        out = like.scaled(np.clip(z0 - 2 * alpha * r + alpha * alpha * v, z_lo, z_hi), scale)
        if out.loglik >= now.loglik:
            if alpha == -step_max:
                step_max *= SQUAREM_FACTOR
            if done(out):
                return key(out)
            now = like.scaled(em(out), scale)
        else:
            step_max = max(1.0, step_max / SQUAREM_FACTOR)
            now = like.scaled(z2, scale)
    return key(now)


def _m_step(
    step: _EStep, nodes: FloatArray, n_a: int, lo: FloatArray, hi: FloatArray
) -> FloatArray:
    """Bock–Aitkin's M-step: (log a, b) raising the expected complete-data log-likelihood
    Q = Σ_iq r_iq log P_i(θ_q) + (n_iq − r_iq) log(1 − P_i(θ_q)) at the E-step's counts,
    within the bounds: M_ITERATIONS Fisher-scoring steps from the E-step's point (each
    unit's 2 × 2 expected information; the 1PL's shared slope by the Schur complement),
    with the coordinates at a bound that the gradient pushes outward held there, and the
    step halved until Q does not decrease (per unit; the 1PL as a whole). In (log a, b)
    Fisher scoring differs from Newton's method by terms equal to Q's gradient, so near
    the M-step's maximum it is as fast. Q is a sum over units of units × coarse-node
    terms: cheap beside an E-step."""
    rights, answers = step.rights, step.answers
    params = step.params.copy()
    for _ in range(M_ITERATIONS):
        q_old, grad, p = _expected_q(params, rights, answers, nodes, n_a)
        info_a, cross, info_b = _information(params, answers, p, nodes, n_a)
        direction = _scoring_direction(params, grad, (info_a, cross, info_b), lo, hi, n_a)
        params = _halved_until_higher(params, direction, q_old, rights, answers, nodes, n_a, lo, hi)
    return params


def _expected_q(
    params: FloatArray, rights: FloatArray, answers: FloatArray, nodes: FloatArray, n_a: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Q per unit, its gradient over (log a, b) (``_score``) and P."""
    n_units = rights.shape[0]
    a = np.broadcast_to(np.exp(params[:n_a]), (n_units,))
    q, p = _unit_q(a, params[n_a:], rights, answers, nodes)
    return q, _score(params, rights, answers, p, nodes, n_a), p


def _unit_q(
    a: FloatArray, b: FloatArray, rights: FloatArray, answers: FloatArray, nodes: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Q of each unit (slopes ``a``, difficulties ``b``) and P (units × coarse)."""
    z = np.clip(a[:, None] * (nodes[None, :] - b[:, None]), -Z_LIMIT, Z_LIMIT)
    # log P = −log(1 + e^−z), log(1 − P) = log P − z
    log_p = -np.logaddexp(0, -z)
    q: FloatArray = (answers * log_p - (answers - rights) * z).sum(axis=1)
    return q, np.exp(log_p)


def _scoring_direction(
    params: FloatArray,
    grad: FloatArray,
    info: tuple[FloatArray, FloatArray, FloatArray],
    lo: FloatArray,
    hi: FloatArray,
    n_a: int,
) -> FloatArray:
    """The Fisher-scoring step I⁻¹ g with the coordinates at a bound held there: those
    the gradient pushes outward, then those the step itself would take outward (the
    step of the others is then solved again without them)."""
    at_lo, at_hi = params <= lo, params >= hi
    held = (at_lo & (grad < 0)) | (at_hi & (grad > 0))
    for _ in range(3):
        direction = _free_direction(grad, info, held, n_a)
        out = (at_lo & (direction < 0)) | (at_hi & (direction > 0))
        if not (out & ~held).any():
            break
        held |= out
    return np.where(held, 0.0, direction)


def _free_direction(
    grad: FloatArray,
    info: tuple[FloatArray, FloatArray, FloatArray],
    held: npt.NDArray[np.bool_],
    n_a: int,
) -> FloatArray:
    """I⁻¹ g over the coordinates not ``held`` (each unit's 2 × 2 block; the 1PL's
    arrowhead by the Schur complement of its shared slope)."""
    info_a, cross, info_b = info
    g = np.where(held, 0.0, grad)
    g_a, g_b = g[:n_a], g[n_a:]
    free_b = ~held[n_a:]
    info_b = np.where(free_b & (info_b > 1e-12), info_b, 1.0)
    if n_a == 1:
        cross = np.where(free_b, cross, 0.0)
        schur = float(info_a.sum() - (cross * cross / info_b).sum())
        step_a = 0.0
        if not held[0] and schur > 1e-12:
            step_a = (float(g_a[0]) - float((cross * g_b / info_b).sum())) / schur
        return np.concatenate([[step_a], (g_b - cross * step_a) / info_b])
    free_a = ~held[:n_a] & (info_a > 1e-12)
    info_a = np.where(free_a, info_a, 1.0)
    g_a = np.where(free_a, g_a, 0.0)
    cross = np.where(free_a & free_b, cross, 0.0)
    det = info_a * info_b - cross * cross
    # a unit whose expected answers sit at one node determines (log a, b) only jointly:
    # the diagonal alone then
    flat = det <= 1e-10 * info_a * info_b
    cross, det = np.where(flat, 0.0, cross), np.where(flat, info_a * info_b, det)
    return np.concatenate([(info_b * g_a - cross * g_b) / det, (info_a * g_b - cross * g_a) / det])


def _halved_until_higher(
    params: FloatArray,
    direction: FloatArray,
    q_old: FloatArray,
    rights: FloatArray,
    answers: FloatArray,
    nodes: FloatArray,
    n_a: int,
    lo: FloatArray,
    hi: FloatArray,
) -> FloatArray:
    """params + t · direction, t = t₀, t₀/2, … until Q is not lower, t₀ ≤ 1 the longest
    step inside the bounds (a coordinate that reaches its bound stops there, and the next
    Fisher-scoring step holds it: clipping a joint (log a, b) step instead can lower Q
    at every t and stall the unit short of its maximum); per unit for the 2PL, for all
    units at once for the 1PL (its slope is shared); a unit (or the 1PL) that finds no
    such t keeps its parameters."""
    n_units = rights.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(direction > 0, (hi - params) / direction, np.inf)
        room = np.where(direction < 0, (lo - params) / direction, room)
    room = np.clip(room, 0.0, 1.0)
    # the longest step inside the bounds: the 1PL's shared, each 2PL unit's own
    t = np.full(n_units, float(room.min())) if n_a == 1 else np.minimum(room[:n_a], room[n_a:])
    if n_a == 1:
        for _ in range(M_HALVINGS):
            trial = _snapped(params + t[0] * direction, lo, hi)
            if _expected_q(trial, rights, answers, nodes, n_a)[0].sum() >= q_old.sum():
                return trial
            t = t / 2
        return params
    # the 2PL: unit by unit, Q computed again for the units still looking only
    out = params.copy()
    look = np.arange(n_units)
    for _ in range(M_HALVINGS):
        trial_a = _snapped(params[look] + t[look] * direction[look], lo[look], hi[look])
        b_at = n_a + look
        trial_b = _snapped(params[b_at] + t[look] * direction[b_at], lo[b_at], hi[b_at])
        q_new = _unit_q(np.exp(trial_a), trial_b, rights[look], answers[look], nodes)[0]
        better = q_new >= q_old[look]
        out[look[better]], out[b_at[better]] = trial_a[better], trial_b[better]
        look = look[~better]
        if not look.size:
            break
        t = t / 2
    return out


def _snapped(params: FloatArray, lo: FloatArray, hi: FloatArray) -> FloatArray:
    """Within the bounds, a coordinate within 1e-10 of one on it (the step that reaches a
    bound lands there to rounding)."""
    out = np.clip(params, lo, hi)
    out = np.where(out - lo < 1e-10, lo, out)
    out = np.where(hi - out < 1e-10, hi, out)
    return out


def abilities_eap(
    responses: np.ndarray | Responses, fit: ItemFit, *, method: str = "adaptive"
) -> Abilities:
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
    x = responses_of(responses)
    n_persons, unit, person, right = x.n_persons, x.unit, x.person, x.right
    slope, level = fit.discrimination[unit], fit.difficulty[unit]
    sign = np.where(right, 1.0, -1.0)
    per_person = x.per_person

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


def _abilities_grid(responses: np.ndarray | Responses, fit: ItemFit) -> Abilities:
    right, wrong, _seen = _parts(responses_of(responses))
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


@dataclass(frozen=True)
class MeanSquares:
    """Rasch-family item fit (Wright & Masters 1982, ch. 5; Linacre's Winsteps manual):
    per unit, over the persons who answered it, with P = P_i(θ_j) at each person's
    ability and the standardised residual z = (x − P) / √(P (1 − P)):

    * ``outfit``: the mean of z² (unweighted: sensitive to unexpected answers of persons
      far from the unit's difficulty, lucky guesses and careless slips);
    * ``infit``: Σ (x − P)² / Σ P (1 − P) (information-weighted: sensitive to misfit
      near the unit's difficulty).

    Both have expectation 1 under the model; ~0.5–1.5 is "productive for measurement"
    (Linacre 2002), above 1.5 or 2 the unit is noisier than the model says (a mis-keyed
    or ambiguous item), well below 1 more predictable (often a discrimination above the
    others', which the 2PL absorbs)."""

    outfit: FloatArray
    infit: FloatArray
    n: FloatArray  # answers per unit


def mean_squares(responses: np.ndarray | Responses, fit: ItemFit, theta: FloatArray) -> MeanSquares:
    """Outfit and infit mean squares of every unit (``MeanSquares``) at abilities
    ``theta`` (one per person: the report uses the EAPs, which for short tests shrink
    toward 0 and make both statistics slightly conservative; Wright & Masters use the
    ML abilities, undefined for all-right or all-wrong patterns)."""
    x = responses_of(responses)
    unit, person, right = x.unit, x.person, x.right.astype(np.float64)
    p = special.expit(fit.discrimination[unit] * (np.asarray(theta)[person] - fit.difficulty[unit]))
    var = np.maximum(p * (1 - p), 1e-12)
    sq = (right - p) ** 2
    n_units = x.n_units
    n = np.bincount(unit, minlength=n_units).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        outfit = np.bincount(unit, weights=sq / var, minlength=n_units) / n
        infit = np.bincount(unit, weights=sq, minlength=n_units) / np.bincount(
            unit, weights=var, minlength=n_units
        )
    return MeanSquares(outfit.astype(np.float64), infit.astype(np.float64), n)


def plausible_values(abilities: Abilities, draws: int, seed: int) -> FloatArray:
    """``draws`` plausible values per person (draws × persons; Mislevy 1991; Mislevy,
    Beaton, Kaplan & Sheehan 1992): random draws from each person's posterior of θ,
    here its normal approximation N(EAP, posterior SD²) (the adaptive quadrature's
    posteriors are close to normal; exact as tests lengthen). Unlike the EAPs, which
    shrink toward the mean by a share that depends on test length, plausible values
    have the population's spread, so a model's 2,000-item ability and people's 20-item
    ones are compared on one footing."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((draws, abilities.theta.size))
    out: FloatArray = abilities.theta[None, :] + abilities.se[None, :] * noise
    return out


@dataclass(frozen=True)
class PercentileInterval:
    value: float  # the median over the draws
    low: float
    high: float
    draws: int


def percentile_interval(
    one: FloatArray, group: FloatArray, *, confidence: float = 0.95, seed: int = 0
) -> PercentileInterval:
    """A respondent's percentile (mid-rank) among a group, from plausible values.

    ``one``: the respondent's plausible values (draws); ``group``: the members'
    (draws × members). Each draw resamples the members with replacement (the group is
    a sample of its population) and places the respondent's draw among the members'
    draws; the percentile is the median over draws and the interval their central
    ``confidence`` share, so it carries both the measurement error of every ability and
    the group's sampling error (Mislevy 1991, §4: statistics computed per plausible
    value, then pooled). Several respondents among one group: :class:`PercentileGroup`
    (the same draws, made once)."""
    return PercentileGroup.of(group, seed=seed).interval(one, confidence=confidence)


@dataclass(frozen=True)
class PercentileGroup:
    """A group's plausible values (draws × members) and the members resampled in each
    draw from ``seed``, drawn once for every respondent placed among them: each
    respondent's :meth:`interval` is :func:`percentile_interval`'s with that seed."""

    group: FloatArray
    pick: IntArray  # draws × members: the resampled members' columns

    @classmethod
    def of(cls, group: FloatArray, *, seed: int = 0) -> PercentileGroup:
        draws, members = group.shape
        if members == 0 or draws == 0:
            return cls(group, np.zeros((draws, 0), dtype=np.int64))
        rng = np.random.default_rng(seed)
        return cls(group, rng.integers(0, members, size=(draws, members)))

    def interval(self, one: FloatArray, *, confidence: float = 0.95) -> PercentileInterval:
        draws, members = self.group.shape
        if members == 0 or draws == 0:
            return PercentileInterval(math.nan, math.nan, math.nan, draws)
        # twice each member's mid-rank count (2 below, 1 tied) once per draw, then
        # gathered for the resampled members: a byte per member, not the float values and
        # two comparisons of every resampled one (the same counts)
        twice = 2 * (self.group < one[:, None]).astype(np.int8) + (self.group == one[:, None])
        counted = np.take_along_axis(twice, self.pick, axis=1).sum(axis=1, dtype=np.int64)
        pct = 100.0 * (counted / 2) / members
        tail = (1 - confidence) / 2
        low, mid, high = np.quantile(pct, [tail, 0.5, 1 - tail])
        return PercentileInterval(float(mid), float(low), float(high), draws)
