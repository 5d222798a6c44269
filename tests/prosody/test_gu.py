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


# 换韵 and 出律 (gu.huan_yun, gu.chu_lu), hand-checked against the 平水韵 and the tones below.
# title: (simplified, traditional, reason prefix, rhyme sets as (characters, 平水韵 rhyme))
MORE = {
    # 昏喧门 上平十三元, then 处去 上声六语 (and 去声六御): a new rhyme from line 5
    "孟浩然《夜归鹿门山歌》": (
        "山寺钟鸣昼已昏，渔梁渡头争渡喧。人随沙路向江村，余亦乘舟归鹿门。"
        "鹿门月照开烟树，忽到庞公栖隐处。岩扉松径长寂寥，惟有幽人夜来去。",
        "山寺鐘鳴晝已昏，漁梁渡頭爭渡喧。人隨沙路向江村，余亦乘舟歸鹿門。"
        "鹿門月照開煙樹，忽到龐公棲隱處。巖扉松徑長寂寥，惟有幽人夜來去。",
        "换韵 (a new rhyme from line 5)",
        [("昏喧门", "上平十三元"), ("处去", "上声六语")],
    ),
    # 平平平仄平 / 平仄仄仄平 (孤平) / 仄平仄平仄 / 平平平仄平: 失粘 是/头, 失对 头/头
    "李白《静夜思》": (
        "床前明月光，疑是地上霜。举头望山月，低头思故乡。",
        "牀前明月光，疑是地上霜。舉頭望山月，低頭思故鄉。",
        "出律 (粘对 broken at 2 of 3 joins)",
        [("光霜乡", "下平七阳")],
    ),
    # 平仄仄平仄 / 仄仄仄平平: 失对 日/手; 仄平平仄仄: 失粘 手/谙
    "王建《新嫁娘词》": (
        "三日入厨下，洗手作羹汤。未谙姑食性，先遣小姑尝。",
        "三日入廚下，洗手作羹湯。未諳姑食性，先遣小姑嘗。",
        "出律 (粘对 broken at 2 of 3 joins)",
        [("汤尝", "下平七阳")],
    ),
}


@pytest.mark.parametrize("title", list(MORE))
def test_changed_rhyme_and_broken_metre_read_as_gu_ti(title: str) -> None:
    simp, trad, why, sets = MORE[title]
    s = score_poem(simp, None)
    assert s.diagnostics["ti"] == "古体"
    assert s.diagnostics["gu"]["reasons"][0].startswith(why)
    assert (s.metrics["pattern"], s.metrics["faults"], s.metrics["rhyme"]) == (None, None, 1.0)
    got = [(x["chars"], x["group"]) for x in s.diagnostics["rhyme"]["sets"]]
    assert got == sets
    t = score_poem(trad, None)
    assert t.metrics == s.metrics and t.diagnostics["gu"] == s.diagnostics["gu"]
    assert [x["tones"] for x in t.diagnostics["lines"]] == [
        x["tones"] for x in s.diagnostics["lines"]
    ]
    given = score_poem(simp, s.form)
    assert "reads as 古体" in given.diagnostics["notice"]


def test_broken_copies() -> None:
    # 换韵 broken: 处 -> 地 (去声四寘) leaves the second part one rhyme line, no new rhyme
    text = MORE["孟浩然《夜归鹿门山歌》"][0].replace("栖隐处", "栖隐地")
    s = score_poem(text, None)
    assert not any(r.startswith("换韵") for r in s.diagnostics["gu"]["reasons"])
    assert s.metrics["rhyme"] == pytest.approx(3 / 5)  # 昏喧门 rhyme, 地 去 do not
    # 古绝 rhyme broken: 乡 -> 园 (上平十三元): 霜 and 园 share no rhyme (光 joins neither)
    s = score_poem(MORE["李白《静夜思》"][0].replace("故乡", "故园"), None)
    assert s.diagnostics["ti"] == "古体" and s.metrics["rhyme"] == 0.5


DENG = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"


def test_the_threshold_is_conservative() -> None:
    # one couplet out (白云: 云/河 both 平, 失对) stays 近体 with its fault
    one = score_poem(DENG.replace("白日", "白云"), None)
    assert "ti" not in one.diagnostics
    assert [f["fault"] for f in one.diagnostics["faults"]] == ["失对"]
    # both couplets out (更登: 穷/登 both 平, 失对 again): 出律, 古体
    two = score_poem(DENG.replace("白日", "白云").replace("更上", "更登"), None)
    assert two.diagnostics["ti"] == "古体"
    # 崔颢《黄鹤楼》: 拗律 (王力), two of four couplets out -- stays 近体, 三平尾 reported
    hhl = score_poem(
        "昔人已乘黄鹤去，此地空余黄鹤楼。黄鹤一去不复返，白云千载空悠悠。"
        "晴川历历汉阳树，芳草萋萋鹦鹉洲。日暮乡关何处是？烟波江上使人愁。",
        None,
    )
    assert "ti" not in hhl.diagnostics and hhl.form == "shi:lushi7"
    assert [f["fault"] for f in hhl.diagnostics["faults"]] == ["三平尾"]
    # 祖咏《终南望余雪》: 积雪浮云端 三平调, the mark of 古风, but alone: stays 近体
    zn = score_poem("终南阴岭秀，积雪浮云端。林表明霁色，城中增暮寒。", None)
    assert "ti" not in zn.diagnostics
    assert zn.diagnostics["faults"] == [{"fault": "三平尾", "line": 1}]
    # no 换韵 or 出律 under the modern system: 静夜思 keeps its 律 faults there
    assert "ti" not in score_poem(MORE["李白《静夜思》"][0], None, tone_system="modern").diagnostics


def test_neighbouring_rhymes_are_no_change_of_rhyme() -> None:
    # 红中 上平一东, then 松钟 上平二冬: neighbours (邻韵), so no 换韵 -- 近体 with a miss
    base = "春风入小窗，花开满院红。鸟啼深树里，人在画图中。江上行舟客，山间有古{}。归来明月夜，独坐听寒{}。"
    s = score_poem(base.format("松", "钟"), None)
    assert "ti" not in s.diagnostics
    # 香阳 下平七阳 is no neighbour of 东: 换韵 from line 5
    s = score_poem(base.format("香", "阳"), None)
    assert s.diagnostics["gu"]["reasons"] == ["换韵 (a new rhyme from line 5)"]
