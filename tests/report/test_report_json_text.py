"""The report's JSON text: the same document as ``json.dumps``, one row per line."""

from __future__ import annotations

import json

import pytest

from scoring.report.writers import json_text


def test_json_text_is_the_same_document_with_one_row_per_line() -> None:
    data = {
        "study": "诗评",
        "generated_at": "2026-11-25T00:00:00Z",
        "settings": {"n_boot": 200, "by": ["source"], "tasks": []},
        "accuracy": [
            {"task": "ck", "rater_set": "组A", "accuracy": 0.1 + 0.2, "ci_low": None},
            {"task": "ck", "rater_set": "humans", "accuracy": 1e-17, "n": 3},
        ],
        "echo_chamber": [],
    }
    text = json_text(data)
    assert json.loads(text) == data
    assert len(text.splitlines()) == 10  # { , 3 keys, "accuracy": [, 2 rows, ], echo, }
    lines = text.splitlines()
    assert '  {"task": "ck", "rater_set": "组A", "accuracy": 0.30000000000000004, ' in lines[5]
    assert lines[-1] == "}" and ' "echo_chamber": []' in lines


def test_json_text_refuses_nan() -> None:
    with pytest.raises(ValueError):
        json_text({"accuracy": [{"value": float("nan")}]})
