"""The loader messages issue 11 (item 12) found misleading, checked again (issue 26,
defect 5): each says what is wrong with the value as it is, in English (the command line,
the API) and in Chinese (the admin). A positive number is never told it "must be ≥ 0"; an
unclosed CSV quote is named on its row and cell, not blamed on ``options``; a repeated
JSON key is named (tests/loading/test_duplicate_keys.py and, for request bodies,
tests/api/test_duplicate_keys_in_bodies.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from studies.loading.problems import LoadError, Problem
from studies.loading.readers import Source
from studies.models import Study
from tests.loading.helpers import loader

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
pytestmark = pytest.mark.django_db


def _problems(kind: str, name: str, text: str, **kwargs: Any) -> list[Problem]:
    fmt = name.rsplit(".", 1)[1]
    with pytest.raises(LoadError) as caught:
        loader(kind)(Source(name, text.encode(), fmt), **kwargs)
    return caught.value.problems


def _study(**change: Any) -> str:
    data = json.loads((FORMATS / "study.json").read_text("utf-8"))
    data["slug"] = "messages"
    for path, value in change.items():
        node = data
        *parents, last = path.split("__")
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[last] = value
    return json.dumps(data, ensure_ascii=False, indent=2)


def _only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, [str(p) for p in problems]
    return problems[0]


def _never_ge_zero(problem: Problem) -> None:
    assert "≥ 0" not in problem.message
    assert "≥ 0" not in problem.translations["zh-hans"]


@pytest.mark.parametrize(
    ("value", "english", "chinese"),
    [
        (3_000_000_000, "3000000000 is too large: the largest allowed is 2147483647", "太大"),
        (10**30, "is too large", "太大"),
        (2.5, "2.5 is not a whole number", "不是整数"),
        ("5", "'5' is text: write the number without quotes", "去掉引号"),
        (-1, "-1 is too small: the smallest allowed is 0", "太小"),
    ],
)
def test_a_task_s_per_participant_says_what_is_wrong(
    value: Any, english: str, chinese: str
) -> None:
    problems = _problems("study", "study.json", _study(tasks__0__per_participant=value))
    problem = _only(problems)
    assert problem.field == "tasks[0].per_participant"
    assert english in problem.message
    assert chinese in problem.translations["zh-hans"]
    if not (isinstance(value, int) and value < 0):
        _never_ge_zero(problem)


def test_the_study_s_target_is_named_once_and_where_it_is_written() -> None:
    problem = _only(_problems("study", "study.json", _study(target_per_item=3_000_000_000)))
    assert problem.field == "target_per_item"
    assert "3000000000 is too large" in problem.message
    _never_ge_zero(problem)
    problem = _only(_problems("study", "study.json", _study(groups__1__target_per_item=2.5)))
    assert problem.field == "groups[1].target_per_item"
    assert problem.message == "2.5 is not a whole number"
    assert problem.translations["zh-hans"] == "2.5 不是整数"
    problem = _only(_problems("study", "study.json", _study(target_per_item=[1])))
    assert problem.message == "must be a whole number or a map of group → number"
    assert "映射" in problem.translations["zh-hans"]


def test_a_setting_in_minutes_says_why() -> None:
    text = _study(settings={"estimated_minutes": 2.5})
    problem = _only(_problems("study", "study.json", text))
    assert problem.field == "settings.estimated_minutes"
    assert problem.message == "2.5 is not a whole number"
    assert "不是整数" in problem.translations["zh-hans"]
    problem = _only(_problems("study", "study.json", _study(settings={"estimated_minutes": 1e12})))
    assert problem.message == "1e+12 is too large: the largest allowed is 2147483647"
    assert "太大" in problem.translations["zh-hans"]


def test_a_response_s_time_says_what_is_wrong(example_study: Study) -> None:
    base = json.loads((FORMATS / "responses.jsonl").read_text("utf-8").splitlines()[0])
    for value, english, chinese in (
        (3_000_000_000, "3000000000 is too large", "太大"),
        (1.5, "1.5 is not a whole number", "不是整数"),
    ):
        line = json.dumps({**base, "time_ms": value}, ensure_ascii=False)
        problem = _only(_problems("responses", "responses.jsonl", line + "\n", study=example_study))
        assert (problem.line, problem.field) == (1, "time_ms")
        assert english in problem.message and chinese in problem.translations["zh-hans"]
        _never_ge_zero(problem)


def test_an_llm_output_s_sample_says_what_is_wrong(example_study: Study) -> None:
    base = json.loads((FORMATS / "llm_outputs.jsonl").read_text("utf-8").splitlines()[0])
    line = json.dumps({**base, "sample": 2**40}, ensure_ascii=False)
    problem = _only(_problems("llm_outputs", "out.jsonl", line, study=example_study))
    assert (problem.line, problem.field) == (1, "sample")
    assert f"{2**40} is too large" in problem.message
    assert "太大" in problem.translations["zh-hans"]
    _never_ge_zero(problem)


HEADER = "id,task,stem,option_a,option_b,option_c,option_d,answer\n"


def test_an_unclosed_csv_quote_is_named_on_its_row_and_cell_not_on_options(
    example_study: Study,
) -> None:
    text = (
        HEADER + 'x1,ck,问,甲,乙,丙,丁,0\nx2,ck,"春眠不觉晓,甲,乙,丙,丁,0\nx3,ck,问,甲,乙,丙,丁,1\n'
    )
    problem = _only(_problems("pool", "pool.csv", text, study=example_study))
    assert (problem.file, problem.line, problem.field) == ("pool.csv", 3, "stem")
    assert "never closed" in problem.message and "options" not in problem.message
    assert "没有闭合" in problem.translations["zh-hans"]


def test_a_quote_inside_a_cell_and_a_closed_quote_still_load(example_study: Study) -> None:
    text = HEADER + 'x1,ck,春眠"不觉晓,甲,乙,丙,丁,0\nx2,ck,"多行\n题干",甲,乙,丙,丁,1'
    summary = loader("pool")(Source("pool.csv", text.encode(), "csv"), study=example_study)
    assert summary.created == 2


def test_an_unclosed_quote_in_a_response_file_too(example_study: Study) -> None:
    text = 'participant,group,item,answer\np-1,C,ck-001,"1\n'
    problem = _only(_problems("responses", "responses.csv", text, study=example_study))
    assert (problem.line, problem.field) == (2, "answer")
    assert "never closed" in problem.message
