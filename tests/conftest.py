"""Shared fixtures: the formats.md example files and a loaded example study."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
FORMATS = FIXTURES / "formats"


@pytest.fixture
def formats_dir() -> Path:
    return FORMATS


@pytest.fixture
def example_study(db):  # type: ignore[no-untyped-def]
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
def _fresh_cache():  # type: ignore[no-untyped-def]
    """Each test starts with an empty cache: rate-limit counters never leak between tests.
    (Pure tests run without Django: ``pytest -p no:django tests/prosody``.)"""
    from django.conf import settings

    if settings.configured:
        from django.core.cache import cache

        cache.clear()
    yield
