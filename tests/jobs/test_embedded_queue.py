"""The embedded default's queue (`make demo`): a job submitted without Redis goes to a
worker process of its own through kombu's filesystem transport (config/settings.py), not
into the request or command that submitted it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.load, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
FORMATS = ROOT / "tests" / "fixtures" / "formats"


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def job_status(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT kind, status FROM jobs_job ORDER BY id").fetchall()


def test_a_background_load_waits_for_the_worker_process_and_runs_there(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}},
        "DEBUG": "1", "DATA_DIR": str(tmp_path), "CELERY_BROKER_URL": "filesystem://",
    }  # fmt: skip
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "load_study", str(FORMATS / "study.json"))
    out = manage(env, "load_pool", str(FORMATS / "pool.jsonl"), "--study",
                 "poetry-understanding", "--background")  # fmt: skip
    assert "queued" in out
    db = tmp_path / "db.sqlite3"
    time.sleep(1)
    assert job_status(db) == [("pool", "queued")]  # nobody has run it: no worker yet
    assert list((tmp_path / "queue" / "in").iterdir())  # the message waits in the queue

    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo",
         "--loglevel=WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and job_status(db) != [("pool", "done")]:
            time.sleep(0.5)
        assert job_status(db) == [("pool", "done")]
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM studies_item").fetchone()[0] == 4
