"""A database that fails for a moment (a restart, a failover, SQLite's shared-cache lock)
must neither leave a job stuck nor run a finished load twice."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import OperationalError

from jobs import services
from jobs.models import Job
from jobs.services import load_submit
from studies.models import Item

pytestmark = pytest.mark.django_db
POOL = b'{"id": "ck-900", "task": "ck", "stem": "q", "options": ["a", "b"], "answer": 1}\n'


def test_a_failed_outcome_save_is_retried_without_running_the_load_again(
    example_study, django_capture_on_commit_callbacks
) -> None:
    real_save = Job.save
    failures = {"left": 2}

    def flaky_save(self, *args, **kwargs):
        if self.finished_at is not None and failures["left"]:
            failures["left"] -= 1
            raise OperationalError("database table is locked: scoring_job")
        return real_save(self, *args, **kwargs)

    with (
        mock.patch.object(Job, "save", flaky_save),
        mock.patch.object(services.time, "sleep") as slept,
        django_capture_on_commit_callbacks(execute=True),
    ):
        job = load_submit(kind="pool", name="pool.jsonl", content=POOL, study=example_study)
    job.refresh_from_db()
    assert failures["left"] == 0 and slept.call_count == 2
    # The load ran once: its summary says "created", not "unchanged" as a rerun would.
    assert (job.status, job.summary["created"]) == ("done", 1)
    assert Item.objects.filter(external_id="ck-900").count() == 1


def test_a_job_whose_database_errors_outlast_the_retries_is_marked_failed(
    example_study, django_capture_on_commit_callbacks
) -> None:
    def down(job, reporter):
        raise OperationalError("server closed the connection unexpectedly")

    with (
        mock.patch.dict(services.RUNNERS, {"pool": down}),
        django_capture_on_commit_callbacks(execute=True),
    ):
        job = load_submit(kind="pool", name="pool.jsonl", content=POOL, study=example_study)
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert "OperationalError" in job.message  # "gave up after repeated database errors", translated
    assert not Item.objects.filter(external_id="ck-900").exists()
