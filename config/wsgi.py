"""WSGI entry point (gunicorn config.wsgi).

Every view module is imported here, once, before the first request: with gunicorn's
``preload_app`` (config/gunicorn.py) the master does it and each worker it forks, the
first ones and every replacement (``max_requests``), starts warm. Before, a new worker
imported the research stack (pandas, SciPy, statsmodels: 1.3–1.8 s) on its first
request, which under load passed the worker timeout and failed volunteers' enrolments.
"""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018 -- imports every view (and what they import)
