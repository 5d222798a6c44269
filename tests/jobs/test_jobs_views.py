"""Following a job: the JSON the dashboard polls (only for those who may see the study),
the admin's list with progress bars and filters, and live progress from the loaders."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.db import transaction
from django.urls import reverse

from jobs.models import Job
from jobs.progress import JobProgress, live_progress
from studies.loading.progress import progress

pytestmark = pytest.mark.django_db


@pytest.fixture
def running_job(example_study, django_user_model):
    owner = django_user_model.objects.create_user("owner", password="pw", is_staff=True)
    return Job.objects.create(
        kind="pool", study=example_study, status="running", done=5, total=20, created_by=owner
    )


def test_job_json_shows_status_and_progress_to_the_studys_researchers(
    client, running_job, django_user_model
) -> None:
    researcher = django_user_model.objects.create_user("r", password="pw", is_staff=True)
    running_job.study.researchers.add(researcher)
    client.force_login(researcher)
    data = client.get(reverse("jobs:job", args=[running_job.pk])).json()
    assert data["status"] == "running" and data["finished"] is False
    assert (data["done"], data["total"], data["percent"]) == (5, 20, 25)
    assert data["study"] == "poetry-understanding" and data["result"] is None


def test_job_json_is_a_404_for_anyone_else(client, running_job, django_user_model) -> None:
    url = reverse("jobs:job", args=[running_job.pk])
    assert client.get(url).status_code == 404  # anonymous
    stranger = django_user_model.objects.create_user("s", password="pw", is_staff=True)
    client.force_login(stranger)
    assert client.get(url).status_code == 404
    assert client.get(reverse("jobs:job-download", args=[running_job.pk])).status_code == 404
    # its creator sees it while the study is shared with them (below), not otherwise
    client.force_login(running_job.created_by)
    assert client.get(url).status_code == 404


def test_a_researcher_removed_from_a_study_no_longer_sees_the_jobs_they_started(
    client, example_study, django_user_model, settings, tmp_path
) -> None:
    """Before, the job's creator kept its state, summary and result file (a report's
    tables, an export's responses) through /research/jobs/ and the admin after the study
    was no longer shared with them."""
    settings.DATA_DIR = tmp_path
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "responses.csv").write_text("participant\np-1\n")
    researcher = django_user_model.objects.create_user("r", password="pw", is_staff=True)
    researcher.user_permissions.add(Permission.objects.get(codename="view_job"))
    example_study.researchers.add(researcher)
    job = Job.objects.create(
        kind="export",
        study=example_study,
        status="done",
        created_by=researcher,
        result_file="exports/responses.csv",
    )
    client.force_login(researcher)
    status = reverse("jobs:job", args=[job.pk])
    download = reverse("jobs:job-download", args=[job.pk])
    admin_page = reverse("admin:jobs_job_change", args=[job.pk])
    assert client.get(status).status_code == 200
    assert client.get(download).status_code == 200
    assert client.get(admin_page).status_code == 200
    example_study.researchers.remove(researcher)
    assert client.get(status).status_code == 404
    assert client.get(download).status_code == 404
    assert client.get(admin_page).status_code == 302  # "no such job" (Django's admin)
    listed = client.get(reverse("admin:jobs_job_changelist")).context["cl"].result_list
    assert job not in list(listed)


def test_the_creator_of_a_job_without_a_study_sees_it(client, django_user_model) -> None:
    owner = django_user_model.objects.create_user("o", password="pw", is_staff=True)
    job = Job.objects.create(kind="study", status="running", created_by=owner)
    client.force_login(owner)
    assert client.get(reverse("jobs:job", args=[job.pk])).status_code == 200


def test_admin_lists_jobs_with_progress_bars_and_filters_by_status_and_kind(
    admin_client, running_job
) -> None:
    Job.objects.create(kind="export", status="failed", message="boom")
    url = reverse("admin:jobs_job_changelist")
    html = admin_client.get(url).content.decode()
    assert '<progress max="100" value="25"' in html and "5/20" in html
    assert "boom" in html
    running = admin_client.get(url, {"status__exact": "running"}).content.decode()
    assert "boom" not in running and "5/20" in running
    exports = admin_client.get(url, {"kind__exact": "export"}).content.decode()
    assert "boom" in exports and "5/20" not in exports
    assert 'http-equiv="refresh"' in html  # the list refreshes while a job runs
    page = admin_client.get(reverse("admin:jobs_job_change", args=[running_job.pk]))
    assert 'http-equiv="refresh"' in page.content.decode()  # so does the job's page
    Job.objects.update(status="done")
    assert 'http-equiv="refresh"' not in admin_client.get(url).content.decode()


def test_progress_hook_reports_to_a_callback_at_the_start_every_n_and_at_the_end() -> None:
    calls: list[tuple[str, int, int | None]] = []
    items = list(progress(range(5), False, "writing", callback=lambda *a: calls.append(a), every=2))
    assert items == [0, 1, 2, 3, 4]
    assert calls == [("writing", 0, 5), ("writing", 2, 5), ("writing", 4, 5), ("writing", 5, 5)]


def test_job_progress_goes_to_the_row_outside_a_transaction_and_to_the_cache_inside(
    running_job,
) -> None:
    reporter = JobProgress(running_job.pk, min_interval=0)
    # The test itself runs in a transaction, as a loader's writing phase does: the row
    # keeps its old values, but live progress (what the admin and JSON show) moves on.
    reporter("writing", 15, 20)
    running_job.refresh_from_db()
    assert (running_job.done, live_progress(running_job)["done"]) == (5, 15)
    assert live_progress(running_job)["percent"] == 75


@pytest.mark.django_db(transaction=True)
def test_job_progress_is_written_to_the_row_when_no_transaction_is_open(example_study) -> None:
    job = Job.objects.create(kind="pool", study=example_study, status="running")
    assert not transaction.get_connection().in_atomic_block
    JobProgress(job.pk)("validating", 0, 10)
    job.refresh_from_db()
    assert (job.stage, job.done, job.total) == ("validating", 0, 10)
