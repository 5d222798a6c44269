"""A file's syntax problems in the reader's language, and CSV rows a stray CR would split.

* JSON and YAML syntax errors are explained by translated texts (line, column, what is
  wrong), never Python's English (``Invalid control character at``), in zh-Hans too;
  a key named twice likewise.
* A carriage return outside a quoted cell that is not part of a CRLF line end refuses a
  CSV file (pool, responses, LLM outputs), naming its line and column: Python's csv would
  end a row there and read the rest as a row of its own (a response nobody gave).
* A responses CSV with the JSONL ``answer`` column is refused at its header, once.
* No message shows Python's ``None``.

Every refused file leaves the database as it was (``snapshot``)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.models import Response
from studies.loading.problems import Collector, LoadError, Problem
from studies.loading.readers import Source, lone_carriage_returns, read_records
from studies.models import Study
from tests.loading.helpers import loader, snapshot

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
LONG = "participant,group,item,field,value,time_ms\n"
ENGLISH_PARSER_WORDS = ("Invalid", "Expecting", "Unterminated", "Extra data", "at at", "None")


def _refused(kind: str, name: str, content: bytes, **kwargs: Any) -> list[Problem]:
    before = snapshot()
    with pytest.raises(LoadError) as caught:
        loader(kind)(Source(name, content, name.rsplit(".", 1)[1]), **kwargs)
    assert snapshot() == before  # nothing written
    return caught.value.problems


def _zh(problem: Problem) -> str:
    text = problem.translations["zh-hans"]
    assert not any(word in text for word in ENGLISH_PARSER_WORDS), text
    return text


# --- JSON and YAML -------------------------------------------------------------------


@pytest.mark.django_db
def test_a_study_file_with_a_key_twice_is_explained_in_chinese() -> None:
    text = '{\n  "slug": "dup",\n  "title": "一",\n  "title": "二"\n}\n'
    problems = _refused("study", "study_dup.json", text.encode())
    (problem,) = problems
    assert (problem.file, problem.line, problem.field) == ("study_dup.json", 4, "title")
    assert problem.message == "the key 'title' appears twice in one object: keep one"
    assert _zh(problem) == "键 'title' 在同一对象中出现了两次：只保留一个"


@pytest.mark.django_db
def test_a_raw_cr_inside_a_jsonl_string_is_named_in_chinese(example_study: Study) -> None:
    lines = (FORMATS / "responses.jsonl").read_text("utf-8").splitlines()
    bad = '{"participant": "p-9\r", "group": "C", "item": "ck-001", "answer": 1}'
    content = "\n".join([*lines, bad]).encode()
    before = Response.objects.count()
    (problem,) = _refused("responses", "resp_cr.jsonl", content, study=example_study)
    column = bad.index("\r") + 1
    assert (problem.file, problem.line, problem.field) == ("resp_cr.jsonl", 3, None)
    assert problem.message.startswith(f"not valid JSON at line 3, column {column}: ")
    assert "control character (carriage return, CR)" in problem.message
    assert _zh(problem).startswith(
        f"JSON 格式错误，第 3 行第 {column} 列：字符串中含控制字符（回车"
    )
    assert Response.objects.count() == before


@pytest.mark.parametrize(
    ("line", "english", "chinese"),
    [
        ('{"id": "x", "stem": "a\tb"}', "control character (tab)", "控制字符（制表符）"),
        ('{"id": "x", "stem": "abc}', "never closed", "没有结束"),
        ('{"id": "x", "stem": "\\q"}', "escape JSON does not know", "不认识的转义"),
        ('{"id": "x", "stem": "\\u12"}', "four hexadecimal digits", "四位十六进制"),
        ('{"id": "x",}', "key in double quotes", "双引号括起的键"),
        ("{'id': 'x'}", "key in double quotes", "双引号括起的键"),
        ('{"id" "x"}', "expected a colon", "冒号"),
        ('{"id": "x" "task": "ck"}', "expected a comma", "逗号"),
        ('{"id": }', "expected a value", "应有一个值"),
        ('{"id": "x"} {"id": "y"}', "one JSON object per line", "每行只能有一个"),
        ("[1, 2]", "expected a JSON object ({…}), got a list", "实际是列表"),
        ('{"x": NaN}', "NaN is not a number JSON allows", "不是 JSON 允许的数字"),
    ],
)
@pytest.mark.django_db
def test_each_json_syntax_error_is_said_in_both_languages(
    example_study: Study, line: str, english: str, chinese: str
) -> None:
    content = (
        '{"id": "ok-1", "task": "ck", "stem": "问", "options": ["甲", "乙"]}\n' + line
    ).encode()
    (problem,) = _refused("pool", "pool.jsonl", content, study=example_study)
    assert problem.line == 2
    assert english in problem.message
    assert chinese in _zh(problem)


@pytest.mark.parametrize(
    ("text", "line", "chinese"),
    [
        ("slug: y\ntitle: a: b\n", 2, "不能有冒号"),
        ("slug: y\ngroups:\n\t- slug: A\n", 3, "制表符"),
        ('slug: y\ntitle: "abc\n', 3, "引号文本"),
        ("slug: y\ntitle: *nothing\n", 2, "锚点"),
        ("slug: y\ntitle: x\n  bad: 1\n", 3, ""),
    ],
)
@pytest.mark.django_db
def test_a_yaml_syntax_error_is_said_in_chinese(text: str, line: int, chinese: str) -> None:
    (problem,) = _refused("study", "study.yaml", text.encode())
    assert problem.line == line
    assert problem.message.startswith(f"not valid YAML at line {line}, column ")
    zh = _zh(problem)
    assert zh.startswith(f"YAML 格式错误，第 {line} 行第 ") and chinese in zh


# --- a lone carriage return in CSV files ---------------------------------------------


def _long_rows(*rows: str, end: str = "\n") -> bytes:
    return (LONG.replace("\n", end) + end.join(rows) + end).encode()


@pytest.mark.parametrize(
    ("rows", "line", "field"),
    [
        (["p-h1,A,ck-001,answer,1,5000", "p-h2\rX,A,ck-001,answer,2,5000"], 3, "participant"),
        (["p-h2,A,ck-001,answer,2,50\r00"], 2, "time_ms"),
        (["p-h2,A,ck-001,answer,2,5000", "\rp-h3,A,ck-001,answer,0,1"], 3, "participant"),
        (["p-h2,A,ck-\r001,answer,2,5000"], 2, "item"),
        (["p-h2,A,\r,answer,2,5000"], 2, "item"),
    ],
)
@pytest.mark.django_db
def test_a_lone_cr_refuses_a_responses_csv_naming_line_and_column(
    example_study: Study, rows: list[str], line: int, field: str
) -> None:
    before = Response.objects.count()
    (problem,) = _refused("responses", "resp.csv", _long_rows(*rows), study=example_study)
    assert (problem.file, problem.line, problem.field) == ("resp.csv", line, field)
    assert "lone carriage return" in problem.message
    assert _zh(problem).startswith("字段含单独的回车符")
    assert Response.objects.count() == before


@pytest.mark.django_db
def test_a_lone_cr_in_the_header_and_in_a_crlf_file_too(example_study: Study) -> None:
    content = b"participant,gr\roup,item,field,value\np-1,A,ck-001,answer,1\n"
    (problem,) = _refused("responses", "resp.csv", content, study=example_study)
    assert (problem.line, problem.field) == (1, None)
    rows = ["p-1,A,ck-001,answer,1,5", "p-2,A,ck-001,answer\r,1,5"]
    (problem,) = _refused("responses", "r.csv", _long_rows(*rows, end="\r\n"), study=example_study)
    assert (problem.line, problem.field) == (3, "field")


@pytest.mark.django_db
def test_a_cr_inside_quotes_and_crlf_line_ends_still_load(example_study: Study) -> None:
    rows = ['"p-\r1",A,ck-001,answer,1,5', 'p-2,A,ck-001,"answer",2,6']
    summary = loader("responses")(
        Source("r.csv", _long_rows(*rows, end="\r\n"), "csv"), study=example_study
    )
    assert summary.details["response created"] == 2
    names = set(Response.objects.values_list("rater__name", flat=True))
    assert {"p-\r1", "p-2"} <= names


@pytest.mark.django_db
def test_a_lone_cr_refuses_a_pool_and_an_llm_outputs_csv(example_study: Study) -> None:
    pool = "id,task,stem,option_a,option_b,answer\nx-1,ck,问\r题,甲,乙,A\nx-2,ck,问,甲,乙\r,B\n"
    problems = _refused("pool", "pool.csv", pool.encode(), study=example_study)
    assert [(p.line, p.field) for p in problems] == [(2, "stem"), (3, "option_b")]
    outputs = "model,item,answer\ngpt-4o,ck-001,1\r\ngpt-4o,ck-0\r02,1\n"
    (problem,) = _refused("llm_outputs", "out.csv", outputs.encode(), study=example_study)
    assert (problem.line, problem.field) == (3, "item")


@pytest.mark.django_db
def test_a_file_with_old_mac_line_ends_is_still_read(example_study: Study) -> None:
    content = b"participant,group,item,field,value\rp-1,A,ck-001,answer,1\r"
    summary = loader("responses")(Source("mac.csv", content, "csv"), study=example_study)
    assert summary.details["response created"] == 1


CELL = st.text(alphabet=[*"ab,\"\r\n\t 詩'"], max_size=6)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    cells=st.lists(st.lists(CELL, min_size=3, max_size=3), min_size=1, max_size=4),
    crlf=st.booleans(),
)
def test_cells_written_by_csv_read_back_exactly(cells: list[list[str]], crlf: bool) -> None:
    out = io.StringIO(newline="")
    # with LF line ends csv.writer leaves a CR unquoted (the next test): quote every cell
    if crlf:
        writer = csv.writer(out, lineterminator="\r\n")
    else:
        writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(["a", "b", "c"])
    writer.writerows(cells)
    collector = Collector("x.csv")
    records = list(read_records(Source("x.csv", out.getvalue().encode(), "csv"), collector))
    assert collector.problems == []
    assert [[r.data[k] for k in "abc"] for r in records] == [
        row for row in cells if any(c.strip() for c in row)
    ]


PLAIN = st.text(alphabet=[*"ab詩 "], max_size=4)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    rows=st.lists(st.lists(PLAIN, min_size=3, max_size=3), min_size=1, max_size=4),
    where=st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 4)),
)
def test_a_lone_cr_anywhere_outside_quotes_is_found_on_its_line_and_cell(
    rows: list[list[str]], where: tuple[int, int, int]
) -> None:
    rows = [list(r) for r in rows]
    row, cell = where[0] % len(rows), where[1]
    at = where[2] % (len(rows[row][cell]) + 1)
    rows[row][cell] = rows[row][cell][:at] + "\r" + rows[row][cell][at:]
    text = "a,b,c\n" + "\n".join(",".join(r) for r in rows) + "\n"
    if at == len(rows[row][cell]) - 1 and cell == 2:
        text = text.replace("\r\n", "\rX\n", 1)  # a CR at a row's end would be a CRLF
    assert lone_carriage_returns(text) == [(row + 2, cell)]
    collector = Collector("x.csv")
    assert list(read_records(Source("x.csv", text.encode(), "csv"), collector)) == []
    assert [(p.line, p.field) for p in collector.problems] == [(row + 2, "abc"[cell])]


def test_python_s_csv_writer_with_lf_line_ends_leaves_a_cr_bare_and_is_refused() -> None:
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows([["a", "b"], ["x\ry", "z"]])
    assert out.getvalue() == "a,b\nx\ry,z\n"  # unquoted: csv.reader reads two rows
    collector = Collector("x.csv")
    assert list(read_records(Source("x.csv", out.getvalue().encode(), "csv"), collector)) == []
    assert [(p.line, p.field) for p in collector.problems] == [(2, "a")]


# --- the responses CSV's columns; None never shown -------------------------------------


@pytest.mark.django_db
def test_a_responses_csv_with_an_answer_column_is_refused_at_its_header(
    example_study: Study,
) -> None:
    content = b"participant,group,item,answer\np-1,A,ck-001,1\np-2,A,ck-001,2\n"
    (problem,) = _refused("responses", "resp.csv", content, study=example_study)
    assert (problem.file, problem.line, problem.field) == ("resp.csv", 1, None)
    assert "need the columns field and value" in problem.message
    assert "(found: participant, group, item, answer)" in problem.message
    assert "需要 field 和 value 两列" in _zh(problem)
    assert "请选择" not in _zh(problem)


@pytest.mark.django_db
def test_a_missing_group_or_task_is_never_python_s_none(example_study: Study) -> None:
    content = b"participant,group,item,field,value\np-1,,ck-001,answer,1\n"
    (problem,) = _refused("responses", "resp.csv", content, study=example_study)
    assert problem.field == "group"
    assert problem.message == "is missing: name one of this study's groups (A, B, C)"
    assert _zh(problem) == "缺失：请填写本研究的一个组（A, B, C）"
    line = json.dumps({"id": "x-1", "stem": "问", "options": ["甲", "乙"], "answer": 0})
    problems = _refused("pool", "pool.jsonl", line.encode(), study=example_study)
    task = next(p for p in problems if p.field == "task")
    assert "None" not in task.message and task.message.startswith("(missing) is not a task")
    assert _zh(task).startswith("（空）")


# --- the upload page, in zh-Hans --------------------------------------------------------


@pytest.mark.django_db
def test_the_upload_page_shows_these_problems_in_chinese(
    client: Any, django_user_model: Any, example_study: Study
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    url = reverse("admin:upload")
    before = snapshot()
    bad_csv = _long_rows("p-h1,A,ck-001,answer,1,5000", "p-h2\rX,A,ck-001,answer,2,5000")
    cases = [
        ("responses", "resp_cr.csv", bad_csv, "字段含单独的回车符"),
        (
            "responses",
            "resp_answer.csv",
            b"participant,group,item,answer\np,A,ck-001,1\n",
            "需要 field 和 value 两列",
        ),
        (
            "responses",
            "resp_cr.jsonl",
            b'{"participant": "p\r"}\n',
            "字符串中含控制字符（回车，CR）",
        ),
        ("study", "study_dup.json", b'{"slug": "d",\n"title": "a",\n"title": "b"}', "出现了两次"),
    ]
    for kind, name, content, chinese in cases:
        data: dict[str, Any] = {"kind": kind, "file": SimpleUploadedFile(name, content)}
        if kind != "study":
            data["study"] = example_study.pk
        page = client.post(url, data, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert "未能导入" in page or "问题" in page
        assert name in page and chinese in page, name
        for word in ("None", "Invalid control", "appears twice", "not valid JSON", "lone carriage"):
            assert word not in page, (name, word)
    assert snapshot() == before
