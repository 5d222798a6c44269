"""The volunteer and researcher APIs with hostile requests: nesting of any depth, integers
of any size where ids, limits and offsets go. Always a 2xx or 4xx, never a 5xx."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.fuzz.strategies import FUZZ

pytestmark = pytest.mark.django_db

HUGE = st.one_of(
    st.integers(min_value=2**62, max_value=2**70),
    st.integers(max_value=-(2**62), min_value=-(2**70)),
    st.sampled_from([2**63 - 1, 2**63, 2**64, -(2**63), 10**40, 0, -1]),
)
LEAF = st.one_of(st.none(), st.booleans(), HUGE, st.text(max_size=5))


@st.composite
def nested(draw: st.DrawFn) -> str:
    """A JSON document nested ``depth`` deep in lists or objects, around a hostile leaf."""
    depth = draw(st.one_of(st.integers(1, 40), st.sampled_from([900, 5000, 100_000])))
    opener = draw(st.sampled_from(["[", '{"a":']))
    closer = "]" if opener == "[" else "}"
    return opener * depth + json.dumps(draw(LEAF)) + closer * depth


def _body(draw_json: str, key: str) -> str:
    return f'{{"consent": true, "{key}": {draw_json}, "assignment": 1, "answer": {draw_json}}}'


@pytest.mark.slow
@settings(FUZZ, max_examples=max(10, FUZZ.max_examples // 2))
@given(doc=nested(), wrap=st.booleans(), number=HUGE)
def test_the_volunteer_api_never_fails_on_nesting_or_huge_numbers(
    world: Any,
    doc: str,
    wrap: bool,
    number: int,
) -> None:
    slug = world.own.study.slug
    anonymous = APIClient(raise_request_exception=False)
    volunteer = world.clients["volunteer"]
    volunteer.raise_request_exception = False
    body = _body(doc, "screening") if wrap else doc
    replies = [
        anonymous.post(
            f"/api/v1/volunteer/studies/{slug}/enrol/", body, content_type="application/json"
        ),
        anonymous.post(
            f"/api/v1/volunteer/studies/{slug}/resume/", body, content_type="application/json"
        ),
        volunteer.post("/api/v1/volunteer/answers/", body, content_type="application/json"),
        volunteer.post(
            "/api/v1/volunteer/answers/?next=1",
            {"assignment": number, "answer": number, "ratings": None},
            format="json",
        ),
    ]
    for reply in replies:
        assert reply.status_code < 500, (reply.status_code, reply.content[:300])


@settings(FUZZ, max_examples=max(10, FUZZ.max_examples // 2))
@given(
    limit=st.one_of(HUGE.map(str), st.text(max_size=25)),
    offset=st.one_of(HUGE.map(str), st.text(max_size=25)),
    study=st.one_of(st.integers(1, 3), HUGE.filter(lambda n: n >= 0)),
)
def test_the_researcher_api_never_fails_on_huge_limits_or_ids(
    world: Any,
    limit: str,
    offset: str,
    study: int,
) -> None:
    client = world.clients["researcher"]
    client.raise_request_exception = False
    for path in ("studies/", f"studies/{study}/items/", f"studies/{study}/responses/"):
        reply = client.get(f"/api/v1/{path}", {"limit": limit, "offset": offset})
        assert reply.status_code < 500, (path, limit, offset, reply.content[:300])
    assert client.get(f"/research/jobs/{study}/").status_code < 500
