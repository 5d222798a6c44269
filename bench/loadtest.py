"""Load and fault testing of the volunteer API against a real stack on 127.0.0.1.

A throw-away PostgreSQL database, gunicorn with several workers, and simulated volunteers
(asyncio + aiohttp) who enrol, fetch their next item, think, and answer until finished,
retrying a request that failed in transit with the same payload (submission is
idempotent). Afterwards every acknowledged answer is checked against the database.
Only 127.0.0.1 is ever contacted; every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import psycopg

from bench.common import drop_database, free_port, fresh_database, quantile_ms  # noqa: F401 (the load tests' API)

ROOT = Path(__file__).resolve().parent.parent
API = "/api/v1/volunteer"


def stack_env(database_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "TESTING", "DJANGO_SETTINGS_MODULE"}
    }
    env.update({
        "DATABASE_URL": database_url, "DATA_DIR": str(data_dir), "SECRET_KEY": "load-test-" + "x" * 40,
        "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1,localhost", "SECURE_COOKIES": "0",
        "CONN_MAX_AGE": "60", "DJANGO_SETTINGS_MODULE": "bench.settings",
        "ASSIGNMENT_CLAIM_SECONDS": "600", "NUM_PROXIES": "1", "STATIC_ROOT": str(data_dir / "static"),
    })  # fmt: skip
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def worker_pids(self) -> list[int]:
        out = subprocess.run(
            ["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True, check=False
        ).stdout
        return [int(x) for x in out.split()]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def start_gunicorn(
    env: dict[str, str], workers: int = 3, threads: int = 1, prefix: tuple[str, ...] = ()
) -> Server:
    """A gunicorn pool on a free port; ``prefix`` runs it under e.g. ``nice``/``taskset``
    (inherited by the workers it forks)."""
    port = free_port()
    cmd = [
        *prefix, sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers), "--threads", str(threads), "--timeout", "30",
        "--graceful-timeout", "5", "--log-level", "warning", "--preload",
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    server = Server(proc, port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:  # ready when a worker answers a real request, not when the port opens
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                if sock.recv(12).startswith(b"HTTP/1."):
                    return server
        except OSError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError("gunicorn did not start")


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    retries: int = 0
    server_errors: int = 0  # responses with a 5xx status (each also counted in retries)
    acks: dict[tuple[str, int], int] = field(
        default_factory=dict
    )  # (participant, assignment) -> n fields
    participants: set[str] = field(default_factory=set)  # enrolled in this run
    finished: int = 0
    last_failure: str = ""
    started: float = 0.0
    ended: float = 0.0

    def percentiles(self, kind: str) -> dict[str, float]:
        data = sorted(self.latencies.get(kind, []))
        if not data:
            return {}
        return {
            "n": len(data),
            "p50_ms": quantile_ms(data, 0.50),
            "p95_ms": quantile_ms(data, 0.95),
            "p99_ms": quantile_ms(data, 0.99),
            "max_ms": data[-1] * 1000,
        }


def answer_for(item: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    kind = item["task"]["kind"]
    fields = item["fields"]
    if kind == "rating":
        return {"ratings": {f["key"]: rng.choice(f["scale"]) for f in fields}}
    if kind == "choice":
        return {"answer": rng.randrange(len(fields[0]["options"]))}
    if kind == "best_worst":
        best, worst = rng.sample(range(len(fields[0]["options"])), 2)
        return {"answer": {"best": best, "worst": worst}}
    return {"answer": {f["key"]: rng.randrange(len(f["options"])) for f in fields}}


async def call(session: aiohttp.ClientSession, stats: Stats, kind: str, method: str, url: str,
               *, json: Any = None, headers: dict[str, str] | None = None, attempts: int = 8) -> tuple[int, Any]:  # fmt: skip
    """One request, retried with the same payload on a transport error or a 5xx."""
    for attempt in range(attempts):
        start = time.perf_counter()
        try:
            async with session.request(method, url, json=json, headers=headers) as resp:
                if resp.status >= 500:  # counted before its body, which may not be JSON
                    stats.server_errors += 1
                body = await resp.json(content_type=None)
                stats.latencies[kind].append(time.perf_counter() - start)
                if resp.status < 500:
                    return resp.status, body
        except (TimeoutError, aiohttp.ClientError, ValueError):
            pass
        stats.retries += 1
        await asyncio.sleep(min(2.0, 0.1 * 2**attempt))
    stats.errors[kind] += 1
    return 0, None


async def volunteer(session: aiohttp.ClientSession, base: str, slug: str, stats: Stats, rng: random.Random,
                    think: tuple[float, float], deadline: float) -> None:  # fmt: skip
    # Each volunteer comes from its own address, as seen through one trusted proxy
    # (NUM_PROXIES=1), so the per-address enrolment limit applies as in production.
    # The addresses are loopback ones, written in a header: no traffic goes to them.
    client = f"127.{rng.randrange(1, 250)}.{rng.randrange(1, 250)}.{rng.randrange(1, 250)}"
    status, body = await call(session, stats, "enrol", "POST", f"{base}{API}/studies/{slug}/enrol/",
                              json={"consent": True, "screening": {"education": rng.randrange(3)}},
                              headers={"X-Forwarded-For": client})  # fmt: skip
    if status != 201:
        stats.errors["enrol_status"] += 1
        stats.last_failure = f"enrol: {status} {str(body)[:300]}"
        return
    headers = {"Authorization": f"Participant {body['token']}"}
    who = body["participant"]
    stats.participants.add(who)
    nxt: Any = None  # the next item, as the last answer's reply (?next=1) carried it
    while time.monotonic() < deadline:
        if nxt is None:  # the first item (or the reply carried none): ask for it
            status, nxt = await call(
                session, stats, "next", "GET", f"{base}{API}/next/", headers=headers
            )
            if status != 200:
                stats.errors["next_status"] += 1
                return
        if nxt["done"]:
            stats.finished += 1
            return
        if think[1] > 0:
            await asyncio.sleep(rng.uniform(*think))
        item = nxt["item"]
        payload = {"assignment": item["assignment"], **answer_for(item, rng)}
        status, ack = await call(session, stats, "answer", "POST", f"{base}{API}/answers/?next=1",
                                 json=payload, headers=headers)  # fmt: skip
        if status in (200, 201):
            stats.acks[(who, item["assignment"])] = len(item["fields"])
            nxt = ack.get("next")
        else:
            stats.errors["answer_status"] += 1
            return


async def run_volunteers(base: str, slug: str, n: int, *, think: tuple[float, float], seconds: float,
                         ramp: float = 2.0, seed: int = 1, repeat: bool = False) -> Stats:  # fmt: skip
    """``n`` volunteers at once until ``seconds`` have passed. With ``repeat`` each client
    that finishes the study enrols again as a new volunteer, so that a closed loop stays
    ``n`` clients busy for the whole time (the saturation regime)."""
    stats = Stats()
    deadline = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=n + 10)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        stats.started = time.monotonic()

        async def one(i: int) -> None:
            await asyncio.sleep(ramp * i / max(1, n))
            rng = random.Random(seed * 100_000 + i)
            while True:
                await volunteer(session, base, slug, stats, rng, think, deadline)
                if not repeat or time.monotonic() >= deadline:
                    break

        await asyncio.gather(*(one(i) for i in range(n)))
        stats.ended = time.monotonic()
    return stats


def _one(cursor: Any) -> tuple[Any, ...]:
    """The one row a query returns (psycopg's fetchone, which is None when there is none)."""
    row = cursor.fetchone()
    assert row is not None, "the query returned no row"
    return tuple(row)


def floor_ids(database_url: str, slug: str) -> dict[str, int]:
    """Ids the floor view inserts against: the study, its first item, and a floor rater."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        study = _one(conn.execute("SELECT id FROM studies_study WHERE slug = %s", (slug,)))[0]
        item, task = _one(
            conn.execute(
                "SELECT id, task_id FROM studies_item WHERE study_id = %s ORDER BY id LIMIT 1",
                (study,),
            )
        )
        conn.execute(
            "INSERT INTO annotation_rater (study_id, kind, name, run, meta) VALUES (%s, 'rule', 'bench-floor', '', '{}') "
            "ON CONFLICT DO NOTHING", (study,),
        )  # fmt: skip
        rater = _one(
            conn.execute(
                "SELECT id FROM annotation_rater WHERE study_id = %s AND name = 'bench-floor'",
                (study,),
            )
        )[0]
    return {"study": study, "task": task, "item": item, "rater": rater}


async def call_form(
    session: aiohttp.ClientSession, stats: Stats, url: str, data: dict[str, int]
) -> int:
    start = time.perf_counter()
    try:
        async with session.post(url, data=data) as resp:
            await resp.read()
            stats.latencies["floor"].append(time.perf_counter() - start)
            return resp.status
    except (TimeoutError, aiohttp.ClientError):
        stats.errors["floor"] += 1
        return 0


async def run_floor(base: str, clients: int, seconds: float, ids: dict[str, int]) -> Stats:
    """Closed-loop POSTs to the floor view (one INSERT through the same middleware)."""
    stats = Stats()
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients + 5)) as session:
        stats.started = time.monotonic()

        async def loop() -> None:
            while time.monotonic() < deadline:
                if await call_form(session, stats, f"{base}/bench/floor/", ids) != 201:
                    return
                stats.acks[("floor", len(stats.acks))] = 1

        await asyncio.gather(*(loop() for _ in range(clients)))
        stats.ended = time.monotonic()
    return stats


def verify(database_url: str, stats: Stats) -> dict[str, int]:
    """Every acknowledged answer stored exactly once; counts of anything else."""
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT p.public_id, a.id, a.status, "
            " (SELECT count(*) FROM annotation_response r WHERE r.rater_id = p.rater_id AND r.item_id = a.item_id) "
            "FROM annotation_assignment a JOIN annotation_participant p ON p.id = a.participant_id"
        ).fetchall()
        doubled = _one(
            conn.execute(
                "SELECT count(*) FROM (SELECT rater_id, item_id, field, sample "
                "FROM annotation_response "
                "GROUP BY rater_id, item_id, field, sample HAVING count(*) > 1) d"
            )
        )[0]
    stored = {(pid, aid): (status, n) for pid, aid, status, n in rows}
    lost = sum(
        1
        for key, n in stats.acks.items()
        if key not in stored or stored[key][1] != n or stored[key][0] != "answered"
    )
    unacked = sum(
        1
        for key, (status, _) in stored.items()
        if status == "answered" and key[0] in stats.participants and key not in stats.acks
    )
    return {
        "acknowledged": len(stats.acks),
        "lost": lost,
        "doubled": int(doubled),
        "stored_not_acknowledged": unacked,
    }


def summary(stats: Stats) -> dict[str, Any]:
    seconds = max(1e-9, stats.ended - stats.started)
    return {
        "seconds": round(seconds, 2),
        "answers": len(stats.acks),
        "answers_per_second": round(len(stats.acks) / seconds, 1),
        "finished_volunteers": stats.finished,
        "retries": stats.retries,
        "5xx": stats.server_errors,
        "errors": dict(stats.errors),
        "last_failure": stats.last_failure,
        "latency": {
            k: {m: round(v, 1) for m, v in stats.percentiles(k).items()}
            for k in sorted(stats.latencies)
        },
    }
