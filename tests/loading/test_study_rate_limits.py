"""A study file sets the study's own rate limits (docs/formats.md §1, docs/deploy.md)."""

from __future__ import annotations

import json

import pytest

from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.models import Study
from studies.ratelimits import Rate, parse_rate
from tests.loading.helpers import loader

pytestmark = pytest.mark.django_db
study_load = loader("study")


def _definition(formats_dir, **extra) -> Source:
    data = json.loads((formats_dir / "study.json").read_text(encoding="utf-8"))
    return Source("study.json", json.dumps({**data, **extra}).encode(), "json")


def test_a_study_file_sets_its_rate_limits_and_a_reload_changes_them(formats_dir) -> None:
    limits = {"enrol": "20/min", "enrol_address": "1000/hour", "resume": "off"}
    study_load(_definition(formats_dir, rate_limits=limits))
    assert Study.objects.get().rate_limits == limits
    study_load(_definition(formats_dir, rate_limits={"enrol": "5 / Minute"}))
    assert Study.objects.get().rate_limits == {"enrol": "5 / minute"}
    study_load(_definition(formats_dir))
    assert Study.objects.get().rate_limits == {}  # the site's limits again


@pytest.mark.parametrize(
    ("limits", "field", "words"),
    [
        ({"answer": "5/min"}, "rate_limits.answer", "unknown limit"),
        ({"enrol": "lots"}, "rate_limits.enrol", "is not a rate"),
        ({"enrol": "0/min"}, "rate_limits.enrol", "count ≥ 1"),
        ({"enrol": "5/fortnight"}, "rate_limits.enrol", "period second, minute, hour or day"),
        ({"enrol": 30}, "rate_limits.enrol", "is not a rate"),
        (["enrol"], "rate_limits", "must be an object of limits"),
    ],
)
def test_a_bad_rate_limit_is_refused_with_its_line_and_field(
    formats_dir, limits, field, words
) -> None:
    with pytest.raises(LoadError) as err:
        study_load(_definition(formats_dir, rate_limits=limits))
    [problem] = err.value.problems
    assert problem.field == field and words in problem.message
    assert not Study.objects.exists()


def test_rates_read_as_count_per_period() -> None:
    assert parse_rate("30/min") == Rate(30, 60)
    assert parse_rate("500/hour") == Rate(500, 3600)
    assert parse_rate("2/s") == Rate(2, 1)
    assert parse_rate("off") is None and parse_rate(None) is None
