"""The dashboard's report sections rendered once and then read from the cache
(research.dashboard.views.report_html): the page from the cache is the page rendered
afresh, byte for byte, and a change of a chart choice or of the language renders again."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from research.dashboard import views
from tests.report.factory import Builder
from tests.report.test_dashboard import _researcher_client

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def _page(client: Client, url: str, query: dict[str, str] | None = None) -> str:
    reply = client.get(url, query or {})
    assert reply.status_code == 200
    return TOKEN.sub("", reply.content.decode())


@pytest.mark.slow
def test_cached_sections_equal_the_sections_rendered_afresh(
    known: Builder, monkeypatch: Any
) -> None:
    cache.clear()
    client = _researcher_client(known.study)
    url = f"/research/studies/{known.study.pk}/"
    fresh = _page(client, url)  # computes the report (eager jobs) and renders its sections
    assert 'id="accuracy"' in fresh and 'id="cap-exclusions"' in fresh
    calls: list[int] = []
    original = views.report_context

    def counted(*args: Any) -> dict[str, Any]:
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(views, "report_context", counted)
    assert _page(client, url) == fresh  # from the cache
    assert calls == []
    cache.clear()  # the stored report now from its file, the sections rendered again
    assert _page(client, url) == fresh
    assert calls == [1]
    # another chart choice is another page: rendered, not read from the first one's key
    picked = _page(client, url, {"rule": "rule:prosody:modern/tonal"})
    assert calls == [1, 1] and picked != fresh
    assert _page(client, url, {"rule": "rule:prosody:modern/tonal"}) == picked
    assert calls == [1, 1]
    chinese = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    chinese.force_login(known.study.researchers.get())
    assert _page(chinese, url) != fresh
    assert calls == [1, 1, 1]


@pytest.mark.slow
def test_a_view_from_the_cached_sections_does_not_read_the_stored_report(
    known: Builder, monkeypatch: Any
) -> None:
    """The page during collection keys its cached sections by the stored report's head
    (fingerprint, answers, computed_at, from the job's summary): the report itself, a
    large pickle at a million responses, is not loaded; the page says its age."""
    from jobs import reports

    cache.clear()
    client = _researcher_client(known.study)
    url = f"/research/studies/{known.study.pk}/"
    fresh = _page(client, url)
    loads: list[int] = []
    original = reports._stored_of

    def counted(job: Any) -> Any:
        loads.append(job.pk)
        return original(job)

    monkeypatch.setattr(reports, "_stored_of", counted)
    assert _page(client, url) == fresh
    assert loads == []
    cache.clear()  # no cached sections: the report is read to render them, with the
    assert _page(client, url) == fresh  # heavy tables' result its own job stored
    assert len(loads) == len(set(loads)) == 2
