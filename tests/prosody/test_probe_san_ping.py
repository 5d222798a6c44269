"""Probe (issue 22): two lines of 三平调 make a poem of 近体 shape 古体.

Found by scoring 常建《宿王昌龄隐居》 (the 唐诗三百首 files it under 五言古诗): eight lines of
five, one 平 rhyme (云君纹群, 上平十二文), read as a 五律 with two 三平尾 faults (隐处唯孤云,
药院滋苔纹) and faults 0.913.  三平调 is the mark of 古风 (王力《诗词格律》第二章 §4); one line
of it stays a 近体 poem's fault, two make the poem 古体 (gu.SAN_PING_LINES).
"""

from __future__ import annotations

import opencc

from scoring.prosody import score_poem

CHANGJIAN = (
    "清溪深不测，隐处唯孤云。松际露微月，清光犹为君。"
    "茅亭宿花影，药院滋苔纹。余亦谢时去，西山鸾鹤群。"
)
# tones by hand (平水韵, 入声 仄): 隐处唯孤云 仄仄平平平, 药院滋苔纹 仄仄平平平
HAND = {1: "仄仄平平平", 5: "仄仄平平平"}


def test_two_san_ping_lines_make_it_gu_ti() -> None:
    for text in (CHANGJIAN, opencc.OpenCC("s2t").convert(CHANGJIAN)):
        s = score_poem(text, None)
        d = s.diagnostics
        assert {k: d["lines"][k]["tones"] for k in HAND} == HAND
        assert d["ti"] == "古体"
        assert "出律 (三平调 in 2 lines, the mark of 古风)" in d["gu"]["reasons"]
        assert (s.metrics["pattern"], s.metrics["faults"]) == (None, None)
        assert s.metrics["rhyme"] == 1.0  # 云君纹群 上平十二文


def test_broken_copy_with_one_san_ping_line_stays_jin_ti() -> None:
    # 药院滋苔纹 -> 药院积苔纹 (积 入声 仄: 仄仄仄平平, on the pattern): one 三平调 left, a
    # 律 fault, not a 古体
    one = CHANGJIAN.replace("药院滋苔纹", "药院积苔纹")
    s = score_poem(one, None)
    assert s.diagnostics.get("ti") != "古体"
    assert [f["fault"] for f in s.diagnostics["faults"]] == ["三平尾"]
    assert s.metrics["faults"] is not None and s.metrics["faults"] < 1.0


def test_given_as_lushi_the_notice_says_so() -> None:
    s = score_poem(CHANGJIAN, "shi:lushi5")
    assert s.diagnostics["ti"] == "古体" and "notice" in s.diagnostics
