"""A job whose runner dies (without a broker, the request that ran it) does not stay
"running" for ever: its runner gives a heartbeat, and a job silent for too long is marked
failed with the reason, in the status view and the admin. Result files are named
relative to DATA_DIR, so a DATA_DIR mounted elsewhere still serves them."""

from __future__ import annotations

import shutil
import time
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from jobs import runners
from jobs.models import Job
from jobs.progress import beat_key
from jobs.runners import Outcome
from jobs.services import RUNNER_LOST, job_run, job_submit

pytestmark = pytest.mark.django_db


def _running(started_ago: float, beat_ago: float | None = None, **fields: Any) -> Job:
    now = timezone.now()
    job = Job.objects.create(
        kind=Job.Kind.REPORT,
        status=Job.Status.RUNNING,
        started_at=now - timedelta(seconds=started_ago),
        heartbeat_at=None if beat_ago is None else now - timedelta(seconds=beat_ago),
        **fields,
    )
    Job.objects.filter(pk=job.pk).update(created_at=job.started_at)  # submitted, then started
    return job


def test_a_running_job_whose_runner_died_is_failed_with_the_reason(staff_client, settings) -> None:
    silence = settings.JOB_HEARTBEAT_SECONDS * settings.JOB_MISSED_BEATS
    dead = _running(started_ago=3 * silence, beat_ago=silence + 5)
    alive = _running(started_ago=3 * silence, beat_ago=1)
    reply = staff_client.get(reverse("jobs:job", args=[dead.pk])).json()
    assert reply["status"] == "failed" and reply["finished"]
    assert "gave no sign of life" in reply["message"] and reply["summary"]["error"] == RUNNER_LOST
    dead.refresh_from_db()
    assert dead.status == Job.Status.FAILED and dead.finished_at is not None
    assert staff_client.get(reverse("jobs:job", args=[alive.pk])).json()["status"] == ("running")


def test_a_job_that_never_beat_counts_from_its_start(staff_client, settings) -> None:
    silence = settings.JOB_HEARTBEAT_SECONDS * settings.JOB_MISSED_BEATS
    young, old = _running(started_ago=5), _running(started_ago=silence + 5)
    statuses = {
        job.pk: staff_client.get(reverse("jobs:job", args=[job.pk])).json()["status"]
        for job in (young, old)
    }
    assert statuses == {young.pk: "running", old.pk: "failed"}


def test_a_beat_in_the_shared_cache_keeps_a_job_alive(staff_client, settings) -> None:
    # On SQLite the row's heartbeat may wait behind the loader's transaction: the cache's
    # beat (Redis, shared by every process) then speaks for it.
    silence = settings.JOB_HEARTBEAT_SECONDS * settings.JOB_MISSED_BEATS
    job = _running(started_ago=3 * silence, beat_ago=2 * silence)
    cache.set(beat_key(job.pk), time.time())
    assert staff_client.get(reverse("jobs:job", args=[job.pk])).json()["status"] == ("running")


def test_the_admin_list_shows_the_runner_gone(staff_client, settings) -> None:
    silence = settings.JOB_HEARTBEAT_SECONDS * settings.JOB_MISSED_BEATS
    dead = _running(started_ago=3 * silence, beat_ago=silence + 5)
    alive = _running(started_ago=3 * silence, beat_ago=3)
    html = staff_client.get(reverse("admin:jobs_job_changelist")).content.decode()
    assert "runner gone: failed" in html or "执行者已中断" in html
    assert Job.objects.get(pk=dead.pk).status == Job.Status.FAILED
    assert Job.objects.get(pk=alive.pk).status == Job.Status.RUNNING
    page = staff_client.get(reverse("admin:jobs_job_change", args=[dead.pk])).content.decode()
    assert "gave no sign of life" in page


def test_a_runner_beats_while_it_runs(
    monkeypatch, settings, django_capture_on_commit_callbacks
) -> None:
    settings.JOB_HEARTBEAT_SECONDS = 0.05
    beats: list[float] = []

    def slow(job: Job, on_progress: Any) -> Outcome:
        for _ in range(4):
            time.sleep(0.1)
            beats.append(cache.get(beat_key(job.pk)))
        return Outcome(message="slow but alive")

    monkeypatch.setitem(runners.RUNNERS, Job.Kind.RULE_SCORES, slow)
    monkeypatch.setattr("jobs.services.RUNNERS", runners.RUNNERS)
    with django_capture_on_commit_callbacks(execute=True):
        job = job_submit(kind=Job.Kind.RULE_SCORES, study=None, params={})
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.message == "slow but alive"
    assert len(set(beats)) >= 3 and beats == sorted(beats)  # fresh beats, one after another


def test_a_job_failed_for_a_lost_runner_runs_again_when_delivered_again(monkeypatch) -> None:
    """With a broker, a killed worker's job is delivered again (late acks): if it was
    marked failed meanwhile for its silence, it still runs."""
    monkeypatch.setitem(runners.RUNNERS, Job.Kind.RULE_SCORES, lambda job, p: Outcome(message="ok"))
    lost = Job.objects.create(
        kind=Job.Kind.RULE_SCORES, status=Job.Status.FAILED, summary={"error": RUNNER_LOST}
    )
    failed = Job.objects.create(
        kind=Job.Kind.RULE_SCORES, status=Job.Status.FAILED, summary={"error": "ValueError"}
    )
    assert job_run(lost.pk).status == Job.Status.DONE  # type: ignore[union-attr]
    assert job_run(failed.pk).status == Job.Status.FAILED  # type: ignore[union-attr]


def test_a_result_file_is_served_from_data_dir_wherever_it_is_mounted(
    staff_client, example_study, data_dir, tmp_path, settings, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("export_responses", example_study.slug, "--format", "csv", "--background")
    job = Job.objects.get()
    assert not job.result_file.startswith("/")
    moved = tmp_path / "mounted-elsewhere"
    shutil.move(str(data_dir), moved)
    settings.DATA_DIR = moved
    download = staff_client.get(reverse("jobs:job-download", args=[job.pk]))
    assert download.status_code == 200
    # a CSV starts with the UTF-8 byte order mark by default (for spreadsheets)
    assert b"".join(download.streaming_content).startswith(b"\xef\xbb\xbfstudy,task,item")
    assert staff_client.get(reverse("jobs:job", args=[job.pk])).json()["result"]


@pytest.mark.parametrize("stored", ["../outside.csv", "/etc/passwd", "exports/../../x.csv"])
def test_a_result_path_outside_data_dir_is_never_served(
    staff_client, data_dir, stored: str
) -> None:
    (data_dir.parent / "outside.csv").write_text("secret")
    job = Job.objects.create(kind=Job.Kind.EXPORT, status=Job.Status.DONE, result_file=stored)
    assert staff_client.get(reverse("jobs:job-download", args=[job.pk])).status_code == 404
