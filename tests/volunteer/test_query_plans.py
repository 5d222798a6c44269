"""The claim's sweep of expired claims finds them through the partial index of open
claims (``assignment_open_expiry``, ``WHERE status = 'claimed'``), whatever the number of
answered assignments, also as a prepared statement's generic plan.

Why: PostgreSQL connections use server-side binding, so psycopg prepares a statement
after a few executions and PostgreSQL may then reuse one generic plan for every set of
parameters. A generic plan cannot prove that ``status = $3`` implies the index's
``status = 'claimed'``, so with the status as a parameter the sweep scanned every
assignment of the task and group at every claim (2 ms at 6,000 answers in
``bench_pages``, growing with the study). SQLite plans with the bound values, so
it used the index either way; its plan is checked too. The statement now says
``status = 'claimed'`` literally (``annotation.hotpath.tally.OPEN``); the control below keeps the reason
visible: the same statement with the status as a parameter cannot use the index."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from annotation.hotpath import claim, tally
from annotation.models import Assignment
from studies.models import Group, Item, Task
from tests.volunteer.conftest import build_study, enrol

pytestmark = pytest.mark.django_db

INDEX = "assignment_open_expiry"


def _filled(n_items: int = 60) -> tuple[int, int]:
    """A task with 10 participants' answered assignments of one group (``n_items`` each)
    and a few open claims, the tables analysed: the planner sees a study under way."""
    study = build_study(n_items=n_items, per_participant=n_items, groups=("A",))
    task = Task.objects.get(study=study)
    group = Group.objects.get(study=study, slug="A")
    items = list(Item.objects.filter(task=task).order_by("pk"))
    now = timezone.now()
    rows = []
    for n in range(10):
        p = enrol(study, group="A")
        for k, item in enumerate(items):
            status = Assignment.Status.CLAIMED if n == 0 and k < 3 else Assignment.Status.ANSWERED
            rows.append(Assignment(
                participant=p, item=item, task=task, group=group, position=k, status=status,
                option_order={}, claimed_at=now, expires_at=now + timedelta(minutes=30),
                answered_at=None if status == Assignment.Status.CLAIMED else now,
            ))  # fmt: skip
    Assignment.objects.bulk_create(rows)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return task.pk, group.pk


def _numbered(sql: str) -> tuple[str, int]:
    """``%s`` placeholders as ``$1``, ``$2`` … (PREPARE's), and how many."""
    count = 0

    def number(_match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return re.sub(r"%s", number, sql), count


def generic_plan(sql: str, params: list[object], mode: str = "force_generic_plan") -> str:
    """PostgreSQL's generic plan of ``sql`` (as a statement prepared and reused), or with
    ``mode="force_custom_plan"`` the plan made for these parameters."""
    text, count = _numbered(sql)
    assert count == len(params)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL plan_cache_mode = {mode}")
        cursor.execute(f"PREPARE plan_check AS {text}")
        try:
            placeholders = ", ".join(["%s"] * count)
            compose = connection.ops.compose_sql  # type: ignore[attr-defined]  # PostgreSQL's
            cursor.execute(compose(f"EXPLAIN EXECUTE plan_check({placeholders})", params))
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("DEALLOCATE plan_check")


def sqlite_plan(sql: str, params: list[Any]) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        return "\n".join(str(row[-1]) for row in cursor.fetchall())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plan cache")
def test_the_sweeps_generic_plan_uses_the_open_claims_index() -> None:
    task, group = _filled()
    when = tally.stamp(timezone.now() + timedelta(hours=1))
    params = [task, group, when, tally.gate_key(task, group), tally.EXPIRED.value, group]
    plan = generic_plan(tally._SWEEP_PG, params)
    assert f"Index Scan using {INDEX} on annotation_assignment" in plan, plan
    assert "Bitmap Heap Scan on annotation_assignment" not in plan, plan
    # The control: with the status as a parameter the index cannot be used.
    parametrised = tally._SWEEP_PG.replace(tally.OPEN, "status = %s", 1)
    at = parametrised.index("status = %s")
    before = parametrised[:at].count("%s")
    control = generic_plan(parametrised, [*params[:before], "claimed", *params[before:]])
    assert INDEX not in control, control


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner")
def test_the_sweep_on_sqlite_uses_the_open_claims_index() -> None:
    task, group = _filled()
    when = tally.stamp(timezone.now() + timedelta(hours=1))
    plan = sqlite_plan(tally._SWEEP, [tally.EXPIRED.value, task, group, when])
    assert INDEX in plan, plan


def test_the_sweep_still_returns_expired_claims_to_the_pool() -> None:
    """The literal status changes no result: expired open claims are found and marked,
    answered ones left alone."""
    task, group = _filled()
    later = timezone.now() + timedelta(hours=1)
    with transaction.atomic():
        tally.sweep(task, group, later)
    statuses = Assignment.objects.filter(task_id=task).values_list("status", flat=True)
    assert sorted(set(statuses)) == ["answered", "expired"]
    assert list(statuses).count("expired") == 3


def _cost(plan: str) -> float:
    found = re.search(r"cost=[\d.]+\.\.([\d.]+)", plan.splitlines()[0])
    assert found, plan
    return float(found.group(1))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plan cache")
def test_the_pages_statements_keep_their_generic_plans() -> None:
    """PostgreSQL reuses a prepared statement's generic plan only while its estimated cost
    is about that of the plans made for the actual parameters; otherwise it plans the
    statement afresh at every execution (1.45 ms for the participant's read, more than a
    whole floor request, when its statuses were parameters). The participant's read and
    the claim in one statement: generic plans within 1.5 times the custom ones' cost."""
    task, group = _filled(n_items=300)
    p = Assignment.objects.filter(task_id=task, status=Assignment.Status.CLAIMED).first()
    assert p is not None
    me = p.participant
    now = tally.stamp(timezone.now())
    state = [me.public_id, me.study_id, me.public_id, me.study_id, me.study.slug, "draft"]
    at_once = [task, group, task, group, now, me.pk, task, group, me.pk,
               me.pk, task, 0, 0, me.pk, 0,
               me.pk, task, group, 0, "claimed", "{}", now, now, None, 0.5]  # fmt: skip
    for sql, params in ((claim._STATE_BY_PUBLIC_ID, state), (claim._AT_ONCE, at_once)):
        generic = _cost(generic_plan(sql, params))
        custom = _cost(generic_plan(sql, params, "force_custom_plan"))
        assert generic <= 1.5 * custom, (sql[:60], generic, custom)
    # The control: the participant's read with its statuses as parameters.
    parametrised = claim._STATE_BY_PUBLIC_ID.replace(tally.HELD, "status IN (%s, %s)")
    params = [*state[:2], "claimed", "expired", *state[2:]]
    generic = _cost(generic_plan(parametrised, params))
    custom = _cost(generic_plan(parametrised, params, "force_custom_plan"))
    assert generic > 1.5 * custom, (generic, custom)
