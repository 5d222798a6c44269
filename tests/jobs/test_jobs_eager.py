"""Background jobs without a broker (the embedded default): they run in-process at once,
with the same outcome a worker would record: a summary, or the file's problems and an
unchanged database."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Response
from jobs.models import Job
from studies.models import Item
from tests.loading.helpers import snapshot

pytestmark = pytest.mark.django_db
GOOD_POOL = (
    b'{"id": "ck-900", "task": "ck", "stem": "\xe9\x97\xae", "options": ["a", "b"], "answer": 1}\n'
    b'{"id": "ck-901", "task": "ck", "stem": "\xe9\x97\xae", "options": ["a", "b"], "answer": 0}\n'
)
BAD_POOL = GOOD_POOL + b'{"id": "ck-902", "task": "zz", "stem": "x"}\nnot json\n'


def upload(client, study, content: bytes, name: str = "pool.jsonl", kind: str = "pool"):
    data = {"kind": kind, "study": study.pk, "file": SimpleUploadedFile(name, content)}
    return client.post(reverse("admin:upload"), {**data, "background": "on"})


def test_background_upload_creates_a_job_that_loads_the_file_and_records_its_summary(
    staff_client, example_study, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(staff_client, example_study, GOOD_POOL)
    job = Job.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:jobs_job_change", args=[job.pk])
    assert (job.kind, job.status, job.study, job.created_by) == (
        "pool",
        "done",
        example_study,
        staff_client.user,
    )
    assert job.summary["created"] == 2 and "2 created" in job.message
    assert job.done == job.total == 2 and job.percent == 100
    assert Item.objects.filter(external_id__in=["ck-900", "ck-901"]).count() == 2
    page = staff_client.get(response["Location"]).content.decode()
    assert '<th scope="row">新建</th><td>2</td>' in page and 'value="100"' in page
    assert "文件已导入。" in page  # the outcome, in the admin's language


def test_background_upload_of_a_bad_file_fails_with_every_problem_and_changes_nothing(
    staff_client, example_study, django_capture_on_commit_callbacks
) -> None:
    before = snapshot()
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(staff_client, example_study, BAD_POOL, name="bad.jsonl")
    job = Job.objects.get()
    assert job.status == "failed" and job.summary["problem_count"] == 2
    assert {(p["file"], p["line"], p["field"]) for p in job.summary["problems"]} == {
        ("bad.jsonl", 3, "task"),
        ("bad.jsonl", 4, None),
    }
    assert "2 problems found; nothing was loaded." in job.message
    assert snapshot() == before
    page = staff_client.get(response["Location"]).content.decode()
    assert 'id="problems"' in page and "&#x27;zz&#x27; 不是本研究的任务" in page  # zh-Hans admin


def test_upload_without_background_still_loads_at_once(staff_client, example_study) -> None:
    url = reverse("admin:upload")
    file = SimpleUploadedFile("pool.jsonl", GOOD_POOL)
    page = staff_client.post(url, {"kind": "pool", "study": example_study.pk, "file": file})
    html = page.content.decode()
    assert page.status_code == 200 and '<th scope="row">新建</th><td>2</td>' in html
    assert not Job.objects.exists()


def test_load_command_with_background_runs_a_job(
    example_study, tmp_path, django_capture_on_commit_callbacks
) -> None:
    path = tmp_path / "pool.jsonl"
    path.write_bytes(GOOD_POOL)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_pool", str(path), "--study", example_study.slug, "--background")
    job = Job.objects.get()
    assert (job.kind, job.status, job.summary["created"]) == ("pool", "done", 2)
    assert job.params["name"] == str(path)  # problems name the file as given
    assert job.params["path"].startswith("uploads/")  # the copy, relative to DATA_DIR


@pytest.mark.django_db(transaction=True)
def test_load_command_with_background_fails_loudly_on_a_bad_file(example_study, tmp_path) -> None:
    # Outside a transaction (as in a real command) the job runs at once and fails.
    path = tmp_path / "bad.jsonl"
    path.write_bytes(BAD_POOL)
    before = snapshot()
    with pytest.raises(CommandError, match="2 problems found; nothing was loaded"):
        call_command("load_pool", str(path), "--study", example_study.slug, "--background")
    assert Job.objects.get().status == "failed"
    assert snapshot() == before


def test_study_definition_job_links_the_job_to_the_study(
    formats_dir, django_capture_on_commit_callbacks, db
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_study", str(formats_dir / "study.json"), "--background")
    job = Job.objects.get()
    assert job.status == "done" and job.study is not None
    assert job.study.slug == "poetry-understanding"


def test_rule_scoring_job_scores_every_poem(
    example_study, django_capture_on_commit_callbacks
) -> None:
    Response.objects.filter(rater__kind="rule").delete()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("score_poems", example_study.slug, "--background")
    job = Job.objects.get()
    poems = Item.objects.filter(study=example_study).exclude(poem_text="").count()
    assert job.status == "done" and job.summary["rows"] == poems > 0
    assert job.done == job.total == poems and job.stage == "scoring"
    assert Response.objects.filter(rater__kind="rule").exists()


def test_export_job_writes_the_file_under_data_dir_and_serves_it(
    staff_client, example_study, data_dir, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("export_responses", example_study.slug, "--format", "csv", "--background")
    job = Job.objects.get()
    n = Response.objects.filter(study=example_study).count()
    assert job.status == "done" and job.summary == {"rows": n, "format": "csv"}
    assert job.result_file == f"exports/{example_study.slug}-job{job.pk}.csv"
    assert (data_dir / job.result_file).is_file()
    download = staff_client.get(reverse("jobs:job-download", args=[job.pk]))
    body = b"".join(download.streaming_content).decode()
    assert body.startswith("\ufeffstudy,task,item,rater_kind") and body.count("\n") == n + 1


@pytest.mark.parametrize("fmt", ["json", "xlsx"])
def test_report_job_writes_the_report(
    example_study, django_capture_on_commit_callbacks, fmt: str
) -> None:
    from jobs.services import job_submit

    with django_capture_on_commit_callbacks(execute=True):
        job = job_submit(kind="report", study=example_study, params={"format": fmt})
    job.refresh_from_db()
    assert job.status == "done", job.message
    assert job.result_file.endswith(f".{fmt}") and "accuracy" in job.summary["tables"]
