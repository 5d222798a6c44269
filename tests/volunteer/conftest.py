"""Fixtures for the volunteer flow: the demo study, and synthetic studies of any size."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command

from annotation import services
from annotation.models import Participant
from studies.models import Group, Item, ScreeningQuestion, Study, Task

DIMENSIONS = [
    {"key": "beauty", "label": "Beauty", "min": 1, "max": 5, "description": "How beautiful"},
    {"key": "form", "label": "Form", "min": 1, "max": 5},
]


@pytest.fixture
def demo_study(db: Any) -> Study:
    call_command("demo", "--no-users", stdout=io.StringIO())
    return Study.objects.get(slug="song-ci-demo")


def build_study(
    *,
    n_items: int = 10,
    kinds: tuple[str, ...] = ("choice",),
    per_participant: int = 3,
    target: int = 2,
    groups: tuple[str, ...] = ("A", "B"),
    checks: int = 0,
    slug: str = "s",
    **study_fields: Any,
) -> Study:
    """A study with one task per kind, ``n_items`` items each, keyed answers; open
    unless ``status`` says otherwise."""
    study_fields.setdefault("status", Study.Status.OPEN)
    study = Study.objects.create(
        slug=slug, title="Test study", consent="Consent text.", **study_fields
    )
    for i, g in enumerate(groups):
        Group.objects.create(
            study=study, slug=g, name=f"Group {g}", target_per_item=target, position=i
        )
    ScreeningQuestion.objects.create(
        study=study,
        key="bg",
        prompt="Background?",
        position=0,
        options=[{"label": f"Option {g}", "group": g} for g in groups],
    )
    for t, kind in enumerate(kinds):
        task = Task.objects.create(
            study=study,
            slug=f"t{t}-{kind}",
            title=f"Task {kind}",
            kind=kind,
            per_participant=per_participant,
            position=t,
            instructions=f"Do the {kind} task.",
            dimensions=DIMENSIONS if kind == "rating" else [],
            guide=[{"label": "Style X", "description": "Means X"}] if kind == "choice" else [],
        )
        items = []
        for n in range(n_items + checks):
            fields: dict[str, Any] = {}
            opts = [
                {"text": f"opt{n}-{k}", "explanation": f"SECRET-EXPLANATION-{n}"} for k in range(4)
            ]
            if kind == "choice":
                fields = {"options": opts, "answer": {"answer": 2}}
            elif kind == "best_worst":
                fields = {"options": opts[:3], "answer": {"best": 0, "worst": 2}}
            elif kind == "multi":
                fields = {
                    "parts": [
                        {"key": "who", "prompt": "Who?", "options": opts},
                        {"key": "what", "prompt": "What?", "options": opts},
                    ],
                    "answer": {"who": 1, "what": 3},
                }
            else:
                fields = {"poem_text": f"床前明月光{n}\n疑是地上霜"}
            items.append(
                Item(
                    study=study,
                    task=task,
                    external_id=f"{task.slug}-{n:04d}",
                    stem=f"Stem {n}",
                    is_attention_check=n >= n_items and kind != "rating",
                    position=n,
                    **fields,
                )
            )
        Item.objects.bulk_create(items)
    return study


@pytest.fixture
def make_study(db: Any) -> Callable[..., Study]:
    return build_study


def enrol(study: Study, group: str | None = "A", **kwargs: Any) -> Participant:
    """A consented participant placed in ``group`` (through screening)."""
    p = services.participant_enrol(study=study, consent=True, **kwargs)
    if group is not None and p.group_id is None:
        slugs = [o["group"] for o in study.screening.get().options]
        p = services.participant_screen(participant=p, answers={"bg": slugs.index(group)})
    return p


def answer_for(
    kind: str, option_order: dict[str, list[int]], *, correct: bool = True
) -> dict[str, Any]:
    """Submit kwargs answering (in shown positions) canonically right, or wrong."""

    def shown(key: str, canonical: int) -> int:
        perm = option_order.get(key)
        return perm.index(canonical) if perm else canonical

    if kind == "choice":
        return {"answer": shown("answer", 2 if correct else 0)}
    if kind == "best_worst":
        return {"answer": {"best": shown("answer", 0), "worst": shown("answer", 2)}}
    if kind == "multi":
        return {"answer": {"who": shown("who", 1 if correct else 0), "what": shown("what", 3)}}
    return {"ratings": {"beauty": 4, "form": 2}}


def assert_counters_true() -> None:
    """`tallies_recount --check` over every study: each hand-kept counter (tallies, their
    covers, task counts) equals its recount. The concurrency tests end with it."""
    out = io.StringIO()
    call_command("tallies_recount", "--check", stdout=out)
    assert "all true" in out.getvalue()
