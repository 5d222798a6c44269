"""The researcher dashboard: progress, charts with Chinese labels, downloads; the demo."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from annotation.models import Participant
from research.figures.drawing import FONT, Interval, Series, forest, grouped_bars, heatmap
from scoring.report import TABLES
from studies.models import Study
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db


def _researcher_client(study: Study) -> Client:
    user = get_user_model().objects.create_user("r", password="pw")
    study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")  # English labels, whatever the catalogues say
    client.force_login(user)
    return client


@pytest.mark.slow
def test_dashboard_shows_progress_tables_charts_and_downloads(known: Builder) -> None:
    page = _researcher_client(known.study).get(f"/research/studies/{known.study.pk}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count("<svg") >= 4  # accuracy, correlation, rules vs ratings, per-form rule scores
    assert "韵律格律" in html  # a Chinese dimension label inside the correlation heatmap
    assert "Noto Sans CJK SC" in html
    for name in TABLES:
        assert f"?table={name}" in html
    for fmt in ("csv", "jsonl", "xlsx"):
        assert f"/responses.{fmt}" in html


@pytest.mark.slow
def test_progress_counts_the_funnel_per_group(known: Builder) -> None:
    Participant.objects.filter(rater__name="a2").update(status="screened")
    page = _researcher_client(known.study).get(f"/research/studies/{known.study.pk}/")
    funnel = page.context["funnel"]
    a = next(f for f in funnel if f.group == "A")
    assert (a.consented, a.screened, a.finished) == (2, 2, 1)
    c = next(f for f in funnel if f.group == "C")
    assert (c.consented, c.flagged) == (3, 1)
    ck = next(t for t in page.context["answers"] if t["task"] == "ck")
    # 4 keyed items (the attention check aside); 7 people answered all 5 ck items.
    assert ck["n_items"] == 4 and ck["responses"] == 7 * 5


@pytest.mark.slow
def test_dashboard_rule_and_metric_pickers_change_the_charts(known: Builder) -> None:
    client = _researcher_client(known.study)
    url = f"/research/studies/{known.study.pk}/"
    page = client.get(
        url, {"rule": "rule:prosody:modern/tonal", "metric": "rule:prosody:modern/tonal"}
    )
    assert page.context["rule"] == "rule:prosody:modern/tonal"
    assert "tones · modern tones" in page.context["cipai_svg"]  # the metric in words
    assert client.get(url, {"rule": "<script>"}).context["rule"] == "rule:prosody:modern/structural"


@pytest.mark.slow
def test_download_of_a_table_and_bad_formats(known: Builder) -> None:
    client = _researcher_client(known.study)
    base = f"/research/studies/{known.study.pk}"
    reply = client.get(f"{base}/report.csv", {"table": "accuracy"})
    assert reply.status_code == 200 and "group:A" in reply.content.decode("utf-8-sig")
    assert client.get(f"{base}/report.pdf").status_code == 404
    assert client.get(f"{base}/report.csv", {"table": "nope"}).status_code == 404
    assert client.get(f"{base}/responses.csv").status_code == 200


@pytest.mark.slow
def test_the_demo_study_renders_a_meaningful_dashboard(db, settings, tmp_path) -> None:
    settings.DATA_DIR = tmp_path
    call_command("demo", "--no-users", stdout=io.StringIO())
    study = Study.objects.get(slug="song-ci-demo")
    html = _researcher_client(study).get(f"/research/studies/{study.pk}/").content.decode()
    assert "ci:浣溪沙" in html  # the per-cipai rule-score heatmap
    assert "Published results per form" in html  # FuxiBench per-cipai results, beside
    assert len(re.findall(r"<svg", html)) >= 2


def test_charts_escape_labels_and_use_the_cjk_font_stack() -> None:
    svg = grouped_bars(
        ["文化常识", "<b>"],
        [Series("A 初中", [0.5, float("nan")], [0.4, None], [0.6, None])],
        title="正确率",
    )
    assert "&lt;b&gt;" in svg
    assert "<b>" not in svg and FONT.split(",")[0] in svg and "文化常识" in svg
    grid = heatmap(["浣溪沙"], ["human"], {("浣溪沙", "human"): None}, title="t")
    assert "–" in grid  # a missing cell is drawn, not dropped
    plot = forest([Interval("韵律 · humans", 2.75, 1.0, 3.5)], title="gap")
    assert "<circle" in plot and "韵律 · humans" in plot


@pytest.mark.slow
def test_agreement_is_a_pivot_of_rater_set_by_coefficient(known: Builder) -> None:
    client = _researcher_client(known.study)
    page = client.get(f"/research/studies/{known.study.pk}/")
    pivot = page.context["pivot"]
    rows = [
        r
        for r in page.context["tables"]["agreement"]
        if (r["task"], r["field"]) == (pivot.task, pivot.field)
    ]
    # One row per rater set of this task and field, one column per coefficient.
    assert len(pivot.rows) == len({r["rater_set"] for r in rows})
    assert sum(c is not None for _name, cells in pivot.rows for c in cells) == len(rows)
    for r in rows:
        name = (
            known.study.groups.get(slug=r["rater_set"][6:]).name
            if r["rater_set"].startswith("group:")
            else None
        )
        if name:  # group names, never the slug
            assert any(label == name for label, _cells in pivot.rows)
    defined = [r for r in rows if r["value"] is not None]
    assert any(f"{r['value']:.3f}" in str(pivot.rows) for r in defined)
    undefined = [r for r in page.context["tables"]["agreement"] if r["value"] is None]
    assert undefined, "the fixture has a group of one rater"
    other = next(
        f"{r['task']}|{r['field']}"
        for r in page.context["tables"]["agreement"]
        if (r["task"], r["field"]) != (pivot.task, pivot.field)
    )
    assert client.get(page.request["PATH_INFO"], {"agr": other}).context["pivot"].key == other
    assert client.get(page.request["PATH_INFO"], {"agr": "x|y"}).context["pivot"].key == pivot.key


@pytest.mark.slow
def test_exclusion_reasons_are_translated_on_the_chinese_dashboard(known: Builder) -> None:
    client = _researcher_client(known.study)
    html = client.get(
        f"/research/studies/{known.study.pk}/", HTTP_ACCEPT_LANGUAGE="zh-Hans"
    ).content.decode()
    assert "已标记的参与者" in html and "注意力检查题" in html
    assert "flagged participants" not in html
