"""Inputs the fuzzers found crashing the loaders, kept as plain examples: each is now a
clean refusal naming the line and the field."""

from __future__ import annotations

import json

import pytest

from studies.loading.problems import LoadError
from studies.loading.readers import Source
from tests.loading.helpers import loader, snapshot

llm_outputs_load = loader("llm_outputs")
responses_load = loader("responses")
pool_load = loader("pool")
study_load = loader("study")

pytestmark = pytest.mark.django_db
CK = {"id": "ck-9", "task": "ck", "stem": "问", "options": ["甲", "乙"], "answer": 0}
POEM = {"id": "q-9", "task": "quality", "poem": {"text": "春眠不觉晓"}}


def refused(load, content: bytes | str, name: str = "f.jsonl", **kw) -> list[tuple]:
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    source = Source(name, raw, name.rsplit(".", 1)[1])
    before = snapshot()
    with pytest.raises(LoadError) as err:
        load(source, **kw)
    assert snapshot() == before
    return [(p.line, p.field) for p in err.value.problems]


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("[" * 5000, (1, None)),  # nesting deeper than the JSON parser's stack
        (json.dumps({**CK, "stem": float("nan")}), (1, None)),  # NaN is not JSON
        ('{"id": "ck-9", "task": "ck", "stem": 1e400}', (1, None)),  # beyond float range
        (json.dumps({**CK, "stem": "a\x00b"}), (1, "stem")),  # PostgreSQL refuses NUL
        (json.dumps({**CK, "stem": "\ud800"}), (1, "stem")),  # not encodable as UTF-8
        (json.dumps({**CK, "answer": "²"}), (1, "answer")),  # isdigit() but not int()
        (json.dumps({**CK, "answer": "1" * 5000}), (1, "answer")),  # int() digit limit
        (json.dumps({**POEM, "poem": {"text": "春", "title": "题" * 301}}), (1, "poem.title")),
        (json.dumps({**POEM, "poem": {"text": "春", "form": "ci:" + "调" * 60}}), (1, "poem.form")),
        (
            json.dumps(
                {
                    "id": "au-9",
                    "task": "au",
                    "stem": "句",
                    "parts": [{"key": "k" * 65, "options": ["a", "b"]}],
                }
            ),
            (1, "parts[0].key"),
        ),
    ],
)
@pytest.mark.slow
def test_pool_lines_that_used_to_crash_are_refused(example_study, line: str, where: tuple) -> None:
    assert where in refused(pool_load, line, study=example_study)


def test_a_csv_cell_of_json_is_held_to_the_same_rules(example_study) -> None:
    csv = 'id,task,text,meta\nq-9,quality,春眠不觉晓,"{""a"": ""\\ud800""}"\n'
    assert (2, "meta.a") in refused(pool_load, csv, name="pool.csv", study=example_study)


@pytest.mark.parametrize(
    ("line", "where"),
    [
        (
            {
                "participant": "p",
                "group": "A",
                "item": "ck-001",
                "answer": 1,
                "answered_at": "2026-13-45T10:00:00Z",
            },
            (1, "answered_at"),
        ),
        (
            {"participant": "p", "group": "A", "item": "ck-001", "answer": 1, "time_ms": 10**30},
            (1, "time_ms"),
        ),
        ({"participant": "p", "group": "A", "item": "ck-001", "fields": "x"}, (1, "answer")),
        (
            {
                "participant": "p",
                "group": "A",
                "item": "poem-0001",
                "ratings": {"prosody": "-²", "aesthetic": 3},
            },
            (1, "prosody"),
        ),
    ],
)
def test_response_lines_that_used_to_crash_are_refused(example_study, line, where) -> None:
    assert where in refused(responses_load, json.dumps(line), study=example_study)


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ({"model": "m", "item": "ck-001", "answer": 1, "sample": 2**63}, (1, "sample")),
        ({"model": "m" * 201, "item": "ck-001", "answer": 1}, (1, "model")),
        ({"model": "m", "task": "ck", "accuracy": 10**400}, (1, "accuracy")),
        ({"model": "m", "task": "ck", "value": 1, "metric": {"a": 1}}, (1, "metric")),
    ],
)
def test_llm_output_lines_that_used_to_crash_are_refused(example_study, line, where) -> None:
    assert where in refused(llm_outputs_load, json.dumps(line), study=example_study)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("slug: s\ntitle: t\nwhen: 2001-12-14\n", (3, "when")),  # a YAML date is no text
        ("slug: s\ntitle: t\nloop: &a [*a]\n", (3, "loop")),  # contains itself
        ("slug: s\ntitle: t\ntasks: [{slug: t, title: t, kind: [choice]}]\n", (3, "tasks[0].kind")),
        ("slug: s\ntitle: t\nsettings: [1]\n", (3, "settings")),
        ("slug: s\ntitle: " + "长" * 301 + "\n", (2, "title")),
        (
            "slug: s\ntitle: t\ngroups: [{slug: g}]\ntasks: [{slug: t, title: t, kind: choice, "
            "per_participant: 9999999999999}]\n",
            (4, "tasks[0].per_participant"),
        ),
    ],
)
def test_study_files_that_used_to_crash_are_refused(db, text: str, where: tuple) -> None:
    assert where in refused(study_load, text, name="study.yaml")
