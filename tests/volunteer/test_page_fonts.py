"""Per-page subsets of the poems' serif (annotation.poemfont, issue 25): on the demo
study (200 poems, a whole-study subset of some 850 KB), a question page's CSS names two
faces with disjoint ``unicode-range``s, its task's and its item's, which together cover
every character of the page's item and task (read back from the fonts' own cmaps with
fontTools) and weigh a few dozen KB each; the welcome and screening pages get faces of
their own; an unknown page or a stale face is a 404."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from fontTools.ttLib import TTFont

from annotation import poemfont
from studies.models import Item, Study

pytestmark = pytest.mark.django_db


def streamed(reply: Any) -> bytes:
    return b"".join(reply.streaming_content)


def faces(client: Client, slug: str, page: str) -> list[tuple[str, str]]:
    css = client.get(f"/s/{slug}/poem-font.css", {"for": page})
    assert css.status_code == 200 and css["Content-Type"].startswith("text/css")
    text = css.content.decode()
    found = re.findall(r'url\("([^"]+)"\)[^}]*unicode-range: ([^;]+);', text)
    assert len(found) == text.count("@font-face"), text
    return found


def code_points(ranges: str) -> set[int]:
    """A CSS unicode-range read back by hand: U+XXXX or U+XXXX-YYYY, comma-separated."""
    out: set[int] = set()
    for part in ranges.split(","):
        low, _dash, high = part.strip().removeprefix("U+").partition("-")
        out.update(range(int(low, 16), int(high or low, 16) + 1))
    return out


@pytest.mark.slow  # builds two subsets (a few seconds)
def test_a_question_page_loads_a_few_dozen_kb_not_the_whole_study(
    demo_study: Study, settings: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(poemfont, "WAIT_SECONDS", 120)  # however busy the machine
    study = demo_study
    item = Item.objects.filter(study=study).exclude(poem_text="").order_by("pk").first()
    assert item is not None
    whole = poemfont.study_font(study).chars
    assert len(whole) > 1900  # the 850 KB subset's characters
    client = Client()
    found = faces(client, study.slug, f"item{item.pk}")
    assert len(found) == 2
    sizes, covered = [], []
    for url, ranges in found:
        assert re.fullmatch(
            rf"/s/{study.slug}/poem-font-(task|item)\d+-[0-9a-f]{{16}}\.woff2?", url
        )
        reply = client.get(url)
        assert reply.status_code == 200 and "immutable" in reply["Cache-Control"]
        data = streamed(reply)
        sizes.append(len(data))
        cmap = set(TTFont(io.BytesIO(data)).getBestCmap())
        assert code_points(ranges) <= cmap  # the face has every character it claims
        covered.append(code_points(ranges))
    task_face, item_face = covered
    assert not task_face & item_face  # disjoint: the browser fetches each once
    texts = [item.stem, item.poem_title, item.poem_author, item.poem_text, item.task.title]
    wanted = {ord(c) for t in texts for c in t if c.isprintable()}
    assert wanted <= task_face | item_face
    assert sizes[1] < 40_000, sizes  # the item's own face: a few dozen KB at most
    assert sum(sizes) < 150_000, sizes  # and with its task's (cached across the task)
    assert len(item_face) < 200


def test_welcome_and_screening_have_their_own_faces_and_unknown_pages_404(
    demo_study: Study, settings: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(poemfont, "subset_bytes", lambda chars, kind: chars.encode())
    study = demo_study
    client = Client()
    ((welcome_url, welcome),) = faces(client, study.slug, "welcome")
    assert {ord(c) for c in study.consent if c.isprintable()} <= code_points(welcome)
    ((screening_url, _ranges),) = faces(client, study.slug, "screening")
    assert "-welcome-" in welcome_url and "-screening-" in screening_url
    assert client.get(welcome_url).status_code == 200
    assert client.get(f"/s/{study.slug}/poem-font.css", {"for": "item0"}).status_code == 404
    assert client.get(f"/s/{study.slug}/poem-font.css", {"for": "nope"}).status_code == 404
    stale = re.sub(r"-[0-9a-f]{16}\.", "-0123456789abcdef.", welcome_url)
    assert client.get(stale).status_code == 404
    # the page links its own faces
    page = client.get(f"/s/{study.slug}/").content.decode()
    assert f"/s/{study.slug}/poem-font.css?for=welcome" in page
