"""Shared fixtures (the formats.md example files and a loaded example study), the test
tiers' markers and their check, and the hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from tests.tiers import mark_engine_dependent, marker_problems

# Derandomised in CI (the same examples on every run, so a red CI is reproducible);
# random locally; `HYPOTHESIS_PROFILE=deep` for a scheduled long hunt.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("dev")
hypothesis_settings.register_profile("deep", max_examples=1000)
hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)

FIXTURES = Path(__file__).parent / "fixtures"
FORMATS = FIXTURES / "formats"


@pytest.fixture
def formats_dir() -> Path:
    return FORMATS


@pytest.fixture
def example_study(db):
    """The formats.md example study with its pool loaded (synthetic fixture data)."""
    from studies.loading.readers import Source
    from studies.models import Study
    from tests.loading.helpers import loader

    study_load, pool_load = loader("study"), loader("pool")

    study_load(Source.from_path(FORMATS / "study.json"))
    study = Study.objects.get(slug="poetry-understanding")
    pool_load(Source.from_path(FORMATS / "pool.jsonl"), study=study)
    return study


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache (rate-limit counters never leak between tests)
    and the default language active.
    (Pure tests run without Django: ``pytest -p no:django tests/prosody``.)"""
    from django.conf import settings

    if settings.configured:
        from django.core.cache import cache
        from django.utils import translation

        cache.clear()
        # and in the site's default language: a request through the test client leaves
        # the language it negotiated active in this thread, and a later test must not
        # depend on which ran before it
        translation.activate(settings.LANGUAGE_CODE)
    yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that starts a browser or a server must carry its tier's marker, or the run
    stops here: an unmarked one would slip into the fast tier (tests/tiers.py)."""
    mark_engine_dependent(items)
    problems = marker_problems(items)
    if problems:
        raise pytest.UsageError("Tests missing their tier marker:\n  " + "\n  ".join(problems))
