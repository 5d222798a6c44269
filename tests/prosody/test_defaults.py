"""Classical tones are the default of every interface of the pure package; modern only
when asked (issue 22, item 6).

王之涣《登鹳雀楼》: 白 and 一 are 入声 (仄) in 平水韵 but bái / yī (平) today, so the two
systems read the poem differently and the default is visible in every result.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.prosody import char_tones, score_poem
from scoring.prosody.batch import main as batch_main
from scoring.prosody.batch import score_rows
from scoring.prosody.cli import main as cli_main

POEM = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"


def test_score_poem_reads_classical_tones_unless_asked() -> None:
    default = score_poem(POEM, "shi:jueju5")
    assert default.tone_system == "classical"
    assert default.to_dict() == score_poem(POEM, "shi:jueju5", tone_system="classical").to_dict()
    modern = score_poem(POEM, "shi:jueju5", tone_system="modern")
    assert modern.tone_system == "modern"
    assert default.diagnostics["lines"][0]["tones"][0] == "仄"  # 白, 入声
    assert modern.diagnostics["lines"][0]["tones"][0] == "平"  # bái


def test_ci_and_couplets_default_to_classical_too() -> None:
    ci = score_poem("常记溪亭日暮，沉醉不知归路。", "ci:如梦令")
    couplet = score_poem("白日依山尽\n黄河入海流", "couplet")
    assert (ci.tone_system, couplet.tone_system) == ("classical", "classical")


def test_the_ccv_mode_keeps_the_benchmark_s_modern_reading() -> None:
    assert score_poem(POEM, "shi:jueju5", ccv_compatible=True).tone_system == "modern"


def test_char_tones_default_to_classical() -> None:
    assert [t.tone for t in char_tones("白一")] == ["仄", "仄"]
    assert [t.tone for t in char_tones("白一", tone_system="modern")] == ["平", "平"]


def test_batch_scoring_defaults_to_classical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = list(score_rows([{"id": "1", "form": "shi:jueju5", "text": POEM}]))
    assert rows[0]["tone_system"] == "classical"
    src = tmp_path / "poems.jsonl"
    src.write_text(json.dumps({"id": "1", "form": "shi:jueju5", "text": POEM}) + "\n", "utf-8")
    assert batch_main([str(src)]) == 0
    assert json.loads(capsys.readouterr().out)["tone_system"] == "classical"
    assert batch_main([str(src), "--tone-system", "modern"]) == 0
    assert json.loads(capsys.readouterr().out)["tone_system"] == "modern"


def test_the_command_line_tool_defaults_to_classical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "poems.jsonl"
    src.write_text(json.dumps({"id": "1", "form": "shi:jueju5", "text": POEM}) + "\n", "utf-8")
    assert cli_main([str(src)]) == 0
    assert json.loads(capsys.readouterr().out)["tone_system"] == "classical"
    assert cli_main([str(src), "--tone-system", "modern"]) == 0
    assert json.loads(capsys.readouterr().out)["tone_system"] == "modern"
