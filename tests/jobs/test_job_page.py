"""The upload page and a job's page in the admin's language, and the progress of large
uploads: a file over UPLOAD_BACKGROUND_LINES runs as a job whose page polls its state
(JavaScript) or refreshes itself (without)."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from jobs.models import Job
from jobs.progress import cache_key
from studies.models import Item

pytestmark = pytest.mark.django_db
POOL = (
    '{"id": "ck-900", "task": "ck", "stem": "问一", "options": ["甲", "乙"], "answer": 0}\n'
    '{"id": "ck-901", "task": "ck", "stem": "问二", "options": ["甲", "乙"], "answer": 1}\n'
).encode()
ENGLISH_LABELS = ("created", "updated", "unchanged", "progress", "Job ", "problems found", "Pk")


def upload(client, study, content: bytes = POOL, **extra: str):
    file = SimpleUploadedFile("pool.jsonl", content)
    return client.post(
        reverse("admin:upload"), {"kind": "pool", "study": study.pk, "file": file, **extra}
    )


def visible(html: str) -> str:
    html = re.sub(r"(?s)<(script|style|svg|title)[^>]*>.*?</\1>", " ", html)
    return re.sub(r"(?s)<[^>]+>", " ", html)


def test_a_file_over_the_line_limit_loads_as_a_job_with_a_progress_page(
    staff_client, example_study, settings, django_capture_on_commit_callbacks
) -> None:
    settings.UPLOAD_BACKGROUND_LINES = 1
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(staff_client, example_study)  # no "background" ticked
    job = Job.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:jobs_job_change", args=[job.pk])
    assert (job.status, job.done, job.total) == ("done", 2, 2)
    assert Item.objects.filter(external_id__in=["ck-900", "ck-901"]).count() == 2
    page = staff_client.get(response["Location"]).content.decode()
    assert "此文件有 2 行：将在后台导入。" in page


def test_a_small_file_still_loads_while_the_page_waits(staff_client, example_study) -> None:
    page = upload(staff_client, example_study)
    assert page.status_code == 200 and not Job.objects.exists()
    text = visible(page.content.decode())
    assert "文件已导入。" in text and "导入摘要" in text
    assert [w for w in ENGLISH_LABELS if w in text] == []


def test_a_running_jobs_page_polls_its_state_and_refreshes_without_javascript(
    staff_client, example_study
) -> None:
    from django.core.cache import cache

    job = Job.objects.create(kind="pool", study=example_study, status="running", total=20000)
    cache.set(cache_key(job.pk), {"stage": "writing", "done": 5000, "total": 20000})
    html = staff_client.get(reverse("admin:jobs_job_change", args=[job.pk])).content.decode()
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in html
    assert f'data-url="{reverse("jobs:job", args=[job.pk])}"' in html
    assert '<progress max="100" value="25"' in html and "25% 写入中 5000/20000" in html
    stages = re.search(r'<script id="job-stages" type="application/json">(.*?)</script>', html)
    assert stages and json.loads(stages.group(1))["validating"] == "校验中"
    state = staff_client.get(reverse("jobs:job", args=[job.pk])).json()
    assert (state["stage"], state["done"], state["percent"], state["finished"]) == (
        "writing",
        5000,
        25,
        False,
    )
    Job.objects.filter(pk=job.pk).update(status="done", done=20000)
    done = staff_client.get(reverse("admin:jobs_job_change", args=[job.pk])).content.decode()
    assert "http-equiv" not in done and "job-stages" not in done


def test_a_failed_jobs_page_says_so_in_chinese(
    staff_client, example_study, django_capture_on_commit_callbacks
) -> None:
    bad = b'{"id": "x-1", "task": "zz", "stem": "?", "options": ["a", "b"]}\n'
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(staff_client, example_study, bad, background="on")
    page = visible(staff_client.get(response["Location"]).content.decode())
    assert "发现 1 个问题；未导入任何内容。" in page and "作业失败" not in page
    assert [w for w in ENGLISH_LABELS if w in page] == []
    listing = visible(staff_client.get(reverse("admin:jobs_job_changelist")).content.decode())
    assert "编号" in listing and "发现 1 个问题" in listing


def test_an_export_and_a_crash_read_in_chinese_too(staff_client, example_study) -> None:
    export = Job.objects.create(
        kind="export", study=example_study, status="done", summary={"rows": 12, "format": "csv"}
    )
    crash = Job.objects.create(kind="pool", status="failed", message="OSError: disk full")
    url = "admin:jobs_job_change"
    assert (
        "已导出 12 行（csv）。" in staff_client.get(reverse(url, args=[export.pk])).content.decode()
    )
    assert (
        "作业失败：OSError: disk full"
        in staff_client.get(reverse(url, args=[crash.pk])).content.decode()
    )
