"""Roles for the permission matrix: anonymous, volunteer, outsider, researcher, admin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.report.factory import Builder, known_study


@dataclass
class World:
    own: Builder  # shared with the researcher
    other: Builder  # shared with nobody
    clients: dict[str, APIClient]
    researcher_token: str


def _user(name: str, **flags: Any):
    return get_user_model().objects.create_user(name, password="pw-" + name, **flags)


@pytest.fixture
def world(db) -> World:
    own = known_study()
    other = Builder("other")
    other.group("A")
    other.task("ck", "choice")
    other.item("o-1", "ck", {"answer": 0}, poem_text="床前明月光", poem_form="shi:jueju5")
    researcher = _user("researcher", is_staff=True)
    own.study.researchers.add(researcher)
    clients = {"anonymous": APIClient()}
    volunteer = APIClient()
    reply = volunteer.post(
        f"/api/v1/volunteer/studies/{own.study.slug}/enrol/",
        {"consent": True, "invite": own.groups["A"].invite_token},
        format="json",
    )
    assert reply.status_code == 201, reply.content
    volunteer.credentials(HTTP_AUTHORIZATION=f"Participant {reply.json()['token']}")
    clients["volunteer"] = volunteer
    for role, user in (
        ("outsider", _user("outsider")),
        ("researcher", researcher),
        ("admin", _user("admin", is_staff=True, is_superuser=True)),
    ):
        client = APIClient()
        client.force_login(user)
        clients[role] = client
    token = Token.objects.create(user=researcher).key
    return World(own, other, clients, token)
