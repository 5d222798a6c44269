"""Settings for the test suite: the normal settings with TESTING on and fast hashing."""

import os

os.environ.setdefault("TESTING", "1")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Jobs run in-process in tests whatever the environment says; tests/jobs/test_jobs_worker.py
# starts a real worker on Redis itself.
CELERY_BROKER_URL = ""
CELERY_TASK_ALWAYS_EAGER = True
