"""The Celery application: background jobs (loads, scoring, exports, reports).

With ``CELERY_BROKER_URL`` set (``redis://127.0.0.1:6379/1`` in production,
``filesystem://`` for the embedded default that ``make demo`` runs) tasks go to a broker
and run in a separate worker (``celery -A config worker``). Without it, tasks run
in-process at once (``task_always_eager``). See docs/deploy.md.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("shiping")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
