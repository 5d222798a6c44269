"""A job's progress: written to its row when possible, and to the cache always.

The loaders write inside one transaction, so a progress update written to the Job row
from inside it would stay invisible to everyone else until the very end (and be rolled
back with a failed load). Updates therefore go to the cache (Redis in production, shared
by every process) at once, and to the row only outside a transaction; readers use
:func:`live_progress`, which prefers the cache while the job runs.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection, connections
from django.utils import timezone

from jobs.models import Job

logger = logging.getLogger(__name__)

CACHE_SECONDS = 24 * 3600


def cache_key(job_id: int) -> str:
    return f"shiping:job:{job_id}:progress"


def beat_key(job_id: int) -> str:
    return f"shiping:job:{job_id}:beat"


class Heartbeat:
    """While a job runs, a thread gives a sign of life every ``JOB_HEARTBEAT_SECONDS``:
    to the shared cache always, and to the row's ``heartbeat_at`` (its own database
    connection, so a loader's long transaction does not hide it; on SQLite that write
    may have to wait for the loader's, and is then skipped). When the process running the
    job dies (a killed web request running it in-process, a killed worker) the beats
    stop, and :func:`runner_gone` tells so."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"job-{job_id}-heartbeat")
        self._thread.daemon = True

    def __enter__(self) -> Heartbeat:
        self.beat()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def beat(self) -> None:
        now = timezone.now()
        cache.set(beat_key(self.job_id), now.timestamp(), CACHE_SECONDS)
        try:
            Job.objects.filter(pk=self.job_id).update(heartbeat_at=now)
        except DatabaseError:  # the cache has the beat; the row catches up next time
            logger.debug("job %s: heartbeat not written to its row", self.job_id)

    def _run(self) -> None:
        try:
            while not self._stop.wait(settings.JOB_HEARTBEAT_SECONDS):
                self.beat()
        finally:
            connections.close_all()  # this thread's own connection


def last_sign_of_life(job: Job) -> datetime | None:
    """The latest heartbeat of a job's runner (row or cache), else when it started."""
    signs = [t for t in (job.heartbeat_at, job.started_at, job.created_at) if t is not None]
    cached = cache.get(beat_key(job.pk))
    if cached is not None:
        signs.append(datetime.fromtimestamp(float(cached), tz=timezone.get_current_timezone()))
    return max(signs, default=None)


def silence_allowed() -> timedelta:
    return timedelta(seconds=settings.JOB_HEARTBEAT_SECONDS * settings.JOB_MISSED_BEATS)


def runner_gone(job: Job, now: datetime | None = None) -> bool:
    """Whether a running job's runner has given no sign of life for ``JOB_MISSED_BEATS``
    heartbeats: the process running it died (or it never started one)."""
    if job.status != Job.Status.RUNNING:
        return False
    last = last_sign_of_life(job)
    return last is None or (now or timezone.now()) - last > silence_allowed()


class JobProgress:
    """A ``ProgressCallback`` that keeps a job's stage, done and total up to date."""

    def __init__(self, job_id: int, *, min_interval: float = 0.5) -> None:
        self.job_id = job_id
        self.min_interval = min_interval
        self._last = 0.0
        self.stage = ""  # the latest report, kept for the job's final row
        self.done = 0
        self.total: int | None = None

    def __call__(self, label: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        edge = done == 0 or (total is not None and done >= total) or label != self.stage
        self.stage, self.done, self.total = label[:40], done, total
        if not edge and now - self._last < self.min_interval:
            return
        self._last = now
        values = {"stage": label[:40], "done": done, "total": total}
        cache.set(cache_key(self.job_id), values, CACHE_SECONDS)
        if not connection.in_atomic_block:
            Job.objects.filter(pk=self.job_id).update(**values)


def live_progress(job: Job) -> dict[str, Any]:
    """Stage, done, total and percent: from the cache while running, else from the row."""
    values: dict[str, Any] = {"stage": job.stage, "done": job.done, "total": job.total}
    if job.status == Job.Status.RUNNING:
        values.update(cache.get(cache_key(job.pk)) or {})
    percent = job.percent
    if job.status == Job.Status.RUNNING and values["total"]:
        percent = min(100, int(100 * values["done"] / values["total"]))
    return {**values, "percent": percent}
