"""The dashboard's progress kept up to date (research.dashboard.running) equals the
progress counted from scratch (tests/app/progress_reference.py) after every
step of random sequences of answers, imports (the loaders' writer), deletions, edits,
test participants' and models' answers, group changes, target changes and new items;
and answers alone are folded in, not counted again."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.core.cache import cache

from annotation.loading.writing import ResponseRow, raters_ensure, responses_upsert
from annotation.models import Participant, Rater, Response
from annotation.selectors import ResponseTotals, response_totals
from research.dashboard import running
from studies.loading.problems import Summary
from studies.models import Group, Item, Study, Task
from tests.app import progress_reference as progress

FIELDS = ("x", "y")


class World:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.study = Study.objects.create(slug="r", title="r")
        self.groups = [
            Group.objects.create(
                study=self.study, slug=s, name=s, position=k, target_per_item=k + 1
            )
            for k, s in enumerate(("a", "b"))
        ]
        self.tasks = [
            Task.objects.create(
                study=self.study,
                slug=s,
                title=s,
                kind="rating",
                position=k,
                dimensions=[{"key": f, "label": f, "min": 1, "max": 5} for f in FIELDS],
            )
            for k, s in enumerate(("t1", "t2"))
        ]
        self.items: list[Item] = []
        for _ in range(4):
            self.new_item()
        self.people: list[Rater] = []
        self.model = Rater.objects.create(study=self.study, kind="model", name="m")
        for _ in range(3):
            self.new_person()

    def new_item(self) -> None:
        task = self.rng.choice(self.tasks)
        k = len(self.items)
        self.items.append(
            Item.objects.create(
                study=self.study,
                task=task,
                external_id=f"i{k}",
                position=k,
                is_attention_check=self.rng.random() < 0.2,
            )
        )

    def new_person(self) -> None:
        name = f"p{len(self.people)}"
        rater = Rater.objects.create(study=self.study, kind="human", name=name)
        group = self.rng.choice([*self.groups, None])
        Participant.objects.create(
            study=self.study,
            rater=rater,
            group=group,
            public_id=name,
            status="screened",
            is_test=self.rng.random() < 0.25,
        )
        self.people.append(rater)

    def answer(self, rater: Rater) -> None:
        item = self.rng.choice(self.items)
        for field in self.rng.sample(FIELDS, self.rng.randint(1, 2)):
            Response.objects.get_or_create(
                study=self.study,
                task=item.task,
                item=item,
                rater=rater,
                field=field,
                defaults={"value": 3.0},
            )

    def import_rows(self) -> None:
        names = [f"imported{self.rng.randint(0, 3)}" for _ in range(self.rng.randint(1, 5))]
        rows = {}  # one row a (rater, item, field), as in a file the loaders accept
        for name in names:
            item = self.rng.choice(self.items)
            for field in FIELDS:
                rows[(name, item.pk, field)] = ResponseRow(
                    ("human", name, ""),
                    item.pk,
                    item.task_id,
                    field,
                    float(self.rng.randint(1, 5)),
                    None,
                )
        summary = Summary(kind="responses", file="f")
        raters = raters_ensure(self.study, {r.rater for r in rows.values()}, summary)
        responses_upsert(self.study, rows.values(), raters, summary)

    def step(self) -> str:
        rng = self.rng
        kind = rng.choices(
            [
                "answer",
                "answers",
                "import",
                "delete",
                "edit",
                "test",
                "model",
                "person",
                "group",
                "target",
                "item",
                "check",
            ],
            weights=[30, 10, 6, 5, 4, 4, 3, 5, 2, 3, 3, 2],
        )[0]
        rows = Response.objects.filter(study=self.study)
        if kind == "answer":
            self.answer(rng.choice(self.people))
        elif kind == "answers":
            for _ in range(rng.randint(2, 6)):
                self.answer(rng.choice(self.people))
        elif kind == "import":
            self.import_rows()
        elif kind == "delete" and rows.exists():
            rng.choice(list(rows)).delete()
        elif kind == "edit" and rows.exists():
            row = rng.choice(list(rows))
            row.value = float(rng.randint(1, 5))
            row.save()
        elif kind == "test":
            p = Participant.objects.get(rater=rng.choice(self.people))
            p.is_test = not p.is_test
            p.save()
        elif kind == "model":
            self.answer(self.model)
        elif kind == "person":
            self.new_person()
            self.answer(self.people[-1])
        elif kind == "group":
            p = Participant.objects.get(rater=rng.choice(self.people))
            p.group = rng.choice([*self.groups, None])
            p.save()
        elif kind == "target":
            g = rng.choice(self.groups)
            g.target_per_item = rng.randint(0, 4)
            g.save()
        elif kind == "item":
            self.new_item()
        elif kind == "check":
            item = rng.choice(self.items)
            item.is_attention_check = not item.is_attention_check
            item.save()
        return kind


def fold(study: Study) -> running.Counts | None:
    """The stored state with the responses since folded in (``running.fold_in``)."""
    saved, totals = running.read(study)
    assert saved is not None
    return running.fold_in(study, saved, totals)


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(4))
def test_kept_up_to_date_equals_from_scratch(seed: int, monkeypatch: Any) -> None:
    cache.clear()
    world = World(random.Random(seed))
    recounts: list[int] = []
    count_all = running.count_all

    def counted(study: Study, totals: ResponseTotals | None = None) -> running.Counts:
        recounts.append(1)
        return count_all(study, totals)

    monkeypatch.setattr(running, "count_all", counted)
    folded = 0
    for n in range(120):
        kind = world.step()
        before = len(recounts)
        got = running.task_progress(world.study)
        assert got == progress.task_progress(world.study), (seed, n, kind)
        if kind in ("answer", "answers", "person", "target", "item", "check") and n > 0:
            # answers are folded in; targets and items are read at every view
            assert len(recounts) == before, (seed, n, kind)
            folded += 1
    assert folded > 50
    assert len(recounts) > 5  # deletions, edits and test flags were counted again


@pytest.mark.django_db
def test_counts_again_after_a_deletion_and_folds_in_answers() -> None:
    cache.clear()
    world = World(random.Random(7))
    for rater in world.people:
        world.answer(rater)
    first = running.task_progress(world.study)
    assert first == progress.task_progress(world.study)
    state = cache.get(running.state_key(world.study))
    assert state.watermark == Response.objects.filter(study=world.study).latest("pk").pk
    Response.objects.filter(study=world.study).first().delete()  # type: ignore[union-attr]
    assert fold(world.study) is None
    world.answer(world.people[0])
    assert running.task_progress(world.study) == progress.task_progress(world.study)


@pytest.mark.django_db
def test_two_views_at_once_leave_a_true_state() -> None:
    """Two views read the same state and each stores its own fold: whichever lands
    last, the next view's result is the count from scratch."""
    cache.clear()
    world = World(random.Random(3))
    running.task_progress(world.study)
    key = running.state_key(world.study)
    old = cache.get(key)
    world.answer(world.people[1])
    a = fold(world.study)
    world.answer(world.people[2])
    b = fold(world.study)
    assert a is not None and b is not None
    for first, second in ((a, b), (b, a), (old, a)):
        cache.set(key, first)
        cache.set(key, second)
        assert running.task_progress(world.study) == progress.task_progress(world.study)


@pytest.mark.django_db
def test_response_totals_are_the_plain_aggregates() -> None:
    """The one shared scan gives what separate queries give: all rows, and those up to
    a watermark; the fingerprint from it is the fingerprint read on its own."""
    from django.db.models import Max

    from scoring.report.service import fingerprint

    world = World(random.Random(5))
    for rater in world.people:
        world.answer(rater)
    rows = Response.objects.filter(study=world.study)
    pks = sorted(rows.values_list("pk", flat=True))
    assert len(pks) > 3
    middle = pks[len(pks) // 2]
    totals = response_totals(world.study, middle)
    below = rows.filter(pk__lte=middle)
    assert totals.n == len(pks) and totals.top == pks[-1]
    assert totals.at == rows.aggregate(at=Max("updated_at"))["at"]
    assert totals.n_below == below.count() == len([p for p in pks if p <= middle])
    assert totals.sum_below == sum(p for p in pks if p <= middle)
    assert totals.at_below == below.aggregate(at=Max("updated_at"))["at"]
    assert fingerprint(world.study, totals) == fingerprint(world.study)
    empty = response_totals(world.study, 0)
    assert (empty.n_below, empty.sum_below, empty.at_below) == (0, 0, None)
