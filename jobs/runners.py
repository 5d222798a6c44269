"""What each kind of job does: one function per kind, listed in ``RUNNERS`` at the end.

A runner gets the Job and a progress callback and returns an :class:`Outcome`; it
raises ``LoadError`` for a rejected file (the job then fails with the file's problems,
and the loaders' single transaction leaves the database unchanged).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from annotation.exports import FORMATS, export_rows, export_write
from annotation.models import Response
from jobs.models import Job
from scoring.rules import rule_scores_compute
from studies.loading.problems import Summary
from studies.loading.progress import ProgressCallback, progress
from studies.loading.readers import Source, guess_format
from studies.loading.study import validate_study
from studies.models import LoadKind, Study


@dataclass
class Outcome:
    summary: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    result_file: str = ""


Runner = Callable[[Job, ProgressCallback], Outcome]


def summary_outcome(summary: Summary) -> Outcome:
    return Outcome(summary=summary.as_dict(), message=summary.describe())


def job_source(job: Job) -> Source:
    """The uploaded file a load job reads (saved under DATA_DIR/uploads when submitted;
    the path is relative to DATA_DIR, which may be mounted elsewhere on a job worker)."""
    path = Path(settings.DATA_DIR) / job.params["path"]
    name = job.params.get("name") or path.name
    content = path.read_bytes()
    return Source(
        name=name,
        content=content,
        format=job.params.get("format") or guess_format(name),
        encoding=job.params.get("encoding"),
        sheet=job.params.get("sheet"),
    )


def load_run(job: Job, on_progress: ProgressCallback) -> Outcome:
    """Any file load (``LoadKind``), through the same ``file_load`` as the commands (which
    also hands a large load's rule scoring to a job of its own)."""
    # jobs.loads imports jobs.services, which imports this module's RUNNERS
    from jobs.loads import file_load

    source = job_source(job)
    summary = file_load(
        kind=job.kind,
        source=source,
        study=job.study,
        dry_run=bool(job.params.get("dry_run")),
        user=job.created_by,
        on_progress=on_progress,
        **({"remap": job.params["remap"]} if job.params.get("remap") is not None else {}),
    )
    if job.study_id is None and not summary.dry_run:  # link the job to the study it loaded
        job.study = Study.objects.filter(slug=validate_study(source).slug).first()
    return summary_outcome(summary)


def rule_scores_run(job: Job, on_progress: ProgressCallback) -> Outcome:
    assert job.study is not None
    item_ids = job.params.get("item_ids")
    with transaction.atomic():
        summary = rule_scores_compute(study=job.study, item_ids=item_ids, on_progress=on_progress)
    return summary_outcome(summary)


def result_path(folder: str, job: Job, suffix: str) -> Path:
    """Where a job writes its result: ``DATA_DIR/<folder>/<study>-job<id>.<suffix>``."""
    slug = job.study.slug if job.study is not None else "all"
    path = Path(settings.DATA_DIR) / folder / f"{slug}-job{job.pk}.{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def stored_name(path: Path) -> str:
    """A result file as the Job row names it: relative to DATA_DIR, which a web server
    and a job worker may mount at different places (``jobs.views.result_file``)."""
    return str(path.relative_to(Path(settings.DATA_DIR)))


def export_run(job: Job, on_progress: ProgressCallback) -> Outcome:
    """Every response of the study, streamed to DATA_DIR/exports (formats.md §4)."""
    assert job.study is not None
    fmt = job.params.get("format", "csv")
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    path = result_path("exports", job, fmt)
    total = Response.objects.filter(study=job.study).count()
    rows = progress(export_rows(job.study), False, "exporting", callback=on_progress, total=total)
    partial = path.with_suffix(path.suffix + ".part")  # never a half-written file under its name
    if fmt == "xlsx":
        with partial.open("wb") as fh:
            n = export_write(rows, fmt, fh)
    else:
        with partial.open("w", encoding="utf-8", newline="") as fh:
            n = export_write(rows, fmt, fh, bom=job.params.get("bom", True))
    os.replace(partial, path)
    message = _("%(n)d rows exported to %(file)s") % {"n": n, "file": path.name}
    return Outcome(
        summary={"rows": n, "format": fmt}, message=message, result_file=stored_name(path)
    )


def report_run(job: Job, on_progress: ProgressCallback) -> Outcome:
    """The study's statistics report (docs/report.md) as one JSON or XLSX file, with the
    report settings of ``params["settings"]`` (any of ``ReportSettings``; the defaults
    otherwise)."""
    from scoring.report import build_report, settings_from
    from scoring.report.prereg import deviations_record
    from scoring.report.writers import write

    if job.params.get("background"):  # the pages' stored report (jobs.reports)
        from jobs.reports import background_report_run

        return background_report_run(job, on_progress)
    assert job.study is not None
    fmt = job.params.get("format", "json")
    if fmt not in ("json", "xlsx"):
        raise ValueError(f"a report job writes json or xlsx, not {fmt!r}")
    settings = settings_from(job.params.get("settings") or {})
    on_progress("computing", 0, 1)
    deviations_record(job.study, settings)  # departures from a frozen plan, first seen now
    report = build_report(job.study, settings)
    path = result_path("reports", job, fmt)
    partial = path.with_name(path.name + ".part")
    write(report, fmt, partial)
    os.replace(partial, path)
    on_progress("computing", 1, 1)
    return Outcome(
        summary={
            "format": fmt,
            "settings": settings.as_json(),
            "tables": {k: len(v) for k, v in report.tables.items()},
        },
        message=_("report written to %(file)s") % {"file": path.name},
        result_file=stored_name(path),
    )


RUNNERS: dict[str, Runner] = {
    **{kind: load_run for kind in LoadKind},
    Job.Kind.RULE_SCORES: rule_scores_run,
    Job.Kind.EXPORT: export_run,
    Job.Kind.REPORT: report_run,
}
