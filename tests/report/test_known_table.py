"""A study whose item-level responses reproduce a hand-computed table, exactly.

Every expected number below is counted by hand from tests/report/factory.py's
``known_study``: flagged participant f1 and the attention-check item are left out.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from scoring.report import ReportSettings, build_report
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db

# (task, field, rater_set) -> (accuracy, n_responses, n_raters)
EXPECTED_ACCURACY = {
    ("ck", "answer", "humans"): (F(18, 24), 24, 6),
    ("ck", "answer", "group:A"): (F(5, 8), 8, 2),
    ("ck", "answer", "group:B"): (F(6, 8), 8, 2),
    ("ck", "answer", "group:C"): (F(7, 8), 8, 2),
    ("ck", "answer", "models"): (F(5, 8), 8, 2),
    ("ck", "answer", "model:gpt-4o"): (F(3, 4), 4, 1),
    ("ck", "answer", "model:kimi-k2@direct"): (F(2, 4), 4, 1),
    ("au", "person", "humans"): (F(7, 9), 9, 5),
    ("au", "person", "group:A"): (F(3, 4), 4, 2),
    ("au", "person", "group:B"): (F(2, 3), 3, 2),
    ("au", "person", "group:C"): (F(2, 2), 2, 1),
    ("au", "source", "humans"): (F(7, 8), 8, 4),
    ("au", "source", "group:A"): (F(3, 4), 4, 2),
    ("au", "source", "group:B"): (F(2, 2), 2, 1),
    ("au", "source", "model:gpt-4o"): (F(1, 2), 2, 1),
    ("au", "*", "humans"): (F(5, 9), 9, 5),
    ("au", "*", "group:A"): (F(2, 4), 4, 2),
    ("au", "*", "group:B"): (F(1, 3), 3, 2),  # b1 left a part blank: not all right
    ("au", "*", "group:C"): (F(2, 2), 2, 1),
    ("au", "*", "model:gpt-4o"): (F(1, 2), 2, 1),
    ("oq", "best", "group:A"): (F(2, 2), 2, 1),
    ("oq", "worst", "group:A"): (F(1, 2), 2, 1),
    ("oq", "*", "group:A"): (F(1, 2), 2, 1),
    ("oq", "best", "group:C"): (F(0, 1), 1, 1),
    ("oq", "*", "humans"): (F(1, 3), 3, 2),
}


def _report(known: Builder, n_boot: int = 0, cluster: str = "person+item"):
    return build_report(known.study, ReportSettings(n_boot=n_boot, cluster=cluster)).tables


def _index(rows, *keys):
    return {tuple(r[k] for k in keys): r for r in rows}


@pytest.mark.slow
def test_accuracy_rows_equal_the_hand_computed_means_exactly(known: Builder) -> None:
    rows = _index(_report(known)["accuracy"], "task", "field", "rater_set")
    for key, (value, n, n_raters) in EXPECTED_ACCURACY.items():
        row = rows[key]
        assert row["value"] == float(value), key
        assert (row["n_responses"], row["n_raters"]) == (n, n_raters), key
        assert row["ci_low"] <= row["value"] <= row["ci_high"], key


@pytest.mark.slow
def test_accuracy_has_no_row_for_a_set_that_never_answered(known: Builder) -> None:
    rows = _index(_report(known)["accuracy"], "task", "field", "rater_set")
    assert ("oq", "best", "group:B") not in rows
    assert ("quality", "prosody", "humans") not in rows  # ratings have no key


def test_wilson_interval_of_an_accuracy_row(known: Builder) -> None:
    row = _index(_report(known, cluster="none")["accuracy"], "task", "field", "rater_set")[
        ("ck", "answer", "group:A")
    ]
    # Wilson (1927) for 5/8 at 95 %: 0.3057–0.8632.
    assert row["ci_low"] == pytest.approx(0.3057, abs=1e-4)
    assert row["ci_high"] == pytest.approx(0.8632, abs=1e-4)
    # Clustered in its 2 people (t with 1 degree of freedom): honestly much wider.
    crossed = _index(_report(known)["accuracy"], "task", "field", "rater_set")
    row = crossed[("ck", "answer", "group:A")]
    assert row["ci_method"] == "person+item-clustered Wilson (CGM)"
    assert row["ci_low"] < 0.3057 and row["ci_high"] > 0.8632


@pytest.mark.slow
def test_exclusions_are_reported_with_their_counts(known: Builder) -> None:
    rows = _index(_report(known)["exclusions"], "reason")
    assert rows[("flagged participants",)]["n_participants"] == 1
    assert rows[("flagged participants",)]["n_responses"] == 15
    assert rows[("attention-check items",)]["n_responses"] == 6


@pytest.mark.slow
def test_flagged_participants_count_when_the_study_keeps_them(known: Builder) -> None:
    known.study.exclude_flagged = False
    known.study.save()
    tables = _report(known)
    row = _index(tables["accuracy"], "task", "field", "rater_set")[("ck", "answer", "group:C")]
    assert row["value"] == float(F(7, 12))
    flagged = next(r for r in tables["exclusions"] if r["reason"].startswith("flagged"))
    assert flagged["n_responses"] == 0 and "kept" in flagged["reason"]
    assert flagged["n_participants"] == 1  # counted all the same


@pytest.mark.slow
def test_model_beside_each_group_with_its_percentile(known: Builder) -> None:
    rows = _index(_report(known)["model_vs_groups"], "task", "field", "model", "group")
    a = rows[("ck", "answer", "model:gpt-4o", "group:A")]
    # gpt-4o 3/4; group A members 3/4 and 2/4: one below, one tie -> (1 + 1/2) / 2.
    assert (a["model_value"], a["group_value"], a["n_members"]) == (0.75, 0.625, 2)
    assert a["percentile"] == 75.0
    assert rows[("ck", "answer", "model:gpt-4o", "group:C")]["percentile"] == 25.0
    assert rows[("ck", "answer", "model:gpt-4o", "humans")]["percentile"] == 50.0


@pytest.mark.slow
def test_correlation_of_a_judge_with_the_humans(known: Builder) -> None:
    rows = _index(_report(known)["correlation"], "task", "field", "a", "b")
    row = rows[("quality", "prosody", "model:kimi-k2@direct", "humans")]
    # Human item means 4.5, 4.5, 2, 1.5; the judge 4, 4, 5, 5.
    assert row["n"] == 4
    assert row["mean_diff"] == pytest.approx(1.375)
    assert row["pearson"] < -0.9
    assert ("quality", "prosody", "group:C", "group:A") in rows
    assert ("quality", "prosody", "rule:prosody:modern/structural", "humans") in rows


@pytest.mark.slow
def test_rule_vs_rating_shows_the_echo_chamber(known: Builder) -> None:
    rows = _index(_report(known, n_boot=50)["rule_vs_rating"], "field", "rule", "rater_set")
    humans = rows[("prosody", "rule:prosody:modern/structural", "humans")]
    assert (humans["n_pass"], humans["n_fail"]) == (2, 2)
    assert (humans["mean_pass"], humans["mean_fail"], humans["diff"]) == (4.5, 1.75, 2.75)
    judge = rows[("prosody", "rule:prosody:modern/structural", "model:kimi-k2@direct")]
    assert (judge["mean_pass"], judge["mean_fail"], judge["diff"]) == (4.0, 5.0, -1.0)
    tonal = rows[("prosody", "rule:prosody:modern/tonal", "humans")]
    assert tonal["threshold"] == 0.8 and tonal["diff"] == 2.75
    # Two poems a side are fewer than the minimum (4): no interval, and the row says why
    assert humans["ci_low"] != humans["ci_low"] and humans["ci_high"] != humans["ci_high"]
    assert (
        humans["reason"] == "not estimable: fewer than 4 poems on a side (n_pass = 2, n_fail = 2)"
    )
    lenient = build_report(known.study, ReportSettings(n_boot=50, min_side=2)).tables
    humans = _index(lenient["rule_vs_rating"], "field", "rule", "rater_set")[
        ("prosody", "rule:prosody:modern/structural", "humans")
    ]
    assert humans["reason"] is None
    assert humans["ci_method"] == "Welch's t, skewness-corrected (Hall 1992)"
    assert humans["ci_low"] <= humans["diff"] <= humans["ci_high"]


@pytest.mark.slow
def test_rule_scores_per_form_and_source(known: Builder) -> None:
    rows = _index(_report(known)["rule_scores"], "rule", "field", "form", "source")
    assert rows[("rule:prosody:modern", "structural", "ci:浣溪沙", "human")]["mean"] == 1.0
    assert rows[("rule:prosody:modern", "tonal", "ci:如梦令", "model:qwen")]["mean"] == 0.3


@pytest.mark.slow
def test_aggregates_are_listed_beside_never_mixed_in(known: Builder) -> None:
    tables = _report(known)
    assert tables["aggregates"] == [
        {
            "model": "gpt-4o",
            "task": "ck",
            "metric": "accuracy",
            "value": 0.7545,
            "n": 100,
            "run": "",
            "source": "published",
        }
    ]
    sets = {r["rater_set"] for r in tables["accuracy"]}
    assert "model:gpt-4o" in sets and all("published" not in s for s in sets)
    row = _index(tables["accuracy"], "task", "field", "rater_set")[("ck", "answer", "model:gpt-4o")]
    assert row["value"] == 0.75  # the item-level figure, not the published 0.7545


@pytest.mark.slow
def test_only_a_models_first_sample_counts_and_the_rest_are_reported(known: Builder) -> None:
    from annotation.models import Response

    first = Response.objects.get(rater__name="gpt-4o", item__external_id="ck-1", field="answer")
    Response.objects.create(
        study=known.study,
        task=first.task,
        item=first.item,
        rater=first.rater,
        field="answer",
        value=2,
        correct=False,
        sample=1,
    )
    tables = _report(known)
    row = _index(tables["accuracy"], "task", "field", "rater_set")[("ck", "answer", "model:gpt-4o")]
    assert (row["value"], row["n_responses"]) == (0.75, 4)
    samples = next(r for r in tables["exclusions"] if r["reason"].startswith("model samples"))
    assert samples["n_responses"] == 1
