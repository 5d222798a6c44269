"""A loaded study is a draft: closed to volunteers and unlisted until a researcher opens it
(``load_study --open`` or the admin's action); the home page lists only open studies
marked ``listed``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from studies.models import Study

pytestmark = pytest.mark.django_db


def _load(path: Path, *args: str) -> str:
    out = io.StringIO()
    call_command("load_study", str(path), *args, stdout=out)
    return out.getvalue()


def _study_file(tmp_path: Path, formats_dir: Path, **changes: object) -> Path:
    data = json.loads((formats_dir / "study.json").read_text(encoding="utf-8"))
    data.update(changes)
    path = tmp_path / "study.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_loaded_study_is_a_draft_volunteers_cannot_open_and_the_home_page_does_not_list(
    formats_dir: Path,
) -> None:
    out = _load(formats_dir / "study.json")
    study = Study.objects.get(slug="poetry-understanding")
    assert (study.status, study.listed) == ("draft", False)
    # the note speaks the site's language (LANGUAGE_CODE, zh-hans by default)
    assert ("The study is a draft" in out or "草稿" in out) and "load_study --open" in out
    assert Client().get("/s/poetry-understanding/").status_code == 404
    assert "poetry-understanding" not in Client().get("/").content.decode()


def test_load_study_open_opens_it_and_a_reload_keeps_it_open(formats_dir: Path) -> None:
    out = _load(formats_dir / "study.json", "--open")
    assert (
        "Study 'poetry-understanding' is open to volunteers." in out
        or "研究 'poetry-understanding' 已向志愿者开放。" in out
    )
    assert "is a draft" not in out and "该研究是草稿" not in out
    assert Study.objects.get().status == "open"
    assert Client().get("/s/poetry-understanding/").status_code == 200
    assert "poetry-understanding" not in Client().get("/").content.decode()  # not listed
    _load(formats_dir / "study.json")  # a reload without a status changes no status
    assert Study.objects.get().status == "open"


def test_a_dry_run_with_open_opens_nothing_and_open_refuses_background(
    formats_dir: Path,
) -> None:
    _load(formats_dir / "study.json", "--open", "--dry-run")
    assert not Study.objects.exists()
    with pytest.raises(CommandError, match="--open cannot be combined with --background"):
        _load(formats_dir / "study.json", "--open", "--background")


def test_the_file_may_set_the_status_and_list_the_study(tmp_path: Path, formats_dir: Path) -> None:
    path = _study_file(tmp_path, formats_dir, status="open", listed=True)
    out = _load(path)
    assert "is a draft" not in out
    study = Study.objects.get()
    assert (study.status, study.listed) == ("open", True)
    home = Client().get("/").content.decode()
    assert 'href="/s/poetry-understanding/"' in home and "古诗词理解测试" in home
    Study.objects.update(status="closed")
    assert "poetry-understanding" not in Client().get("/").content.decode()


def test_listed_must_be_true_or_false(tmp_path: Path, formats_dir: Path) -> None:
    with pytest.raises(CommandError, match=r"line 1, field 'listed': must be true or false"):
        _load(_study_file(tmp_path, formats_dir, listed="yes"))


def test_the_admin_action_opens_drafts(admin_client: Client, formats_dir: Path) -> None:
    _load(formats_dir / "study.json")
    study = Study.objects.get()
    page = admin_client.post(
        "/admin/studies/study/",
        {"action": "open_studies", "_selected_action": [study.pk]},
        follow=True,
    )
    assert page.status_code == 200
    study.refresh_from_db()
    assert study.status == "open"
    assert Client().get("/s/poetry-understanding/").status_code == 200


@pytest.mark.slow
def test_the_demo_comes_up_open_and_listed() -> None:
    call_command("demo", "--no-users", stdout=io.StringIO())
    study = Study.objects.get(slug="song-ci-demo")
    assert (study.status, study.listed) == ("open", True)
    assert 'href="/s/song-ci-demo/"' in Client().get("/").content.decode()
