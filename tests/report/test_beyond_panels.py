"""The issue-15 dashboard panels (``{% beyond_panels study tables %}``), rendered alone:
the integrator adds the one-line hook to templates/research/dashboard.html."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.utils import translation

from scoring.report import ReportSettings, build_report
from tests.report.cpdue import cpdue_study

pytestmark = pytest.mark.django_db
HOOK = Template("{% load beyond %}{% beyond_panels study tables %}")


def render(study) -> str:
    tables = build_report(study, ReportSettings(n_boot=0)).as_json()
    return HOOK.render(Context({"study": study, "tables": tables, "report_formats": ("csv",)}))


@pytest.mark.slow
def test_panels_show_flagged_items_with_their_text_abilities_and_plan(db) -> None:
    s = cpdue_study("cpdue-panels")
    lure = s.builder.items["ck-lure"]
    lure.stem = "「春风又绿江南岸」的作者是谁？"
    lure.save()
    with translation.override("en"):
        html = render(s.builder.study)
    assert 'id="items"' in html and "ck-lure" in html and "a wrong option draws the strong" in html
    assert "「春风又绿江南岸」的作者是谁？" in html  # the item's text, a click away
    assert "ck-lure 选项3" in html  # its options with their shares
    assert 'id="abilities"' in html and "gpt-4o" in html and "组C" in html
    assert "group:C" not in html  # rater sets by their reader-facing names
    assert 'id="plan"' in html and "power, two groups" in html
    assert "?table=item_analysis" in html and "?table=abilities" in html


@pytest.mark.slow
def test_panels_are_in_chinese_first(db) -> None:
    s = cpdue_study("cpdue-panels-zh")
    with translation.override("zh-hans"):
        html = render(s.builder.study)
    assert "题目质量" in html and "人与模型同一能力量表" in html and "还需要多少志愿者" in html


@pytest.mark.slow
def test_an_icc_row_without_a_subset_renders_its_reason(db) -> None:
    """A crowd's ICC row has a reason and no ``subset`` key: the panel shows the reason
    (it raised VariableDoesNotExist, a 500 on the dashboard, on the bench study)."""
    s = cpdue_study("cpdue-icc-reason")
    tables = build_report(s.builder.study, ReportSettings(n_boot=0)).as_json()
    why = "no 2 raters rated 2 items in common"
    tables["icc"] = [
        {"task": "rate", "field": "imagery", "rater_set": "humans", "form": None,
         "n_items": 0, "n_raters": 0, "reason": why},
        {"task": "rate", "field": "imagery", "rater_set": "models", "form": "ICC(2,1)",
         "value": 0.5, "ci_low": 0.1, "ci_high": 0.8, "n_items": 3, "n_raters": 2,
         "subset": "complete-case: 3 of 4 items"},
    ]  # fmt: skip
    html = HOOK.render(Context({"study": s.builder.study, "tables": tables, "report_formats": ()}))
    section = html[html.index('id="icc"') :]
    assert why in section and "complete-case: 3 of 4 items" in section
