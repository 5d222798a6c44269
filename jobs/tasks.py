"""Celery tasks (found by ``app.autodiscover_tasks()``): one task runs any Job."""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError, close_old_connections, connection

# A database that is restarting, failing over or (SQLite) briefly locked raises one of
# these: the job is retried rather than left "running". Every runner is atomic and
# idempotent (a load run twice changes nothing the second time), so a retry is safe.
TRANSIENT_DB_ERRORS = (OperationalError, InterfaceError)


def drop_broken_connection() -> None:
    """Close this thread's connection if an error broke it, so the next query reconnects.

    Only outside a transaction: an eager run (tests, ``CELERY_TASK_ALWAYS_EAGER``) shares
    the caller's connection, whose open transaction must not be closed under it.
    """
    if not connection.in_atomic_block:
        close_old_connections()


class JobTask(Task):  # type: ignore[misc,unused-ignore]  # celery ships no types
    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        """Out of retries: record the failure on the job's row, if the database lets us."""
        from jobs.services import job_give_up

        if args:
            job_give_up(int(args[0]), exc)


RETRYING = {
    "base": JobTask,
    "acks_late": True,
    "ignore_result": True,
    "autoretry_for": TRANSIENT_DB_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 8,
}


@shared_task(
    base=JobTask,
    name="shiping.run_job",
    acks_late=True,
    ignore_result=True,
    autoretry_for=TRANSIENT_DB_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    retry_jitter=True,
    max_retries=8,
)
def run_job(job_id: int) -> str:
    """Run the job; its outcome (summary, problems, result file) is stored on its row."""
    from jobs.services import job_run

    drop_broken_connection()  # after the error behind a retry
    job = job_run(job_id)
    return job.status if job is not None else "missing"


@shared_task(name="shiping.run_report_job", **RETRYING)
def run_report_job(job_id: int) -> str:
    """``run_job`` for report jobs, which ``CELERY_TASK_ROUTES`` sends to a queue of
    their own (``reports``), so a heavy report never waits behind a load, nor a load
    behind reports (docs/deploy.md, worker pools)."""
    return str(run_job(job_id))
