"""Reading-table entries for the characters 平水韵 lists under both tones (issue 22).

Not shipped, not a test: the record of how the ``prosody-1.8`` entries of
``scoring/prosody/data/readings/polyphones.json`` were made, and the tool that writes them.

* Class (a), mechanical: 《广韵》 (the ``qieyun`` package's ``rhyme_book.csv``) has readings
  of one tone only.  The entry's default is that reading; the other tone is 平水韵's alone
  (no sense sourced, no phrase selects it), as for 了 如 庭.  Characters whose position in
  the bundled corpora contradicts that (``two_tone_candidates.py --metre``: where the forms
  put them) are in :data:`HAND` instead.
* Classes (b)-(d), by hand (:data:`HAND`): each reading names its 《广韵》 fanqie (the
  tool quotes the gloss and maps the 《广韵》 rhyme to its 平水韵 group), its sense and the
  words that select it; ``default`` is the commonest classical reading (``None``: no safe
  default, the contextual reading stays), a reading of tone 两 is one sense in both tones.

    python tests/prosody/two_tone_entries.py [--write]   # prints the entries; --write adds them

Entries already in the table are never touched.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import two_tone_candidates as cand

TABLE = cand.DATA / "readings" / "polyphones.json"

# 《广韵》 rhyme (as printed) -> the 平水韵 rhyme it falls in (its name character)
_MAP_SRC = {
    "平": "東东 冬冬 鍾冬 江江 支支 脂支 之支 微微 魚鱼 虞虞 模虞 齊齐 佳佳 皆佳 灰灰 咍灰 "
    "真真 諄真 臻真 文文 欣文 元元 魂元 痕元 寒寒 桓寒 刪删 山删 先先 仙先 蕭萧 宵萧 "
    "肴肴 豪豪 歌歌 戈歌 麻麻 陽阳 唐阳 庚庚 耕庚 清庚 青青 蒸蒸 登蒸 尤尤 侯尤 幽尤 "
    "侵侵 覃覃 談覃 鹽盐 添盐 嚴盐 咸咸 銜咸 凡咸",
    "上": "董董 腫肿 講讲 紙纸 旨纸 止纸 尾尾 語语 麌麌 姥麌 薺荠 蟹蟹 駭蟹 賄贿 海贿 "
    "軫轸 準轸 吻吻 隱吻 阮阮 混阮 很阮 旱旱 緩旱 潸潸 產潸 銑铣 獮铣 篠筱 小筱 巧巧 "
    "晧皓 哿哿 果哿 馬马 養养 蕩养 梗梗 耿梗 靜梗 迥迥 拯迥 等迥 有有 厚有 黝有 寑寝 "
    "感感 敢感 琰琰 忝琰 儼琰 豏豏 檻豏 范豏",
    "去": "送送 宋宋 用宋 絳绛 寘寘 至寘 志寘 未未 御御 遇遇 暮遇 霽霁 祭霁 泰泰 卦卦 "
    "怪卦 夬卦 隊队 代队 廢队 震震 稕震 問问 焮问 願愿 慁愿 恨愿 翰翰 換翰 諫谏 襇谏 "
    "霰霰 線霰 嘯啸 笑啸 效效 号号 箇个 過个 禡祃 漾漾 宕漾 映敬 諍敬 勁敬 徑径 證径 "
    "嶝径 宥宥 候宥 幼宥 沁沁 勘勘 闞勘 豔艳 㮇艳 釅艳 陷陷 鑑陷 梵陷",
    "入": "屋屋 沃沃 燭沃 覺觉 質质 術质 櫛质 物物 迄物 月月 沒月 曷曷 末曷 黠黠 鎋黠 "
    "屑屑 薛屑 藥药 鐸药 陌陌 麥陌 昔陌 錫锡 職职 德职 緝缉 合合 盍合 葉叶 怗叶 業叶 "
    "洽洽 狎洽 乏洽",
}
GY_TO_PS = {(t, p[0]): p[1] for t, s in _MAP_SRC.items() for p in s.split()}
SECTION = {"平": ("上平", "下平"), "上": ("上声",), "去": ("去声",), "入": ("入声",)}


def pingshui_group(ch: str, gy: cand.Guangyun, groups: list[str]) -> str:
    """The 平水韵 group of ``ch`` that a 《广韵》 reading falls in ("" when none of its
    groups does: 平水韵 does not list the character there)."""
    name = GY_TO_PS.get((gy.tone, gy.rhyme), "")
    hits = [g for g in groups if g.startswith(SECTION[gy.tone]) and g.endswith(name)]
    return hits[0] if name and len(hits) == 1 else ""


@dataclass(frozen=True)
class R:
    """A reading by hand: pinyin, the 《广韵》 fanqie (without 切; None: no 《广韵》 reading,
    then ``rhyme`` names the 平水韵 group), sense, selecting words; ``alt`` and a second
    fanqie make it 两 (one sense, both tones)."""

    pinyin: str
    fanqie: str | None
    sense: str
    phrases: tuple[str, ...] = ()
    rhyme: str = ""
    alt: str = ""
    fanqie2: str = ""
    head: str = ""  # the 《广韵》 head when it is another graph (凘 for 澌)
    rhyme2: str = ""  # a 两 reading whose other tone 《广韵》 does not gloss: its group
    source2: str = ""  # and who reads it so


@dataclass(frozen=True)
class E:
    default: str | None
    readings: tuple[R, ...]
    note: str = ""
    kind: str = "b"  # b: senses split by words; c: 两; d: no default
    extra: dict[str, Any] = field(default_factory=dict)


_NOISE = re.compile(
    r"又音.|又[^又]{0,6}?切|[^\s]{2}切[一二三四五六七八九十]+$|[一二三四五六七八九十]+$"
)


def _short(gloss: str, width: int = 18) -> str:
    """The gloss cut short: cross-references (又某某切, 又音某) and the homophone count
    (某某切四) dropped."""
    g = _NOISE.sub("", gloss.strip()).strip()
    return g if len(g) <= width else g[:width] + "…"


# --- hand entries (classes b-d and the (a) characters the metre contradicts) ------------
# Metre: where the bundled corpora put the character (two_tone_candidates.py --metre: the
# tone a fixed position of the fitted form requires), "平 n / 仄 m".
_NO_WORD = "《广韵》 glosses both tones, but no word of verse selects the rare one here"
HAND: dict[str, E] = {
    "不": E(
        "bu4",
        (
            R("bu4", "分勿", "不（否定）"),
            R("fou1", "甫鳩", "否（句末问词，押尤韵）"),
        ),
        "the 平 reading 甫鸠切 is the 否 of a question at the end of a line (a rhyme word, "
        "read there by the rhyme); no word selects it. Metre 平 282 / 仄 1541",
    ),
    "梦": E(
        "meng4",
        (
            R("meng4", "莫鳳", "梦寐，梦境"),
            R("meng2", "莫中", "不明（梦梦）"),
        ),
        "《广韵》 莫凤切 is glossed 上同 (the same word as 莫中切 不明也); verse reads the dream "
        "仄: metre 平 25 / 仄 1168",
    ),
    "与": E(
        "yu3",
        (
            R("yu3", "余呂", "与（给予，和，同党）"),
            R("yu4", "羊洳", "参与", ("参与", "与闻", "与会", "干与")),
            R("yu2", "以諸", "欤（句末语气）"),
        ),
        "the 平 reading 以诸切 is 欤 (a sentence-final particle, 上同 = 歟); no word selects "
        "it. Metre 平 29 / 仄 1299",
    ),
    "轻": E(
        "qing1",
        (
            R("qing1", "去盈", "轻（轻重）"),
            R("qing4", "墟正", "（去声，无别义）"),
        ),
        _NO_WORD + ". Metre 平 725 / 仄 8",
    ),
    "只": E(
        "zhi3",
        (
            R("zhi3", "諸氏", "只（语辞；但，仅）"),
            R(
                "zhi1",
                "之石",
                "隻（一只，只影，只身）",
                ("只影", "只身", "只鸡", "只轮", "只履", "一只", "形单影只"),
                head="隻",
            ),
            R("zhi1", "章移", "语辞（乐只君子）"),
        ),
        "隻 (入声) and 只 (上声) are both 仄; the 平 语辞 of 诗经 (乐只) only by its word. "
        "Metre 平 28 / 仄 147",
    ),
    "吟": E(
        "yin2",
        (
            R("yin2", "魚金", "吟，咏，叹"),
            R("yin4", "宜禁", "长咏"),
        ),
        _NO_WORD + ". Metre 平 301 / 仄 3",
    ),
    "且": E(
        "qie3",
        (
            R("qie3", "七也", "且（语辞；姑且，将）"),
            R("ju1", "子魚", "语辞（诗经：其乐只且）"),
        ),
        "Metre 平 23 / 仄 225",
    ),
    "张": E(
        "zhang1",
        (
            R("zhang1", "陟良", "张（张施，开张；姓）"),
            R("zhang4", "知亮", "张施（胀，帐）"),
        ),
        _NO_WORD + ". Metre 平 86 / 仄 5",
    ),
    "共": E(
        "gong4",
        (
            R("gong4", "渠用", "共（同，皆）"),
            R("gong1", "九容", "共城（地名）；恭，供", ("共城", "共工")),
        ),
        "Metre 平 8 / 仄 454",
    ),
    "先": E(
        "xian1",
        (
            R("xian1", "蘇前", "先后，先"),
            R("xian4", "蘇佃", "先后（娣姒）"),
        ),
        _NO_WORD + ". Metre 平 330 / 仄 11",
    ),
    "便": E(
        "bian4",
        (
            R("bian4", "婢面", "便（利；即，就）"),
            R("pian2", "房連", "便便，便娟（安，辩）", ("便便", "便娟", "便嬛", "便宜")),
        ),
        "Metre 平 32 / 仄 259",
    ),
    "卷": E(
        "juan3",
        (
            R("juan3", "居轉", "卷舒，卷起"),
            R("quan2", "巨員", "曲（卷曲）"),
        ),
        "书卷 is 居倦切 (去; 平水韵 does not list 卷 there), 卷舒 居转切 (上): both 仄; the 平 "
        "巨员切 曲也 has no word here. "
        "Metre 平 4 / 仄 446",
    ),
    "氏": E(
        "shi4",
        (
            R("shi4", "承紙", "氏族"),
            R("zhi1", "章移", "月氏，阏氏", ("月氏", "阏氏")),
        ),
        "Metre 平 2 / 仄 23",
    ),
    "要": E(
        "yao4",
        (
            R("yao4", "於笑", "约；要求，须要"),
            R(
                "yao1",
                "於霄",
                "腰；邀（要约，要求）；要离（人名）",
                ("要离", "要约", "要求", "要结", "要盟"),
            ),
        ),
        "Metre 平 12 / 仄 214",
    ),
    "那": E(
        None,
        (
            R(
                "na2",
                "諾何",
                "何（那堪，那得）：同义两读",
                ("那堪", "那得", "那能", "那知", "那忍", "那惜", "那复", "那可", "那肯", "那教"),
                alt="na3",
                rhyme2="上声二十哿",
                source2="钦定词谱 reads 那堪 仄 in its examples (渔家傲, 摸鱼儿)",
            ),
            R(
                "na4",
                "奴箇",
                "语助；彼（那人，那边），无那",
                ("无那", "那人", "那边", "那回", "那时", "那畔", "那处", "那日", "那般"),
            ),
        ),
        "the question word (《广韵》 诺何切 何也) is read 平 by 龙榆生 (贺新郎 更那堪) and at 41 "
        "of 45 fixed positions of the bundled Song ci, 仄 by the 钦定词谱's examples (渔家傲 "
        "那堪往事, 摸鱼儿 那堪更) and by 词林正韵, which lists 那 仄 only: the sources read it "
        "both ways, so its words make it 两读 (the metre decides); the demonstrative and 无那 "
        "are 去 (metre 那人/那边/那回 仄). A bare 那 keeps the contextual reading",
        "d",
    ),
    "收": E(
        "shou1",
        (
            R("shou1", "式州", "收，敛，捕"),
            R("shou4", "舒救", "获多"),
        ),
        _NO_WORD + ". Metre 平 268 / 仄 4",
    ),
    "经": E(
        "jing1",
        (
            R("jing1", "古靈", "经（常，经纬，经过）"),
            R("jing4", "古定", "经纬（去声）"),
        ),
        _NO_WORD + ". Metre 平 232 / 仄 3",
    ),
    "渐": E(
        "jian4",
        (
            R("jian4", "慈染", "渐次，稍"),
            R("jian1", "子廉", "入，渍（东渐，渐染）", ("东渐", "西渐", "渐染", "渐渍")),
        ),
        "Metre 平 15 / 仄 132",
    ),
    "屏": E(
        "ping2",
        (
            R("ping2", "薄經", "屏风"),
            R(
                "bing3",
                "必郢",
                "蔽，除（屏息，屏除）",
                ("屏息", "屏气", "屏迹", "屏除", "屏退", "屏弃", "屏绝"),
            ),
        ),
        "Metre 平 249 / 仄 6",
    ),
    "怨": E(
        "yuan4",
        (
            R("yuan4", "於願", "恨，怨"),
            R("yuan1", "於袁", "怨雠"),
        ),
        _NO_WORD + ". Metre 平 2 / 仄 221",
    ),
    "荷": E(
        "he2",
        (
            R("he2", "胡歌", "荷花，芙蕖"),
            R(
                "he4",
                "胡可",
                "负荷，担，承（荷戈，荷笠）",
                ("负荷", "荷戈", "荷锄", "荷笠", "荷担", "荷蒉", "荷恩", "荷君", "荷蓑", "感荷"),
            ),
        ),
        "Metre 平 180 / 仄 12",
    ),
    "摇": E(
        "yao2",
        (
            R("yao2", "餘昭", "摇动"),
            R("yao4", "弋照", "摇动（去声）"),
        ),
        _NO_WORD + ". Metre 平 212 / 仄 1",
    ),
    "种": E(
        "zhong3",
        (
            R("zhong3", "之隴", "种类；种子"),
            R(
                "zhong4",
                "之用",
                "种植",
                (
                    "种花",
                    "种树",
                    "种田",
                    "种瓜",
                    "种柳",
                    "种竹",
                    "栽种",
                    "播种",
                    "手种",
                    "亲种",
                    "种桃",
                    "种豆",
                ),
            ),
            R("chong2", "直弓", "稚；姓（种暠，种师道）", ("种师道", "种放", "种暠")),
        ),
        "之陇切 (上) and 之用切 (去) are both 仄. Metre 平 9 / 仄 198",
    ),
    "句": E(
        "ju4",
        (
            R("ju4", "九遇", "章句，诗句"),
            R(
                "gou1",
                "古侯",
                "曲；句践，高句丽，句龙",
                ("句践", "句吴", "句龙", "句芒", "高句丽", "句骊"),
            ),
        ),
        "Metre 平 6 / 仄 243",
    ),
    "浑": E(
        "hun2",
        (
            R("hun2", "戶昆", "浑浊；浑然，全然"),
            R("hun3", "胡本", "浑元", ("浑元",)),
        ),
        "Metre 平 167 / 仄 6",
    ),
    "戏": E(
        "xi4",
        (
            R("xi4", "香義", "戏弄，游戏"),
            R("hu1", "許羈", "於戏（叹辞）", ("于戏", "於戏")),
        ),
        "Metre 平 6 / 仄 152",
    ),
    "罢": E(
        "ba4",
        (
            R("ba4", "薄蟹", "止，休（歌罢）"),
            R("pi2", "符羈", "疲，倦", ("罢弊", "罢敝", "罢癃", "罢民")),
        ),
        "Metre 平 2 / 仄 231",
    ),
    "比": E(
        "bi3",
        (
            R("bi3", "卑履", "比较，并"),
            R("bi4", "毗至", "近，比邻", ("比邻", "比肩", "比翼", "栉比", "比屋", "比比")),
            R("pi2", "房脂", "和；皋比（虎皮）", ("皋比",)),
        ),
        "卑履切 (上) and 毗至切 (去) are both 仄. Metre 平 5 / 仄 193",
    ),
    "占": E(
        "zhan4",
        (
            R("zhan4", "章豔", "占有，据"),
            R(
                "zhan1",
                "職廉",
                "占卜，视兆",
                ("占卜", "占卦", "占梦", "占星", "占候", "占验", "占兆", "卜占", "卦占"),
            ),
        ),
        "Metre 平 33 / 仄 111",
    ),
    "齐": E(
        "qi2",
        (
            R("qi2", "徂奚", "整齐，等；齐国"),
            R("ji4", "在詣", "火齐（宝石）；齐和", ("火齐",)),
        ),
        "Metre 平 144 / 仄 4 (火齐 仄 2)",
    ),
    "笼": E(
        "long2",
        (
            R("long2", "盧紅", "笼（火笼，笼罩）"),
            R("long3", "力董", "竹器"),
        ),
        "both glosses name a vessel: no word selects the 上声 here. Metre 平 181 / 仄 3",
    ),
    "机": E(
        "ji1",
        (
            R("ji1", "居依", "機（机会，机杼，天机）", head="機"),
            R("ji3", "居履", "木名（几）"),
        ),
        "机 stands for 機 and for the tree 机 (居夷切, also 平); the 上声 居履切 has no word "
        "here. Metre 平 129 / 仄 2",
    ),
    "迎": E(
        "ying2",
        (
            R("ying2", "語京", "逢，迎接"),
            R("ying4", "魚敬", "迓（亲迎）", ("亲迎",)),
        ),
        "Metre 平 161 / 仄 4",
    ),
    "些": E(
        "xie1",
        (
            R("xie1", "寫邪", "少，些许"),
            R("suo4", "蘇箇", "楚语辞（招魂：些）", ("楚些", "招些")),
        ),
        "Metre 平 134 / 仄 32 (楚些 仄 6)",
    ),
    "参": E(
        "can1",
        (
            R("can1", "倉含", "参承，参见，参与"),
            R("shen1", "所今", "参星；人参", ("参商", "参横", "参旗", "参辰", "人参", "参宿")),
            R("cen1", "楚簪", "参差", ("参差",)),
            R("can4", "七紺", "参鼓", ("参鼓",)),
        ),
        "three 平 readings by sense; the 去声 参鼓 only by its word. Metre 平 127 / 仄 3",
    ),
    "泥": E(
        "ni2",
        (
            R("ni2", "奴低", "泥土"),
            R("ni4", "奴計", "滞陷，拘泥，软求（泥他）", ("拘泥", "泥他", "致远恐泥")),
        ),
        "Metre 平 169 / 仄 6",
    ),
    "妨": E(
        "fang2",
        (
            R("fang2", "敷方", "妨害，何妨"),
            R("fang4", "敷亮", "妨碍（去声）"),
        ),
        _NO_WORD + ". Metre 平 191 / 仄 5",
    ),
    "纵": E(
        "zong4",
        (
            R("zong4", "子用", "放纵；纵然"),
            R("zong1", "即容", "纵横", ("纵横",)),
        ),
        "纵横 is 平 (即容切 縱橫也): metre 纵横 平 17 / 仄 0. Metre 平 18 / 仄 64",
    ),
    "藏": E(
        "cang2",
        (
            R("cang2", "昨郎", "隐藏"),
            R(
                "zang4",
                "徂浪",
                "库藏，宝藏",
                (
                    "宝藏",
                    "库藏",
                    "尽藏",
                    "道藏",
                    "大藏",
                    "经藏",
                    "西藏",
                    "三藏",
                    "藏经",
                    "府藏",
                    "龙藏",
                ),
            ),
        ),
        "Metre 平 143 / 仄 10 (尽藏 仄 8)",
    ),
    "题": E(
        "ti2",
        (
            R("ti2", "杜奚", "题写，书题"),
            R("ti4", "特計", "（去声，无别义）"),
        ),
        _NO_WORD + ". Metre 平 119 / 仄 0",
    ),
    "扁": E(
        "pian1",
        (
            R("pian1", "芳連", "小舟（扁舟）"),
            R("bian3", "方典", "扁署门户（匾）；扁鹊", ("扁额", "扁榜", "题扁", "扁鹊")),
        ),
        "Metre 平 75 / 仄 6",
    ),
    "谩": E(
        "man4",
        (
            R("man4", "莫半", "欺；谩（漫，空，徒然：谩道，谩说）"),
            R("man2", "母官", "欺，慢"),
        ),
        "《广韵》 glosses both tones 欺也; in verse 谩 is the adverb 漫 (徒然, 张相《诗词曲语辞"
        "汇释》), which the metre reads 仄: 平 3 / 仄 70 (the 漫 entry reads it màn 仄)",
    ),
    "料": E(
        "liao4",
        (
            R("liao4", "力弔", "料度，料想"),
            R("liao2", "落蕭", "料理，量"),
        ),
        "料理 is read both ways in verse (metre 平 3 / 仄 3): no word selects. Metre 平 9 / 仄 78",
    ),
    "弹": E(
        "tan2",
        (
            R("tan2", "徒干", "弹射，弹琴，弹指，弹泪"),
            R("dan4", "徒案", "弹丸", ("弹丸", "金弹", "飞弹", "弹子", "弹弓", "挟弹")),
        ),
        "the verb is 平 (徒干切 射也, 弹棊); pypinyin's dàn is the pellet: metre 平 68 / 仄 7",
    ),
    "顷": E(
        "qing3",
        (
            R("qing3", "去潁", "田百亩；顷刻"),
            R("qing1", "去營", "头不正（倾）"),
        ),
        _NO_WORD + ". Metre 平 4 / 仄 140",
    ),
    "宁": E(
        "ning2",
        (
            R("ning2", "奴丁", "寧：安，宁可（愿词）", head="寧"),
            R("zhu4", "直呂", "门屏之间（当宁）", ("当宁",)),
        ),
        "宁 stands for 寧 (平) and the old 宁 (门屏之间, 上声). Metre 平 69 / 仄 11",
    ),
    "穿": E(
        "chuan1",
        (
            R("chuan1", "昌緣", "穿，通，孔"),
            R("chuan4", "尺絹", "贯（去声）"),
        ),
        _NO_WORD + ". Metre 平 116 / 仄 0",
    ),
    "堕": E(
        "duo4",
        (
            R("duo4", "徒果", "落"),
            R("hui1", "許規", "隳（毁）"),
        ),
        _NO_WORD + ". Metre 平 2 / 仄 115",
    ),
    "蒙": E(
        "meng2",
        (
            R("meng2", "莫紅", "覆，蒙蒙"),
            R("meng3", "莫孔", "濛澒（大水）", head="濛"),
        ),
        _NO_WORD + ". Metre 平 103 / 仄 1",
    ),
    "旋": E(
        None,
        (
            R(
                "xuan2",
                "似宣",
                "还，疾；回旋",
                ("周旋", "盘旋", "回旋", "凯旋", "旋转", "旋风", "螺旋"),
            ),
            R("xuan4", "辝戀", "绕；随即（旋旋）"),
        ),
        "the adverb 旋 (随即) stands at 仄 positions as often as the 平 (metre 平 38 / 仄 30; "
        "旋旋 仄 4): no safe default, words of turning select 平",
        "d",
    ),
    "钱": E(
        "qian2",
        (
            R("qian2", "昨仙", "钱，泉"),
            R("jian3", "即淺", "钱铫（田器）"),
        ),
        _NO_WORD + ". Metre 平 96 / 仄 3",
    ),
    "标": E(
        "biao1",
        (
            R("biao1", "甫遙", "举，标格，木杪"),
            R("biao3", "方小", "标杪，木末"),
        ),
        _NO_WORD + ". Metre 平 92 / 仄 3",
    ),
    "欧": E(
        "ou1",
        (
            R("ou1", "烏侯", "欧阳（复姓）"),
            R("ou3", "烏后", "吐（呕）"),
        ),
        "Metre 平 4 / 仄 0",
    ),
    "盛": E(
        "sheng4",
        (
            R("sheng4", "承正", "多，盛大"),
            R("cheng2", "是征", "盛受，黍稷在器（粢盛）", ("粢盛", "盛水", "盛酒")),
        ),
        "Metre 平 6 / 仄 69",
    ),
    "除": E(
        "chu2",
        (
            R("chu2", "直魚", "阶；去，除"),
            R("chu4", "遟倨", "去（去声）"),
        ),
        _NO_WORD + ". Metre 平 75 / 仄 1",
    ),
    "盟": E(
        "meng2",
        (
            R("meng2", "武兵", "盟约"),
            R("meng4", "莫更", "盟津（孟津）", ("盟津",)),
        ),
        "Metre 平 114 / 仄 0",
    ),
    "丽": E(
        "li4",
        (
            R("li4", "郎計", "美，附着"),
            R("li2", "呂支", "高丽（东夷国名）", ("高丽", "句丽")),
        ),
        "Metre 平 0 / 仄 81",
    ),
    "浸": E(
        "jin4",
        (
            R("jin4", "子鴆", "渍，浸"),
            R("qin1", "七林", "浸淫", ("浸淫",)),
        ),
        "Metre 平 1 / 仄 104",
    ),
    "涨": E(
        "zhang4",
        (
            R("zhang4", "知亮", "大水，水涨"),
            R("zhang1", "陟良", "水大貌"),
        ),
        "one sense in both tones in 《广韵》, but verse puts it at 仄 positions (metre 平 2 / "
        "仄 88): the 去声 is the default",
    ),
    "献": E(
        "xian4",
        (
            R("xian4", "許建", "进献"),
            R("suo1", "素何", "献尊（牺尊）"),
        ),
        "Metre 平 0 / 仄 67",
    ),
    "霓": E(
        "ni2",
        (
            R("ni2", "五稽", "雌虹"),
            R("nie4", "五結", "虹（雌霓）", ("雌霓",)),
        ),
        "沈约 雌霓 is the 入声 (五结切); elsewhere 平. Metre 平 53 / 仄 1",
    ),
    "澹": E(
        "dan4",
        (
            R("dan4", "徒濫", "水摇动；澹然，恬静"),
            R("tan2", "徒甘", "澹台（复姓）", ("澹台",)),
        ),
        "Metre 平 0 / 仄 59",
    ),
    "恶": E(
        "e4",
        (
            R("e4", "烏各", "不善，恶"),
            R("wu4", "烏路", "憎恶", ("憎恶", "厌恶", "好恶", "可恶", "嫌恶")),
            R("wu1", "哀都", "安，何（恶乎）", ("恶乎",)),
        ),
        "乌各切 (入) and 乌路切 (去) are both 仄. Metre 平 3 / 仄 85",
    ),
    "饶": E(
        "rao2",
        (
            R("rao2", "如招", "饶，益，余；饶他"),
            R("rao4", "人要", "益饶（去声）"),
        ),
        _NO_WORD + ". Metre 平 75 / 仄 1",
    ),
    "烧": E(
        "shao1",
        (
            R("shao1", "式招", "烧，然"),
            R("shao4", "失照", "放火，野火（野烧）", ("野烧", "原烧")),
        ),
        "Metre 平 63 / 仄 4 (野烧 仄 3)",
    ),
    # (a) characters the metre contradicts (two_tone_entries._contradicted)
    "厌": E(
        "yan4",
        (
            R("yan4", "於豔", "饱，满足；厌倦"),
            R("yan1", "一鹽", "厌厌（安；恹恹）", ("厌厌",), head="懕"),
            R("ye4", "於葉", "厌伏"),
        ),
        "厌厌 is 平 (《广韵》 懕 一盐切 安也; 诗 厌厌夜饮): metre 厌厌 平 81. Elsewhere the 去声. "
        "Metre 平 84 / 仄 55",
    ),
    "强": E(
        "qiang2",
        (
            R("qiang2", "巨良", "强健，强盛"),
            R(
                "qiang3",
                "其兩",
                "勉强（强饮，强欢）",
                (
                    "勉强",
                    "强饮",
                    "强欢",
                    "强颜",
                    "强作",
                    "强为",
                    "强留",
                    "强登",
                    "强把",
                    "强追",
                    "强伸",
                    "强扶",
                    "强饭",
                    "强自",
                    "强笑",
                    "强歌",
                    "强说",
                    "强拈",
                    "强随",
                    "强起",
                ),
                head="彊",
            ),
        ),
        "勉强 is 上声 (彊 其两切, 或作强): metre 强追/强伸/强欢 仄; 强 平 46 / 仄 35",
    ),
    "么": E(
        None,
        (
            R("yao1", "於堯", "幺（六么，么弦）", ("六么", "么弦", "么凤"), head="幺"),
            R("mo3", "亡果", "幺麽，细小；语辞（作么，恁么）", ("幺么", "作么", "恁么")),
        ),
        "么 stands for 幺 (平) and 麽 (上): by words only (metre 平 32 / 仄 35)",
        "d",
    ),
    "娉": E(
        None,
        (
            R("ping1", None, "娉婷，娉娉", ("娉婷", "娉娉", "娉袅"), rhyme="下平九青"),
            R("pin4", "匹正", "娶"),
        ),
        "《广韵》 has only 匹正切 娶也; 娉婷 is 平 (平水韵 下平九青; metre 平 41 / 仄 0): the "
        "平水韵 reading is selected by its words only",
        "d",
    ),
    "娆": E(
        None,
        (
            R("rao2", None, "妖娆，娇娆", ("妖娆", "娇娆", "娆娆"), rhyme="下平二萧"),
            R("rao3", "而沼", "乱，扰"),
        ),
        "《广韵》 has only 上/去 readings (乱也); 妖娆 is 平 (平水韵 下平二萧; metre 平 26 / 仄 "
        "1): the 平水韵 reading is selected by its words only",
        "d",
    ),
    "澌": E(
        None,
        (
            R("si1", "息移", "流冰（凘：冰澌，流澌）", ("冰澌", "流澌", "轻澌"), head="凘"),
            R("si4", "斯義", "尽（澌尽，澌灭）", ("澌尽", "澌灭")),
        ),
        "澌 is written for 凘 (息移切 凌凘, 平) in 冰澌/流澌 (metre 平 11 / 仄 0); "
        "《广韵》 澌 itself is 斯义切 尽也: by words only",
        "d",
    ),
    "稍": E(
        "shao4",
        (
            R("shao4", "所教", "渐，略，小"),
            R(
                "shao1",
                None,
                "梢（花稍，树稍）",
                ("花稍", "树稍", "柳稍", "林稍", "枝稍"),
                rhyme="下平三肴",
            ),
        ),
        "《广韵》 has only 所教切; 平水韵 also lists it under 下平三肴, the 梢 of 花稍",
    ),
    # --- the next most frequent (prosody-1.8, second pass) ---------------------------
    "敦": E(
        "dun1",
        (
            R("dun1", "都昆", "厚，迫"),
            R("dun4", "都困", "竖"),
        ),
        "Metre 平 2 / 仄 0",
    ),
    "虹": E(
        "hong2",
        (R("hong2", "戶公", "螮蝀，虹"), R("jiang4", "古巷", "虹（又音）")),
        _NO_WORD + ". Metre 平 91 / 仄 1",
    ),
    "牵": E(
        "qian1",
        (R("qian1", "苦堅", "引，挽，连"), R("qian4", "苦甸", "牵挽（去声）")),
        _NO_WORD + ". Metre 平 66 / 仄 1",
    ),
    "沾": E(
        "zhan1",
        (R("zhan1", "張廉", "霑：湿，濡，渍", head="霑"), R("zhan4", "都念", "水名")),
        "Metre 平 79 / 仄 2",
    ),
    "弥": E(
        "mi2",
        (R("mi2", "武移", "益，长，久；弥漫"), R("mi3", "綿婢", "瀰瀰（水盛）", head="瀰")),
        "弥弥 stands at 平 positions (metre 平 3): no word selects the 上声. Metre 平 28 / 仄 0",
    ),
    "栽": E(
        "zai1",
        (R("zai1", "祖才", "种，栽"), R("zai4", "昨代", "筑墙长板")),
        _NO_WORD + ". Metre 平 77 / 仄 1",
    ),
    "裁": E(
        "cai2",
        (R("cai2", "昨哉", "裁衣，裁剪"), R("cai4", "昨代", "制裁（去声）")),
        _NO_WORD + ". Metre 平 59 / 仄 1",
    ),
    "钿": E(
        None,
        (
            R("tian2", "徒年", "金花（花钿，翠钿）", ("花钿", "翠钿", "珠钿", "朱钿")),
            R(
                "dian4",
                "堂練",
                "宝钿，以宝饰器（钿合，钿车，螺钿）",
                ("钿车", "钿合", "钿盒", "螺钿", "钿筝", "钿尺", "分钿", "宝钿", "钿头"),
            ),
        ),
        "the ornament (金花: 花钿 平 15 / 仄 0 in the Song ci's fixed positions) is 平, the inlay "
        "(宝钿以宝饰器) 去: 长恨歌 rhymes 合分钿 with 见 (去声). A bare 钿 or 金钿 (平 8 / 仄 2, "
        "长恨歌 金钿坚 the inlaid box) keeps the contextual reading",
        "d",
    ),
    "敲": E(
        "qiao1",
        (R("qiao1", "口交", "击头，敲"), R("qiao4", "苦教", "击（去声）")),
        _NO_WORD + ". Metre 平 46 / 仄 1",
    ),
    "摩": E(
        "mo2",
        (R("mo2", "莫婆", "研摩，迫，摩挲"), R("mo4", "摸臥", "按摩", ("按摩",))),
        "Metre 平 52 / 仄 3",
    ),
    "铺": E(
        "pu1",
        (
            R("pu1", "普胡", "铺设，陈，布（平铺，金铺）"),
            R("pu4", "普故", "设；店铺，驿铺", ("店铺", "驿铺", "铺面", "急递铺")),
        ),
        "the verb and 金铺 (门铺首) are 平 (metre 平 58 / 仄 3); pypinyin's pù is the shop",
    ),
    "咽": E(
        "ye4",
        (
            R("ye4", "烏結", "哽咽，呜咽"),
            R("yan1", "烏前", "咽喉", ("咽喉",)),
            R("yan4", "於甸", "吞（嚥）", ("吞咽",)),
        ),
        "烏结切 (入) and 於甸切 (去) are both 仄. Metre 平 6 / 仄 57",
    ),
    "鲜": E(
        "xian1",
        (
            R("xian1", "相然", "鲜洁，善，新鲜"),
            R("xian3", "息淺", "少（鲜有，鲜欢）", ("鲜有", "鲜欢", "鲜矣", "鲜克", "寡鲜")),
        ),
        "Metre 平 57 / 仄 6 (鲜欢 仄 2)",
    ),
    "输": E(
        "shu1",
        (R("shu1", "式朱", "尽，写，输送，输赢"), R("shu4", "傷遇", "送（去声）")),
        _NO_WORD + ". Metre 平 35 / 仄 2",
    ),
    "驱": E(
        "qu1",
        (R("qu1", "豈俱", "驱驰"), R("qu4", "區遇", "驱（去声）")),
        _NO_WORD + ". Metre 平 50 / 仄 1",
    ),
    "妃": E(
        "fei1",
        (R("fei1", "芳非", "嘉偶，妃嫔"), R("pei4", "滂佩", "妃偶（配）")),
        _NO_WORD + ". Metre 平 67 / 仄 2",
    ),
    "汗": E(
        "han4",
        (R("han4", "侯旰", "热汗"), R("han2", "胡安", "可汗", ("可汗",))),
        "Metre 平 5 / 仄 41",
    ),
    "兼": E(
        "jian1",
        (R("jian1", "古甜", "并，兼"), R("jian4", "古念", "（去声，无别义）")),
        _NO_WORD + ". Metre 平 55 / 仄 0",
    ),
    "翰": E(
        "han4",
        (R("han4", "侯旰", "鸟羽，高飞，词翰"), R("han2", "胡安", "天鸡")),
        _NO_WORD + ". Metre 平 5 / 仄 36",
    ),
    "延": E(
        "yan2",
        (R("yan2", "以然", "远，进，长，延伫"), R("yan4", "予線", "曼延不断")),
        _NO_WORD + ". Metre 平 40 / 仄 3",
    ),
    "累": E(
        "lei4",
        (
            R("lei4", "良僞", "缘坐，牵累，累"),
            R("lei3", "力委", "积累"),
            R("lei2", "力追", "纍：累累，索", ("累累", "纍纍"), head="纍"),
        ),
        "累累 (纍纍) is 平 (metre 平 13); 良伪切 (去) and 力委切 (上) are both 仄. "
        "Metre 平 19 / 仄 21",
    ),
    "单": E(
        "dan1",
        (
            R("dan1", "都寒", "单复，单薄"),
            R("chan2", "市連", "单于", ("单于",)),
            R("shan4", "時戰", "单父（县名）；姓", ("单父",)),
        ),
        "Metre 平 27 / 仄 2",
    ),
    "莹": E(
        "ying4",
        (R("ying4", "烏定", "玉色，莹澈"), R("ying2", "永兵", "玉色（平声）")),
        "one sense in both tones in 《广韵》 (玉色), but verse puts it at 仄 positions (metre "
        "平 3 / 仄 41): the 去声 is the default",
    ),
    "菲": E(
        "fei1",
        (
            R("fei1", "芳非", "芳菲"),
            R(
                "fei3",
                "敷尾",
                "薄，微（菲薄）",
                ("菲薄", "菲才", "菲材", "菲仪", "菲酌", "菲礼", "菲食"),
            ),
        ),
        "Metre 平 60 / 仄 0",
    ),
    "髯": E(
        "ran2",
        (R("ran2", "汝鹽", "髯，颊须"), R("ran4", "而豔", "髯颔毛（去声）")),
        _NO_WORD + ". Metre 平 59 / 仄 0",
    ),
    "廷": E(
        "ting2",
        (R("ting2", "特丁", "朝廷"), R("ting4", "徒徑", "朝廷（去声）")),
        _NO_WORD + ". Metre 平 16 / 仄 0",
    ),
    "溶": E(
        "rong2",
        (R("rong2", "餘封", "水貌，溶溶"), R("rong3", "余隴", "水貌（上声）")),
        _NO_WORD + ". Metre 平 48 / 仄 0",
    ),
    "装": E(
        "zhuang1",
        (R("zhuang1", "側羊", "装束"), R("zhuang4", "側亮", "行装（去声）")),
        _NO_WORD + ". Metre 平 39 / 仄 0",
    ),
    "奔": E(
        "ben1",
        (R("ben1", "博昆", "奔走"), R("ben4", "甫悶", "奔（去声）")),
        _NO_WORD + ". Metre 平 23 / 仄 3",
    ),
    "喷": E(
        "pen1",
        (R("pen1", "普䰟", "喷，吐气（同义两读）", alt="pen4", fanqie2="普悶"),),
        "《广韵》 普䰟切 (上同: 歕) and 普闷切 吐气 are one sense; verse puts it at both "
        "(metre 平 15 / 仄 30; 香喷 平 5 / 仄 6): 两读, the metre decides",
        "c",
    ),
    "号": E(
        "hao4",
        (
            R("hao4", "胡到", "号令，名号，召"),
            R(
                "hao2",
                "胡刀",
                "大呼，哭（怒号，哀号）",
                (
                    "怒号",
                    "哀号",
                    "号呼",
                    "呼号",
                    "悲号",
                    "号啕",
                    "号咷",
                    "猿号",
                    "鬼号",
                    "风号",
                    "号泣",
                    "号寒",
                    "号叫",
                ),
            ),
        ),
        "Metre 平 9 / 仄 30 (怒号 平 2)",
    ),
    "宛": E(
        "wan3",
        (R("wan3", "於阮", "宛然，宛转"), R("yuan1", "於袁", "宛县；大宛", ("大宛",))),
        "Metre 平 5 / 仄 18",
    ),
    "油": E(
        "you2",
        (R("you2", "以周", "油脂"), R("you4", "余救", "雚子桐花曰油")),
        _NO_WORD + ". Metre 平 31 / 仄 1",
    ),
    "娑": E(
        "suo1",
        (R("suo1", "素何", "婆娑"), R("suo3", "蘇可", "馺娑（殿名）", ("馺娑",))),
        "Metre 平 49 / 仄 1",
    ),
    # --- third pass: where the contextual reading and the metre disagree ---------------
    "溅": E(
        "jian4",
        (R("jian4", "子賤", "溅水"), R("jian1", "則前", "溅溅（疾流貌）", ("溅溅",))),
        "溅溅 is 平 (则前切 疾流皃; metre 溅溅 平 18). Metre 平 19 / 仄 20",
    ),
    "阆": E(
        "lang4",
        (R("lang4", "來宕", "阆风，阆苑，阆中；高门"), R("lang2", "魯當", "高门")),
        "来宕切 names 阆风 and 阆中; verse puts 阆苑/阆风 at 仄 positions (metre 平 2 / 仄 17)",
    ),
    "操": E(
        "cao1",
        (
            R("cao1", "七刀", "操持"),
            R(
                "cao4",
                "七到",
                "志操；琴操（节操，雅操）",
                (
                    "节操",
                    "雅操",
                    "志操",
                    "琴操",
                    "清操",
                    "高操",
                    "贞操",
                    "操行",
                    "霜操",
                    "鸾操",
                    "别鹤操",
                ),
            ),
        ),
        "the verb is 平, the noun (志操, a 琴 piece) 去: metre 节操/雅操/鸾操/霜操 仄. "
        "Metre 平 2 / 仄 20",
    ),
    "反": E(
        "fan3",
        (R("fan3", "府遠", "反覆，不顺"), R("fan1", "孚袁", "平反（断狱）", ("平反",))),
        "Metre 平 4 / 仄 12 (平反 平 4)",
    ),
    "监": E(
        "jian1",
        (
            R("jian1", "古銜", "领，察，临下"),
            R(
                "jian4",
                "格懺",
                "领（官名：秘书监，国子监）",
                ("贺监", "秘监", "书监", "秘书监", "国子监", "太监", "少监"),
            ),
        ),
        "the office (贺知章 秘书监: 贺监) is 去: metre 贺监 仄 5. Metre 平 4 / 仄 14",
    ),
    "杓": E(
        "biao1",
        (
            R("biao1", "甫遙", "北斗柄星（斗杓）"),
            R("shao2", "市若", "杯杓", ("杯杓", "鹚杓", "金杓", "酒杓", "杓子")),
        ),
        "Metre 平 11 / 仄 7",
    ),
    "担": E(
        "dan1",
        (
            R("dan1", "都甘", "担负，担任"),
            R(
                "dan4",
                "都濫",
                "负（重担，担子）",
                ("重担", "一担", "担子", "樵担", "行担", "担头", "书担", "薪担"),
            ),
        ),
        "Metre 平 5 / 仄 6",
    ),
    "掺": E(
        "shan3",
        (R("shan3", "所斬", "揽，执（掺执）"), R("xian1", "所咸", "掺掺（女手纤貌）", ("掺掺",))),
        "Metre 平 4 / 仄 2 (掺掺 平 3)",
    ),
    "鞘": E(
        None,
        (
            R("shao1", "所交", "鞭鞘（鸣鞘）", ("鸣鞘", "鞭鞘", "鞘声")),
            R("qiao4", "私妙", "刀鞘", ("出鞘", "入鞘", "脱鞘", "刀鞘", "剑鞘")),
        ),
        "《广韵》 glosses 私妙切 上同 (鞭鞘); verse's 鸣鞘 (whip) is 平 (metre 平 6), a sheath "
        "仄 (出鞘/入鞘): by words only",
        "d",
    ),
    "汹": E(
        "xiong3",
        (R("xiong3", "許拱", "汹溶，水貌（汹汹）"), R("xiong1", "許容", "水势")),
        "one sense in both tones in 《广韵》 (水势 / 水皃), but verse puts it at 仄 positions "
        "(metre 平 0 / 仄 6; 汹汹 仄 5): the 上声 is the default",
    ),
    "觜": E(
        "zui3",
        (
            R("zui3", "即委", "喙（沙觜，燕觜）"),
            R("zi1", "即移", "觜星（二十八宿）", ("觜宿", "觜参", "觜觿")),
        ),
        "the beak (即委切 喙也) is 仄: metre 沙觜 仄 7, 平 0",
    ),
    "峒": E(
        None,
        (R("tong2", "徒紅", "崆峒（山名）", ("崆峒",)), R("dong4", "徒弄", "磵深")),
        "崆峒 is 平 (徒红切); otherwise no safe default (metre 平 3 / 仄 1)",
        "d",
    ),
    "茹": E(
        "ru3",
        (
            R("ru3", "人渚", "食，菜，柔（不茹）"),
            R("ru2", "人諸", "相牵引（拔茅连茹）", ("连茹", "茹茹")),
        ),
        "verse's 茹 is eating (不茹) or vegetables, 上/去: metre 平 0 / 仄 6",
    ),
    "湫": E(
        "qiu1",
        (R("qiu1", "七由", "水池（龙湫）"), R("jiao3", "子了", "湫隘", ("湫隘",))),
        "Metre 平 4 / 仄 0",
    ),
    "蠡": E(
        "li3",
        (
            R("li3", "盧啓", "彭蠡（泽名），范蠡"),
            R("li2", "呂支", "谷蠡（匈奴官名）", ("谷蠡",)),
        ),
        "Metre 平 0 / 仄 5 (范蠡 仄 3)",
    ),
    "炮": E(
        "pao2",
        (R("pao2", "薄交", "合毛炙肉（烹炮）"), R("pao4", "匹皃", "灼")),
        _NO_WORD + ". Metre 平 3 / 仄 1",
    ),
    "夭": E(
        "yao1",
        (
            R("yao1", "於喬", "和舒之貌（夭夭，夭桃）"),
            R("yao3", "於兆", "屈；夭折（寿夭）", ("寿夭", "夭折", "夭亡", "夭殇", "夭阏", "夭矫")),
        ),
        "Metre 平 7 / 仄 8 (寿夭 仄 3)",
    ),
    "治": E(
        "zhi4",
        (R("zhi4", "直利", "理，治（同义两读）", alt="zhi2", fanqie2="直之"),),
        "《广韵》 glosses 直利切 and 直之切 理也 alike; verse puts it at both (metre 平 22 / 仄 "
        "8): 两读, the metre decides",
        "c",
    ),
}


def _gy_rows(ch: str, gy: dict[str, list[cand.Guangyun]], head: str = "") -> list[cand.Guangyun]:
    rows = list(gy.get(ch, []))
    if head:
        rows += [r for r in gy.get(head, []) if r not in rows]
    return rows


def _find(rows: list[cand.Guangyun], fanqie: str, head: str = "", own: str = "") -> cand.Guangyun:
    """The 《广韵》 row of that fanqie (of ``head`` when given, else the character's own
    graph first)."""
    hits = [r for r in rows if r.fanqie == fanqie and (not head or r.head == head)]
    if not hits:
        raise ValueError(f"no 《广韵》 reading {fanqie}切 {head}")
    return sorted(hits, key=lambda r: r.head not in own)[0]


def _tone_of_group(g: str) -> str:
    return "平" if g.startswith(("上平", "下平")) else "仄"


def build_hand(
    ch: str, e: E, gy: dict[str, list[cand.Guangyun]], groups: list[str]
) -> dict[str, Any]:
    rows = _gy_rows(ch, gy, next((r.head for r in e.readings if r.head), ""))
    readings = []
    srcs = []
    for r in e.readings:
        if r.fanqie is None:
            rhyme = r.rhyme
            if rhyme not in groups:
                raise ValueError(f"{ch}: {rhyme} is not a 平水韵 group of it ({groups})")
            readings.append(
                {
                    "pinyin": r.pinyin,
                    "tone": _tone_of_group(rhyme),
                    "rhyme": rhyme,
                    "sense": r.sense,
                    "phrases": list(r.phrases),
                    "source": f"平水韵 {rhyme}; 《广韵》 has no reading of this tone",
                }
            )
            srcs.append(f"（{rhyme}：平水韵）")
            continue
        g = _find(rows, r.fanqie, r.head, ch + cand_trad(ch))
        rhyme = r.rhyme or pingshui_group(ch, g, groups)
        if not rhyme:
            raise ValueError(f"{ch}: no 平水韵 group for {g.short()} ({groups})")
        head = "" if g.head in (ch, cand_trad(ch)) else f"{g.head} "
        src = f"《广韵》{head}{g.fanqie}切 {g.rhyme}韵：{_short(g.gloss)}"
        item: dict[str, Any] = {"pinyin": r.pinyin}
        if r.alt and r.rhyme2:
            if r.rhyme2 not in groups:
                raise ValueError(f"{ch}: {r.rhyme2} is not a 平水韵 group of it ({groups})")
            item |= {"alt": r.alt, "tone": "两", "rhyme": f"{rhyme} / {r.rhyme2}"}
            src += f" / 平水韵 {r.rhyme2}: {r.source2}"
            srcs.append(f"{g.fanqie}切（{g.rhyme}）")
        elif r.alt:
            g2 = _find(rows, r.fanqie2, "", ch + cand_trad(ch))
            rhyme2 = pingshui_group(ch, g2, groups)
            item |= {"alt": r.alt, "tone": "两", "rhyme": f"{rhyme} / {rhyme2}"}
            src += f" / {g2.fanqie}切 {g2.rhyme}韵：{_short(g2.gloss)}"
            srcs.append(f"{g.fanqie}切（{g.rhyme}）/ {g2.fanqie}切（{g2.rhyme}）")
        else:
            item |= {"tone": TONE[g.tone], "rhyme": rhyme}
            srcs.append(f"{head}{g.fanqie}切（{g.rhyme}）")
        item |= {"sense": r.sense, "phrases": list(r.phrases), "source": src}
        readings.append(item)
    out: dict[str, Any] = {
        "default": e.default,
        "source": f"平水韵 {' / '.join(groups)}；《广韵》" + " / ".join(srcs),
        "readings": readings,
    }
    if e.note:
        out["note"] = e.note
    return out


TONE = {"平": "平", "上": "仄", "去": "仄", "入": "仄"}


def cand_trad(ch: str) -> str:
    from opencc import OpenCC

    return str(OpenCC("s2t.json").convert(ch))


def _other_pinyin(ch: str, tone: str, base: str, group: str) -> str:
    """A label for the 平水韵-only reading: pypinyin's reading of that tone when it has
    one, else the glossed reading's syllable with a tone of the group's class."""
    from pypinyin import Style, pinyin

    for p in pinyin(ch, style=Style.TONE3, heteronym=True)[0]:
        if p[-1].isdigit() and (p[-1] in "12") == (tone == "平"):
            return p
    digit = "1" if tone == "平" else ("3" if group.startswith("上声") else "4")
    return base.rstrip("12345") + digit


def _main_pinyin(ch: str, tone: str, group: str = "") -> str:
    from pypinyin import Style, lazy_pinyin, pinyin

    first = lazy_pinyin(ch, style=Style.TONE3)[0]
    if first[-1].isdigit() and (first[-1] in "12") == (tone == "平"):
        return first
    base = first.rstrip("12345")
    same = [
        p
        for p in pinyin(ch, style=Style.TONE3, heteronym=True)[0]
        if p.rstrip("12345") == base and p[-1].isdigit() and (p[-1] in "12") == (tone == "平")
    ]
    return same[0] if same else base + ("2" if tone == "平" else "3" if "上声" in group else "4")


def build_mechanical(ch: str, gy_rows: list[cand.Guangyun], groups: list[str]) -> dict[str, Any]:
    """Class (a): the glossed tone is the default, the other tone 平水韵's alone."""
    tone = gy_rows[0].ping_ze
    glossed: list[tuple[cand.Guangyun, str]] = []
    for g in gy_rows:
        rhyme = pingshui_group(ch, g, groups)
        if rhyme and rhyme not in [x[1] for x in glossed]:
            glossed.append((g, rhyme))
    if not glossed:
        raise ValueError(f"{ch}: no 《广韵》 reading falls in a 平水韵 group of it")
    g, rhyme = glossed[0]
    main = _main_pinyin(ch, tone, rhyme)
    sense = _short(g.gloss, 24)
    if sense.startswith(("上同", "俗今")):  # no sense of its own: the head's
        sense = f"（{ch}；《广韵》：{sense}）"
    heads = "" if g.head in (ch, cand_trad(ch)) else f"{g.head} "
    first = {
        "pinyin": main,
        "tone": tone,
        "rhyme": rhyme,
        "sense": sense,
        "phrases": [],
        "source": f"《广韵》{heads}{g.fanqie}切 {g.rhyme}韵：{_short(g.gloss)}",
    }
    others = [x for x in groups if _tone_of_group(x) != tone]
    other_tone = "仄" if tone == "平" else "平"
    second = {
        "pinyin": _other_pinyin(ch, other_tone, main, others[0]),
        "tone": other_tone,
        "rhyme": others[0],
        "sense": "（不详）",
        "phrases": [],
        "source": "平水韵 lists it; 《广韵》 has no reading of this tone: no sense sourced",
    }
    return {
        "default": main,
        "source": f"平水韵 {' / '.join(groups)}；《广韵》"
        + " / ".join(f"{x.fanqie}切（{x.rhyme}）" for x, _ in glossed),
        "readings": [first, second],
        "note": f"《广韵》 has only the {'平声' if tone == '平' else '仄声'} reading; 平水韵 also "
        f"lists it under {' / '.join(others)}, with no sense any source here gives: the "
        f"default is the glossed reading {MARK}",
    }


def entries(qieyun: Path = cand.QIEYUN) -> dict[str, dict[str, Any]]:
    """The new entries (hand first, then mechanical), most frequent first."""
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    rows = cand.candidates(qieyun, include_table=True, metre=True)
    groups = cand.pingshui_groups()
    gy = cand.guangyun(qieyun)
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        ch = row["char"]
        if row["in_table"] == "merged" or (ch in table and not _ours(ch, table[ch])):
            continue
        if ch in HAND:
            try:
                out[ch] = build_hand(ch, HAND[ch], gy, groups[ch])
            except ValueError as exc:
                PROBLEMS[ch] = f"HAND {ch}: {exc}"
        elif row["kind"].startswith("one:") and (why := _contradicted(row)):
            PROBLEMS[ch] = f"{ch}: {why}"
        elif row["kind"].startswith("one:") and ch not in SKIP:
            try:
                out[ch] = build_mechanical(ch, gy[ch], groups[ch])
            except ValueError as exc:
                PROBLEMS[ch] = str(exc)
    return out


PROBLEMS: dict[str, str] = {}
MARK = "(mechanical, prosody-1.8)"


def _ours(ch: str, entry: dict[str, Any]) -> bool:
    """An entry this tool wrote (regenerated on --write), not one written before."""
    return ch in HAND or MARK in entry.get("note", "")


def _contradicted(row: dict[str, str]) -> str:
    """Why the glossed tone is no safe default: the poets put the character in a fixed
    position of the other tone a quarter of the time or more (3 times at least)."""
    tone = row["kind"][-1]
    n_ping = int(row["metre_ping"].split()[0] or 0)
    n_ze = int(row["metre_ze"].split()[0] or 0)
    other = n_ze if tone == "平" else n_ping
    if other >= 3 and other >= 0.25 * (n_ping + n_ze):
        return f"glossed {tone}, but at fixed positions 平 {n_ping} / 仄 {n_ze}"
    return ""


# (a) characters left out: the metre of the bundled corpora contradicts the glossed tone,
# or the glossed reading belongs to another word; handled in HAND or left for later
SKIP: dict[str, str] = {
    "懦": "《广韵》 人朱切 弱也 says 又乃乱切: the 去声 is filed under another graph (愞)",
    "侥": "the glossed 平 (五聊切) is 僬侥, a people; 侥幸 (徼幸) is not sourced here",
}


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(cand.ROOT))
    new = entries()
    if "--write" in argv:
        table = json.loads(TABLE.read_text(encoding="utf-8"))
        # an entry this tool wrote and no longer writes (now skipped) goes
        table = {k: v for k, v in table.items() if k in new or k.startswith("_") or not _ours(k, v)}
        table.update(new)
        TABLE.write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    hand = sum(1 for c in new if c in HAND)
    print(json.dumps(new, ensure_ascii=False, indent=1))
    for why in PROBLEMS.values():
        print(f"# left out: {why}", file=sys.stderr)
    print(f"# {len(new)} entries: {hand} by hand, {len(new) - hand} mechanical", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
