"""Researchers asking for heavy reports while volunteers answer (issue #26 item 1, #24 item 5).

The stack of bench_load.py on 127.0.0.1 (a throw-away PostgreSQL database, gunicorn with
``--preload``), with a broker (kombu's filesystem queue) and the reports worker of
docs/deploy.md (``-Q reports --concurrency=1``, ``nice -n 19``, one BLAS/OpenMP
thread). 200 simulated volunteers complete the demo study (``loadtest.run_volunteers``,
think time 2–5 s) while a few researchers, logged in, keep asking for new reports: the
dashboard and the API's report with a new seed each time and ``n_boot=2000`` (the cap),
every half second. Every report is computed by the worker, never in a request: the
researchers get the page at once (202 from the API).

Two phases in one run, on the same stack: the **floor** (the same 200 volunteers, no
researcher) and then the volunteers **with researchers**; the machine is shared, so the
floor measures what the machine gives at that time, and the ratio of the two p99s is
what the researchers cost the volunteers. Each phase records the machine's load average
and busy CPU share, and the CPU seconds used by each part of the stack.

Two layouts (``--layout``): ``split`` (docs/deploy.md: researchers' pages on a gunicorn
pool of their own at ``nice -n 10``, as nginx routes /research/ and /api/v1/studies/)
and ``shared`` (one pool for everyone). ``--report-nice 0 --research-nice 0`` runs
everything at the same priority (the set-up before issue #26); ``--pin`` puts the
reports worker on the last core (``taskset``) and both web pools on the others.
Reported: the volunteers' p50/p95/p99 per request kind, 5xx, retries (each a 5xx or a
transport error), answers lost or doubled, and the researchers' request counts by
status. Goal: volunteers' p99 < 100 ms, no 5xx.

Run: ``python bench/bench_researchers.py [--quick] [--layout split|shared] [--pin]``
(about 4.5 minutes; ``--quick`` 3.5). Bounded: every phase stops by itself after its
time limit; only 127.0.0.1 is contacted; PostgreSQL's settings are not touched.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import loadtest
from bench.common import quantile_ms, report_result

DB = "shiping_bench_researchers"
SLUG = "song-ci-demo"
RAMP_SECONDS = 30.0
USER, PASSWORD = "bench-researcher", "bench-researcher-pw-1"


#: The reports worker's environment and command prefix, as docs/deploy.md starts it: one
#: BLAS/OpenMP thread (a report never takes every core) and the lowest CPU priority, so
#: that the web workers serving volunteers always run first when both want a core.
REPORT_WORKER_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def worker_prefix(nice: int, cpus: str) -> tuple[str, ...]:
    prefix: tuple[str, ...] = ("nice", "-n", str(nice)) if nice else ()
    return prefix + (("taskset", "-c", cpus) if cpus else ())


def start_worker(env: dict[str, str], prefix: tuple[str, ...]) -> subprocess.Popen[bytes]:
    cmd = [*prefix, sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "reports",
           "--concurrency=1", "--loglevel=WARNING", "-n", "reports@%h"]  # fmt: skip
    return subprocess.Popen(
        cmd,
        cwd=loadtest.ROOT,
        env={**env, **REPORT_WORKER_ENV},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class MachineLoad:
    """The machine's load average and busy CPU share, sampled every 2 s in a thread
    (other engineers' processes share the cores: the figures need that context)."""

    def __init__(self) -> None:
        self.loadavg: list[float] = []
        self.busy: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _cpu() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = fields[3] + fields[4]  # idle + iowait
        return sum(fields) - idle, sum(fields)

    def _run(self) -> None:
        last = self._cpu()
        while not self._stop.wait(2.0):
            self.loadavg.append(float(Path("/proc/loadavg").read_text().split()[0]))
            now = self._cpu()
            total = now[1] - last[1]
            self.busy.append((now[0] - last[0]) / total if total else 0.0)
            last = now

    def __enter__(self) -> MachineLoad:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> dict[str, Any]:
        if not self.loadavg:
            return {}
        return {
            "loadavg_1min_mean": round(statistics.fmean(self.loadavg), 2),
            "loadavg_1min_max": round(max(self.loadavg), 2),
            "cpu_busy_mean": round(statistics.fmean(self.busy), 3),
            "cores": os.cpu_count(),
        }


TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a live process has used; 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def _family(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [pid, *(int(x) for x in out.stdout.split())]


def _pg_backends(url: str) -> list[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchall()
    return [int(r[0]) for r in rows]


class CpuByRole:
    """CPU seconds each part of the stack used during a phase: the web pools and the
    reports worker (each with its child processes) and this database's PostgreSQL
    backends (other engineers' processes are in the machine's load, not here)."""

    def __init__(self, url: str, roles: dict[str, int]) -> None:
        self.url, self.roles = url, roles
        self.before: dict[str, dict[int, float]] = {}

    def _sample(self) -> dict[str, dict[int, float]]:
        pids = {role: _family(pid) for role, pid in self.roles.items()}
        pids["postgresql"] = _pg_backends(self.url)
        return {role: {p: _cpu_of(p) for p in ps} for role, ps in pids.items()}

    def start(self) -> None:
        self.before = self._sample()

    def stop(self) -> dict[str, float]:
        after = self._sample()
        return {
            role: round(sum(t - self.before.get(role, {}).get(p, 0.0) for p, t in now.items()), 1)
            for role, now in after.items()
        }


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


def phase(
    label: str,
    cpu: CpuByRole,
    urls: tuple[str, str],
    pk: int,
    n: int,
    researchers: int,
    seconds: float,
) -> tuple[loadtest.Stats, Counter[str], list[float], dict[str, Any]]:
    print(f"{label}: {n} volunteers, {researchers} researchers, {seconds:.0f} s", flush=True)
    cpu.start()
    with MachineLoad() as load:
        stats, statuses, times = asyncio.run(run(*urls, pk, n, researchers, seconds))
    return stats, statuses, times, {**load.summary(), "cpu_seconds": cpu.stop()}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--layout", choices=("split", "shared"), default="split")
    parser.add_argument("--workers", type=int, default=3, help="the volunteers' gunicorn pool")
    parser.add_argument("--researchers", type=int, default=3)
    parser.add_argument(
        "--report-nice", type=int, default=19, help="the reports worker's nice (0: as the web)"
    )
    parser.add_argument(
        "--research-nice", type=int, default=10,
        help="the researchers' gunicorn pool's nice (split layout; 0: as the volunteers')",
    )  # fmt: skip
    parser.add_argument(
        "--pin", action="store_true",
        help="reports worker on the last core (taskset), both web pools on the others",
    )  # fmt: skip
    parser.add_argument("--no-floor", action="store_true", help="skip the run without researchers")
    return parser.parse_args()


def volunteers_result(stats: loadtest.Stats, check: dict[str, int], n: int, load: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    return {**loadtest.summary(stats), "check": check, "n": n, "machine": load}


def main() -> None:
    args = parse_args()
    n, seconds = (200, 60) if args.quick else (200, 90)
    cores = os.cpu_count() or 1
    last = str(cores - 1)
    web_cpus = f"0-{cores - 2}" if cores > 2 else "0"
    web_prefix: tuple[str, ...] = ("taskset", "-c", web_cpus) if args.pin else ()
    report_prefix = worker_prefix(args.report_nice, last if args.pin else "")
    servers: list[loadtest.Server] = []
    worker = None
    floor: dict[str, Any] | None = None
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
        worker = start_worker(env, report_prefix)
        volunteers = loadtest.start_gunicorn(env, workers=args.workers, prefix=web_prefix)
        servers.append(volunteers)
        research = volunteers
        if args.layout == "split":
            research_prefix = worker_prefix(args.research_nice, "") + web_prefix
            research = loadtest.start_gunicorn(env, workers=1, prefix=research_prefix)
            servers.append(research)
        asyncio.run(  # warm-up, not measured (as bench_load.py)
            loadtest.run_volunteers(
                volunteers.base, SLUG, 20, think=(0.05, 0.2), seconds=30, ramp=2, seed=99
            )
        )
        roles = {"volunteers' pool": volunteers.proc.pid, "reports worker": worker.pid}
        if research is not volunteers:
            roles["researchers' pool"] = research.proc.pid
        cpu, urls = CpuByRole(url, roles), (volunteers.base, research.base)
        if not args.no_floor:  # the floor: the same volunteers with no researcher
            f_stats, _, _, f_load = phase("floor", cpu, urls, pk, n, 0, seconds)
            floor = volunteers_result(f_stats, loadtest.verify(url, f_stats), n, f_load)
        stats, statuses, times, load = phase(
            "researchers", cpu, urls, pk, n, args.researchers, seconds
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
        "p50_ms": round(quantile_ms(ordered, 0.5), 1) if ordered else None,
        "max_ms": round(ordered[-1] * 1000, 1) if ordered else None,
    }
    volunteers_now = volunteers_result(stats, check, n, load)
    result: dict[str, Any] = {
        "stack": (
            f"gunicorn {args.workers} sync workers for volunteers"
            + (
                f" + 1 for researchers (nice {args.research_nice})"
                if args.layout == "split"
                else " shared with researchers"
            )
            + " (--preload) + PostgreSQL + 1 Celery worker (-Q reports --concurrency=1, "
            f"filesystem queue, {' '.join(report_prefix) or 'no nice'}, one BLAS thread)"
            + (f"; web pools pinned to CPU {web_cpus}" if args.pin else "")
            + f"; load generator on the same {cores} cores"
        ),
        "layout": args.layout,
        "report_nice": args.report_nice,
        "research_nice": args.research_nice if args.layout == "split" else None,
        "pin": args.pin,
        "volunteers": volunteers_now,
        "floor": floor,
        "p99_ratio_to_floor": p99_ratio(volunteers_now, floor),
        "researchers": {
            "clients": args.researchers,
            "requests_by_status": dict(statuses),
            "latency": research_ms,
            "note": "every request a new seed with n_boot=2000; the dashboard and the API alternate",
        },
        "report_jobs": jobs,
        "quick": args.quick,
        "seconds_per_phase": seconds,
    }
    report_result("researchers", result)


def p99_ratio(now: dict[str, Any], floor: dict[str, Any] | None) -> float | None:
    """The volunteers' answer p99 with researchers ÷ the same without them."""
    if floor is None:
        return None
    a = now["latency"].get("answer", {}).get("p99_ms")
    b = floor["latency"].get("answer", {}).get("p99_ms")
    return round(a / b, 2) if a and b else None


if __name__ == "__main__":
    main()
