"""Shared helpers for benchmarks: a throw-away database, timing, peak memory, results."""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"


def fresh_database(name: str, admin: str = PG_ADMIN) -> str:
    """A new, empty PostgreSQL database ``name`` on the server of ``admin`` (this machine's
    by default; dropped first if it exists); its URL."""
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin.rsplit("/", 1)[0] + f"/{name}"


def drop_database(name: str, admin: str = PG_ADMIN) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# What docs/deploy.md asks of a deployment's PostgreSQL for the hot tables' dead rows.
DEPLOYED_AUTOVACUUM = {"autovacuum": "on", "autovacuum_naptime": "15s"}


@contextmanager
def deployed_autovacuum(enabled: bool = True, admin: str = PG_ADMIN) -> Iterator[dict[str, Any]]:
    """Run a PostgreSQL benchmark under the autovacuum settings of docs/deploy.md. A test
    machine's server may differ (these machines' CI configuration turns autovacuum off);
    then the claims' dead rows pile up for the whole run, which no deployment sees. The
    settings are changed with ALTER SYSTEM and a reload for the benchmark only, and put
    back afterwards (a value ALTER SYSTEM had set before is set again). Yields what was
    found and what was run with, for the result file; ``enabled=False`` changes nothing."""
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        found = {
            name: str(row[0])
            for name in DEPLOYED_AUTOVACUUM
            if (row := conn.execute(f"SHOW {name}").fetchone()) is not None
        }
        earlier: dict[str, str] = dict(conn.execute(
            "SELECT name, setting FROM pg_file_settings WHERE name = ANY(%s)"
            " AND sourcefile LIKE %s AND error IS NULL",
            [list(DEPLOYED_AUTOVACUUM), "%postgresql.auto.conf"],
        ).fetchall())  # fmt: skip
        wanted = dict(DEPLOYED_AUTOVACUUM) if enabled else {}
        for name, value in wanted.items():
            conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        if wanted:
            conn.execute("SELECT pg_reload_conf()")
    used = {name: str(wanted.get(name, found[name])) for name in DEPLOYED_AUTOVACUUM}
    try:
        yield {"server": found, "run with": used}
    finally:
        if wanted:
            with psycopg.connect(admin, autocommit=True) as conn:
                for name in wanted:
                    if name in earlier:
                        conn.execute(f"ALTER SYSTEM SET {name} = '{earlier[name]}'")
                    else:
                        conn.execute(f"ALTER SYSTEM RESET {name}")
                conn.execute("SELECT pg_reload_conf()")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bench_env(data_dir: Path, database_url: str | None = None) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        {
            "DEBUG": "0",
            "TESTING": "1",
            "DATA_DIR": str(data_dir),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def manage(env: dict[str, str], *args: str, stdout: Any = subprocess.DEVNULL) -> dict[str, float]:
    """Run ``manage.py args`` in a child process; return wall seconds and peak RSS (MB)."""
    code = (
        "import sys, time;"
        "t = time.perf_counter();"
        f"sys.argv = ['manage.py', *{list(args)!r}];"
        "exec(open('manage.py').read());"
        # VmHWM is this program's own peak; ru_maxrss would carry over the parent's from fork.
        "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0];"
        "print('BENCH', time.perf_counter() - t, hwm, file=sys.stderr)"
    )
    return measured_child([sys.executable, "-c", code], env, f"manage.py {' '.join(args)}", stdout)


def measured_child(
    command: list[str], env: dict[str, str], what: str, stdout: Any = subprocess.DEVNULL
) -> dict[str, float]:
    """Run ``command`` in a child process that ends its standard error with a line
    ``BENCH <seconds> <peak RSS kB> [<CPU seconds>]``; return those as seconds, MB (and
    CPU seconds: the child's own, unlike wall time hardly moved by other processes)."""
    proc = subprocess.run(
        command, cwd=ROOT, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{proc.stderr[-3000:]}")
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")][-1]
    _, seconds, rss_kb, *cpu = line.split()
    out = {"seconds": float(seconds), "peak_rss_mb": float(rss_kb) / 1024}
    if cpu:
        out["cpu_seconds"] = float(cpu[0])
    return out


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def quantile_ms(ordered: Sequence[float], q: float) -> float:
    """The ``q``-quantile of sorted latencies in seconds, in milliseconds: the value at
    rank ⌊q·n⌋ from 0 (the last for q near 1), as the load benches report p50 and p99."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def result_path(name: str) -> Path:
    """Where a benchmark's latest result lies (``run_all`` reads it there)."""
    return RESULTS / f"{name}.json"


def write_result(name: str, data: dict[str, Any], path: Path | None = None) -> Path:
    """``data`` as JSON with its benchmark's name (unless ``data`` names it) and the time,
    at ``result_path(name)`` or ``path``; returns where it went."""
    path = path or result_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"benchmark": name, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **data}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def report_result(name: str, data: dict[str, Any]) -> Path:
    """``write_result``, then the result printed and where it went."""
    path = write_result(name, data)
    print(json.dumps(data, indent=2, ensure_ascii=False))
    print(f"written to {path}")
    return path
