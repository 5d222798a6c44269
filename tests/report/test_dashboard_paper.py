"""The dashboard's paper views: settings from the query string, reader-facing names, the
new tables paged, heatmaps and forest plots with n, round ticks, docs in the app."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.http import QueryDict
from django.test import Client
from django.utils import translation

from research.dashboard import paper
from research.dashboard.context import read_settings
from research.dashboard.labels import Labels
from research.dashboard.tables import PAGE_SIZE, table_view
from research.docs import render_doc
from research.figures.drawing import Interval, forest, nice_ticks
from scoring.report import build_report
from scoring.report.settings import ReportSettings
from tests.report.test_worked_cciv import scores

pytestmark = pytest.mark.django_db


def _client(study, lang: str = "en") -> Client:
    user = get_user_model().objects.create_user("r", password="pw")
    study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [
        (-0.62, 0.1, [-0.8, -0.6, -0.4, -0.2, 0.0, 0.2]),
        (0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (2.3, 4.7, [2.0, 3.0, 4.0, 5.0]),
        (-2.17, 0.0, [-3.0, -2.0, -1.0, 0.0]),
        (0.0, 0.0, [-0.6, -0.4, -0.2, 0.0, 0.2, 0.4, 0.6]),
    ],
)
def test_nice_ticks_are_round_and_mark_zero(low: float, high: float, ticks: list[float]) -> None:
    assert nice_ticks(low, high, 6 if high - low < 2 else 5) == ticks


def test_forest_writes_n_and_draws_no_interval_where_there_is_none() -> None:
    svg = forest(
        [
            Interval("one failing poem", -0.55, None, None, n="n=35/1", note="no interval"),
            Interval("enough", 0.4, 0.1, 0.7, n="n=20/16"),
        ],
        title="t",
    )
    assert "n=35/1  no interval" in svg and "n=20/16" in svg
    assert svg.count('stroke-width="2"') == 1  # one interval line: the second row's
    ticks = re.findall(r'text-anchor="middle"[^>]*>(-?[\d.]+)</text>', svg)
    assert "0" in ticks and all(re.fullmatch(r"-?\d+(\.\d{1,2})?", t) for t in ticks)


@pytest.mark.slow
def test_settings_from_the_query_string_reach_the_report(tang) -> None:
    b = tang[0]
    client = _client(b.study)
    page = client.get(
        f"/research/studies/{b.study.pk}/",
        {"n_boot": "20", "min_side": "20", "pass_threshold": "0.5", "by": ["source"]},
    )
    s = page.context["report"].settings
    assert (s.n_boot, s.min_side, s.pass_threshold, s.by) == (20, 20, 0.5, ("source",))
    # min_side 20 > the 14 machine poems on a side: every echo row says not estimable
    echo = page.context["tables"]["echo_chamber"]
    assert echo and all(not r["estimable"] and r["ci_low"] is None for r in echo)
    assert "n_boot=20" in page.context["settings_query"]
    html = page.content.decode()
    assert 'name="by" value="source" checked' in html


@pytest.mark.slow
def test_bad_settings_are_named_and_the_defaults_used(tang) -> None:
    b = tang[0]
    page = _client(b.study).get(
        f"/research/studies/{b.study.pk}/",
        {"confidence": "2", "n_boot": "abc", "tasks": "nope", "min_side": "3"},
    )
    assert page.status_code == 400  # the page names them, with the defaults used
    form = page.context["form"]
    assert set(form.errors) == {"confidence", "n_boot", "tasks"}
    s = form.settings
    assert (s.confidence, s.n_boot, s.tasks, s.min_side) == (0.95, 200, (), 3)
    assert 'role="alert"' in page.content.decode()


def test_read_settings_takes_repeated_checkboxes(tang) -> None:
    b = tang[0]
    form = read_settings(b.study, QueryDict("by=source&by=condition&tasks=tang"))
    assert form.settings.by == ("source", "condition") and form.settings.tasks == ("tang",)
    assert not form.errors


@pytest.mark.slow
def test_big_tables_are_paged_and_filtered_by_task(fuxi) -> None:
    b = fuxi[0]
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["validation"]
    assert len(rows) > PAGE_SIZE
    labels = Labels(b.study)
    with translation.override("en"):  # headers in one language, whatever ran before
        first = table_view("validation", rows, labels, QueryDict(""))
    assert (first.total, len(first.rows), first.page) == (len(rows), PAGE_SIZE, 1)
    assert first.next and "p_validation=2" in first.next and not first.previous
    last = table_view("validation", rows, labels, QueryDict(f"p_validation={first.pages}"))
    assert len(last.rows) == len(rows) - PAGE_SIZE * (first.pages - 1)
    task = rows[0]["task"]
    only = table_view("validation", rows, labels, QueryDict(f"task={task}"))
    kept = [r for r in rows if r["task"] in (task, None, "*") or r["left_out"] == task]
    assert only.total == len(kept) < len(rows)
    # No header twice; the CI is one column.
    assert len(first.headers) == len(set(first.headers)) and "CI" in first.headers


@pytest.mark.slow
def test_names_in_the_readers_language(tang) -> None:
    b = tang[0]
    html = _client(b.study, "zh-hans").get(f"/research/studies/{b.study.pk}/").content.decode()
    group = b.study.groups.get(slug="experts")
    labels = Labels(b.study)
    assert labels.rater_set("group:experts") == group.name
    assert labels.rater_set("group:experts mean").startswith(group.name)
    with translation.override("en"):
        assert labels.metric("cohen_kappa", "quadratic") == "Cohen's κ (quadratic weights)"
        assert labels.field("tang", "*").startswith("all parts right")
        assert labels.rater_set("humans+model:qwen") == "all people + qwen"
    with translation.override("zh-hans"):
        assert labels.metric("cohen_kappa", "quadratic") == "Cohen κ (二次加权)"
        assert labels.rater_set("humans") == "全体人类"
    assert "全体人类" in html  # "humans", translated
    assert "group:experts" not in html.split('id="settings"')[1].split('id="downloads"')[0]


@pytest.mark.slow
def test_heatmap_of_form_by_model_per_condition(cciv) -> None:
    b, items, responses = cciv
    page = _client(b.study).get(
        f"/research/studies/{b.study.pk}/", {"rate_metric": "ccv/1/tonal_standard", "n_boot": "0"}
    )
    maps = {c: svg for c, svg, _choice in page.context["rule_rate_heatmaps"]}
    assert {"direct", "form_aware"} <= set(maps)
    poems = scores(items, responses)
    direct = poems[poems.condition == "direct"]
    expected = direct.groupby(["cipai", "model"]).tonal_standard.agg(["mean", "count"])
    svg = str(maps["direct"])
    for (cipai, model), cell in expected.iterrows():
        tip = f"ci:{cipai} · {model}: {cell['mean']:.2f} (n={int(cell['count'])})"
        assert tip in svg, tip
    assert svg.count("n=3") >= len(expected)


@pytest.mark.slow
def test_echo_chamber_and_self_preference_forests_carry_n(tang) -> None:
    b, _items, responses = tang
    report = build_report(b.study, ReportSettings(n_boot=50))
    labels = Labels(b.study)
    svg = paper.echo_chart(report.tables["echo_chamber"], labels)
    assert svg is not None
    for r in report.tables["echo_chamber"]:
        assert f"n={r['n_pass']}/{r['n_fail']}" in svg
    svg = paper.self_preference_chart(report.tables["self_preference"], labels)
    assert svg is not None and "n=14/14" in svg
    with translation.override("en"):  # the caption in one language, whatever ran before
        ratings = paper.ratings_chart(report.tables["ratings"], labels)
    assert ratings is not None
    humans = responses[responses.rater.str.startswith("e")]
    n_items = humans[humans.field == "prosody"].item.nunique()
    assert f"n={n_items} items, 3 raters" in ratings


def test_a_researcher_sees_only_shared_studies(tang) -> None:
    b = tang[0]
    stranger = get_user_model().objects.create_user("s", password="pw")
    client = Client()
    client.force_login(stranger)
    assert client.get(f"/research/studies/{b.study.pk}/").status_code == 404
    assert client.get(f"/research/studies/{b.study.pk}/report.csv?table=ratings").status_code == 404
    assert client.get("/research/docs/report/").status_code == 200  # no study data in them
    assert Client().get("/research/docs/report/").status_code == 302  # login first


def test_docs_are_served_safely_with_links_between_them(tang, settings, tmp_path) -> None:
    client = _client(tang[0].study)
    page = client.get("/research/docs/report/")
    assert page.status_code == 200 and "<h1" in page.content.decode()
    assert client.get("/research/docs/nope/").status_code == 404
    assert client.get("/research/docs/..%2Fpyproject/").status_code == 404
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# A\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) [b](b.md#two-words)\n",
        encoding="utf-8",
    )
    (tmp_path / "docs" / "b.md").write_text("# B\n\n## Two words\n", encoding="utf-8")
    settings.BASE_DIR = tmp_path
    _title, html = render_doc("a")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript:' not in html
    assert 'href="/research/docs/b/#two-words"' in html
    assert 'id="two-words"' in render_doc("b")[1]


def test_docs_tables_and_code_scroll_in_their_own_boxes(settings, tmp_path) -> None:
    """On a phone a wide table scrolls inside a focusable region named after its heading
    (distinct names: two tables under one heading are numbered), a code block by itself;
    tests/browser/test_research_phone_browser.py measures it in Chromium."""
    (tmp_path / "docs").mkdir()
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    (tmp_path / "docs" / "c.md").write_text(
        f"# C\n\n## The `n` <column>\n\n{table}\n{table}\n```sh\nmanage.py report\n```\n",
        encoding="utf-8",
    )
    settings.BASE_DIR = tmp_path
    html = render_doc("c")[1]
    box = '<div class="table-scroll" tabindex="0" role="region" aria-label="{}"><table>'
    assert box.format("The n &lt;column&gt;") in html
    assert box.format("The n &lt;column&gt; (2)") in html
    assert html.count("</table>\n</div>") == 2
    assert '<pre tabindex="0"><code class="language-sh">manage.py report' in html


@pytest.mark.slow
def test_dashboard_links_to_docs_not_repository_paths(tang) -> None:
    b = tang[0]
    html = _client(b.study).get(f"/research/studies/{b.study.pk}/").content.decode()
    assert "/research/docs/report/" in html and "docs/report.md" not in html
    assert 'src="/static/js/charts.js"' in html
    assert html.count('class="chart-box"') >= 5


@pytest.mark.slow
def test_pair_matrix_of_the_three_experts(tang) -> None:
    """Tang: Cohen's κ of each pair of experts as a matrix, recomputed with scikit-learn."""
    from sklearn.metrics import cohen_kappa_score

    b, _items, responses = tang
    page = _client(b.study).get(
        f"/research/studies/{b.study.pk}/", {"agr": "tang|prosody", "n_boot": "0"}
    )
    maps = {name: str(svg) for name, svg, _k, _choice in page.context["pair_heatmaps"]}
    experts = next(
        svg for name, svg in maps.items() if name.startswith("组experts") and "(" not in name
    )
    wide = responses[responses.field == "prosody"].pivot(
        index="item", columns="rater", values="value"
    )
    for a, c in (("e1", "e2"), ("e1", "e3"), ("e2", "e3")):
        both = wide[[a, c]].dropna()
        kappa = cohen_kappa_score(both[a], both[c])
        for x, y in ((a, c), (c, a)):
            assert f"{x} · {y}: {kappa:.2f} (n={len(both)})" in experts
