"""The kinds registry (studies.kinds): each kind declares its fields, how a pool line and
an answer are read, which option lists are shuffled, how it is shown and scored."""

from __future__ import annotations

import random
from typing import Any

import pytest

from annotation import assignment as strategy
from studies.kinds import ALL_PARTS, KINDS, Parsed, kind_of, parse_answer
from studies.loading.problems import Collector
from studies.models import Item, Task
from studies.values import in_english

DIMENSIONS = [
    {"key": "beauty", "label": "Beauty", "min": 1, "max": 5},
    {"key": "form", "min": 0, "max": 3},
]
OPTIONS = [{"text": t} for t in ("甲", "乙", "丙", "丁")]
PARTS = [
    {"key": "who", "prompt": "Who?", "options": OPTIONS},
    {"key": "what", "prompt": "What?", "options": OPTIONS[:3]},
]


def task(kind: str) -> Task:
    return Task(slug=kind, kind=kind, dimensions=DIMENSIONS if kind == "rating" else [])


def item(kind: str) -> Item:
    return Item(
        options=[] if kind in ("multi", "rating") else OPTIONS,
        parts=PARTS if kind == "multi" else [],
    )


def errors(parsed: Parsed) -> dict[str, str]:
    return {name: in_english(message) for name, message in parsed.errors}


def test_every_task_kind_is_declared_once() -> None:
    assert set(KINDS) == {k.value for k in Task.Kind}
    assert all(KINDS[slug].slug == slug for slug in KINDS)
    assert kind_of(task("multi")) is KINDS["multi"]


def test_kinds_are_frozen() -> None:
    with pytest.raises(AttributeError):
        KINDS["choice"].slug = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("choice", ["answer"]),
        ("best_worst", ["best", "worst"]),
        ("multi", ["who", "what"]),
        ("rating", ["beauty", "form"]),
    ],
)
def test_each_kind_names_the_fields_an_item_asks(kind: str, fields: list[str]) -> None:
    assert KINDS[kind].fields(item(kind), task(kind)) == fields


@pytest.mark.parametrize(
    ("kind", "given", "values"),
    [
        ("choice", {"answer": "B"}, {"answer": 1}),
        ("choice", {"answer": {"answer": 3}}, {"answer": 3}),
        ("best_worst", {"answer": {"best": "a", "worst": 3}}, {"best": 0, "worst": 3}),
        ("multi", {"answer": {"who": 3, "what": "2"}}, {"who": 3, "what": 2}),
        ("rating", {"ratings": {"beauty": "5", "form": 0}}, {"beauty": 5, "form": 0}),
    ],
)
def test_the_answer_rule_reads_every_kind(kind: str, given: dict[str, Any], values: dict) -> None:
    parsed = parse_answer(item(kind), task(kind), **given)
    assert parsed.errors == [] and parsed.values == values


@pytest.mark.parametrize(
    ("kind", "given", "expected"),
    [
        ("choice", {"answer": 4}, {"answer": "option 4 is out of range: there are 4 options"}),
        (
            "choice",
            {"answer": "Z"},
            {"answer": "'Z' is not an option index (0-based number or letter A-D)"},
        ),
        ("choice", {"answer": None}, {"answer": "is missing: choose an option"}),
        (
            "choice",
            {"ratings": {"beauty": 1}},
            {"ratings": "this item is a question: give 'answer', not 'ratings'"},
        ),
        (
            "best_worst",
            {"answer": {"best": 1, "worst": 1}},
            {"worst": "best and worst must be different options"},
        ),
        ("best_worst", {"answer": {"best": 1}}, {"answer": 'must be {"best": i, "worst": j}'}),
        (
            "multi",
            {"answer": {"who": 0, "how": 1}},
            {
                "how": "'how' is not a part of this question (who, what)",
                "what": "is missing: choose an option",
            },
        ),
        (
            "multi",
            {"answer": 0},
            {"answer": "must be an object with a choice for each part: who, what"},
        ),
        (
            "rating",
            {"ratings": {"beauty": 6, "form": ""}},
            {"beauty": "6 is outside the scale 1–5", "form": "is missing: choose a rating"},
        ),
        (
            "rating",
            {"ratings": {"beauty": 2.5, "form": 1, "x": 1}},
            {
                "beauty": "2.5 is not a whole number",
                "x": "'x' is not a dimension of this task (beauty, form)",
            },
        ),
        (
            "rating",
            {"answer": 1},
            {"answer": "this is a rating item: give 'ratings', not 'answer'"},
        ),
    ],
)
def test_the_answer_rule_names_the_field_of_each_problem(
    kind: str, given: dict[str, Any], expected: dict[str, str]
) -> None:
    parsed = parse_answer(item(kind), task(kind), **given)
    assert errors(parsed) == expected and parsed.values.keys().isdisjoint(expected)


def pool_line(kind: str, data: dict[str, Any]) -> tuple[Any, list[str]]:
    collector = Collector("pool.jsonl")
    content = KINDS[kind].parse_content(data, collector.at(7), has_text=True)
    return content, [str(p) for p in collector.problems]


def test_each_kind_reads_its_pool_line() -> None:
    content, problems = pool_line("choice", {"options": ["甲", "乙", "丙"], "answer": "C"})
    assert (
        problems == [] and content.options[2] == {"text": "丙"} and content.answer == {"answer": 2}
    )
    content, problems = pool_line(
        "best_worst", {"options": ["一", "二"], "answer": {"best": 1, "worst": 0}}
    )
    assert problems == [] and content.answer == {"best": 1, "worst": 0} and content.parts == []
    content, problems = pool_line(
        "multi", {"parts": [{"key": "who", "options": ["甲", "乙"], "answer": 1}]}
    )
    assert problems == [] and content.parts[0]["prompt"] == "who" and content.answer == {"who": 1}
    content, problems = pool_line("rating", {})
    assert problems == [] and (content.options, content.parts, content.answer) == ([], [], None)


def test_pool_line_problems_name_file_line_and_field_in_english() -> None:
    _, problems = pool_line(
        "best_worst", {"options": ["一", "二"], "answer": {"best": 1, "worst": 1}}
    )
    assert problems == [
        "pool.jsonl, line 7, field 'answer': best and worst must be different options"
    ]
    _, problems = pool_line("rating", {"options": ["一", "二"]})
    assert problems == [
        "pool.jsonl, line 7, field 'options': rating items have no options "
        "(they are rated on the task's dimensions)"
    ]
    collector = Collector("pool.jsonl")
    KINDS["choice"].parse_content({"options": ["甲", "乙"]}, collector.at(3), has_text=False)
    assert [str(p) for p in collector.problems] == [
        "pool.jsonl, line 3, field 'stem': a question needs a stem or a poem"
    ]


@pytest.mark.parametrize("kind", ["choice", "best_worst", "multi"])
def test_every_shown_position_maps_back_to_the_option_shown_there(kind: str) -> None:
    it, t = item(kind), task(kind)
    declared = KINDS[kind]
    order = strategy.option_order(
        kind, n_options=len(it.options), parts=it.parts, shuffle=True, rng=random.Random(3)
    )
    assert set(order) == set(declared.option_lists(n_options=len(it.options), parts=it.parts))
    for spec in declared.field_specs(it, t):
        shown = strategy.shown(order, spec.options_key, len(spec.options))
        assert sorted(shown) == list(range(len(spec.options)))
        for position, canonical in enumerate(shown):
            answer = {spec.key: position}
            assert strategy.to_canonical(kind, order, answer) == {spec.key: canonical}


def test_a_rating_has_no_option_lists_and_passes_through_the_shuffle() -> None:
    assert (
        strategy.option_order("rating", n_options=0, parts=[], shuffle=True, rng=random.Random(1))
        == {}
    )
    assert strategy.to_canonical("rating", {}, {"beauty": 3}) == {"beauty": 3}


def test_what_all_parts_right_means_for_the_report() -> None:
    """Multi-part and best/worst items add the field "*" (every keyed part right); the
    dashboard's headline accuracy is that field, the single answer, or none (ratings)."""
    assert {k: (KINDS[k].all_parts, KINDS[k].headline) for k in KINDS} == {
        "choice": (False, "answer"),
        "multi": (True, ALL_PARTS),
        "best_worst": (True, ALL_PARTS),
        "rating": (False, None),
    }
    assert [k for k in KINDS if KINDS[k].scale] == ["rating"]


def test_how_each_kind_is_shown() -> None:
    assert KINDS["best_worst"].display.poems and KINDS["best_worst"].distinct == ("best", "worst")
    assert KINDS["rating"].display.template == "annotation/fields/scale.html"
    assert KINDS["rating"].display.css == "scale"
    assert in_english(KINDS["choice"].legend("answer", "")) == "Your answer"
    assert in_english(KINDS["best_worst"].legend("worst", "")) == "Which poem is the worst?"
    assert KINDS["multi"].legend("who", "Who?") == "Who?"


@pytest.mark.parametrize(
    ("kind", "fields", "payload"),
    [
        ("choice", {"answer": "2", "other": "1"}, "2"),
        ("best_worst", {"best": "0", "worst": None}, {"best": "0", "worst": None}),
        ("rating", {"beauty": "4"}, {"beauty": "4"}),
    ],
)
def test_an_answer_given_field_by_field_takes_the_rules_shape(
    kind: str, fields: dict, payload: Any
) -> None:
    assert KINDS[kind].answer_from_fields(fields) == payload
