"""Hostile files for the offline commands: the ``prosody`` command's poem file and the
``agreement`` command's rating table. Either a result or a clean error naming the line,
never a traceback."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given
from hypothesis import strategies as st

from scoring.agreement import parse_cell
from tests.fuzz.strategies import FUZZ, NASTY_TEXT, csv_rows, hostile_bytes, jsonl, mutants

POEMS: list[dict[str, Any]] = [
    {
        "id": "p1",
        "form": "ci:如梦令",
        "text": "昨夜雨疏风骤，\n浓睡不消残酒。\n试问卷帘人，\n"
        "却道海棠依旧。\n知否，知否？\n应是绿肥红瘦。",
    },
    {"id": "p2", "form": "shi:jueju5", "text": "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"},
    {"id": 3, "form": "", "text": "床前明月光，疑是地上霜。举头望明月，低头思故乡。"},
    {"id": "p4", "form": "couplet", "text": "风声雨声读书声声声入耳\n家事国事天下事事事关心"},
]
POEM_ROWS = [[str(p["id"]), str(p["form"]), str(p["text"])] for p in POEMS]
LONG_ROWS = [["u1", "r1", "3"], ["u1", "r2", "4"], ["u2", "r1", "NA"], ["u2", "r2", "2.5"]]
WIDE_ROWS = [["u1", "3", "4", "."], ["u2", "2", "", "5"], ["u3", "好", "1", "-"]]


def write(tmp_path_factory: pytest.TempPathFactory, name: str, content: bytes) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_bytes(content)
    return path


def run_prosody(path: Path) -> None:
    try:
        call_command("prosody", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    except CommandError as exc:
        assert "nothing was scored" in str(exc) or "cannot read" in str(exc)


@FUZZ
@given(content=st.one_of(jsonl(mutants(POEMS, ["id", "form", "text"])), hostile_bytes()))
def test_prosody_command_scores_or_refuses_any_jsonl(tmp_path_factory, content: bytes) -> None:
    run_prosody(write(tmp_path_factory, "poems.jsonl", content))


@pytest.mark.slow
@FUZZ
@given(content=st.one_of(csv_rows(["id", "form", "text"], POEM_ROWS), hostile_bytes()))
def test_prosody_command_scores_or_refuses_any_csv(tmp_path_factory, content: bytes) -> None:
    run_prosody(write(tmp_path_factory, "poems.csv", content))


@FUZZ
@given(
    content=st.one_of(
        csv_rows(["unit", "rater", "value"], LONG_ROWS),
        csv_rows(["unit", "ann", "bo", "chen"], WIDE_ROWS),
        hostile_bytes(),
    ),
    level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
)
def test_rating_table_reader_reads_or_refuses_any_file(
    tmp_path_factory, content: bytes, level: str
) -> None:
    from scoring.agreement.ratings_file import RatingFileError, read_rating_file

    path = write(tmp_path_factory, "ratings.csv", content)
    try:
        parsed = read_rating_file(path, level=level, domain=None)
    except RatingFileError as exc:
        assert str(exc)
    else:
        assert parsed.shape in ("long", "wide")


@FUZZ
@given(text=st.one_of(st.none(), st.text(), NASTY_TEXT))
def test_parse_cell_gives_missing_a_number_or_the_text(text: str | None) -> None:
    value = parse_cell(text)
    assert value is None or isinstance(value, int | float | str)
    if isinstance(value, float):
        assert math.isfinite(value)
