"""读 marks (、) and in-line pauses are optional breaks; the nearest form is sought among
every template of the cipai, by line lengths and rhyme positions (issue 22, item 4).

李清照《声声慢·寻寻觅觅》 as school editions print it, with three 读 marks: 怎敌他、晚来风急,
到黄昏、点点滴滴, 怎一个、愁字了得.  龙榆生's 定格 (the standard form, 仄韵, 97 characters)
breaks after 怎敌他 and 到黄昏 but reads 怎一个愁字了得 as one phrase.
"""

from __future__ import annotations

from scoring.prosody import score_poem
from scoring.prosody.normalize import split_lines
from scoring.prosody.pauses import optional_breaks

SHENGSHENGMAN = (
    "寻寻觅觅，冷冷清清，凄凄惨惨戚戚。乍暖还寒时候，最难将息。三杯两盏淡酒，怎敌他、晚来风急！"
    "雁过也，正伤心，却是旧时相识。满地黄花堆积，憔悴损，如今有谁堪摘？守着窗儿，独自怎生得黑！"
    "梧桐更兼细雨，到黄昏、点点滴滴。这次第，怎一个、愁字了得！"
)


def test_the_three_pauses_are_optional_breaks() -> None:
    lines = split_lines(SHENGSHENGMAN)
    ends = [sum(len(x) for x in lines[: k + 1]) for k in range(len(lines))]
    found = optional_breaks(SHENGSHENGMAN, lines)
    assert sorted(found) == [ends[6], ends[17], ends[20]]  # after 怎敌他, 到黄昏, 怎一个
    assert optional_breaks(SHENGSHENGMAN.replace("、", "，"), lines) == frozenset()


def test_shengshengman_with_du_marks_fits_the_standard_form_and_rhymes() -> None:
    s = score_poem(SHENGSHENGMAN, "ci:声声慢")
    assert s.metrics["structural_standard"] == s.metrics["structural"] == 1.0
    assert s.diagnostics["template"]["id"] == "longyusheng:0"
    assert s.diagnostics["template"]["match"] == "exact"
    # the first two 读 are the form's breaks, 怎一个、愁字了得 is read through
    assert s.diagnostics["pauses"] == [
        {"after_line": 6, "break": True},
        {"after_line": 17, "break": True},
        {"after_line": 20, "break": False},
    ]
    # 觅戚息急识积摘黑滴得: all 入声 in 词林正韵 第十七部
    assert s.metrics["rhyme"] == 1.0
    assert s.diagnostics["rhyme"]["sets"][0]["group"] == "第十七部"
    assert s.metrics["tonal"] is not None and s.metrics["tonal"] > 0.95


def test_a_pause_anywhere_never_breaks_a_fit() -> None:
    moved = SHENGSHENGMAN.replace("寻寻觅觅", "寻寻、觅觅")
    assert score_poem(moved, "ci:声声慢").metrics["structural_standard"] == 1.0
    spaced = SHENGSHENGMAN.replace("、", " ")
    assert score_poem(spaced, "ci:声声慢").metrics["structural_standard"] == 1.0


def test_a_comma_in_the_same_place_is_a_break() -> None:
    # 怎一个，愁字了得 is two phrases where the form has one: a comma is a break
    s = score_poem(SHENGSHENGMAN.replace("怎一个、", "怎一个，"), "ci:声声慢")
    assert s.metrics["structural_standard"] == 0.0


def test_the_ccv_mode_keeps_every_mark_a_break() -> None:
    s = score_poem(SHENGSHENGMAN, "ci:声声慢", ccv_compatible=True)
    assert s.metrics["structural_standard"] == 0.0


def test_the_nearest_form_of_a_broken_copy_is_the_entering_tone_form() -> None:
    # a character lost (冷冷清清 -> 冷清清): no template fits; every one of the 15 is
    # considered, and the nearest keeps the poem's rhymes (a 仄韵 体, no rhyme missed), not
    # a 平韵 体 of the same length
    broken = SHENGSHENGMAN.replace("冷冷清清", "冷清清")
    s = score_poem(broken, "ci:声声慢")
    assert s.metrics["structural"] == 0.0
    near = s.diagnostics["nearest"]
    assert near["considered"] == 15
    assert near["id"] == "longyusheng:0" and near["rhyme_misses"] == 0
    assert "平韵" not in near["gelv"]
    # only the lost character: the form's breaks at the poem's 读 marks are pauses kept,
    # not "a break missing" (before the issue-22 probe: too_short, merged, merged)
    assert [d["op"] for d in near["diff"]] == ["too_short"]
    assert near["diff"][0]["poem_lines"] == [1]
