"""The form-length scatter (docs/report.md §4.14; issue 24 audit 2): a measure's rows
come per source × condition, per condition over every source and pooled (or per rater
set), so one form has several points; each point's label names its group (the source
first), never "ci:浣溪沙 n=3" twice."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from research.dashboard.labels import Labels
from research.dashboard.paper import form_length_chart, form_length_measures, form_length_spec
from scoring.report import ReportSettings, build_report

MEASURE = "rule:prosody:ccv/tonal_standard"
GROUPS = (("*", "*"), ("*", "direct"), ("model:gen-a", "direct"), ("model:gen-b", "direct"))


def rows() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, (source, condition) in enumerate(GROUPS):
        base = {"measure": MEASURE, "source": source, "condition": condition, "rater_set": None}
        for form, length, value in (("ci:浣溪沙", 42, 0.5), ("ci:如梦令", 33, 0.75)):
            out.append({**base, "form": form, "length": length, "statistic": "rate",
                        "value": value - 0.1 * k, "n": 3})  # fmt: skip
        out.append({**base, "form": "*", "length": None, "statistic": "spearman",
                    "value": -0.5 + k / 10, "n": 2, "p_value": 0.4})  # fmt: skip
    return out


def test_each_point_is_labelled_with_its_source_and_condition() -> None:
    spec = form_length_spec(rows(), MEASURE)
    assert spec is not None
    labels = [p.label for p in spec.points]
    assert len(labels) == 8 and len(set(labels)) == 8  # was "ci:浣溪沙" four times
    assert "gen-a · direct · ci:浣溪沙" in labels and "gen-b · direct · ci:浣溪沙" in labels
    # the pooled group is named as every other "all" is
    assert sum(label.endswith("· ci:浣溪沙") for label in labels) == 4
    # the points keep their values (k-th group: value − 0.1 k)
    assert [p.y for p in spec.points][::2] == pytest.approx([0.5, 0.4, 0.3, 0.2])
    # ρ is the pooled row's, and the title says so
    assert "= -0.50" in spec.title and "(n=2)" in spec.title
    svg = str(form_length_chart(rows(), MEASURE))
    assert Counter(labels) == Counter({label: 1 for label in labels})
    assert all(f"{label} n=3" in svg for label in labels)


def test_one_group_keeps_the_plain_form_labels() -> None:
    one = [r for r in rows() if (r["source"], r["condition"]) == ("*", "*")]
    spec = form_length_spec(one, MEASURE)
    assert spec is not None
    assert [p.label for p in spec.points] == ["ci:浣溪沙", "ci:如梦令"]
    assert "ρ = -0.50" in spec.title


@pytest.mark.slow
@pytest.mark.django_db
def test_the_cciv_scatter_under_by_source_has_distinct_labels(cciv) -> None:
    b, _, _ = cciv
    report = build_report(b.study, ReportSettings(n_boot=0, by=("source",)))
    table = report.tables["form_length"]
    labels = Labels(b.study)
    sources = {r["source"] for r in table if r.get("source") not in (None, "*")}
    assert len(sources) >= 2
    for measure in form_length_measures(table):
        spec = form_length_spec(table, measure, labels)
        if spec is None:
            continue
        shown = [p.label for p in spec.points]
        assert len(shown) == len(set(shown)), [x for x, c in Counter(shown).items() if c > 1]
        points = [
            r
            for r in table
            if r["measure"] == measure
            and r.get("form") not in (None, "*")
            and r.get("length") is not None
        ]
        assert len(points) == len(shown)
        for r, label in zip(points, shown, strict=True):
            assert label.endswith(str(r["form"]))
            if r.get("source") not in (None, "*") and len(sources) > 1:
                assert str(labels.value("source", r["source"], r)) in label, label
