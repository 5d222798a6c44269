"""The test tiers (README, "Running the tests").

- fast (``make test``): everything not marked ``slow``, ``load`` or ``browser``;
- ``make test-all``: everything;
- ``.ci/run``: everything once on SQLite, and the ``postgres`` tests again on PostgreSQL.

A test that starts a browser or a server is found by the fixtures it uses, and must carry
the matching marker. ``marker_problems`` is run on every collection (tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

# fixture -> the markers one of which a test using it must carry
NEEDS: dict[str, frozenset[str]] = {
    "browser": frozenset({"browser"}),  # Chromium through Playwright
    "live_server": frozenset({"browser", "load"}),  # a threaded HTTP server
    "stack": frozenset({"load"}),  # gunicorn on a throw-away database (tests/load)
    "celery_worker": frozenset({"load"}),  # a Celery worker process
}
TIERS_LEFT_OUT_OF_FAST = ("slow", "load", "browser")
# Where the database engine changes what is tested (hand-written SQL, locks, transactions,
# bulk writes, migrations): these run again on PostgreSQL in CI. A test elsewhere that
# depends on the engine says so with @pytest.mark.postgres.
POSTGRES_PATHS = (
    "tests/volunteer/",
    "tests/loading/",
    "tests/jobs/",
    "tests/scoring_app/",
    "tests/api/test_research_api.py",
    "tests/report/test_report_cache.py",
    "tests/report/test_dashboard_one_read.py",
)


def mark_engine_dependent(items: Iterable[pytest.Item]) -> None:
    """Add the ``postgres`` marker to the tests under ``POSTGRES_PATHS``."""
    for item in items:
        if item.nodeid.startswith(POSTGRES_PATHS):
            item.add_marker(pytest.mark.postgres)


def marker_problems(items: Iterable[pytest.Item]) -> list[str]:
    """One line per test that uses a browser or server fixture without its marker."""
    problems = []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        names = {m.name for m in item.iter_markers()}
        for fixture, markers in NEEDS.items():
            if fixture in fixtures and not names & markers:
                wanted = " or ".join(sorted(markers))
                problems.append(f"{item.nodeid}: uses `{fixture}`, needs a {wanted} marker")
    return problems
