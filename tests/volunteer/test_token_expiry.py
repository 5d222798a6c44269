"""A participant API token expires PARTICIPANT_TOKEN_DAYS after it was signed, renewed on
use: a reply to a token older than PARTICIPANT_TOKEN_RENEW_HOURS carries a fresh one in
``X-Participant-Token``. Before, a token never expired."""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from tests.volunteer.conftest import build_study

pytestmark = pytest.mark.django_db
DAY = 86400.0


def _enrolled(monkeypatch: pytest.MonkeyPatch, days_ago: float) -> str:
    build_study(n_items=2, per_participant=2)
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now - days_ago * DAY)
    reply = APIClient().post(
        "/api/v1/volunteer/studies/s/enrol/", {"consent": True, "screening": {"bg": 0}}, "json"
    )
    monkeypatch.setattr(time, "time", lambda: now)
    return str(reply.json()["token"])


def _next(token: str):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {token}")
    return client.get("/api/v1/volunteer/next/")


def test_a_fresh_token_works_and_is_not_renewed(monkeypatch: pytest.MonkeyPatch) -> None:
    reply = _next(_enrolled(monkeypatch, 0))
    assert reply.status_code == 200 and "X-Participant-Token" not in reply


def test_a_day_old_token_is_renewed_on_use(monkeypatch: pytest.MonkeyPatch, settings) -> None:
    old = _enrolled(monkeypatch, 2)
    reply = _next(old)
    assert reply.status_code == 200
    fresh = reply["X-Participant-Token"]
    assert fresh != old and _next(fresh).status_code == 200
    assert "X-Participant-Token" not in _next(fresh)


def test_an_expired_token_is_refused(monkeypatch: pytest.MonkeyPatch, settings) -> None:
    old = _enrolled(monkeypatch, settings.PARTICIPANT_TOKEN_DAYS + 1)
    reply = _next(old)
    assert reply.status_code in (401, 403)
    settings.PARTICIPANT_TOKEN_DAYS = 60
    assert _next(old).status_code == 200
