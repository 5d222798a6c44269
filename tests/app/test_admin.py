"""The admin: every model browsable, searchable and filterable; poems readable; uploads."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from studies.models import Item, Study
from tests.loading.helpers import snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model, example_study):
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    client.force_login(user)
    return client


def test_every_registered_model_has_a_working_changelist_with_search(staff_client) -> None:
    for model, model_admin in admin.site._registry.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert staff_client.get(url).status_code == 200, url
        if model_admin.search_fields:
            assert staff_client.get(url, {"q": "诗"}).status_code == 200, url


def test_item_page_shows_the_poem_with_its_line_breaks(staff_client, formats_dir, tmp_path) -> None:
    item = Item.objects.get(external_id="poem-0001")
    item.poem_text = "深院晓莺惊梦残，\n帘外雨潺潺。<script>x</script>"
    item.save()
    html = staff_client.get(reverse("admin:studies_item_change", args=[item.pk])).content.decode()
    assert "深院晓莺惊梦残，\n帘外雨潺潺。" in html
    assert "<script>x</script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html


def test_upload_page_loads_a_file_and_reports_problems_without_writing(
    staff_client, example_study
) -> None:
    url = reverse("admin:upload")
    assert staff_client.get(url).status_code == 200
    good = SimpleUploadedFile("llm.jsonl", b'{"model": "m", "item": "ck-001", "answer": 0}\n')
    page = staff_client.post(
        url, {"kind": "llm_outputs", "study": example_study.pk, "file": good}, follow=True
    )
    html = page.content.decode()
    assert "文件已导入。" in html and '<th scope="row">新建</th><td>2</td>' in html
    before = snapshot()
    bad = SimpleUploadedFile(
        "bad.jsonl",
        b'{"model": "m", "item": "ck-001", "answer": 0}\n{"model": "m", "item": "zz", "answer": 0}\n',
    )
    page = staff_client.post(url, {"kind": "llm_outputs", "study": example_study.pk, "file": bad})
    html = page.content.decode()
    assert "bad.jsonl" in html and "中没有题目 &#x27;zz&#x27;" in html and "<td>2</td>" in html
    assert snapshot() == before


def test_upload_page_is_for_staff_only(client, example_study) -> None:
    response = client.get(reverse("admin:upload"))
    assert response.status_code == 302 and "/login/" in response["Location"]


@pytest.mark.slow
def test_study_changelist_lists_the_demo_study(staff_client) -> None:
    from django.core.management import call_command

    call_command("demo", "--no-users")
    html = staff_client.get(reverse("admin:studies_study_changelist")).content.decode()
    assert "song-ci-demo" in html and Study.objects.filter(slug="song-ci-demo").exists()
