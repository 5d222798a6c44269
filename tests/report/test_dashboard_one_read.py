"""The dashboard's first view reads the study's responses once for its report job: its
report, the per-form rule rates behind the heatmaps and the planning rows all come from
that one read, and are exactly what each gives when built on its own (separate reads, no
cache). The heavy tables' job (``TableSpec.heavy``, run at once here: no broker) is a
job of its own, with a read of its own."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from research.dashboard import paper
from research.dashboard.beyond import PANEL_GOALS
from research.dashboard.labels import Labels
from scoring.report import build_report
from scoring.report import data as data_module
from scoring.report.plan import plan_rows
from scoring.report.service import StudyReader, report_for
from tests.report.cpdue import cpdue_study

pytestmark = pytest.mark.django_db
METRIC = "ccv/1/tonal_standard"


def _client(study) -> Client:
    user = get_user_model().objects.create_user("r1", password="pw")
    study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


@pytest.fixture
def reads(monkeypatch):
    """Every read of a study's responses, counted wherever it is called from."""
    calls: list[tuple[str, ...]] = []
    real = data_module._read_responses

    def counted(study, chunk_size, task_ids):
        calls.append(tuple(map(str, task_ids)))
        return real(study, chunk_size, task_ids)

    monkeypatch.setattr(data_module, "_read_responses", counted)
    return calls


def _same_rows(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    """Row for row, value for value (NaN equal to NaN, as both sides computed it)."""
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.keys() == b.keys()
        for k in a:
            if isinstance(a[k], float) and a[k] != a[k]:
                assert isinstance(b[k], float) and b[k] != b[k], k
            else:
                assert a[k] == b[k], (k, a[k], b[k])


@pytest.mark.slow
def test_first_view_reads_once_and_heatmaps_are_unchanged(cciv, reads) -> None:
    b, _items, _responses = cciv
    query = {"rate_metric": METRIC, "n_boot": "20"}
    page = _client(b.study).get(f"/research/studies/{b.study.pk}/", query)
    assert page.status_code == 200
    # report, per-form rule rates and plan from one read; the heavy tables' job: one more
    assert len(reads) == 2
    maps = {c: svg for c, svg, _choice in page.context["rule_rate_heatmaps"]}
    assert {"direct", "form_aware"} <= set(maps)

    # the same heatmaps from a one-table report built on its own (its own read)
    settings = page.context["report"].settings
    alone = build_report(b.study, replace(settings, by=("form",)), only=("rule_rates",))
    assert len(reads) == 3
    with translation.override("en"):
        expected = paper.rule_rate_heatmaps(alone.tables["rule_rates"], Labels(b.study), METRIC)
    assert [
        (name, str(svg)) for name, svg, _choice in page.context["rule_rate_heatmaps"]
    ] == expected
    # and the page's report is the report built on its own, table for table
    whole = build_report(b.study, settings)
    for name, rows in whole.tables.items():
        _same_rows(page.context["report"].tables[name], rows)

    # the next view: everything from the cache, no read at all
    before = len(reads)
    again = _client_again(b.study).get(f"/research/studies/{b.study.pk}/", query)
    assert again.status_code == 200 and len(reads) == before


def _client_again(study) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(get_user_model().objects.get(username="r1"))
    return client


@pytest.mark.slow
def test_plan_rows_from_the_shared_read_equal_their_own(reads) -> None:
    s = cpdue_study("cpdue-one-read")
    study = s.builder.study
    page = _client(study).get(f"/research/studies/{study.pk}/", {"n_boot": "0"})
    assert page.status_code == 200 and len(reads) == 2  # the report job's, the heavy job's
    shared = page.context["plan_rows"]
    assert {r["target"] for r in shared} == {"accuracy", "two_groups", "alpha_width"}
    _same_rows(shared, plan_rows(study, PANEL_GOALS))  # its own read
    assert 'id="plan"' in page.content.decode()


@pytest.mark.slow
def test_a_task_selection_reads_twice_and_holds_one_frame(reads) -> None:
    """With ``tasks`` the report reads those tasks and the plan every task: two reads,
    the first frame dropped before the second is read; the rows still equal their own."""
    s = cpdue_study("cpdue-two-reads")
    study = s.builder.study
    reader = StudyReader(study)
    report = report_for(study, replace(_settings(), tasks=("ck",)), reader=reader)
    first = reader.data(("ck",))
    assert reader.reads == 1 and reader.data(("ck",)) is first
    everything = reader.data()
    assert reader.reads == 2 and everything is not first and reader.data() is everything
    assert {t.slug for t in first.tasks.values()} == {"ck"}
    assert {t.slug for t in everything.tasks.values()} == {"ck", "au"}
    cache.clear()
    alone = build_report(study, replace(_settings(), tasks=("ck",)))
    for name, rows in alone.tables.items():
        _same_rows(report.tables[name], rows)
    _same_rows(plan_rows(study, PANEL_GOALS, everything), plan_rows(study, PANEL_GOALS))


def _settings():
    from scoring.report.settings import ReportSettings

    return ReportSettings(n_boot=0)
