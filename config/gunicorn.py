"""gunicorn settings: ``gunicorn -c config/gunicorn.py config.wsgi``.

Every value comes from the environment (docs/deploy.md):

- ``WEB_CONCURRENCY`` worker processes (default 2 × cores + 1); ``GUNICORN_THREADS``
  threads per worker (default 1: the ``sync`` worker; more than 1: ``gthread``);
- ``GUNICORN_BIND`` (default ``127.0.0.1:8001``, behind a TLS-terminating proxy);
- ``GUNICORN_TIMEOUT`` seconds before a silent worker is killed and replaced (default 30;
  large uploads belong in background jobs, not in long requests);
- ``GUNICORN_MAX_REQUESTS`` recycle a worker after this many requests (default 2000,
  with jitter, so a slow leak never takes a worker down);
- access log on standard output (``GUNICORN_ACCESS_LOG=-``, or a path; empty turns it off);
- ``GUNICORN_NAME`` the pool's process name (default ``shiping``; a second pool for the
  researchers' pages, docs/deploy.md, says ``shiping-research``);
- ``GUNICORN_PRELOAD`` (default 1): the master imports the application and every view
  (config/wsgi.py) once and forks warm workers; no database connection is open then.

Workers hold no state (sessions, cache and jobs live in PostgreSQL and Redis), so any
worker serves any request and a killed worker loses nothing but its own request.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from config.workers import web_workers

_env = os.environ.get

wsgi_app = "config.wsgi:application"
bind = _env("GUNICORN_BIND", "127.0.0.1:8001")
workers = web_workers()
threads = max(1, int(_env("GUNICORN_THREADS", "1")))
worker_class = "gthread" if threads > 1 else "sync"
timeout = int(_env("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(_env("GUNICORN_GRACEFUL_TIMEOUT", "30"))
keepalive = int(_env("GUNICORN_KEEPALIVE", "5"))
max_requests = int(_env("GUNICORN_MAX_REQUESTS", "2000"))
max_requests_jitter = max_requests // 10
accesslog = _env("GUNICORN_ACCESS_LOG", "-") or None
errorlog = "-"
loglevel = _env("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
forwarded_allow_ips = _env("FORWARDED_ALLOW_IPS", "127.0.0.1")
proc_name = _env("GUNICORN_NAME", "shiping")
preload_app = _env("GUNICORN_PRELOAD", "1") == "1"
