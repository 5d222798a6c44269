"""The agreement table reproduces published values when the ratings come from the database."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from scoring.report import ReportSettings, build_report
from tests.agreement.agreement_examples import KRIPPENDORFF_2011
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db


def _rows(study, n_boot: int = 0):
    rows = build_report(study, ReportSettings(n_boot=n_boot))
    return {
        (r["task"] + "/" + r["field"], r["rater_set"], r["metric"], r["level"], r["weights"]): r
        for r in rows.tables["agreement"]
    }


@pytest.fixture
def krippendorff_study(db) -> Builder:
    """Krippendorff (2011)'s four coders and twelve units, as a choice and a rating task."""
    b = Builder("kripp")
    b.group("A")
    b.task("pick", "choice")
    b.task("rate", "rating", dimensions=[{"key": "v", "label": "值", "min": 1, "max": 5}])
    for u in range(12):
        b.item(f"pick-{u}", "pick", {"answer": 1})
        b.item(f"rate-{u}", "rate")
    for coder, values in KRIPPENDORFF_2011.items():
        b.human(coder, "A")
        b.answers(coder, "answer", {f"pick-{u}": v for u, v in enumerate(values)})
        b.answers(coder, "v", {f"rate-{u}": v for u, v in enumerate(values)})
    return b


def test_krippendorff_2011_example_at_all_levels_through_the_report(krippendorff_study) -> None:
    rows = _rows(krippendorff_study.study)
    alpha = "krippendorff_alpha"
    assert round(rows[("pick/answer", "humans", alpha, "nominal", None)]["value"], 3) == 0.743
    assert round(rows[("rate/v", "humans", alpha, "ordinal", None)]["value"], 3) == 0.815
    assert round(rows[("rate/v", "humans", alpha, "interval", None)]["value"], 3) == 0.849
    row = rows[("rate/v", "humans", alpha, "ordinal", None)]
    assert (row["n_units"], row["n_raters"]) == (11, 4)


def test_every_applicable_coefficient_is_listed(krippendorff_study) -> None:
    rows = _rows(krippendorff_study.study)
    metrics = {(m, lvl) for (t, s, m, lvl, w) in rows if t == "pick/answer" and s == "humans"}
    assert metrics == {
        ("percent_agreement", "nominal"),
        ("krippendorff_alpha", "nominal"),
        ("fleiss_kappa", "nominal"),
        ("gwet_ac1", "nominal"),
        ("brennan_prediger", "nominal"),
        ("conger_kappa", "nominal"),
    }


def test_registered_coefficients_reach_the_report_with_analytic_errors(
    krippendorff_study,
) -> None:
    """Coefficients come from the registry; Gwet's (2014) SEs reach the rows (irrCAC's values)."""
    rows = _rows(krippendorff_study.study)
    # Krippendorff (2011)'s data are irrCAC's cac.raw4raters up to who gave unit 12's single
    # rating, which AC1/AC2 do not see (Conger's kappa does): gwet.ac1.raw prints 0.775
    # (se 0.143, interval 0.461..1), AC2 with quadratic weights 0.914 (se 0.104).
    ac1 = rows[("pick/answer", "humans", "gwet_ac1", "nominal", None)]
    assert (round(ac1["value"], 3), round(ac1["se"], 3)) == (0.775, 0.143)
    assert round(ac1["t_low"], 3) == 0.461 and ac1["t_high"] == 1.0
    ac2 = rows[("rate/v", "humans", "gwet_ac2", "ordinal", "quadratic")]
    assert (round(ac2["value"], 3), round(ac2["se"], 3)) == (0.914, 0.104)
    assert ("pick/answer", "humans", "conger_kappa", "nominal", None) in rows
    assert ("rate/v", "humans", "cronbach_alpha", "ordinal", "items=raters") in rows


@pytest.mark.slow
def test_report_alpha_equals_the_package_on_the_same_ratings(known: Builder) -> None:
    rows = _rows(known.study, n_boot=100)
    data = np.array([[5, 4, 2, 1], [4, 4, 3, 2], [5, 5, 2, 2], [4, 5, 1, 1]], dtype=float)
    for level in ("ordinal", "interval"):
        expected = krippendorff.alpha(
            reliability_data=data, level_of_measurement=level, value_domain=[1, 2, 3, 4, 5]
        )
        row = rows[("quality/prosody", "humans", "krippendorff_alpha", level, None)]
        assert row["value"] == pytest.approx(expected, abs=1e-12)
        assert row["n_boot"] == 100 and row["ci_low"] <= row["value"] <= row["ci_high"]


@pytest.mark.slow
def test_cohen_kappa_appears_for_two_raters_with_weights_for_ratings(known: Builder) -> None:
    rows = _rows(known.study)
    assert ("quality/prosody", "group:A", "cohen_kappa", "nominal", "none") in rows
    assert ("quality/prosody", "group:A", "cohen_kappa", "ordinal", "quadratic") in rows
    assert ("quality/prosody", "humans", "cohen_kappa", "nominal", "none") not in rows


def test_a_model_as_one_more_rater(known: Builder) -> None:
    rows = _rows(known.study)
    row = rows[
        ("quality/prosody", "humans+model:kimi-k2@direct", "krippendorff_alpha", "ordinal", None)
    ]
    assert row["n_raters"] == 5
    humans = rows[("quality/prosody", "humans", "krippendorff_alpha", "ordinal", None)]
    assert row["value"] < humans["value"]  # the lenient judge lowers agreement


@pytest.mark.slow
def test_bootstrap_intervals_are_seeded(known: Builder) -> None:
    first = _rows(known.study, n_boot=50)
    again = _rows(known.study, n_boot=50)
    key = ("ck/answer", "humans", "fleiss_kappa", "nominal", None)
    assert (first[key]["ci_low"], first[key]["ci_high"]) == (
        again[key]["ci_low"],
        again[key]["ci_high"],
    )
