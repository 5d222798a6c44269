"""Found by driving a Tang-poetry study through the pages and the API: a stem that is a
poem keeps its line breaks, and every spelling of a shown option goes through the
shuffle (a letter or "01" used to be taken as a canonical index)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation import assignment as strategy
from annotation.models import Assignment, Response
from studies.models import Item
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db


def test_a_stem_keeps_its_line_breaks_and_stays_escaped() -> None:
    build_study(n_items=1, per_participant=1)
    Item.objects.update(stem="床前明月光，\n疑是地上霜。<b>x</b>\n\n这首诗的题目是？")
    v = Volunteer("s")
    v.consent()
    v.screen(0)
    html = v.question_page().content.decode()
    assert "床前明月光，<br>疑是地上霜。&lt;b&gt;x&lt;/b&gt;<br><br>这首诗的题目是？" in html


@pytest.mark.parametrize(
    ("spelling", "position"), [("B", 1), ("b", 1), (" C ", 2), ("01", 1), (1.0, 1), (3, 3)]
)
def test_every_spelling_of_a_shown_option_is_mapped_through_the_shuffle(
    spelling: object, position: int
) -> None:
    perm = {"answer": [3, 0, 2, 1]}
    assert strategy.to_canonical("choice", perm, spelling) == perm["answer"][position]
    assert strategy.to_canonical("best_worst", perm, {"best": spelling, "worst": 0}) == {
        "best": perm["answer"][position],
        "worst": 3,
    }


def test_unmappable_spellings_still_reach_the_answer_rule_unchanged() -> None:
    perm = {"answer": [3, 0, 2, 1]}
    for raw in ("E", 4, -1, True, 1.5, "x", None):
        assert strategy.to_canonical("choice", perm, raw) == raw


def test_a_letter_through_the_api_stores_the_option_the_volunteer_saw() -> None:
    build_study(n_items=1, per_participant=1, shuffle_options=True)
    client = APIClient()
    enrol = client.post(
        "/api/v1/volunteer/studies/s/enrol/",
        {"consent": True, "screening": {"bg": 0}},
        format="json",
    ).json()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {enrol['token']}")
    item = client.get("/api/v1/volunteer/next/").json()["item"]
    a = Assignment.objects.get(pk=item["assignment"])
    a.option_order = {"answer": [3, 0, 2, 1]}  # a known shuffle, first shown != first
    a.save(update_fields=["option_order"])
    reply = client.post(
        "/api/v1/volunteer/answers/",
        {"assignment": a.pk, "answer": "A"},
        format="json",
    )
    assert reply.status_code == 201, reply.content
    assert Response.objects.get().value == 3  # shown A is canonical option 3


def test_a_task_guide_is_also_folded_above_the_answers_for_phones() -> None:
    # On a phone the aside beside the question would come after the Save button; a folded
    # copy sits between the question and its answers (site.css shows one or the other).
    build_study(n_items=1, per_participant=1)  # its choice task has a one-entry guide
    v = Volunteer("s")
    v.consent()
    v.screen(0)
    html = v.question_page().content.decode()
    inline = html.index('<details class="guide guide-inline">')
    assert html.index('id="stem"') < inline < html.index("<fieldset")
    assert "Style X" in html[inline : html.index("</details>", inline)]
    assert '<aside class="guide"' in html
