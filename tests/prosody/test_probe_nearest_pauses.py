"""Probe (issue 22 item 4): a 读 mark is an optional break in the nearest-form diagnosis too.

Found by scoring 柳永《八声甘州》 as the bundled 宋词三百首 prints it: 想佳人、妆楼望 lost
颙 (妆楼颙望).  The structure fails, rightly, but the nearest form read the 读 marks as no
break, and the notes said "a phrase the form has is missing", "line 15: too long",
"two phrases in one line" twice (cost 6) where one character is missing (cost 1).
"""

from __future__ import annotations

import pytest

from scoring.prosody import score_poem
from scoring.prosody.explain import notes

# as the bundled 宋词三百首 prints it, with 颙 restored
BASHENG = (
    "对潇潇、暮雨洒江天，一番洗清秋。渐霜风凄惨，关河冷落，残照当楼。"
    "是处红衰翠减，苒苒物华休。惟有长江水，无语东流。"
    "不忍登高临远，望故乡渺邈，归思难收。叹年来踪迹，何事苦淹留。"
    "想佳人、妆楼颙望，误几回、天际识归舟。争知我、倚阑干处，正恁凝愁。"
)
LOST = BASHENG.replace("妆楼颙望", "妆楼望")


def test_the_whole_poem_fits() -> None:
    s = score_poem(BASHENG, "ci:八声甘州")
    assert (s.metrics["structural"], s.metrics["rhyme"]) == (1.0, 1.0)


@pytest.mark.parametrize("text", [LOST, LOST.replace("、", "，")], ids=["读 marks", "commas"])
def test_the_lost_character_is_the_only_difference(text: str) -> None:
    s = score_poem(text, "ci:八声甘州")
    assert s.metrics["structural"] == 0.0
    near = s.diagnostics["nearest"]
    (only,) = [d for d in near["diff"] if d["op"] != "split"]  # commas: 对潇潇，暮雨… splits
    assert (only["op"], only["poem_len"], only["template_len"]) == ("too_short", 3, 4)


def test_the_notes_name_the_line_as_printed() -> None:
    # lines counted by ，。 (the 读 marks read through): 想佳人、妆楼望 is line 15
    s = score_poem(LOST, "ci:八声甘州")
    assert s.diagnostics["nearest"]["cost"] == 1
    assert notes(s.diagnostics)[1:] == ["line 15: too short (3 chars where the form has 4)"]


# 周邦彦《西河》 as the bundled 宋词三百首 prints it: its close is punctuated 入寻常、巷陌人家，
# 相对如说兴亡，斜阳里 (7 + 6 + 3) where 龙榆生 has 入寻常巷陌人家相对，如说兴亡斜阳里 (9 + 7)
XIHE = (
    "佳丽地。南朝盛事谁记。山围故国绕清江，髻鬟对起。怒涛寂寞打孤城，风樯遥度天际。"
    "断崖树，犹倒倚。莫愁艇子曾系。空馀旧迹郁苍苍，雾沈半垒。夜深月过女墙来，赏心东望淮水。"
    "酒旗戏鼓甚处市。想依稀、王谢邻里。燕子不知何世。"
    "入寻常、巷陌人家，相对如说兴亡，斜阳里。"
)


def test_each_pause_is_read_its_own_way() -> None:
    # 想依稀、王谢邻里 is 3 + 4 as the form has it (the pause a break), 入寻常、巷陌人家 is
    # read through: only the close's punctuation is reported, not "a break missing" at 想依稀
    s = score_poem(XIHE, "ci:西河")
    assert s.metrics["structural"] == 0.0
    diff = s.diagnostics["nearest"]["diff"]
    assert [d["poem_lines"] for d in diff] == [[16], [17], [18]]
    assert all(d["op"] != "merged" for d in diff)
