"""Report settings are held to one rule on every interface (``scoring.report.settings``):
a bad value (``seed=-1``, an ``n_boot`` over the API's cap of 2,000, a huge
``min_side``) is a 400 naming it on the dashboard, the report downloads and the API's
report and export, and an error from the command — never a 500 or a report computed for
20,000 resamples in a request thread."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from scoring.report import SettingsError, settings_from
from scoring.report.settings import MAX_BOOT
from tests.api.conftest import World

pytestmark = pytest.mark.django_db
BAD = [
    ("seed", "-1"),
    ("seed", str(2**32)),
    ("seed", "1e400"),
    ("n_boot", "20000"),
    ("n_boot", str(MAX_BOOT + 1)),
    ("n_boot", "-1"),
    ("min_side", str(10**30)),
    ("confidence", "nan"),
    ("pass_threshold", "inf"),
]


@pytest.mark.parametrize(("name", "value"), BAD)
def test_the_one_rule_refuses_each_bad_value(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as caught:
        settings_from({name: value})
    assert caught.value.name == name


def test_the_cap_is_the_apis_everywhere() -> None:
    assert MAX_BOOT == 2000
    assert settings_from({"n_boot": "2000", "seed": "0"}).n_boot == 2000


@pytest.mark.parametrize(("name", "value"), BAD)
def test_every_web_interface_answers_400(world: World, name: str, value: str) -> None:
    study = world.own.study.pk
    client = world.clients["researcher"]
    query = f"?{name}={value}"
    paths = [
        f"/research/studies/{study}/report.json",
        f"/research/studies/{study}/report.csv",
        f"/api/v1/studies/{study}/report/",
        f"/api/v1/studies/{study}/exports/report/",
    ]
    for path in paths:
        reply = client.get(path + query)
        assert reply.status_code == 400, (path, reply.status_code)
        assert name in reply.content.decode(), path


def test_the_dashboard_names_the_bad_seed_with_a_400(world: World) -> None:
    client = world.clients["researcher"]
    page = client.get(f"/research/studies/{world.own.study.pk}/?seed=-1&n_boot=0")
    assert page.status_code == 400
    assert set(page.context["form"].errors) == {"seed"}
    assert 'role="alert"' in page.content.decode()


def test_the_command_refuses_an_n_boot_over_the_cap(world: World) -> None:
    with pytest.raises(CommandError, match=r"n.boot: a whole number from 0 to 2000"):
        call_command("report", world.own.study.slug, "--n-boot", "5000")


def test_an_unknown_task_is_named_by_a_short_excerpt(world: World) -> None:
    """``tasks=<300 KB>`` came back whole in the 400 of the downloads and the API (and
    several times over on the dashboard)."""
    study = world.own.study.pk
    client = world.clients["researcher"]
    huge = "y" * 300_000
    for path in (
        f"/research/studies/{study}/report.csv",
        f"/api/v1/studies/{study}/report/",
        f"/api/v1/studies/{study}/exports/report/",
    ):
        reply = client.get(path, {"tasks": f"{huge},{huge}2"})
        assert reply.status_code == 400, path
        assert "tasks" in reply.content.decode() and len(reply.content) < 2000, path


def test_the_dashboard_does_not_carry_a_huge_tasks_query_into_its_page(world: World) -> None:
    """A 300 KB unknown ``tasks=`` and 30 KB of one task repeated gave a 2 MB and an 8 MB
    dashboard (the form showed the value back whole; every link carried the repeats)."""
    study = world.own.study
    client = world.clients["researcher"]
    url = f"/research/studies/{study.pk}/"
    plain = len(client.get(url, {"n_boot": "0"}).content)
    task = study.tasks.order_by("pk").first()
    assert task is not None
    repeated = client.get(url, {"n_boot": "0", "tasks": ",".join([task.slug] * 6000)})
    assert repeated.status_code == 200 and repeated.context["form"].settings.tasks == (task.slug,)
    assert len(repeated.content) < 2 * plain
    unknown = client.get(url, {"n_boot": "0", "tasks": "y" * 300_000})
    assert unknown.status_code == 400 and "tasks" in unknown.context["form"].errors
    assert len(unknown.content) < plain + 10_000
