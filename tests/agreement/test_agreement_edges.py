"""Edge cases: each coefficient undefined (NaN with a reason) or defined as its literature says."""

from __future__ import annotations

import math

import pytest
from agreement_examples import KRIPPENDORFF_2011, wide

from scoring.agreement import (
    METRICS,
    RatingTable,
    cohen_kappa,
    compute_all,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
)


def everyone_says(value: int, *, domain: list[int] | None = None) -> RatingTable:
    rows = [(u, r, value) for u in range(6) for r in ("a", "b", "c")]
    return RatingTable.from_rows(rows, level="ordinal", domain=domain)


@pytest.mark.parametrize("domain", [None, [1, 2, 3, 4, 5]])
def test_single_category_everywhere(domain: list[int] | None) -> None:
    table = everyone_says(3, domain=domain)
    alpha = krippendorff_alpha(table)
    assert math.isnan(alpha.value) and "D_e = 0" in (alpha.reason or "")
    assert alpha.n_units == 6
    kappa = fleiss_kappa(table)
    assert math.isnan(kappa.value) and "p_e = 1" in (kappa.reason or "")
    # Gwet (2008): p_e = sum pi_k (1 - pi_k) / (q - 1) = 0, so AC1 = p_a = 1.
    ac1 = gwet_ac1(table)
    assert ac1.value == 1.0 and ac1.expected == 0.0
    assert percent_agreement(table).value == 1.0


def test_single_category_two_raters_cohen_undefined() -> None:
    rows = [(u, r, 1) for u in range(5) for r in ("a", "b")]
    result = cohen_kappa(RatingTable.from_rows(rows))
    assert math.isnan(result.value) and "p_e = 1" in (result.reason or "")


@pytest.mark.parametrize(
    "statistic", [krippendorff_alpha, fleiss_kappa, gwet_ac1, percent_agreement, cohen_kappa]
)
def test_empty_table(statistic) -> None:
    result = statistic(RatingTable.from_rows([]))
    assert math.isnan(result.value)
    assert result.reason


def test_one_rater_only() -> None:
    table = RatingTable.from_rows([(u, "solo", u % 3) for u in range(10)])
    for statistic in (krippendorff_alpha, fleiss_kappa, gwet_ac1, percent_agreement):
        result = statistic(table)
        assert math.isnan(result.value)
        assert "two or more ratings" in (result.reason or "")
    assert "exactly two raters" in (cohen_kappa(table).reason or "")


def test_units_with_one_rating_are_not_pairable() -> None:
    base = wide(KRIPPENDORFF_2011, level="interval")
    extra = [(u, "A", v) for u, v in zip(range(100, 110), range(10), strict=True)]
    rows = [
        (base.units[u], base.raters[r], base.domain[v])
        for u, r, v in zip(base.unit_codes, base.rater_codes, base.value_codes, strict=True)
    ]
    padded = RatingTable.from_rows(rows + extra, level="interval")
    # Single-rated units change neither alpha nor percent agreement...
    assert krippendorff_alpha(padded).value == pytest.approx(krippendorff_alpha(base).value)
    assert percent_agreement(padded).value == pytest.approx(percent_agreement(base).value)
    assert krippendorff_alpha(padded).n_units == 11
    # ...but enter Gwet's category prevalences pi_k, hence p_e of AC1 and Fleiss.
    assert gwet_ac1(padded).expected != pytest.approx(gwet_ac1(base).expected)


def test_cohen_needs_two_raters_or_a_named_pair() -> None:
    table = wide(KRIPPENDORFF_2011, level="ordinal")
    assert math.isnan(cohen_kappa(table).value)
    named = cohen_kappa(table, raters=("A", "B"))
    assert named.n_units == 9  # A and B both rated units 1-9
    assert not math.isnan(named.value)


def test_cohen_without_shared_units() -> None:
    table = RatingTable.from_rows([(1, "a", 1), (2, "b", 2)])
    result = cohen_kappa(table)
    assert math.isnan(result.value) and "both" in (result.reason or "")


def test_compute_all_metric_names_and_selection() -> None:
    four = compute_all(wide(KRIPPENDORFF_2011, level="ordinal"), n_boot=50, seed=1)
    assert [(r.metric, r.weights) for r in four] == [
        ("percent_agreement", None),
        ("krippendorff_alpha", None),
        ("fleiss_kappa", None),
        ("gwet_ac1", None),
        ("brennan_prediger", None),
        ("conger_kappa", None),
        ("percent_agreement", "quadratic"),
        ("fleiss_kappa", "quadratic"),
        ("gwet_ac2", "quadratic"),
        ("cronbach_alpha", "items=raters"),
    ]
    assert {r.metric for r in four} <= set(METRICS)
    assert four[1].level == "ordinal" and four[2].level == "nominal"
    assert four[-2].level == "ordinal"
    nominal_four = compute_all(wide(KRIPPENDORFF_2011), n_boot=0)
    assert [r.metric for r in nominal_four] == [
        "percent_agreement",
        "krippendorff_alpha",
        "fleiss_kappa",
        "gwet_ac1",
        "brennan_prediger",
        "conger_kappa",
    ]
    pair = RatingTable.from_rows(
        [(u, r, (u + (r == "b")) % 5 + 1) for u in range(30) for r in ("a", "b")],
        level="ordinal",
    )
    results = compute_all(pair, n_boot=50, seed=1)
    cohen = [(r.weights, r.level) for r in results if r.metric == "cohen_kappa"]
    assert cohen == [("none", "nominal"), ("linear", "ordinal"), ("quadratic", "ordinal")]
    nominal = compute_all(pair, level="nominal", n_boot=0)
    assert [r.weights for r in nominal if r.metric == "cohen_kappa"] == ["none"]
    assert all(math.isnan(r.ci_low) for r in nominal)


def test_as_row_has_report_columns() -> None:
    row = krippendorff_alpha(wide(KRIPPENDORFF_2011), n_boot=20, seed=0).as_row()
    for key in ("metric", "level", "value", "ci_low", "ci_high", "n_units", "n_raters"):
        assert key in row


def test_hundred_point_scale_never_builds_units_by_values_squared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 2,000 units x 100 values x 100 values = 20M cells: alpha is computed from per-unit
    # sums, never through the reference package (whose arrays are units x values^2, and
    # which the platform does not import at run time: it is GPL-3.0).
    import krippendorff
    import numpy as np

    def refuse(**_: object) -> float:
        raise AssertionError("the package was called")

    monkeypatch.setattr(krippendorff, "alpha", refuse)
    rng = np.random.default_rng(0)
    units = np.repeat(np.arange(2000), 5)
    raters = np.tile(np.arange(5), 2000)
    values = rng.integers(1, 101, units.size)
    table = RatingTable.from_arrays(units, raters, values, level="interval", domain=range(1, 101))
    result = krippendorff_alpha(table, n_boot=20, seed=0)
    assert -1 <= result.value <= 1 and result.n_units == 2000
