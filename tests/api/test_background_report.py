"""Background reports (jobs/reports.py, research/reports.py): the dashboard, the report
downloads and the API never compute a report in the request; one job per study and
settings (a second request joins it); a stale report is shown with its age while a
new one is computed; a per-user limit on starting computations (429).

A broker is simulated with ``CELERY_TASK_ALWAYS_EAGER`` off: inside a test's
transaction the enqueueing (on commit) never happens, so a job stays queued until the
test runs it with ``jobs.services.job_run``."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from threadpoolctl import threadpool_info

from annotation.models import Response
from jobs.models import Job
from jobs.reports import (
    SUPERSEDED,
    report_follow_up,
    report_key,
    report_submit,
    report_supersede_if_stale,
)
from jobs.services import job_run
from scoring.report.build import build_report
from scoring.report.service import fingerprint
from scoring.report.settings import ReportSettings
from tests.api.conftest import World

pytestmark = pytest.mark.django_db

SETTINGS = ReportSettings(n_boot=0)


@pytest.fixture
def broker(settings: Any, tmp_path: Path) -> Any:
    settings.CELERY_TASK_ALWAYS_EAGER = False  # jobs wait for a worker (never in the request)
    settings.DATA_DIR = tmp_path / "data"  # the stored reports' files
    return settings


@pytest.fixture
def no_build(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fail the test if a report is built (during a request)."""
    calls: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        calls.append("build_report")
        raise AssertionError("build_report called in the request")

    monkeypatch.setattr("scoring.report.build.build_report", refuse)
    monkeypatch.setattr("jobs.reports.build_report", refuse)
    monkeypatch.setattr("scoring.report.service.build_report", refuse)
    return calls


def report_jobs(world: World) -> list[Job]:
    """The report jobs (not their heavy tables' jobs: tests/api/test_heavy_tables.py)."""
    jobs = Job.objects.filter(
        study=world.own.study, kind=Job.Kind.REPORT, key__startswith="report:"
    )
    return list(jobs.order_by("pk"))


def run_with_heavy(job_id: int) -> Job | None:
    """Run a report job and then the heavy-table job it queued (as a worker would)."""
    job = job_run(job_id)
    for heavy in Job.objects.filter(key__startswith="heavy:", status=Job.Status.QUEUED):
        job_run(heavy.pk)
    return job


def test_the_dashboard_opens_without_a_report_and_reloads_itself(
    world: World, broker: Any, no_build: list[str]
) -> None:
    page = world.clients["researcher"].get(f"/research/studies/{world.own.study.pk}/?n_boot=0")
    assert page.status_code == 200 and not no_build
    state = page.context["state"]
    assert state.stored is None and state.computing and state.started
    html = page.content.decode()
    assert '<meta http-equiv="refresh" content="5">' in html
    assert 'id="report-state"' in html and "accuracy_svg" not in page.context
    assert page.context["funnel"]  # progress from the counters, at once
    [job] = report_jobs(world)
    assert job.status == Job.Status.QUEUED and job.key == report_key(world.own.study, SETTINGS)


def test_two_requests_for_one_report_share_one_job(
    world: World, broker: Any, no_build: list[str]
) -> None:
    client, pk = world.clients["researcher"], world.own.study.pk
    first = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0")
    second = client.get(f"/research/studies/{pk}/?n_boot=0")
    third = client.get(f"/api/v1/studies/{pk}/exports/report/?n_boot=0&file=csv")
    [job] = report_jobs(world)
    assert first.status_code == 202 and third.status_code == 202
    assert first.json()["job"] == third.json()["job"] == job.pk
    assert second.context["state"].job_id == job.pk
    assert first.json()["status_url"].endswith(f"/research/jobs/{job.pk}/")
    # the database itself refuses a second active job for the key: a submit joins
    again, new = report_submit(world.own.study, SETTINGS, fingerprint(world.own.study))
    assert again.pk == job.pk and not new
    assert len(report_jobs(world)) == 1


@pytest.mark.slow  # runs a report job (seconds on a loaded machine)
def test_the_api_gives_202_then_the_stored_report(world: World, broker: Any) -> None:
    client, pk = world.clients["researcher"], world.own.study.pk
    accepted = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0&seed=7")
    assert accepted.status_code == 202
    assert accepted["Location"].endswith(f"/research/jobs/{accepted.json()['job']}/")
    status = client.get(accepted.json()["status_url"]).json()
    assert status["status"] == "queued"
    job = run_with_heavy(accepted.json()["job"])
    assert job is not None and job.status == Job.Status.DONE, job.message if job else None
    done = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0&seed=7")
    assert done.status_code == 200
    assert done.json()["settings"]["seed"] == 7 and "accuracy" in done.json()
    export = client.get(f"/api/v1/studies/{pk}/exports/report/?n_boot=0&seed=7&file=json")
    assert export.status_code == 200 and export["Content-Disposition"].startswith("attachment")
    assert len(report_jobs(world)) == 1  # the current report is served, nothing restarted


@pytest.mark.slow  # runs a report job (seconds on a loaded machine)
def test_a_stale_report_is_shown_with_its_age_while_recomputed(
    world: World, broker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, pk = world.clients["researcher"], world.own.study.pk
    job, _new = report_submit(world.own.study, SETTINGS, fingerprint(world.own.study))
    job_run(job.pk)
    old_fp = Job.objects.get(pk=job.pk).summary["fingerprint"]
    world.own.model("late-model")
    world.own.answer("late-model", "ck-1", "answer", 0)  # one more answer: stale now
    assert not report_jobs(world)[-1].params.get("follow_up_of")  # none ran meanwhile
    calls: list[str] = []
    monkeypatch.setattr("jobs.reports.build_report", lambda *a, **k: calls.append("x"))
    with_lang = client.get(f"/research/studies/{pk}/?n_boot=0", HTTP_ACCEPT_LANGUAGE="en")
    assert with_lang.status_code == 200 and not calls
    state = with_lang.context["state"]
    assert state.stored is not None and not state.current and state.computing
    assert state.stored.fingerprint == old_fp and state.answers_since == 1
    html = with_lang.content.decode()
    assert "1 answer has come in since" in html and old_fp in html
    assert "Recomputing" in html and 'http-equiv="refresh"' not in html
    assert with_lang.context["report"] is state.stored.report  # the stale report, shown
    zh = client.get(f"/research/studies/{pk}/?n_boot=0", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "重新计算" in zh.content.decode()
    assert len(report_jobs(world)) == 2  # one recomputation, joined by the second view


@pytest.mark.slow  # runs a report job (seconds on a loaded machine)
def test_one_follow_up_when_the_data_moved_during_a_job(
    world: World, broker: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    study = world.own.study
    job, _new = report_submit(study, SETTINGS, fingerprint(study))
    world.own.model("during")
    real = build_report

    def answered_meanwhile(*args: Any, **kwargs: Any) -> Any:
        if not Response.objects.filter(rater__name="during").exists():
            world.own.answer("during", "ck-1", "answer", 0)  # arrives while the job runs
        return real(*args, **kwargs)

    monkeypatch.setattr("jobs.reports.build_report", answered_meanwhile)
    job_run(job.pk)  # ends on data that have moved: one follow-up, queued
    follow = report_jobs(world)[-1]
    assert follow.pk != job.pk and follow.params["follow_up_of"] == job.pk
    assert follow.status == Job.Status.QUEUED
    world.own.answer("during", "ck-2", "answer", 1)
    first_file = Path(settings.DATA_DIR) / Job.objects.get(pk=job.pk).result_file
    assert first_file.is_file()
    job_run(follow.pk)  # a follow-up has no follow-up of its own
    assert not first_file.exists()  # the older stored copy is gone, the newest is kept
    assert Job.objects.get(pk=job.pk).result_file == ""
    assert report_follow_up(Job.objects.get(pk=follow.pk)) is None
    assert len(report_jobs(world)) == 2


def test_starting_computations_is_rate_limited_per_user(
    world: World, broker: Any, no_build: list[str]
) -> None:
    broker.REPORT_STARTS_PER_HOUR = 1
    client, pk = world.clients["researcher"], world.own.study.pk
    assert client.get(f"/api/v1/studies/{pk}/report/?n_boot=0").status_code == 202
    # joining the running computation is free
    assert client.get(f"/api/v1/studies/{pk}/report/?n_boot=0").status_code == 202
    limited = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0&seed=1")
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 3000
    assert "之后再试" in limited.json()["detail"]  # zh-Hans first
    page = client.get(f"/research/studies/{pk}/?n_boot=0&seed=2", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 429 and "Try again after" in page.content.decode()
    zh = client.get(
        f"/research/studies/{pk}/report.json?n_boot=0&seed=3", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert zh.status_code == 429 and "之后再试" in zh.content.decode()
    assert len(report_jobs(world)) == 1
    # another user has a limit of their own
    admin = world.clients["admin"]
    assert admin.get(f"/api/v1/studies/{pk}/report/?n_boot=0&seed=1").status_code == 202


@pytest.mark.slow  # runs a report job (seconds on a loaded machine)
def test_a_browser_download_waits_for_the_job_then_gives_the_file(
    world: World, broker: Any
) -> None:
    client, pk = world.clients["researcher"], world.own.study.pk
    wait = client.get(f"/research/studies/{pk}/report.csv?n_boot=0&table=ratings")
    assert wait.status_code == 202
    assert '<meta http-equiv="refresh" content="5">' in wait.content.decode()
    run_with_heavy(report_jobs(world)[0].pk)
    got = client.get(f"/research/studies/{pk}/report.csv?n_boot=0&table=ratings")
    assert got.status_code == 200 and got["Content-Type"].startswith("text/csv")


@pytest.mark.parametrize("query", ["n_boot=2001", "seed=-1", "seed=4294967296"])
def test_out_of_bounds_settings_are_400_and_start_nothing(
    world: World, broker: Any, query: str
) -> None:
    client, pk = world.clients["researcher"], world.own.study.pk
    for path in (
        f"/research/studies/{pk}/",
        f"/research/studies/{pk}/report.json",
        f"/api/v1/studies/{pk}/report/",
        f"/api/v1/studies/{pk}/exports/report/",
    ):
        assert client.get(f"{path}?{query}").status_code == 400, path
    assert report_jobs(world) == []


def _queued_since(job: Job, seconds: float) -> None:
    """Date a job's submission ``seconds`` back (the worker never took it)."""
    Job.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(seconds=seconds))


def test_a_report_job_no_worker_took_is_superseded_after_the_timeout(
    world: World, broker: Any, no_build: list[str]
) -> None:
    broker.REPORT_QUEUED_STALE_SECONDS = 600
    client, pk = world.clients["researcher"], world.own.study.pk
    first = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0")
    [old] = report_jobs(world)
    _queued_since(old, 599)  # within the timeout: the next request joins it
    assert client.get(f"/api/v1/studies/{pk}/report/?n_boot=0").json()["job"] == old.pk
    _queued_since(old, 601)  # past it: the next request starts a new job
    again = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0")
    assert first.status_code == again.status_code == 202
    old.refresh_from_db()
    new = report_jobs(world)[-1]
    assert again.json()["job"] == new.pk != old.pk
    assert new.status == Job.Status.QUEUED and new.key == old.key
    assert old.status == Job.Status.FAILED and old.finished_at is not None
    assert old.summary == {"error": SUPERSEDED} and "600" in old.message
    assert "reports" in old.message
    # a worker that takes the superseded job at last does nothing with it
    assert job_run(old.pk) is not None and not no_build
    old.refresh_from_db()
    assert old.status == Job.Status.FAILED and old.started_at is None


def test_the_dashboard_says_why_when_a_queued_report_was_superseded(
    world: World, broker: Any, no_build: list[str]
) -> None:
    broker.REPORT_QUEUED_STALE_SECONDS = 60
    client, pk = world.clients["researcher"], world.own.study.pk
    client.get(f"/research/studies/{pk}/?n_boot=0")
    [old] = report_jobs(world)
    _queued_since(old, 61)
    page = client.get(f"/research/studies/{pk}/?n_boot=0", HTTP_ACCEPT_LANGUAGE="en")
    state = page.context["state"]
    assert page.status_code == 200 and state.started and state.job_id != old.pk
    assert not state.failed  # a new job is on its way: no failure shown
    status = client.get(f"/research/jobs/{old.pk}/").json()
    assert status["status"] == "failed" and "reports" in status["message"]


def test_no_supersession_when_off_or_for_a_running_job(
    world: World, broker: Any, no_build: list[str]
) -> None:
    study = world.own.study
    job, _new = report_submit(study, SETTINGS, fingerprint(study))
    _queued_since(job, 10 * 24 * 3600)
    broker.REPORT_QUEUED_STALE_SECONDS = 0  # off: a queued job holds its key
    assert not report_supersede_if_stale(job)
    assert report_submit(study, SETTINGS, fingerprint(study)) == (job, False)
    broker.REPORT_QUEUED_STALE_SECONDS = 60
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING)
    job.refresh_from_db()
    assert not report_supersede_if_stale(job)  # a running job is judged by its heartbeat
    # a job a worker started after it was read is not superseded (conditional update)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.QUEUED)
    job.refresh_from_db()
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING)
    assert not report_supersede_if_stale(job)
    assert Job.objects.get(pk=job.pk).status == Job.Status.RUNNING


def test_a_report_job_computes_on_one_blas_thread(
    world: World, broker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report job never takes every core (docs/deploy.md, worker priority): while it
    builds the report, every BLAS/OpenMP pool threadpoolctl sees has one thread."""
    seen: list[int] = []

    def record(*args: Any, **kwargs: Any) -> Any:
        seen.extend(p["num_threads"] for p in threadpool_info())
        raise RuntimeError("recorded")

    monkeypatch.setattr("jobs.reports.build_report", record)
    job, _new = report_submit(world.own.study, SETTINGS, fingerprint(world.own.study))
    done = job_run(job.pk)
    assert done is not None and done.status == Job.Status.FAILED and "recorded" in done.message
    assert seen and set(seen) == {1}


def test_an_api_token_client_polls_the_status_url_it_was_given(world: World, broker: Any) -> None:
    """The API's 202 names the job's status URL: a client with an API token (no session)
    reads it with the same ``Authorization`` header; another researcher's token, a bad
    token or none gets 404 (research.access decides, as for sessions)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    pk = world.own.study.pk
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {world.researcher_token}")
    accepted = client.get(f"/api/v1/studies/{pk}/report/?n_boot=0&seed=11")
    assert accepted.status_code == 202
    url = accepted.json()["status_url"]
    status = client.get(url)
    assert status.status_code == 200 and status.json()["id"] == accepted.json()["job"]
    outsider = get_user_model().objects.get(username="outsider")
    for header in (f"Token {Token.objects.create(user=outsider).key}", "Token nope", None):
        other = APIClient()
        if header is not None:
            other.credentials(HTTP_AUTHORIZATION=header)
        assert other.get(url).status_code == 404
