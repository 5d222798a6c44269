"""古体 of any shape (issue 22 item 5, scoring/prosody/guti.py) and 排律 (shi.PAILU).

Every rhyme group below was written by hand from the 平水韵 (the 106 rhymes as 王力
《诗词格律》's appendix and the 《佩文诗韵》 name them) and is checked here against the
bundled 平水韵 file itself (``scoring/prosody/data/rhyme/Pingshui_Rhyme.json``, read with
``json`` in this test, not through the platform's tables); the rhyme shares are computed in
the test from these hand tables.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.prosody import score_poem
from scoring.prosody.explain import notes

PINGSHUI = Path(__file__).resolve().parents[2] / "scoring/prosody/data/rhyme/Pingshui_Rhyme.json"


def _book() -> dict[str, set[str]]:
    """Character -> its 平水韵 rhymes, labelled 上平/下平/上声/去声/入声 + name."""
    out: dict[str, set[str]] = {}
    for section, rhymes in json.loads(PINGSHUI.read_text(encoding="utf-8")).items():
        for name, chars in rhymes.items():
            label = name if name.startswith(section[:2]) else section[:2] + name
            for ch in chars:
                out.setdefault(ch, set()).add(label)
    return out


BOOK = _book()

# Each segment: (first line, last line) 0-based, its rhyme positions' characters with their
# 平水韵 rhymes by hand, the segment's rhyme, and which positions miss it strictly /
# leniently (邻韵 of rhyme.SHI_NEIGHBOURS and, 仄, rhyme.GUTI_ZE_NEIGHBOURS: 雪 屑 joins 月).
Seg = tuple[tuple[int, int], list[tuple[str, str]], str, str, str]

JIANG_JIN_JIU = (
    "君不见黄河之水天上来，奔流到海不复回。君不见高堂明镜悲白发，朝如青丝暮成雪。"
    "人生得意须尽欢，莫使金樽空对月。天生我材必有用，千金散尽还复来。"
    "烹羊宰牛且为乐，会须一饮三百杯。岑夫子，丹丘生，将进酒，君莫停。"
    "与君歌一曲，请君为我侧耳听。钟鼓馔玉不足贵，但愿长醉不愿醒。"
    "古来圣贤皆寂寞，惟有饮者留其名。陈王昔时宴平乐，斗酒十千恣欢谑。"
    "主人何为言少钱，径须沽取对君酌。五花马，千金裘，呼儿将出换美酒，与尔同销万古愁。"
)
JIANG_JIN_JIU_TRAD = (
    "君不見黃河之水天上來，奔流到海不復迴。君不見高堂明鏡悲白髮，朝如青絲暮成雪。"
    "人生得意須盡歡，莫使金樽空對月。天生我材必有用，千金散盡還復來。"
    "烹羊宰牛且爲樂，會須一飲三百盃。岑夫子，丹丘生，將進酒，君莫停。"
    "與君歌一曲，請君爲我側耳聽。鐘鼓饌玉不足貴，但願長醉不願醒。"
    "古來聖賢皆寂寞，惟有飲者留其名。陳王昔時宴平樂，斗酒十千恣讙謔。"
    "主人何爲言少錢，徑須沽取對君酌。五花馬，千金裘，呼兒將出換美酒，與爾同銷萬古愁。"
)
# strict / lenient misses as strings of "x" (miss) and "." (rhymes), position by position
JIANG_SEGS: list[Seg] = [
    ((0, 1), [("来", "上平十灰"), ("回", "上平十灰")], "上平十灰", "..", ".."),
    (
        (2, 5),
        [("发", "入声六月"), ("雪", "入声九屑"), ("月", "入声六月")],
        "入声六月",
        ".x.",
        "...",  # 雪 屑 with 月: 月屑 邻韵 (rhyme.GUTI_ZE_NEIGHBOURS, the issue-22 probe)
    ),
    ((6, 9), [("来", "上平十灰"), ("杯", "上平十灰")], "上平十灰", "..", ".."),
    (
        (10, 19),
        [
            ("生", "下平八庚"),
            ("停", "下平九青"),
            ("听", "下平九青"),
            ("醒", "下平九青"),
            ("名", "下平八庚"),
        ],
        "下平九青",
        "x...x",
        ".....",
    ),
    (
        (20, 23),
        [("乐", "入声十药"), ("谑", "入声十药"), ("酌", "入声十药")],
        "入声十药",
        "...",
        "...",
    ),
    ((24, 27), [("裘", "下平十一尤"), ("愁", "下平十一尤")], "下平十一尤", "..", ".."),
]

SHI_HAO_LI = (
    "暮投石壕村，有吏夜捉人。老翁逾墙走，老妇出门看。吏呼一何怒！妇啼一何苦！"
    "听妇前致词：三男邺城戍。一男附书至，二男新战死。存者且偷生，死者长已矣！"
    "室中更无人，惟有乳下孙。有孙母未去，出入无完裙。老妪力虽衰，请从吏夜归。"
    "急应河阳役，犹得备晨炊。夜久语声绝，如闻泣幽咽。天明登前途，独与老翁别。"
)
SHI_HAO_LI_TRAD = (
    "暮投石壕村，有吏夜捉人。老翁逾牆走，老婦出門看。吏呼一何怒！婦啼一何苦！"
    "聽婦前致詞：三男鄴城戍。一男附書至，二男新戰死。存者且偷生，死者長已矣！"
    "室中更無人，惟有乳下孫。有孫母未去，出入無完裙。老嫗力雖衰，請從吏夜歸。"
    "急應河陽役，猶得備晨炊。夜久語聲絕，如聞泣幽咽。天明登前途，獨與老翁別。"
)
# 村人看: 杜甫 rhymes 元 真 寒 together (古体 通押 of -n rhymes); the platform's 邻韵 sets
# are 真文元 and 元寒删先, neither holding all three: 人 stays a miss even leniently.
# 至 (去声四寘) before 死矣 (上声四纸) is an opening line, not a rhyme position.
SHI_SEGS: list[Seg] = [
    (
        (0, 3),
        [("村", "上平十三元"), ("人", "上平十一真"), ("看", "上平十四寒")],
        "上平十三元",
        ".xx",
        ".x.",
    ),
    (
        (4, 7),
        [("怒", "去声七遇"), ("苦", "去声七遇"), ("戍", "去声七遇")],
        "去声七遇",
        "...",
        "...",
    ),
    ((8, 11), [("死", "上声四纸"), ("矣", "上声四纸")], "上声四纸", "..", ".."),
    (
        (12, 15),
        [("人", "上平十一真"), ("孙", "上平十三元"), ("裙", "上平十二文")],
        "上平十一真",
        ".xx",
        "...",
    ),
    (
        (16, 19),
        [("衰", "上平四支"), ("归", "上平五微"), ("炊", "上平四支")],
        "上平四支",
        ".x.",
        "...",
    ),
    (
        (20, 23),
        [("绝", "入声九屑"), ("咽", "入声九屑"), ("别", "入声九屑")],
        "入声九屑",
        "...",
        "...",
    ),
]

# 白居易《琵琶行》 opening (to 犹抱琵琶半遮面): 客瑟 (入声十一陌 / 四质) do not rhyme in the
# 平水韵, so 瑟 is a miss of the first segment; 别 (九屑) rhymes with 月发 (六月) as 邻韵.
PI_PA = (
    "浔阳江头夜送客，枫叶荻花秋瑟瑟。主人下马客在船，举酒欲饮无管弦。"
    "醉不成欢惨将别，别时茫茫江浸月。忽闻水上琵琶声，主人忘归客不发。"
    "寻声暗问弹者谁，琵琶声停欲语迟。移船相近邀相见，添酒回灯重开宴。"
    "千呼万唤始出来，犹抱琵琶半遮面。"
)
PI_PA_SEGS: list[Seg] = [
    (
        (0, 3),
        [("瑟", "入声四质"), ("船", "下平一先"), ("弦", "下平一先")],
        "下平一先",
        "x..",
        "x..",
    ),
    (
        (4, 7),
        [("别", "入声九屑"), ("月", "入声六月"), ("发", "入声六月")],
        "入声六月",
        "x..",
        "...",  # 别月发: 屑 with 月, 邻韵 (before the probe, 别 was an unrhymed opening)
    ),
    ((8, 9), [("谁", "上平四支"), ("迟", "上平四支")], "上平四支", "..", ".."),
    (
        (10, 13),
        [("见", "去声十七霰"), ("宴", "去声十七霰"), ("面", "去声十七霰")],
        "去声十七霰",
        "...",
        "...",
    ),
]

# 白居易《长恨歌》 opening: 国得识侧色 入声十三职, 池脂时 四支, 摇宵朝 二萧.
CHANG_HEN = (
    "汉皇重色思倾国，御宇多年求不得。杨家有女初长成，养在深闺人未识。"
    "天生丽质难自弃，一朝选在君王侧。回眸一笑百媚生，六宫粉黛无颜色。"
    "春寒赐浴华清池，温泉水滑洗凝脂。侍儿扶起娇无力，始是新承恩泽时。"
    "云鬓花颜金步摇，芙蓉帐暖度春宵。春宵苦短日高起，从此君王不早朝。"
)
CHANG_HEN_SEGS: list[Seg] = [
    (
        (0, 7),
        [(c, "入声十三职") for c in "国得识侧色"],
        "入声十三职",
        ".....",
        ".....",
    ),
    ((8, 11), [(c, "上平四支") for c in "池脂时"], "上平四支", "...", "..."),
    ((12, 15), [(c, "下平二萧") for c in "摇宵朝"], "下平二萧", "...", "..."),
]

POEMS = {
    "李白《将进酒》": (JIANG_JIN_JIU, JIANG_SEGS, "杂言", True),
    "杜甫《石壕吏》": (SHI_HAO_LI, SHI_SEGS, "line count not 绝句/律诗 (24 lines of 5)", True),
    "白居易《琵琶行》开头": (PI_PA, PI_PA_SEGS, "line count not 绝句/律诗 (14 lines of 7)", True),
    "白居易《长恨歌》开头": (
        CHANG_HEN,
        CHANG_HEN_SEGS,
        "line count not 绝句/律诗 (16 lines of 7)",
        True,
    ),
}


def _share(segs: list[Seg], lenient: bool) -> float:
    marks = "".join(s[4] if lenient else s[3] for s in segs)
    return marks.count(".") / len(marks)


@pytest.mark.parametrize(
    "segs", [JIANG_SEGS, SHI_SEGS, PI_PA_SEGS, CHANG_HEN_SEGS], ids=list(POEMS)
)
def test_the_hand_groups_are_the_books(segs: list[Seg]) -> None:
    for _, chars, group, strict, _lenient in segs:
        for (ch, hand), miss in zip(chars, strict, strict=True):
            assert hand in BOOK[ch], (ch, hand, BOOK.get(ch))
            # a strict miss is a character the book does not list under the segment's rhyme
            assert (group in BOOK[ch]) == (miss == "."), (ch, group)


@pytest.mark.parametrize("title", list(POEMS))
def test_gu_ti_of_any_shape_in_rhyme_segments(title: str) -> None:
    text, segs, shape, changes = POEMS[title]
    s = score_poem(text, None)
    d = s.diagnostics
    assert s.form == "shi:guti" and d["ti"] == "古体" and d["detected"] == "shi:guti"
    assert (s.metrics["pattern"], s.metrics["pattern_licensed"], s.metrics["faults"]) == (
        None,
        None,
        None,
    )
    assert d["faults"] == [] and d["licences"] == []
    reasons = d["gu"]["reasons"]
    assert reasons[0].startswith(shape)
    assert any(r.startswith(f"换韵 ({len(segs)} rhymes") for r in reasons) == changes
    got = [(x["lines"], x["chars"], x["group"]) for x in d["rhyme"]["sets"]]
    want = [(list(lines), "".join(c for c, _ in chars), g) for lines, chars, g, _, _ in segs]
    assert got == want
    for x, (_, _, _, strict, lenient) in zip(d["rhyme"]["sets"], segs, strict=True):
        assert "".join("." if ok else "x" for ok in x["ok"]) == strict
        assert "".join("." if ok else "x" for ok in x["ok_lenient"]) == lenient
    assert s.metrics["rhyme"] == pytest.approx(_share(segs, lenient=False))
    assert s.metrics["rhyme_lenient"] == pytest.approx(_share(segs, lenient=True))
    oblique = [g for _, _, g, _, _ in segs if "平" not in g]
    assert any(r.startswith("仄韵") for r in reasons) == bool(oblique)
    shown = notes(d)
    assert shown[0].startswith("古体: ") and not any("None" in n for n in shown)


@pytest.mark.parametrize(
    ("simp", "trad"),
    [(JIANG_JIN_JIU, JIANG_JIN_JIU_TRAD), (SHI_HAO_LI, SHI_HAO_LI_TRAD)],
    ids=["将进酒", "石壕吏"],
)
def test_traditional_and_simplified_copies_agree(simp: str, trad: str) -> None:
    s, t = score_poem(simp, None), score_poem(trad, None)
    assert t.form == s.form == "shi:guti"
    assert t.metrics == s.metrics and t.diagnostics["gu"] == s.diagnostics["gu"]
    strip = ("chars",)  # the characters as written differ (來/来); the rest must not

    def sets(d: dict) -> list[dict]:
        return [{k: v for k, v in x.items() if k not in strip} for x in d["rhyme"]["sets"]]

    assert sets(t.diagnostics) == sets(s.diagnostics)
    assert [x["tones"] for x in t.diagnostics["lines"]] == [
        x["tones"] for x in s.diagnostics["lines"]
    ]


def test_a_broken_copy_fails_where_it_should() -> None:
    # 与尔同销万古愁 -> 万古恨: 恨 (去声十四愿) rhymes with nothing; the 尤 segment is gone
    assert "去声十四愿" in BOOK["恨"] and not BOOK["恨"] & BOOK["裘"]
    s = score_poem(JIANG_JIN_JIU.replace("万古愁", "万古恨"), None)
    sets = s.diagnostics["rhyme"]["sets"]
    assert all("愁" not in x["chars"] for x in sets)
    last = sets[-1]
    assert last["chars"].endswith("恨") and last["ok"][-1] is False
    before = score_poem(JIANG_JIN_JIU, None).metrics["rhyme"]
    assert s.metrics["rhyme"] is not None and before is not None
    assert s.metrics["rhyme"] < before
    # 石壕吏 with its last rhyme changed to 去 (去声六御): 绝咽 rhyme, 去 misses
    assert "入声九屑" not in BOOK["去"]
    s = score_poem(SHI_HAO_LI.replace("老翁别", "老翁去"), None)
    last = s.diagnostics["rhyme"]["sets"][-1]
    assert (last["chars"], last["group"], last["ok"]) == ("绝咽去", "入声九屑", [True, True, False])


# 王维《送秘书晁监还日本国》: a 五言排律 of twelve lines, 东空风红中通 all 上平一东, 粘对 kept.
PAILU = (
    "积水不可极，安知沧海东。九州何处远，万里若乘空。向国惟看日，归帆但信风。"
    "鳌身映天黑，鱼眼射波红。乡树扶桑外，主人孤岛中。别离方异域，音信若为通。"
)


def test_a_pailu_stays_jin_ti_with_its_lu_figures() -> None:
    assert all("上平一东" in BOOK[c] for c in "东空风红中通")
    s = score_poem(PAILU, None)
    assert s.form == "shi:pailu5" and "ti" not in s.diagnostics
    assert s.diagnostics["detected"] == "shi:pailu5"
    assert s.metrics["faults"] == 1.0 and s.metrics["pattern_licensed"] == 1.0
    assert s.metrics["rhyme"] == 1.0
    (rs,) = s.diagnostics["rhyme"]["sets"]
    assert (rs["chars"], rs["group"]) == ("东空风红中通", "上平一东")
    assert len(s.diagnostics["lines"]) == 12
    assert all(len(x["required"]) == 5 for x in s.diagnostics["lines"])
    # the same poem given as 排律 scores the same
    assert score_poem(PAILU, "shi:pailu5").metrics == s.metrics


def test_a_broken_pailu_reads_gu_ti() -> None:
    # the last three rhymes moved to 阳 (光旁长, level tones: the 粘对 stay): 换韵 -> 古体
    assert all("下平七阳" in BOOK[c] for c in "光旁长")
    text = PAILU.replace("波红", "波光").replace("岛中", "岛旁").replace("为通", "为长")
    s = score_poem(text, None)
    assert s.form == "shi:guti" and s.diagnostics["ti"] == "古体"
    assert s.diagnostics["gu"]["reasons"][:2] == [
        "line count not 绝句/律诗 (12 lines of 5), and not 排律",
        "换韵 (2 rhymes, from lines 1, 7)",
    ]
    got = [(x["chars"], x["group"]) for x in s.diagnostics["rhyme"]["sets"]]
    assert got == [("东空风", "上平一东"), ("光旁长", "下平七阳")]
    # given as 排律, the form stays and a notice says the text reads as 古体
    given = score_poem(text, "shi:pailu5")
    assert given.form == "shi:pailu5" and "reads as 古体" in given.diagnostics["notice"]


def test_a_ci_shape_with_ci_tones_is_not_read_as_gu_ti() -> None:
    # 苏轼《浣溪沙》 without its title: six lines of seven, 浣溪沙's lines and tones
    huanxisha = (
        "山下兰芽短浸溪，松间沙路净无泥，萧萧暮雨子规啼。"
        "谁道人生无再少？门前流水尚能西！休将白发唱黄鸡。"
    )
    s = score_poem(huanxisha, None)
    assert s.form is None and "ci:浣溪沙" in s.diagnostics["error"]
    # 李白《金陵酒肆留别》: six lines of seven too, but its tones fit 浣溪沙 at 0.69: 古体
    jinling = (
        "风吹柳花满店香，吴姬压酒劝客尝。金陵子弟来相送，欲行不行各尽觞。"
        "请君试问东流水，别意与之谁短长。"
    )
    s = score_poem(jinling, None)
    assert s.form == "shi:guti" and s.metrics["rhyme"] == 1.0
    assert s.diagnostics["rhyme"]["sets"][0]["chars"] == "香尝觞长"
    assert all("下平七阳" in BOOK[c] for c in "香尝觞长")


def test_shapes_that_are_not_gu_ti() -> None:
    # a 水调歌头 (many four- and six-character phrases) is no 杂言 古体
    s = score_poem(
        "明月几时有？把酒问青天。不知天上宫阙，今夕是何年。我欲乘风归去，又恐琼楼玉宇，"
        "高处不胜寒。起舞弄清影，何似在人间。转朱阁，低绮户，照无眠。不应有恨，"
        "何事长向别时圆？人有悲欢离合，月有阴晴圆缺，此事古难全。但愿人长久，千里共婵娟。",
        None,
    )
    assert s.form != "shi:guti"
    # three lines are too few; a 律诗 with one character lost is a broken text
    assert score_poem("大风起兮云飞扬，威加海内兮归故乡，安得猛士兮守四方！", None).form is None
    broken = "国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。烽火连三月，家书万金。白头搔更短，浑欲不胜簪。"
    assert score_poem(broken, None).form is None


def test_modern_system_and_given_form() -> None:
    s = score_poem(JIANG_JIN_JIU, None, tone_system="modern")
    assert s.form == "shi:guti" and s.diagnostics["rhyme"]["book"] == "中华新韵"
    assert not any(r.startswith("仄韵") for r in s.diagnostics["gu"]["reasons"])
    # a form given as shi:guti is read as 古体 whatever the shape
    g = score_poem("空山不见人，但闻人语响。返景入深林，复照青苔上。", "shi:guti")
    assert (
        g.form == "shi:guti" and g.diagnostics["gu"]["reasons"][0] == "the form given is shi:guti"
    )
    assert g.diagnostics["rhyme"]["sets"][0]["group"] == "上声二十二养"


# docs/prosody.md §5.0 and the validation table: how the bundled 唐诗三百首's poems the
# source tags 五言古诗 / 七言古诗 / 乐府 are read (before prosody-1.7: 五古 8 古体, 2 近体, 22
# undetected; 七古 1, 0, 25; 乐府 5, 30, 38).  The undetected are texts a mark broke (a
# bracketed character cut a line: 寻西山隐者不遇, 贼退示官吏, 渔翁, 关山月 of 13 lines) and
# 陈子昂《登幽州台歌》 (lines of 5, 5, 6, 6: half its characters in even lines, 楚辞-like).
TANG300_READ = {
    # 28 / 2: 常建《宿王昌龄隐居》, 王维《送綦毋潜落第还乡》《西施咏》 read 古体 by their two
    # 三平调 lines since the issue-22 probe (gu.SAN_PING_LINES; before: 25 / 5)
    "五言古诗": {"古体": 28, "近体": 2, "undetected": 2},
    "七言古诗": {"古体": 24, "undetected": 2},
    "乐府": {"古体": 41, "近体": 31, "undetected": 1},
}
# the 五古 and 乐府 of 排律 shape that keep the 律 under gu.chu_lu's threshold (入律的古风)
TANG300_PAILU = {"渭川田家", "橫吹曲辭 關山月"}


def test_how_the_tang_300_gu_ti_are_read() -> None:
    corpus = Path(__file__).resolve().parents[2] / "data/corpus/tang_300.json"
    counts: dict[str, dict[str, int]] = {tag: {} for tag in TANG300_READ}
    pailu = set()
    for p in json.loads(corpus.read_text(encoding="utf-8")):
        tags = [t for t in p["tags"] if t in TANG300_READ]
        if not tags:
            continue
        s = score_poem("\n".join(p["paragraphs"]), None)
        read = (
            "undetected"
            if s.form is None
            else "古体"
            if s.diagnostics.get("ti") == "古体"
            else "近体"
        )
        if s.form in ("shi:pailu5", "shi:pailu7"):
            pailu.add(p["title"])
        for tag in tags:
            counts[tag][read] = counts[tag].get(read, 0) + 1
    assert counts == TANG300_READ
    assert pailu == TANG300_PAILU


@pytest.mark.slow
def test_song_ci_without_a_title_are_rarely_read_as_gu_ti() -> None:
    # docs/prosody.md §5.0.1: 55 of the 10,707 bundled Song ci (0.5%) given with no form
    # and no title read as 古体; the rest fit a tune in lines and tones, or no 古体 shape
    corpus = Path(__file__).resolve().parents[2] / "data/corpus/song_ci_30cipai.jsonl"
    forms: dict[str | None, int] = {}
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            form = score_poem(json.loads(line)["text"], None).form
            forms[form] = forms.get(form, 0) + 1
    assert sum(forms.values()) == 10707
    assert forms.get("shi:guti") == 55


@pytest.mark.parametrize("head", ["将进酒\n", "将进酒\n李白\n", "将进酒 李白\n"])
def test_a_bare_title_line_is_no_line_of_a_za_yan_poem(head: str) -> None:
    # an unpunctuated head line above a punctuated 杂言 text is its title, not a 3-char line
    s = score_poem(head + JIANG_JIN_JIU, None)
    base = score_poem(JIANG_JIN_JIU, None)
    assert s.form == "shi:guti" and s.metrics == base.metrics
    assert s.diagnostics["stripped"]["header"] == [x for x in head.split("\n") if x]
    assert len(s.diagnostics["lines"]) == 28
    # a 齐言 古体 under a title of three characters: the title would make it 杂言
    c = score_poem("长恨歌\n" + CHANG_HEN, None)
    assert c.diagnostics["gu"]["reasons"][0].startswith("line count not 绝句/律诗 (16 lines")
