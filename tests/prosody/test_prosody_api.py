"""The public API: names, shapes, JSON, aliases, never raising."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prosody_poems import RUMENGLING

import scoring.prosody as prosody
from scoring.prosody import RULES_VERSION, PoemScore, known_cipai, resolve_cipai, score_poem


def test_public_names() -> None:
    assert set(prosody.__all__) == {
        "RULES_VERSION",
        "CharTone",
        "PoemScore",
        "char_tones",
        "known_cipai",
        "resolve_cipai",
        "score_poem",
    }
    assert RULES_VERSION.startswith("prosody-")


def test_known_cipai_starts_with_the_36_ccv_keys_and_adds_siblings() -> None:
    names = known_cipai()
    assert names[:3] == ["浣溪沙", "鹧鸪天", "菩萨蛮"]
    assert len(names[:36]) == 36 and "醉花阴" in names[:36]
    assert "浪淘沙令" in names


def test_resolve_cipai_aliases_titles_and_traditional() -> None:
    assert resolve_cipai("金缕曲") == "金缕曲" and resolve_cipai("贺新郎") == "贺新郎"
    assert resolve_cipai("乳燕飞") == "贺新郎"
    assert resolve_cipai("江南好") == "忆江南"
    assert resolve_cipai("水调歌头·明月几时有") == "水调歌头"
    assert resolve_cipai("賀新郎") == "贺新郎"
    assert resolve_cipai("没有这个词牌") is None


def test_score_is_frozen_and_serialisable() -> None:
    s = score_poem(RUMENGLING, "ci:如梦令")
    assert isinstance(s, PoemScore)
    d = s.to_dict()
    assert json.loads(json.dumps(d, ensure_ascii=False)) == d
    assert d["rules_version"] == RULES_VERSION and d["form"] == "ci:如梦令"
    assert set(d["metrics"]) == {
        "structural",
        "tonal",
        "rhyme",
        "rhyme_lenient",
        "structural_fuxi",
        "structural_standard",
        "tonal_standard",
        "structural_variant",
        "tonal_variant",
    }


def test_unknown_form_is_a_diagnostic() -> None:
    s = score_poem(RUMENGLING, "sonnet")
    assert s.metrics == {} and "unknown form" in s.diagnostics["error"]


_ALPHABET = st.sampled_from(
    list("明月几时有把酒问青天不知上宫阙今夕是何年长重看一白日依山尽□＊")
    + list("，。？！、；：\n\t （）《》【】注：·ab1?𪖙閒國")
)
_FORMS = st.sampled_from(
    [
        None,
        "",
        "couplet",
        "shi:jueju5",
        "shi:jueju7",
        "shi:lushi5",
        "shi:lushi7",
        "ci:如梦令",
        "ci:水调歌头",
        "ci:浪淘沙",
        "ci:南乡子",
        "ci:贺新郎",
        "ci:浪淘沙令",
        "ci:无此牌",
        "ci:",
        "x",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(st.text(_ALPHABET, max_size=120), st.text(max_size=60)),
    form=_FORMS,
    system=st.sampled_from(["modern", "classical"]),
    lenient=st.booleans(),
    ccv=st.booleans(),
)
@pytest.mark.slow
def test_score_poem_never_raises_and_metrics_stay_in_range(
    text: str, form: str | None, system: str, lenient: bool, ccv: bool
) -> None:
    s = score_poem(text, form, tone_system=system, lenient=lenient, ccv_compatible=ccv)  # type: ignore[arg-type]
    for name, value in s.metrics.items():
        assert value is None or 0.0 <= value <= 1.0, (name, value)
    json.dumps(s.to_dict(), ensure_ascii=False)


def test_corpus_report_renders_markdown(tmp_path: object, capsys: object) -> None:
    from pathlib import Path

    from prosody_poems import LANGTAOSHA_LING, RUMENGLING

    from scoring.prosody import corpus_report

    path = Path(str(tmp_path)) / "mini.jsonl"
    rows = [{"cipai": "如梦令", "text": RUMENGLING}, {"cipai": "浪淘沙", "text": LANGTAOSHA_LING}]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    assert corpus_report.main([str(path)]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "| 如梦令 | 1 | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 |" in out
    assert "| 浪淘沙 | 1 | 0 | 1 (浪淘沙令 1) |" in out


def test_batch_scores_jsonl_and_csv_files(tmp_path: object) -> None:
    import csv
    from pathlib import Path

    from prosody_poems import DENG_GUANQUELOU

    from scoring.prosody import batch

    src = Path(str(tmp_path)) / "poems.jsonl"
    lines = [
        {"id": "a", "form": "ci:如梦令", "text": RUMENGLING},
        {
            "id": "b",
            "poem": {"form": "shi:jueju5", "text": DENG_GUANQUELOU},
        },  # formats.md pool line
        {"id": "c", "cipai": "如梦令", "text": RUMENGLING},
        {"id": "d", "text": "not a poem"},
    ]
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    out = Path(str(tmp_path)) / "scores.csv"
    assert batch.main([str(src), "--out", str(out), "--tone-system", "modern"]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["id"] for r in rows] == ["a", "b", "c", "d"]
    assert rows[0]["form"] == "ci:如梦令" and rows[0]["structural"] == "1.0"
    # modern tones: 更上一层楼 is 三平尾, which 一三五不论 does not license (19 of 20)
    assert rows[1]["pattern_licensed"] == "0.95" and rows[1]["structural"] == "1.0"
    assert rows[2]["tonal"] == rows[0]["tonal"]
    assert rows[3]["form"] == "" and rows[3]["error"] == "no Chinese characters in the text"
    jsonl = Path(str(tmp_path)) / "scores.jsonl"
    assert batch.main([str(src), "--out", str(jsonl), "--tone-system", "classical"]) == 0
    first = json.loads(jsonl.read_text(encoding="utf-8").splitlines()[0])
    assert first["tone_system"] == "classical" and first["diagnostics"]["template"]["id"]
