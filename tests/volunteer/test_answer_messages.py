"""The answer rule speaks the volunteer's language: the question page shows its own
messages beside the field they are about, and the API answers in the request's language.
The page checks nothing itself: every check is the rule's (studies.kinds)."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import translation

from annotation.forms import read_answer
from annotation.models import Response
from studies.kinds import KINDS
from studies.loading.problems import Collector
from studies.values import parse_index
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer
from tests.volunteer.test_api import enrolled

pytestmark = pytest.mark.django_db


def field_error(html: str, key: str) -> str:
    found = re.search(rf'<p class="error" id="err-{key}">([^<]*)</p>', html)
    return found.group(1) if found else ""


def question(kind: str, language: str | None = None) -> tuple[Volunteer, str]:
    build_study(kinds=(kind,))
    v = Volunteer("s")
    if language:
        v.client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    v.consent()
    v.screen()
    _, assignment, _ = v.form_of(v.question_page())
    return v, assignment


def test_the_page_shows_the_rules_chinese_message_beside_the_field() -> None:
    v, assignment = question("best_worst")
    page = v.client.post(v.url("q/"), {"assignment": assignment, "f-best": "1", "f-worst": "1"})
    html = page.content.decode()
    assert page.status_code == 400 and not Response.objects.exists()
    assert field_error(html, "worst") == "最好和最差必须是不同的选项"
    assert field_error(html, "best") == ""
    assert 'class="field invalid compact" data-field="worst"' in html


def test_a_missing_rating_is_named_on_its_own_field() -> None:
    v, assignment = question("rating")
    page = v.client.post(v.url("q/"), {"assignment": assignment, "f-beauty": "4"})
    html = page.content.decode()
    assert page.status_code == 400
    assert (
        field_error(html, "form") == "未评分：请选择一个分数" and field_error(html, "beauty") == ""
    )
    assert "请完成标出的部分。" in html


def test_the_page_speaks_english_to_an_english_volunteer() -> None:
    v, assignment = question("choice", language="en")
    page = v.client.post(v.url("q/"), {"assignment": assignment})
    assert page.status_code == 400
    assert field_error(page.content.decode(), "answer") == "is missing: choose an option"


def test_a_problem_with_no_field_is_said_above_the_question() -> None:
    v, assignment = question("choice")
    closed = ValidationError("This study is closed and no longer takes answers.", "closed")
    with mock.patch("annotation.services.response_submit", side_effect=closed):
        page = v.client.post(v.url("q/"), {"assignment": assignment, "f-answer": "1"})
    html = page.content.decode()
    assert page.status_code == 400
    # Said above the question, and the page opens on it (no part is at fault).
    assert (
        '<p class="error" role="alert" id="problem" tabindex="-1" autofocus>'
        "This study is closed and no longer takes answers.</p>" in html
    )
    assert "请完成标出的部分。" not in html and html.count("autofocus") == 1


@pytest.mark.parametrize(
    ("language", "message"),
    [("zh-hans", "最好和最差必须是不同的选项"), ("en", "best and worst must be different options")],
)
def test_the_api_answers_in_the_requests_language(language: str, message: str) -> None:
    build_study(kinds=("best_worst",))
    client, _ = enrolled(screening={"bg": 0})
    item = client.get("/api/v1/volunteer/next/").json()["item"]
    reply = client.post(
        "/api/v1/volunteer/answers/",
        {"assignment": item["assignment"], "answer": {"best": 2, "worst": 2}},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert reply.status_code == 400 and reply.json() == {"worst": [message]}


def test_the_api_fills_the_messages_parameters_in_chinese() -> None:
    build_study(kinds=("choice",))
    client, _ = enrolled(screening={"bg": 0})
    item = client.get("/api/v1/volunteer/next/").json()["item"]
    body = {"assignment": item["assignment"], "answer": 7}
    reply = client.post(
        "/api/v1/volunteer/answers/", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert reply.json() == {"answer": ["选项 7 超出范围：共有 4 个选项"]}


def test_the_api_leaves_the_shape_of_ratings_to_the_rule() -> None:
    build_study(kinds=("rating",))
    client, _ = enrolled(screening={"bg": 0})
    item = client.get("/api/v1/volunteer/next/").json()["item"]
    body = {"assignment": item["assignment"], "ratings": 5}
    reply = client.post("/api/v1/volunteer/answers/", body, format="json")
    assert reply.status_code == 400
    assert reply.json() == {"ratings": ["须为一个对象，为每一项评分：beauty, form"]}


def test_the_page_reads_the_post_and_leaves_every_check_to_the_rule() -> None:
    given = read_answer(KINDS["best_worst"], ["best", "worst"], {"f-best": "1", "f-worst": " 1 "})
    assert given.answer == {"best": "1", "worst": "1"} and given.ratings is None
    given = read_answer(KINDS["rating"], ["beauty", "form"], {"f-beauty": "4"})
    assert given.ratings == {"beauty": "4", "form": None} and given.selected == {"beauty": "4"}
    assert read_answer(KINDS["choice"], ["answer"], {}).answer is None


def test_a_files_problems_stay_in_english_whatever_the_language() -> None:
    collector = Collector("pool.jsonl")
    with translation.override("zh-hans"):
        parse_index("Z", 3, collector.at(2), "answer")
    assert [str(p) for p in collector.problems] == [
        "pool.jsonl, line 2, field 'answer': 'Z' is not an option index "
        "(0-based number or letter A-C)"
    ]
