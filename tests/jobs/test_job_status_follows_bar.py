"""Issue 25, item 7: a job's page says the status its bar shows (queued while queued,
running with its progress, then done), and a large upload whose job already finished
(run at once, without a broker) is not announced as "loaded in the background"."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from jobs import upload as upload_page
from jobs.models import Job
from jobs.progress import cache_key
from jobs.services import job_run

pytestmark = pytest.mark.django_db
POOL = (
    '{"id": "ck-900", "task": "ck", "stem": "问一", "options": ["甲", "乙"], "answer": 0}\n'
    '{"id": "ck-901", "task": "ck", "stem": "问二", "options": ["甲", "乙"], "answer": 1}\n'
).encode()


def _page(client: Any, job: Job) -> str:
    return client.get(reverse("admin:jobs_job_change", args=[job.pk])).content.decode()


def test_the_page_and_the_state_name_the_status_with_the_bar(staff_client, example_study) -> None:
    job = Job.objects.create(kind="pool", study=example_study)
    page = _page(staff_client, job)
    assert '<span class="job-status" data-status="queued">排队中</span>' in page
    state = staff_client.get(reverse("jobs:job", args=[job.pk])).json()
    assert (state["status"], state["status_label"], state["percent"]) == ("queued", "排队中", None)

    # A worker takes it: the state the page's script polls says running, with the bar's
    # progress; the script writes that label into the status (static/js/job_progress.js).
    Job.objects.filter(pk=job.pk).update(status="running", total=20000)
    cache.set(cache_key(job.pk), {"stage": "writing", "done": 5000, "total": 20000})
    state = staff_client.get(reverse("jobs:job", args=[job.pk])).json()
    assert (state["status"], state["status_label"], state["percent"]) == ("running", "运行中", 25)
    assert '<span class="job-status" data-status="running">运行中</span>' in _page(
        staff_client, job
    )

    Job.objects.filter(pk=job.pk).update(status="done", done=20000)
    state = staff_client.get(reverse("jobs:job", args=[job.pk])).json()
    assert (state["status"], state["percent"], state["finished"]) == ("done", 100, True)


def test_the_script_updates_the_status_it_finds_on_the_page() -> None:
    from django.conf import settings

    script = (settings.BASE_DIR / "static" / "js" / "job_progress.js").read_text()
    assert ".field-status_shown .job-status" in script and "job.status_label" in script


def test_a_large_upload_whose_job_ran_at_once_says_it_is_loaded(
    staff_client, example_study, settings, monkeypatch
) -> None:
    settings.UPLOAD_BACKGROUND_LINES = 1
    submit = upload_page.load_submit

    def at_once(**kwargs: Any) -> Job:  # as without a broker: Celery runs it in-process
        job = submit(**kwargs)
        job_run(job.pk)
        return job

    monkeypatch.setattr(upload_page, "load_submit", at_once)
    file = SimpleUploadedFile("pool.jsonl", POOL)
    response = staff_client.post(
        reverse("admin:upload"), {"kind": "pool", "study": example_study.pk, "file": file}
    )
    assert response.status_code == 302
    page = staff_client.get(response["Location"]).content.decode()
    assert "此文件有 2 行：已作为任务导入，任务已完成。" in page
    assert "将在后台导入" not in page
    assert '<span class="job-status" data-status="done">' in page
