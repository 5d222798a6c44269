"""Answer submission throughput and p99 latency, as a ratio to a floor view.

A real server (gunicorn, 2 sync workers) on 127.0.0.1 and a throw-away database: by
default once on SQLite (a temporary file) and once on a fresh local PostgreSQL database,
each in its own process (``--databases sqlite`` or ``--postgres`` for one of them).
50 concurrent clients (asyncio + aiohttp, closed loop) each send their requests one
after the other:

* floor: ``POST /bench/floor/`` - a minimal Django view doing one INSERT of a Response
  through the same middleware and database (bench/urls.py, mounted only by the benchmarks'
  settings, bench/settings.py);
* submit: ``POST /api/v1/volunteer/answers/`` - a participant (token) answering one of
  their claimed items through the real service (idempotency lock, validation, grading,
  time measurement, the Response rows and the assignment update, progress).

The phases alternate (floor, submit, floor, submit …) and each figure is the median
over rounds. Goal: submit throughput ≥ 0.7 × floor throughput on each database. Every acknowledged answer
is checked in the database afterwards (stored once). Results: bench/results/submit.json.

    .venv/bin/python bench/bench_submit.py            # 5 rounds x 50 clients x 40 requests
    .venv/bin/python bench/bench_submit.py --quick    # 1 round  x 50 clients x 10 requests
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402
    free_port,
    fresh_database,
    quantile_ms,
    result_path,
    write_result,
)

PG_NAME = "shiping_bench_submit"


def server_env(data_dir: Path, database_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "TESTING", "DATABASE_URL"}}
    env.update({
        "DEBUG": "0", "SECRET_KEY": "bench-submit-" + "k" * 40, "DATA_DIR": str(data_dir),
        "ALLOWED_HOSTS": "127.0.0.1,localhost", "SECURE_COOKIES": "0", "CONN_MAX_AGE": "60",
        "LOG_LEVEL": "ERROR", "DJANGO_SETTINGS_MODULE": "bench.settings",
        # Synthetic clients answer far faster than people: keep the per-participant limit's
        # check on the path (its cost is measured) but set it where it never trips.
        "RATE_LIMIT_ANSWER": "1000000/min",
    })  # fmt: skip
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def prepare(env: dict[str, str], *, clients: int, per_client: int) -> dict[str, Any]:
    """Migrate, then create a study, one participant per client with ``per_client``
    claimed items each (so the timed phase is submission only) and the floor's rater."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    os.environ.update(env)
    import django

    django.setup()
    from datetime import timedelta

    from django.utils import timezone

    from annotation import selectors, services
    from annotation.models import Assignment, Rater
    from studies.models import Group, Item, Study, Task

    study = Study.objects.create(
        slug="bench", title="Bench", consent="ok", shuffle_options=True, status=Study.Status.OPEN
    )
    group = Group.objects.create(study=study, slug="A", name="A", target_per_item=clients)
    task = Task.objects.create(
        study=study, slug="ck", title="ck", kind="choice", per_participant=per_client
    )
    options = [{"text": f"option {k}"} for k in range(4)]
    Item.objects.bulk_create(
        Item(study=study, task=task, external_id=f"ck-{n:05d}", stem=f"Question {n}",
             options=options, answer={"answer": 1}, position=n)
        for n in range(per_client)
    )  # fmt: skip
    items = list(Item.objects.filter(study=study).order_by("pk"))
    now = timezone.now()
    plans = []
    for _ in range(clients):
        p = services.participant_enrol(study=study, consent=True, invite_token=group.invite_token)
        claims = Assignment.objects.bulk_create(
            Assignment(participant=p, item=item, task=task, group=group, position=n,
                       option_order={"answer": [2, 0, 3, 1]}, expires_at=now + timedelta(days=1),
                       served_at=now)
            for n, item in enumerate(items)
        )  # fmt: skip
        if any(a.pk is None for a in claims):
            claims = list(Assignment.objects.filter(participant=p).order_by("position"))
        plans.append(
            {"token": selectors.participant_token(p), "assignments": [a.pk for a in claims]}
        )
    floor_rater = Rater.objects.create(study=study, kind=Rater.Kind.RULE, name="bench-floor")
    floor = {"study": study.pk, "task": task.pk, "item": items[0].pk, "rater": floor_rater.pk}
    from django.db import connections

    connections.close_all()
    return {"plans": plans, "floor": floor, "study": study.pk}


def start_server(env: dict[str, str], port: int, workers: int, threads: int) -> subprocess.Popen:
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or "gunicorn"
    cmd = [
        gunicorn, "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers), "--threads", str(threads),
        "--worker-class", "sync" if threads == 1 else "gthread",
        "--backlog", "256", "--log-level", "warning", "--keep-alive", "5",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("gunicorn did not start")


def stop_server(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


async def _phase(requests: list[list[tuple[str, dict[str, Any]]]]) -> dict[str, Any]:
    """Each inner list is one client's requests (url, aiohttp kwargs), sent in order."""
    import aiohttp

    latencies: list[float] = []
    errors: dict[str, int] = {}

    async def client(
        session: aiohttp.ClientSession, mine: list[tuple[str, dict[str, Any]]]
    ) -> None:
        for url, kwargs in mine:
            start = time.perf_counter()
            async with session.post(url, **kwargs) as resp:
                await resp.read()
                if resp.status != 201:
                    errors[str(resp.status)] = errors.get(str(resp.status), 0) + 1
            latencies.append(time.perf_counter() - start)

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        start = time.perf_counter()
        await asyncio.gather(*(client(session, mine) for mine in requests))
        wall = time.perf_counter() - start
    latencies.sort()
    n = len(latencies)
    return {
        "requests": n,
        "seconds": round(wall, 3),
        "throughput_rps": round(n / wall, 1),
        "p50_ms": round(quantile_ms(latencies, 0.5), 2),
        "p99_ms": round(quantile_ms(latencies, 0.99), 2),
        "errors": errors,
    }


def floor_requests(base: str, floor: dict[str, int], clients: int, n: int) -> list[list[Any]]:
    return [[(f"{base}/bench/floor/", {"data": floor})] * n for _ in range(clients)]


def submit_requests(base: str, plans: list[dict[str, Any]], lo: int, hi: int) -> list[list[Any]]:
    url = f"{base}/api/v1/volunteer/answers/"
    return [
        [(url, {"json": {"assignment": a, "answer": 1},
                "headers": {"Authorization": f"Participant {plan['token']}"}})
         for a in plan["assignments"][lo:hi]]
        for plan in plans
    ]  # fmt: skip


def median_of(rounds: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(r[key] for r in rounds), 2)


def run_one(args: argparse.Namespace, postgres: bool) -> dict[str, Any]:
    """One database: a fresh server and data, alternating floor and submit rounds."""
    rounds, per_round = (1, 10) if args.quick else (5, 40)
    data_dir = Path(tempfile.mkdtemp(prefix="shiping-bench-submit-"))
    database_url = fresh_database(PG_NAME) if postgres else None
    env = server_env(data_dir, database_url)
    setup = prepare(env, clients=args.clients, per_client=rounds * per_round + 2)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(env, port, args.workers, args.threads)
    results: dict[str, list[dict[str, Any]]] = {"floor": [], "submit": []}
    try:
        # Warm-up: every worker thread opens its connection and loads its code.
        asyncio.run(_phase(floor_requests(base, setup["floor"], args.clients, 2)))
        asyncio.run(_phase(submit_requests(base, setup["plans"], 0, 2)))
        for r in range(rounds):
            lo = 2 + r * per_round
            results["floor"].append(
                asyncio.run(_phase(floor_requests(base, setup["floor"], args.clients, per_round)))
            )
            results["submit"].append(
                asyncio.run(_phase(submit_requests(base, setup["plans"], lo, lo + per_round)))
            )
    finally:
        stop_server(server)
    from annotation.models import Assignment, Response

    answered = Assignment.objects.filter(status="answered").count()
    stored = Response.objects.filter(rater__kind="human").count()
    expected = args.clients * (2 + rounds * per_round)
    from django.db import connections

    connections.close_all()
    shutil.rmtree(data_dir, ignore_errors=True)
    summary: dict[str, dict[str, Any]] = {
        key: {
            "throughput_rps": median_of(rs, "throughput_rps"),
            "p50_ms": median_of(rs, "p50_ms"),
            "p99_ms": median_of(rs, "p99_ms"),
            "rounds": rs,
        }
        for key, rs in results.items()
    }
    ratio = round(summary["submit"]["throughput_rps"] / summary["floor"]["throughput_rps"], 3)
    return {
        "database": "postgresql" if postgres else "sqlite",
        "server": f"gunicorn, {args.workers} workers x {args.threads} thread(s)",
        "clients": args.clients,
        "requests_per_client_per_round": per_round,
        "floor": summary["floor"],
        "submit": summary["submit"],
        "ratio_throughput": ratio,
        "ratio_p99": round(summary["floor"]["p99_ms"] / summary["submit"]["p99_ms"], 3),
        "goal_ratio": 0.7,
        "meets_goal": ratio >= 0.7,
        "integrity": {"answers_sent": expected, "assignments_answered": answered,
                      "responses_stored": stored, "ok": answered == stored == expected},
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 round of 10 requests per client")
    parser.add_argument("--databases", default="sqlite,postgres",
                        help="comma-separated: sqlite (a temporary file), postgres (a fresh "
                             "local database); default both, one after the other")  # fmt: skip
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL only")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per worker (1 = sync workers)"
    )
    args = parser.parse_args()
    databases = ["postgres"] if args.postgres else args.databases.split(",")
    # Each database in a child process: Django is set up once per process.
    if len(databases) > 1:
        runs = {}
        for db in databases:
            cmd = [sys.executable, __file__, "--databases", db, "--clients", str(args.clients),
                   "--workers", str(args.workers), "--threads", str(args.threads),
                   *(["--quick"] if args.quick else [])]  # fmt: skip
            subprocess.run(cmd, check=True)
            runs.update(json.loads(result_path("submit").read_text(encoding="utf-8"))["runs"])
    else:
        run = run_one(args, postgres=databases[0] == "postgres")
        runs = {run["database"]: run}
    result = {"mode": "quick" if args.quick else "full", "runs": runs}
    path = write_result("submit", result)
    for name, run in runs.items():
        print(
            f"{name}: floor {run['floor']['throughput_rps']:8.1f} req/s  p99 {run['floor']['p99_ms']:7.1f} ms | "
            f"submit {run['submit']['throughput_rps']:8.1f} req/s  p99 {run['submit']['p99_ms']:7.1f} ms | "
            f"ratio {run['ratio_throughput']:.3f} (goal >= 0.7)  integrity "
            f"{'ok' if run['integrity']['ok'] else 'FAILED'}"
        )
    print(f"-> {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
