"""Rater-set names are taken apart in one place (``sets.show_set_name``): the paper tables'
``Names`` and the dashboard's ``Labels`` give the same parts their own words. The expected
texts are written out by hand from formats.md §5's grammar."""

from __future__ import annotations

import pytest

from scoring.report.paper import Names
from scoring.report.sets import SetName, show_model, show_set_name

NAMES = Names(groups={"A": "初中及以下"})


def _raw(name: SetName) -> str:
    return f"<{name.kind}|{name.key}>"


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("humans", "<humans|>"),
        ("key", "<key|>"),
        ("group:A", "<group|A>"),
        ("model:qwen@direct", "<model|qwen@direct>"),
        ("rule:prosody:modern", "<rule|prosody:modern>"),
        ("humans+model:qwen", "<humans|> + <model|qwen>"),
        ("group:A majority", "[<group|A>; majority]"),
        ("humans mean", "[<humans|>; mean]"),
        ("group:A mean majority", "[[<group|A>; mean]; majority]"),
        ("meanwhile", "<meanwhile|>"),
    ],
)
def test_a_name_is_taken_apart_into_its_parts(name: str, parts: str) -> None:
    assert show_set_name(name, _raw, lambda shown, suffix: f"[{shown}; {suffix}]") == parts


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("group:A", "初中及以下"),
        ("group:B", "B"),
        ("model:qwen@direct", "qwen (direct)"),
        ("model:gpt-4o", "gpt-4o"),
        ("humans+model:qwen@direct", "humans + qwen (direct)"),
        ("group:A majority", "初中及以下 majority"),
        ("humans mean", "humans mean"),
        ("rule:prosody:modern", "rule:prosody:modern"),
        ("key", "key"),
    ],
)
def test_the_paper_tables_name_groups_and_models_and_keep_the_rest(name: str, shown: str) -> None:
    assert NAMES.rater_set(name) == shown


def test_a_model_is_shown_the_same_with_or_without_its_prefix() -> None:
    assert show_model("model:qwen@direct") == show_model("qwen@direct") == "qwen (direct)"
    assert show_model("gpt-4o") == "gpt-4o"
