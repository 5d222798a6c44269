"""``manage.py report STUDY --format json|csv|xlsx --out PATH``."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from openpyxl import load_workbook

from scoring.report import TABLES
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_json_report_has_every_table_as_flat_rows(known: Builder, tmp_path) -> None:
    out = tmp_path / "report.json"
    call_command("report", "known", "--format", "json", "--out", str(out), "--n-boot", "20")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["study"] == "known" and data["generated_at"].endswith("Z")
    assert data["settings"]["n_boot"] == 20
    for name in TABLES:
        assert isinstance(data[name], list)
        assert all(not isinstance(v, dict | list) for row in data[name] for v in row.values())
    assert {
        "task",
        "field",
        "rater_set",
        "n_raters",
        "n_responses",
        "value",
        "ci_low",
        "ci_high",
    } <= set(data["accuracy"][0])


@pytest.mark.slow
def test_json_to_stdout_is_strict_json(known: Builder) -> None:
    out = io.StringIO()
    call_command("report", "known", "--n-boot", "0", stdout=out)
    data = json.loads(out.getvalue())  # NaN would not parse as strict JSON
    assert any(row["ci_low"] is None for row in data["agreement"])


@pytest.mark.slow
def test_csv_writes_one_file_per_table(known: Builder, tmp_path) -> None:
    call_command(
        "report", "known", "--format", "csv", "--out", str(tmp_path / "r"), "--n-boot", "0"
    )
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == sorted(f"{t}.csv" for t in TABLES)
    with (tmp_path / "r" / "accuracy.csv").open(encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    row = next(
        r for r in rows if (r["task"], r["field"], r["rater_set"]) == ("ck", "answer", "group:A")
    )
    assert float(row["value"]) == 0.625


@pytest.mark.slow
def test_xlsx_has_one_sheet_per_table(known: Builder, tmp_path) -> None:
    out = tmp_path / "report.xlsx"
    call_command("report", "known", "--format", "xlsx", "--out", str(out), "--n-boot", "0")
    book = load_workbook(out, read_only=True)
    assert book.sheetnames == ["report", *TABLES]
    header = next(book["accuracy"].iter_rows(values_only=True))
    assert header[:3] == ("task", "field", "rater_set")


def test_unknown_study_is_a_clear_error(db) -> None:
    with pytest.raises(CommandError, match="no study"):
        call_command("report", "nope")


@pytest.mark.slow
def test_csv_needs_an_output_directory(known: Builder) -> None:
    with pytest.raises(CommandError, match="--out"):
        call_command("report", "known", "--format", "csv")
