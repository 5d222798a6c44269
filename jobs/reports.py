"""Background reports: a study's report for given settings is computed by a job (the
``reports`` queue), never in a web request (``research.reports`` is the pages' side).

- **Single flight**: a job computing a report carries the key
  ``report:<study>:<settings digest>``; the database allows one queued or running job
  per key (``job_one_active_per_key``), so a second request joins the running job.
- **Debounced**: new answers start nothing while a job runs; when it ends on data that
  have moved since it started, it submits one follow-up (a follow-up submits none).
- **Stored**: the result (the report, the heatmaps' per-form rule rates and the planning
  rows) is written to ``DATA_DIR/reports/<study>-job<id>.pkl`` (the durable copy, read
  back by the job's row; the older copies of the same key are deleted) and cached by job id, so a page shows the last complete report,
  current or stale, with the fingerprint it was computed on.
- **Rate limited**: a user starts at most ``REPORT_STARTS_PER_HOUR`` computations an
  hour (joining a running job or reading a stored report is free).
- **Heavy tables apart**: the tables marked ``heavy`` in ``scoring.report.registry`` (the
  IRT ``abilities``) are not computed by the report job unless the study's
  ``TableCache`` already holds them: it stores the report with them pending
  (``Report.pending``) and, when done, submits (or joins) the heavy-table job of the same
  settings (key ``heavy:<study>:<settings digest>``, one at a time, the ``reports``
  queue), which computes them on the data of its start and stores them
  (``HeavyTables``, in its own result file and in the ``TableCache``). A page reads the
  report with them filled in (``with_heavy``): current when computed on the report's
  data, else the older rows labelled stale; downloads and the API wait for the current
  ones (``ReportState.complete``).

Without a broker (``CELERY_TASK_ALWAYS_EAGER``: tests, a bare ``runserver``) every job
runs in-process at once, this one too; production and ``make demo`` have a worker.
"""

from __future__ import annotations

import logging
import os
import pickle
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from threadpoolctl import threadpool_limits

from annotation.selectors import ResponseTotals, response_totals
from jobs.models import Job
from jobs.runners import Outcome, result_path, stored_name
from jobs.services import job_fail_if_still
from research.reports import (
    HeavyTables,
    ReportHead,
    ReportRateLimited,
    ReportState,
    StaleTable,
    StoredReport,
    with_heavy,
)
from scoring.report.build import build_report
from scoring.report.prereg import deviations_record
from scoring.report.registry import HEAVY_TABLES
from scoring.report.service import IrtStarts, StudyReader, TableCache, fingerprint, plan_for
from scoring.report.settings import ReportSettings, settings_from
from studies.loading.progress import ProgressCallback
from studies.models import Study

logger = logging.getLogger(__name__)

ACTIVE = (Job.Status.QUEUED, Job.Status.RUNNING)
CACHE_SECONDS = 24 * 3600


def report_key(study: Study, settings: ReportSettings) -> str:
    return f"report:{study.pk}:{settings.digest()}"


def heavy_key(study: Study, settings: ReportSettings) -> str:
    """The key of the job computing the heavy tables of ``report_key``'s report."""
    return f"heavy:{study.pk}:{settings.digest()}"


def is_heavy(job: Job) -> bool:
    return bool(job.params.get("heavy"))


# --- the stored result -------------------------------------------------------------


def _stored_path(job: Job) -> Path | None:
    if not job.result_file:
        return None
    root = Path(django_settings.DATA_DIR).resolve()
    path = (root / job.result_file).resolve()
    return path if path.is_relative_to(root) and path.is_file() else None


def stored_report(key: str) -> tuple[Job, StoredReport] | None:
    """The last complete report of ``key`` and its job."""
    return _stored(key)


def stored_heavy(key: str) -> tuple[Job, HeavyTables] | None:
    """The last heavy tables computed for ``heavy_key`` (on any data) and their job."""
    return _stored(key)


def _stored(key: str) -> tuple[Job, Any] | None:
    job = _latest_done(key)
    found = _stored_of(job) if job is not None else None
    return (job, found) if job is not None and found is not None else None


def _latest_done(key: str) -> Job | None:
    return (
        Job.objects.filter(kind=Job.Kind.REPORT, key=key, status=Job.Status.DONE)
        .exclude(result_file="")
        .order_by("-finished_at", "-pk")
        .first()
    )


def _stored_of(job: Job) -> Any:
    """What ``job`` stored (a ``StoredReport`` or ``HeavyTables``): from the cache (by job
    id), else from its result file (a pickle this project's worker wrote under DATA_DIR,
    the same trust as the cache, which pickles too); None when the file is gone."""
    cache_name = f"shiping:report-job:{job.pk}"
    found: Any = cache.get(cache_name)
    if found is None:
        path = _stored_path(job)
        if path is None:
            return None
        with path.open("rb") as fh:
            found = pickle.load(fh)
        cache.set(cache_name, found, CACHE_SECONDS)
    return found


@dataclass(frozen=True)
class _Summary:
    """What a done report or heavy-table job's summary says of its result, without
    reading it (``Outcome.summary`` of ``_report_run`` and ``_heavy_run``)."""

    fingerprint: str
    answers: int
    computed_at: datetime
    tables: tuple[str, ...]
    pending: tuple[str, ...]


def _summary_of(job: Job) -> _Summary | None:
    """``job``'s ``_Summary`` when its result file is there; None for a job stored
    before the summary named its time (then its result is read: ``stored_head``)."""
    summary = job.summary or {}
    at = parse_datetime(str(summary.get("computed_at", "")))
    if at is None or "fingerprint" not in summary or _stored_path(job) is None:
        return None
    return _Summary(
        str(summary["fingerprint"]),
        int(summary["answers"]),
        at,
        tuple(summary.get("tables") or ()),
        tuple(summary.get("pending") or ()),
    )


def stored_head(key: str) -> tuple[Job, ReportHead] | None:
    """The last complete report of ``key`` as its ``ReportHead`` (its heavy tables not
    yet merged: ``_heavy_state``), and its job; the report itself is not read."""
    job = _latest_done(key)
    if job is None:
        return None
    found = _summary_of(job)
    if found is not None:
        head = ReportHead(found.fingerprint, found.answers, found.computed_at, found.pending)
        return job, head
    stored = _stored_of(job)
    return (job, ReportHead.of(stored)) if isinstance(stored, StoredReport) else None


def _load(report: Job | None, heavy: Job | None) -> StoredReport | None:
    """The report ``report`` stored, with the heavy tables ``heavy`` stored filled in."""
    stored = _stored_of(report) if report is not None else None
    if not isinstance(stored, StoredReport):
        return None
    more = _stored_of(heavy) if heavy is not None else None
    return with_heavy(stored, more if isinstance(more, HeavyTables) else None)


# --- starting and joining ---------------------------------------------------------


def _check_rate(user: Any) -> None:
    limit = int(django_settings.REPORT_STARTS_PER_HOUR)
    if limit <= 0 or not getattr(user, "pk", None):
        return
    since = timezone.now() - timedelta(hours=1)
    started = list(
        Job.objects.filter(kind=Job.Kind.REPORT, created_by=user, created_at__gte=since)
        .exclude(key="")
        .order_by("created_at")
        .values_list("created_at", flat=True)[:limit]
    )
    if len(started) >= limit:
        raise ReportRateLimited(started[0] + timedelta(hours=1), limit)


def _active(key: str) -> Job | None:
    from jobs.services import job_fail_if_runner_gone

    job = Job.objects.filter(key=key, status__in=ACTIVE).first()
    if job is not None and (job_fail_if_runner_gone(job) or report_supersede_if_stale(job)):
        return None
    return job


SUPERSEDED = "superseded"  # summary["error"] of a report job no worker took in time


def report_supersede_if_stale(job: Job, now: Any = None) -> bool:
    """Mark a report job failed when it is still queued ``REPORT_QUEUED_STALE_SECONDS``
    after it was submitted (no worker consumes ``reports``, or the queue lost it), so it
    no longer holds its key and the next request starts a new job. The update is
    conditional on the job being still queued: a worker that took it meanwhile keeps it,
    and one that takes it later finds it finished and does nothing (``job_run``).
    True when it did so."""
    limit = int(django_settings.REPORT_QUEUED_STALE_SECONDS)
    if limit <= 0 or job.status != Job.Status.QUEUED:
        return False
    now = now or timezone.now()
    if now - job.created_at <= timedelta(seconds=limit):
        return False
    message = _(
        "No worker started this report within %(seconds)d s (is a worker consuming the "
        "'reports' queue?); a new request starts it again."
    ) % {"seconds": limit}
    if job_fail_if_still(job, Job.Status.QUEUED, message, {"error": SUPERSEDED}, now):
        logger.warning("report job %s: still queued after %d s, superseded", job.pk, limit)
        return True
    return False


def report_submit(
    study: Study,
    settings: ReportSettings,
    fp: str,
    *,
    user: Any = None,
    follow_up_of: int | None = None,
) -> tuple[Job, bool]:
    """The job computing ``study``'s report with ``settings``: a new one, or the one
    already queued or running for them (the second value says whether it is new)."""
    params: dict[str, Any] = {"background": True, "settings": settings.as_json(), "fp": fp}
    if follow_up_of is not None:
        params["follow_up_of"] = follow_up_of
    return _submit(study, report_key(study, settings), params, user)


def heavy_submit(study: Study, settings: ReportSettings, fp: str) -> tuple[Job, bool]:
    """The job computing the heavy tables of ``study``'s report with ``settings``: a new
    one, or the one already queued or running for them (``report_submit``'s rules)."""
    params: dict[str, Any] = {
        "background": True,
        "heavy": True,
        "settings": settings.as_json(),
        "fp": fp,
    }
    return _submit(study, heavy_key(study, settings), params, None)


def _submit(study: Study, key: str, params: dict[str, Any], user: Any) -> tuple[Job, bool]:
    from jobs.services import job_run, job_submit

    try:
        with transaction.atomic():
            job = job_submit(kind=Job.Kind.REPORT, study=study, params=params, user=user, key=key)
    except IntegrityError:  # another request or worker started it a moment ago: join it
        running = Job.objects.filter(key=key, status__in=ACTIVE).first()
        if running is None:
            raise
        return running, False
    if django_settings.CELERY_TASK_ALWAYS_EAGER:
        job_run(job.pk)  # no broker: every job runs in-process at once (the queued one no-ops)
    return job, True


class JobReportBackend:
    """``research.reports.ReportBackend`` through jobs (registered by ``jobs.apps``)."""

    def state(
        self,
        study: Study,
        settings: ReportSettings,
        user: Any,
        *,
        start: bool,
        totals: ResponseTotals | None = None,
    ) -> ReportState:
        key = report_key(study, settings)
        totals = totals if totals is not None else response_totals(study)
        fp, answers = fingerprint(study, totals), totals.n
        found = stored_head(key)
        job = _active(key)
        started = False
        failed = "" if job is not None else _failed_since(key, found[0] if found else None)
        if job is None and start and (found is None or found[1].fingerprint != fp):
            _check_rate(user)
            job, started = report_submit(study, settings, fp, user=user)
            job.refresh_from_db()
            if job.finished:  # ran at once (no broker)
                found = stored_head(key) or found
                failed = job.message if job.status == Job.Status.FAILED else ""
                job = None
            else:
                failed = ""
        head = found[1] if found is not None else None
        heavy = _heavy_state(study, settings, head, start=start and job is None)
        return ReportState(
            head=heavy.head,
            fingerprint=fp,
            answers=answers,
            job_id=job.pk if job is not None else None,
            status_url=reverse("jobs:job", args=[job.pk]) if job is not None else None,
            failed=failed,
            started=started,
            heavy_job_id=heavy.job.pk if heavy.job is not None else None,
            heavy_status_url=reverse("jobs:job", args=[heavy.job.pk]) if heavy.job else None,
            heavy_failed=heavy.failed,
            load=partial(_load, found[0] if found is not None else None, heavy.done),
        )


@dataclass(frozen=True)
class _Heavy:
    head: ReportHead | None  # with the heavy tables filled in as far as they are
    done: Job | None  # the heavy-table job whose rows fill them in
    job: Job | None  # the heavy-table job queued or running
    failed: str  # why the last one failed, when it is the newest and none runs


def merge_head(head: ReportHead, heavy: Job | None) -> ReportHead:
    """``head`` with the pending tables the heavy-table job ``heavy`` computed filled in,
    as ``with_heavy`` fills in the report: computed on the same data they are no longer
    pending; on other data they stay pending, shown with that job's rows (``stale``). A
    job whose summary does not name its tables fills in nothing (a new one is queued)."""
    found = _summary_of(heavy) if heavy is not None else None
    names = [n for n in head.pending if found is not None and n in found.tables]
    if found is None or not names:
        return head
    if found.fingerprint == head.fingerprint:
        still = tuple(n for n in head.pending if n not in names)
        return replace(head, pending=still, heavy_job=heavy.pk if heavy else None)
    kept = {s.name: s for s in head.stale}
    kept.update({n: StaleTable(n, found.computed_at, found.answers) for n in names})
    stale = tuple(kept[n] for n in sorted(kept))
    return replace(head, stale=stale, heavy_job=heavy.pk if heavy else None)


def _heavy_state(
    study: Study, settings: ReportSettings, head: ReportHead | None, *, start: bool
) -> _Heavy:
    """The stored report's pending heavy tables: filled in from the last heavy-table
    job's result (current or stale: ``merge_head``, read from the jobs' summaries), and
    the job computing them. When none is queued or running and the last did not fail (a
    lost or superseded job), ``start`` submits one (the report job submits it when it
    ends: ``report_done``)."""
    if head is None or not head.pending:
        return _Heavy(head, None, None, "")
    key = heavy_key(study, settings)
    done = _latest_done(key)
    head = merge_head(head, done)
    if not head.pending:
        return _Heavy(head, done, None, "")
    job = _active(key)
    failed = "" if job is not None else _failed_since(key, done)
    if job is None and start and not failed:
        job, _new = heavy_submit(study, settings, head.fingerprint)
        job.refresh_from_db()
        if job.finished:  # ran at once (no broker)
            done = _latest_done(key)
            head = merge_head(head, done)
            failed = job.message if job.status == Job.Status.FAILED else ""
            job = None
    return _Heavy(head, done, job, failed)


def _failed_since(key: str, done: Job | None) -> str:
    """Why the latest job for ``key`` failed, when it is newer than the last done one."""
    last = Job.objects.filter(key=key).order_by("-created_at", "-pk").first()
    if last is None or last.status != Job.Status.FAILED or (done is not None and last == done):
        return ""
    return last.message or _("the report job failed")


# --- the runner --------------------------------------------------------------------


def background_report_run(job: Job, on_progress: ProgressCallback) -> Outcome:
    """Compute and store the report of ``job.params["settings"]`` (with the dashboard's
    per-form rule rates and planning rows), on one BLAS/OpenMP thread: a report job
    uses one core, however many the BLAS library would start, so the web workers on
    the same machine keep the others (docs/deploy.md, worker priority)."""
    with threadpool_limits(limits=1):
        if is_heavy(job):
            return _heavy_run(job, on_progress)
        return _report_run(job, on_progress)


def _report_run(job: Job, on_progress: ProgressCallback) -> Outcome:
    from research.dashboard.beyond import PANEL_GOALS

    assert job.study is not None
    study = job.study
    settings = settings_from(job.params.get("settings") or {})
    on_progress("computing", 0, 3)
    deviations_record(study, settings)  # departures from a frozen plan, first seen now
    totals = response_totals(study)  # what the result will be of
    fp, answers = fingerprint(study, totals), totals.n
    reuse = TableCache(study, fp)
    reader = StudyReader(study)  # one read of the responses serves the report, the
    data = reader.data(settings.tasks)  # per-form rule rates and (every task) the plan
    # the heavy tables: from the cache when computed on these data, else by their own job
    report = build_report(study, settings, reuse=reuse, data=data, fp=fp, defer=HEAVY_TABLES)
    on_progress("computing", 1, 3)
    per_form = None
    if "form" not in settings.by:
        forms = replace(settings, by=(*settings.by, "form"))
        per_form = build_report(study, forms, ("rule_rates",), reuse=reuse, data=data, fp=fp)
    on_progress("computing", 2, 3)
    stored = StoredReport(
        report=report,
        fingerprint=fp,
        answers=answers,
        computed_at=timezone.now(),
        rule_rates_by_form=per_form.tables["rule_rates"] if per_form is not None else None,
        plan_rows=plan_for(study, PANEL_GOALS, fp=fp, reader=reader),
    )
    path = _store(job, stored)
    on_progress("computing", 3, 3)
    return Outcome(
        summary={**_summary(settings, stored, report.tables), "pending": list(report.pending)},
        message=_("report computed on %(n)d answers") % {"n": answers},
        result_file=stored_name(path),
    )


def _heavy_run(job: Job, on_progress: ProgressCallback) -> Outcome:
    """Compute and store the heavy tables of ``job.params["settings"]``'s report on the
    data as they are now (the study's ``TableCache`` serves them when it holds them, and
    keeps them for the next report job of these data)."""
    assert job.study is not None
    study = job.study
    settings = settings_from(job.params.get("settings") or {})
    on_progress("computing", 0, 1)
    totals = response_totals(study)
    fp, answers = fingerprint(study, totals), totals.n
    reuse, starts = TableCache(study, fp), IrtStarts(study)  # warm from the last fits
    report = build_report(study, settings, HEAVY_TABLES, reuse=reuse, fp=fp, starts=starts)
    heavy = HeavyTables(
        tables={name: report.tables[name] for name in HEAVY_TABLES},
        fingerprint=fp,
        answers=answers,
        computed_at=timezone.now(),
    )
    path = _store(job, heavy)
    on_progress("computing", 1, 1)
    return Outcome(
        summary=_summary(settings, heavy, heavy.tables),
        message=_("%(tables)s computed on %(n)d answers")
        % {"tables": ", ".join(HEAVY_TABLES), "n": answers},
        result_file=stored_name(path),
    )


def _summary(
    settings: ReportSettings, result: StoredReport | HeavyTables, tables: dict[str, Any]
) -> dict[str, Any]:
    """A done job's summary: what its result is of (``_summary_of`` reads it back)."""
    return {
        "settings": settings.as_json(),
        "fingerprint": result.fingerprint,
        "answers": result.answers,
        "tables": {k: len(v) for k, v in tables.items()},
        "computed_at": result.computed_at.isoformat(),
    }


def _store(job: Job, result: StoredReport | HeavyTables) -> Path:
    """Write a job's result to its file (whole or not at all) and cache it by job id."""
    path = result_path("reports", job, "pkl")
    partial = path.with_name(path.name + ".part")
    with partial.open("wb") as fh:
        pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(partial, path)
    cache.set(f"shiping:report-job:{job.pk}", result, CACHE_SECONDS)
    return path


def report_done(job: Job) -> None:
    """After a background report job (``jobs.services.job_run``): older stored copies of
    the same key are deleted (the newest is the only one shown); a report stored with
    heavy tables pending submits (or joins) their job; then maybe a follow-up. A
    heavy-table job has no follow-up: the next report job of newer data asks again."""
    if job.kind != Job.Kind.REPORT or not job.key or job.status != Job.Status.DONE:
        return
    older = Job.objects.filter(key=job.key, status=Job.Status.DONE, finished_at__lt=job.finished_at)
    for old in older.exclude(result_file=""):
        path = _stored_path(old)
        if path is not None:
            path.unlink(missing_ok=True)
        Job.objects.filter(pk=old.pk).update(result_file="")
    if is_heavy(job) or job.study is None:
        return
    summary = job.summary or {}
    if summary.get("pending"):
        settings = settings_from(job.params.get("settings") or {})
        heavy_submit(job.study, settings, str(summary.get("fingerprint", "")))
    report_follow_up(job)


def report_follow_up(job: Job) -> Job | None:
    """After a background report job: one follow-up when the study's data moved while it
    ran (a follow-up itself has none, so answers arriving steadily cost one more
    computation, not an endless chain). Returns the follow-up job, if any."""
    if (
        job.kind != Job.Kind.REPORT
        or not job.key
        or is_heavy(job)
        or job.status != Job.Status.DONE
        or job.study is None
        or job.params.get("follow_up_of") is not None
    ):
        return None
    computed_on = (job.summary or {}).get("fingerprint")
    fp = fingerprint(job.study)
    if computed_on is None or computed_on == fp:
        return None
    settings = settings_from(job.params.get("settings") or {})
    follow, new = report_submit(job.study, settings, fp, follow_up_of=job.pk)
    return follow if new else None
