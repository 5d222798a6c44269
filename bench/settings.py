"""Settings for the benchmarks' servers: the production settings plus the benchmark's floor
view (bench/urls.py), which no deployment mounts. Benchmarks start their servers with
DJANGO_SETTINGS_MODULE=bench.settings."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
