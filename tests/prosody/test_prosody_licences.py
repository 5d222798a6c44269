"""拗救: the licences of regulated verse, named in the diagnostics (hand-checked, classical).

Each poem's per-character tones are checked by hand against 平水韵 (入声 = 仄) and the
licence against 王力《诗词格律》; each has a broken copy that fails where it should.
"""

from __future__ import annotations

import pytest

from scoring.prosody import score_poem

LIANGZHOU = "黄河远上白云间，一片孤城万仞山。羌笛何须怨杨柳，春风不度玉门关。"
# the same poem with a regular third line (怜柳色 平仄仄): no 拗 at all
LIANGZHOU_REGULAR = LIANGZHOU.replace("怨杨柳", "怜柳色")
JUEJU_DUFU = "两个黄鹂鸣翠柳，一行白鹭上青天。窗含西岭千秋雪，门泊东吴万里船。"
DENGLEYOUYUAN = "向晚意不适，驱车登古原。夕阳无限好，只是近黄昏。"
SU_JIANDE = "移舟泊烟渚，日暮客愁新。野旷天低树，江清月近人。"


def _score(text: str) -> tuple[dict, dict]:
    s = score_poem(text, None, tone_system="classical")
    return s.metrics, s.diagnostics


def _lic(diag: dict) -> list[tuple[int, int, str]]:
    return [(x["line"], x["position"], x["licence"]) for x in diag["licences"]]


def test_liangzhouci_te_ao_is_licensed() -> None:
    m, d = _score(LIANGZHOU)
    assert d["form"] == "shi:jueju7" and d["pattern"] == "平起首句入韵"
    assert [x["tones"] for x in d["lines"]] == [
        "平平仄仄仄平平",
        "仄仄平平仄仄平",  # 一 入声
        "平仄平平仄平仄",  # 笛 入声; 怨杨 swap: 特拗
        "平平仄仄仄平平",  # 玉 入声
    ]
    assert d["lines"][2]["required"] == "仄仄平平平仄仄"
    assert m["pattern"] == pytest.approx(25 / 28)
    assert m["pattern_licensed"] == 1.0 and m["faults"] == 1.0
    assert _lic(d) == [(2, 0, "一三五不论"), (2, 4, "特拗"), (2, 5, "特拗")]
    assert "王力《诗词格律》" in d["licences"][1]["source"]


def test_liangzhouci_without_its_ao_needs_no_licence_and_a_broken_copy_fails() -> None:
    m, d = _score(LIANGZHOU_REGULAR)
    assert d["lines"][2]["tones"] == "平仄平平平仄仄"
    assert _lic(d) == [(2, 0, "一三五不论")]
    assert m["pattern_licensed"] == 1.0
    # 怨杨花: 平仄平平仄平平 -- the 5th core position (平 for 仄) is no licence: a fault
    m, d = _score(LIANGZHOU.replace("怨杨柳", "怨杨花"))
    assert m["pattern_licensed"] < 1.0
    assert {"line": 2, "position": 6, "fault": "拗"} in d["lines"][2]["licences"]


def test_du_fu_jueju_yi_san_wu_bu_lun_and_broken_rhyme() -> None:
    m, d = _score(JUEJU_DUFU)
    assert d["pattern"] == "仄起首句不入韵"
    assert [x["tones"] for x in d["lines"]] == [
        "仄仄平平平仄仄",
        "仄平仄仄仄平平",  # 一 白 入声; 行 háng 平
        "平平平仄平平仄",
        "平仄平平仄仄平",  # 泊 入声
    ]
    assert m["pattern_licensed"] == 1.0 and m["rhyme"] == 1.0
    assert _lic(d) == [(1, 0, "一三五不论"), (2, 2, "一三五不论"), (3, 0, "一三五不论")]
    m, d = _score(JUEJU_DUFU.replace("万里船", "万里舟"))  # 舟 is 十一尤, not 一先
    assert m["rhyme"] == 0.5


def test_deng_le_you_yuan_is_saved_by_the_next_line() -> None:
    # 向晚意不适 仄仄仄仄仄 (大拗 at the 4th) saved by 驱车登古原 平平平仄平 (3rd 平).
    m, d = _score(DENGLEYOUYUAN)
    assert [x["tones"] for x in d["lines"]][:2] == ["仄仄仄仄仄", "平平平仄平"]
    assert m["pattern_licensed"] == 1.0
    assert _lic(d)[:3] == [(0, 2, "对句相救"), (0, 3, "对句相救"), (1, 2, "对句相救")]
    # broken: 驱车登古原 -> 驱车上古原 (上 仄): the 大拗 is no longer saved
    m, d = _score(DENGLEYOUYUAN.replace("登古原", "上古原"))
    assert m["pattern_licensed"] < 1.0
    assert {"line": 0, "position": 3, "fault": "拗"} in d["lines"][0]["licences"]


def test_su_jiande_jiang_te_ao_in_wujue() -> None:
    m, d = _score(SU_JIANDE)
    assert d["lines"][0]["tones"] == "平平仄平仄"
    assert _lic(d) == [(0, 2, "特拗"), (0, 3, "特拗")]
    assert m["pattern_licensed"] == 1.0


def test_gu_ping_and_its_rescue_synthetic_lines() -> None:
    # Synthetic (labelled so): a B line 仄平仄仄平 is 孤平; 仄平平仄平 is 孤平拗救.
    base = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"
    m, d = _score(base.replace("黄河入海流", "月河入海流"))  # 月 入声: 仄平仄仄平
    assert d["lines"][1]["tones"] == "仄平仄仄平"
    assert {"line": 1, "position": 0, "fault": "孤平"} in d["lines"][1]["licences"]
    assert {"fault": "孤平", "line": 1} in d["faults"]
    assert m["pattern_licensed"] == pytest.approx(19 / 20)
    m, d = _score(base.replace("黄河入海流", "月河流海流"))  # 仄平平仄平
    assert d["lines"][1]["tones"] == "仄平平仄平"
    assert [x["licence"] for x in d["lines"][1]["licences"]] == ["孤平拗救", "孤平拗救"]
    assert m["pattern_licensed"] == 1.0


def test_yueye_kan_is_read_level_at_its_rhyme_and_te_ao_twice() -> None:
    # 杜甫《月夜》 (五律, 仄起首句不入韵; 看安寒乾 上平十四寒): 看 has both tones (kān/kàn)
    # and is read 平 at its rhyme; 遥怜小儿女 and 何时倚虚幌 are 特拗 (平平仄平仄).
    text = (
        "今夜鄜州月，闺中只独看。遥怜小儿女，未解忆长安。"
        "香雾云鬟湿，清辉玉臂寒。何时倚虚幌，双照泪痕乾。"
    )
    m, d = _score(text)
    assert d["pattern"] == "仄起首句不入韵"
    assert [x["tones"] for x in d["lines"]] == [
        "平仄平平仄",
        "平平仄仄平",  # 独 入声; 看 by the metre
        "平平仄平仄",
        "仄仄仄平平",  # 忆 入声
        "平仄平平仄",  # 湿 入声
        "平平仄仄平",  # 玉 入声
        "平平仄平仄",
        "平仄仄平平",  # 乾 平
    ]
    assert d["resolved_by_rhyme"] == [[1, 4]]
    assert m["pattern_licensed"] == 1.0 and m["rhyme"] == 1.0 and m["faults"] == 1.0
    assert [(x["line"], x["licence"]) for x in d["licences"] if x["licence"] == "特拗"] == [
        (2, "特拗"),
        (2, "特拗"),
        (6, "特拗"),
        (6, "特拗"),
    ]
    # broken: 独看 -> 独见 (仄 only, not a 寒 rhyme): a pattern fault and a rhyme miss
    m, d = _score(text.replace("独看", "独见"))
    assert m["rhyme"] == pytest.approx(3 / 4) and m["pattern_licensed"] < 1.0


def test_notes_count_lines_and_characters_from_one() -> None:
    from scoring.prosody.explain import notes

    _, d = _score(LIANGZHOU)
    assert notes(d) == [
        "line 3, char 1: 一三五不论 (licence)",
        "line 3, char 5: 特拗 (licence)",
        "line 3, char 6: 特拗 (licence)",
    ]
    _, d = _score(LIANGZHOU.replace("怨杨柳", "怨杨花"))
    assert "line 3, char 7: 拗 (fault)" in notes(d)
    s = score_poem(
        "一曲新词酒一杯。去年天气旧亭台。夕阳西下几时回。无可奈何花落去，似曾相识燕归来。小园香径独徘徊。",
        "ci:浣溪沙",
        tone_system="classical",
    )
    assert notes(s.diagnostics) == [
        "rhyme (词林正韵, 第三部): 台来 off",
        "rhyme lenient: 戈载《词林正韵·发凡》（灰咍通押）",
    ]
