"""A job through a real Celery worker and a Redis broker, as in production.

The worker runs in a thread of this process (``celery.contrib.testing``) on a queue of
its own, so it cannot take anyone else's messages. Skipped when Redis is not running.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator

import pytest
from celery import Celery

from jobs.models import Job
from jobs.services import load_submit
from studies.models import Item
from tests.loading.helpers import snapshot

REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
pytestmark = [pytest.mark.redis, pytest.mark.load, pytest.mark.django_db(transaction=True)]
POOL = b'{"id": "ck-900", "task": "ck", "stem": "q", "options": ["a", "b"], "answer": 1}\n'


def redis_is_up() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def celery_worker() -> Iterator[Celery]:
    if not redis_is_up():
        pytest.skip(f"Redis is not running at {REDIS}")
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    keys = ("broker_url", "task_always_eager", "task_default_queue")
    saved = {k: app.conf[k] for k in keys}
    queue = f"shiping-test-{uuid.uuid4().hex[:8]}"
    app.conf.update(broker_url=REDIS, task_always_eager=False, task_default_queue=queue)
    reset_connections(app)
    try:
        with start_worker(
            app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=20
        ):
            yield app
    finally:
        app.conf.update(saved)
        reset_connections(app)


def reset_connections(app: Celery) -> None:
    """Forget the producer pool and queue table built for the previous broker settings."""
    app.close()
    app.__dict__.pop("amqp", None)


def wait_for(job: Job, seconds: float = 30) -> Job:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.finished:
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job.pk} still {job.status} after {seconds} s")


def test_a_worker_on_redis_runs_a_load_job_and_a_failing_one(celery_worker, example_study) -> None:
    job = load_submit(kind="pool", name="pool.jsonl", content=POOL, study=example_study)
    assert wait_for(job).status == "done", job.message
    assert job.summary["created"] == 1 and Item.objects.filter(external_id="ck-900").exists()

    before = snapshot()
    bad = load_submit(kind="pool", name="bad.jsonl", content=b"{oops\n", study=example_study)
    assert wait_for(bad).status == "failed"
    assert bad.summary["problems"][0]["line"] == 1 and snapshot() == before
