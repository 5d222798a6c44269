"""The researcher API's paging: a bounded page size, and a 400 (never a 500) for a limit
or offset that is no number or past what a database integer holds."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def _get(world, query: str):
    client = world.clients["researcher"]
    client.raise_request_exception = False
    return client.get(f"/api/v1/studies/{world.own.study.pk}/responses/?{query}")


@pytest.mark.parametrize(
    "query",
    ["limit=9223372036854775808", "limit=99999999999999999999999", "offset=9223372036854775808",
     "limit=-1", "limit=abc", "offset=1e3", "limit=１０"],
)  # fmt: skip
@pytest.mark.slow
def test_a_limit_or_offset_that_is_no_usable_number_is_a_400(world, query: str) -> None:
    reply = _get(world, query)
    assert reply.status_code == 400
    name = query.split("=")[0]
    assert name in reply.json() and "0" in reply.json()[name][0]


def test_pages_hold_at_most_the_maximum_page_size(world, settings) -> None:
    settings.API_MAX_PAGE_SIZE = 5
    total = world.own.study.responses.count()
    assert total > 5
    page = _get(world, "limit=9223372036854775807").json()
    assert page["count"] == total and len(page["results"]) == 5
    assert "limit=5" in page["next"]
    assert len(_get(world, "").json()["results"]) == 5  # the default page too


def test_an_offset_past_the_end_is_an_empty_page(world) -> None:
    reply = _get(world, "offset=9223372036854775807")
    assert reply.status_code == 200 and reply.json()["results"] == []
