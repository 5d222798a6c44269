"""Regulated verse: form, the four patterns, 一三五不论, rhyme, 孤平 三平尾 粘 对."""

from __future__ import annotations

import pytest
from prosody_poems import CHUNWANG, CHUSAI, DENG_GUANQUELOU, DENGGAO, JINGYESI

from scoring.prosody import score_poem
from scoring.prosody.shi import patterns


def test_the_four_five_character_patterns() -> None:
    names = {name: lines for name, lines in patterns(4, 5)}
    # 王力《诗词格律》: 仄起不入韵 A B C D, 仄起入韵 D B C D, 平起不入韵 C D A B, 平起入韵 B D A B.
    assert names["仄起首句不入韵"] == ["仄仄平平仄", "平平仄仄平", "平平平仄仄", "仄仄仄平平"]
    assert names["平起首句入韵"] == ["平平仄仄平", "仄仄仄平平", "仄仄平平仄", "平平仄仄平"]
    # 七言 prefixes the opposite pair: 仄仄平平仄 -> 平平仄仄平平仄, so the names flip.
    seven = {name: lines for name, lines in patterns(8, 7)}
    assert seven["平起首句不入韵"][0] == "平平仄仄平平仄"
    assert len(seven["平起首句不入韵"]) == 8


def test_deng_guanquelou_classical() -> None:
    # 白日依山尽 仄仄平平仄 (白 日 入声), 黄河入海流 平平仄仄平, 欲穷千里目 仄平平仄仄 (欲 入声,
    # 1st position off the 平平平仄仄 pattern but free under 一三五不论), 更上一层楼 仄仄仄平平
    # (一 入声).  仄起首句不入韵; 19 of 20 positions strict, 20 of 20 licensed.
    s = score_poem(DENG_GUANQUELOU, "shi:jueju5", tone_system="classical")
    assert s.diagnostics["pattern"] == "仄起首句不入韵"
    assert s.metrics["pattern"] == pytest.approx(19 / 20)
    assert s.metrics["pattern_licensed"] == 1.0
    # 流 楼: 下平十一尤.
    assert s.metrics["rhyme"] == 1.0
    assert s.diagnostics["rhyme"]["sets"][0]["group"] == "下平十一尤"
    assert s.metrics["faults"] == 1.0 and s.diagnostics["faults"] == []


def test_deng_guanquelou_modern_reads_yi_level_and_finds_san_ping_wei() -> None:
    # Modern readings: 白 bái (平), 欲 yù, 一 yī (平): 更上一层楼 becomes 仄仄平平平 -> 三平尾.
    # Strict pattern: 白 (pos 1), 欲 (pos 1), 一 (pos 3) off -> 17/20.  白 and 欲 are
    # licensed (一三五不论); 一 is not: 一三五不论 never covers a 三平尾 (王力), 19/20.
    s = score_poem(DENG_GUANQUELOU, None, tone_system="modern")
    assert s.form == "shi:jueju5"
    assert s.metrics["pattern"] == pytest.approx(17 / 20)
    assert s.metrics["pattern_licensed"] == pytest.approx(19 / 20)
    assert s.diagnostics["lines"][3]["mismatches_licensed"] == [2]
    assert s.diagnostics["lines"][3]["licences"] == [{"line": 3, "position": 2, "fault": "三平尾"}]
    assert [(x["line"], x["position"], x["licence"]) for x in s.diagnostics["licences"]] == [
        (0, 0, "一三五不论"),
        (2, 0, "一三五不论"),
    ]
    assert s.diagnostics["faults"] == [{"fault": "三平尾", "line": 3}]
    # 11 checks: 4 lines for 三平尾, 2 rhyme lines for 孤平, 3 adjacent pairs for 粘/对,
    # 2 unrhymed lines for 出句平收.
    assert s.metrics["faults"] == pytest.approx(1 - 1 / 11)


def test_chunwang_classical_and_the_sheng_polyphone() -> None:
    s = score_poem(CHUNWANG, "shi:lushi5", tone_system="classical")
    assert s.metrics["structural"] == 1.0
    assert s.diagnostics["pattern"] == "仄起首句不入韵"  # 国破 (破 仄) ... 深 not a rhyme
    # 深 心 金 簪: 下平十二侵.
    assert s.metrics["rhyme"] == 1.0
    # 浑欲不胜簪: 胜 is shēng (平, "bear"; pypinyin alone reads 不胜 bù shèng, which made
    # the line 平仄仄仄平, a false 孤平): the phrase rule reads 平仄仄平平.
    assert s.diagnostics["lines"][7]["tones"] == "平仄仄平平"
    assert s.diagnostics["faults"] == []
    lenient = score_poem(CHUNWANG, "shi:lushi5", tone_system="classical", lenient=True)
    assert lenient.diagnostics["faults"] == []
    # a broken copy: 浑欲不满簪 is 平仄仄仄平, 孤平
    broken = score_poem(CHUNWANG.replace("不胜簪", "不满簪"), "shi:lushi5", tone_system="classical")
    assert broken.diagnostics["faults"] == [{"fault": "孤平", "line": 7}]
    # Modern 簪 zān falls in 八寒, not with 深 心 金 (九文): 3 of 4.
    modern = score_poem(CHUNWANG, "shi:lushi5", tone_system="modern")
    assert modern.metrics["rhyme"] == pytest.approx(0.75)


def test_denggao_is_regular_in_the_classical_system() -> None:
    # 仄起首句入韵 (风急: 急 入声 仄; 哀 rhymes).  Required vs classical tones, off positions:
    #   风急天高猿啸哀 平仄平平平仄平 vs 仄仄平平仄仄平: 风 (1st), 猿 (5th)
    #   渚清沙白鸟飞回 仄平平仄仄平平 vs 平平仄仄仄平平: 渚 (1st), 沙 (3rd)
    #   百年多病独登台 仄平平仄仄平平 vs 平平仄仄仄平平: 百 (1st), 多 (3rd)
    # 潦倒新停浊酒杯 仄仄平平仄仄平 fits since prosody-1.6 (潦 lǎo: 《广韵》 has only 仄
    # readings; pypinyin's liáo made the 1st character a licensed miss before).
    # The other four lines fit exactly: 50 of 56 strict, all 6 misses licensed.
    s = score_poem(DENGGAO, "shi:lushi7", tone_system="classical")
    assert s.diagnostics["pattern"] == "仄起首句入韵"
    assert s.metrics["pattern"] == pytest.approx(50 / 56)
    assert s.metrics["pattern_licensed"] == 1.0
    assert s.metrics["faults"] == 1.0
    # 哀 回 来 台 杯: 上平十灰.
    assert s.metrics["rhyme"] == 1.0


def test_chusai_jiao_read_jiao1_by_its_phrase_so_no_shi_dui() -> None:
    # 平起首句入韵: 关 还 山 rhyme in 上平十五删.  不教胡马度阴山: 教 is jiāo (平, "let"),
    # which the phrase rule 不教 gives (pypinyin alone reads jiào, 仄, and 使/教 would be
    # both 仄: a false 失对).
    s = score_poem(CHUSAI, "shi:jueju7", tone_system="classical")
    assert s.diagnostics["pattern"] == "平起首句入韵"
    assert s.metrics["rhyme"] == 1.0
    assert s.diagnostics["faults"] == []
    assert s.diagnostics["lines"][3]["pinyin"][1] == "jiao1"
    # A broken copy, 不使胡马度阴山 (使 仄 like 但使's 使): the 失对 is found.
    broken = score_poem(CHUSAI.replace("不教", "不使"), "shi:jueju7", tone_system="classical")
    assert broken.diagnostics["faults"] == [{"fault": "失对", "lines": [2, 3]}]


def test_jingyesi_breaks_nian_dui_and_has_gu_ping() -> None:
    # 静夜思 is a 古绝, not regulated verse.  Classical tones:
    #   床前明月光 平平平仄平 / 疑是地上霜 平仄仄仄平 / 举头望明月 仄平仄平仄 / 低头思故乡 平平平仄平
    # 疑是地上霜 has no two adjacent 平: 孤平.  2nd characters 前/是 oppose (对 ok), 是/头
    # differ across the couplets (失粘), 头/头 agree within the couplet (失对).  粘对 broken
    # at two of three joins: 出律, read as 古体 (scoring/prosody/gu.py), no 律 faults counted.
    s = score_poem(JINGYESI, None, tone_system="classical")
    assert s.form == "shi:jueju5" and s.diagnostics["ti"] == "古体"
    assert s.diagnostics["gu"]["reasons"] == ["出律 (粘对 broken at 2 of 3 joins)"]
    assert s.diagnostics["faults"] == [] and s.metrics["faults"] is None
    assert s.metrics["rhyme"] == 1.0  # 光 霜 乡: 下平七阳


def test_constructed_gu_ping() -> None:
    # 黄河入海流 -> 大河入海流: 仄平仄仄平, the one 平 before the rhyme is isolated.
    s = score_poem(DENG_GUANQUELOU.replace("黄河", "大河"), "shi:jueju5", tone_system="classical")
    assert {"fault": "孤平", "line": 1} in s.diagnostics["faults"]


def test_constructed_san_ping_wei_in_both_systems() -> None:
    # 更上一层楼 -> 更上高层楼: 高层楼 平平平 in any system.
    for system in ("modern", "classical"):
        s = score_poem(DENG_GUANQUELOU.replace("一层", "高层"), "shi:jueju5", tone_system=system)
        assert {"fault": "三平尾", "line": 3} in s.diagnostics["faults"]


def test_constructed_shi_nian_only() -> None:
    # Repeating the first couplet: 日(仄)/河(平) oppose, 河(平)/日(仄) across couplets: 失粘.
    text = "白日依山尽，黄河入海流。白日依山尽，黄河入海流。"
    s = score_poem(text, "shi:jueju5", tone_system="classical")
    assert [f["fault"] for f in s.diagnostics["faults"]] == ["失粘"]


def test_non_rhyming_line_end() -> None:
    # 楼 -> 台: 台 is 上平十灰, 流 下平十一尤: only one of the two rhyme positions agrees.
    s = score_poem(DENG_GUANQUELOU.replace("层楼", "层台"), "shi:jueju5", tone_system="classical")
    assert s.metrics["rhyme"] == 0.5


def test_wrong_shape_fails_structure_with_a_diff() -> None:
    s = score_poem(DENG_GUANQUELOU.replace("黄河入海流", "黄河入大海流"), "shi:jueju5")
    assert s.metrics["structural"] == 0.0 and s.metrics["pattern"] == 0.0
    assert s.metrics["rhyme"] is None and s.metrics["faults"] is None
    assert s.diagnostics["diff"] == [
        {
            "op": "too_long",
            "poem_lines": [1],
            "template_lines": [1],
            "poem_len": 6,
            "template_len": 5,
        }
    ]


def test_undetectable_form_returns_no_metrics() -> None:
    s = score_poem("春眠不觉晓，处处闻啼鸟。", None)
    assert s.form is None and s.metrics == {}
    assert "not detected" in s.diagnostics["error"]
