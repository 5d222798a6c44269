"""Deployment checks of our own (``manage.py check --deploy``): no state in a worker.

Django checks security settings; these check that several workers (gunicorn processes,
app servers, job workers) can share the load: a per-process cache would give each its
own rate limits and job progress, SQLite would serialise every write, and without a
broker background jobs would run inside web requests.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register

from config.workers import web_workers

LOCAL_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


@register(Tags.caches, deploy=True)
def cache_shared_by_workers(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    backend = settings.CACHES["default"]["BACKEND"]
    if settings.DEBUG or backend not in LOCAL_CACHES or web_workers() <= 1:
        return []
    return [
        Warning(
            f"The cache is per-process ({backend.rsplit('.', 1)[1]}) but gunicorn runs "
            f"{web_workers()} workers (WEB_CONCURRENCY): each would keep its own cache.",
            hint="Set REDIS_URL (e.g. redis://127.0.0.1:6379/0), or WEB_CONCURRENCY=1.",
            id="shiping.W001",
        )
    ]


@register(Tags.database, deploy=True)
def database_for_several_workers(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    engine = settings.DATABASES["default"]["ENGINE"]
    if settings.DEBUG or not engine.endswith("sqlite3") or web_workers() <= 1:
        return []
    return [
        Warning(
            f"SQLite with {web_workers()} gunicorn workers: every write waits for the others.",
            hint="Set DATABASE_URL=postgres://… for production (docs/deploy.md).",
            id="shiping.W002",
        )
    ]


@register(deploy=True)
def jobs_have_a_broker(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    if settings.DEBUG or settings.CELERY_BROKER_URL:
        return []
    return [
        Warning(
            "CELERY_BROKER_URL is not set: background jobs run inside the web request "
            "that submits them.",
            hint="Set CELERY_BROKER_URL=redis://127.0.0.1:6379/1 and start a worker: "
            "celery -A config worker (docs/deploy.md).",
            id="shiping.W003",
        )
    ]


@register(deploy=True)
def client_addresses_behind_the_proxy(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """Behind a proxy (BEHIND_PROXY) every client would have the proxy's address unless
    NUM_PROXIES says how many proxies to look through: one rate-limit bucket per site."""
    if settings.DEBUG or settings.SECURE_PROXY_SSL_HEADER is None or settings.NUM_PROXIES > 0:
        return []
    return [
        Warning(
            "BEHIND_PROXY is on but NUM_PROXIES is 0: every client has the proxy's address, "
            "so rate limits and the login throttle count the whole site as one client.",
            hint="Set NUM_PROXIES to the number of proxies in front of gunicorn (1 behind "
            "nginx; docs/deploy.md).",
            id="shiping.W004",
        )
    ]
