"""The Celery application: background jobs (loads, scoring, exports, reports).

With ``CELERY_BROKER_URL`` set (``redis://127.0.0.1:6379/1`` in production,
``filesystem://`` for the embedded default that ``make demo`` runs) tasks go to a broker
and run in separate workers (``celery -A config worker -Q jobs`` and ``-Q reports``). Without it, tasks run
in-process at once (``task_always_eager``). See docs/deploy.md.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: The queues: ``jobs`` (the default: loads, rule scores, exports) and ``reports``
#: (statistics reports, which may take minutes with many resamples). Run a worker pool
#: for each (docs/deploy.md), or one worker for both: ``-Q jobs,reports`` (``make demo``).
QUEUES = ("jobs", "reports")

app = Celery("shiping")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_routes = {"shiping.run_report_job": {"queue": "reports"}}
app.autodiscover_tasks()
