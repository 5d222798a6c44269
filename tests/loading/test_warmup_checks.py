"""Attention checks have no place in practice or qualification tasks (whose answers are
never counted): the pool loader refuses one at its line and field, in English and in
Chinese, and so does a study file that makes a task holding one its warm-up task."""

from __future__ import annotations

import json
from typing import Any

import pytest

from studies.loading.problems import LoadError, Problem
from studies.loading.readers import Source
from studies.models import Item, Study
from tests.loading.helpers import loader

pytestmark = pytest.mark.django_db

STUDY: dict[str, Any] = {
    "slug": "warm-checks",
    "title": "练习与资格测试",
    "groups": [{"slug": "A", "name": "一般读者"}, {"slug": "C", "name": "资深读者"}],
    "tasks": [
        {"slug": "warm", "title": "练习", "kind": "choice"},
        {"slug": "qual", "title": "资格测试", "kind": "choice"},
        {"slug": "ck", "title": "文化常识", "kind": "choice", "per_participant": 2},
    ],
    "practice": {"task": "warm"},
    "qualification": {"task": "qual", "routes": [{"min_score": 1, "group": "C"}]},
}


def line(ext: str, task: str, check: bool = False) -> str:
    row: dict[str, Any] = {
        "id": ext,
        "task": task,
        "stem": f"{ext}？",
        "options": ["甲", "乙"],
        "answer": 0,
    }
    if check:
        row["attention_check"] = True
    return json.dumps(row, ensure_ascii=False)


def load(kind: str, name: str, text: str, **kwargs: Any) -> Any:
    return loader(kind)(Source(name, text.encode(), name.rsplit(".", 1)[1]), **kwargs)


def problems(kind: str, name: str, text: str, **kwargs: Any) -> list[Problem]:
    with pytest.raises(LoadError) as caught:
        load(kind, name, text, **kwargs)
    return caught.value.problems


def study(data: dict[str, Any] = STUDY) -> Study:
    load("study", "study.json", json.dumps(data, ensure_ascii=False))
    return Study.objects.get(slug="warm-checks")


def test_the_pool_loader_refuses_checks_in_practice_and_qualification() -> None:
    s = study()
    pool = "\n".join(
        [
            line("w-1", "warm"),
            line("w-2", "warm", check=True),
            line("q-1", "qual", check=True),
            line("ck-1", "ck", check=True),  # a check among the questions: fine
        ]
    )
    found = problems("pool", "pool.jsonl", pool, study=s)
    assert [(p.file, p.line, p.field) for p in found] == [
        ("pool.jsonl", 2, "attention_check"),
        ("pool.jsonl", 3, "attention_check"),
    ]
    assert "'warm' is the study's practice task" in found[0].message
    assert "cannot hold attention checks" in found[0].message
    assert "'qual' is the study's qualification task" in found[1].message
    assert "不能包含注意力检查题" in found[0].translations["zh-hans"]
    assert "pool.jsonl" in str(found[0]) and "2" in str(found[0])
    assert not Item.objects.filter(study=s).exists()  # all or nothing


def test_the_same_pool_without_the_warmup_checks_loads() -> None:
    s = study()
    pool = "\n".join([line("w-1", "warm"), line("q-1", "qual"), line("ck-1", "ck", check=True)])
    load("pool", "pool.jsonl", pool, study=s)
    assert list(
        Item.objects.filter(study=s, is_attention_check=True).values_list("external_id", flat=True)
    ) == ["ck-1"]


def test_a_study_file_cannot_make_a_task_with_checks_its_practice() -> None:
    plain = {k: v for k, v in STUDY.items() if k not in ("practice", "qualification")}
    s = study(plain)
    load("pool", "pool.jsonl", "\n".join([line("w-1", "warm"), line("w-2", "warm", True)]), study=s)
    found = problems("study", "study.json", json.dumps(STUDY, ensure_ascii=False))
    assert [(p.file, p.field) for p in found] == [("study.json", "practice.task")]
    assert "item 'w-2' is one" in found[0].message
    assert "题目 'w-2' 就是一道注意力检查题" in found[0].translations["zh-hans"]
    s.refresh_from_db()
    assert s.practice_task == ""  # refused as a whole


def test_the_admin_refuses_a_warm_up_task_that_holds_a_check() -> None:
    """The same rule where an editor sets the practice or qualification task in the
    admin (the study's change form), named on the field, in the page's language."""
    from django.forms import modelform_factory
    from django.utils import translation

    from studies.admin import StudyAdmin
    from studies.admin_forms import StudyForm

    without = {k: v for k, v in STUDY.items() if k not in ("practice", "qualification")}
    s = study(without)
    load(
        "pool",
        "pool.jsonl",
        "\n".join([line("w1", "warm"), line("ck1", "ck", check=True)]),
        study=s,
    )
    assert StudyAdmin.form is StudyForm
    fields = ["practice_task", "qualification"]
    form_class = modelform_factory(Study, form=StudyForm, fields=fields)
    fine = form_class({"practice_task": "warm", "qualification": "{}"}, instance=s)
    assert fine.is_valid(), fine.errors
    with translation.override("zh-hans"):
        bad = form_class({"practice_task": "ck", "qualification": "{}"}, instance=s)
        assert not bad.is_valid() and list(bad.errors) == ["practice_task"]
        message = bad.errors["practice_task"][0]
        assert "'ck'" in message and "'ck1'" in message and "注意力检查" in message
    routes = '{"task": "ck", "routes": [{"min_score": 1, "group": "C"}]}'
    bad = form_class({"practice_task": "warm", "qualification": routes}, instance=s)
    assert not bad.is_valid() and list(bad.errors) == ["qualification"]
