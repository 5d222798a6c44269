"""古体 recognised among poems of 近体 shape (issue 22, item 5): 仄韵 poems get no 律
figures, their rhyme is read in the whole 平水韵, and a form given as 近体 is flagged."""

from __future__ import annotations

import pytest

from scoring.prosody import score_poem
from scoring.prosody.explain import notes

GU = {
    # title: (text, form, rhyme characters, 平水韵 rhyme)
    "王维《鹿柴》": (
        "空山不见人，但闻人语响。返景入深林，复照青苔上。",
        "shi:jueju5",
        "响上",
        "上声二十二养",
    ),
    "柳宗元《江雪》": (
        "千山鸟飞绝，万径人踪灭。孤舟蓑笠翁，独钓寒江雪。",
        "shi:jueju5",
        "绝灭雪",
        "入声九屑",
    ),
    "孟浩然《春晓》": (
        "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。",
        "shi:jueju5",
        "晓鸟少",
        "上声十七筱",
    ),
    "贾岛《寻隐者不遇》": (
        "松下问童子，言师采药去。只在此山中，云深不知处。",
        "shi:jueju5",
        "去处",
        "上声六语",
    ),
    "杜甫《望岳》": (
        "岱宗夫如何？齐鲁青未了。造化钟神秀，阴阳割昏晓。荡胸生曾云，决眦入归鸟。会当凌绝顶，一览众山小。",
        "shi:lushi5",
        "了晓鸟小",
        "上声十七筱",
    ),
}


@pytest.mark.parametrize("title", list(GU))
def test_oblique_rhymed_poems_read_as_gu_ti(title: str) -> None:
    text, form, chars, group = GU[title]
    s = score_poem(text, None)
    assert s.form == form and s.diagnostics["ti"] == "古体"
    assert s.diagnostics["gu"]["reasons"][0].startswith("仄韵")
    assert (s.metrics["pattern"], s.metrics["pattern_licensed"], s.metrics["faults"]) == (None,) * 3
    assert s.diagnostics["faults"] == []
    rs = s.diagnostics["rhyme"]["sets"][0]
    assert (rs["chars"], rs["group"], s.metrics["rhyme"]) == (chars, group, 1.0)
    assert "notice" not in s.diagnostics  # the form was detected, not given
    given = score_poem(text, form)
    assert "reads as 古体" in given.diagnostics["notice"]
    assert given.diagnostics["notice"] in notes(given.diagnostics)


def test_a_broken_gu_ti_rhyme_is_a_miss() -> None:
    # 独钓寒江雪 -> 独钓寒江月: 月 is 入声六月, not 九屑 with 绝 灭
    s = score_poem(GU["柳宗元《江雪》"][0].replace("江雪", "江月"), None)
    assert s.diagnostics["ti"] == "古体" and s.metrics["rhyme"] == pytest.approx(2 / 3)


def test_traditional_and_simplified_copies_agree() -> None:
    trad = score_poem("千山鳥飛絕，萬徑人蹤滅。孤舟蓑笠翁，獨釣寒江雪。", None)
    simp = score_poem(GU["柳宗元《江雪》"][0], None)
    assert trad.metrics == simp.metrics
    assert trad.diagnostics["rhyme"]["sets"][0]["group"] == "入声九屑"


def test_regulated_poems_stay_jin_ti() -> None:
    for text in (
        "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。",
        "国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。烽火连三月，家书抵万金。白头搔更短，浑欲不胜簪。",
    ):
        s = score_poem(text, None)
        assert "ti" not in s.diagnostics and s.metrics["faults"] is not None
