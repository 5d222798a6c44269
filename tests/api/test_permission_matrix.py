"""Who may call what: every API operation in the OpenAPI schema and every research page.

Endpoints are discovered, not listed: the API from the generated schema, the pages
from the URL resolver, so a new endpoint is covered (or fails here, asking for a
parameter value) without touching this file.

| endpoint kind | anonymous | volunteer (token) | outsider | researcher | admin |
|---|---|---|---|---|---|
| public (schema, docs, enrol, resume) | allowed | allowed | allowed | allowed | allowed |
| volunteer (own answers) | 401/403 | allowed | 401/403 | 401/403 | 401/403 |
| research, own study | 401/403 | 401/403 | 404 | 200 | 200 |
| research, other study | 401/403 | 401/403 | 404 | 404 | 200 |
| research pages | login | login | 404 (list: 200) | 200 own / 404 | 200 |
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from drf_spectacular.generators import SchemaGenerator
from rest_framework.permissions import AllowAny

from annotation.api import ParticipantTokenAuthentication
from tests.api.conftest import World

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "volunteer", "outsider", "researcher", "admin")
DENIED = {401, 403}
PUBLIC_PATHS = ("/api/schema/", "/api/docs/", "/api/redoc/")


def _values(world: World, which: str) -> dict[str, Any]:
    b = world.own if which == "own" else world.other
    poem = next(i for i in b.items.values() if i.poem_text)
    return {"study_id": b.study.pk, "slug": b.study.slug, "item_id": poem.pk, "fmt": "csv"}


UNKNOWN = 987654  # a parameter this file has no value for: an id that does not exist


def _fill(route: str, values: dict[str, Any]) -> str:
    def sub(m: re.Match[str]) -> str:
        return str(values.get(m.group(1).split(":")[-1], UNKNOWN))

    return re.sub(r"[{<]([^}>]+)[}>]", sub, route)


def _known(route: str, values: dict[str, Any]) -> bool:
    """Whether every parameter of ``route`` has a real value (else only denial is checked)."""
    names = [n.split(":")[-1] for n in re.findall(r"[{<]([^}>]+)[}>]", route)]
    return all(n in values for n in names)


def _kind(path: str) -> str:
    if path in PUBLIC_PATHS:
        return "public"
    view = resolve(path).func
    cls = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if cls is None:
        return "research"
    if any(p is AllowAny for p in getattr(cls, "permission_classes", [])):
        return "public"
    if ParticipantTokenAuthentication in getattr(cls, "authentication_classes", []):
        return "volunteer"
    return "research"


def _operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    ops = [(p, m.upper()) for p, item in schema["paths"].items() for m in item]
    return sorted(ops) + [(p, "GET") for p in PUBLIC_PATHS]


def _call(world: World, role: str, method: str, path: str) -> int:
    client = world.clients[role]
    body: dict[str, Any] = {}
    if path.endswith("/enrol/"):
        body = {"consent": True, "invite": world.own.groups["B"].invite_token}
    reply = client.generic(method, path, data=json.dumps(body), content_type="application/json")
    return reply.status_code


def _expected(kind: str, role: str, study: str) -> set[int] | str:
    if kind == "public":
        return "allowed"
    if kind == "volunteer":
        return "allowed" if role == "volunteer" else DENIED
    if role in ("anonymous", "volunteer"):
        return DENIED
    if role == "admin" or (role == "researcher" and study == "own"):
        return {200}
    return {404}


def test_the_schema_lists_the_research_and_volunteer_api() -> None:
    paths = {p for p, _ in _operations()}
    assert "/api/v1/studies/{study_id}/report/" in paths
    assert "/api/v1/studies/{study_id}/exports/responses/" in paths
    assert "/api/v1/volunteer/answers/" in paths


@pytest.mark.slow
@pytest.mark.parametrize("role", ROLES)
def test_every_api_operation_answers_each_role_as_the_matrix_says(world: World, role: str) -> None:
    failures = []
    for route, method in _operations():
        for study in ("own", "other"):
            if study == "other" and "{" not in route:
                continue
            path = _fill(route, _values(world, study))
            kind = _kind(path)
            if route == "/api/v1/studies/" and role not in ("anonymous", "volunteer"):
                expected: set[int] | str = {200}
            else:
                expected = _expected(kind, role, study)
            if "{slug}" in route and kind == "public" and study == "other":
                continue  # the other study has no invitations for this volunteer
            status = _call(world, role, method, path)
            if not _known(route, _values(world, study)) and kind == "research":
                expected = DENIED if role in ("anonymous", "volunteer") else {200, 404}
            ok = (
                (status < 500 and status not in DENIED)
                if expected == "allowed"
                else status in expected
            )
            if not ok:
                failures.append(
                    f"{role} {method} {path} ({kind}, {study}): {status}, expected {expected}"
                )
    assert failures == []


def _page_routes() -> list[str]:
    """Every URL pattern under /research/ from the resolver, as a route with parameters."""
    out: list[str] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern) and route.startswith("research/"):
                out.append("/" + route)

    walk(get_resolver().url_patterns, "")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("role", ROLES)
def test_every_research_page_answers_each_role_as_the_matrix_says(world: World, role: str) -> None:
    routes = _page_routes()
    assert "/research/studies/<int:study_id>/" in routes
    failures = []
    for route in routes:
        for study in ("own", "other"):
            if study == "other" and "<" not in route:
                continue
            path = _fill(route, _values(world, study))
            status = world.clients[role].get(path).status_code
            if not _known(route, _values(world, study)):
                # A page whose parameters this file cannot fill: no leak, no crash.
                expected = {302, 403, 404} if role in ("anonymous", "volunteer") else {200, 404}
            elif role in ("anonymous", "volunteer"):
                expected = {302}
            elif "<" not in route or role == "admin" or (role == "researcher" and study == "own"):
                expected = {200}
            else:
                expected = {404}
            if status not in expected:
                failures.append(f"{role} GET {path} ({study}): {status}, expected {expected}")
    assert failures == []


def test_anonymous_pages_redirect_to_the_login(world: World) -> None:
    reply = world.clients["anonymous"].get(f"/research/studies/{world.own.study.pk}/")
    assert reply.status_code == 302 and "/admin/login/" in reply["Location"]


def test_token_authentication_gives_the_researcher_their_studies(world: World) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {world.researcher_token}")
    reply = client.get("/api/v1/studies/")
    assert reply.status_code == 200
    assert [s["slug"] for s in reply.json()["results"]] == ["known"]
    assert client.get(f"/api/v1/studies/{world.other.study.pk}/").status_code == 404


def test_the_study_list_shows_only_what_is_shared(world: World) -> None:
    slugs = {
        role: [s["slug"] for s in world.clients[role].get("/api/v1/studies/").json()["results"]]
        for role in ("outsider", "researcher", "admin")
    }
    assert slugs == {"outsider": [], "researcher": ["known"], "admin": ["known", "other"]}
