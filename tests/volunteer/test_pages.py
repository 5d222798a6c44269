"""The volunteer pages: entry, consent, screening, questions, finish, resume, safety."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

from annotation.models import Participant, Response
from studies.models import Study
from tests.present import present
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db


def test_the_public_link_shows_the_study_and_its_consent() -> None:
    build_study()
    page = Client().get("/s/s/")
    html = page.content.decode()
    assert page.status_code == 200 and "Consent text." in html
    assert 'type="checkbox" name="consent"' in html


def test_consent_must_be_accepted() -> None:
    build_study()
    page = Client().post("/s/s/", {})
    assert page.status_code == 400 and 'aria-invalid="true"' in page.content.decode()
    assert not Participant.objects.exists()


def test_draft_studies_are_a_404_and_closed_ones_say_so() -> None:
    build_study(status=Study.Status.DRAFT)
    build_study(status=Study.Status.CLOSED, slug="old")
    assert Client().get("/s/s/").status_code == 404
    closed = Client().get("/s/old/")
    assert closed.status_code == 200 and "本研究已结束" in closed.content.decode()
    assert Client().post("/s/old/", {"consent": "on"}).status_code == 200
    assert not Participant.objects.exists()


def test_consent_then_resume_code_then_screening_then_questions() -> None:
    build_study()
    v = Volunteer("s")
    v.consent()
    p = Participant.objects.get()
    assert v.resume_code == p.resume_code and p.consent_text == "Consent text."
    assert v.client.get(v.url("q/"))["Location"] == v.url("screening/")
    assert v.screen(1).url == v.url("q/")
    instructions = v.client.get(v.url("q/")).content.decode()
    assert "Do the choice task." in instructions and "Style X" in instructions  # guide shown
    finish = v.complete()
    assert re.search(r'id="completion-code">[A-Z0-9-]+<', finish.content.decode())
    p.refresh_from_db()
    assert present(p.group).slug == "B" and p.status == "finished"


def test_an_invitation_skips_screening_and_places_the_group() -> None:
    study = build_study()
    group = study.groups.get(slug="B")
    v = Volunteer("s")
    v.consent(entry=f"/s/s/i/{group.invite_token}/")
    assert Participant.objects.get().group == group
    assert v.client.get(v.url("q/")).status_code == 200  # instructions, no screening
    assert Client().get("/s/s/i/not-a-token/").status_code == 404


@pytest.mark.parametrize("kind", ["choice", "multi", "best_worst", "rating"])
def test_every_question_kind_renders_as_accessible_radio_groups(kind: str) -> None:
    build_study(kinds=(kind,))
    v = Volunteer("s")
    v.consent()
    v.screen()
    html = v.question_page().content.decode()
    assert "<fieldset" in html and "<legend>" in html
    for name in re.findall(r'<input type="radio" name="(f-[^"]+)"', html):
        assert name in {"f-answer", "f-best", "f-worst", "f-who", "f-what", "f-beauty", "f-form"}
    if kind == "rating":
        assert "Beauty" in html and "How beautiful" in html and 'class="poem"' in html
    if kind == "best_worst":
        assert 'name="f-best"' in html and 'name="f-worst"' in html


def test_a_missing_part_re_renders_the_form_with_the_choices_kept() -> None:
    build_study(kinds=("rating",))
    v = Volunteer("s")
    v.consent()
    v.screen()
    _, assignment, _ = v.form_of(v.question_page())
    page = v.client.post(v.url("q/"), {"assignment": assignment, "f-beauty": "4"})
    html = page.content.decode()
    assert page.status_code == 400
    assert re.search(r'name="f-beauty" value="4" required checked', html)
    assert 'fieldset class="field invalid scale" data-field="form"' in html
    assert not Response.objects.exists()


def test_best_and_worst_must_differ() -> None:
    build_study(kinds=("best_worst",))
    v = Volunteer("s")
    v.consent()
    v.screen()
    _, assignment, _ = v.form_of(v.question_page())
    page = v.client.post(v.url("q/"), {"assignment": assignment, "f-best": "1", "f-worst": "1"})
    assert page.status_code == 400 and not Response.objects.exists()


def test_a_failed_save_says_so_and_keeps_the_answer_for_a_retry() -> None:
    build_study()
    v = Volunteer("s")
    v.consent()
    v.screen()
    _, assignment, _ = v.form_of(v.question_page())
    data = {"assignment": assignment, "f-answer": "2"}
    with mock.patch(
        "annotation.hotpath.store_answer",
        side_effect=OperationalError("disk I/O error"),
    ):
        page = v.client.post(v.url("q/"), data)
    html = page.content.decode()
    assert page.status_code == 503 and 'role="alert"' in html
    assert re.search(r'name="f-answer" value="2" required checked', html)
    assert not Response.objects.exists()
    assert v.client.post(v.url("q/"), data).status_code == 302  # the retry saves it
    assert Response.objects.count() == 1


def test_a_double_submitted_answer_is_stored_once() -> None:
    build_study()
    v = Volunteer("s")
    v.consent()
    v.screen()
    _, assignment, _ = v.form_of(v.question_page())
    data = {"assignment": assignment, "f-answer": "1"}
    assert v.client.post(v.url("q/"), data).status_code == 302
    assert v.client.post(v.url("q/"), data).status_code == 302
    assert Response.objects.count() == 1
    changed = v.client.post(v.url("q/"), {**data, "f-answer": "3"}, follow=True)
    assert Response.objects.get().value in {0, 1, 2, 3}
    assert Response.objects.count() == 1 and "已保留您的第一次回答" in changed.content.decode()


def test_closing_the_browser_and_resuming_with_the_code() -> None:
    build_study()
    v = Volunteer("s")
    v.consent()
    v.screen()
    v.answer_current()
    fresh = Volunteer("s")  # another browser: no cookie
    assert fresh.client.get(fresh.url("q/"))["Location"] == fresh.url()
    wrong = fresh.client.post(fresh.url("resume/"), {"code": "NOPE"})
    assert wrong.status_code == 400
    back = fresh.client.post(fresh.url("resume/"), {"code": v.resume_code.lower()})
    assert back["Location"] == fresh.url("q/")
    assert "已答 1 /" in fresh.client.get(fresh.url("q/")).content.decode()


def test_answer_keys_and_explanations_never_reach_the_page() -> None:
    build_study(kinds=("choice", "multi", "best_worst"), per_participant=2, shuffle_options=True)
    v = Volunteer("s")
    v.consent()
    v.screen()
    for _ in range(6):
        page = v.question_page()
        html = page.content.decode()
        assert "SECRET-EXPLANATION" not in html and "correct" not in html.lower()
        for leak in ('{"answer"', "{'answer'", "&#x27;answer&#x27;:", '"best":', '"who":'):
            assert leak not in html
        v.client.post(v.url("q/"), Volunteer.answer_data(*Volunteer.form_of(page)))


def test_a_participant_cannot_answer_with_another_participants_assignment() -> None:
    build_study()
    alice, mallory = Volunteer("s"), Volunteer("s")
    for v in (alice, mallory):
        v.consent()
        v.screen()
    _, alices, _ = alice.form_of(alice.question_page())
    mallory.question_page()
    page = mallory.client.post(
        mallory.url("q/"), {"assignment": alices, "f-answer": "0"}, follow=True
    )
    assert "不属于您" in page.content.decode()
    assert not Response.objects.exists()


def test_the_interface_speaks_chinese_first_and_english_on_request() -> None:
    build_study()
    client = Client()
    assert "同意并开始" in client.get("/s/s/").content.decode()
    client.post("/i18n/setlang/", {"language": "en", "next": "/s/s/"})
    english = client.get("/s/s/").content.decode()
    assert "Agree and start" in english and 'lang="en"' in english
