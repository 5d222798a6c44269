"""Refusals stay short: a refused answer names a short excerpt of what was sent (2 MB in,
not 2 MB out), and a 403 is logged as one line, without the traceback of the
``PermissionDenied`` that refused it."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from tests.volunteer.conftest import build_study

pytestmark = pytest.mark.django_db
ANSWERS = "/api/v1/volunteer/answers/"
HUGE = "x" * 1_500_000  # under the request size limit (2.5 MB)


def _volunteer(kinds: tuple[str, ...] = ("choice",)) -> tuple[APIClient, int]:
    build_study(kinds=kinds, n_items=1, per_participant=1)
    client = APIClient()
    me = client.post(
        "/api/v1/volunteer/studies/s/enrol/", {"consent": True, "screening": {"bg": 0}}, "json"
    ).json()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {me['token']}")
    return client, client.get("/api/v1/volunteer/next/").json()["item"]["assignment"]


@pytest.mark.parametrize(
    ("kinds", "body"),
    [
        (("choice",), {"answer": HUGE}),
        (("choice",), {"answer": "9" * 100_000}),
        (("multi",), {"answer": {HUGE: 1}}),
        (("rating",), {"ratings": {"beauty": HUGE, "form": 2}}),
        (("rating",), {"ratings": {HUGE: 1}}),
    ],
)
def test_a_refused_answer_echoes_a_short_excerpt(kinds: tuple[str, ...], body: dict) -> None:
    client, assignment = _volunteer(kinds)
    reply = client.post(ANSWERS, {"assignment": assignment, **body}, format="json")
    assert reply.status_code == 400
    assert len(reply.content) < 2000, reply.content[:300]


def test_a_403_is_logged_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    user = get_user_model().objects.create_user("staff", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get("/admin/studies/study/").status_code == 403
    records = [r for r in caplog.records if r.name == "django.request"]
    assert records and all(r.exc_info is None for r in records)
    assert "Forbidden" in records[0].getMessage()


@pytest.mark.parametrize(
    "body",
    [
        {"screening": {HUGE: 1}},
        {"screening": {HUGE: "x"}},
        {"recruitment": {HUGE: "x" * 300}},
    ],
)
def test_a_refused_enrolment_names_a_key_by_a_short_excerpt(body: dict) -> None:
    build_study(kinds=("choice",), n_items=1, per_participant=1)
    reply = APIClient().post(
        "/api/v1/volunteer/studies/s/enrol/", {"consent": True, **body}, format="json"
    )
    assert reply.status_code == 400
    assert len(reply.content) < 2000, reply.content[:300]


def test_a_request_refused_for_its_host_is_logged_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Django logs a DisallowedHost (any SuspiciousOperation, a 400) on its own logger,
    ``django.security.<name>``, with the traceback: 14 lines for each scanner's request
    with a foreign Host header. The console handler drops it like a 403's."""
    from config.logs import RefusalsWithoutTraceback

    with caplog.at_level(logging.ERROR, logger="django.security"):
        assert Client(HTTP_HOST="evil.example").get("/").status_code == 400
    records = [r for r in caplog.records if r.name.startswith("django.security")]
    assert records
    console = [
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, RefusalsWithoutTraceback) for f in h.filters)
    ]
    assert console
    for record in records:
        assert console[0].filter(record)
        assert "Traceback" not in console[0].format(record)


def test_a_refused_resume_code_is_not_echoed_whole() -> None:
    """The resume page re-rendered its form with the code sent: 2 MB in, 2 MB out."""
    build_study(kinds=("choice",), n_items=1, per_participant=1)
    reply = Client().post("/s/s/resume/", {"code": HUGE})
    assert reply.status_code == 400
    assert len(reply.content) < 20_000


def test_an_entry_link_with_a_huge_query_is_not_echoed_back() -> None:
    """The welcome page's language switch returned to the page with its whole query: an
    entry link with 100 KB of parameters gave 200 KB back. A legitimate link (recruitment
    parameters are cut to 100 characters each) keeps its query."""
    build_study(kinds=("choice",), n_items=1, per_participant=1)
    client = Client()
    plain = client.get("/s/s/", {"PROLIFIC_PID": "abc"})
    assert plain.status_code == 200 and "PROLIFIC_PID=abc" in plain.content.decode()
    huge = client.get("/s/s/", {"PROLIFIC_PID": "p" * 100_000, "x": "y" * 100_000})
    assert huge.status_code == 200
    assert len(huge.content) < len(plain.content) + 2_000
