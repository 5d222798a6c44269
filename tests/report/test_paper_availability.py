"""Paper layouts: the footnote says only what the table shows (bold only when a cell is
bold), rows and columns carry the study's names (not slugs), and whether a layout can
be made is decided in one place (``paper.unavailable``) for every layout — also one
computed with its own split (``cciv-heatmap``) — so the dashboard marks it unavailable
instead of linking to an English 400 page."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from research.dashboard.layouts import paper_links
from research.downloads import paper_download
from scoring.report import paper
from scoring.report.build import TABLES, Report
from scoring.report.paper import LAYOUT_BY_NAME, Names, Pivot, pivot, render, unavailable
from scoring.report.settings import ReportSettings

ACC: list[dict[str, Any]] = [
    {"rater_set": "group:A", "task": "ident", "field": "answer", "value": 1 / 3, "n_responses": 6,
     "ci_method": "person+item-clustered Wilson (CGM)"},
    {"rater_set": "model:gpt@zero-shot", "task": "ident", "field": "answer", "value": 0.5,
     "n_responses": 6, "ci_method": "Wilson"},
    {"rater_set": "group:A", "task": "fill", "field": "answer", "value": 0.25, "n_responses": 4,
     "ci_method": "person+item-clustered Wilson (CGM)"},
]  # fmt: skip
NAMES = Names(tasks={"ident": "辨认词牌", "fill": "填空"}, groups={"A": "初中及以下"})


def test_one_row_marks_nothing_and_the_footnote_says_no_bold() -> None:
    one = pivot(ACC[:1], Pivot(rows=("rater_set",), cols=("task", "field")), table="accuracy")
    assert not any(map(any, one.best))
    assert "Bold" not in one.footnote and "**" not in render(one, "markdown")
    two = pivot(ACC[:2], Pivot(rows=("rater_set",), cols=("task", "field")), table="accuracy")
    assert any(map(any, two.best)) and "Bold: the highest per column" in two.footnote


def test_rows_and_columns_carry_names_not_slugs() -> None:
    p = Pivot(
        rows=("rater_set",), cols=("task", "field"), filters=(("rater_set", "group:*|model:*"),)
    )
    wide = pivot(ACC, p, table="accuracy", names=NAMES.value)
    assert wide.row_labels == [("初中及以下",), ("gpt (zero-shot)",)]
    assert wide.col_labels == [("辨认词牌", "answer"), ("填空", "answer")]
    md = render(wide, "markdown")
    assert "group:A" not in md and "ident" not in md and "初中及以下" in md
    # filters still match the raw values; without names the slugs stay
    assert pivot(ACC, p, table="accuracy").row_labels[0] == ("group:A",)


RULE_ROWS = [
    {"rule": "prosody:classical", "field": "tonal_standard", "condition": "direct",
     "source": "gpt", "value": 0.5, "n": 10},
]  # fmt: skip


def test_a_layout_with_its_own_split_is_unavailable_without_its_rows() -> None:
    heatmap, table2 = LAYOUT_BY_NAME["cciv-heatmap"], LAYOUT_BY_NAME["cciv-table2"]
    for layout in (heatmap, table2):
        why = unavailable(RULE_ROWS, layout, ())
        assert why is not None and why.code == "no_rows"
    ccv = [{**RULE_ROWS[0], "rule": "ccv"}]
    assert unavailable(ccv, heatmap, ()) is None  # computed with its split when downloaded
    assert unavailable(ccv, table2, ()) is None


def _report(slug: str) -> Report:
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    tables["rule_rates"] = list(RULE_ROWS)
    return Report(study=slug, generated_at="", settings=ReportSettings(n_boot=0), tables=tables)


def test_dashboard_marks_the_heatmap_unavailable_and_says_why_in_chinese(known) -> None:
    report = _report(known.study.slug)
    with translation.override("zh-hans"):
        links = {x["name"]: x for x in paper_links(report)}
        for name in ("cciv-heatmap", "cciv-table2"):
            assert links[name]["offered"] is False
            assert links[name]["note"] == "本报告中没有此表所需的数据"
        with pytest.raises(paper.PivotError, match="本报告中没有此表所需的数据"):
            paper_download(report, LAYOUT_BY_NAME["cciv-table2"], "csv")
