"""The report's workbook takes every value its CSV files take: a frozen plan's departure
holds a list (the runs of a model rater added after freezing: ``actual`` is
``["zero-shot"]``), which openpyxl refused with a ValueError, so the report's XLSX
download (a 500) and ``report --bundle`` failed once a model was added after freezing.
Such a cell now reads as the CSV's does."""

from __future__ import annotations

import csv
import io

from openpyxl import load_workbook

from scoring.report.build import Report, ReportSettings
from scoring.report.writers import table_csv_text, write_xlsx

ROW = {
    "setting": "raters.model.gpt-4o",
    "planned": "(absent)",
    "actual": ["zero-shot", "=cot"],
    "reason": "model rater added after freezing: gpt-4o",
    "first_seen_after": 12,
    "first_seen_at": "2026-11-28T06:32:39+00:00",
    "plan_sha256": "ab" * 32,
    "frozen_at": "2026-11-28T06:32:28+00:00",
    "frozen_after": 11,
    "extra": {"a": 1},
}


def test_a_list_or_mapping_cell_is_written_as_its_csv_text() -> None:
    report = Report(study="s", generated_at="2026-01-01", settings=ReportSettings())
    report.tables = {"plan_deviations": [dict(ROW)]}
    buffer = io.BytesIO()
    write_xlsx(report, buffer, tables=["plan_deviations"])
    sheet = load_workbook(io.BytesIO(buffer.getvalue()))["plan_deviations"]
    header = [c.value for c in sheet[1]]
    cells = dict(zip(header, [c.value for c in sheet[2]], strict=True))
    (written,) = csv.DictReader(io.StringIO(table_csv_text("plan_deviations", [dict(ROW)])))
    assert cells["actual"] == written["actual"] == str(["zero-shot", "=cot"])
    for column in header:
        assert str(cells[column]) == written[column], column
