"""Settings, all read from the environment with safe defaults.

The embedded default is SQLite in ``var/`` (so the demo needs nothing installed);
``DATABASE_URL`` (``sqlite:///path`` or ``postgres://user@host:port/db``) overrides it.
See docs/deploy.md for every variable.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("DATA_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
TESTING = env_bool("TESTING", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if DEBUG or TESTING:
        # Only for local development and the test suite; never used with DEBUG off.
        SECRET_KEY = "insecure-development-key-do-not-use-in-production"
    else:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set the SECRET_KEY environment variable "
            "(e.g. `export SECRET_KEY=$(python -c 'import secrets; print(secrets.token_urlsafe(50))')`), "
            "or set DEBUG=1 for local development."
        )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if (DEBUG or TESTING) else [])
if DEBUG or TESTING:
    ALLOWED_HOSTS += ["testserver", "[::1]"]
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "config.apps.ShipingAdminConfig",  # django.contrib.admin with our site (config/admin.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "config.apps.AxesConfig",  # django-axes, the admin login's throttle (AXES_* below)
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "studies",
    "annotation",
    "scoring",
    "research",
    "jobs",
    "demo",
    "config.apps.ProjectConfig",  # deploy checks (config/checks.py)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.csp.ContentSecurityPolicyMiddleware",  # CONTENT_SECURITY_POLICY below
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: it turns a locked-out login into its page
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "annotation.context.preview",  # the preview banner (base.html)
                "config.context.here",  # this page, query bounded (base.html)
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

_default_db_url = f"sqlite:///{DATA_DIR / 'db.sqlite3'}"
DATABASE_URL = env_str("DATABASE_URL", _default_db_url)
try:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=env_int("CONN_MAX_AGE", 0), conn_health_checks=True
        )
    }
except ValueError as exc:  # unknown scheme, malformed URL
    raise ImproperlyConfigured(f"DATABASE_URL={DATABASE_URL!r} is not usable: {exc}") from exc
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's documented server-side binding (psycopg 3): the server parses and plans a
    # statement once per persistent (CONN_MAX_AGE) connection after PG_PREPARE_THRESHOLD
    # executions (0: never prepare), instead of anew on every request (docs/performance.md).
    # PG_SERVER_SIDE_BINDING=0 goes back to Django's default client-side binding.
    _prepare = env_int("PG_PREPARE_THRESHOLD", 5)
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    _options["server_side_binding"] = env_bool("PG_SERVER_SIDE_BINDING", True)
    _options["prepare_threshold"] = _prepare or None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets readers proceed during a write; a busy timeout makes writers queue
        # instead of failing with "database is locked".
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    if not str(DATABASES["default"]["NAME"]).startswith(":memory:"):
        Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a locked-out login before a password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if (DEBUG or TESTING)
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG or TESTING
if DEBUG or TESTING:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing root

LOGIN_URL = "admin:login"

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Background jobs (config/celery.py). Without a broker, the embedded default and the
# demo, tasks run in-process at once, so nothing extra is needed.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# Two queues, so researchers' heavy reports never delay loads and exports, nor the other way
# round (config/celery.py routes report jobs to ``reports``; docs/deploy.md, worker pools):
# ``celery -A config worker -Q jobs`` and ``celery -A config worker -Q reports``.
CELERY_TASK_DEFAULT_QUEUE = "jobs"
CELERY_TASK_IGNORE_RESULT = True  # a job's outcome lives in its Job row, not a result backend
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-job leaves the message for another worker
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # jobs are long: take one at a time
# With late acks Redis hands an unacknowledged job to another worker after this long, so
# it must exceed the longest job (a million-row load takes minutes, not hours).
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_SECONDS", 6 * 3600)
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The embedded queue (`make demo`): CELERY_BROKER_URL=filesystem:// keeps the queue as files
# under DATA_DIR/queue (kombu's filesystem transport), so jobs run in a worker process of
# their own on one machine with nothing more to install; Redis is for production.
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue = DATA_DIR / "queue"
    for _sub in ("in", "processed", "control"):
        (_queue / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        {
            "data_folder_in": str(_queue / "in"),
            "data_folder_out": str(_queue / "in"),
            "processed_folder": str(_queue / "processed"),
            # the exchange-to-queue tables (one per queue: jobs, reports), else ./control
            "control_folder": str(_queue / "control"),
            "store_processed": False,
        }
    )
# A running job's runner gives a sign of life this often; after JOB_MISSED_BEATS missed
# ones (its request or worker died) the job is shown failed, with the reason.
JOB_HEARTBEAT_SECONDS = env_int("JOB_HEARTBEAT_SECONDS", 15)
JOB_MISSED_BEATS = env_int("JOB_MISSED_BEATS", 8)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG and not TESTING)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY", False) else None
)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
# The Content-Security-Policy of every response (config/csp.py): scripts from this site's
# files only, never inline; inline styles allowed (they run no code).
CONTENT_SECURITY_POLICY: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
X_FRAME_OPTIONS = "DENY"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # JSON only (the API's bodies are JSON), nested at most config.api.MAX_JSON_DEPTH deep.
    "DEFAULT_PARSER_CLASSES": ["config.api.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "config.api.Pagination",
    "PAGE_SIZE": 100,
    "NUM_PROXIES": None,  # unused: the volunteer API counts with annotation/ratelimit.py
}

# Client addresses (rate limits, the login throttle): REMOTE_ADDR, or behind NUM_PROXIES
# trusted proxies (1 behind nginx, docs/deploy.md) the address the nearest one saw, from
# X-Forwarded-For. Set it to exactly the number of proxies: more lets clients forge it.
NUM_PROXIES = env_int("NUM_PROXIES", 0)


def _rate(name: str, default: str) -> str | None:
    from studies.ratelimits import parse_rate  # plain Python: no app needs to be ready

    variable = f"RATE_LIMIT_{name.upper()}"
    value = env_str(variable, default)
    try:
        return None if parse_rate(value) is None else value
    except ValueError as exc:
        raise ImproperlyConfigured(f"{variable}: {exc}") from None


# Volunteer-flow rate limits (annotation/ratelimit.py), on the shared cache, per study:
# enrolments and resume-code guesses per browser, under a much higher ceiling per client
# address (a class behind one school NAT address); answers per participant. A study file
# may set its own (``rate_limits``). "off" turns one off.
RATE_LIMITS = {
    "enrol": _rate("enrol", "10/min"),
    "enrol_address": _rate("enrol_address", "300/min"),
    "resume": _rate("resume", "10/min"),
    "resume_address": _rate("resume_address", "100/min"),
    "answer": _rate("answer", "60/min"),
}

# The admin login's throttle (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for
# one user name from one client address (an IPv4 address, or an IPv6 /64), that pair is locked out for LOGIN_COOLOFF_MINUTES
# (each further try restarts the wait); a successful login clears the count. Failures
# are rows in the database, shared by every worker.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "annotation.ratelimit.login_throttle_address"  # an IPv6 /64 as one
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "admin/locked_out.html"
AXES_VERBOSE = False
# The hosts a study's completion_url may send finishing volunteers to (the recruiting
# platforms): a host as written, or ".example.org" for it and every subdomain. The
# placeholders ({code}, {PROLIFIC_PID}, ...) are filled in the path and query only, so a
# volunteer's link can never point elsewhere (docs/deploy.md).
COMPLETION_HOSTS = env_list(
    "COMPLETION_HOSTS",
    [
        "app.prolific.com",
        "app.prolific.co",
        "www.mturk.com",
        "workersandbox.mturk.com",
        "connect.cloudresearch.com",
        "www.credamo.com",
        "www.wjx.cn",
        ".qualtrics.com",
    ],
)
# Background reports (jobs/reports.py): how many report computations one user may start
# an hour (a new seed, new resamples or new settings, or data that moved); reading a
# stored report or joining a running computation is free. 0 turns the limit off.
REPORT_STARTS_PER_HOUR = env_int("REPORT_STARTS_PER_HOUR", 30)
# A report job still queued (no worker took it) this many seconds after it was submitted
# no longer holds its study and settings: the next request marks it failed and starts a
# new one (a worker consuming ``reports`` that takes it later does nothing). 0: never.
REPORT_QUEUED_STALE_SECONDS = env_int("REPORT_QUEUED_STALE_SECONDS", 1800)
# ``manage.py report --figure``: the scoring app's command draws a chart through this
# function of the research app (which owns the charts; scoring may not import it).
REPORT_FIGURE_WRITER = "research.figures.cli.write_figure"
# Print figures (research/figures/fonts.py): how many font subsets (one per set of
# characters drawn, ~50-500 KB each) DATA_DIR/fonts keeps; the least recently used go.
FIGURE_FONT_CACHE_FILES = env_int("FIGURE_FONT_CACHE_FILES", 200)
# matplotlib (print figures) keeps its font list under DATA_DIR: a server's home may be
# read-only, and a fresh temporary directory per process would rescan the fonts each start.
os.environ.setdefault("MPLCONFIGDIR", str(DATA_DIR / "matplotlib"))
# The researcher API's largest page (``?limit=``); a larger limit gets this many rows.
API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 1000)
SPECTACULAR_SETTINGS = {
    "TITLE": "Shiping API",
    "DESCRIPTION": _(
        "Studies, items, responses and reports of classical Chinese poetry evaluation."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals": {"()": "config.logs.RefusalsWithoutTraceback"}},
    # a 4xx is one line, without the traceback of what refused it: on the console for
    # every logger (a DisallowedHost's 400 is logged on django.security.DisallowedHost),
    # and on django.request itself, before any handler sees a 403
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["refusals"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    "loggers": {"django.request": {"filters": ["refusals"]}},
}

# Platform settings.
# A participant API token expires this many days after it was signed; a reply to a token
# older than PARTICIPANT_TOKEN_RENEW_HOURS carries a fresh one (X-Participant-Token).
PARTICIPANT_TOKEN_DAYS = env_int("PARTICIPANT_TOKEN_DAYS", 30)
PARTICIPANT_TOKEN_RENEW_HOURS = env_int("PARTICIPANT_TOKEN_RENEW_HOURS", 24)
ASSIGNMENT_CLAIM_SECONDS = env_int("ASSIGNMENT_CLAIM_SECONDS", 30 * 60)
# Compute rule scores for poem items inside the load that creates or changes them.
# Loads changing more items than SCORE_ON_LOAD_MAX_ITEMS leave scoring to `score_poems`.
SCORE_ON_LOAD = env_bool("SCORE_ON_LOAD", True)
SCORE_ON_LOAD_MAX_ITEMS = env_int("SCORE_ON_LOAD_MAX_ITEMS", 5000)
# The admin's upload page loads a file of more lines than this as a background job, whose
# page shows its progress (a smaller file is loaded while the page waits).
UPLOAD_BACKGROUND_LINES = env_int("UPLOAD_BACKGROUND_LINES", 2000)
# Files uploaded for background loads (DATA_DIR/uploads) are deleted this many days after
# they were uploaded, once no queued or running job needs them (at the end of each job,
# and by `manage.py purge_uploads`); 0: as soon as their job ends.
UPLOAD_KEEP_DAYS = env_int("UPLOAD_KEEP_DAYS", 7)
