"""A reload that reorders, edits or resizes an answered item's options never silently
changes what its stored answers mean (a volunteer chose 甲; after the reload the answer
read 戊 and was regraded). It is refused, naming the item and how many raters answered
it, unless ``--remap`` says where each old option went; the stored answers are then
moved to the new positions in the same transaction, regraded, and the move reported."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation import services
from annotation.models import Assignment, Response
from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.models import Item, Study
from tests.loading.helpers import loader, snapshot
from tests.present import present
from tests.volunteer.conftest import build_study, enrol

pytestmark = pytest.mark.django_db
pool_load = loader("pool")
OPTIONS = ["甲", "乙", "丙", "丁", "戊"]
ITEM = "t0-choice-0000"


def _line(options: list[str], answer: int, ext: str = ITEM) -> str:
    return json.dumps(
        {"id": ext, "task": "t0-choice", "stem": "问", "options": options, "answer": answer},
        ensure_ascii=False,
    )


def _answered() -> tuple[Study, Response]:
    """One item (甲 乙 丙 丁 戊, key 丙) a volunteer answered 甲 (wrongly)."""
    study = build_study(n_items=1, per_participant=1, shuffle_options=False)
    Item.objects.update(options=[{"text": t} for t in OPTIONS], answer={"answer": 2})
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    services.response_submit(participant=p, assignment_id=a.pk, answer=0)
    return study, Response.objects.get()


def _chosen_text(response: Response) -> str:
    response.refresh_from_db()
    return str(Item.objects.get(pk=response.item_id).options[int(present(response.value))]["text"])


REVERSED = list(reversed(OPTIONS))  # 戊 丁 丙 乙 甲, key still 丙 (now at 2)


def test_reordering_an_answered_items_options_is_refused_naming_the_item() -> None:
    study, response = _answered()
    before = snapshot()
    with pytest.raises(LoadError) as err:
        pool_load(Source("pool.jsonl", _line(REVERSED, 2).encode(), "jsonl"), study=study)
    [problem] = err.value.problems
    assert (problem.file, problem.line, problem.field) == ("pool.jsonl", 1, "options")
    assert f"item {ITEM!r}" in problem.message and "1 rater answered it" in problem.message
    assert "--remap" in problem.message
    assert snapshot() == before
    assert _chosen_text(response) == "甲"


def test_with_a_remap_the_stored_answer_keeps_its_meaning(tmp_path: Path) -> None:
    study, response = _answered()
    assert response.correct is False
    pool = tmp_path / "pool.jsonl"
    pool.write_text(_line(REVERSED, 2), "utf-8")
    out = io.StringIO()
    remap = json.dumps({ITEM: [4, 3, 2, 1, 0]})
    call_command("load_pool", str(pool), "--study", study.slug, "--remap", remap, stdout=out)
    assert _chosen_text(response) == "甲" and response.value == 4
    assert response.correct is False
    assert "answers remapped: 1" in out.getvalue()
    assert "answers remapped: 1" in out.getvalue()
    order = Assignment.objects.get().option_order.get("answer")
    assert order is None or sorted(order) == [0, 1, 2, 3, 4]


def test_a_remap_can_come_from_a_file_and_regrades(tmp_path: Path) -> None:
    study, response = _answered()
    pool = tmp_path / "pool.jsonl"
    pool.write_text(_line(["乙", "甲", "丙", "丁", "戊"], 1), "utf-8")  # 甲 is now the key
    remap = tmp_path / "remap.json"
    remap.write_text(json.dumps({ITEM: {"answer": [1, 0, 2, 3, 4]}}), "utf-8")
    call_command(
        "load_pool", str(pool), "--study", study.slug, "--remap", str(remap), stdout=io.StringIO()
    )
    assert _chosen_text(response) == "甲" and response.correct is True


@pytest.mark.parametrize(
    ("remap", "message"),
    [
        ({ITEM: [4, 3, 2, 1]}, "gives 4 positions for 5 old options"),
        ({ITEM: [0, 0, 2, 3, 4]}, "each new position must be a different number from 0 to 4"),
        ({ITEM: [None, 3, 2, 1, 0]}, "drops old option 0, which 1 stored answer(s) chose"),
        ({ITEM: [4, 3, 2, 1, 0], "nope": [0]}, "item 'nope' is not in this file"),
        ({ITEM: ["a"]}, "must be a list of whole numbers"),
        ({ITEM: {"who": [0]}}, "is not an option list of item"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_a_wrong_remap_is_refused_and_nothing_changes(remap: object, message: str) -> None:
    study, response = _answered()
    before = snapshot()
    source = Source("pool.jsonl", _line(REVERSED, 2).encode(), "jsonl")
    with pytest.raises(LoadError, match=re.escape(message)):
        pool_load(source, study=study, remap=remap)
    assert snapshot() == before and _chosen_text(response) == "甲"


def test_a_remap_of_an_item_whose_options_do_not_change_is_refused() -> None:
    study, _ = _answered()
    source = Source("pool.jsonl", _line(OPTIONS, 2).encode(), "jsonl")
    with pytest.raises(LoadError, match="its options do not change in this file"):
        pool_load(source, study=study, remap={ITEM: [0, 1, 2, 3, 4]})


def test_an_item_nobody_answered_or_holds_may_change_freely() -> None:
    study = build_study(n_items=1, per_participant=1)
    Item.objects.update(options=[{"text": t} for t in OPTIONS], answer={"answer": 2})
    summary = pool_load(Source("p.jsonl", _line(REVERSED, 2).encode(), "jsonl"), study=study)
    assert summary.updated == 1
    assert [o["text"] for o in Item.objects.get().options] == REVERSED


def test_a_multi_part_item_is_remapped_part_by_part() -> None:
    study = build_study(kinds=("multi",), n_items=1, per_participant=1, shuffle_options=False)
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    services.response_submit(participant=p, assignment_id=a.pk, answer={"who": 1, "what": 3})
    item = Item.objects.get()
    parts = [
        {
            "key": q["key"],
            "prompt": q["prompt"],
            "options": [o["text"] for o in q["options"]],
            "answer": present(item.answer)[q["key"]],
        }
        for q in item.parts
    ]
    old_who = list(parts[0]["options"])
    parts[0]["options"] = old_who[::-1]
    parts[0]["answer"] = len(old_who) - 1 - parts[0]["answer"]
    line = json.dumps(
        {"id": item.external_id, "task": item.task.slug, "stem": "问", "parts": parts}
    )
    source = Source("pool.jsonl", line.encode(), "jsonl")
    with pytest.raises(LoadError) as err:
        pool_load(source, study=study)
    assert err.value.problems[0].field == "parts"
    n = len(old_who)
    pool_load(source, study=study, remap={item.external_id: {"who": list(range(n))[::-1]}})
    who = Response.objects.get(field="who")
    assert who.value == n - 2 and who.correct is True
    assert Response.objects.get(field="what").value == 3


def test_the_command_says_what_is_wrong_with_the_remap_argument(tmp_path: Path) -> None:
    study, _ = _answered()
    pool = tmp_path / "pool.jsonl"
    pool.write_text(_line(REVERSED, 2), "utf-8")
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("load_pool", str(pool), "--study", study.slug, "--remap", "{oops")
    with pytest.raises(CommandError, match="cannot read the file"):
        call_command("load_pool", str(pool), "--study", study.slug, "--remap", "missing.json")


@pytest.mark.parametrize("positions", [[0, 1, 2, 3, 4], [1, 0, 2, 3, 4]])
def test_a_remap_that_moves_a_chosen_option_away_from_its_text_is_refused(
    positions: list[int],
) -> None:
    """Before, ``{"t0-choice-0000": [0, 1, 2, 3, 4]}`` with the options reversed was taken
    ("0 answers remapped"): the stored 甲 then read 戊, as a reload without a remap did."""
    study, response = _answered()
    before = snapshot()
    with pytest.raises(LoadError) as err:
        pool_load(
            Source("pool.jsonl", _line(REVERSED, 2).encode(), "jsonl"),
            study=study,
            remap={ITEM: {"answer": positions}},
        )
    [problem] = err.value.problems
    assert problem.field == f"remap.{ITEM}.answer"
    assert "old option 0" in problem.message and "position 4" in problem.message
    assert snapshot() == before
    assert _chosen_text(response) == "甲"
