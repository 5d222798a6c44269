"""The dashboard during collection on a study of 1,000,000 responses (issue #24 item 5).

Goal: the dashboard's first view under 1 s at the 95th percentile while answers keep
arriving, and the full report under 30 s and 1 GB.

The study of ``bench_report.py`` (its generator, written straight into a throw-away
SQLite database under a temporary DATA_DIR, or ``--database-url``) with 1,000,000
responses (``--quick``: 100,000). Then:

- **the report**, each in a child process whose wall time and peak RSS (VmHWM from
  /proc/self/status: the process's own high-water mark, not tracemalloc's Python
  objects) are measured: the background report job the dashboard shows (the report,
  the per-form rule rates and the planning rows, ``jobs.reports``; the dashboard's
  default settings; since 2026-11-28 without the heavy tables, ``TableSpec.heavy``),
  then the heavy-table job it queued (the IRT ``abilities``, which the dashboard shows
  in its section when done), and ``manage.py report`` (the CLI's report, every table,
  as bench_report.py);
- **the dashboard while collection continues**: the job's stored report is left as the
  last complete one; before every request a new volunteer's answers arrive (a new
  participant, 14 responses), so the study's fingerprint moves, the stored report is
  stale and the page must show it with its age (checked on the page) while it queues
  one job for a newer report (a filesystem queue with no worker: the job stays queued,
  later views join it, as they would while a worker computes it). Each round measures
  the floor page (bench/urls.py: a logged-in GET through the same middleware, session
  and study access check, nothing more) and the dashboard, in the same process (Django's
  test client, as bench_report.py). Reported: p50/p95/max of both over ``--requests``
  rounds (the first, which reads the stored report's file into the cache, apart), the
  ratio dashboard ÷ floor, and the time of each part of the page (profile).

Run: ``python bench/bench_dashboard_1m.py [--quick] [--requests N] [--database-url URL |
--postgres] [--skip-cli]`` (``--postgres``: a uniquely named throw-away database on this
machine's server, dropped at the end; the server's settings are not touched).
Writes bench/results/dashboard_1m.json (not committed).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    bench_env,
    drop_database,
    fresh_database,
    manage,
    measured_child,
    report_result,
    setup_django,
)

SLUG = "bench"
ANSWERS_PER_ARRIVAL = 14  # one volunteer's answers between two views
GOAL_P95_SECONDS = 1.0
GOAL_REPORT_SECONDS = 30.0
GOAL_REPORT_MB = 1024.0


def vm_hwm_mb() -> float:
    """This process's peak resident memory (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child_job() -> None:
    """In a child process: compute the dashboard's report as a worker does (a report
    job for the dashboard's default settings, run here); print its time and peak RSS."""
    setup_django(dict(os.environ))
    from django.http import QueryDict

    from jobs.models import Job
    from jobs.reports import report_submit
    from jobs.services import job_run
    from research.dashboard.context import read_settings
    from scoring.report.service import fingerprint
    from studies.models import Study

    study = Study.objects.get(slug=SLUG)
    settings = read_settings(study, QueryDict()).settings
    job, _ = report_submit(study, settings, fingerprint(study))
    start, cpu = time.perf_counter(), time.process_time()
    job_run(job.pk)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    job.refresh_from_db()
    if job.status != Job.Status.DONE:
        raise SystemExit(f"report job {job.pk}: {job.status}: {job.message}")
    print("BENCH", seconds, vm_hwm_mb() * 1024, cpu, file=sys.stderr)


def child_heavy() -> None:
    """In a child process: run the heavy-table job the report job queued (as a worker
    of the ``reports`` queue would next); print its time and peak RSS."""
    setup_django(dict(os.environ))
    from jobs.models import Job
    from jobs.services import job_run

    job = Job.objects.get(kind=Job.Kind.REPORT, key__startswith="heavy:", status="queued")
    start, cpu = time.perf_counter(), time.process_time()
    job_run(job.pk)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    job.refresh_from_db()
    if job.status != Job.Status.DONE:
        raise SystemExit(f"heavy-table job {job.pk}: {job.status}: {job.message}")
    print("BENCH", seconds, vm_hwm_mb() * 1024, cpu, file=sys.stderr)


def run_child_job(env: dict[str, str], flag: str = "--child-job") -> dict[str, float]:
    command = [sys.executable, str(Path(__file__).resolve()), flag]
    return measured_child(command, env, flag.removeprefix("--child-"))


class Arrivals:
    """New volunteers answering between the researcher's views: each arrival is a new
    finished participant with ``ANSWERS_PER_ARRIVAL`` answers to the rating task."""

    def __init__(self, study: Any, prefix: str = "live") -> None:
        from studies.models import Item

        self.study, self.prefix = study, prefix
        self.group = study.groups.order_by("position").first()
        self.items = list(
            Item.objects.filter(study=study, task__slug="quality")
            .order_by("position")
            .values_list("pk", "task_id")[:ANSWERS_PER_ARRIVAL]
        )
        self.n = 0

    def arrive(self) -> None:
        from annotation.models import Participant, Rater, Response

        self.n += 1
        rater = Rater.objects.create(study=self.study, kind="human", name=f"{self.prefix}-{self.n}")
        Participant.objects.create(
            study=self.study,
            rater=rater,
            group=self.group,
            public_id=f"{self.prefix}-{self.n}",
            resume_code=f"{self.prefix}{self.n:09d}",
            status="finished",
        )
        Response.objects.bulk_create(
            Response(
                study=self.study,
                task_id=task,
                item_id=item,
                rater=rater,
                field="prosody",
                value=float(1 + (self.n + k) % 5),
                time_ms=30000,
                sample=0,
            )
            for k, (item, task) in enumerate(self.items)
        )


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile of ``values`` (nearest rank: a value that was observed)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 1))
    return ordered[int(rank) - 1]


def summary(seconds: list[float]) -> dict[str, float]:
    return {
        "n": len(seconds),
        "p50_ms": round(percentile(seconds, 0.5) * 1000, 1),
        "p95_ms": round(percentile(seconds, 0.95) * 1000, 1),
        "max_ms": round(max(seconds) * 1000, 1),
    }


def timed_get(client: Any, url: str) -> tuple[float, Any]:
    start = time.perf_counter()
    reply = client.get(url)
    seconds = time.perf_counter() - start
    if reply.status_code != 200:
        raise SystemExit(f"{url}: HTTP {reply.status_code}")
    return seconds, reply


def dashboard_rounds(study: Any, n: int) -> dict[str, Any]:
    """``n`` + 1 rounds of (answers arrive, floor page, dashboard page)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from jobs.models import Job

    user = get_user_model().objects.create_superuser("bench-researcher", password="x")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    dash, floor = f"/research/studies/{study.pk}/", f"/bench/floor-page/{study.pk}/"
    done = Job.objects.get(kind="report", key__startswith="report:", status="done")
    stored_fp = str(done.summary["fingerprint"])
    arrivals = Arrivals(study)
    times: dict[str, list[float]] = {"floor": [], "dashboard": []}
    first: dict[str, float] = {}
    kb = 0.0
    for i in range(n + 1):
        arrivals.arrive()
        t_floor, _ = timed_get(client, floor)
        t_dash, reply = timed_get(client, dash)
        page = reply.content.decode()
        if stored_fp not in page or "have come in since" not in page:
            raise SystemExit("the dashboard did not show the stored report as stale")
        kb = len(reply.content) / 1024
        if i == 0:
            first = {"floor_ms": round(t_floor * 1000, 1), "dashboard_ms": round(t_dash * 1000, 1)}
        else:
            times["floor"].append(t_floor)
            times["dashboard"].append(t_dash)
    active = Job.objects.filter(kind="report", status__in=("queued", "running"))
    queued = active.filter(key__startswith="report:").count()
    return {
        "first_round": first,
        "floor": summary(times["floor"]),
        "dashboard": summary(times["dashboard"]),
        "page_kb": round(kb, 1),
        "answers_per_arrival": ANSWERS_PER_ARRIVAL,
        "report_jobs_queued": queued,
        "shown_stale_with_age": True,
    }


def parts_seconds(study: Any) -> dict[str, float]:
    """After one more arrival, each part of the dashboard's first view on its own."""
    from django.core.cache import cache
    from django.http import QueryDict

    from annotation.selectors import response_totals
    from jobs.reports import report_key, stored_report
    from research.dashboard import charts, progress, running
    from research.dashboard.context import read_settings
    from research.dashboard.views import published_results
    from scoring.report.service import fingerprint
    from scoring.rules import unscored_poem_count

    Arrivals(study, "parts").arrive()
    settings = read_settings(study, QueryDict()).settings
    key = report_key(study, settings)
    cache.clear()
    totals: list[Any] = []
    parts: dict[str, Callable[[], Any]] = {
        # the one scan of the responses a view makes (running.read; the answer count
        # and the fingerprint's share), then the fingerprint's other reads
        "response_totals": lambda: totals.append(response_totals(study, running.EVERY)),
        "fingerprint (given the totals)": lambda: fingerprint(study, totals[-1]),
        "stored_report (file)": lambda: stored_report(key),
        "stored_report (cached)": lambda: stored_report(key),
        # the counts kept up to date (research.dashboard.running): counted from scratch
        # into an empty cache, unchanged, then one more arrival (untimed) folded in
        "running.task_progress (counted)": lambda: running.task_progress(study),
        "running.task_progress (unchanged)": lambda: running.task_progress(study),
        "running.task_progress (one arrival)": lambda: running.task_progress(study),
        "funnel": lambda: progress.funnel(study),
        "unscored_poem_count": lambda: unscored_poem_count(study),
        "published_chart": lambda: charts.published_chart(study),
        "published_results": lambda: published_results(study),
    }
    before = {"running.task_progress (one arrival)": Arrivals(study, "parts-2").arrive}
    out = {}
    for name, fn in parts.items():
        if name in before:
            before[name]()
        start = time.perf_counter()
        fn()
        out[name] = round(time.perf_counter() - start, 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="100,000 responses")
    parser.add_argument("--requests", type=int, default=30, help="measured rounds (≥ 20)")
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="a throw-away PostgreSQL database of this machine's server, dropped at the end",
    )
    parser.add_argument("--skip-cli", action="store_true", help="no manage.py report")
    parser.add_argument("--child-job", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-heavy", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_job:
        child_job()
        return
    if args.child_heavy:
        child_heavy()
        return
    if not args.postgres:
        run(args, args.database_url)
        return
    name = f"shiping_bench_dashboard_1m_{os.getpid()}"
    try:
        run(args, fresh_database(name))
    finally:
        drop_database(name)


def run(args: argparse.Namespace, database_url: str | None) -> None:
    from bench.bench_report import make_responses, make_study

    n_target, n_items = (100_000, 100) if args.quick else (1_000_000, 500)
    with tempfile.TemporaryDirectory() as tmp:
        env = bench_env(Path(tmp), database_url)
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "bench.settings",  # the floor page
                "SCORE_ON_LOAD": "0",
                "CELERY_BROKER_URL": "filesystem://",  # jobs queue; no worker here
                "REPORT_STARTS_PER_HOUR": "0",
            }
        )
        manage(env, "migrate", "--noinput")
        setup_django(env)
        from django.db import connection

        start = time.perf_counter()
        world = make_study(n_items)
        n = make_responses(world, n_items, n_target)
        generate = time.perf_counter() - start
        with connection.cursor() as cur:  # fresh statistics, as after a day of collection
            cur.execute("ANALYZE")
        job = run_child_job(env)
        heavy = run_child_job(env, "--child-heavy")
        out = str(Path(tmp) / "r.json")
        cli = (
            {"seconds": float("nan"), "peak_rss_mb": float("nan"), "skipped": True}
            if args.skip_cli
            else manage(env, "report", SLUG, "--format", "json", "--out", out)
        )
        rounds = dashboard_rounds(world["study"], args.requests)
        parts = parts_seconds(world["study"])
        vendor = connection.vendor
        if database_url:
            manage(env, "flush", "--noinput")
    load = os.getloadavg()
    p95 = rounds["dashboard"]["p95_ms"] / 1000
    result = {
        "database": vendor,
        "responses": n,
        "items_per_task": n_items,
        "generate_seconds": round(generate, 1),
        "load_average_after": [round(x, 2) for x in load],
        "report_job": {
            **job,
            "what": "background report job: report (heavy tables pending) + per-form rule "
            "rates + planning rows",
            "meets_target": job["seconds"] < GOAL_REPORT_SECONDS
            and job["peak_rss_mb"] < GOAL_REPORT_MB,
        },
        "heavy_job": {
            **heavy,
            "what": "the heavy-table job the report job queued (IRT abilities), run after it",
        },
        "report_cli": {
            **cli,
            "meets_target": cli["seconds"] < GOAL_REPORT_SECONDS
            and cli["peak_rss_mb"] < GOAL_REPORT_MB,
        },
        "during_collection": {
            **rounds,
            "ratio_p95": round(rounds["dashboard"]["p95_ms"] / rounds["floor"]["p95_ms"], 1),
            "goal_p95_ms": GOAL_P95_SECONDS * 1000,
            "meets_target": p95 < GOAL_P95_SECONDS,
        },
        "parts_seconds": parts,
        "quick": args.quick,
    }
    report_result("dashboard_1m", result)


if __name__ == "__main__":
    main()
