"""The seam: a kind made up here ("pair": which of two poems is better), registered
for one test, goes through the same calls as the four real ones — the pool loader's
line reading, the answer rule, the shuffle, the question's presentation."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from annotation import assignment as strategy
from annotation.models import Assignment
from annotation.selectors import item_presentation
from studies import kinds
from studies.kinds import Content, Display, FieldSpec, Kind, Parsed, parse_answer
from studies.loading.pool import parse_item
from studies.loading.problems import Collector
from studies.models import Item, Study, Task
from studies.values import Report, in_english, parse_index, parse_options


@dataclass(frozen=True)
class Pair(Kind):
    slug = "pair"
    wrong_payload = "a pair is answered with 'answer'"
    bare_field = "better"
    headline = "better"
    display = Display(poems=True)

    def field_specs(self, item: Item, task: Task) -> list[FieldSpec]:
        return [FieldSpec("better", options=item.options, options_key="poems")]

    def option_lists(self, *, n_options: int, parts: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        return {"poems": n_options}

    def options_key(self, field_name: str) -> str | None:
        return "poems"

    def parse_content(self, data: Mapping[str, Any], report: Report, *, has_text: bool) -> Content:
        options = parse_options(data.get("options"), report, "options", minimum=2) or []
        if len(options) > 2:
            report.error("options", "a pair has two poems")
        return Content(options=options)

    def check(self, item: Item, task: Task, given: Any, out: Parsed) -> None:
        index = parse_index(given, len(item.options), out, "better")
        if index is not None:
            out.values["better"] = index


@pytest.fixture
def pair(monkeypatch: pytest.MonkeyPatch) -> Task:
    monkeypatch.setitem(kinds.KINDS, "pair", Pair())
    return Task(pk=5, slug="pair", kind="pair")


def test_a_new_kind_reads_its_pool_lines_through_the_pool_loader(pair: Task) -> None:
    collector = Collector("pool.jsonl")
    line = {"id": "p1", "task": "pair", "stem": "哪首更好？", "options": ["甲", "乙"]}
    values = parse_item(line, {"pair": pair}, collector.at(1))
    assert collector.problems == [] and values is not None
    assert values["options"] == [{"text": "甲"}, {"text": "乙"}] and values["task_id"] == 5
    parse_item({**line, "options": ["甲", "乙", "丙"]}, {"pair": pair}, collector.at(2))
    assert [str(p) for p in collector.problems] == [
        "pool.jsonl, line 2, field 'options': a pair has two poems"
    ]


def test_a_new_kind_is_checked_by_the_one_answer_rule(pair: Task) -> None:
    item = Item(options=[{"text": "甲"}, {"text": "乙"}])
    assert parse_answer(item, pair, answer="B").values == {"better": 1}
    wrong = parse_answer(item, pair, answer=2)
    assert [(f, in_english(m)) for f, m in wrong.errors] == [
        ("better", "option 2 is out of range: there are 2 options")
    ]
    assert parse_answer(item, pair, ratings={"x": 1}).errors == [
        ("ratings", "a pair is answered with 'answer'")
    ]


def test_a_new_kind_is_shuffled_and_shown_through_the_same_calls(pair: Task) -> None:
    item = Item(options=[{"text": "甲"}, {"text": "乙"}])
    order = strategy.option_order("pair", n_options=2, parts=[], shuffle=True, rng=random.Random(0))
    assert sorted(order["poems"]) == [0, 1]
    assert strategy.to_canonical("pair", order, 0) == order["poems"][0]
    a = Assignment(item=item, task=pair, option_order={"poems": [1, 0]})
    shown = item_presentation(a, study=Study())
    assert shown["fields"] == [
        {
            "key": "better",
            "prompt": "",
            "options": [{"position": 0, "text": "乙"}, {"position": 1, "text": "甲"}],
        }
    ]
