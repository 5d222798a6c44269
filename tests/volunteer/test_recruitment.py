"""Recruitment platforms: their ids from the entry link kept on the participant (exported,
shown to nobody), and the finish page sending the volunteer back with the code."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from annotation.exports import COLUMNS, export_rows
from annotation.models import Participant, Rater
from studies.recruitment import completion_link, recruitment_params
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db
PROLIFIC = "?PROLIFIC_PID=5f1a2b3c4d&STUDY_ID=s-77&SESSION_ID=x%20y&utm_source=ad"
PROLIFIC_URL = "https://app.prolific.com/submissions/complete?cc={code}&p={PROLIFIC_PID}"


def test_a_platforms_ids_in_the_link_are_kept_on_the_participant_and_shown_to_nobody() -> None:
    build_study(completion_url=PROLIFIC_URL)
    v = Volunteer("s")
    welcome = v.client.get(f"/s/s/{PROLIFIC}")
    assert welcome.status_code == 200
    pages = [v.consent(entry=f"/s/s/{PROLIFIC}").content.decode()]
    p = Participant.objects.get()
    assert p.recruitment == {"PROLIFIC_PID": "5f1a2b3c4d", "STUDY_ID": "s-77", "SESSION_ID": "x y"}
    pages.append(v.client.get(v.url("screening/")).content.decode())
    v.screen()
    pages.append(v.question_page().content.decode())
    finish = v.complete()
    html = finish.content.decode()
    assert all("5f1a2b3c4d" not in page and "s-77" not in page for page in pages)
    # The finish page: the code, then (no script needed) back to the platform with it.
    p.refresh_from_db()
    link = f"https://app.prolific.com/submissions/complete?cc={p.completion_code}&amp;p=5f1a2b3c4d"
    assert f'<meta http-equiv="refresh" content="5; url={link}">' in html
    assert f'id="completion-link" href="{link}"' in html
    assert f'id="completion-code">{p.completion_code}<' in html


def test_a_generic_pid_on_an_invitation_is_kept_too() -> None:
    study = build_study()
    token = study.groups.get(slug="B").invite_token
    response = Client().post(f"/s/s/i/{token}/?pid=abc-123", {"consent": "on"})
    assert response.status_code == 302
    assert Participant.objects.get().recruitment == {"pid": "abc-123"}


def test_no_completion_url_no_redirect() -> None:
    build_study()
    v = Volunteer("s")
    v.consent()
    v.screen()
    html = v.complete().content.decode()
    assert "http-equiv" not in html and "completion-link" not in html
    assert "如果您是通过招募平台参加的" in html


def test_only_known_parameters_are_kept_cut_to_a_sane_length() -> None:
    query = {
        "PROLIFIC_PID": "a" * 500,
        "pid": " x\u0000y ",
        "email": "me@example.org",
        "STUDY_ID": "",
    }
    assert recruitment_params(query) == {"PROLIFIC_PID": "a" * 100, "pid": "xy"}


def test_the_completion_link_encodes_what_it_fills_in() -> None:
    link = completion_link(PROLIFIC_URL, code="AB&C", params={"PROLIFIC_PID": "a b"})
    assert link == "https://app.prolific.com/submissions/complete?cc=AB%26C&p=a%20b"
    assert completion_link("https://x.org/{pid}", code="C", params={}) == "https://x.org/"


def test_the_api_takes_the_platforms_ids_at_enrolment() -> None:
    from rest_framework.test import APIClient

    build_study()
    body = {
        "consent": True,
        "screening": {"bg": 0},
        "recruitment": {"PROLIFIC_PID": "p1", "x": "y"},
    }
    reply = APIClient().post("/api/v1/volunteer/studies/s/enrol/", body, format="json")
    # the platform's ids are never echoed: no value of the reply is one (a substring test
    # would trip on a random token that happens to contain "p1")
    assert reply.status_code == 201 and "p1" not in reply.json().values()
    assert "PROLIFIC_PID" not in reply.content.decode() and "recruitment" not in reply.json()
    assert Participant.objects.get().recruitment == {"PROLIFIC_PID": "p1"}


def test_the_export_carries_them_and_loading_it_back_restores_them(tmp_path: Path) -> None:
    build_study()
    v = Volunteer("s")
    v.consent(entry="/s/s/?PROLIFIC_PID=pp9")
    v.screen()
    v.answer_current()
    study = Participant.objects.get().study
    rows = list(export_rows(study))
    assert COLUMNS[-1] == "recruitment" and {r[-1] for r in rows} == {'{"PROLIFIC_PID": "pp9"}'}
    out = tmp_path / "export.csv"
    call_command(
        "export_responses", "s", "--format", "csv", "--out", str(out), stderr=io.StringIO()
    )
    cells = {r["recruitment"] for r in csv.DictReader(io.StringIO(out.read_text("utf-8")))}
    assert cells == {'{"PROLIFIC_PID": "pp9"}'}
    # Into a database without that participant: it comes back with its platform id.
    Rater.objects.filter(kind="human").delete()  # its participant and responses with it
    call_command("load_responses", str(out), "--study", "s", stdout=io.StringIO())
    again = Participant.objects.get()
    assert again.entry == "import" and again.recruitment == {"PROLIFIC_PID": "pp9"}
    assert [r[1:] for r in export_rows(study)] == [r[1:] for r in rows]


def test_a_bad_recruitment_cell_is_passed_over_on_import(tmp_path: Path) -> None:
    build_study()
    v = Volunteer("s")
    v.consent()
    v.screen()
    v.answer_current()
    study = Participant.objects.get().study
    lines = [dict(zip(COLUMNS, r, strict=True)) for r in export_rows(study)]
    Rater.objects.filter(kind="human").delete()
    path = tmp_path / "export.jsonl"
    lines[0]["recruitment"] = "{not json"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), "utf-8")
    call_command("load_responses", str(path), "--study", "s", stdout=io.StringIO())
    assert Participant.objects.get().recruitment == {}


def test_the_resume_code_page_shows_no_platform_id() -> None:
    # The resume code and the completion code are the only codes a page shows.
    build_study()
    v = Volunteer("s")
    html = v.consent(entry="/s/s/?pid=SECRET-ID").content.decode()
    assert "SECRET-ID" not in html and re.search(r'id="resume-code"', html)
