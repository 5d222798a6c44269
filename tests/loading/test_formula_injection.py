"""Exports safe to open in a spreadsheet: text is never a formula (a model named
``=HYPERLINK(...)``, an item ``=rt-1``), numbers stay numbers, and a CSV export still
loads back as the very same responses."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from openpyxl import load_workbook

from annotation.exports import export_rows
from annotation.models import Response
from annotation.spreadsheet import csv_cell, csv_restore
from scoring.report.build import Report, ReportSettings
from scoring.report.writers import table_csv_text, write_xlsx
from studies.models import Study
from tests.loading.helpers import snapshot

pytestmark = pytest.mark.django_db
STUDY = ["--study", "poetry-understanding"]
HOSTILE = ["=rt-1", "+rt-2", "-rt-3", "@rt-4", "'=rt-5", "''+rt-6"]
LINK = '=HYPERLINK("http://evil.example","click")'


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-x", "'-x"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=x", "'\t=x"),
        ("\r=x", "'\r'=x"),  # and the line after the break (test_csv_rows.py)
        ("'=x", "''=x"),
        ("'plain", "'plain"),
        ("plain", "plain"),
        ("", ""),
        ("a=b", "a=b"),
    ],
)
def test_a_csv_cell_starting_a_formula_is_escaped_and_read_back(text: str, written: str) -> None:
    assert csv_cell(text) == written
    assert csv_restore(written) == text


def test_numbers_are_never_escaped() -> None:
    assert [csv_cell(v) for v in (-1, -2.5, 0, True)] == [-1, -2.5, 0, True]


@pytest.fixture
def hostile_study(example_study, tmp_path):
    """Items, a participant and a model whose names a spreadsheet would take as formulas."""
    pool = tmp_path / "pool.jsonl"
    lines = [
        {"id": ext, "task": "ck", "stem": "问", "options": ["甲", "乙", "丙"], "answer": 0}
        for ext in HOSTILE
    ]
    pool.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), "utf-8")
    call_command("load_pool", str(pool), *STUDY, stdout=io.StringIO())
    answers = tmp_path / "responses.jsonl"
    rows = [
        {"participant": "=p-1", "group": "C", "item": ext, "answer": i % 3, "time_ms": 900 + i}
        for i, ext in enumerate(HOSTILE)
    ]
    answers.write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    call_command("load_responses", str(answers), *STUDY, stdout=io.StringIO())
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(json.dumps({"model": LINK, "item": "=rt-1", "answer": 1}), "utf-8")
    call_command("load_llm_outputs", str(outputs), *STUDY, stdout=io.StringIO())
    return example_study


def test_the_csv_export_escapes_formulas_and_loads_back_unchanged(hostile_study, tmp_path) -> None:
    out = tmp_path / "export.csv"
    call_command("export_responses", "poetry-understanding", "--format", "csv", "--out", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    cells = [v for row in rows for v in row.values()]
    assert not [v for v in cells if v.startswith(("=", "+", "@")) or v.startswith("-r")]
    assert {r["item"] for r in rows if r["rater"] == "'=p-1"} == {
        "'=rt-1", "'+rt-2", "'-rt-3", "'@rt-4", "''=rt-5", "'''+rt-6"
    }  # fmt: skip
    assert any(r["rater"] == "'" + LINK for r in rows)
    assert {r["time_ms"] for r in rows if r["rater"] == "'=p-1"} == {str(900 + i) for i in range(6)}
    before = snapshot()
    text = io.StringIO()
    call_command("load_responses", str(out), *STUDY, stdout=text)
    assert snapshot() == before and "6 rows; 0 created, 0 updated, 6 unchanged" in text.getvalue()
    human = {
        r for r in export_rows(Study.objects.get(slug="poetry-understanding")) if r[3] == "human"
    }
    Response.objects.filter(rater__kind="human").delete()
    call_command("load_responses", str(out), *STUDY, stdout=io.StringIO())
    again = {
        r for r in export_rows(Study.objects.get(slug="poetry-understanding")) if r[3] == "human"
    }
    assert {r[:-1] for r in again} == {r[:-1] for r in human}
    assert {r[2] for r in again} == set(HOSTILE)  # the original ids, not the escaped ones


def test_the_xlsx_export_writes_text_as_text_and_numbers_as_numbers(
    hostile_study, tmp_path
) -> None:
    out = tmp_path / "export.xlsx"
    call_command("export_responses", "poetry-understanding", "--format", "xlsx", "--out", str(out))
    sheet = load_workbook(out)["responses"]
    header = [c.value for c in sheet[1]]
    cells = [dict(zip(header, row, strict=True)) for row in sheet.iter_rows(min_row=2)]
    assert not [c for row in cells for c in row.values() if c.data_type == "f"]
    model = next(row for row in cells if row["rater"].value == LINK)
    assert model["item"].value == "=rt-1" and model["item"].data_type == "s"
    assert model["rater"].data_type == "s"
    assert model["value"].value == 1 and model["value"].data_type == "n"
    human = [row for row in cells if row["rater"].value == "=p-1"]
    assert sorted(row["time_ms"].value for row in human) == [900 + i for i in range(6)]


def test_the_report_files_write_text_as_text() -> None:
    report = Report(study="=s", generated_at="2026-01-01", settings=ReportSettings())
    report.tables = {"aggregates": [{"model": LINK, "task": "-t", "value": -0.5, "n": 3}]}
    text = table_csv_text("aggregates", report.tables["aggregates"])
    (row,) = csv.DictReader(io.StringIO(text))
    assert row["model"] == "'" + LINK and row["task"] == "'-t"
    assert row["value"] == "-0.5" and row["n"] == "3"
    buffer = io.BytesIO()
    write_xlsx(report, buffer, tables=["aggregates"])
    book = load_workbook(io.BytesIO(buffer.getvalue()))
    sheet = book["aggregates"]
    values = {c.value: c.data_type for c in sheet[2]}
    assert values[LINK] == "s" and values["-t"] == "s" and values[-0.5] == "n"
    assert book["report"]["B1"].value == "=s" and book["report"]["B1"].data_type == "s"
