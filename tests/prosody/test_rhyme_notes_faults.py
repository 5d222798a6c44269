"""The smaller items of issue 22 (item 9): the entering-tone 通押 of the lenient ci rhyme,
notes when a structure or a couplet's ending fails, and the 出句平收 fault."""

from __future__ import annotations

import pytest

from scoring.prosody import score_poem
from scoring.prosody.explain import notes

# 苏轼《念奴娇·赤壁怀古》: 物雪杰发灭发月 in 词林正韵 第十八部, 壁 in 第十七部
CHIBI = (
    "大江东去，浪淘尽，千古风流人物。故垒西边，人道是，三国周郎赤壁。乱石穿空，惊涛拍岸，"
    "卷起千堆雪。江山如画，一时多少豪杰。遥想公瑾当年，小乔初嫁了，雄姿英发。羽扇纶巾，"
    "谈笑间，樯橹灰飞烟灭。故国神游，多情应笑我，早生华发。人生如梦，一尊还酹江月。"
)
DENG = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"


def test_entering_tone_sections_rhyme_together_in_the_lenient_check() -> None:
    s = score_poem(CHIBI, "ci:念奴娇")
    assert s.metrics["rhyme"] == pytest.approx(7 / 8)  # strict: 壁 is 第十七部
    assert s.metrics["rhyme_lenient"] == 1.0
    allowance = s.diagnostics["rhyme"]["sets"][0]["allowance"]
    assert "王力《汉语诗律学》" in allowance and "入声" in allowance
    # a broken copy: 岸 (去声, 第七部) is no entering tone, and no 通押 lets it in
    broken = score_poem(CHIBI.replace("周郎赤壁", "周郎赤岸"), "ci:念奴娇")
    assert broken.metrics["rhyme_lenient"] == pytest.approx(7 / 8)


def test_a_failed_ci_structure_is_explained_in_the_notes() -> None:
    poem = "常记溪亭日暮，沉醉不知归路。兴尽晚回舟，误入藕花深处。争渡，争渡，惊起一滩鸥。"
    out = notes(score_poem(poem, "ci:如梦令").diagnostics)
    assert out[0].startswith("structure: fits no template; nearest longyusheng:0")
    assert "line 7: too short (5 chars where the form has 6)" in out
    assert notes(score_poem(poem + "鹭", "ci:如梦令").diagnostics)[:1] != out[:1]


def test_a_failed_shi_structure_is_explained_in_the_notes() -> None:
    out = notes(score_poem(DENG[:-2] + "。", "shi:jueju5").diagnostics)
    assert "line 4: too short (4 chars where the form has 5)" in out


def test_a_couplet_s_failed_ending_is_in_the_notes() -> None:
    assert notes(score_poem("海内存知己，天涯若比邻", "couplet").diagnostics) == []
    swapped = notes(score_poem("天涯若比邻，海内存知己", "couplet").diagnostics)
    assert "line 1: ends 平, 仄 required (上联仄收)" in swapped
    assert "line 2: ends 仄, 平 required (下联平收)" in swapped


def test_an_unrhymed_line_ending_level_is_a_fault() -> None:
    assert score_poem(DENG, "shi:jueju5").diagnostics["faults"] == []
    # 欲穷千里目 -> 欲穷千里眸: the third line, which does not rhyme, ends 平
    broken = score_poem(DENG.replace("千里目", "千里眸"), "shi:jueju5")
    assert {"fault": "出句平收", "line": 2} in broken.diagnostics["faults"]
    assert "line 3: 出句平收" in notes(broken.diagnostics)
    assert broken.metrics["faults"] is not None and broken.metrics["faults"] < 1.0
