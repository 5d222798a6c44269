"""Researchers asking for heavy reports while volunteers answer (issue #26 item 1, #24 item 5).

The stack of bench_load.py on 127.0.0.1 (a throw-away PostgreSQL database, gunicorn with
``--preload``), with a broker (kombu's filesystem queue) and a Celery worker on both
queues, as ``make demo`` runs it. 200 simulated volunteers complete the demo study
(``loadtest.run_volunteers``, think time 2–5 s) while a few researchers, logged in,
keep asking for new reports: the dashboard and the API's report with a new seed each
time and ``n_boot=2000`` (the cap), with no pause. Every report is computed by the
worker, never in a request: the researchers get the page at once (202 from the API).

Two layouts (``--layout``): ``split`` (docs/deploy.md: researchers' pages on a gunicorn
pool of their own, as nginx routes /research/ and /api/v1/studies/) and ``shared`` (one
pool for everyone). Reported: the volunteers' p50/p99 per request kind, their retries
(each a 5xx or a transport error) and failures, and the researchers' request counts by
status. Goal: volunteers' p99 < 100 ms, no 5xx.

Run: ``python bench/bench_researchers.py [--quick] [--layout split|shared]``. Bounded:
every phase stops by itself after its time limit; PostgreSQL's settings are not touched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import loadtest
from bench.common import write_result

DB = "shiping_bench_researchers"
SLUG = "song-ci-demo"
RAMP_SECONDS = 30.0
USER, PASSWORD = "bench-researcher", "bench-researcher-pw-1"


def start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "jobs,reports",
           "--pool=solo", "--loglevel=WARNING"]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=loadtest.ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def study_pk(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT id FROM studies_study WHERE slug = %s", [SLUG]).fetchone()
    assert row is not None
    return int(row[0])


async def login(session: aiohttp.ClientSession, base: str) -> None:
    """The admin's login form, as a browser fills it (CSRF token and cookie)."""
    async with session.get(f"{base}/admin/login/") as resp:
        page = await resp.text()
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found is not None, "no CSRF token on the login page"
    form = {"csrfmiddlewaretoken": found.group(1), "username": USER, "password": PASSWORD}
    async with session.post(
        f"{base}/admin/login/?next=/research/", data=form, headers={"Referer": f"{base}/"}
    ) as resp:
        assert resp.status in (200, 302), resp.status
        assert "/research/" in str(resp.url), "login failed"


async def researcher(
    base: str,
    pk: int,
    seconds: float,
    rng: random.Random,
    statuses: Counter[str],
    times: list[float],
) -> None:
    jar = aiohttp.CookieJar(unsafe=True)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(cookie_jar=jar, timeout=timeout) as session:
        await login(session, base)
        deadline = time.monotonic() + seconds
        n = 0
        while time.monotonic() < deadline:
            seed = rng.randrange(2**31)
            path = (
                f"/research/studies/{pk}/?n_boot=2000&seed={seed}"
                if n % 2 == 0
                else f"/api/v1/studies/{pk}/report/?n_boot=2000&seed={seed}"
            )
            start = time.perf_counter()
            try:
                async with session.get(base + path, allow_redirects=False) as resp:
                    await resp.read()
                    statuses[f"{'page' if n % 2 == 0 else 'api'} {resp.status}"] += 1
            except (TimeoutError, aiohttp.ClientError):
                statuses["transport error"] += 1
            times.append(time.perf_counter() - start)
            n += 1
            await asyncio.sleep(0.5)


async def run(
    volunteers_base: str, research_base: str, pk: int, n: int, researchers: int, seconds: float
) -> tuple[loadtest.Stats, Counter[str], list[float]]:
    statuses: Counter[str] = Counter()
    times: list[float] = []
    volunteer_load = loadtest.run_volunteers(
        volunteers_base, SLUG, n, think=(2.0, 5.0), seconds=seconds, ramp=RAMP_SECONDS, seed=1
    )
    research_load = [
        researcher(research_base, pk, seconds, random.Random(k), statuses, times)
        for k in range(researchers)
    ]
    results = await asyncio.gather(volunteer_load, *research_load)
    stats = results[0]
    assert isinstance(stats, loadtest.Stats)
    return stats, statuses, times


def jobs_done(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT status, count(*) FROM jobs_job WHERE kind = 'report' GROUP BY status"
        ).fetchall()
    return {str(s): int(c) for s, c in rows}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--layout", choices=("split", "shared"), default="split")
    parser.add_argument("--workers", type=int, default=3, help="the volunteers' gunicorn pool")
    parser.add_argument("--researchers", type=int, default=3)
    args = parser.parse_args()
    n, seconds = (200, 60) if args.quick else (200, 150)
    servers: list[loadtest.Server] = []
    worker = None
    try:
        url = loadtest.fresh_database(DB)
        data_dir = Path(tempfile.mkdtemp())
        env = loadtest.stack_env(
            url, data_dir, CELERY_BROKER_URL="filesystem://", REPORT_STARTS_PER_HOUR="0"
        )
        loadtest.manage(env, "migrate", "--noinput")
        loadtest.manage(env, "demo", "--no-users")
        loadtest.manage(env, "collectstatic", "--noinput", "-v0")  # the pages' static files
        loadtest.manage(
            {**env, "DJANGO_SUPERUSER_PASSWORD": PASSWORD},
            "createsuperuser", "--noinput", "--username", USER, "--email", "r@example.org",
        )  # fmt: skip
        pk = study_pk(url)
        worker = start_worker(env)
        volunteers = loadtest.start_gunicorn(env, workers=args.workers)
        servers.append(volunteers)
        research = volunteers
        if args.layout == "split":
            research = loadtest.start_gunicorn(env, workers=1)
            servers.append(research)
        asyncio.run(  # warm-up, not measured (as bench_load.py)
            loadtest.run_volunteers(
                volunteers.base, SLUG, 20, think=(0.05, 0.2), seconds=30, ramp=2, seed=99
            )
        )
        stats, statuses, times = asyncio.run(
            run(volunteers.base, research.base, pk, n, args.researchers, seconds)
        )
        jobs = jobs_done(url)
        check = loadtest.verify(url, stats)  # every acknowledged answer stored exactly once
    finally:
        for server in servers:
            server.stop()
        if worker is not None:
            worker.terminate()
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        loadtest.drop_database(DB)
    ordered = sorted(times)
    research_ms = {
        "n": len(ordered),
        "p50_ms": round(ordered[len(ordered) // 2] * 1000, 1) if ordered else None,
        "max_ms": round(ordered[-1] * 1000, 1) if ordered else None,
    }
    result: dict[str, Any] = {
        "stack": (
            f"gunicorn {args.workers} sync workers for volunteers"
            + (" + 1 for researchers" if args.layout == "split" else " shared with researchers")
            + " (--preload) + PostgreSQL + 1 Celery worker (-Q jobs,reports, filesystem queue); "
            "load generator on the same 2 cores"
        ),
        "layout": args.layout,
        "volunteers": {**loadtest.summary(stats), "check": check, "n": n},
        "researchers": {
            "clients": args.researchers,
            "requests_by_status": dict(statuses),
            "latency": research_ms,
            "note": "every request a new seed with n_boot=2000; the dashboard and the API alternate",
        },
        "report_jobs": jobs,
        "quick": args.quick,
    }
    path = write_result("researchers", result)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    print(f"written to {path}")


if __name__ == "__main__":
    main()
