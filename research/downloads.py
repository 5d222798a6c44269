"""HTTP downloads shared by the dashboard and the API: report tables and raw responses.

Raw responses are streamed (CSV, JSONL) from ``annotation.exports`` in chunks, or
written to a spooled temporary file (XLSX); report tables are small and written whole.
Formats: report ``json`` (every table), ``csv`` (one table, or a zip of every table),
``xlsx`` (one sheet per table, or the one asked for). Every CSV (a table, each table in
the zip, the raw responses) starts with the UTF-8 byte order mark, for spreadsheets,
unless ``bom`` is off (``?bom=0``).
"""

from __future__ import annotations

import io
import itertools
import tempfile
import zipfile

from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from annotation.exports import BOM, export_rows, export_write, text_chunks
from research.dashboard.labels import Labels
from scoring.report import paper
from scoring.report.build import TABLES, Report
from scoring.report.writers import Naming, json_text, table_csv_text, write_xlsx
from studies.models import Study

REPORT_FORMATS = ("json", "csv", "xlsx")
RESPONSE_FORMATS = ("csv", "jsonl", "xlsx")
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _attachment(response: HttpResponse | StreamingHttpResponse | FileResponse, name: str) -> None:
    response["Content-Disposition"] = f'attachment; filename="{name}"'


def report_download(
    report: Report,
    fmt: str,
    table: str | None = None,
    *,
    bom: bool = True,
    naming: Naming | None = None,
) -> HttpResponse:
    """``fmt`` and ``table`` must be valid (``REPORT_FORMATS``, ``TABLES`` or None);
    ``naming``: an XLSX for reading (sheets, headers and cells in the reader's language;
    the file's name says so), else the report's ids."""
    stem = f"{report.study}-{table}" if table else f"{report.study}-report"
    if fmt == "json":
        data = report.as_json()
        body = {"study": data["study"], table: data[table]} if table else data
        response = HttpResponse(json_text(body), content_type="application/json")
        _attachment(response, f"{stem}.json")
        return response
    if fmt == "csv" and table:
        text = table_csv_text(table, report.tables[table], report.settings.by, bom=bom)
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
        _attachment(response, f"{stem}.csv")
        return response
    if fmt == "csv":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in TABLES:
                text = table_csv_text(name, report.tables[name], report.settings.by, bom=bom)
                zf.writestr(f"{name}.csv", text)
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        _attachment(response, f"{stem}-csv.zip")
        return response
    buffer = io.BytesIO()
    write_xlsx(report, buffer, [table] if table else TABLES, naming=naming)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    _attachment(response, f"{stem}-named.xlsx" if naming else f"{stem}.xlsx")
    return response


#: ``paper.PivotError`` codes in the reader's language (the layout's name and table stay).
PIVOT_ERRORS: dict[str, Promise] = {
    "no_rows": gettext_lazy("no rows for this layout in this report"),
    "empty": gettext_lazy("this table is empty in this report"),
    "no_column": gettext_lazy("no column %(columns)s in these rows"),
    "no_filter_column": gettext_lazy("no column %(columns)s to filter on in these rows"),
    "not_number": gettext_lazy("column %(columns)s holds text, not numbers"),
    "twice": gettext_lazy(
        "several rows share one cell of this layout: the report command's --rows, --cols "
        "and --where choose them"
    ),
}


def _names(report: Report) -> paper.Namer:
    """The keys' names as the dashboard shows them (group and task names, one model name)."""
    labels = Labels(Study.objects.get(slug=report.study))
    return lambda column, value, others: str(labels.value(column, value, dict(others)))


def paper_download(
    report: Report, layout: paper.PaperLayout, fmt: str, *, bom: bool = True
) -> HttpResponse:
    """One named paper layout of ``report`` (``fmt`` in ``paper.FORMATS``) as a file, its
    rows and columns named as on the dashboard (CSV with the UTF-8 byte order mark, as
    every CSV download, unless ``bom`` is off); raises ``paper.PivotError`` (its message
    in the reader's language) when the report's rows make no such table."""
    rows = report.tables[layout.table]
    try:
        body = paper.paper_bytes(rows, layout, fmt, report.settings.as_json(), names=_names(report))
    except paper.PivotError as exc:
        said = PIVOT_ERRORS.get(exc.code)
        if said is None:
            raise
        raise paper.PivotError(str(said) % exc.params, exc.code, **exc.params) from exc
    if fmt == "csv" and bom:
        body = BOM.encode("utf-8") + body
    response = HttpResponse(body, content_type=paper.MEDIA_TYPES[fmt])
    _attachment(response, f"{report.study}-{layout.name}.{paper.EXTENSIONS[fmt]}")
    return response


def responses_download(
    study_slug: str, study: object, fmt: str, *, bom: bool = True
) -> HttpResponse | StreamingHttpResponse | FileResponse:
    """Every response of the study, formats.md §4 columns, streamed; a CSV starts with
    the UTF-8 byte order mark (for Excel) unless ``bom`` is off."""
    rows = export_rows(study)  # type: ignore[arg-type]
    name = f"{study_slug}-responses.{fmt}"
    if fmt == "xlsx":
        spool = tempfile.SpooledTemporaryFile(max_size=32 * 1024 * 1024)  # noqa: SIM115
        export_write(rows, fmt, spool)
        spool.seek(0)
        return FileResponse(spool, as_attachment=True, filename=name, content_type=XLSX)
    content_type = "text/csv; charset=utf-8" if fmt == "csv" else "application/x-ndjson"
    chunks = text_chunks(rows, fmt)
    if fmt == "csv" and bom:
        chunks = itertools.chain([BOM], chunks)
    response = StreamingHttpResponse(chunks, content_type=content_type)
    _attachment(response, name)
    return response
