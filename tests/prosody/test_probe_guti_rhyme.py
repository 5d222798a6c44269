"""Probe (issue 22): 古体 rhyming neighbouring 仄 rhymes (月屑, 屋沃 …) is one rhyme, not 换韵.

Found by scoring 孟浩然《秋登兰山寄张五》 (五古, not among the hand-checked poems): it rhymes
悦灭 (入声九屑) with 发歇月 (入声六月) and 节 (九屑) throughout, one 入声 rhyme as 古体 rhymes
邻韵 together (王力《诗词格律》第二章, 古体诗的用韵).  Before, the platform joined only the 平
邻韵, so it read a false 换韵 at line 5 and 节 as a miss.  Each rhyme below is checked
against the bundled 平水韵 file read here, not through the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import opencc
import pytest

from scoring.prosody import score_poem

PINGSHUI = Path(__file__).resolve().parents[2] / "scoring/prosody/data/rhyme/Pingshui_Rhyme.json"


def _rhymes_of(ch: str) -> set[str]:
    out = set()
    for section, rhymes in json.loads(PINGSHUI.read_text(encoding="utf-8")).items():
        for name, chars in rhymes.items():
            if ch in chars:
                out.add(name if name.startswith(section[:2]) else section[:2] + name)
    return out


QIU_DENG = (
    "北山白云里，隐者自怡悦。相望试登高，心飞逐鸟灭。"
    "愁因薄暮起，兴是清秋发。时见归村人，沙行渡头歇。"
    "天边树若荠，江畔舟如月。何当载酒来，共醉重阳节。"
)
QIU_DENG_TRAD = opencc.OpenCC("s2t").convert(QIU_DENG)
FINALS = "悦灭发歇月节"


def test_the_finals_are_yue_and_xie_in_the_book() -> None:
    # by hand: 悦灭节 入声九屑, 发歇月 入声六月
    assert {c: _rhymes_of(c) for c in FINALS} == {
        "悦": {"入声九屑"},
        "灭": {"入声九屑"},
        "发": {"入声六月"},
        "歇": {"入声六月"},
        "月": {"入声六月"},
        "节": {"入声九屑"},
    }


@pytest.mark.parametrize("text", [QIU_DENG, QIU_DENG_TRAD], ids=["simplified", "traditional"])
def test_one_rhyme_not_huan_yun(text: str) -> None:
    s = score_poem(text, None)
    d = s.diagnostics
    assert s.form == "shi:guti" and d["ti"] == "古体"
    assert not any(r.startswith("换韵") for r in d["gu"]["reasons"])
    (only,) = d["rhyme"]["sets"]
    assert only["lines"] == [0, 11]
    assert only["ok_lenient"] == [True] * 6  # 月 and 屑 are 邻韵
    # strictly by the book, the segment's rhyme is one of the two and the other three miss
    assert only["group"] in ("入声九屑", "入声六月")
    assert s.metrics["rhyme"] == pytest.approx(0.5) and s.metrics["rhyme_lenient"] == 1.0
    assert "GUTI_ZE_NEIGHBOURS" in only["allowance"]


def test_traditional_and_simplified_alike() -> None:
    a, b = score_poem(QIU_DENG, None), score_poem(QIU_DENG_TRAD, None)
    assert a.metrics == b.metrics
    assert [x["ok_lenient"] for x in a.diagnostics["rhyme"]["sets"]] == [
        x["ok_lenient"] for x in b.diagnostics["rhyme"]["sets"]
    ]


def test_broken_copy_a_final_out_of_the_class_misses() -> None:
    # 节 -> 酒 (上声二十五有): not 月/屑, a miss even leniently
    broken = QIU_DENG.replace("共醉重阳节", "共醉重阳酒")
    assert _rhymes_of("酒") == {"上声二十五有"}
    s = score_poem(broken, None)
    sets = s.diagnostics["rhyme"]["sets"]
    assert sum(x["ok_lenient"].count(False) for x in sets) == 1
    assert s.metrics["rhyme_lenient"] == pytest.approx(5 / 6)


def test_zhi_does_not_join_yue() -> None:
    # 质 (入声四质) is not 月's neighbour (Tang 古体 rhymes 月 with 屑): 质月 alternating
    # couplets are two rhymes that miss, not one (six lines: a 古体 of free shape)
    text = "春山一夜雨，花落满溪出。独坐望归云，空庭生明月。何处寄相思，回首芳华失。"
    assert {c: _rhymes_of(c) for c in "出失月"} == {
        "出": {"入声四质", "去声四寘"},
        "失": {"入声四质"},
        "月": {"入声六月"},
    }
    s = score_poem(text, None)
    assert s.form == "shi:guti"
    assert s.metrics["rhyme_lenient"] == pytest.approx(2 / 3)  # 月 misses the 质 rhyme


def test_regulated_verse_borrows_no_oblique_neighbour() -> None:
    # 近体: the 仄 邻韵 are for 古体 only; a 平 rhyme poem's misses are unchanged
    s = score_poem(
        "远岫云初散，江村雨后晴。渔舟依岸泊，野鹤入云鸣。细草侵阶绿，山花照水红。闲来吟晚照，把酒慰平生。",
        None,
    )
    assert s.form == "shi:lushi5" and s.metrics["rhyme_lenient"] == pytest.approx(0.75)
