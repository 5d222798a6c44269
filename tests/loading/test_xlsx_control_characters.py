"""XLSX files take any text the platform accepted: a C0 control character other than tab
and line feed (``\\x0b``, ``\\x1e``: XML 1.0 cannot hold it; ``\\r``: XML readers read it
as ``\\n``) is written as OOXML's escape ``_xHHHH_``, which Excel and LibreOffice show as
the character, and read back as the character, so an export with such a participant id
neither fails (it was a 500 on the dashboard's and the API's XLSX downloads) nor loads
back as other people."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import Workbook, load_workbook

from annotation.spreadsheet import xlsx_restore, xlsx_row
from scoring.report.build import Report, ReportSettings
from scoring.report.writers import write_xlsx
from studies.models import Study

ALPHABET = [*"ab_x0B詩\t\n\r", "\x00", "\x01", "\x0b", "\x0c", "\x1e", "\x1f", "_x0041_", "_x005F_"]
HOSTILE = ["c\x0bd", "e\x1cf", "\x01", "x\r=1+1", "y\r\nz"]


def _round_trip(texts: list[str]) -> list[str]:
    book = Workbook(write_only=True)
    sheet = book.create_sheet("s")
    sheet.append(xlsx_row(sheet, ["text"]))
    for text in texts:
        sheet.append(xlsx_row(sheet, [text]))
    out = io.BytesIO()
    book.save(out)
    sheet = load_workbook(io.BytesIO(out.getvalue()))["s"]
    return [xlsx_restore(str(row[0])) for row in sheet.iter_rows(min_row=2, values_only=True)]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    texts=st.lists(
        st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=8).map("".join),
        min_size=1,
        max_size=5,
    )
)
def test_any_text_is_written_and_read_back_exactly(texts: list[str]) -> None:
    assert _round_trip(texts) == texts


@pytest.mark.django_db
def test_the_responses_xlsx_export_of_control_character_ids_loads_back_unchanged(
    example_study: Study, tmp_path
) -> None:
    answers = tmp_path / "responses.jsonl"
    lines = [
        {"participant": name, "group": "C", "item": "ck-001", "answer": i % 3, "time_ms": 900}
        for i, name in enumerate(HOSTILE)
    ]
    answers.write_text("\n".join(json.dumps(x) for x in lines), "utf-8")
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("load_responses", str(answers), "--study", example_study.slug, **quiet)
    out = tmp_path / "export.xlsx"
    call_command(
        "export_responses", example_study.slug, "--format", "xlsx", "--out", str(out), **quiet
    )
    sheet = load_workbook(out)["responses"]
    assert sheet.max_row > len(HOSTILE)
    said = io.StringIO()
    call_command(
        "load_responses", str(out), "--study", example_study.slug, "--dry-run", stdout=said
    )
    assert "0 would be created" in said.getvalue(), said.getvalue()


def test_the_report_workbook_takes_a_control_character() -> None:
    report = Report(study="s\x0b", generated_at="2026-01-01", settings=ReportSettings())
    report.tables = {"aggregates": [{"model": "m\x1e", "task": "t", "value": 0.5, "n": 3}]}
    buffer = io.BytesIO()
    write_xlsx(report, buffer, tables=["aggregates"])
    book = load_workbook(io.BytesIO(buffer.getvalue()))
    assert book["aggregates"]["A2"].value == "m_x001E_"  # Excel shows it as the character
