"""Load test of the production stack: gunicorn (several workers) + PostgreSQL, 127.0.0.1 only.

Two regimes, both reported (see docs/performance.md):
- realistic: 200 simulated volunteers complete the demo study through the API, each
  pausing a few seconds between answers as people do; latency percentiles are judged here
  (goal p99 < 100 ms), with 0 errors and every acknowledged answer stored exactly once;
- saturation: 50 closed-loop clients with no think time, each enrolling again as soon as
  its volunteer finishes; answers per second of the whole volunteer flow (enrol, first
  item, answers) compared with the floor view (one INSERT through the same middleware,
  workers and database). Each answer is one request (``POST answers/?next=1`` stores it
  and claims the next item), and every twelve answers bring an enrolment and a first
  GET: a figure of the whole flow, shown beside the floor but not judged against 0.7.
  Submission alone against the floor, on the same stack, is bench_submit.py's figure.
Then the same realistic load again with faults: a worker killed with SIGKILL and PostgreSQL
restarted mid-load; afterwards nothing acknowledged is lost or doubled.

Everything runs on a PostgreSQL cluster of the run's own (``bench/cluster.py``: initdb on a
free port, removed afterwards), so that the restart and docs/deploy.md's autovacuum settings
never touch the machine's shared server.

Run: ``python bench/bench_load.py [--quick] [--workers N]``. Bounded: every phase stops by
itself after its time limit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import loadtest
from bench.cluster import ThrowawayCluster
from bench.common import deployed_autovacuum, report_result

DB = "shiping_bench_load"
# Volunteers arrive over half a minute (a recruitment post brings people within minutes,
# not all in the same second); all 200 are then answering at the same time.
RAMP_SECONDS = 30.0
SLUG = "song-ci-demo"


def realistic(
    server: loadtest.Server, url: str, n: int, think: tuple[float, float], seconds: float, seed: int
) -> dict:
    stats = asyncio.run(
        loadtest.run_volunteers(
            server.base, SLUG, n, think=think, seconds=seconds, ramp=RAMP_SECONDS, seed=seed
        )
    )
    return {
        **loadtest.summary(stats),
        "check": loadtest.verify(url, stats),
        "volunteers": n,
        "think_seconds": list(think),
    }


def with_faults(
    server: loadtest.Server,
    url: str,
    n: int,
    think: tuple[float, float],
    seconds: float,
    restart: Callable[[], None],
) -> dict:
    events: list[str] = []

    def inject() -> None:
        time.sleep(seconds * 0.2)
        victim = server.worker_pids()[0]
        os.kill(victim, 9)
        events.append(f"SIGKILL worker {victim} at {seconds * 0.2:.0f}s")
        time.sleep(seconds * 0.2)
        restart()  # the run's own cluster (never the machine's shared server)
        events.append(f"PostgreSQL restarted at {seconds * 0.4:.0f}s")

    thread = threading.Thread(target=inject, daemon=True)
    thread.start()
    result = realistic(server, url, n, think, seconds, seed=7)
    thread.join()
    return {**result, "faults": events}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--no-faults", action="store_true", help="skip the fault phase")
    args = parser.parse_args()
    with ThrowawayCluster() as pg:
        result = run(args, pg)
    report_result("load", result)


def run(args: argparse.Namespace, pg: ThrowawayCluster) -> dict:
    n, think, seconds, sat_seconds = (
        (40, (1.0, 2.0), 60, 8) if args.quick else (200, (2.0, 5.0), 150, 20)
    )
    settings = ExitStack()  # docs/deploy.md's autovacuum, as in a deployment, for the run
    autovacuum = settings.enter_context(deployed_autovacuum(admin=pg.admin_url))
    server = None
    try:  # the server's settings are put back whatever fails, the set-up included
        url = loadtest.fresh_database(DB, admin=pg.admin_url)
        env = loadtest.stack_env(url, Path(tempfile.mkdtemp()))
        loadtest.manage(env, "migrate", "--noinput")
        loadtest.manage(env, "demo", "--no-users")
        server = loadtest.start_gunicorn(env, workers=args.workers)
        # Warm-up, not measured: 20 volunteers through the study, so that every worker has
        # served each kind of request and PostgreSQL's caches hold the tables, as on a live
        # server; the measured phases then see steady-state costs.
        asyncio.run(
            loadtest.run_volunteers(
                server.base, SLUG, 20, think=(0.05, 0.2), seconds=60, ramp=2, seed=99
            )
        )
        real = realistic(server, url, n, think, seconds, seed=1)
        sat = asyncio.run(
            loadtest.run_volunteers(
                server.base,
                SLUG,
                50,
                think=(0, 0),
                seconds=sat_seconds,
                ramp=0.5,
                seed=2,
                repeat=True,
            )
        )
        # Each saturation client enrols again as soon as its volunteer finishes, so the
        # closed loop stays 50 clients busy for the whole phase.
        floor = asyncio.run(
            loadtest.run_floor(server.base, 50, sat_seconds, loadtest.floor_ids(url, SLUG))
        )
        faults = (
            {"skipped": "--no-faults"}
            if args.no_faults
            else with_faults(server, url, n, think, seconds, pg.restart)
        )
    finally:
        if server is not None:
            server.stop()
        loadtest.drop_database(DB, admin=pg.admin_url)
        settings.close()
    sat_summary, floor_summary = loadtest.summary(sat), loadtest.summary(floor)
    return {
        "stack": f"gunicorn {args.workers} sync workers (--preload) + PostgreSQL, load generator on the same 2 cores",
        "realistic": real,
        "saturation": {
            "answers": sat_summary,
            "floor": floor_summary,
            "ratio_answers_to_floor_inserts": round(
                sat_summary["answers_per_second"] / max(1e-9, floor_summary["answers_per_second"]),
                3,
            ),
            "note": "an answer is one request (POST answers/?next=1: store + claim the next item); the floor one INSERT",
        },
        "faults": faults,
        "autovacuum": autovacuum,
        "quick": args.quick,
        "postgres": "a throw-away cluster of the run's own (bench/cluster.py)",
    }


if __name__ == "__main__":
    main()
