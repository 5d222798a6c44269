"""Percentile bootstrap over units: seeded, sensible, and vectorised paths equal the generic one."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pytest
from agreement_examples import KRIPPENDORFF_2011, wide

from scoring.agreement import (
    AgreementResult,
    RatingTable,
    bootstrap_ci,
    cohen_kappa,
    compute_all,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
)
from scoring.agreement.cohen import Weights


def simulated(
    n_units: int, n_raters: int = 4, *, seed: int = 0, level: str = "ordinal"
) -> RatingTable:
    """Raters who see a true 1-5 score through noise: moderate agreement."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=n_units)
    rows = []
    for u in range(n_units):
        for r in range(n_raters):
            value = int(np.clip(truth[u] + rng.integers(-1, 2), 1, 5))
            rows.append((u, f"r{r}", value))
    return RatingTable.from_rows(rows, level=level)


def test_same_seed_same_interval_other_seed_other_interval() -> None:
    table = simulated(60)
    first = krippendorff_alpha(table, n_boot=300, seed=42)
    again = krippendorff_alpha(table, n_boot=300, seed=42)
    other = krippendorff_alpha(table, n_boot=300, seed=43)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)
    assert first.n_boot == 300 and first.confidence == 0.95


@pytest.mark.parametrize(
    "statistic",
    [krippendorff_alpha, fleiss_kappa, gwet_ac1, percent_agreement],
)
def test_interval_contains_point_estimate(statistic: Callable[..., AgreementResult]) -> None:
    result = statistic(simulated(150), n_boot=500, seed=7)
    assert result.ci_low <= result.value <= result.ci_high
    assert result.n_boot_valid == 500


def test_interval_narrows_with_more_units() -> None:
    small = krippendorff_alpha(simulated(40, seed=1), n_boot=400, seed=3)
    large = krippendorff_alpha(simulated(640, seed=1), n_boot=400, seed=3)
    assert (large.ci_high - large.ci_low) < (small.ci_high - small.ci_low) / 2


def test_wider_confidence_gives_wider_interval() -> None:
    table = simulated(80)
    ci90 = fleiss_kappa(table, n_boot=400, seed=5, confidence=0.90)
    ci99 = fleiss_kappa(table, n_boot=400, seed=5, confidence=0.99)
    assert ci99.ci_low <= ci90.ci_low and ci99.ci_high >= ci90.ci_high


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_vectorised_alpha_bootstrap_equals_generic_bootstrap(level: str) -> None:
    # Every unit has two or more ratings, so both paths resample the same units
    # from the same random stream.
    table = simulated(30, n_raters=3, level=level)
    fast = krippendorff_alpha(table, n_boot=200, seed=11)
    slow = bootstrap_ci(table, krippendorff_alpha, n_boot=200, seed=11)
    assert (fast.ci_low, fast.ci_high) == pytest.approx((slow.low, slow.high), abs=1e-12)


@pytest.mark.parametrize("statistic", [fleiss_kappa, gwet_ac1, percent_agreement])
def test_vectorised_categorical_bootstrap_equals_generic(
    statistic: Callable[..., AgreementResult],
) -> None:
    table = wide(KRIPPENDORFF_2011)  # includes a single-rated unit
    fast = statistic(table, n_boot=200, seed=5)
    slow = bootstrap_ci(table, statistic, n_boot=200, seed=5)
    assert (fast.ci_low, fast.ci_high) == pytest.approx((slow.low, slow.high), abs=1e-12)
    assert fast.n_boot_valid == slow.n_valid


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_vectorised_cohen_bootstrap_equals_generic(weights: Weights) -> None:
    table = simulated(50, n_raters=2)
    fast = cohen_kappa(table, weights=weights, n_boot=200, seed=9)
    slow = bootstrap_ci(table, partial(cohen_kappa, weights=weights), n_boot=200, seed=9)
    assert (fast.ci_low, fast.ci_high) == pytest.approx((slow.low, slow.high), abs=1e-12)


def test_undefined_replicates_are_dropped_and_counted() -> None:
    # Two units, each in perfect agreement on a different value: a resample that
    # draws the same unit twice holds a single value, and alpha is 0/0 there.
    table = RatingTable.from_rows(
        [(1, "a", 1), (1, "b", 1), (2, "a", 2), (2, "b", 2)], level="interval"
    )
    result = krippendorff_alpha(table, n_boot=200, seed=0)
    assert 0 < result.n_boot_valid < 200
    assert result.ci_low == result.ci_high == 1.0


def test_generic_bootstrap_accepts_plain_float_statistics() -> None:
    table = simulated(30)
    ci = bootstrap_ci(table, lambda t: float(t.n_ratings), n_boot=50, seed=0, level=0.9)
    assert ci.low == ci.high == 120.0
    assert ci.level == 0.9 and ci.n_boot == 50


def test_bad_confidence_level_is_rejected() -> None:
    with pytest.raises(ValueError):
        krippendorff_alpha(simulated(10), n_boot=10, confidence=1.5)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_large_table_paths_equal_generic_bootstrap(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With no cell budget, alpha and its replicates take the units x values
    # paths used for big tables (e.g. 100-point scales).
    import scoring.agreement.alpha as alpha_module

    monkeypatch.setattr(alpha_module, "PACKAGE_CELL_BUDGET", 0)
    table = simulated(30, n_raters=3, level=level)
    fast = krippendorff_alpha(table, n_boot=200, seed=11)
    slow = bootstrap_ci(table, krippendorff_alpha, n_boot=200, seed=11)
    assert (fast.ci_low, fast.ci_high) == pytest.approx((slow.low, slow.high), abs=1e-12)


def test_compute_all_intervals_equal_standalone_intervals() -> None:
    table = simulated(40, n_raters=2, level="ordinal")
    together = {(r.metric, r.weights): r for r in compute_all(table, n_boot=150, seed=4)}
    alone = [
        krippendorff_alpha(table, n_boot=150, seed=4),
        fleiss_kappa(table, n_boot=150, seed=4),
        cohen_kappa(table, weights="quadratic", n_boot=150, seed=4),
    ]
    for result in alone:
        twin = together[(result.metric, result.weights)]
        assert (twin.value, twin.ci_low, twin.ci_high) == (
            result.value,
            result.ci_low,
            result.ci_high,
        )
