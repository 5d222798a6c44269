"""The admin's upload page with hostile files: always a page (200) or a redirect to the
job, never a 500; every refused file lists its problems and changes nothing."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from jobs.models import Job
from tests.fuzz.strategies import FUZZ, fixture_records, hostile_bytes, jsonl, mutants
from tests.loading.helpers import snapshot

pytestmark = pytest.mark.django_db
KINDS = st.sampled_from(["study", "pool", "llm_outputs", "responses"])
NAMES = st.sampled_from(["f.jsonl", "f.csv", "f.json", "f.yaml", "f.txt", "<b>x</b>.jsonl"])
FILES = st.one_of(hostile_bytes(), jsonl(mutants(fixture_records("pool.jsonl"), ["id"])))


@pytest.fixture
def staff(client, django_user_model, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    client.force_login(user)
    return client


@pytest.mark.slow
@settings(FUZZ, max_examples=max(10, FUZZ.max_examples // 3))  # each is a whole request
@given(kind=KINDS, name=NAMES, content=FILES, background=st.booleans())
def test_upload_page_never_fails_on_a_hostile_file(
    staff,
    example_study,
    django_capture_on_commit_callbacks,
    kind: str,
    name: str,
    content: bytes,
    background: bool,
) -> None:
    before = snapshot()
    data = {"kind": kind, "study": example_study.pk, "file": SimpleUploadedFile(name, content)}
    if background:
        data["background"] = "on"
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(reverse("admin:upload"), data)
    assert response.status_code in (200, 302)
    html = response.content.decode()
    if response.status_code == 200 and 'id="problems"' in html:
        assert snapshot() == before and "<b>x</b>" not in html
    if response.status_code == 302:  # the job ran at once (no broker): done or refused
        job = Job.objects.latest("pk")
        assert job.status in ("done", "failed"), job.message
        if job.status == "failed":  # a refused file, never an unexpected error
            assert job.summary.get("problems") and "error" not in job.summary, job.message
            assert snapshot() == before
