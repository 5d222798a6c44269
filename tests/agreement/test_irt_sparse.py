"""The IRT computations on the answered cells only (``irt.Responses``, sparse products in
either order) against the dense reference (``tests/agreement/irt_dense.py``: the code as
it was, on the units × persons matrix) on random incomplete designs with the awkward
cases: a unit one person answered, persons who answered one unit, a person and a unit
all right, a person and a unit all wrong."""

from __future__ import annotations

import functools

import irt_dense as dense
import numpy as np
import pytest

from scoring.agreement import irt
from scoring.agreement.irt import (
    A_BOUNDS,
    MISSING,
    ItemFit,
    Responses,
    abilities_eap,
    fit_1pl,
    fit_2pl,
    fit_grid,
    marginal_loglik,
    mean_squares,
)
from scoring.agreement.itemfit import s_x2


def design(n_units: int, n_persons: int, share: float, seed: int) -> np.ndarray:
    """A 2PL study where each person answers about ``share`` of the units, with the
    awkward cases planted in it."""
    rng = np.random.default_rng(seed)
    x, _, _, _ = dense.two_pl_draw(n_units, n_persons, rng)
    x[rng.random(x.shape) > share] = MISSING
    x[:, :3] = MISSING
    x[0, :] = MISSING
    x[0, 5] = 1  # unit 0: one person answered it
    x[4, 0] = 1  # persons 0 and 1: one unit each
    x[7, 1] = 0
    x[1:6, 2] = 1  # person 2: all right
    x[6:11, 3] = 0  # person 3: all wrong
    x[1, x[1] != MISSING] = 1  # unit 1: all right
    x[2, x[2] != MISSING] = 0  # unit 2: all wrong
    return x


DESIGNS = [(12, 80, 0.3, 1), (30, 200, 0.1, 2), (50, 150, 0.06, 3)]


@pytest.fixture(params=[False, True], ids=["coarse_first", "fine_first"])
def order(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Both orders of the sparse products (``irt._Design``), sparse indicators always."""
    monkeypatch.setattr(irt, "SPARSE_BELOW", 1.0)
    monkeypatch.setattr(irt, "_fine_first", lambda x, grid: request.param)
    return bool(request.param)


def test_responses_are_the_matrix_cells() -> None:
    x = design(12, 80, 0.3, 1)
    cells = Responses.from_matrix(x)
    unit, person = np.nonzero(x != MISSING)
    shuffle = np.random.default_rng(0).permutation(unit.size)
    again = Responses.from_cells(unit[shuffle], person[shuffle], x[unit, person][shuffle], x.shape)
    for r in (cells, again):
        assert np.array_equal(r.unit, unit) and np.array_equal(r.person, person)
        assert np.array_equal(r.right, x[unit, person] == 1)
        assert np.array_equal(r.matrix(), x)
    with pytest.raises(ValueError, match="one answer"):
        Responses.from_cells([0, 0], [1, 1], [1, 0], (2, 2))
    with pytest.raises(ValueError, match="inside"):
        Responses.from_cells([2], [0], [1], (2, 2))
    with pytest.raises(ValueError, match="right"):
        Responses.from_cells([0], [0], [2], (2, 2))


@pytest.mark.parametrize("n_units,n_persons,share,seed", DESIGNS)
def test_likelihood_and_gradient_match_the_dense_reference(
    order: bool, n_units: int, n_persons: int, share: float, seed: int
) -> None:
    x = design(n_units, n_persons, share, seed)
    rng = np.random.default_rng(seed + 100)
    b, a = rng.normal(0, 1.5, n_units), rng.lognormal(0, 0.5, n_units)
    assert marginal_loglik(Responses.from_matrix(x), b, a) == pytest.approx(
        dense.marginal_loglik(x, b, a), rel=1e-12
    )
    grid = fit_grid(40.0)
    cells = Responses.from_matrix(x)
    made = irt._Design.of(cells, grid)
    assert made.fine_first is order
    norm, post, p = made.loglik(a, b, grid)
    rights, answers = made.expected_counts(post, grid)
    resid = rights - answers * p
    grad_b = -a * resid.sum(axis=1)
    want, want_grad = dense.objective(x, np.concatenate([np.log(a), b]), grid, shared=False)
    assert -norm.sum() == pytest.approx(want, rel=1e-12)
    assert np.allclose(-grad_b, want_grad[n_units:], rtol=1e-9, atol=1e-9)


@functools.cache
def dense_fits(n_units: int, n_persons: int, share: float, seed: int) -> tuple[ItemFit, ...]:
    x = design(n_units, n_persons, share, seed)
    one = dense.fit_1pl(x)
    return one, dense.fit_2pl(x, one)


@pytest.mark.slow
@pytest.mark.parametrize("n_units,n_persons,share,seed", DESIGNS[1:])
def test_fits_abilities_and_item_fit_match_the_dense_reference(
    order: bool, n_units: int, n_persons: int, share: float, seed: int
) -> None:
    """Same likelihood, same optimum: log L to 1e-7 of the reference's tight optimum
    (production stops by ``irt.STOP_SE``, and the last bits of each sum, which differ
    with the order, move where it stops along the flat ridges of the units few answered:
    the parameters of the units at least 5 answered with |b| < 3 and a slope off its
    bounds to 0.01, as the stopping rule pins them); the abilities and item fit under the
    same parameters to 1e-12."""
    x = design(n_units, n_persons, share, seed)
    cells = Responses.from_matrix(x)
    one, two = dense_fits(n_units, n_persons, share, seed)
    for ours, theirs in ((fit_1pl(cells), one), (fit_2pl(cells, start=one), two)):
        assert ours.converged and theirs.converged
        if ours.loglik > theirs.loglik + 1e-7 * abs(theirs.loglik):
            # the reference stopped at a lower stationary point (the 50 × 150 design's
            # 2PL: 0.047 lower, on units of 4-15 answers with slopes at their bounds;
            # restarting it there does not leave it): check instead that ours is one of
            # the dense likelihood's maxima (the dense fit started at ours stays there)
            shared = ours.model == "1pl"
            n_a = 1 if shared else n_units
            start = np.concatenate([np.log(ours.discrimination[:n_a]), ours.difficulty])
            # (on the grid of ours' slopes, up to the bound 8: finer than ours, made at
            # 1.5 × the 1PL's, so the ridge units move a little: 0.06 in b at 11 answers)
            theirs = dense.fit(x, start, shared=shared)
            assert theirs.loglik == pytest.approx(ours.loglik, rel=1e-6)
            tolerance = 0.1
        else:
            assert ours.loglik == pytest.approx(theirs.loglik, rel=1e-7)
            tolerance = 0.01
        inside = (theirs.discrimination > 1.01 * A_BOUNDS[0]) & (
            theirs.discrimination < A_BOUNDS[1] / 1.01
        )
        firm = ((x != MISSING).sum(axis=1) >= 5) & (np.abs(theirs.difficulty) < 3) & inside
        assert firm.sum() >= n_units // 5  # 11 of 50 in the sparsest design
        assert np.allclose(ours.difficulty[firm], theirs.difficulty[firm], rtol=0, atol=tolerance)
        assert np.allclose(
            ours.discrimination[firm], theirs.discrimination[firm], rtol=2 * tolerance
        )
        ab, ref = abilities_eap(cells, theirs), dense.abilities_eap(x, theirs)
        assert np.allclose(ab.theta, ref.theta, rtol=0, atol=1e-12)
        assert np.allclose(ab.se, ref.se, rtol=0, atol=1e-12)
        ms = mean_squares(cells, theirs, ref.theta)
        outfit, infit, n = dense.mean_squares(x, theirs, ref.theta)
        assert np.array_equal(ms.n, n)
        assert np.allclose(ms.outfit, outfit, rtol=0, atol=1e-12, equal_nan=True)
        assert np.allclose(ms.infit, infit, rtol=0, atol=1e-12, equal_nan=True)


def test_s_x2_takes_the_complete_respondents_from_the_cells() -> None:
    rng = np.random.default_rng(5)
    x = (rng.random((8, 300)) < 0.6).astype(np.int64)
    x[:, :40] = np.where(rng.random((8, 40)) < 0.3, MISSING, x[:, :40])
    fit = dense.fit_1pl(x)
    got, want = s_x2(Responses.from_matrix(x), fit), s_x2(x, fit)
    assert got.n == want.n == int((x != MISSING).all(axis=0).sum())
    assert np.array_equal(got.statistic, want.statistic, equal_nan=True)


def test_persons_with_few_answers_get_their_own_grid() -> None:
    """Volunteers with a few answers integrate on the coarsest fine grid, the models who
    answer everything on the finest: the same log-likelihood as everyone on the finest
    (the dense reference) to the quadrature's error (the trapezoid rule over the
    spline, whose third derivative jumps at the coarse nodes: 9e-9 of log L here)."""
    rng = np.random.default_rng(12)
    n_units, n_people, n_models = 200, 300, 4
    a, b = rng.lognormal(0, 0.3, n_units), rng.normal(0, 1, n_units)
    theta = rng.normal(0, 1, n_people + n_models)
    p = 1 / (1 + np.exp(-a[:, None] * (theta[None, :] - b[:, None])))
    x = (rng.random(p.shape) < p).astype(np.int64)
    x[:, :n_people][rng.random((n_units, n_people)) > 0.04] = MISSING
    cells = Responses.from_matrix(x)
    designs = irt._designs(cells, a)
    assert [grid.fine.size for _d, grid in designs] == [
        121,
        fit_grid(float((a**2).sum() / 4)).fine.size,
    ]
    assert designs[1][0].right_t.shape[0] == n_models
    assert marginal_loglik(cells, b, a) == pytest.approx(dense.marginal_loglik(x, b, a), rel=2e-8)
