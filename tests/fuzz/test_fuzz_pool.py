"""Hostile question pools (JSONL and CSV): a clean load or a LoadError, never a traceback,
and a rejected file leaves every table as it was."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studies.loading.pool import ITEM_KEYS
from studies.loading.readers import Source
from tests.fuzz.strategies import (
    FUZZ,
    NASTY_TEXT,
    NUMBERS,
    assert_loads_or_rejects,
    csv_rows,
    either,
    fixture_records,
    hostile_bytes,
    jsonl,
    mutants,
    record,
)
from tests.loading.helpers import loader

pytestmark = pytest.mark.django_db
pool_load = loader("pool")
TEXT = st.one_of(NASTY_TEXT, st.text(max_size=10))
INDEX = st.one_of(NUMBERS, TEXT)
OPTIONS = st.lists(either(TEXT), max_size=11)
POEM = record(
    {"title": TEXT, "author": TEXT, "form": TEXT, "text": TEXT, "source": TEXT, "condition": TEXT}
)
PART = record({"key": TEXT, "prompt": TEXT, "options": OPTIONS, "answer": INDEX})
ITEM = record(
    {
        "id": TEXT,
        "task": st.sampled_from(["ck", "au", "oq", "quality", "zz"]),
        "stem": TEXT,
        "options": OPTIONS,
        "answer": st.one_of(INDEX, record({"best": INDEX, "worst": INDEX})),
        "parts": st.lists(PART, max_size=3),
        "poem": POEM,
        "meta": record({"explanation": TEXT}),
        "attention_check": st.booleans(),
    }
)
MUTANT = mutants(fixture_records("pool.jsonl"), sorted(ITEM_KEYS))
CSV_HEADER = [
    "id",
    "task",
    "stem",
    "option_a",
    "option_b",
    "option_c",
    "answer",
    "text",
    "title",
    "author",
    "form",
    "source",
    "condition",
    "meta",
    "parts",
    "explanation",
    "attention_check",
]
PARTS = '[{"key": "person", "prompt": "人", "options": ["甲", "乙"], "answer": 1}]'
CSV_ROWS = [
    ["ck-9", "ck", "问", "甲", "乙", "丙", "B", "", "", "", "", "", "", "", "", "解释", ""],
    [
        "q-9",
        "quality",
        "",
        "",
        "",
        "",
        "",
        "春雨",
        "题",
        "佚名",
        "ci:如梦令",
        "human",
        "",
        "{}",
        "",
        "",
        "0",
    ],
    ["au-9", "au", "句", "", "", "", "", "", "", "", "", "", "", "", PARTS, "", "true"],
]


@pytest.mark.slow
@FUZZ
@given(content=jsonl(MUTANT))
def test_jsonl_pool_with_hostile_values_loads_or_is_rejected_cleanly(
    example_study, content: bytes
) -> None:
    source = Source("pool.jsonl", content, "jsonl")
    assert_loads_or_rejects(lambda: pool_load(source, study=example_study))


@pytest.mark.slow
@FUZZ
@given(content=jsonl(ITEM))
def test_jsonl_pool_of_random_records_loads_or_is_rejected_cleanly(
    example_study, content: bytes
) -> None:
    source = Source("pool.jsonl", content, "jsonl")
    assert_loads_or_rejects(lambda: pool_load(source, study=example_study))


@pytest.mark.slow
@FUZZ
@given(content=csv_rows(CSV_HEADER, CSV_ROWS))
def test_csv_pool_with_hostile_cells_loads_or_is_rejected_cleanly(
    example_study, content: bytes
) -> None:
    source = Source("pool.csv", content, "csv")
    assert_loads_or_rejects(lambda: pool_load(source, study=example_study))


@pytest.mark.slow
@FUZZ
@given(content=hostile_bytes(), fmt=st.sampled_from(["jsonl", "csv"]))
def test_any_bytes_as_a_pool_are_rejected_cleanly(example_study, content: bytes, fmt: str) -> None:
    source = Source(f"pool.{fmt}", content, fmt)
    assert_loads_or_rejects(lambda: pool_load(source, study=example_study))
