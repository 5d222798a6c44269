"""The volunteer's HTML pages, browser-like, as a ratio to the floor view (issue 16).

A real server (gunicorn; sync workers, then threaded ones) on 127.0.0.1 and a throw-away
database (SQLite in a temporary file, then a fresh local PostgreSQL database). 50
closed-loop clients, each with its own cookie jar, behave as browsers do:

* enrol (untimed): GET the welcome page, POST the consent form with its CSRF token, GET
  the screening page, POST it, GET the task's instructions, GET its first question;
* answer (timed): POST the question form (CSRF token, session and participant cookies,
  the assignment and the option), follow the redirect: GET the next question page. One
  answer = the POST and the GET; answers per second and the latency of the pair.

Against the floor view (``POST /bench/floor/``: one INSERT through the same middleware,
workers and database) in the same run, phases alternating (floor, pages, floor, pages …)
and of about the same length (``FLOOR_PER_ANSWER`` floor requests per answer), each
figure the median over rounds, and each round's own ratio beside it. Goal on PostgreSQL:
pages ≥ 0.3 × floor. Every
acknowledged answer (a 302 back to the question page) is checked in the database
afterwards: stored once, its assignment answered. Beside each phase, the CPU it took per
answer (or floor request), by process: the gunicorn workers, the PostgreSQL backends of
the bench database, and this load generator (/proc). Results: bench/results/pages.json.

PostgreSQL runs with the autovacuum settings docs/deploy.md asks of a deployment
(``bench.common.deployed_autovacuum``: on, a 15 s round; set for the run and put back
after), because a test server may have autovacuum off, and the claims' dead rows then
pile up for the whole run as in no deployment. ``--server-autovacuum`` measures the
server as it is.

    .venv/bin/python bench/bench_pages.py           # 3 rounds x 50 clients x 30 answers
    .venv/bin/python bench/bench_pages.py --quick   # 1 round  x 50 clients x 8 answers
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_submit import server_env, start_server, stop_server  # noqa: E402
from bench.common import (  # noqa: E402
    deployed_autovacuum,
    free_port,
    fresh_database,
    quantile_ms,
    result_path,
    write_result,
)

PG_NAME = "shiping_bench_pages"
N_ITEMS = 480  # the task size
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ASSIGNMENT = re.compile(r'name="assignment" value="(\d+)"')
# Floor requests per client and round for each answer a client gives in a pages round.
FLOOR_PER_ANSWER = 4
BEGIN = re.compile(r'id="begin" href="\?begin=([^"]+)"')


def prepare(env: dict[str, str]) -> dict[str, Any]:
    """Migrate; a study with one choice task of N_ITEMS, one screening question, one group."""
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                   env=env, check=True)  # fmt: skip
    import os

    os.environ.update(env)
    import django

    django.setup()
    from annotation.models import Rater
    from studies.models import Group, Item, ScreeningQuestion, Study, Task

    study = Study.objects.create(slug="pages", title="Pages", consent="ok",
                                 status=Study.Status.OPEN, shuffle_options=True)  # fmt: skip
    Group.objects.create(study=study, slug="A", name="A", target_per_item=3)
    ScreeningQuestion.objects.create(study=study, key="bg", prompt="?", position=0,
                                     options=[{"label": "A", "group": "A"}])  # fmt: skip
    task = Task.objects.create(study=study, slug="t", title="Task", kind="choice",
                               per_participant=N_ITEMS, instructions="Choose.")  # fmt: skip
    options = [{"text": f"option {k}"} for k in range(4)]
    Item.objects.bulk_create(
        Item(study=study, task=task, external_id=f"i{n:05d}", stem=f"Question {n}",
             options=options, answer={"answer": 1}, position=n)
        for n in range(N_ITEMS)
    )  # fmt: skip
    rater = Rater.objects.create(study=study, kind=Rater.Kind.RULE, name="bench-floor")
    first = Item.objects.filter(task=task).order_by("pk").first()
    assert first is not None
    from django.db import connection, connections

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    connections.close_all()
    return {"study": study.pk, "task": task.pk, "item": first.pk, "rater": rater.pk}


TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes have used so far (/proc/<pid>/stat)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


class Meter:
    """Where the CPU goes: the app server's workers, the database's backends (PostgreSQL)
    and this load generator, read before and after each timed phase."""

    def __init__(self, server_pid: int, database: str | None) -> None:
        self.server_pid, self.database = server_pid, database

    def _pids(self, pattern: str) -> list[int]:
        out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
        return [int(pid) for pid in out.split()]

    def snapshot(self) -> dict[str, float]:
        import resource

        own = resource.getrusage(resource.RUSAGE_SELF)
        workers = subprocess.run(["pgrep", "-P", str(self.server_pid)], capture_output=True,
                                 text=True).stdout.split()  # fmt: skip
        backends = self._pids(f"postgres: .* {self.database} ") if self.database else []
        return {
            "app": _cpu([self.server_pid, *map(int, workers)]),
            "database": _cpu(backends),
            "client": own.ru_utime + own.ru_stime,
        }

    @staticmethod
    def per_unit(before: dict[str, float], after: dict[str, float], n: int) -> dict[str, float]:
        """CPU milliseconds per answer (or floor request), by process class."""
        return {key: round(1000 * (after[key] - before[key]) / n, 3) for key in before}


class Browser:
    """One volunteer's browser: its cookies, the question it is on."""

    def __init__(self, session: Any, base: str) -> None:
        self.session, self.base = session, base
        self.url = f"{base}/s/pages/"
        self.page = ""
        self.acknowledged = 0

    async def get(self, url: str, **kw: Any) -> str:
        async with self.session.get(url, allow_redirects=False, **kw) as resp:
            text: str = await resp.text()
            if resp.status != 200:
                raise RuntimeError(f"GET {url}: {resp.status}")
            return text

    async def post(self, url: str, page: str, data: dict[str, str]) -> Any:
        token = CSRF.search(page)
        if token is None:
            raise RuntimeError(f"no CSRF token on the page before {url}")
        headers = {"Referer": url}
        form = {"csrfmiddlewaretoken": token.group(1), **data}
        async with self.session.post(url, data=form, allow_redirects=False,
                                     headers=headers) as resp:  # fmt: skip
            await resp.read()
            return resp

    async def enrol(self) -> None:
        page = await self.get(self.url)
        resp = await self.post(self.url, page, {"consent": "on"})
        assert resp.status == 302, resp.status
        screening = await self.get(self.url + "screening/")
        resp = await self.post(self.url + "screening/", screening, {"q-bg": "0"})
        assert resp.status == 302, resp.status
        page = await self.get(self.url + "q/")
        begin = BEGIN.search(page)
        if begin:
            page = await self.get(self.url + "q/", params={"begin": begin.group(1)})
        self.page = page

    async def answer(self) -> None:
        """POST the form, follow the redirect to the next question."""
        assignment = ASSIGNMENT.search(self.page)
        if assignment is None:
            raise RuntimeError("no question on the page")
        data = {"assignment": assignment.group(1), "f-answer": "1"}
        resp = await self.post(self.url + "q/", self.page, data)
        if resp.status != 302 or not resp.headers.get("Location", "").endswith("/q/"):
            raise RuntimeError(f"answer not acknowledged: {resp.status}")
        self.acknowledged += 1
        self.page = await self.get(self.url + "q/")


async def _timed(jobs: list[Any]) -> dict[str, Any]:
    latencies: list[float] = []

    async def run(calls: list[Any]) -> None:
        for call in calls:
            start = time.perf_counter()
            await call()
            latencies.append(time.perf_counter() - start)

    start = time.perf_counter()
    await asyncio.gather(*(run(calls) for calls in jobs))
    wall = time.perf_counter() - start
    latencies.sort()
    n = len(latencies)
    return {
        "n": n,
        "seconds": round(wall, 3),
        "per_s": round(n / wall, 1),
        "p50_ms": round(quantile_ms(latencies, 0.5), 2),
        "p99_ms": round(quantile_ms(latencies, 0.99), 2),
    }


async def drive(
    base: str,
    floor: dict[str, int],
    clients: int,
    rounds: int,
    per: int,
    meter: Meter,
    vacuum: Any = None,
) -> dict:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as floor_session:
        jars = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                      cookie_jar=aiohttp.CookieJar(unsafe=True))
                for _ in range(clients)]  # fmt: skip
        try:
            browsers = [Browser(jar, base) for jar in jars]
            await asyncio.gather(*(b.enrol() for b in browsers))

            async def one_floor() -> None:
                async with floor_session.post(f"{base}/bench/floor/", data=floor) as resp:
                    await resp.read()
                    if resp.status != 201:
                        raise RuntimeError(f"floor: {resp.status}")

            await _timed([[one_floor] * 2 for _ in range(clients)])  # warm-up
            await _timed([[b.answer] * 2 for b in browsers])
            out: dict[str, list[dict[str, Any]]] = {"floor": [], "pages": []}

            async def measured(key: str, jobs: list[Any]) -> None:
                before = meter.snapshot()
                got = await _timed(jobs)
                got["cpu_ms_per_unit"] = Meter.per_unit(before, meter.snapshot(), got["n"])
                out[key].append(got)

            for _ in range(rounds):
                if vacuum is not None:  # diagnostic: no dead rows carried into the round
                    vacuum()
                # As many seconds of floor as of pages (an answer costs about four floor
                # requests), so both phases of a round meet the machine in the same state.
                await measured("floor", [[one_floor] * (FLOOR_PER_ANSWER * per)
                                         for _ in range(clients)])  # fmt: skip
                await measured("pages", [[b.answer] * per for b in browsers])
            return {"rounds": out, "acknowledged": sum(b.acknowledged for b in browsers)}
        finally:
            for jar in jars:
                await jar.close()


def run_one(args: argparse.Namespace, postgres: bool, threads: int) -> dict[str, Any]:
    rounds, per = (1, 8) if args.quick else (3, 30)
    data_dir = Path(tempfile.mkdtemp(prefix="shiping-bench-pages-"))
    env = server_env(data_dir, fresh_database(PG_NAME) if postgres else None)
    meter_db = PG_NAME if postgres else None
    env["RATE_LIMIT_ENROL"] = env["RATE_LIMIT_ENROL_ADDRESS"] = "1000000/min"
    floor = prepare(env)
    port = free_port()
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=ROOT, env=env, check=True)  # fmt: skip
    with (
        deployed_autovacuum(not args.server_autovacuum) if postgres else nullcontext()
    ) as autovacuum:
        server = start_server(env, port, args.workers, threads)
        try:
            meter = Meter(server.pid, meter_db)
            base = f"http://127.0.0.1:{port}"
            vacuum = None
            if postgres and args.vacuum_between_rounds:

                def vacuum() -> None:
                    import psycopg

                    with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
                        conn.execute(
                            "VACUUM annotation_tally, annotation_assignment, annotation_taskcount"
                        )

            got = asyncio.run(drive(base, floor, args.clients, rounds, per, meter, vacuum))
        finally:
            stop_server(server)
    from django.db import connections
    from django.db.models import Count

    from annotation.models import Assignment, Response

    humans = Response.objects.filter(rater__kind="human")
    doubled = humans.values("rater_id", "item_id").annotate(n=Count("id")).filter(n__gt=1).count()
    stored, answered = humans.count(), Assignment.objects.filter(status="answered").count()
    connections.close_all()
    shutil.rmtree(data_dir, ignore_errors=True)
    med = {
        key: {m: round(statistics.median(r[m] for r in rs), 2) for m in ("per_s", "p50_ms", "p99_ms")}
        for key, rs in got["rounds"].items()
    }  # fmt: skip
    for key, rs in got["rounds"].items():  # CPU per answer / floor request, by process
        med[key]["cpu_ms_per_unit"] = {
            part: round(statistics.median(r["cpu_ms_per_unit"][part] for r in rs), 3)
            for part in ("app", "database", "client")
        }
    ratio = round(med["pages"]["per_s"] / med["floor"]["per_s"], 3)
    # Each round's pages against the floor phase just before it: on a machine whose speed
    # drifts, the pairs show how much of the spread is the machine's.
    paired = [round(p["per_s"] / f["per_s"], 3)
              for f, p in zip(got["rounds"]["floor"], got["rounds"]["pages"], strict=True)]  # fmt: skip
    return {
        "database": "postgresql" if postgres else "sqlite",
        "autovacuum": autovacuum,
        "server": f"gunicorn, {args.workers} workers x {threads} thread(s)",
        "clients": args.clients,
        "answers_per_client_per_round": per,
        "floor_requests_per_client_per_round": FLOOR_PER_ANSWER * per,
        "floor": {**med["floor"], "rounds": got["rounds"]["floor"]},
        "pages": {**med["pages"], "rounds": got["rounds"]["pages"]},
        "ratio": ratio,
        "ratio_by_round": paired,
        "goal_ratio": 0.3,
        "meets_goal": ratio >= 0.3,
        "integrity": {"acknowledged": got["acknowledged"], "responses_stored": stored,
                      "assignments_answered": answered, "doubled": doubled,
                      "ok": got["acknowledged"] == stored == answered and doubled == 0},
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--databases", default="sqlite,postgres")
    parser.add_argument("--threads", default="1,4", help="threads per worker: 1 = sync")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--vacuum-between-rounds", action="store_true",
                        help="diagnostic (PostgreSQL): VACUUM the claim tables before each round")  # fmt: skip
    parser.add_argument("--server-autovacuum", action="store_true",
                        help="PostgreSQL: keep the server's autovacuum settings, instead of "
                             "docs/deploy.md's for the run (bench.common.deployed_autovacuum)")  # fmt: skip
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # a child process: one database, one server configuration
        run = run_one(args, args.databases == "postgres", int(args.threads))
        print("RESULT " + json.dumps(run))
        return
    runs = {}
    for db in args.databases.split(","):
        for threads in args.threads.split(","):
            cmd = [sys.executable, __file__, "--one", "--databases", db, "--threads", threads,
                   "--clients", str(args.clients), "--workers", str(args.workers),
                   *(["--quick"] if args.quick else []),
                   *(["--vacuum-between-rounds"] if args.vacuum_between_rounds else []),
                   *(["--server-autovacuum"] if args.server_autovacuum else [])]  # fmt: skip
            child = subprocess.run(cmd, capture_output=True, text=True)
            if child.returncode != 0 or "RESULT " not in child.stdout:
                tail = "\n".join(child.stderr.strip().splitlines()[-15:])
                raise SystemExit(f"bench_pages: the {db} x{threads} run failed "
                                 f"(exit {child.returncode}):\n{tail}")  # fmt: skip
            run = json.loads(child.stdout.split("RESULT ", 1)[1])
            runs[f"{run['database']}, {threads} thread(s)"] = run
            print(f"{db} x{threads}: floor {run['floor']['per_s']}/s, pages "
                  f"{run['pages']['per_s']} answers/s (p99 {run['pages']['p99_ms']} ms), "
                  f"ratio {run['ratio']}, integrity {run['integrity']}; CPU ms per floor "
                  f"request {run['floor']['cpu_ms_per_unit']}, per answer "
                  f"{run['pages']['cpu_ms_per_unit']}", flush=True)  # fmt: skip
    if (
        args.databases != "sqlite,postgres" and result_path("pages").is_file()
    ):  # a part: keep the rest
        earlier = json.loads(result_path("pages").read_text(encoding="utf-8"))
        if earlier.get("mode") == ("quick" if args.quick else "full"):
            runs = {**earlier.get("runs", {}), **runs}
    path = write_result("pages", {"mode": "quick" if args.quick else "full", "runs": runs})
    print(f"-> {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
