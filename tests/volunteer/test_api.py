"""The volunteer API: the same flow and rules as the pages, with a participant token."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from annotation.models import Participant, Response
from tests.volunteer.conftest import build_study

pytestmark = pytest.mark.django_db


def enrolled(slug: str = "s", **body) -> tuple[APIClient, dict]:
    client = APIClient()
    reply = client.post(
        f"/api/v1/volunteer/studies/{slug}/enrol/", {"consent": True, **body}, format="json"
    )
    assert reply.status_code == 201, reply.content
    client.credentials(HTTP_AUTHORIZATION=f"Participant {reply.json()['token']}")
    return client, reply.json()


def shown_answer(item: dict) -> dict:
    fields = item["fields"]
    kind = item["task"]["kind"]
    if kind == "choice":
        return {"answer": 0}
    if kind == "best_worst":
        return {"answer": {"best": 0, "worst": 1}}
    if kind == "multi":
        return {"answer": {f["key"]: 0 for f in fields}}
    return {"ratings": {f["key"]: f["scale"][0] for f in fields}}


def test_enrol_needs_consent_and_screening_answers() -> None:
    build_study()
    client = APIClient()
    url = "/api/v1/volunteer/studies/s/enrol/"
    assert (
        client.post(url, {"consent": False, "screening": {"bg": 0}}, format="json").status_code
        == 400
    )
    assert client.post(url, {"consent": True}, format="json").status_code == 400
    assert not Participant.objects.exists()  # all or nothing
    _, me = enrolled(screening={"bg": 1})
    assert me["group"] == "B" and me["resume_code"] and me["status"] == "screened"


def test_an_invitation_token_places_the_group() -> None:
    study = build_study()
    _, me = enrolled(invite=study.groups.get(slug="B").invite_token)
    assert me["group"] == "B" and Participant.objects.get().entry == "invite"


def test_the_whole_flow_through_the_api() -> None:
    build_study(
        kinds=("choice", "multi", "best_worst", "rating"), per_participant=2, shuffle_options=True
    )
    client, _ = enrolled(screening={"bg": 0})
    for _ in range(8):
        nxt = client.get("/api/v1/volunteer/next/").json()
        assert nxt["done"] is False
        body = json.dumps(nxt)
        assert "SECRET" not in body and "correct" not in body
        assert set(nxt["item"]["item"]) == {"id", "stem", "poem"}  # no key travels
        for f in nxt["item"]["fields"]:
            assert set(f) <= {"key", "prompt", "options", "description", "scale", "labels"}
            assert all(set(o) == {"position", "text"} for o in f.get("options", []))
        reply = client.post(
            "/api/v1/volunteer/answers/",
            {"assignment": nxt["item"]["assignment"], **shown_answer(nxt["item"])},
            format="json",
        )
        assert reply.status_code == 201, reply.content
    done = client.get("/api/v1/volunteer/next/").json()
    assert done["done"] is True and done["completion_code"]
    assert client.get("/api/v1/volunteer/progress/").json() == {
        "answered": 8,
        "total": 8,
        "finished": True,
    }


def test_resending_an_answer_is_harmless_and_changing_it_is_a_conflict() -> None:
    build_study()
    client, _ = enrolled(screening={"bg": 0})
    item = client.get("/api/v1/volunteer/next/").json()["item"]
    body = {"assignment": item["assignment"], "answer": 1}
    assert client.post("/api/v1/volunteer/answers/", body, format="json").status_code == 201
    again = client.post("/api/v1/volunteer/answers/", body, format="json")
    assert again.status_code == 200 and again.json()["duplicate"] is True
    changed = client.post("/api/v1/volunteer/answers/", {**body, "answer": 2}, format="json")
    assert changed.status_code == 409
    assert Response.objects.count() == 1


def test_invalid_answers_are_a_400_naming_the_field() -> None:
    build_study(kinds=("best_worst",))
    client, _ = enrolled(screening={"bg": 0})
    item = client.get("/api/v1/volunteer/next/").json()["item"]
    reply = client.post(
        "/api/v1/volunteer/answers/",
        {"assignment": item["assignment"], "answer": {"best": 2, "worst": 2}},
        format="json",
    )
    assert reply.status_code == 400 and "worst" in reply.json()


def test_no_token_no_access_and_no_one_touches_anothers_assignment() -> None:
    build_study()
    assert APIClient().get("/api/v1/volunteer/next/").status_code in (401, 403)
    forged = APIClient()
    forged.credentials(HTTP_AUTHORIZATION="Participant forged")
    assert forged.get("/api/v1/volunteer/progress/").status_code == 401
    alice, _ = enrolled(screening={"bg": 0})
    mallory, _ = enrolled(screening={"bg": 0})
    item = alice.get("/api/v1/volunteer/next/").json()["item"]
    reply = mallory.post(
        "/api/v1/volunteer/answers/", {"assignment": item["assignment"], "answer": 0}, format="json"
    )
    assert reply.status_code == 400 and not Response.objects.exists()


def test_resume_code_gives_back_a_token() -> None:
    build_study()
    _, me = enrolled(screening={"bg": 0})
    reply = APIClient().post(
        "/api/v1/volunteer/studies/s/resume/", {"code": me["resume_code"]}, format="json"
    )
    assert reply.status_code == 200 and reply.json()["participant"] == me["participant"]
    assert (
        APIClient()
        .post("/api/v1/volunteer/studies/s/resume/", {"code": "X"}, format="json")
        .status_code
        == 404
    )


def test_the_schema_documents_the_volunteer_api() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in (
        "/api/v1/volunteer/next/",
        "/api/v1/volunteer/answers/",
        "/api/v1/volunteer/progress/",
        "/api/v1/volunteer/studies/{slug}/enrol/",
    ):
        assert path in paths
    assert "participantToken" in schema.json()["components"]["securitySchemes"]
