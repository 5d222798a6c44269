"""Probe (issue 22): a hostile tester's inputs through ``score_poem`` and ``char_tones``.

Found: a misspelt ``tone_system`` (``"classic"``, ``"Classical"``) was accepted silently and
scored under a mixture of both systems (some steps test ``== "modern"``, others
``== "classical"``), stored under the misspelt name.  It now raises ValueError, as a bad
``cipu_source`` does.  The rest pins what already held: no crash, the same scores as the
clean text for invisible or decorative characters, a named error for no poem.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.prosody import char_tones, score_poem

JING_YE_SI = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
# 白 is 入声 (仄) classically and bái (平) in modern Mandarin: the two systems differ here
BAI = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"


@pytest.mark.parametrize("bad", ["classic", "Classical", "ccv", ""])
def test_a_misspelt_tone_system_raises(bad: str) -> None:
    with pytest.raises(ValueError, match="tone_system"):
        score_poem(BAI, None, tone_system=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one of classical, modern"):
        char_tones("白日依山尽", tone_system=bad)  # type: ignore[arg-type]


def test_the_two_systems_still_differ_on_bai() -> None:
    assert char_tones("白日", tone_system="classical")[0].tone == "仄"
    assert char_tones("白日", tone_system="modern")[0].tone == "平"


@pytest.mark.parametrize(
    "noisy",
    [
        "床前明月光🌙，疑是地上霜❄️。举头望明月😊，低头思故乡🏠。",  # emoji
        "床前明🌙月光，疑是地上霜。举头望明月，低头思故乡。",  # emoji inside a line
        "床前明月光\u200b，疑是地上霜。举头望\u200d明月，低头思故乡。",  # zero-width
        "\u202e床前明月光，疑是地上霜。举头望明月，低头思故乡。",  # bidi override
        "床前明月光\x00，疑是地上霜。举头望明月，低头思故乡。",  # NUL
        "床前明月光,疑是地上霜.举头望明月,低头思故乡.",  # ASCII punctuation
        "床前明月光\r\n疑是地上霜\r\n举头望明月\r\n低头思故乡",  # CRLF, no punctuation
        "床前明月光疑是地上霜举头望明月低头思故乡",  # run together
    ],
)
def test_decoration_does_not_change_the_score(noisy: str) -> None:
    clean = score_poem(JING_YE_SI, None)
    s = score_poem(noisy, None)
    assert s.form == clean.form == "shi:jueju5"
    assert s.metrics == clean.metrics


@pytest.mark.parametrize("text", ["", "   \n ", "，。！？、；：……——《》", "hello, world"])
def test_no_poem_is_named(text: str) -> None:
    s = score_poem(text, None)
    assert s.form is None and s.metrics == {}
    assert s.diagnostics["error"] == "no Chinese characters in the text"


def test_ten_thousand_characters_do_not_crash() -> None:
    s = score_poem("春" * 10_000, None)
    assert s.form is None and "not detected" in s.diagnostics["error"]


def test_an_unknown_tune_is_named_with_its_alias_parts() -> None:
    s = score_poem(JING_YE_SI, "ci:竹马子・竹马儿")
    assert s.metrics["structural"] is None
    assert s.diagnostics["error"] == "unknown cipai '竹马子・竹马儿'"


def test_the_cli_names_a_text_that_is_not_a_string(tmp_path: Path) -> None:
    # {"text": 5} was scored as "no Chinese characters" instead of named as a bad field
    from scoring.prosody.cli import ToolError, read_poems

    path = tmp_path / "poems.jsonl"
    path.write_text(
        '{"id": "a", "text": 5}\n{"id": "b", "text": ["床前明月光"]}\n'
        '{"id": "c", "poem": {"text": 7}}\n{"id": "d", "text": "床前明月光"}\n',
        encoding="utf-8",
    )
    with pytest.raises(ToolError) as err:
        read_poems(path)
    lines = str(err.value).splitlines()
    assert lines[0] == "3 problems found; nothing was scored."
    assert lines[1].endswith("line 1, field 'text': must be a string, got int")
    assert lines[2].endswith("line 2, field 'text': must be a string, got list")
    assert lines[3].endswith("line 3, field 'text': must be a string, got int")
