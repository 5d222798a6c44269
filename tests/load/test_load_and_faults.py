"""The production stack under load and faults, bounded to seconds (the full runs are in
``make bench``): gunicorn with several workers on a throw-away PostgreSQL cluster of the
test's own (bench/cluster.py: restarting it cuts no one else's connections), simulated
volunteers through the API. Afterwards every acknowledged answer is in the database
exactly once, and every hand-kept counter equals its recount."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench import loadtest
from bench.cluster import ThrowawayCluster
from tests.present import present

pytestmark = [pytest.mark.slow, pytest.mark.load]
DB = f"shiping_loadtest_{os.getpid()}"
SLUG = "song-ci-demo"


@pytest.fixture(scope="module")
def cluster():
    reason = ThrowawayCluster.unavailable_reason()
    if reason:
        pytest.skip(f"no throw-away PostgreSQL cluster: {reason}")
    with ThrowawayCluster() as pg:
        yield pg


@pytest.fixture(scope="module")
def stack(cluster, tmp_path_factory):
    url = loadtest.fresh_database(DB, admin=cluster.admin_url)
    env = loadtest.stack_env(url, tmp_path_factory.mktemp("stack"))
    loadtest.manage(env, "migrate", "--noinput")
    loadtest.manage(env, "demo", "--no-users")
    server = loadtest.start_gunicorn(env, workers=3)
    yield server, url, env
    server.stop()
    assert_counters_true(env)


def assert_counters_true(env: dict[str, str]) -> None:
    """`tallies_recount --check`: every hand-kept counter equals a recount."""
    loadtest.manage(env, "tallies_recount", "--check")


def run(server: loadtest.Server, n: int, seconds: float, seed: int) -> loadtest.Stats:
    # In a thread of its own: an earlier browser test may leave an event loop running here.
    with ThreadPoolExecutor(1) as pool:
        work = loadtest.run_volunteers(
            server.base, SLUG, n, think=(0.02, 0.1), seconds=seconds, ramp=0.5, seed=seed
        )
        return pool.submit(asyncio.run, work).result()


def test_volunteers_complete_the_study_with_nothing_lost_or_doubled(stack) -> None:
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


def test_a_worker_killed_mid_load_loses_nothing_and_retries_succeed(stack) -> None:
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


def test_postgresql_restarted_mid_load_loses_nothing(stack, cluster) -> None:
    server, url, _ = stack

    def restart_soon() -> None:
        time.sleep(1.0)
        cluster.restart()  # the test's own cluster: no one else's connections are cut

    thread = threading.Thread(target=restart_soon, daemon=True)
    thread.start()
    try:
        stats = run(server, 12, 90, seed=3)
    finally:
        thread.join()
    assert (dict(stats.errors), stats.finished) == ({}, 12), stats.last_failure
    result = loadtest.verify(url, stats)
    assert (result["lost"], result["doubled"]) == (0, 0)


def test_a_pool_load_killed_half_way_leaves_nothing_behind(stack, tmp_path) -> None:
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
                present(
                    conn.execute(
                        "SELECT count(*) FROM studies_item WHERE external_id LIKE 'big-%%'"
                    ).fetchone()
                )[0]
            )

    # Kill it while it writes: wait until the transaction holds locks on the item table.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        with psycopg.connect(url) as conn:
            writing = present(
                conn.execute(
                    "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    "WHERE c.relname = 'studies_item' AND l.mode = 'RowExclusiveLock'"
                ).fetchone()
            )[0]
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
