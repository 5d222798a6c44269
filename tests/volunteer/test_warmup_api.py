"""Practice and qualification through the volunteer API (annotation/warmup_api.py),
mirroring the pages: the same items in the same order, the right answer and explanation
after a practice answer, nothing about correctness after a qualification answer, the
same routing by score (checked by hand: 2 right -> C, 0 right -> the end), never a
Response; GET /next/ says why it waits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from annotation.models import Participant, Response
from tests.volunteer.test_practice_qualification import load

pytestmark = pytest.mark.django_db

API = "/api/v1/volunteer"


class Volunteer:
    def __init__(self) -> None:
        self.client = Client()
        reply = self.client.post(
            f"{API}/studies/pq/enrol/", json.dumps({"consent": True}), "application/json"
        )
        assert reply.status_code == 201, reply.content
        self.enrolled = reply.json()
        self.auth = f"Participant {self.enrolled['token']}"

    def get(self, path: str) -> Any:
        return self.client.get(f"{API}/{path}", HTTP_AUTHORIZATION=self.auth)

    def answer(self, item: str, answer: Any) -> Any:
        body = json.dumps({"item": item, "answer": answer})
        return self.client.post(
            f"{API}/warmup/answers/", body, "application/json", HTTP_AUTHORIZATION=self.auth
        )

    def participant(self) -> Participant:
        return Participant.objects.get(public_id=self.enrolled["participant"])


def test_practice_then_qualification_route_to_a_group(tmp_path: Path) -> None:
    load(tmp_path)
    v = Volunteer()
    assert v.enrolled["warmup"] == "pending" and v.enrolled["group"] is None
    waiting = v.get("next/")
    assert waiting.status_code == 400 and "请先完成练习题和资格测试题" in waiting.content.decode()
    state = v.get("warmup/").json()
    assert state["state"] == "pending"
    step = state["step"]
    assert (step["stage"], step["number"], step["total"], step["item"]["id"]) == (
        "practice",
        1,
        2,
        "w1",
    )
    assert [o["text"] for o in step["fields"][0]["options"]] == ["w1-甲", "w1-乙", "w1-丙"]
    assert "explanation" not in json.dumps(step) and "解释" not in json.dumps(step)
    assert v.answer("w2", 1).status_code == 400  # not the current item
    first = v.answer("w1", 0)  # wrong: the key is 1
    assert first.status_code == 201
    body = first.json()
    assert body["correct"] is False and body["duplicate"] is False
    shown = body["feedback"][0]
    assert shown["chosen"]["text"] == "w1-甲" and shown["right"]["text"] == "w1-乙"
    assert shown["right"]["explanation"] == "w1 乙的解释：正确"
    assert body["step"]["item"]["id"] == "w2"
    # the same answer again is harmless, a different one is refused
    again = v.answer("w1", 0)
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert v.answer("w1", 1).status_code == 409
    assert v.answer("w2", 1).json()["correct"] is True
    qual = v.answer("q1", 1).json()
    assert qual["stage"] == "qualification" and qual["correct"] is None and qual["feedback"] is None
    last = v.answer("q2", 1).json()
    assert (last["state"], last["group"], last["step"]) == ("done", "C", None)
    p = v.participant()
    assert p.group is not None and p.group.slug == "C" and p.warmup["score"] == 2
    assert not Response.objects.filter(rater=p.rater).exists()
    nxt = v.get("next/")
    assert nxt.status_code == 200 and nxt.json()["item"]["task"]["slug"] == "ck"
    assert v.get("warmup/").json() == {"state": "done", "group": "C", "step": None}


def test_a_score_below_every_route_ends_politely(tmp_path: Path) -> None:
    load(tmp_path)
    v = Volunteer()
    for item, choice in (("w1", 1), ("w2", 1), ("q1", 0), ("q2", 0)):
        assert v.answer(item, choice).status_code == 201
    assert v.get("warmup/").json() == {"state": "ended", "group": None, "step": None}
    refused = v.get("next/")
    assert refused.status_code == 400 and "未能将您分入" in refused.content.decode()
    assert v.participant().warmup["failed"] is True


def test_an_invalid_answer_is_a_400_naming_the_field(tmp_path: Path) -> None:
    load(tmp_path)
    v = Volunteer()
    bad = v.answer("w1", 7)
    assert bad.status_code == 400 and "answer" in bad.json()
    assert v.get("warmup/").json()["step"]["item"]["id"] == "w1"
