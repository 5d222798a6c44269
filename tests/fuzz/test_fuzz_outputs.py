"""Hostile LLM outputs (JSONL) and human responses (JSONL, CSV in the export's shape):
a clean load or a LoadError, never a traceback; a rejected file changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.exports import COLUMNS
from studies.loading.readers import Source
from tests.fuzz.strategies import (
    FUZZ,
    assert_loads_or_rejects,
    csv_rows,
    fixture_records,
    hostile_bytes,
    jsonl,
    mutants,
)
from tests.loading.helpers import loader

llm_outputs_load = loader("llm_outputs")
responses_load = loader("responses")

pytestmark = pytest.mark.django_db
LLM_KEYS = [
    "model",
    "run",
    "sample",
    "raw",
    "item",
    "answer",
    "ratings",
    "generation",
    "task",
    "accuracy",
    "value",
    "metric",
    "n",
    "source",
]
LLM = mutants(fixture_records("llm_outputs.jsonl"), LLM_KEYS)
RESPONSE_KEYS = [
    "participant",
    "group",
    "item",
    "answer",
    "ratings",
    "time_ms",
    "answered_at",
    "correct",
    "fields",
]
RESPONSE = mutants(fixture_records("responses.jsonl"), RESPONSE_KEYS)
EXPORT_ROWS = [
    [
        "s",
        "ck",
        "ck-001",
        "human",
        "p-1",
        "",
        "A",
        "answer",
        "1",
        "true",
        "5300",
        "0",
        "2026-11-20T10:15:00Z",
    ],
    ["s", "quality", "poem-0001", "human", "p-1", "", "A", "prosody", "4", "", "", "0", ""],
    ["s", "quality", "poem-0001", "human", "p-1", "", "A", "aesthetic", "3", "", "", "0", ""],
    ["s", "oq", "oq-005", "model", "gpt", "r1", "", "best", "0", "", "", "0", ""],
]


@pytest.mark.slow
@FUZZ
@given(content=jsonl(LLM))
def test_llm_outputs_with_hostile_values_load_or_are_rejected_cleanly(
    example_study, content: bytes
) -> None:
    source = Source("llm.jsonl", content, "jsonl")
    assert_loads_or_rejects(lambda: llm_outputs_load(source, study=example_study))


@pytest.mark.slow
@FUZZ
@given(content=jsonl(RESPONSE))
def test_jsonl_responses_with_hostile_values_load_or_are_rejected_cleanly(
    example_study, content: bytes
) -> None:
    source = Source("responses.jsonl", content, "jsonl")
    assert_loads_or_rejects(lambda: responses_load(source, study=example_study))


@pytest.mark.slow
@FUZZ
@given(content=csv_rows(list(COLUMNS), EXPORT_ROWS))
def test_csv_responses_with_hostile_cells_load_or_are_rejected_cleanly(
    example_study, content: bytes
) -> None:
    source = Source("responses.csv", content, "csv")
    assert_loads_or_rejects(lambda: responses_load(source, study=example_study))


@pytest.mark.slow
@FUZZ
@given(content=hostile_bytes(), fmt=st.sampled_from(["jsonl", "csv"]), llm=st.booleans())
def test_any_bytes_as_outputs_or_responses_are_rejected_cleanly(
    example_study, content: bytes, fmt: str, llm: bool
) -> None:
    source = Source(f"f.{fmt}", content, fmt)
    load = llm_outputs_load if llm else responses_load
    assert_loads_or_rejects(lambda: load(source, study=example_study))
