"""A researcher in Chromium: logs in, finds the demo study shared with them, reads the
dashboard (progress, charts with Chinese labels, tables), changes a chart's rule, downloads
the report and the raw responses, and opens a poem's prosody page.

The answers behind it are given through the volunteer API by simulated participants
(synthetic, seeded): what is checked is that the pages show and export exactly them.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from annotation.models import Participant, Response
from studies.models import Item
from tests.browser.conftest import PASSWORD
from tests.present import present
from tests.report.visible_text import english_sentences, visible_text

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning"),
]
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def _download(page: Any, selector: str) -> str:
    with page.expect_download() as info:
        page.click(selector)
    return info.value.path().read_text(encoding="utf-8-sig")


def test_a_researcher_reads_the_dashboard_and_downloads_its_tables(
    browser, research_demo, live_server, shoot, axe
) -> None:
    study = research_demo
    context = browser.new_context(**DESKTOP, locale="zh-CN", accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(
        60_000
    )  # the first view computes its report in the request (no broker in tests)

    # Not logged in: the dashboard sends the researcher to the login page, then back.
    page.goto(f"{live_server.url}/research/")
    assert "/login/" in page.url
    page.fill("#id_username", "researcher")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit], button[type=submit]")
    assert page.url.endswith("/research/")
    shoot(page, "research-1-study-list")
    assert page.locator("html[lang=zh-Hans]").count() == 1
    with page.expect_navigation():
        page.click(f"a[href='/research/studies/{study.pk}/']")

    # The dashboard: progress per group, every chart drawn inline (no CDN), tables.
    shoot(page, "research-2-dashboard")
    axe.check(page, "the demo study's dashboard")
    # In zh-Hans no English sentence is left on the page as the browser holds it (every
    # text node and tooltip, closed details too; names, ids and numbers aside).
    left = english_sentences(visible_text(page.content()))
    assert not left, "English left on the zh-Hans dashboard:\n" + "\n".join(left)
    _no_silent_cut(page, "the demo study's dashboard")
    finished = page.locator("#progress table").first.locator("tbody tr td:nth-child(4)")
    assert sum(int(t) for t in finished.all_inner_texts()) == 6
    assert page.locator("#accuracy svg").count() == 1
    assert page.locator("#correlation svg, #correlation .notice").count() >= 1
    assert page.locator("#forms svg").count() == 1
    labels = " ".join(page.locator("svg text").all_text_contents())
    assert any("\u4e00" <= ch <= "\u9fff" for ch in labels)  # Chinese labels inside charts
    assert page.locator("#agreement table tbody tr").count() >= 1
    requests = []
    page.on("request", lambda r: requests.append(r.url))

    # Another rule for the rules-vs-ratings chart: the page redraws it, keeping the metric.
    select = page.locator("#rules select[name=rule]")
    options = select.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert len(options) >= 2
    shown = select.locator("option").all_inner_texts()  # the rule metrics in words
    assert not any(text.startswith("rule:") for text in shown)
    metric = page.locator("#forms select[name=metric]").input_value()
    select.select_option(options[-1])
    with page.expect_navigation():
        page.click("#rules button[type=submit]")
    assert page.locator("#rules select[name=rule]").input_value() == options[-1]
    assert page.locator("#forms select[name=metric]").input_value() == metric
    assert page.locator("#rules svg").count() == 1
    assert all(u.startswith(live_server.url) for u in requests)  # nothing from elsewhere
    shoot(page, "research-3-rules-picked")

    # Downloads: the raw responses hold every rater kind (formats.md §4), and their human
    # rows are exactly the answers given; the report's accuracy table has a row per group.
    rows = csv.DictReader(io.StringIO(_download(page, "#downloads a[href$='/responses.csv']")))
    raw = [r for r in rows if r["rater_kind"] == "human"]
    human = Response.objects.filter(study=study, rater__kind="human")
    assert len(raw) == human.count() > 0
    assert {(r["rater"], r["item"], r["field"], float(r["value"])) for r in raw} == {
        (r.rater.name, r.item.external_id, r.field, r.value)
        for r in human.select_related("rater", "item")
    }
    accuracy_link = "#downloads a[href*='/report.csv?table=accuracy&']"
    accuracy = list(csv.DictReader(io.StringIO(_download(page, accuracy_link))))
    groups = {
        present(p.group).slug
        for p in Participant.objects.filter(study=study).select_related("group")
    }
    assert {f"group:{g}" for g in groups} <= {r["rater_set"] for r in accuracy}

    # A poem's page: each character marked 平 or 仄, beside its matched template.
    poem = present(Item.objects.filter(study=study, task__kind="rating").order_by("pk").first())
    page.goto(f"{live_server.url}/research/poems/{poem.pk}/")
    shoot(page, "research-4-poem")
    text = page.inner_text("main")
    assert "平" in text and "仄" in text
    context.close()


def _no_silent_cut(page: Any, where: str) -> int:
    """Every chart of rows on the page that draws fewer rows than its table says so on
    the chart (its note names both numbers); returns how many charts were cut."""
    cut = 0
    for svg in page.locator("svg.chart[data-of]").all():
        shown, total = int(svg.get_attribute("data-rows")), int(svg.get_attribute("data-of"))
        assert 0 <= shown <= total, where
        if shown < total:
            cut += 1
            text = " ".join(svg.locator("text").all_text_contents())
            assert str(shown) in text and str(total) in text, f"{where}: a silent cut"
    return cut


def _login(page: Any, base: str) -> None:
    page.goto(f"{base}/research/")
    page.fill("#id_username", "paper-reader")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit], button[type=submit]")


def test_the_papers_tables_as_a_researcher_reads_them(
    browser, paper_studies, live_server, shoot, axe
) -> None:
    from django.utils import translation

    tang, cciv = paper_studies
    with translation.override("zh-hans"):
        not_estimable = translation.gettext("not estimable")
    context = browser.new_context(**DESKTOP, locale="zh-CN", accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/research/studies/{tang.pk}/?n_boot=50")

    # Agreement as a pivot: a row per rater set (named as the reader knows them), a column
    # per coefficient, n in every cell.
    pivot = page.locator("#agreement table.pivot")
    assert pivot.locator("thead th").count() >= 4
    rows = pivot.locator("tbody th").all_inner_texts()
    assert "组experts" in rows and not any(r.startswith("group:") for r in rows)
    assert pivot.locator("small.n").count() >= 4
    # The new tables with their charts: n beside every estimate.
    for section in ("ratings", "echo_chamber", "self_preference", "validation"):
        chart = page.locator(f"#{section} figure.chart-box svg")
        assert chart.count() == 1, section
        assert "n=" in " ".join(chart.locator("text").all_text_contents()), section
    assert page.locator("#pairwise figure.chart-box svg").count() >= 1  # κ of expert pairs
    axe.check(page, "the dashboard of the Tang worked study")
    shoot(page, "research-5-paper-tang")
    left = english_sentences(visible_text(page.content()))
    assert not left, "English left on the Tang study's zh-Hans dashboard:\n" + "\n".join(left)
    # validation's 48 rows: 40 drawn, the chart says so (no chart cuts a row silently)
    assert _no_silent_cut(page, "the Tang study's dashboard") >= 1

    # A chart as SVG and as PNG, made in the browser.
    figure = page.locator("#echo_chamber figure.chart-box")
    with page.expect_download() as info:
        figure.locator("button.chart-svg").click()
    svg = info.value.path().read_text(encoding="utf-8")
    assert (
        svg.startswith("<?xml") and "<svg" in svg and info.value.suggested_filename.endswith(".svg")
    )
    with page.expect_download() as info:
        figure.locator("button.chart-png").click()
    png = info.value.path().read_bytes()
    width = int.from_bytes(png[16:20], "big")
    drawn = figure.locator("svg").evaluate("s => s.width.baseVal.value")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and width == int(-(-drawn * 2 // 1))

    # Report settings from the page: a minimum side above the 14 machine poems a side
    # leaves the echo chamber without an interval, and the chart says so.
    page.fill("#set-min_side", "20")
    with page.expect_navigation():
        page.click("#settings button[type=submit]")
    assert page.locator("#set-min_side").input_value() == "20"
    texts = " ".join(page.locator("#echo_chamber svg text").all_text_contents())
    assert not_estimable in texts
    assert page.locator("#echo_chamber svg line[stroke-width='2']").count() == 0

    # A big table a page at a time; the next page keeps the settings.
    nav = page.locator("#validation nav.pages")
    assert nav.count() == 1
    with page.expect_navigation():
        nav.locator("a").last.click()
    assert "p_validation=2" in page.url and "min_side=20" in page.url
    shoot(page, "research-6-paper-tang-settings")

    # CCiV: the per-cipai heatmap of each prompt condition.
    page.goto(f"{live_server.url}/research/studies/{cciv.pk}/?n_boot=50")
    assert page.locator("#rule_rates figure.chart-box svg").count() >= 3  # forest + 2 heatmaps
    axe.check(page, "the dashboard of the CCiV worked study")
    shoot(page, "research-7-paper-cciv")
    left = english_sentences(visible_text(page.content()))
    assert not left, "English left on the CCiV study's zh-Hans dashboard:\n" + "\n".join(left)
    _no_silent_cut(page, "the CCiV study's dashboard")

    # The definitions are the in-app docs.
    with page.expect_navigation():
        page.click("a[href='/research/docs/report/']")
    assert page.locator("article.markdown h1").count() == 1
    axe.check(page, "a documentation page")
    shoot(page, "research-8-docs")
    assert all(u.startswith(live_server.url) or u.startswith("data:") for u in requests)
    context.close()
