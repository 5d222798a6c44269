"""The characters 平水韵 lists under both tones, read by 《广韵》 (issue 22, prosody-1.8).

Hand-checked Song ci (bundled ``song_ci_30cipai.jsonl``), each read against its 词谱 and
《广韵》: a character the reading table now reads by its classical sense stands at a fixed
position of the template, so the reading decides a mismatch.  Each poem was scored 1.0 only
with the new entries (before, with pypinyin's modern reading: 苏轼 0.982, 舒亶 0.976, 张纲
0.976, 贺铸 0.976); each has a broken copy that fails at the position it should, and its
traditional copy scores identically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scoring.prosody import char_tones, score_poem
from scoring.prosody.normalize import to_simplified
from scoring.prosody.senses import polyphones
from scoring.prosody.tables import pingshui

TABLE = Path(__file__).resolve().parents[2] / "scoring/prosody/data/readings/polyphones.json"

# (form, simplified text, traditional text, line index, position, char, decided by, pinyin,
#  broken copy of that line, what the broken copy reads there)
POEMS = [
    # 苏轼《鹧鸪天》: 玉手轻弹水面冰 仄仄平平仄仄平 -- 弹 is the verb (徒干切 射也, 平), not
    # the pellet dàn; broken: 抚 (上声) where the template wants 平
    (
        "ci:鹧鸪天",
        "罗带双垂画不成。殢人娇态最轻盈。酥胸斜抱天边月，玉手轻弹水面冰。无限事，许多情。"
        "四弦丝竹苦丁宁。饶君拨尽相思调，待听梧桐叶落声。",
        "羅帶雙垂畫不成。殢人嬌態最輕盈。酥胸斜抱天邊月，玉手輕彈水面冰。無限事，許多情。"
        "四弦絲竹苦丁寧。饒君撥盡相思調，待聽梧桐葉落聲。",
        3,
        3,
        "弹",
        "common",
        "tan2",
        ("玉手轻弹水面冰", "玉手轻抚水面冰"),
    ),
    # 舒亶《浣溪沙》: 几人心手斗纵横 仄平平仄仄平平 -- 纵横 zōng (即容切 縱橫也, 平); broken:
    # 纵情, where 纵 is 放纵 (子用切, 去)
    (
        "ci:浣溪沙",
        "黑白纷纷小战争。几人心手斗纵横。谁知胜处本无情。谢傅老来思别墅，杜郎闲去忆鏖兵。"
        "何妨谈笑下辽城。",
        "黑白紛紛小戰爭。幾人心手鬥縱橫。誰知勝處本無情。謝傅老來思別墅，杜郎閒去憶鏖兵。"
        "何妨談笑下遼城。",
        1,
        5,
        "纵",
        "phrase:纵横",
        "zong1",
        ("几人心手斗纵横", "几人心手斗纵情"),
    ),
    # 张纲《浣溪沙》: 宴堂深处强追陪 仄平平仄仄平平 -- 强 = 勉强 (彊 其两切, 上声); broken:
    # 强人, where 强 is 强健 (巨良切, 平)
    (
        "ci:浣溪沙",
        "过隙光阴还自催。生朝又送一年来。宴堂深处强追陪。眼眩岂堪花里笑，眉攒聊向酒边开。"
        "与君同醉莫辞杯。",
        "過隙光陰還自催。生朝又送一年來。宴堂深處強追陪。眼眩豈堪花裏笑，眉攢聊向酒邊開。"
        "與君同醉莫辭杯。",
        2,
        4,
        "强",
        "phrase:强追",
        "qiang3",
        ("宴堂深处强追陪", "宴堂深处强人陪"),
    ),
    # 贺铸《浣溪沙》: 厌厌此夜奈愁何 平平仄仄仄平平 -- 厌厌 (懕 一盐切 安也, 平; 诗 厌厌夜饮);
    # broken: 厌倦, 倦 去声 where the template wants 平
    (
        "ci:浣溪沙",
        "两点春山一寸波。当筵娇甚不成歌。动人情态可须多。金井露寒风下叶，画桥云断月侵河。"
        "厌厌此夜奈愁何。",
        "兩點春山一寸波。當筵嬌甚不成歌。動人情態可須多。金井露寒風下葉，畫橋雲斷月侵河。"
        "厭厭此夜奈愁何。",
        5,
        1,
        "厌",
        "phrase:厌厌",
        "yan1",
        ("厌厌此夜奈愁何", "厌倦此夜奈愁何"),
    ),
]

# 刘克庄《贺新郎》 (宋词三百首): 更那堪 仄平平 in 龙榆生's form
LIU_KEZHUANG = (
    "湛湛长空黑。更那堪、斜风细雨，乱愁如织。老眼平生空四海，赖有高楼百尺。看浩荡、千崖秋色。"
    "白发书生神州泪，尽凄凉、不向牛山滴。追往事，去无迹。少年自负凌云笔。到而今、春华落尽，"
    "满怀萧瑟。常恨世人新意少，爱说南朝狂客。把破帽、年年拈出。若对黄花孤负酒，怕黄花、"
    "也笑人岑寂。鸿北去，日西匿。"
)
# the 钦定词谱's example of 渔家傲 (its 又一体 as CCiV ships it): 那堪往事思量遍, 那 仄
YUJIAAO = (
    "疏雨才收淡净天，微云绽处月婵娟，寒雁一声人正远，添幽怨，那堪往事思量遍。"
    "谁道绸缪两意坚，水萍风絮不相缘，舞鉴鸾肠虚寸断，芳容变，好将憔悴教伊见。"
)


def _line(text: str, form: str, k: int) -> tuple[float | None, dict[str, Any]]:
    s = score_poem(text, form, tone_system="classical")
    return s.metrics["tonal"], s.diagnostics["lines"][k]


@pytest.mark.parametrize(
    ("form", "text", "trad", "k", "i", "char", "by", "pinyin", "broken"), POEMS
)
def test_the_classical_reading_decides_the_mismatch(
    form: str,
    text: str,
    trad: str,
    k: int,
    i: int,
    char: str,
    by: str,
    pinyin: str,
    broken: tuple[str, str],
) -> None:
    tonal, line = _line(text, form, k)
    assert tonal == 1.0 and line["mismatches"] == []
    decided = {r["index"]: r for r in line["readings"]}[i]
    assert (decided["char"], decided["by"], decided["pinyin"]) == (char, by, pinyin)
    # the traditional copy: the same metrics and tones
    a = score_poem(text, form, tone_system="classical")
    b = score_poem(trad, form, tone_system="classical")
    assert a.metrics == b.metrics
    assert [x["tones"] for x in a.diagnostics["lines"]] == [
        x["tones"] for x in b.diagnostics["lines"]
    ]
    # the broken copy fails at that position (and only the text changed there)
    good, bad = broken
    tonal_b, line_b = _line(text.replace(good, bad), form, k)
    assert tonal_b is not None and tonal_b < 1.0 and i in line_b["mismatches"]


def test_na_is_read_by_its_words() -> None:
    # 那堪/那得 (诺何切 何也): 两读 -- 龙榆生 reads 更那堪 平 (贺新郎), the 钦定词谱's example
    # 那堪往事 仄 (渔家傲): the metre decides, never a mismatch; 无那/那人 去 (奴箇切);
    # a bare 那 keeps the contextual reading
    assert polyphones()["那"].default is None
    kan = char_tones("更那堪冷落", tone_system="classical", form_family="ci")[1]
    assert (kan.decided_by, kan.mark) == ("metre", "中")
    wu = char_tones("无那尘缘容易绝", tone_system="classical", form_family="ci")[1]
    assert (wu.decided_by, wu.tone) == ("phrase:无那", "仄")
    bare = char_tones("问那", tone_system="classical", form_family="shi")[1]
    assert bare.decided_by == "" and bare.mark == "中"
    liu = score_poem(LIU_KEZHUANG, "ci:贺新郎", tone_system="classical")
    assert liu.metrics["tonal"] == 1.0
    line = next(x for x in liu.diagnostics["lines"] if x["text"] == "更那堪")
    assert line["tones"][1] == "平" and line["required"][1] == "平"
    yu = score_poem(YUJIAAO, "ci:渔家傲", tone_system="classical", cipu_source="qinding")
    assert yu.metrics["tonal"] == 1.0
    line = next(x for x in yu.diagnostics["lines"] if x["text"] == "那堪往事思量遍")
    assert line["tones"][0] == "仄" and line["required"][0] == "仄"
    # broken: 那人 (demonstrative, 去) where 贺新郎 wants 平
    broken = score_poem(LIU_KEZHUANG.replace("更那堪", "更那人"), "ci:贺新郎")
    line = next(x for x in broken.diagnostics["lines"] if x["text"] == "更那人")
    assert 1 in line["mismatches"]


def test_dan_the_pellet_is_oblique() -> None:
    verb = char_tones("偷弹清泪", tone_system="classical", form_family="shi")[1]
    pellet = char_tones("金弹落飞鸟", tone_system="classical", form_family="shi")[1]
    assert (verb.tone, verb.pinyin, verb.mark) == ("平", "tan2", "中")
    assert (pellet.tone, pellet.decided_by) == ("仄", "phrase:金弹")


def test_a_one_tone_book_keeps_its_mark() -> None:
    # 花: 《广韵》 呼瓜切 alone, 平水韵 also 上声四纸 (mark 中 in shi, as before); 词林正韵
    # lists it 平 only, and the commonest reading adds no 中 there
    shi = char_tones("花", tone_system="classical", form_family="shi")[0]
    ci = char_tones("花", tone_system="classical", form_family="ci")[0]
    assert (shi.tone, shi.mark, shi.decided_by) == ("平", "中", "common")
    assert (ci.tone, ci.mark) == ("平", "平")
    # 跳: 《广韵》 徒聊切 躍也 (平) against 词林正韵's 仄: the reading decides, mark 中
    tiao = char_tones("跳", tone_system="classical", form_family="ci")[0]
    assert (tiao.tone, tiao.mark) == ("平", "中")


def _pingshui_groups() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for section, sub in pingshui().items():
        prefix = section.removesuffix("部")
        for rhyme, chars in sub.items():
            if section in ("上平声部", "下平声部"):
                name = prefix.removesuffix("声") + rhyme
            else:
                name = rhyme if rhyme.startswith(prefix) else prefix + rhyme
            for ch in chars:
                out.setdefault(ch, set()).add(name)
    return out


def test_every_rhyme_named_is_one_of_the_characters_pingshui_groups() -> None:
    # checked against the bundled 平水韵 (characters it does not list, 荅 迹 跡 蹟 着, name
    # the rhyme of their graph), with the tone of the group's section
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    groups = _pingshui_groups()
    wrong = []
    for ch, e in data.items():
        if ch.startswith("_"):
            continue
        own = groups.get(ch, set()) | groups.get(to_simplified(ch), set())
        if not own:
            continue
        for r in e["readings"]:
            names = r["rhyme"].split(" / ")
            tones = {"平" if n.startswith(("上平", "下平")) else "仄" for n in names}
            expected = {"平", "仄"} if r["tone"] == "两" else {r["tone"]}
            if not set(names) <= own or tones != expected:
                wrong.append((ch, r["pinyin"], r["rhyme"]))
    assert wrong == []
    assert len(polyphones()) >= 300
