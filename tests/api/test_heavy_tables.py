"""Heavy tables apart (issue #24 item 5; jobs/reports.py, research/reports.py): the
dashboard's report job stores the report with the heavy tables (``TableSpec.heavy``: the
IRT ``abilities``) pending and queues their own job; the dashboard says so in the
table's section (zh-Hans first) and shows the table once that job is done; downloads and
the API wait for it (never a report without it); a new answer makes both stale, and the
older table is shown meanwhile, labelled stale with its age.

A broker is simulated as in test_background_report.py (``CELERY_TASK_ALWAYS_EAGER``
off: a job stays queued until the test runs it with ``jobs.services.job_run``); the
last test runs with the eager setting of a bare ``runserver``."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from jobs.models import Job
from jobs.reports import heavy_key, report_key, report_submit
from jobs.services import job_run
from research.reports import ReportHead
from scoring.report.build import build_report
from scoring.report.registry import BY_NAME, HEAVY_TABLES, SPECS
from scoring.report.service import fingerprint
from scoring.report.settings import ReportSettings
from tests.api.conftest import World

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # each runs report jobs

SETTINGS = ReportSettings(n_boot=0)
PAGE = "/research/studies/{pk}/?n_boot=0"
NOTE_ZH = "此表由单独的后台任务计算"  # "This table is being computed by a background job…"
STALE_ZH = "已过时"  # "stale"


@pytest.fixture
def broker(settings: Any, tmp_path: Path) -> Any:
    settings.CELERY_TASK_ALWAYS_EAGER = False  # jobs wait for a worker (never in the request)
    settings.DATA_DIR = tmp_path / "data"
    return settings


def jobs_of(world: World, prefix: str) -> list[Job]:
    return list(Job.objects.filter(study=world.own.study, key__startswith=prefix).order_by("pk"))


def head_agrees(state: Any) -> bool:
    """The page's head (read from the jobs' summaries, ``jobs.reports.merge_head``) says
    what the stored report with its heavy tables filled in (``with_heavy``) says."""
    read = ReportHead.of(state.stored)
    return (state.head.pending, state.head.stale) == (read.pending, read.stale)


KEYS = ["task", "irt", "summary", "rater_set", "rater", "item", "field", "what"]


def rows_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows in a canonical order (by what each row is of, not by its numbers), for
    comparing two computations of one table."""
    frame = pd.DataFrame(rows)
    keys = [k for k in KEYS if k in frame.columns]
    return frame.sort_values(keys, kind="stable", na_position="first").reset_index(drop=True)


def test_abilities_is_the_heavy_table() -> None:
    assert HEAVY_TABLES == ("abilities",)
    assert BY_NAME["abilities"].heavy and BY_NAME["abilities"].data_only
    assert [s.name for s in SPECS if s.heavy] == list(HEAVY_TABLES)


def test_the_report_job_leaves_abilities_to_a_job_of_its_own(world: World, broker: Any) -> None:
    study, client = world.own.study, world.clients["researcher"]
    pk = study.pk
    submitted, _new = report_submit(study, SETTINGS, fingerprint(study))
    job = job_run(submitted.pk)
    assert job is not None and job.status == Job.Status.DONE, job.message if job else None
    assert job.summary["pending"] == ["abilities"] and job.summary["tables"]["abilities"] == 0
    [heavy] = jobs_of(world, "heavy:")
    assert heavy.status == Job.Status.QUEUED and heavy.key == heavy_key(study, SETTINGS)
    assert heavy.params["heavy"] and heavy.created_by is None  # not counted against a user

    # the dashboard: the report, with the table's section saying it is being computed
    page = client.get(PAGE.format(pk=pk), HTTP_ACCEPT_LANGUAGE="zh-hans")
    state = page.context["state"]
    assert state.current and state.pending == ("abilities",) and not state.complete
    assert state.heavy_job_id == heavy.pk and not state.computing
    html = page.content.decode()
    assert 'data-pending="abilities"' in html and NOTE_ZH in html
    assert "尚无更早的计算结果" in html  # no older one to show
    assert page.context["report"].tables["abilities"] == []
    # a second view joins the queued job
    client.get(PAGE.format(pk=pk))
    assert len(jobs_of(world, "heavy:")) == 1

    # downloads and the API wait for it: never the report without it
    wait = client.get(f"/research/studies/{pk}/report.csv?n_boot=0&table=abilities")
    assert wait.status_code == 202 and 'http-equiv="refresh"' in wait.content.decode()
    api = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0")
    assert api.status_code == 202
    assert api.json()["pending"] == ["abilities"] and api.json()["job"] == heavy.pk
    assert api["Location"].endswith(f"/research/jobs/{heavy.pk}/")

    # the heavy job ran: the section shows the table, the same as computed in one go
    done = job_run(heavy.pk)
    assert done is not None and done.status == Job.Status.DONE, done.message if done else None
    page = client.get(PAGE.format(pk=pk), HTTP_ACCEPT_LANGUAGE="zh-hans")
    state = page.context["state"]
    assert state.complete and state.pending == () and state.heavy_job_id is None
    assert head_agrees(state)
    html = page.content.decode()
    assert 'data-pending="abilities"' not in html and NOTE_ZH not in html  # the cached HTML moved
    shown = page.context["report"].tables["abilities"]
    whole = build_report(study, SETTINGS).tables["abilities"]  # the CLI's way: in-process
    assert len(shown) > 0
    pd.testing.assert_frame_equal(rows_frame(shown), rows_frame(whole))
    got = client.get(f"/research/studies/{pk}/report.csv?n_boot=0&table=abilities")
    assert got.status_code == 200
    csv = pd.read_csv(io.StringIO(got.content.decode("utf-8-sig")))
    assert len(csv) == len(whole)
    api = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0")
    assert api.status_code == 200 and len(api.json()["abilities"]) == len(whole)
    # one report job and one heavy job in all: nothing recomputed
    assert len(jobs_of(world, "report:")) == 1 and len(jobs_of(world, "heavy:")) == 1


def test_a_new_answer_makes_both_stale_and_the_older_table_is_shown_labelled(
    world: World, broker: Any
) -> None:
    study, client = world.own.study, world.clients["researcher"]
    pk = study.pk
    first, _new = report_submit(study, SETTINGS, fingerprint(study))
    job_run(first.pk)
    [queued] = jobs_of(world, "heavy:")
    heavy = job_run(queued.pk)
    assert heavy is not None and heavy.status == Job.Status.DONE
    old_rows = client.get(PAGE.format(pk=pk)).context["report"].tables["abilities"]
    assert old_rows

    world.own.model("late-model")
    world.own.answer("late-model", "ck-1", "answer", 0)  # one more answer: both stale
    page = client.get(PAGE.format(pk=pk), HTTP_ACCEPT_LANGUAGE="en")
    state = page.context["state"]
    assert not state.current and state.computing and state.answers_since == 1
    assert state.pending == ()  # the last complete report, whole, with its age
    assert "1 answer has come in since" in page.content.decode()
    again = jobs_of(world, "report:")[-1]
    assert again.pk != first.pk and again.status == Job.Status.QUEUED

    job_run(again.pk)  # the new report: abilities pending again (its data moved)
    [_old, heavy2] = jobs_of(world, "heavy:")
    assert heavy2.status == Job.Status.QUEUED
    page = client.get(PAGE.format(pk=pk), HTTP_ACCEPT_LANGUAGE="zh-hans")
    state = page.context["state"]
    assert state.current and state.pending == ("abilities",) and head_agrees(state)
    assert state.stored.stale_tables["abilities"].fingerprint == heavy.summary["fingerprint"]
    assert [t.name for t in state.head.stale] == ["abilities"]
    html = page.content.decode()
    assert NOTE_ZH in html and STALE_ZH in html  # the older one, labelled stale, with its age
    shown = page.context["report"].tables["abilities"]
    pd.testing.assert_frame_equal(rows_frame(shown), rows_frame(old_rows))
    wait = client.get(f"/research/studies/{pk}/report.json?n_boot=0")
    assert wait.status_code == 202  # a download never takes the stale table

    job_run(heavy2.pk)
    page = client.get(PAGE.format(pk=pk), HTTP_ACCEPT_LANGUAGE="zh-hans")
    state = page.context["state"]
    assert state.complete and not state.stored.stale_tables and head_agrees(state)
    html = page.content.decode()
    assert NOTE_ZH not in html and STALE_ZH not in html
    # the heavy job started the fits from the previous ones (abilities.FitStarts): the
    # cold table's numbers within the stopping rule's tolerance (test_abilities_warm.py)
    now = build_report(study, SETTINGS).tables["abilities"]
    pd.testing.assert_frame_equal(
        rows_frame(page.context["report"].tables["abilities"]),
        rows_frame(now),
        check_exact=False,
        rtol=1e-2,
        atol=1e-2,
    )
    assert client.get(f"/research/studies/{pk}/report.json?n_boot=0").status_code == 200


def test_a_failed_heavy_job_is_said_and_downloads_do_not_wait_forever(
    world: World, broker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    study, client = world.own.study, world.clients["researcher"]
    pk = study.pk
    job, _new = report_submit(study, SETTINGS, fingerprint(study))
    job_run(job.pk)
    [heavy] = jobs_of(world, "heavy:")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("IRT fit exploded")

    monkeypatch.setattr("jobs.reports.build_report", broken)
    failed = job_run(heavy.pk)
    assert failed is not None and failed.status == Job.Status.FAILED
    page = client.get(PAGE.format(pk=pk), HTTP_ACCEPT_LANGUAGE="en")
    state = page.context["state"]
    assert state.pending == ("abilities",) and "IRT fit exploded" in state.heavy_failed
    assert "IRT fit exploded" in page.content.decode()
    assert len(jobs_of(world, "heavy:")) == 1  # not restarted at every view
    wait = client.get(f"/research/studies/{pk}/report.csv?n_boot=0&table=ratings")
    assert wait.status_code == 202 and 'http-equiv="refresh"' not in wait.content.decode()
    assert client.get(f"/api/v1/studies/{pk}/report/?n_boot=0").status_code == 503


def test_without_a_broker_the_dashboard_gets_the_whole_report_at_once(
    world: World, settings: Any, tmp_path: Path
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.DATA_DIR = tmp_path / "data"
    study, client = world.own.study, world.clients["researcher"]
    page = client.get(PAGE.format(pk=study.pk))
    state = page.context["state"]
    assert state.complete and page.context["report"].tables["abilities"]
    assert [j.status for j in jobs_of(world, "report:")] == [Job.Status.DONE]
    assert [j.status for j in jobs_of(world, "heavy:")] == [Job.Status.DONE]
    assert jobs_of(world, "report:")[0].key == report_key(study, SETTINGS)
