"""A philologist's review with poems the rules had not seen (docs/prosody.md §11).

Every expected tone below was read by hand from 平水韵 (shi) or 词林正韵 (ci), 入声 = 仄,
and every licence and fault against 王力《诗词格律》/《汉语诗律学》; each poem has a broken
copy that fails where it should.  Each test names the class of error it pins.
"""

from __future__ import annotations

import pytest

from scoring.prosody import char_tones, score_poem
from scoring.prosody.tables import pingshui_ping_groups, shi_tone_table

# 王维《送元二使安西》: the textbook 折腰体 (失粘 between lines 2 and 3) with 对句相救
# (一 拗 at the core's 3rd, 无 救).
YUAN_ER = "渭城朝雨浥轻尘，客舍青青柳色新。劝君更尽一杯酒，西出阳关无故人。"
# 王维《使至塞上》: 失粘 between lines 2 and 3; 候骑 jì, 燕然 yān.
SAISHANG = (
    "单车欲问边，属国过居延。征蓬出汉塞，归雁入胡天。"
    "大漠孤烟直，长河落日圆。萧关逢候骑，都护在燕然。"
)
# 杜甫《春夜喜雨》: 晓看 -- 看 平 by the metre.
XIYU = (
    "好雨知时节，当春乃发生。随风潜入夜，润物细无声。"
    "野径云俱黑，江船火独明。晓看红湿处，花重锦官城。"
)
# 杜甫《蜀相》: 自 拗, 空 救 (对句相救); 身先死 -- 先 is 平 (下平一先).
SHUXIANG = (
    "丞相祠堂何处寻，锦官城外柏森森。映阶碧草自春色，隔叶黄鹂空好音。"
    "三顾频烦天下计，两朝开济老臣心。出师未捷身先死，长使英雄泪满襟。"
)
# 李白《早发白帝城》: 啼不住 -- 不 is 仄 (pypinyin's phrase sandhi says bú).
BAIDI = "朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。"
# 李白《黄鹤楼送孟浩然之广陵》: 唯见长江 -- 长 cháng (pypinyin segments 见长 zhǎng).
HUANGHELOU = "故人西辞黄鹤楼，烟花三月下扬州。孤帆远影碧空尽，唯见长江天际流。"
# 孟浩然《望洞庭湖赠张丞相》: 八月湖水平 rhymes (首句入韵) and is a 拗句, not 三平尾.
DONGTING = (
    "八月湖水平，涵虚混太清。气蒸云梦泽，波撼岳阳城。"
    "欲济无舟楫，端居耻圣明。坐观垂钓者，徒有羡鱼情。"
)
# 李清照《渔家傲》: 我报路长嗟日暮 -- 长 cháng.
YUJIAAO = (
    "天接云涛连晓雾，星河欲转千帆舞。仿佛梦魂归帝所，闻天语，殷勤问我归何处。"
    "我报路长嗟日暮，学诗谩有惊人句。九万里风鹏正举，风休住，蓬舟吹取三山去！"
)
# 苏轼《定风波》: 莫听 -- 听 仄 by the metre.
DINGFENGBO = (
    "莫听穿林打叶声，何妨吟啸且徐行。竹杖芒鞋轻胜马，谁怕？一蓑烟雨任平生。"
    "料峭春风吹酒醒，微冷，山头斜照却相迎。回首向来萧瑟处，归去，也无风雨也无晴。"
)
# 晏几道《临江仙》: 酒醒 -- 醒 平 by the metre; 两重心字 -- 重 chóng.
LINJIANGXIAN = (
    "梦后楼台高锁，酒醒帘幕低垂。去年春恨却来时。落花人独立，微雨燕双飞。"
    "记得小蘋初见，两重心字罗衣。琵琶弦上说相思。当时明月在，曾照彩云归。"
)
# 苏轼《江城子·密州出猎》: 千骑 -- 骑 jì.
JIANGCHENGZI = (
    "老夫聊发少年狂，左牵黄，右擎苍，锦帽貂裘，千骑卷平冈。为报倾城随太守，亲射虎，看孙郎。"
    "酒酣胸胆尚开张，鬓微霜，又何妨！持节云中，何日遣冯唐？会挽雕弓如满月，西北望，射天狼。"
)
# 辛弃疾《菩萨蛮·书江西造口壁》: 遮不住 -- 不 仄.
PUSAMAN = (
    "郁孤台下清江水，中间多少行人泪。西北望长安，可怜无数山。"
    "青山遮不住，毕竟东流去。江晚正愁余，山深闻鹧鸪。"
)


def _shi(text: str, system: str = "classical") -> tuple[dict, dict]:
    s = score_poem(text, None, tone_system=system)  # type: ignore[arg-type]
    return s.metrics, s.diagnostics


def _ci(text: str, cipai: str, system: str = "classical") -> tuple[dict, dict]:
    s = score_poem(text, f"ci:{cipai}", tone_system=system)  # type: ignore[arg-type]
    return s.metrics, s.diagnostics


def _lic(diag: dict) -> list[tuple[int, int, str]]:
    return [(x["line"], x["position"], x["licence"]) for x in diag["licences"]]


# -- 失粘 is one fault: each couplet is judged against its own pattern (折腰体) ----------


def test_yuan_er_zheyao_is_one_shi_nian_and_its_licences_are_named() -> None:
    m, d = _shi(YUAN_ER)
    assert [x["tones"] for x in d["lines"]] == [
        "仄平平仄仄平平",  # 浥 入声
        "仄仄平平仄仄平",  # 客 色 入声
        "仄平仄仄仄平仄",  # 更 gèng; 一 入声
        "平仄平平平仄平",  # 出 入声
    ]
    assert d["faults"] == [{"fault": "失粘", "lines": [1, 2]}]
    assert d["couplet_patterns"] == ["D", "B", "A", "B"]
    assert [x["required_licensed"] for x in d["lines"][2:]] == ["平平仄仄平平仄", "仄仄平平仄仄平"]
    assert _lic(d) == [
        (0, 0, "一三五不论"),
        (0, 2, "一三五不论"),
        (2, 0, "一三五不论"),
        (2, 4, "对句相救"),  # 一: the core's 3rd 仄 ...
        (3, 0, "一三五不论"),
        (3, 4, "对句相救"),  # ... saved by 无
    ]
    # one fault in 11 checks (4 三平尾, 3 孤平, 3 粘/对, 1 出句平收)
    assert m["pattern_licensed"] == 1.0 and m["faults"] == pytest.approx(1 - 1 / 11)
    assert m["pattern"] == pytest.approx(16 / 28)  # strict: against 平起首句入韵 throughout
    # broken: 一盏酒 (大拗, core 4th 仄) and 有故人 (no 救) -- the 4th is a fault
    m, d = _shi(YUAN_ER.replace("一杯酒", "一盏酒").replace("无故人", "有故人"))
    assert {"line": 2, "position": 5, "fault": "拗"} in d["lines"][2]["licences"]
    assert m["pattern_licensed"] < 1.0


def test_saishang_shi_nian_and_the_readings_of_qi_and_yan() -> None:
    m, d = _shi(SAISHANG)
    assert [x["tones"] for x in d["lines"]] == [
        "平平仄仄平",
        "仄仄仄平平",  # 属 国 入声; 过 仄 here
        "平平仄仄仄",  # 出 入声
        "平仄仄平平",  # 入 入声
        "仄仄平平仄",  # 漠 直 入声
        "平平仄仄平",  # 落 日 入声
        "平平平仄仄",  # 候骑 jì
        "平仄仄平平",  # 燕然 yān
    ]
    assert d["lines"][6]["pinyin"][4] == "ji4" and d["lines"][7]["pinyin"][3] == "yan1"
    assert d["faults"] == [{"fault": "失粘", "lines": [1, 2]}]  # no false 孤平 on 燕然
    assert d["couplet_patterns"] == ["B", "D", "C", "D", "A", "B", "C", "D"]
    assert m["pattern_licensed"] == 1.0 and m["rhyme"] == 1.0
    # broken: 都护在北庭 -- 平仄仄仄平 is 孤平, and 庭 (九青) is off the 一先 rhyme
    m, d = _shi(SAISHANG.replace("都护在燕然", "都护在北庭"))
    assert {"fault": "孤平", "line": 7} in d["faults"]
    assert m["rhyme"] == pytest.approx(4 / 5)


# -- 两读同义 characters are read by the metre (classical) ---------------------------------


def test_xiyu_kan_is_level_by_the_metre_and_a_broken_copy_fails() -> None:
    m, d = _shi(XIYU)
    assert [x["tones"] for x in d["lines"]] == [
        "仄仄平平仄",  # 节 入声
        "平平仄仄平",  # 发 入声
        "平平平仄仄",  # 入 入声
        "仄仄仄平平",  # 物 入声
        "仄仄平平仄",  # 黑 入声
        "平平仄仄平",  # 独 入声
        "仄平平仄仄",  # 看 kān by the metre; 湿 入声
        "平仄仄平平",  # 重 zhòng (heavy)
    ]
    assert d["resolved_by_metre"] == [[6, 1]]
    assert d["faults"] == [] and m["faults"] == 1.0 and m["pattern_licensed"] == 1.0
    # 见 is 仄 only: the same line breaks 粘 and 对
    m, d = _shi(XIYU.replace("晓看", "晓见"))
    assert d["faults"] == [
        {"fault": "失粘", "lines": [5, 6]},
        {"fault": "失对", "lines": [6, 7]},
    ]
    # the modern system has no 两读: 看 is kàn there
    _, d = _shi(XIYU, "modern")
    assert "resolved_by_metre" not in d and d["lines"][6]["tones"][1] == "仄"


def test_dingfengbo_ting_and_linjiangxian_xing_and_chong() -> None:
    m, d = _ci(DINGFENGBO, "定风波")
    assert d["lines"][0]["tones"] == "仄仄平平仄仄平"  # 莫 入声; 听 仄 by the metre
    assert d["resolved_by_metre"] == [[0, 1]]
    assert m["tonal"] == 1.0 and m["rhyme"] == 1.0
    m, d = _ci(DINGFENGBO.replace("莫听", "莫闻"), "定风波")  # 闻 平 only
    assert d["lines"][0]["mismatches"] == [1] and m["tonal"] < 1.0

    m, d = _ci(LINJIANGXIAN, "临江仙")
    assert d["lines"][1]["tones"] == "仄平平仄平平"  # 醒 平 by the metre
    assert d["lines"][6]["tones"] == "仄平平仄平平"  # 两重 chóng (layers)
    assert d["lines"][6]["pinyin"][1] == "chong2"
    assert m["tonal"] == 1.0 and m["rhyme"] == 1.0
    m, d = _ci(LINJIANGXIAN.replace("两重", "两件"), "临江仙")
    assert d["lines"][6]["mismatches"] == [1]


# -- phrase readings and citation tones ------------------------------------------------


def test_shuxiang_xian_is_level_and_dui_ju_xiang_jiu() -> None:
    assert shi_tone_table()["先"] == "多"  # 下平一先 and 去声 十七霰
    assert "下平一先" in pingshui_ping_groups()["先"]
    m, d = _shi(SHUXIANG)
    assert d["lines"][6]["tones"] == "仄平仄仄平平仄"  # 出 捷 入声; 先 xiān 平
    assert d["lines"][2]["tones"] == "仄平仄仄仄平仄"  # 碧 色 入声
    assert d["lines"][3]["tones"] == "仄仄平平平仄平"  # 隔 叶 入声
    assert (2, 4, "对句相救") in _lic(d) and (3, 4, "对句相救") in _lic(d)
    assert m["pattern_licensed"] == 1.0 and m["faults"] == 1.0 and m["rhyme"] == 1.0
    # broken: 自绿色 (大拗) with 有好音 (no 救)
    m, d = _shi(SHUXIANG.replace("自春色", "自绿色").replace("空好音", "有好音"))
    assert {"line": 2, "position": 5, "fault": "拗"} in d["lines"][2]["licences"]


def test_baidi_bu_is_oblique_in_both_systems() -> None:
    for system in ("classical", "modern"):
        m, d = _shi(BAIDI, system)
        assert d["lines"][2]["pinyin"][5] == "bu4"
        assert d["lines"][2]["tones"] == "仄仄平平平仄仄"
    m, d = _shi(BAIDI)
    assert d["lines"][0]["tones"] == "平平仄仄仄平平"  # 白 入声
    assert m["pattern_licensed"] == 1.0 and m["faults"] == 1.0
    m, d = _shi(BAIDI.replace("啼不住", "啼无住"))  # 无 平 where 仄 is required
    assert {"line": 2, "position": 5, "fault": "拗"} in d["lines"][2]["licences"]
    assert [c.tone for c in char_tones("青山遮不住", tone_system="modern")] == list("平平平仄仄")


def test_pusaman_bu_fits_its_template() -> None:
    m, d = _ci(PUSAMAN, "菩萨蛮")
    assert d["lines"][4]["tones"] == "平平平仄仄"
    assert m["tonal"] == 1.0


def test_chang_is_cháng_in_changjiang_and_lu_chang() -> None:
    m, d = _shi(HUANGHELOU)
    assert d["lines"][3]["tones"] == "平仄平平平仄平"  # 长 cháng
    assert d["lines"][3]["pinyin"][2] == "chang2"
    # 碧 (the core's 3rd 仄) is saved by 天: no 孤平拗救 is claimed any more
    assert (2, 4, "对句相救") in _lic(d) and (3, 4, "对句相救") in _lic(d)
    assert all(x[2] != "孤平拗救" for x in _lic(d))
    assert d["faults"] == [{"fault": "失对", "lines": [0, 1]}]  # 人 and 花 both 平

    m, d = _ci(YUJIAAO, "渔家傲")
    assert d["lines"][5]["tones"] == "仄仄仄平平仄仄"  # 长 cháng
    assert m["tonal"] == 1.0
    m, d = _ci(YUJIAAO.replace("路长", "路远"), "渔家傲")
    assert d["lines"][5]["mismatches"] == [3]
    # 生长 keeps zhǎng
    assert char_tones("万物生长")[3].pinyin == "zhang3"


def test_jiangchengzi_qian_ji() -> None:
    m, d = _ci(JIANGCHENGZI, "江城子")
    assert d["lines"][4]["tones"] == "平仄仄平平"  # 千骑 jì
    assert m["tonal"] == 1.0 and m["rhyme"] == 1.0
    assert next(c.pinyin for c in char_tones("骑马")) == "qi2"


# -- the first line's own ending decides whether it rhymes; 三平尾 only when it is one ---


def test_dongting_first_line_rhymes_and_is_ao_not_san_ping_wei() -> None:
    m, d = _shi(DONGTING)
    assert d["lines"][0]["tones"] == "仄仄平仄平"  # 八 月 入声
    assert d["pattern"] == "仄起首句入韵"
    assert d["rhyme"]["sets"][0]["chars"] == "平清城明情"
    assert m["rhyme"] == 1.0
    assert d["lines"][0]["licences"] == [
        {"line": 0, "position": 2, "fault": "拗"},
        {"line": 0, "position": 3, "fault": "拗"},
    ]
    # 仄仄平仄平: one 平 besides the rhyme, 孤平 by 王力's definition
    assert d["faults"] == [{"fault": "孤平", "line": 0}]


# -- robustness: a poem run together without line breaks --------------------------------


def test_unpunctuated_shi_gets_its_line_breaks_supplied() -> None:
    plain = YUAN_ER.replace("，", "").replace("。", "")
    s = score_poem(plain, None, tone_system="classical")
    assert s.form == "shi:jueju7" and s.diagnostics["line_breaks_supplied"] == 3
    assert s.metrics == score_poem(YUAN_ER, None, tone_system="classical").metrics
    s = score_poem(YUAN_ER.replace("，", ""), "shi:jueju7", tone_system="classical")
    assert s.metrics["structural"] == 1.0 and s.diagnostics["line_breaks_supplied"] == 2
    # a break that is not a line break is not guessed away
    s = score_poem("渭城朝雨，浥轻尘客舍青青柳色新劝君更尽一杯酒西出阳关无故人", None)
    assert "error" in s.diagnostics and s.form is None
    assert score_poem("Hello, world.", None).diagnostics["error"] == (
        "no Chinese characters in the text"
    )


def test_niuzhu_wang_keeps_its_oblique_reading_in_a_te_ao_line() -> None:
    # 李白《夜泊牛渚怀古》: 登舟望秋月 is 平平仄平仄 (特拗) with 望 wàng 仄; forcing 望 to the
    # pattern's 平 at its own position would break the 特拗 into a fault at 秋.
    text = (
        "牛渚西江夜，青天无片云。登舟望秋月，空忆谢将军。"
        "余亦能高咏，斯人不可闻。明朝挂帆席，枫叶落纷纷。"
    )
    m, d = _shi(text)
    assert d["lines"][2]["tones"] == "平平仄平仄" and d["lines"][6]["tones"] == "平平仄平仄"
    assert "resolved_by_metre" not in d
    assert (2, 2, "特拗") in _lic(d) and (2, 3, "特拗") in _lic(d)
    assert m["pattern_licensed"] == 1.0 and d["faults"] == []
    # 观 (not a 两读同义 character) read guān 平: 平平平平仄, the 4th is a fault
    m, d = _shi(text.replace("登舟望", "登舟观"))
    assert d["lines"][2]["licences"] == [{"line": 2, "position": 3, "fault": "拗"}]


def test_notes_name_the_reading_by_the_metre_from_one() -> None:
    from scoring.prosody.explain import notes

    s = score_poem(XIYU, None, tone_system="classical")
    assert "line 7, char 2: 两读同义, read as the metre requires" in notes(s.diagnostics)


def test_denglou_duo_nan_is_oblique() -> None:
    # 杜甫《登楼》: 万方多难此登临 -- 难 nàn (calamity) 仄, where pypinyin read nán 平
    # (a false 拗 at the 4th character of a 平平仄仄仄平平 line).
    text = (
        "花近高楼伤客心，万方多难此登临。锦江春色来天地，玉垒浮云变古今。"
        "北极朝廷终不改，西山寇盗莫相侵。可怜后主还祠庙，日暮聊为梁甫吟。"
    )
    m, d = _shi(text)
    assert d["lines"][1]["tones"] == "仄平平仄仄平平"
    assert d["lines"][1]["pinyin"][3] == "nan4"
    assert d["lines"][1]["licences"] == [
        {"line": 1, "position": 0, "licence": "一三五不论", "source": d["licences"][1]["source"]},
        {"line": 1, "position": 2, "licence": "一三五不论", "source": d["licences"][1]["source"]},
    ]
    # 相见时难 keeps nán
    assert char_tones("相见时难别亦难", tone_system="classical")[3].tone == "平"
    broken, d2 = _shi(text.replace("多难", "多愁"))  # 愁 平: the 4th is off-pattern
    assert {"line": 1, "position": 3, "fault": "拗"} in d2["lines"][1]["licences"]
    assert broken["pattern_licensed"] < m["pattern_licensed"]


@pytest.mark.parametrize(
    ("line", "tones", "char", "reading"),
    [
        ("但使龙城飞将在", "仄仄平平平仄仄", "将", "jiang4"),  # 王昌龄《出塞》 飞将 jiàng
        ("空忆谢将军", "平仄仄平平", "将", "jiang1"),  # 李白: 将军 keeps the level reading
        ("悔教夫婿觅封侯", "仄平平仄仄平平", "教", "jiao1"),  # 王昌龄《闺怨》 悔教 jiāo
        ("终见降王走传车", "平仄平平仄仄平", "降", "xiang2"),  # 李商隐《筹笔驿》 降王 xiáng
        ("终见降王走传车", "平仄平平仄仄平", "传", "zhuan4"),  # 传车 zhuàn
        ("平生自有分", "平平仄仄仄", "分", "fen4"),  # 卢纶 有分 fèn
        ("岧峣太华俯咸京", "平平仄仄仄平平", "华", "hua4"),  # 崔颢 太华 huà
        ("无如此处学长生", "平平仄仄仄平平", "长", "chang2"),  # 崔颢 长生 cháng
    ],
)
def test_phrase_readings_of_the_tang_corpus(line: str, tones: str, char: str, reading: str) -> None:
    cts = char_tones(line, tone_system="classical", form_family="shi")
    assert "".join(c.tone for c in cts) == tones
    assert next(c.pinyin for c in cts if c.char == char) == reading


def test_guiyuan_hui_jiao_and_a_broken_copy() -> None:
    text = "闺中少妇不知愁，春日凝妆上翠楼。忽见陌头杨柳色，悔教夫婿觅封侯。"
    m, d = _shi(text)
    assert [x["tones"] for x in d["lines"]] == [
        "平平仄仄仄平平",  # 不 入声
        "平仄平平仄仄平",  # 日 入声
        "仄仄仄平平仄仄",  # 忽 陌 色 入声
        "仄平平仄仄平平",  # 教 jiāo; 觅 入声
    ]
    assert m["pattern_licensed"] == 1.0 and d["faults"] == []
    # 悔使: 使 仄 where 平 is required -- 失对 with 忽见
    _, d = _shi(text.replace("悔教", "悔使"))
    assert {"fault": "失对", "lines": [2, 3]} in d["faults"]


@pytest.mark.parametrize(
    ("line", "system", "tones", "char", "reading"),
    [
        # 长 is cháng in verse outside the words of growing and seniority
        ("红颜岂得长如旧", "classical", "平平仄仄平平仄", "长", "chang2"),
        ("何事长向别时圆", "classical", "平仄平仄仄平平", "长", "chang2"),
        ("万物生长", "classical", "仄仄平仄", "长", "zhang3"),
        ("兄长", "modern", "平仄", "长", "zhang3"),
        # 沈 = 沉 chén, except the surname
        ("孤馆深沈", "classical", "平仄平平", "沈", "chen2"),
        ("沈郎多病", "classical", "仄平平仄", "沈", "shen3"),
        # 教 平 in classical verse (令也, 使也) outside 教化/教坊 …; jiào in modern
        ("枉教雨里分飞去", "classical", "仄平仄仄平平仄", "教", "jiao1"),
        ("从教吹落", "modern", "平仄平仄", "教", "jiao4"),
        ("从教吹落", "classical", "平平平仄", "教", "jiao1"),
        ("教坊", "classical", "仄平", "教", "jiao4"),
        # 胜 shēng in 不胜 (classical), 禁 jīn in 不能禁, 浪 láng in 沧浪, 兴 xìng in 乘兴
        ("高处不胜寒", "classical", "平仄仄平平", "胜", "sheng1"),
        ("情多无那不能禁", "classical", "平平平仄仄平平", "禁", "jin1"),
        ("独立沧浪忘却归", "classical", "仄仄平平仄仄平", "浪", "lang2"),
        ("雪夜乘兴", "classical", "仄仄平仄", "兴", "xing4"),
    ],
)
def test_phrase_readings_of_the_song_ci_corpus(
    line: str, system: str, tones: str, char: str, reading: str
) -> None:
    cts = char_tones(line, tone_system=system)  # type: ignore[arg-type]
    assert "".join(c.tone for c in cts) == tones
    assert next(c.pinyin for c in cts if c.char == char) == reading
