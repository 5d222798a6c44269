"""Every refusal of the volunteer API says what was wrong with the request as it was
sent: never the hidden option order, an option's explanation or the answer key, and
never a server error, whatever the body (deeply nested JSON, ids past 64 bits)."""

from __future__ import annotations

import json
import re

import pytest
from rest_framework.test import APIClient

from annotation.models import Assignment, Response
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db
ANSWERS = "/api/v1/volunteer/answers/"
ORDER = [3, 0, 2, 1]  # shown position -> canonical option: a known shuffle
NESTED = "[" * 100_000 + "]" * 100_000


def _volunteer(kind: str = "choice") -> tuple[APIClient, Assignment]:
    build_study(kinds=(kind,), n_items=1, per_participant=1, shuffle_options=True)
    client = APIClient()
    me = client.post(
        "/api/v1/volunteer/studies/s/enrol/", {"consent": True, "screening": {"bg": 0}}, "json"
    ).json()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {me['token']}")
    a = Assignment.objects.get(
        pk=client.get("/api/v1/volunteer/next/").json()["item"]["assignment"]
    )
    keys = ["answer"] if kind != "multi" else ["who", "what"]
    a.option_order = {key: ORDER for key in keys}
    a.save(update_fields=["option_order"])
    return client, a


def _leaks(body: str) -> list[str]:
    """What of the item beyond the page a body shows: the shuffle, explanations, the key."""
    found = []
    if "SECRET-EXPLANATION" in body:
        found.append("an option's explanation")
    if re.search(r"option_order|\[3, ?0, ?2, ?1\]", body):
        found.append("the option order")
    if '"answer": {"answer"' in body or "is_attention_check" in body:
        found.append("the answer key")
    return found


@pytest.mark.parametrize(
    "answer",
    [
        {"a": 0, "b": 1, "c": 2, "d": 3},  # an object of the wrong keys, each a position
        {"answer": 0, "x": 1},
        [0, 1, 2, 3],
        "0,1,2,3",
        {"best": 0, "worst": 0},
    ],
)
def test_a_refused_choice_answer_quotes_the_positions_as_sent(answer: object) -> None:
    client, a = _volunteer()
    reply = client.post(ANSWERS, {"assignment": a.pk, "answer": answer}, format="json")
    assert reply.status_code == 400
    body = json.dumps(reply.json(), ensure_ascii=False)
    assert _leaks(body) == []
    # The canonical indices the shuffle maps those positions to never appear: what the
    # volunteer sent (positions 0..3) is quoted, not 3, 0, 2, 1 in the hidden order.
    if isinstance(answer, dict) and set(answer) == {"a", "b", "c", "d"}:
        assert "'a': 0, 'b': 1, 'c': 2, 'd': 3" in body
    assert not Response.objects.exists()


def test_a_refused_multi_answer_quotes_each_part_as_sent() -> None:
    client, a = _volunteer("multi")
    reply = client.post(
        ANSWERS, {"assignment": a.pk, "answer": {"who": {"x": 0, "y": 1}, "what": 9}}, "json"
    )
    assert reply.status_code == 400
    body = json.dumps(reply.json(), ensure_ascii=False)
    assert "'x': 0, 'y': 1" in body and _leaks(body) == []


def test_every_refusal_of_the_api_reveals_nothing_of_the_item() -> None:
    client, a = _volunteer()
    other = APIClient()
    bodies = [
        client.post(ANSWERS, {"assignment": a.pk, "answer": 7}, format="json"),
        client.post(ANSWERS, {"assignment": a.pk, "ratings": {"x": 1}}, format="json"),
        client.post(ANSWERS, {"assignment": a.pk + 1, "answer": 0}, format="json"),
        client.post(ANSWERS, {"assignment": "x", "answer": 0}, format="json"),
        client.post(ANSWERS, {"answer": 0}, format="json"),
        client.post(ANSWERS, NESTED, content_type="application/json"),
        client.post(ANSWERS, "{not json", content_type="application/json"),
        other.post(ANSWERS, {"assignment": a.pk, "answer": 0}, format="json"),
        other.get("/api/v1/volunteer/next/", HTTP_AUTHORIZATION="Participant forged"),
    ]
    client.post(ANSWERS, {"assignment": a.pk, "answer": 0}, format="json")
    bodies.append(client.post(ANSWERS, {"assignment": a.pk, "answer": 1}, format="json"))
    for reply in bodies:
        assert 400 <= reply.status_code < 500, reply.content
        assert _leaks(reply.content.decode()) == [], reply.content


@pytest.mark.parametrize("path", ["enrol/", "resume/"])
def test_deeply_nested_json_on_enrol_and_resume_is_a_400(path: str) -> None:
    build_study()
    client = APIClient(raise_request_exception=False)
    for body in (NESTED, '{"consent": true, "invite": ' + "[" * 900 + "]" * 900 + "}"):
        reply = client.post(
            f"/api/v1/volunteer/studies/s/{path}", body, content_type="application/json"
        )
        assert reply.status_code == 400
        assert "nested too deeply" in reply.json()["detail"] or "嵌套" in reply.json()["detail"]


def test_deeply_nested_answers_and_an_id_past_64_bits_are_400s() -> None:
    client, a = _volunteer()
    client.raise_request_exception = False
    nested = f'{{"assignment": {a.pk}, "answer": {"[" * 950 + "]" * 950}}}'
    assert client.post(ANSWERS, nested, content_type="application/json").status_code == 400
    for huge in (2**63, 2**64 + 5, 10**30):
        reply = client.post(ANSWERS, {"assignment": huge, "answer": 0}, format="json")
        assert reply.status_code == 400 and "assignment" in reply.json()
    assert not Response.objects.exists()


def test_the_answer_page_takes_an_id_past_64_bits_as_not_yours() -> None:
    build_study(n_items=1, per_participant=1)
    v = Volunteer("s")
    v.consent()
    v.screen(0)
    v.question_page()
    v.client.raise_request_exception = False
    for raw in (str(2**63), "9" * 40, "-1", "１"):
        reply = v.client.post(v.url("q/"), {"assignment": raw, "f-answer": "0"})
        assert reply.status_code == 302 and reply["Location"].endswith("/q/")
    assert not Response.objects.exists()
