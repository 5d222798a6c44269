"""How many web worker processes gunicorn runs: one rule for config/gunicorn.py and the
deployment checks (config/checks.py), so both agree."""

from __future__ import annotations

import os

from config.env import env_int


def web_workers() -> int:
    """``WEB_CONCURRENCY`` (the usual name), else 2 × CPU cores + 1, gunicorn's advice."""
    return max(1, env_int("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1) + 1))
