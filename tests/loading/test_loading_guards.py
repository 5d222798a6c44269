"""Guards found by a review with data the loaders had not seen: each file is refused
(file, line, field named) and leaves the database exactly as it was, or a change loads."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Participant, Response
from studies.models import Item
from tests.loading.helpers import snapshot, write_jsonl
from tests.present import present

pytestmark = pytest.mark.django_db
STUDY = ["--study", "poetry-understanding"]


def refused(*args: str) -> str:
    before = snapshot()
    with pytest.raises(CommandError) as err:
        call_command(*args)
    assert snapshot() == before
    return str(err.value)


def test_csv_pool_with_a_gap_between_options_is_refused(example_study, tmp_path) -> None:
    # option_b empty, option_c filled: letters would shift, "B" would silently mean "c".
    path = tmp_path / "gap.csv"
    path.write_text("id,task,stem,option_a,option_b,option_c,answer\ng-1,ck,问,a,,c,B\n")
    message = refused("load_pool", str(path), *STUDY)
    assert "gap.csv, line 2, field 'option_b': is empty but option_c is not" in message


def test_generation_cannot_take_over_an_answered_question(
    example_study, formats_dir, tmp_path
) -> None:
    call_command("load_responses", str(formats_dir / "responses.jsonl"), *STUDY)
    gen = {"model": "m", "generation": {"id": "ck-001", "task": "quality", "text": "床前明月光"}}
    message = refused("load_llm_outputs", str(write_jsonl(tmp_path / "g.jsonl", [gen])), *STUDY)
    assert "g.jsonl, line 1, field 'generation.id': item 'ck-001' already has responses" in message


def test_a_generation_replaces_only_the_same_models_poem(example_study, tmp_path) -> None:
    # poem-0001 is in the pool as model:qwen2.5-72b's poem (formats.md §2): another
    # model's generation with that id would silently replace its text; the same model's
    # is an update of its own poem.
    text = "深院晓莺惊梦残，小楼春色入帘寒。"
    other = {"model": "gpt-4o", "generation": {"id": "poem-0001", "task": "quality", "text": text}}
    message = refused("load_llm_outputs", str(write_jsonl(tmp_path / "o.jsonl", [other])), *STUDY)
    assert (
        "o.jsonl, line 1, field 'generation.id': item 'poem-0001' already exists, from "
        "model:qwen2.5-72b: a generation of 'model:gpt-4o' cannot replace it" in message
    )
    same = {
        "model": "qwen2.5-72b",
        "generation": {"id": "poem-0001", "task": "quality", "text": text},
    }
    call_command("load_llm_outputs", str(write_jsonl(tmp_path / "s.jsonl", [same])), *STUDY)
    assert Item.objects.get(external_id="poem-0001").poem_text == text


def test_pool_item_with_responses_cannot_move_task(example_study, formats_dir, tmp_path) -> None:
    call_command("load_responses", str(formats_dir / "responses.jsonl"), *STUDY)
    moved = {"id": "ck-001", "task": "oq", "stem": "问", "options": ["a", "b", "c"]}
    message = refused("load_pool", str(write_jsonl(tmp_path / "p.jsonl", [moved])), *STUDY)
    assert "p.jsonl, line 1, field 'task': item 'ck-001' already has responses" in message


def test_participant_stored_in_one_group_cannot_arrive_in_another(
    example_study, formats_dir, tmp_path
) -> None:
    call_command("load_responses", str(formats_dir / "responses.jsonl"), *STUDY)  # p-8f3a in C
    row = {
        "participant": "p-8f3a",
        "group": "A",
        "item": "oq-005",
        "answer": {"best": 0, "worst": 1},
    }
    message = refused("load_responses", str(write_jsonl(tmp_path / "r.jsonl", [row])), *STUDY)
    assert (
        "r.jsonl, line 1, field 'group': participant 'p-8f3a' is already stored in group 'C'"
        in message
    )


def test_duplicate_aggregate_and_empty_llm_file_are_refused(example_study, tmp_path) -> None:
    rows = [
        {"model": "m", "task": "ck", "accuracy": 0.5},
        {"model": "m", "task": "ck", "accuracy": 0.9},
    ]
    message = refused("load_llm_outputs", str(write_jsonl(tmp_path / "a.jsonl", rows)), *STUDY)
    assert (
        "a.jsonl, line 2, field 'task': m already has 'accuracy' for task 'ck' on line 1" in message
    )
    (tmp_path / "e.jsonl").write_text("")
    assert "holds no LLM outputs" in refused("load_llm_outputs", str(tmp_path / "e.jsonl"), *STUDY)


def test_a_corrected_answered_at_is_loaded(example_study, tmp_path) -> None:
    row = {
        "participant": "p-1",
        "group": "A",
        "item": "ck-001",
        "answer": 0,
        "answered_at": "2026-11-20T10:15:00Z",
    }
    call_command("load_responses", str(write_jsonl(tmp_path / "r.jsonl", [row])), *STUDY)
    row["answered_at"] = "2025-01-02T03:04:05Z"
    call_command("load_responses", str(write_jsonl(tmp_path / "r.jsonl", [row])), *STUDY)
    assert (
        present(Response.objects.get(rater__kind="human").answered_at).isoformat()
        == "2025-01-02T03:04:05+00:00"
    )
    before = snapshot()
    call_command("load_responses", str(write_jsonl(tmp_path / "r.jsonl", [row])), *STUDY)
    assert snapshot() == before


def test_imported_answers_failing_an_attention_check_flag_the_participant(
    example_study, tmp_path
) -> None:
    # The example study allows no failed check (attention_max_failures 0): one wrong
    # answer to a check flags the participant, as in the volunteer flow, and the report
    # then leaves them out. Loading the same file again counts nothing twice.
    check = {
        "id": "ck-chk",
        "task": "ck",
        "stem": "请选“杜甫”",
        "options": ["李白", "杜甫", "王维"],
        "answer": 1,
        "attention_check": True,
    }
    call_command("load_pool", str(write_jsonl(tmp_path / "c.jsonl", [check])), *STUDY)
    rows = [
        {"participant": "p-wrong", "group": "A", "item": "ck-chk", "answer": 0},
        {"participant": "p-right", "group": "A", "item": "ck-chk", "answer": 1},
    ]
    path = write_jsonl(tmp_path / "r.jsonl", rows)
    out = io.StringIO()
    call_command("load_responses", str(path), *STUDY, stdout=out)
    assert "participants flagged (failed attention checks): 1" in out.getvalue()
    call_command("load_responses", str(path), *STUDY, stdout=io.StringIO())
    people = {
        p.rater.name: (p.attention_failures, p.flagged)
        for p in Participant.objects.select_related("rater")
    }
    assert people == {"p-wrong": (1, True), "p-right": (0, False)}
    # A corrected key for the check re-grades it: now p-right's answer is the wrong one.
    check["answer"] = 0
    call_command("load_pool", str(write_jsonl(tmp_path / "c2.jsonl", [check])), *STUDY)
    people = {
        p.rater.name: (p.attention_failures, p.flagged)
        for p in Participant.objects.select_related("rater")
    }
    assert people == {"p-wrong": (0, True), "p-right": (1, True)}
