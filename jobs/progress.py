"""A job's progress: written to its row when possible, and to the cache always.

The loaders write inside one transaction, so a progress update written to the Job row
from inside it would stay invisible to everyone else until the very end (and be rolled
back with a failed load). Updates therefore go to the cache (Redis in production, shared
by every process) at once, and to the row only outside a transaction; readers use
:func:`live_progress`, which prefers the cache while the job runs.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache
from django.db import connection

from jobs.models import Job

CACHE_SECONDS = 24 * 3600


def cache_key(job_id: int) -> str:
    return f"shiping:job:{job_id}:progress"


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
