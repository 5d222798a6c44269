"""The dashboard in the reader's language (issue #24 item 6): in zh-Hans no English
sentence is left on the page of any worked study (a scan of the rendered text), rule
metrics and settings are named in words, a model has one name everywhere, downloads are
named by what they hold, and every CSV starts with the byte order mark unless asked not to.

The report's rows stay as the API documents them (English notes, ids): only the page
translates.
"""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from research.dashboard.labels import (
    NOTE_COLUMNS,
    RULE_FAMILIES,
    RULE_METRICS,
    Labels,
    rater_set_label,
)
from research.dashboard.reasons import TEMPLATES, translate_reason
from scoring.prosody.api import CI_METRICS, COUPLET_METRICS, SHI_METRICS
from scoring.prosody.families import FAMILIES
from scoring.report import TABLES
from scoring.report.registry import SPECS
from studies.models import Study
from tests.report.visible_text import english_sentences, visible_text

pytestmark = pytest.mark.django_db
BOM = "\ufeff"


def _client(study: Study, lang: str = "zh-Hans") -> Client:
    user, _ = get_user_model().objects.get_or_create(username="reader")
    study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    client.force_login(user)
    return client


def _study(request: pytest.FixtureRequest, name: str) -> Study:
    got = request.getfixturevalue(name)
    builder = got[0] if isinstance(got, tuple) else got
    return builder.study


# -- the scan itself -------------------------------------------------------------------


def test_the_scan_finds_english_sentences_and_leaves_names_alone() -> None:
    html = (
        "<p>不可估计：某一侧的诗少于 3 首</p><p>not estimable: fewer than 3 poems on a side</p>"
        "<td>rule:prosody:classical/structural_fuxi</td><td>person+item-clustered Wilson</td>"
        "<td>gpt-4o (zero-shot)</td><td>Krippendorff's α · Cohen κ</td>"
        "<script>var a = 'some English words here';</script><code>manage.py report --out x</code>"
        '<td translate="no">FuxiBench published cipai_stats.csv (zero-shot)</td>'
        '<span title="a tooltip in English words">提示</span>'
    )
    found = english_sentences(visible_text(html))
    assert found == ["a tooltip in English words", "fewer than poems on a side"]


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# -- the whole page, worked studies ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("fixture", ["known", "tang", "cciv", "fuxi"])
def test_the_chinese_dashboard_holds_no_english_sentence(
    request: pytest.FixtureRequest, fixture: str
) -> None:
    study = _study(request, fixture)
    page = _client(study).get(f"/research/studies/{study.pk}/", {"n_boot": 50})
    assert page.status_code == 200
    html = page.content.decode()
    left = english_sentences(visible_text(html))
    assert not left, f"English left on the zh-Hans dashboard of {fixture}:\n" + "\n".join(left)
    # every note of every row has its template, on the pages not shown too
    tables = page.context["tables"]
    with translation.override("zh-hans"):
        unknown = {
            str(r[c])
            for rows in tables.values()
            if isinstance(rows, list)
            for r in rows
            if isinstance(r, dict)
            for c in NOTE_COLUMNS
            if isinstance(r.get(c), str) and r[c] and translate_reason(r[c]) == r[c]
        }
    assert not unknown, f"notes without a template ({fixture}):\n" + "\n".join(sorted(unknown))
    # the report's rows keep their English notes (docs/report.md: the JSON is a contract)
    notes = [r["reason"] for rows in tables.values() if isinstance(rows, list) for r in rows
             if isinstance(r, dict) and r.get("reason")]  # fmt: skip
    assert notes and all(not _has_cjk(n) or "浣溪沙" in n for n in notes)


@pytest.mark.slow
def test_the_demo_dashboard_holds_no_english_sentence(settings, tmp_path) -> None:
    settings.DATA_DIR = tmp_path
    call_command("demo", "--no-users", stdout=io.StringIO())
    study = Study.objects.get(slug="song-ci-demo")
    html = _client(study).get(f"/research/studies/{study.pk}/").content.decode()
    left = english_sentences(visible_text(html))
    assert not left, "English left on the zh-Hans demo dashboard:\n" + "\n".join(left)


@pytest.mark.slow
def test_the_english_dashboard_stays_english(request: pytest.FixtureRequest) -> None:
    study = _study(request, "known")
    html = _client(study, "en").get(f"/research/studies/{study.pk}/").content.decode()
    assert "respondents with fewer than 5 keyed answers" in html
    assert "Rater set × coefficient: value, 95% CI, and n (items / raters)" in html


# -- names -----------------------------------------------------------------------------


def test_every_rule_metric_and_family_has_a_name_in_chinese() -> None:
    metrics = {*CI_METRICS, *SHI_METRICS, *COUPLET_METRICS}
    assert metrics <= set(RULE_METRICS)
    assert {f.name for f in FAMILIES} <= set(RULE_FAMILIES)
    with translation.override("zh-hans"):
        named = {k: str(v) for k, v in RULE_METRICS.items()}
        assert named["structural_standard"] == "结构(标准)"
        assert named["tonal_variant"] == "声律(变体)"
        assert all(v != k and not v.isascii() for k, v in named.items() if k != "structural_fuxi")
        shown = Labels.rule("rule:prosody:classical/structural_fuxi")
        assert shown == f"结构(FuxiBench) · {RULE_FAMILIES['classical']}"
        # the rule rates' key (rater/version/metric) and a bare rule rater
        assert Labels.rule("prosody:modern/prosody-1.3/tonal_standard").startswith("声律(标准) · ")
        assert Labels.rule("prosody:ccv") == str(RULE_FAMILIES["ccv"])


def test_a_model_has_one_name_in_every_table_and_chart() -> None:
    names = {
        Labels.model("model:qwen@direct"),
        Labels.model("qwen@direct"),
        rater_set_label("model:qwen@direct", {}),
    }
    assert names == {"qwen (direct)"}
    assert Labels.model("model:gpt-4o") == Labels.model("gpt-4o") == "gpt-4o"


def test_every_table_is_named_by_what_it_holds() -> None:
    with translation.override("zh-hans"):
        titles = {s.name: str(s.title) for s in SPECS}
    assert set(titles) == set(TABLES)
    assert all(t and not t.isascii() for t in titles.values()), titles


def test_every_note_template_is_translated_with_its_placeholders() -> None:
    import re

    with translation.override("zh-hans"):
        for template in TEMPLATES:
            shown = translation.gettext(template)
            assert shown != template or template in ("rate", "mean"), template
            assert not english_sentences([shown.replace("%(", " %(")]), (template, shown)
            assert sorted(re.findall(r"%\(\w+\)s", shown)) == sorted(
                re.findall(r"%\(\w+\)s", template)
            ), template


def test_a_note_is_translated_with_its_values_and_nested_notes() -> None:
    note = "not estimable: fewer than 3 poems on a side (n_pass = 1, n_fail = 2)"
    with translation.override("zh-hans"):
        assert translate_reason(note) == "无法估计：某一侧的诗少于 3 首（n_pass = 1, n_fail = 2）"
        shown = translate_reason("accuracy of model:gpt-4o on ck/answer", Labels.model)
        assert shown == "gpt-4o 在 ck/answer 上的正确率"
        icc = (
            "the complete-case subset kept 3 of 5 raters (3 humans): no model rater is left, "
            "so this is not an ICC of humans+models; see the sets' own rows, or alpha "
            "(agreement table)"
        )
        names = {"humans+models": "全体人类 + 全部模型"}
        shown = translate_reason(icc, lambda s: names.get(s, s))
        assert shown == (
            "完整个案子集保留了 5 位评分者中的 3 位（3 名人类评分者）：已没有 模型 评分者，"
            "因此这不是 全体人类 + 全部模型 的 ICC；请看各集合自己的行，或一致性表中的 alpha"
        )
        assert translate_reason("a note no template knows") == "a note no template knows"
    with translation.override("en"):
        assert translate_reason(note) == note


# -- byte order marks ------------------------------------------------------------------


@pytest.mark.slow
def test_report_csv_downloads_start_with_a_bom_unless_asked_not_to(
    request: pytest.FixtureRequest,
) -> None:
    study = _study(request, "known")
    client = _client(study)
    base = f"/research/studies/{study.pk}/report.csv"
    client.get(f"/research/studies/{study.pk}/")  # the stored report (eager in tests)
    one = client.get(base, {"table": "accuracy"}).content.decode("utf-8")
    assert one.startswith(BOM + "task,")
    bare = client.get(base, {"table": "accuracy", "bom": "0"}).content.decode("utf-8")
    assert bare.startswith("task,")
    every = zipfile.ZipFile(io.BytesIO(client.get(base).content))
    assert all(every.read(n).decode("utf-8").startswith(BOM) for n in every.namelist())
    every = zipfile.ZipFile(io.BytesIO(client.get(base, {"bom": "0"}).content))
    assert not any(every.read(n).decode("utf-8").startswith(BOM) for n in every.namelist())


@pytest.mark.slow
def test_the_report_command_writes_csv_with_a_bom_unless_no_bom(
    request: pytest.FixtureRequest, tmp_path
) -> None:
    _study(request, "known")
    args = ("report", "known", "--format", "csv", "--n-boot", "0")
    call_command(*args, "--out", str(tmp_path / "a"), stderr=io.StringIO())
    call_command(*args, "--out", str(tmp_path / "b"), "--no-bom", stderr=io.StringIO())
    with_bom = (tmp_path / "a" / "accuracy.csv").read_bytes()
    without = (tmp_path / "b" / "accuracy.csv").read_bytes()
    assert with_bom == BOM.encode() + without
    rows = list(csv.DictReader(io.StringIO(with_bom.decode("utf-8-sig"))))
    assert rows and "task" in rows[0]


@pytest.mark.slow
def test_a_paper_layout_written_as_csv_starts_with_a_bom(
    request: pytest.FixtureRequest, tmp_path
) -> None:
    study = _study(request, "tang")
    args = ("report", study.slug, "--paper", "tang-ratings", "--format", "csv", "--n-boot", "0")
    call_command(*args, "--out", str(tmp_path / "a.csv"), stderr=io.StringIO())
    call_command(*args, "--out", str(tmp_path / "b.csv"), "--no-bom", stderr=io.StringIO())
    with_bom, without = (tmp_path / "a.csv").read_bytes(), (tmp_path / "b.csv").read_bytes()
    assert with_bom == BOM.encode() + without and without[:1] != BOM.encode()[:1]


@pytest.mark.slow
def test_a_workbook_for_reading_names_sheets_headers_and_cells_in_chinese(
    request: pytest.FixtureRequest,
) -> None:
    from openpyxl import load_workbook

    study = _study(request, "known")
    client = _client(study)
    client.get(f"/research/studies/{study.pk}/")  # the stored report (eager in tests)
    base = f"/research/studies/{study.pk}/report.xlsx"
    named = client.get(base, {"names": "1"})
    assert named["Content-Disposition"].endswith('known-report-named.xlsx"')
    book = load_workbook(io.BytesIO(named.content), read_only=True)
    with translation.override("zh-hans"):
        titles = {s.name: str(s.title) for s in SPECS}
        header = translation.gettext("Rater set")
        note = translate_reason("respondents with fewer than 5 keyed answers")
    assert book.sheetnames == ["report", *(titles[t] for t in TABLES)]
    accuracy = list(book[titles["accuracy"]].iter_rows(values_only=True))
    assert header in accuracy[0] and "rater_set" not in accuracy[0]
    sets = {row[accuracy[0].index(header)] for row in accuracy[1:]}
    assert "组A" in sets and not any(str(s).startswith("group:") for s in sets)
    abilities = list(book[titles["abilities"]].iter_rows(values_only=True))
    assert any(note in row for row in abilities)
    # without names=1: the report's ids, as the API gives them
    plain = load_workbook(io.BytesIO(client.get(base).content), read_only=True)
    assert plain.sheetnames == ["report", *TABLES]


def test_every_interval_method_the_clustered_mean_names_is_translated(db) -> None:
    # audit (issue 24): a ratings row whose answers all agree and have no cluster to
    # condition on is written with the method "independent answers"; the zh-Hans page
    # showed it in English (Tang --by source: 人类诗人 · gpt-4o · 韵律格律)
    from scoring.agreement.crossed import clustered_mean

    study = Study.objects.create(slug="methods", title="methods")
    methods = {
        clustered_mean(values, clusters, proportion=proportion).method
        for values in ([4.0, 4.0, 4.0], [3.0, 4.0, 5.0])
        for clusters in ({}, {"person": ["a", "a", "a"], "item": ["x", "y", "z"]})
        for proportion in (False, True)
        if not (proportion and values[0] > 1)
    }
    assert "independent answers" in methods
    with translation.override("zh-hans"):
        labels = Labels(study)
        left = {m for m in methods if english_sentences([str(labels.value("ci_method", m, {}))], 2)}
    assert not left, left


@pytest.mark.slow
def test_a_paper_layout_downloaded_as_csv_starts_with_a_bom_unless_asked_not_to(
    request: pytest.FixtureRequest,
) -> None:
    # audit (issue 24): the API's and the dashboard's paper CSV (Chinese row names such as
    # 人类诗人) came without the mark, unlike every other CSV download
    study = _study(request, "tang")
    client = _client(study)
    client.get(f"/research/studies/{study.pk}/")  # the stored report (eager in tests)
    api = f"/api/v1/studies/{study.pk}/exports/paper/tang-ratings/"
    marked = client.get(api, {"file": "csv"}).content.decode("utf-8")
    bare = client.get(api, {"file": "csv", "bom": "0"}).content.decode("utf-8")
    assert marked == BOM + bare and bare.startswith("source,") and "人类诗人" in bare
    got = client.get(f"/research/studies/{study.pk}/paper/tang-ratings.csv")
    assert got.status_code == 200  # the dashboard's link
    assert got.content.decode("utf-8").startswith(BOM + "source,")
