"""The benchmarks' floor view is mounted by the benchmarks' settings only, never by the
production URLs."""

from __future__ import annotations

import pytest
from django.urls import Resolver404, resolve


def test_production_urls_have_no_floor_view() -> None:
    with pytest.raises(Resolver404):
        resolve("/bench/floor/")


def test_the_benchmark_urls_add_the_floor_to_the_production_ones() -> None:
    import bench.urls
    from config.urls import urlpatterns

    assert bench.urls.urlpatterns[: len(urlpatterns)] == urlpatterns
    assert resolve("/bench/floor/", urlconf="bench.urls").func is bench.urls.bench_floor
