"""CSV files stay rows: any text (carriage returns, line feeds, quotes, separators,
control characters, formula starts) is one cell of one row for Python's csv module,
pandas and a reader that breaks rows at every line break, never a formula on any line,
and an export loads back through ``load_responses`` as the same responses."""

from __future__ import annotations

import io
import json
import re

import pandas as pd
import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.exports import COLUMNS, export_rows, text_chunks
from annotation.models import Participant, Rater, Response
from annotation.spreadsheet import csv_cell, csv_restore
from scoring.report.writers import table_csv_text
from studies.models import Study

# Every character a reader might take as a line or field break, or a spreadsheet as the
# start of a formula, among ordinary ones.
ALPHABET = [*"\r\n\t\"',;=+-@ a1詩", "\x0b", "\x0c", "\x1e", "\x85", "\u2028"]
TEXT = st.text(alphabet=ALPHABET, max_size=12)
FORMULA = ("=", "+", "-", "@", "\t")
PROPERTY = settings(max_examples=150, deadline=None, derandomize=True)


def _physical_lines(text: str) -> list[str]:
    """The file as a reader that ignores quotes sees it: a row at each line break."""
    return re.split(r"\r\n|\r|\n", text)


def _check_rows(text: str, expected: list[list[str]]) -> None:
    import csv

    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == len(expected) + 1
    assert [[csv_restore(c) for c in row] for row in rows[1:]] == expected
    frame = pd.read_csv(io.StringIO(text, newline=""), dtype=str, keep_default_na=False)
    assert frame.shape == (len(expected), len(expected[0]))
    assert [[csv_restore(c) for c in row] for row in frame.values.tolist()] == expected
    for line in _physical_lines(text):
        assert not line.startswith(FORMULA), repr(line)


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("x\r=1+1", "x\r'=1+1"),
        ("a\n-b", "a\n'-b"),
        ("a\r\n@c", "a\r\n'@c"),
        ("a\n\t=c", "a\n'\t=c"),
        ("a\n'=c", "a\n''=c"),
        ("\r=x", "'\r'=x"),
        ("a\nb", "a\nb"),
    ],
)
def test_each_line_inside_a_cell_is_escaped_and_read_back(text: str, written: str) -> None:
    assert csv_cell(text) == written
    assert csv_restore(written) == text


def test_a_bare_carriage_return_is_quoted() -> None:
    head: tuple[object, ...] = ("s", "t", "x\r=1+1", "human", "p", None, "A", "answer", 1, True)
    row = (*head, 5, 0, "", *[""] * (len(COLUMNS) - len(head) - 3))
    text = "".join(text_chunks([row], "csv"))
    assert '"x\r\'=1+1"' in text
    shown = ["s", "t", "x\r=1+1", "human", "p", "", "A", "answer", "1", "true", "5", "0"]
    _check_rows(text, [shown + [""] * (len(COLUMNS) - len(shown))])


@PROPERTY
@given(cells=st.lists(st.lists(TEXT, min_size=3, max_size=3), min_size=1, max_size=5))
def test_the_export_writer_keeps_every_text_in_its_row_and_cell(cells: list[list[str]]) -> None:
    width = len(COLUMNS)
    rows = [tuple(c) + (-1,) + ("",) * (width - 4) for c in cells]
    text = "".join(text_chunks(rows, "csv"))
    _check_rows(text, [[*c, "-1", *[""] * (width - 4)] for c in cells])


@PROPERTY
@given(cells=st.lists(st.lists(TEXT, min_size=2, max_size=2), min_size=1, max_size=5))
def test_the_report_writer_keeps_every_text_in_its_row_and_cell(cells: list[list[str]]) -> None:
    rows = [{"model": a, "task": b, "value": -0.5} for a, b in cells]
    text = table_csv_text("aggregates", rows)
    header = text.split("\n", 1)[0].split(",")
    expected = [
        [{"model": a, "task": b, "value": "-0.5"}.get(h, "") for h in header] for a, b in cells
    ]
    _check_rows(text, expected)


PARTICIPANT = TEXT.map(str.strip).filter(bool)


def _human_rows() -> set[tuple[object, ...]]:
    rows = export_rows(Study.objects.get(slug="poetry-understanding"))
    return {r[:-1] for r in rows if r[3] == "human"}


@pytest.mark.django_db
@pytest.mark.slow
@settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(names=st.lists(PARTICIPANT, min_size=1, max_size=10, unique=True))
def test_an_export_of_hostile_participant_ids_loads_back_unchanged(
    example_study: Study, tmp_path_factory: pytest.TempPathFactory, names: list[str]
) -> None:
    folder = tmp_path_factory.mktemp("csv")
    answers = folder / "responses.jsonl"
    lines = [
        {"participant": name, "group": "C", "item": "ck-001", "answer": i % 3, "time_ms": 900 + i}
        for i, name in enumerate(names)
    ]
    answers.write_text("\n".join(json.dumps(x) for x in lines), "utf-8")
    study = ["--study", "poetry-understanding"]
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    try:
        call_command("load_responses", str(answers), *study, **quiet)
        out = folder / "export.csv"
        call_command(
            "export_responses",
            "poetry-understanding",
            "--format",
            "csv",
            "--out",
            str(out),
            **quiet,
        )
        text = out.read_text(encoding="utf-8")
        frame = pd.read_csv(io.StringIO(text, newline=""), dtype=str, keep_default_na=False)
        assert (frame["rater_kind"] == "human").sum() == len(names)
        assert not [x for x in _physical_lines(text) if x.startswith(FORMULA)]
        before = _human_rows()
        Response.objects.filter(rater__kind="human").delete()
        call_command("load_responses", str(out), *study, **quiet)
        after = _human_rows()
        assert after == before
        assert {r[4] for r in after} == set(names)
    finally:
        Response.objects.filter(rater__kind="human").delete()
        Participant.objects.all().delete()
        Rater.objects.filter(kind="human").delete()
