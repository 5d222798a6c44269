"""Recruiting on the dashboard: every link (public, each group's invitation) with its QR
code, and a printable page per link, for the study's researchers only."""

from __future__ import annotations

import re

import pytest
import segno
from django.contrib.auth import get_user_model
from django.test import Client

from studies.models import Study
from tests.present import present
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db


def _client(study: Study | None, name: str = "r") -> Client:
    user = get_user_model().objects.create_user(name, password="pw")
    if study is not None:
        study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def _qr_path(svg: str) -> str:
    return present(re.search(r' d="([^"]+)"', svg)).group(1)


@pytest.mark.slow
def test_the_dashboard_shows_each_link_with_its_qr_code(known: Builder) -> None:
    study = known.study
    html = _client(study).get(f"/research/studies/{study.pk}/").content.decode()
    section = html[html.index('<section id="recruit"') : html.index('<section id="downloads">')]
    links = [f"http://testserver/s/{study.slug}/"] + [
        f"http://testserver/s/{study.slug}/i/{g.invite_token}/" for g in study.groups.all()
    ]
    assert len(links) == 4
    svgs = re.findall(r"<svg .*?</svg>", section, flags=re.S)
    assert len(svgs) == len(links)
    for url, svg in zip(links, svgs, strict=True):
        assert f'value="{url}"' in section
        assert f'aria-label="QR code of the link {url}"' in svg
        # The very code segno draws for the link (the browser test decodes it with zxing).
        expected = segno.make(url, error="m").svg_inline(scale=4, border=4, omitsize=True)
        assert _qr_path(svg) == _qr_path(expected)
    assert section.count('href="/research/studies/') == len(links)  # a printable page each


def test_the_printable_page_of_an_invitation(known: Builder) -> None:
    study = known.study
    group = study.groups.get(slug="B")
    client = _client(study)
    page = client.get(f"/research/studies/{study.pk}/recruit/group-B/")
    html = page.content.decode()
    url = f"http://testserver/s/{study.slug}/i/{group.invite_token}/"
    assert page.status_code == 200 and f'<p class="url" id="url">{url}</p>' in html
    assert "Scan to take part" in html and "@media print" in html
    expected = segno.make(url, error="m").svg_inline(scale=8, border=4, omitsize=True)
    assert _qr_path(html[html.index('id="qr"') :]) == _qr_path(expected)
    assert client.get(f"/research/studies/{study.pk}/recruit/group-Z/").status_code == 404


def test_only_the_studys_researchers_see_its_links(known: Builder) -> None:
    study = known.study
    url = f"/research/studies/{study.pk}/recruit/public/"
    assert _client(None, "other").get(url).status_code == 404
    assert "/login/" in Client().get(url)["Location"]


@pytest.mark.slow
def test_a_draft_says_its_links_do_not_work_yet(known: Builder) -> None:
    study = known.study
    Study.objects.filter(pk=study.pk).update(status="draft")
    html = _client(study).get(f"/research/studies/{study.pk}/").content.decode()
    assert "This study is a draft: its links answer “not found” until it is opened" in html
