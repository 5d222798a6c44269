"""A request body naming a key twice in one JSON object is refused with a 400 that names
the key (issue 26, defect 5): Python's ``json`` would keep the last value, so
``{"answer": 0, "answer": 2}`` would store 2 where another reader of the same body sees 0.
Every DRF view (the volunteer API, the researcher API) parses bodies with
``config.api.JSONParser``; no other view reads a JSON body."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.utils import translation
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from annotation.models import Participant, Response
from config.api import JSONParser
from tests.volunteer.conftest import build_study

pytestmark = pytest.mark.django_db
ENROL = "/api/v1/volunteer/studies/s/enrol/"
ANSWERS = "/api/v1/volunteer/answers/"


def _enrol(body: str, language: str) -> Any:
    build_study()
    client = APIClient(raise_request_exception=False)
    return client.post(ENROL, body, content_type="application/json", HTTP_ACCEPT_LANGUAGE=language)


def test_an_enrolment_naming_consent_twice_is_a_400_naming_the_key() -> None:
    reply = _enrol('{"consent": false, "consent": true}', "en")
    assert reply.status_code == 400
    assert '"consent"' in reply.json()["detail"] and "twice" in reply.json()["detail"]
    assert not Participant.objects.exists()


def test_an_answer_naming_answer_twice_is_refused_and_nothing_is_stored() -> None:
    build_study(kinds=("choice",), n_items=1, per_participant=1)
    client = APIClient(raise_request_exception=False)
    me = client.post(ENROL, {"consent": True, "screening": {"bg": 0}}, "json").json()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {me['token']}")
    assignment = client.get("/api/v1/volunteer/next/").json()["item"]["assignment"]
    body = f'{{"assignment": {assignment}, "answer": 0, "answer": 2}}'
    reply = client.post(ANSWERS, body, content_type="application/json")
    assert reply.status_code == 400, reply.content
    assert '"answer"' in reply.json()["detail"]
    assert not Response.objects.exists()
    nested = f'{{"assignment": {assignment}, "answer": {{"a": 1, "a": 0}}}}'
    reply = client.post(ANSWERS, nested, content_type="application/json")
    assert reply.status_code == 400 and '"a"' in reply.json()["detail"]


def test_the_message_is_in_chinese_for_a_chinese_reader() -> None:
    reply = _enrol('{"consent": true, "consent": true}', "zh-hans")
    assert reply.status_code == 400
    detail = reply.json()["detail"]
    assert '"consent"' in detail and "两次" in detail, detail


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('{"a": 1, "a": 1}', '"a"'),
        ('[{"x": {"y": 1, "y": 2}}]', '"y"'),
        ('{"诗": 1, "诗": 2}', '"诗"'),
    ],
)
def test_the_parser_every_drf_view_uses_refuses_a_repeat_at_any_depth(body: str, key: str) -> None:
    with translation.override("en"), pytest.raises(ParseError) as caught:
        JSONParser().parse(io.BytesIO(body.encode()), "application/json", {})
    assert key in str(caught.value.detail)


def test_the_parser_still_reads_plain_json_and_refuses_nan() -> None:
    parse = JSONParser().parse
    assert parse(io.BytesIO(b'{"a": [1, {"b": 2}]}'), "application/json", {}) == {
        "a": [1, {"b": 2}]
    }
    with pytest.raises(ParseError):
        parse(io.BytesIO(b'{"a": NaN}'), "application/json", {})


def test_drf_is_configured_with_this_parser_only(settings) -> None:
    assert settings.REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"] == ["config.api.JSONParser"]
