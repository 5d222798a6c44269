"""Couplets: length and segmentation, tone opposition, endings."""

from __future__ import annotations

import pytest

from scoring.prosody import score_poem
from tests.present import present


def test_haineicunzhiji_is_fully_opposed() -> None:
    # 海内存知己 仄仄平平仄 / 天涯若比邻 平平仄仄平: every position opposed;
    # the first line ends 仄 (己), the second 平 (邻).  Same in both tone systems.
    for system in ("modern", "classical"):
        s = score_poem("海内存知己，天涯若比邻", "couplet", tone_system=system)
        assert {k: v for k, v in s.metrics.items() if k != "pos_parallelism_heuristic"} == {
            "length": 1.0,
            "tone_opposition": 1.0,
            "ending": 1.0,
        }


def test_tian_dui_di_weights_the_segment_end() -> None:
    # 天对地 / 雨对风: 天/雨 opposed (weight 1), 对/对 same (weight 2, even position),
    # 地/风 opposed (weight 3, segment end): (1 + 3) / 6.
    s = score_poem("天对地\n雨对风", "couplet")
    assert s.metrics["tone_opposition"] == pytest.approx(4 / 6)
    assert s.diagnostics["unopposed"] == [1]
    assert s.metrics["ending"] == 1.0


def test_lengths_differ() -> None:
    s = score_poem("海内存知己，天涯若比邻居", "couplet")
    assert s.metrics["length"] == 0.0 and s.metrics["tone_opposition"] == 0.0


def test_segmentation_must_match_not_only_the_total() -> None:
    # 顾宪成's couplet, 7+4 characters on each side: same segmentation.
    good = score_poem("风声雨声读书声，声声入耳\n家事国事天下事，事事关心", "couplet")
    assert good.metrics["length"] == 1.0
    # Moving the first comma gives 4+7 against 7+4: equal totals, different segmentation.
    bad = score_poem("风声雨声，读书声声声入耳\n家事国事天下事，事事关心", "couplet")
    assert bad.metrics["length"] == 0.0
    assert bad.diagnostics["lines"][0]["segments"] == [4, 7]
    assert bad.metrics["tone_opposition"] is not None and bad.metrics["tone_opposition"] > 0


def test_both_lines_ending_level() -> None:
    # 天涯若比邻 ends 平 (should be 仄); 海内存知音 ends 音 平 (right): half marks.
    s = score_poem("天涯若比邻；海内存知音", "couplet")
    assert s.metrics["ending"] == 0.5
    assert s.diagnostics["ending"] == {"first_ends_ze": False, "second_ends_ping": True}


def test_labels_are_stripped() -> None:
    s = score_poem("上联：海内存知己\n下联：天涯若比邻", "couplet")
    assert s.metrics["length"] == s.metrics["tone_opposition"] == s.metrics["ending"] == 1.0


def test_one_line_only_is_a_diagnostic() -> None:
    s = score_poem("海内存知己", "couplet")
    assert s.diagnostics["error"] == "could not find two lines"
    assert all(v is None for v in s.metrics.values())


GU_XIANCHENG_TRAD = "風聲雨聲讀書聲，聲聲入耳\n家事國事天下事，事事關心"


def test_gu_xiancheng_couplet_in_traditional_characters_hand_checked() -> None:
    # 顾宪成's couplet as written in traditional characters.  Classical: 读 入 国 are 入声
    # (仄).  Segment weights 1 2 1 2 1 2 3 | 1 2 1 3: unopposed 风/家 (1) and 雨/国 (1),
    # so 17 of 19.  Modern: 读 dú and 国 guó are 平, so 雨/国 now oppose and 读/天 do not
    # (weight 1 each): 17 of 19 again, at other positions.
    c = score_poem(GU_XIANCHENG_TRAD, "couplet", tone_system="classical")
    assert [x["tones"] for x in c.diagnostics["lines"]] == [
        "平平仄平仄平平平平仄仄",
        "平仄仄仄平仄仄仄仄平平",
    ]
    assert c.diagnostics["unopposed"] == [0, 2]
    assert (c.metrics["length"], c.metrics["ending"]) == (1.0, 1.0)
    assert c.metrics["tone_opposition"] == pytest.approx(17 / 19)
    m = score_poem(GU_XIANCHENG_TRAD, "couplet", tone_system="modern")
    assert [x["tones"] for x in m.diagnostics["lines"]] == [
        "平平仄平平平平平平仄仄",
        "平仄平仄平仄仄仄仄平平",
    ]
    assert m.diagnostics["unopposed"] == [0, 4]
    assert m.metrics["tone_opposition"] == pytest.approx(17 / 19)


def test_gu_xiancheng_broken_copy_swapped_lines_ends_wrong() -> None:
    # The lines swapped: the first line now ends 平 (心), the second 仄 (耳).
    first, second = GU_XIANCHENG_TRAD.split("\n")
    s = score_poem(f"{second}\n{first}", "couplet", tone_system="classical")
    assert s.metrics["ending"] == 0.0
    assert s.diagnostics["ending"] == {"first_ends_ze": False, "second_ends_ping": False}
    # and a copy with a character too many breaks the segmentation
    s = score_poem(GU_XIANCHENG_TRAD.replace("關心", "關於心"), "couplet", tone_system="classical")
    assert s.metrics["length"] == 0.0


def test_pos_parallelism_is_a_separate_heuristic_metric() -> None:
    # 两个黄鹂鸣翠柳 / 一行白鹭上青天 (杜甫), tagged by jieba 0.42.1: 两个/一行 numeral,
    # 黄鹂/白鹭 noun, 鸣 verb against 上 (jieba: 方位, noun-like; a verb here -- the
    # heuristic's known weakness), 翠柳/青天 noun: 6 of 7 positions agree.
    s = score_poem("两个黄鹂鸣翠柳\n一行白鹭上青天", "couplet", tone_system="classical")
    d = s.diagnostics["pos_parallelism_heuristic"]
    assert d["classes"] == [
        ["numeral", "numeral", "noun", "noun", "verb", "noun", "noun"],
        ["numeral", "numeral", "noun", "noun", "noun", "noun", "noun"],
    ]
    assert d["differ"] == [4] and "heuristic" in d["source"]
    assert s.metrics["pos_parallelism_heuristic"] == pytest.approx(6 / 7)
    # the rule metrics do not depend on it
    assert s.metrics["length"] == 1.0 and s.metrics["ending"] == 1.0
    # a broken copy: the second line's words out of order (青天白鹭上一行)
    broken = score_poem("两个黄鹂鸣翠柳\n青天白鹭上一行", "couplet", tone_system="classical")
    assert present(broken.metrics["pos_parallelism_heuristic"]) < 6 / 7
    # lines of different lengths: not applicable
    s = score_poem("两个黄鹂鸣翠柳\n一行白鹭上青天去", "couplet")
    assert s.metrics["pos_parallelism_heuristic"] is None
    # never computed in the CCiV-literal mode
    ccv = score_poem("两个黄鹂鸣翠柳\n一行白鹭上青天", "couplet", ccv_compatible=True)
    assert ccv.metrics["pos_parallelism_heuristic"] is None
