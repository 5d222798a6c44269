"""Settings for the test suite: the normal settings with TESTING on and fast hashing."""

import os
import uuid

os.environ.setdefault("TESTING", "1")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Jobs run in-process in tests whatever the environment says; tests/jobs/test_jobs_worker.py
# starts a real worker on Redis itself.
CELERY_BROKER_URL = ""
CELERY_TASK_ALWAYS_EAGER = True

# A test database of this run's own on a shared server, so that two runs on one machine
# (or CI beside a developer) never drop each other's: test_<name>_<run>, and pytest-xdist
# adds _gw0, _gw1 … per worker. The run id is made once by the first process to read these
# settings and inherited by the workers it starts.
_RUN = os.environ.setdefault("SHIPING_TEST_RUN", uuid.uuid4().hex[:8])
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    _name = DATABASES["default"]["NAME"]  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": f"test_{_name}_{_RUN}"}  # noqa: F405
