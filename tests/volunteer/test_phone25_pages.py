"""Issue 25, item 8, server side: the volunteer pages are never kept by the browser
(``Cache-Control: no-store``, so Back shows the current question), a task's instructions
open its first question (no page of their own), an unsaved choice has a storage key that
names no participant id, and each study's poems get the shipped CJK serif subset to the
study's characters, as WOFF, built once and kept on disk."""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from fontTools.ttLib import TTFont

from annotation import poemfont
from annotation.models import Participant
from studies.models import Item, Study
from tests.present import present
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer


def streamed(reply: Any) -> bytes:
    return b"".join(reply.streaming_content)


pytestmark = pytest.mark.django_db
POEM = "明月几时有\n把酒问青天\n不知天上宫阙，今夕是何年。"


def no_store(response: Any) -> bool:
    return "no-store" in response.get("Cache-Control", "")


def test_every_page_of_the_flow_is_sent_with_no_store() -> None:
    build_study(kinds=("choice",), n_items=1, per_participant=1)
    v = Volunteer("s")
    assert no_store(v.client.get(v.url()))
    start = v.consent()
    assert start.status_code == 200 and no_store(start)
    assert no_store(v.client.get(v.url("screening/")))
    refused = v.client.post(v.url("screening/"), {})
    assert refused.status_code == 400 and no_store(refused)
    v.screen()
    page = v.client.get(v.url("q/"))
    assert page.status_code == 200 and no_store(page)
    _kind, assignment, _names = Volunteer.form_of(page)
    wrong = v.client.post(v.url("q/"), {"assignment": assignment})  # nothing chosen
    assert wrong.status_code == 400 and no_store(wrong)
    assert no_store(v.client.get(v.url("resume/")))
    v.complete()
    assert no_store(v.client.get(v.url("finish/")))


def test_a_tasks_instructions_open_its_first_question_and_fold_in_the_next() -> None:
    build_study(kinds=("choice",), n_items=3, per_participant=2)
    v = Volunteer("s")
    v.consent()
    v.screen()
    first = v.client.get(v.url("q/")).content.decode()
    assert 'id="begin"' not in first and "<fieldset" in first  # the question itself
    assert re.search(r'<details class="instructions-recall intro" open>', first)
    assert "Do the choice task." in first
    data = Volunteer.answer_data(*Volunteer.form_of(v.client.get(v.url("q/"))))
    assert v.client.post(v.url("q/"), data).status_code == 302
    second = v.client.get(v.url("q/")).content.decode()
    assert '<details class="instructions-recall">' in second and " open>" not in second


def test_the_unsaved_choices_key_names_the_item_but_not_the_participant() -> None:
    build_study(kinds=("choice",), n_items=2, per_participant=1)
    v = Volunteer("s")
    v.consent()
    v.screen()
    html = v.question_page().content.decode()
    key = present(re.search(r'data-draft="([^"]+)"', html)).group(1)
    p = Participant.objects.get()
    item = p.assignments.get().item_id
    assert key.startswith("shiping-draft:") and key.endswith(f":{item}")
    assert p.public_id not in html


def _poem_study() -> Study:
    study = build_study(kinds=("rating",), n_items=1, per_participant=1, slug="font")
    Item.objects.filter(study=study).update(poem_text=POEM, poem_title="水调歌头")
    return study


def _font_url(client: Client, slug: str) -> str:
    css = client.get(f"/s/{slug}/poem-font.css")
    assert css.status_code == 200 and css["Content-Type"].startswith("text/css")
    assert "max-age=300" in css["Cache-Control"]
    text = css.content.decode()
    assert '@font-face { font-family: "Shiping Serif"' in text
    return present(re.search(r'url\("([^"]+)"\)', text)).group(1)


@pytest.mark.slow  # builds one subset (about 3 s)
def test_the_study_font_is_a_small_valid_subset_of_its_characters_built_once(
    settings, tmp_path: Path, monkeypatch
) -> None:
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(poemfont, "WAIT_SECONDS", 120)  # however busy the machine
    study = _poem_study()
    client = Client()
    url = _font_url(client, study.slug)
    assert re.fullmatch(r"/s/font/poem-font-[0-9a-f]{16}\.woff2?", url)
    reply = client.get(url)
    assert reply.status_code == 200
    assert reply["Content-Type"] == f"font/{poemfont.flavor()}"
    assert "immutable" in reply["Cache-Control"]
    data = streamed(reply)
    assert 1_000 < len(data) < 100_000  # a few dozen KB, not the 7 MB source
    font = TTFont(io.BytesIO(data))
    assert font.flavor == poemfont.flavor()
    cmap = font.getBestCmap()
    wanted = set(POEM.replace("\n", "")) | set("水调歌头0123456789") | set("Beauty")
    assert {c for c in wanted if ord(c) not in cmap} == set()
    assert ord("鹅") not in cmap  # a character the study does not show is left out
    assert "SIL Open Font License" in str(font["name"].getDebugName(13))
    # Cached on disk by study and hash: the second request builds nothing.
    cached = [p.name for p in (tmp_path / "fonts").iterdir()]
    assert cached == [f"{study.pk}-{url.rsplit('-', 1)[1]}"]

    def refuse(*args: Any) -> bytes:
        raise AssertionError("built again")

    monkeypatch.setattr(poemfont, "subset_bytes", refuse)
    again = client.get(url)
    assert streamed(again) == data


def test_new_characters_give_a_new_font_url_and_the_old_one_is_gone(
    settings, tmp_path: Path, monkeypatch
) -> None:
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(poemfont, "subset_bytes", lambda chars, kind: chars.encode())
    study = _poem_study()
    client = Client()
    old = _font_url(client, study.slug)
    Item.objects.filter(study=study).update(poem_text=POEM + "\n鹅鹅鹅")
    new = _font_url(client, study.slug)
    assert new != old
    assert client.get(old).status_code == 404
    assert "鹅" in streamed(client.get(new)).decode()
    assert client.get("/s/font/poem-font-0123456789abcdef.exe").status_code == 404


def test_a_font_still_being_built_is_a_503_the_browser_does_not_keep(
    settings, tmp_path: Path, monkeypatch
) -> None:
    settings.DATA_DIR = tmp_path
    release = threading.Event()

    def slow(chars: str, kind: str) -> bytes:
        release.wait(10)
        return b"font"

    monkeypatch.setattr(poemfont, "subset_bytes", slow)
    monkeypatch.setattr(poemfont, "WAIT_SECONDS", 0.05)
    study = _poem_study()
    client = Client()
    url = _font_url(client, study.slug)  # starts the build
    busy = client.get(url)
    assert busy.status_code == 503 and "no-store" in busy["Cache-Control"]
    assert busy["Retry-After"] == "5"
    release.set()
    monkeypatch.setattr(poemfont, "WAIT_SECONDS", 10)
    ready = client.get(url)
    assert ready.status_code == 200 and streamed(ready) == b"font"


def test_a_draft_studys_font_is_for_staff_who_may_see_it_only(admin_client) -> None:
    study = _poem_study()
    Study.objects.filter(pk=study.pk).update(status=Study.Status.DRAFT)
    assert Client().get("/s/font/poem-font.css").status_code == 404
    assert admin_client.get("/s/font/poem-font.css").status_code == 200
    assert Client().get("/s/nothing/poem-font.css").status_code == 404


def test_the_study_pages_link_their_font() -> None:
    build_study(kinds=("rating",), n_items=1, per_participant=1)
    v = Volunteer("s")
    link = '<link rel="stylesheet" href="/s/s/poem-font.css?for={}">'
    assert link.format("welcome") in v.client.get(v.url()).content.decode()
    v.consent()
    assert link.format("screening") in v.client.get(v.url("screening/")).content.decode()
    v.screen()
    page = v.question_page().content.decode()
    item = Participant.objects.get().assignments.get().item_id
    # each page its own faces (annotation.poemfont; tests/volunteer/test_page_fonts.py)
    assert link.format(f"item{item}") in page


def test_the_characters_of_a_study_cover_what_its_pages_show() -> None:
    study = _poem_study()
    chars = poemfont.characters(poemfont.study_texts(study))
    assert set(POEM.replace("\n", "")) <= set(chars)
    assert set("Test study Consent text. Background? Option A") <= set(chars)
    assert set("0123456789，。：？") <= set(chars) and "\n" not in chars
