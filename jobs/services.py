"""Submitting and running jobs: ``job_submit`` records and enqueues, ``job_run`` runs."""

from __future__ import annotations

import logging
import re
import time
import uuid
from dataclasses import asdict, replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from jobs.models import Job
from jobs.progress import Heartbeat, JobProgress, cache_key, runner_gone, silence_allowed
from jobs.runners import RUNNERS
from jobs.tasks import TRANSIENT_DB_ERRORS, drop_broken_connection, run_job, run_report_job
from scoring.rules import poem_items
from studies.loading.problems import LoadError, Note, Summary
from studies.models import Study

logger = logging.getLogger(__name__)
MAX_PROBLEMS = 1000  # kept on a failed job's row; the count says how many there were
RUNNER_LOST = "runner_lost"  # summary["error"] of a job whose runner died


def upload_save(name: str, content: bytes) -> str:
    """Keep an uploaded file under DATA_DIR/uploads for a job to read (maybe on another
    machine); returns its path relative to DATA_DIR."""
    safe = re.sub(r"[^\w.-]+", "_", Path(name).name)[-100:] or "upload"
    relative = Path("uploads") / timezone.now().strftime("%Y%m%d") / f"{uuid.uuid4().hex}-{safe}"
    path = Path(settings.DATA_DIR) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return str(relative)


def uploads_purge(*, keep_days: int | None = None) -> int:
    """Delete the uploaded files (DATA_DIR/uploads) older than ``keep_days`` (default
    ``UPLOAD_KEEP_DAYS``) that no queued or running job still needs; their finished jobs
    are marked (``params["purged"]``). Run at the end of every job and by ``manage.py
    purge_uploads``. Returns how many files were deleted."""
    keep = settings.UPLOAD_KEEP_DAYS if keep_days is None else keep_days
    root = Path(settings.DATA_DIR) / "uploads"
    if not root.is_dir():
        return 0
    cutoff = time.time() - keep * 86400
    pending = Job.objects.exclude(status__in=[Job.Status.DONE, Job.Status.FAILED])
    needed = {
        str(p)
        for p in pending.filter(params__has_key="path").values_list("params__path", flat=True)
    }
    needed |= {
        str(p)
        for p in Job.objects.filter(summary__error=RUNNER_LOST, params__has_key="path").values_list(
            "params__path", flat=True
        )
    }  # a job whose runner died is run again when it is delivered again
    removed: list[str] = []
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(settings.DATA_DIR))
        if path.is_file() and relative not in needed and path.stat().st_mtime <= cutoff:
            path.unlink(missing_ok=True)
            removed.append(relative)
    for folder in sorted((p for p in root.glob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    for start in range(0, len(removed), 500):
        for job in Job.objects.filter(params__path__in=removed[start : start + 500]):
            job.params = {**job.params, "purged": True}
            job.save(update_fields=["params"])
    return len(removed)


def job_submit(
    *, kind: str, study: Study | None, params: dict[str, Any], user: Any = None, key: str = ""
) -> Job:
    """Record a job and enqueue it once the current transaction commits: report jobs
    on the ``reports`` queue, every other on ``jobs`` (``CELERY_TASK_ROUTES``). ``key``:
    what the job computes, when at most one may be queued or running for it (the
    database refuses a second: ``IntegrityError``; ``jobs.reports``).

    Without a broker (``CELERY_BROKER_URL`` unset) Celery runs it at once in this
    process, so the returned job may already be done; reload it to see.
    """
    if kind not in RUNNERS:
        raise ValueError(f"no runner for jobs of kind {kind!r}")
    job = Job.objects.create(
        kind=kind,
        study=study,
        params=params,
        key=key,
        created_by=user if getattr(user, "pk", None) else None,
    )
    task = run_report_job if kind == Job.Kind.REPORT else run_job
    transaction.on_commit(partial(task.delay, job.pk))
    return job


def load_submit(
    *,
    kind: str,
    name: str,
    content: bytes,
    study: Study | None,
    dry_run: bool = False,
    fmt: str | None = None,
    encoding: str | None = None,
    sheet: str | None = None,
    user: Any = None,
) -> Job:
    """A load (study, pool, LLM outputs, responses) as a job: save the file, then submit."""
    params: dict[str, Any] = {
        "path": upload_save(name, content),
        "name": name,
        "format": fmt,
        "dry_run": dry_run,
    }
    params.update({k: v for k, v in (("encoding", encoding), ("sheet", sheet)) if v})
    return job_submit(kind=kind, study=study, params=params, user=user)


def job_run(job_id: int) -> Job | None:
    """Run a queued job (or one whose worker died); record its outcome on its row.

    A transient database error (``TRANSIENT_DB_ERRORS``) while starting or running is
    raised for the task to retry the job: runners are atomic and idempotent, so nothing
    is half-done. Once the runner has finished, its outcome is saved with retries of its
    own, so a finished load is never run a second time because its row could not be
    written at the first try.
    """
    job = Job.objects.select_related("study", "created_by").filter(pk=job_id).first()
    if job is None or (job.finished and (job.summary or {}).get("error") != RUNNER_LOST):
        return job  # (a job failed for a lost runner is run again when it is delivered again)
    seen = job.status
    job.status, job.started_at, job.message = Job.Status.RUNNING, timezone.now(), ""
    job.finished_at, job.summary = None, {}
    started = Job.objects.filter(pk=job.pk, status=seen).update(
        status=job.status, started_at=job.started_at, message="", finished_at=None, summary={}
    )
    if not started:  # changed since it was read (e.g. a stale queued report superseded)
        return Job.objects.filter(pk=job_id).first()
    reporter = JobProgress(job.pk)
    try:
        with Heartbeat(job.pk):
            outcome = RUNNERS[job.kind](job, reporter)
    except LoadError as exc:
        job.status = Job.Status.FAILED
        job.message = exc.describe(limit=5)
        job.summary = {
            "problem_count": len(exc.problems),
            "problems": [asdict(p) for p in exc.problems[:MAX_PROBLEMS]],
        }
    except TRANSIENT_DB_ERRORS:
        raise
    except Exception as exc:
        logger.exception("job %s (%s) failed", job.pk, job.kind)
        job.status = Job.Status.FAILED
        job.message = f"{type(exc).__name__}: {exc}"
        job.summary = {"error": type(exc).__name__}
    else:
        job.status = Job.Status.DONE
        job.message, job.summary, job.result_file = (
            outcome.message,
            outcome.summary,
            outcome.result_file,
        )
    finally:
        cache.delete(cache_key(job.pk))
    job.stage, job.done, job.total = reporter.stage, reporter.done, reporter.total
    job.finished_at = timezone.now()
    _save_outcome(job)
    try:  # uploads past UPLOAD_KEEP_DAYS (this job's own too, when it is 0)
        uploads_purge()
    except (OSError, DatabaseError):
        logger.warning("uploaded files could not be purged", exc_info=True)
    if job.key:  # a background report: older copies dropped; data moved meanwhile: a follow-up
        from jobs.reports import report_done

        try:
            report_done(job)
        except DatabaseError:
            logger.warning("job %s: no follow-up report submitted", job.pk, exc_info=True)
    return job


def _save_outcome(job: Job, attempts: int = 8) -> None:
    """Save a finished job's row, waiting out a database that is briefly unavailable."""
    for attempt in range(attempts):
        try:
            job.save()
            return
        except TRANSIENT_DB_ERRORS:
            if attempt == attempts - 1:
                raise
            drop_broken_connection()
            time.sleep(min(0.1 * 2**attempt, 5.0))


def job_fail_if_runner_gone(job: Job) -> bool:
    """Mark a running job failed, saying why, when its runner has given no sign of life
    for a while (``jobs.progress.runner_gone``): without a broker a job runs inside the
    request that submitted it, and a request that dies takes it along. Called when a job
    is read (the status view, the admin); True when it did so. A runner that was only
    slow and finishes after all still records its outcome."""
    if not runner_gone(job):
        return False
    now = timezone.now()
    seconds = int(silence_allowed().total_seconds())
    message = (
        f"The job stopped without finishing: its runner gave no sign of life for {seconds} s "
        "(the web request or worker running it died). Nothing of it was written "
        "(loads are all or nothing); submit it again."
    )
    if job_fail_if_still(job, Job.Status.RUNNING, message, {"error": RUNNER_LOST}, now):
        cache.delete(cache_key(job.pk))
        logger.warning("job %s (%s): runner gone, marked failed", job.pk, job.kind)
        return True
    return False


def job_fail_if_still(
    job: Job, status: str, message: str, summary: dict[str, Any], now: datetime
) -> bool:
    """Mark ``job`` failed with ``message`` and ``summary`` only if it is still in
    ``status`` (one conditional UPDATE: whoever changed it meanwhile wins); the object
    follows. Returns whether it was marked."""
    updated = Job.objects.filter(pk=job.pk, status=status).update(
        status=Job.Status.FAILED, finished_at=now, message=message, summary=summary
    )
    if updated:
        job.status, job.finished_at = Job.Status.FAILED, now
        job.message, job.summary = message, summary
    return bool(updated)


def job_give_up(job_id: int, error: BaseException) -> None:
    """Mark a job failed after its task ran out of retries (best effort: the database
    may still be down, in which case the job stays as it was and the log says why)."""
    try:
        drop_broken_connection()
        Job.objects.filter(pk=job_id, finished_at__isnull=True).update(
            status=Job.Status.FAILED,
            finished_at=timezone.now(),
            message=_("gave up after repeated database errors: %(error)s")
            % {"error": f"{type(error).__name__}: {error}"},
            summary={"error": type(error).__name__},
        )
    except TRANSIENT_DB_ERRORS:
        logger.exception("job %s: could not record that it failed", job_id)


def command_submit(
    *,
    kind: str,
    study: Study | None,
    params: dict[str, Any],
    content: bytes | None = None,
    name: str = "",
    user: Any = None,
) -> dict[str, Any]:
    """The submitter behind the commands' ``--background`` (see studies.background)."""
    if content is not None:
        job = load_submit(
            kind=kind,
            name=name,
            content=content,
            study=study,
            user=user,
            dry_run=bool(params.get("dry_run")),
            fmt=params.get("format"),
            encoding=params.get("encoding"),
            sheet=params.get("sheet"),
        )
    else:
        job = job_submit(kind=kind, study=study, params=params, user=user)
    job.refresh_from_db()
    if job.finished:
        line = f"job {job.pk} ({job.kind}) {job.status}: {job.message}"
    else:
        line = (
            f"job {job.pk} ({job.kind}) queued; follow it in the admin "
            f"(/admin/jobs/job/{job.pk}/) or at /research/jobs/{job.pk}/"
        )
    return {"id": job.pk, "status": job.status, "message": line}


def rule_scores_follow(summary: Summary, study: Study | None, user: Any = None) -> Summary:
    """A load that left its poems unscored (more than ``SCORE_ON_LOAD_MAX_ITEMS``) has
    them scored by a background job at once; its note then names the job and says where
    it stands: done (without a broker Celery runs it in this process at once, unless a
    transaction is open), failed, or queued (then also the command that does the same)."""
    deferred = [n for n in summary.notes if n.code == "rule_scores_deferred"]
    if not deferred or summary.dry_run or study is None:
        return summary
    poems = poem_items(list(summary.items.changed))
    job = job_submit(kind=Job.Kind.RULE_SCORES, study=study, params={"item_ids": poems}, user=user)
    job.refresh_from_db()  # without a broker the job has run already (outside a transaction)
    values = {"n": len(poems), "job": job.pk, "study": study.slug}
    if job.status == Job.Status.DONE:
        text = _(
            "%(n)d poems changed: their rule scores were computed by job %(job)d "
            "(/research/jobs/%(job)d/)."
        )
    elif job.status == Job.Status.FAILED:
        text = _(
            "%(n)d poems changed: job %(job)d, which computes their rule scores, failed "
            "(/research/jobs/%(job)d/ says why). `manage.py score_poems %(study)s` computes "
            "them."
        )
    else:
        text = _(
            "%(n)d poems changed: their rule scores are computed by background job %(job)d "
            "(/research/jobs/%(job)d/); until it finishes the report's rule tables lack "
            "them. `manage.py score_poems %(study)s` computes them at once."
        )
    note = Note("rule_scores_job", text % values)
    notes = [n for n in summary.notes if n.code != "rule_scores_deferred"] + [note]
    return replace(summary, notes=notes)
