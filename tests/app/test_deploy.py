"""Production settings: ``check --deploy`` is clean with the documented environment, and
warns when workers would keep state of their own; the gunicorn config reads the env."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "k3y-" + "x7Qp9" * 12,
    "ALLOWED_HOSTS": "survey.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://survey.example.org",
    "DATABASE_URL": "postgres://shiping@db.internal:5432/shiping",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/1",
    "BEHIND_PROXY": "1",
    "NUM_PROXIES": "1",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
    "CONN_MAX_AGE": "60",
    "WEB_CONCURRENCY": "4",
}


def check_deploy(*envs: dict[str, str], tmp_path: Path) -> list[tuple[int, str]]:
    """Run ``check --deploy --fail-level WARNING`` once per environment, in parallel
    (each start-up takes seconds); return each run's exit status and output."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV")  # nothing else leaks in
    base = {k: os.environ[k] for k in keep if k in os.environ}
    runs = [
        subprocess.Popen(
            [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
            cwd=ROOT,
            env={**base, "DATA_DIR": str(tmp_path), **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for env in envs
    ]
    return [(run.wait(timeout=120), run.communicate()[0]) for run in runs]


@pytest.mark.slow
def test_check_deploy_is_clean_in_production_and_warns_of_state_kept_in_a_worker(
    tmp_path,
) -> None:
    one_worker = {k: v for k, v in PRODUCTION.items() if k != "REDIS_URL"}
    one_worker["WEB_CONCURRENCY"] = "1"
    bare = {
        k: v
        for k, v in PRODUCTION.items()
        if k not in {"REDIS_URL", "DATABASE_URL", "CELERY_BROKER_URL", "NUM_PROXIES"}
    }
    bare["SECURE_HSTS_SECONDS"] = "0"
    production, single, careless = check_deploy(PRODUCTION, one_worker, bare, tmp_path=tmp_path)
    assert production[0] == 0, production[1]
    assert production[1] == "System check identified no issues (0 silenced).\n"
    assert single[0] == 0, single[1]  # one process may keep its cache in memory
    assert careless[0] != 0
    for warning in (
        "shiping.W001",  # a per-process cache with 4 workers
        "shiping.W002",  # SQLite with 4 workers
        "shiping.W003",  # background jobs inside web requests
        "shiping.W004",  # behind a proxy without NUM_PROXIES: one rate-limit bucket
        "security.W004",  # no HSTS
    ):
        assert warning in careless[1]


def test_gunicorn_config_takes_workers_threads_and_timeout_from_the_environment(
    monkeypatch,
) -> None:
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_THREADS", "4")
    monkeypatch.setenv("GUNICORN_TIMEOUT", "45")
    conf = runpy.run_path(str(ROOT / "config" / "gunicorn.py"))
    assert (conf["workers"], conf["threads"], conf["worker_class"]) == (3, 4, "gthread")
    assert conf["timeout"] == 45 and conf["accesslog"] == "-"
    monkeypatch.setenv("GUNICORN_THREADS", "1")
    assert runpy.run_path(str(ROOT / "config" / "gunicorn.py"))["worker_class"] == "sync"
    assert conf["preload_app"] is True  # workers fork warm (config/wsgi.py)


def test_the_wsgi_module_imports_every_view_before_the_first_request() -> None:
    code = (
        "import sys, config.wsgi; "
        "print(all(m in sys.modules for m in "
        "('research.dashboard.views', 'research.api.views', 'scoring.report.build', 'pandas')))"
    )
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.stdout.strip() == "True", done.stderr[-2000:]
