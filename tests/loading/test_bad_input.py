"""A file with any bad line exits non-zero, names file, line and field, and changes nothing."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from tests.loading.helpers import snapshot, write_jsonl

pytestmark = pytest.mark.django_db
STUDY = ["--study", "poetry-understanding"]
GOOD = {"id": "ck-100", "task": "ck", "stem": "问", "options": ["甲", "乙", "丙"], "answer": 1}


def run_fails(*args: str) -> str:
    with pytest.raises(CommandError) as err:
        call_command(*args)
    return str(err.value)


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (
            '{"id": "ck-101", "task": "ck", "stem": "问", "options": ["甲", "乙"',
            "line 2: not valid JSON",
        ),
        (
            {**GOOD, "id": "ck-101", "task": "nope"},
            "line 2, field 'task': 'nope' is not a task of this study",
        ),
        (
            {**GOOD, "id": "ck-101", "answer": 3},
            "line 2, field 'answer': option 3 is out of range: there are 3 options",
        ),
        (
            {**GOOD, "id": "ck-101", "answer": "Z"},
            "line 2, field 'answer': 'Z' is not an option index",
        ),
        ({**GOOD, "id": "ck-100"}, "line 2, field 'id': id 'ck-100' already used on line 1"),
        (
            {**GOOD, "id": "ck-101", "options": ["甲"]},
            "line 2, field 'options': has 1 options; 2 to 10 are allowed",
        ),
        (
            {
                "id": "oq-101",
                "task": "oq",
                "stem": "三首",
                "options": ["一", "二", "三"],
                "answer": {"best": 1, "worst": 1},
            },
            "line 2, field 'answer': best and worst must be different options",
        ),
        (
            {
                "id": "au-101",
                "task": "au",
                "stem": "句",
                "parts": [{"key": "person", "options": ["甲", "乙"], "answer": 5}],
            },
            "line 2, field 'parts[0].answer': option 5 is out of range",
        ),
        (
            {"id": "p-101", "task": "quality", "poem": {"text": "", "form": "ci:浣溪沙"}},
            "line 2, field 'poem.text': is required",
        ),
        (
            {"id": "p-101", "task": "quality", "poem": {"text": "诗", "form": "sonnet"}},
            "line 2, field 'poem.form': 'sonnet' is not a form",
        ),
        ({"task": "ck", "stem": "问", "options": ["甲", "乙"]}, "line 2, field 'id': is required"),
    ],
)
def test_bad_pool_line_is_named_and_nothing_changes(example_study, tmp_path, bad, expected) -> None:
    path = write_jsonl(tmp_path / "pool.jsonl", [GOOD, bad, {**GOOD, "id": "ck-102"}])
    before = snapshot()
    message = run_fails("load_pool", str(path), *STUDY)
    assert f"{path}, {expected}" in message, message
    assert "nothing was loaded" in message
    assert snapshot() == before


def test_every_problem_is_reported_not_just_the_first(example_study, tmp_path) -> None:
    rows = [{**GOOD, "id": f"ck-{i}", "answer": 9} for i in range(5)]
    message = run_fails("load_pool", str(write_jsonl(tmp_path / "p.jsonl", rows)), *STUDY)
    assert message.startswith("5 problems found")
    assert all(f"line {n}, field 'answer'" in message for n in range(1, 6))


@pytest.mark.slow
def test_csv_pool_with_a_bad_row_names_its_line(example_study, tmp_path) -> None:
    path = tmp_path / "pool.csv"
    path.write_text(
        "id,task,stem,option_a,option_b,option_c,answer\n"
        "ck-200,ck,哪位诗人？,李白,杜甫,王维,B\n"
        '"ck-201",ck,"多行\n题干",李白,杜甫,王维,D\n',
        encoding="utf-8",
    )
    before = snapshot()
    message = run_fails("load_pool", str(path), *STUDY)
    assert f"{path}, line 3, field 'answer': option 'D' is out of range" in message
    assert snapshot() == before


def test_not_utf8_is_reported_with_its_line(example_study, tmp_path) -> None:
    # A UTF-8 file with a broken byte (b"\xb0\xa1" alone would be GB18030 text: 啊,
    # read as such, tests/loading/test_encodings_and_workbooks.py)
    path = tmp_path / "pool.jsonl"
    path.write_bytes('{"id": "甲"}\n{"id": "\xb0"}\n'.encode().replace(b"\xc2\xb0", b"\xb0"))
    assert "line 2: not valid UTF-8" in run_fails("load_pool", str(path), *STUDY)


def test_study_file_problems_name_the_yaml_line(tmp_path) -> None:
    path = tmp_path / "study.yaml"
    path.write_text(
        "slug: s1\ntitle: 测试\ngroups:\n  - {slug: A, name: 甲}\ntasks:\n  - slug: t1\n    title: 题\n    kind: essay\n",
        encoding="utf-8",
    )
    message = run_fails("load_study", str(path))
    assert f"{path}, line 8, field 'tasks[0].kind': 'essay' is not one of" in message


def test_study_screening_must_name_defined_groups(tmp_path) -> None:
    path = tmp_path / "study.json"
    path.write_text(
        '{"slug": "s2", "title": "t", "groups": [{"slug": "A", "name": "a"}],\n'
        ' "screening": [{"key": "q", "prompt": "?", "options": [{"label": "x", "group": "A"}, {"label": "y", "group": "Z"}]}],\n'
        ' "tasks": [{"slug": "t", "title": "t", "kind": "choice"}]}\n',
        encoding="utf-8",
    )
    assert "line 2, field 'screening[0].options[1].group': no group 'Z' is defined" in run_fails(
        "load_study", str(path)
    )


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ({"model": "m", "item": "nope", "answer": 0}, "field 'item': no item 'nope'"),
        (
            {"model": "m", "item": "poem-0001", "ratings": {"prosody": 6, "aesthetic": 3}},
            "field 'ratings.prosody': 6 is outside the scale 1–5",
        ),
        (
            {"model": "m", "item": "poem-0001", "ratings": {"prosody": 4}},
            "field 'ratings.aesthetic': is missing",
        ),
        (
            {"model": "m", "item": "ck-001", "ratings": {"prosody": 4}},
            "field 'ratings': this item is a question: give 'answer', not 'ratings'",
        ),
        (
            {"model": "m", "item": "oq-005", "answer": {"best": 0}},
            'field \'answer\': must be {"best": i, "worst": j}',
        ),
        ({"item": "ck-001", "answer": 0}, "field 'model': is required"),
        (
            {"model": "m", "task": "ck", "accuracy": "high"},
            "field 'accuracy': 'high' is not a number",
        ),
        (
            {"model": "m", "generation": {"id": "g1", "task": "ck", "text": "诗"}},
            "field 'generation.task': generations become rating items",
        ),
    ],
)
@pytest.mark.slow
def test_bad_llm_output_line(example_study, tmp_path, bad, expected) -> None:
    path = write_jsonl(tmp_path / "llm.jsonl", [{"model": "m", "item": "ck-001", "answer": 0}, bad])
    before = snapshot()
    message = run_fails("load_llm_outputs", str(path), *STUDY)
    assert f"{path}, line 2, {expected}" in message, message
    assert snapshot() == before


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (
            {"participant": "p1", "group": "Z", "item": "ck-001", "answer": 0},
            "field 'group': 'Z' is not a group",
        ),
        (
            {"participant": "p1", "group": "A", "item": "ck-001", "answer": 0},
            "field 'answer': participant 'p1' already answered",
        ),
        (
            {
                "participant": "p1",
                "group": "B",
                "item": "au-017",
                "answer": {"person": 0, "source": 0, "meaning": 0},
            },
            "field 'group': participant 'p1' is in group 'A' on line 1",
        ),
        (
            {
                "participant": "p2",
                "group": "A",
                "item": "ck-001",
                "answer": 0,
                "answered_at": "yesterday",
            },
            "field 'answered_at': 'yesterday' is not an ISO 8601 date-time",
        ),
        (
            {
                "participant": "p2",
                "group": "A",
                "item": "au-017",
                "answer": {"person": 0, "source": 0},
            },
            "field 'meaning': is missing",
        ),
    ],
)
def test_bad_response_line(example_study, tmp_path, bad, expected) -> None:
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [{"participant": "p1", "group": "A", "item": "ck-001", "answer": 0}, bad],
    )
    before = snapshot()
    message = run_fails("load_responses", str(path), *STUDY)
    assert f"{path}, line 2, {expected}" in message, message
    assert snapshot() == before


def test_missing_study_and_missing_file_are_clear(tmp_path) -> None:
    pool = write_jsonl(tmp_path / "x.jsonl", [GOOD])
    assert "no study 'nope': load its definition first" in run_fails(
        "load_pool", str(pool), "--study", "nope"
    )
    assert "cannot read the file" in run_fails("load_study", str(tmp_path / "missing.json"))
