"""Files uploaded for background loads do not pile up: each is deleted UPLOAD_KEEP_DAYS
after it was uploaded, once no queued or running job needs it (when any job ends, and by
``manage.py purge_uploads``). Before, they were never deleted (34 MB per 150,000-line
upload)."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from jobs.models import Job
from jobs.services import load_submit, upload_save, uploads_purge
from tests.conftest import FORMATS

pytestmark = pytest.mark.django_db


def _age(path: Path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then))


def test_a_finished_jobs_upload_is_kept_for_its_days_then_deleted(
    example_study, settings, data_dir, django_capture_on_commit_callbacks
) -> None:
    settings.UPLOAD_KEEP_DAYS = 7
    content = (FORMATS / "pool.jsonl").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        job = load_submit(kind="pool", name="pool.jsonl", content=content, study=example_study)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE
    upload = Path(data_dir) / job.params["path"]
    assert upload.exists()  # kept: younger than 7 days
    _age(upload, 8)
    out = io.StringIO()
    call_command("purge_uploads", stdout=out)
    assert "1 uploaded file(s) deleted" in out.getvalue()
    assert not upload.exists() and not any((Path(data_dir) / "uploads").rglob("*"))
    job.refresh_from_db()
    assert job.params["purged"] is True


def test_with_zero_days_a_job_removes_its_upload_when_it_ends(
    example_study, settings, data_dir, django_capture_on_commit_callbacks
) -> None:
    settings.UPLOAD_KEEP_DAYS = 0
    content = (FORMATS / "pool.jsonl").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        job = load_submit(kind="pool", name="pool.jsonl", content=content, study=example_study)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and not (Path(data_dir) / job.params["path"]).exists()


def test_an_upload_a_waiting_job_needs_is_never_deleted(example_study, data_dir) -> None:
    relative = upload_save("pool.jsonl", b"{}")
    Job.objects.create(kind="pool", study=example_study, params={"path": relative})
    _age(Path(data_dir) / relative, 30)
    assert uploads_purge(keep_days=0) == 0
    assert (Path(data_dir) / relative).exists()


def test_job_messages_are_in_the_admins_language(
    example_study, django_capture_on_commit_callbacks
) -> None:
    """A job runs in the site's language (zh-Hans): its message and a load's notes read
    in Chinese on the admin's pages. Before, "N rows exported to …" and the notes of
    released claims and drafts were English only."""
    from django.utils import translation

    from jobs.loads import file_load
    from studies.loading.readers import Source

    with translation.override("zh-hans"), django_capture_on_commit_callbacks(execute=True):
        call_command(
            "export_responses", example_study.slug, "--format", "csv", "--background",
            stdout=io.StringIO(),
        )  # fmt: skip
        study = (FORMATS / "study.json").read_bytes().replace(b"poetry-understanding", b"s-zh")
        summary = file_load(kind="study", source=Source("s.json", study, "json"))
    job = Job.objects.get(kind="export")
    assert job.message.startswith("已导出")
    assert next(n.message for n in summary.notes if n.code == "study_draft").startswith(
        "该研究是草稿"
    )
