"""The production stack under load and faults, bounded to seconds (the full runs are in
``make bench``): gunicorn with several workers on a throw-away PostgreSQL database,
simulated volunteers through the API. Afterwards every acknowledged answer is in the
database exactly once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bench import loadtest

pytestmark = pytest.mark.slow
DB = "shiping_loadtest"
SLUG = "song-ci-demo"


def postgres_up() -> bool:
    return (
        subprocess.run(
            ["pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432"], check=False
        ).returncode
        == 0
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory):  # type: ignore[no-untyped-def]
    if not postgres_up():
        pytest.skip("PostgreSQL is not running on 127.0.0.1:5432 (.ci/run starts it)")
    url = loadtest.fresh_database(DB)
    env = loadtest.stack_env(url, tmp_path_factory.mktemp("stack"))
    loadtest.manage(env, "migrate", "--noinput")
    loadtest.manage(env, "demo", "--no-users")
    server = loadtest.start_gunicorn(env, workers=3)
    yield server, url, env
    server.stop()
    loadtest.drop_database(DB)


def run(server: loadtest.Server, n: int, seconds: float, seed: int) -> loadtest.Stats:
    # In a thread of its own: an earlier browser test may leave an event loop running here.
    with ThreadPoolExecutor(1) as pool:
        work = loadtest.run_volunteers(
            server.base, SLUG, n, think=(0.02, 0.1), seconds=seconds, ramp=0.5, seed=seed
        )
        return pool.submit(asyncio.run, work).result()


def test_volunteers_complete_the_study_with_nothing_lost_or_doubled(stack) -> None:  # type: ignore[no-untyped-def]
    server, url, _ = stack
    stats = run(server, 12, 60, seed=1)
    assert dict(stats.errors) == {}, stats.last_failure
    assert stats.finished == 12
    # The demo gives each volunteer 3 + 3 + 2 + 2 + 2 items, plus its attention check.
    assert len(stats.acks) >= 12 * 12
    assert loadtest.verify(url, stats) == {
        "acknowledged": len(stats.acks),
        "lost": 0,
        "doubled": 0,
        "stored_not_acknowledged": 0,
    }


def test_a_worker_killed_mid_load_loses_nothing_and_retries_succeed(stack) -> None:  # type: ignore[no-untyped-def]
    server, url, _ = stack
    victim = server.worker_pids()[0]

    def kill_soon() -> None:
        time.sleep(1.0)
        os.kill(victim, 9)

    threading.Thread(target=kill_soon, daemon=True).start()
    stats = run(server, 12, 60, seed=2)
    assert (dict(stats.errors), stats.finished) == ({}, 12), stats.last_failure
    assert victim not in server.worker_pids()  # gunicorn replaced it
    result = loadtest.verify(url, stats)
    assert (result["lost"], result["doubled"]) == (0, 0)


def test_postgresql_restarted_mid_load_loses_nothing(stack) -> None:  # type: ignore[no-untyped-def]
    from django.db import connections

    server, url, _ = stack
    version = sorted(os.listdir("/etc/postgresql"))[0] if Path("/etc/postgresql").exists() else None
    if version is None:
        pytest.skip("no local PostgreSQL cluster to restart")

    def restart_soon() -> None:
        time.sleep(1.0)
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"],
            check=False,
            capture_output=True,
        )

    thread = threading.Thread(target=restart_soon, daemon=True)
    thread.start()
    try:
        stats = run(server, 12, 90, seed=3)
    finally:
        thread.join()
        for _ in range(30):
            if postgres_up():
                break
            time.sleep(1)
        connections.close_all()  # this test process's own connections died with the restart
    assert (dict(stats.errors), stats.finished) == ({}, 12), stats.last_failure
    result = loadtest.verify(url, stats)
    assert (result["lost"], result["doubled"]) == (0, 0)


def test_a_pool_load_killed_half_way_leaves_nothing_behind(stack, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import sys

    import psycopg

    _, url, env = stack
    pool = tmp_path / "big.jsonl"
    with pool.open("w", encoding="utf-8") as fh:
        for i in range(15_000):
            fh.write(
                json.dumps(
                    {
                        "id": f"big-{i}",
                        "task": "cipai",
                        "stem": "词牌？",
                        "options": ["甲", "乙", "丙"],
                        "answer": 0,
                    }
                )
                + "\n"
            )
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "load_pool", str(pool), "--study", SLUG],
        cwd=loadtest.ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def big_items() -> int:
        with psycopg.connect(url) as conn:
            return int(
                conn.execute(
                    "SELECT count(*) FROM studies_item WHERE external_id LIKE 'big-%%'"
                ).fetchone()[0]
            )

    # Kill it while it writes: wait until the transaction holds locks on the item table.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        with psycopg.connect(url) as conn:
            writing = conn.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                "WHERE c.relname = 'studies_item' AND l.mode = 'RowExclusiveLock'"
            ).fetchone()[0]
        if writing:
            time.sleep(0.3)
            break
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    assert proc.returncode == -9, "the load finished before it could be killed"
    assert big_items() == 0
    loadtest.manage(env, "load_pool", str(pool), "--study", SLUG)
    assert big_items() == 15_000
