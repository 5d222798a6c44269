"""Readings of polyphones in the set phrases of classical verse.

pypinyin's phrase dictionary is modern: it reads 一曲 yī qū (a bend) where 晏殊's 一曲新词
is yī qǔ (a song), and 教 alone as jiào where 莫教 / 不教 (to let) is jiāo.  The rules
below resolve a polyphone by its neighbours, only where the phrase decides the meaning;
everywhere else the character keeps pypinyin's contextual reading and, having both tones
attested, stays *ambiguous* (mark 中), which a lenient check accepts and the diagnostics
report as ambiguous rather than wrong.

Sources for the readings: 《汉语大词典》 (曲 qǔ 乐曲; 教 jiāo 使、令; 重 chóng 再、层;
思 sì 名词 "心绪、情思"; 沈 chén 同"沉"; 相 xiàng 宰相; 兴 xìng 兴致; 禁 jīn 承受; 浪 láng 沧浪; 将 jiàng 将领; 华 huà 华山; 降 xiáng 投降; 传 zhuàn 驿车、传记;
分 fèn 名分、缘分; 长 cháng 长短之长, 又通"常"; 难 nàn 灾难; 胜 shēng 能承受; 骑 jì 一人一马、骑兵; 燕 yān 国名、地名) and 王力《诗词格律》 (§ 平仄, on 思 and 看 read by the metre).
Rules marked ``classical`` apply to the classical tone system only: the modern standard
(《现代汉语词典》) reads 思 sī in every sense.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .senses import metre_free_chars, polyphones


@dataclass(frozen=True)
class ContextRule:
    """A character read ``reading`` where ``pattern`` matches it (group ``c``)."""

    char: str
    reading: str
    pattern: re.Pattern[str]
    classical_only: bool
    note: str


def _rule(
    char: str, reading: str, before: str, after: str, note: str, classical: bool = False
) -> ContextRule:
    """``before``/``after``: regex context around ``char`` (lookbehind / lookahead)."""
    alts = []
    if before:
        alts.append(f"(?<={before}){char}")
    if after:
        alts.append(f"{char}(?={after})")
    return ContextRule(char, reading, re.compile("|".join(alts)), classical, note)


_WATER = "[溪江水河池塘栏阑径岸港涧巷沼湾堤岭山屏廊]"

RULES: tuple[ContextRule, ...] = (
    # 曲 qǔ, a song: 一曲新词, 新曲, 歌曲, 曲终 …; not 一曲溪 / 一曲阑干 (a bend, qū).
    ContextRule(
        "曲",
        "qu3",
        re.compile(
            r"(?<=[一两几数半])曲(?!" + _WATER + r")|(?<=[新旧歌词清妙度艳小雅古高琴笛"
            r"奏唱听按谱遗金缕采莲竹枝杨柳阳关渭城])曲(?!" + _WATER + r")|曲(?=[终罢尽未成调谱子])"
        ),
        False,
        "曲 qǔ (a song) after a numeral or a word of music, or before 终/罢/尽 …",
    ),
    _rule(
        "教",
        "jiao1",
        "[莫休不肯谁偏应却争漫空可那怎犹直忍遣难未若更悔翻还须只枉]",
        "[人他伊君我侬谁渠妾]",
        "教 jiāo (to let, 使/令): 莫教, 不教, 教人 …",
    ),
    # 教 in classical verse is 平 (广韵 古肴切: 令也, 使也 -- and teaching) except the
    # nouns of 古孝切 (教化, 教坊, 政教, 礼教, 佛教 …).  The modern standard reads the
    # causative jiào, so this rule is classical only; the one above holds in both.
    ContextRule(
        "教",
        "jiao1",
        re.compile(r"(?<![宗礼佛道政施文名家身言传请])教(?![坊化授导训诲习义令])"),
        True,
        "教 jiāo (令也, 使也) outside 教化/教坊/政教 … (classical)",
    ),
    _rule(
        "重",
        "chong2",
        "[千万几数层九两]",
        "[来到游见逢阳九门楼叠帘城云衾檐山阴开回归寻温看过圆题]",
        "重 chóng (again; layers): 重来, 重阳, 万重, 两重 …",
    ),
    # 长 cháng (long; 常, always) everywhere in verse except the words of growing and
    # seniority (生长, 草长, 家长, 兄长, 长大, 长老, 长者 …, zhǎng).  pypinyin's modern
    # segmenter otherwise takes a word across the phrase (唯见长江 as 见长 jiàn zhǎng, 路长嗟,
    # 何事长向, 红颜岂得长如旧 zhǎng).
    ContextRule(
        "长",
        "chang2",
        re.compile(r"(?<![生成增滋助消兄家师尊亭里族酋首年草茁])长(?![大老者幼子官吏进孙辈])"),
        False,
        "长 cháng (long; 常, always) outside 生长/家长/长大/长老 …",
    ),
    # 难 nàn (calamity) after the words it goes with: 多难, 患难, 国难 (杜甫 万方多难).
    _rule(
        "难",
        "nan4",
        "[多灾患国危遭避罹蒙赴救苦]",
        "",
        "难 nàn (calamity): 多难, 患难, 国难 …",
    ),
    # 胜 shēng (to bear, 能承受) after a negation or a rhetorical word: 不胜寒, 不胜簪,
    # 难胜; the modern standard reads shèng here (旧读 shēng), so classical only.
    _rule(
        "胜",
        "sheng1",
        "[不难岂那讵]",
        "",
        "胜 shēng (to bear): 不胜, 难胜 …",
        classical=True,
    ),
    # 骑 jì (a horseman, a mounted troop) after a numeral or an attribute, not before
    # the animal ridden (骑马 qí).
    ContextRule(
        "骑",
        "ji4",
        re.compile(r"(?<=[千万百一数候铁胡轻飞游精单归从征边突])骑(?![马驴牛鹤鲸虎龙鹿羊])"),
        False,
        "骑 jì (a horseman): 千骑, 候骑, 铁骑, 一骑红尘 …",
    ),
    # 将 jiàng (a general) after the words that qualify it: 飞将, 汉将, 大将, 上将.  将军
    # keeps pypinyin's jiāng, the level reading verse gives it (李白 空忆谢将军).
    _rule(
        "将",
        "jiang4",
        "[飞汉名大良主上猛骁勇战老宿胡番边裨副虎]",
        "[帅士]",
        "将 jiàng (a general): 飞将, 汉将, 大将, 将帅 …",
    ),
    # 华 huà, the mountain: 太华, 少华, 华山, 华阴.
    _rule("华", "hua4", "[太少西]", "[山阴岳]", "华 huà (the mountain): 太华, 华山, 华阴 …"),
    # 降 xiáng (to surrender) before the one who surrendered: 降王, 降将, 降卒.
    _rule("降", "xiang2", "", "[王将卒虏旗幡表]", "降 xiáng (surrendered): 降王, 降将 …"),
    # 传 zhuàn (a relay station's carriage; a commentary): 传车, 传舍, 经传, 列传.
    _rule("传", "zhuan4", "[经列史外自表]", "[车舍]", "传 zhuàn: 传车, 传舍, 列传 …"),
    # 分 fèn (one's lot, share): 有分, 缘分, 名分, 本分.
    _rule("分", "fen4", "[有本缘名职天情无福身随]", "", "分 fèn (lot, share): 有分, 缘分, 随分 …"),
    # 沈, the old graph of 沉, is chén (深沈, 沈沈, 浮沈, 水沈 the incense, 沈醉) except as
    # the surname (沈郎, 沈约, 沈园, 沈腰, 沈氏: shěn).
    ContextRule(
        "沈",
        "chen2",
        re.compile(r"沈(?![郎约园腰家氏侯公])"),
        False,
        "沈 chén (= 沉) outside the surname (沈郎, 沈约, 沈园 …)",
    ),
    # 相 xiàng (a minister): 汉相, 宰相, 贤相, 卿相.
    _rule("相", "xiang4", "[汉宰贤良名首卿将蜀故]", "[国府印业]", "相 xiàng (minister): 宰相 …"),
    # 兴 xìng (mood, zest): 乘兴, 逸兴, 诗兴, 酒兴, 清兴, 兴尽 …
    _rule(
        "兴",
        "xing4",
        "[乘逸诗酒清雅游高豪幽野余遣佳]",
        "[尽阑来味致]",
        "兴 xìng (mood): 乘兴, 逸兴, 诗兴, 兴尽 …",
    ),
    # 禁 jīn (to bear): 不禁, 难禁, 能禁, 禁得, 禁受.
    _rule("禁", "jin1", "[不难那岂能怎争]", "[得受持]", "禁 jīn (to bear): 不禁, 难禁, 禁得 …"),
    # 浪 láng in 沧浪 (the river, 孺子歌 沧浪之水).
    _rule("浪", "lang2", "[沧]", "", "浪 láng in 沧浪"),
    # 燕 yān, the state and its land (燕然, 燕山, 燕赵), not 燕 yàn the swallow.
    _rule(
        "燕",
        "yan1",
        "",
        "[然山赵京台市歌姬地云脂支]",
        "燕 yān (the place): 燕然, 燕山, 燕赵, 燕台 …",
    ),
    _rule(
        "思",
        "si4",
        "[愁情秋幽旅乡归离客文诗才哀远春闺怀遐]",
        "",
        "思 sì (a noun: 愁思, 秋思, 客思; 仄 in the classical books)",
        classical=True,
    ),
)
_CHARS = frozenset(r.char for r in RULES)


@lru_cache(maxsize=2)
def _rules_for(classical: bool) -> tuple[tuple[ContextRule, ...], frozenset[str]]:
    if classical:
        table = frozenset(polyphones())
        rules = tuple(r for r in RULES if r.char not in table)
    else:
        rules = tuple(r for r in RULES if not r.classical_only)
    return rules, frozenset(r.char for r in rules)


def apply_rules(
    lines: Sequence[str], readings: list[tuple[str, ...]], *, classical: bool
) -> list[tuple[str, ...]]:
    """Readings with the phrase rules applied (``lines`` as written or simplified).

    In the classical system the reading table (:mod:`.senses`) decides its characters
    afterwards, so only the rules of the other characters run (曲).
    """
    rules, chars = _rules_for(classical)
    out = readings
    for k, line in enumerate(lines):
        if chars.isdisjoint(line):
            continue
        fixed = list(out[k])
        for rule in rules:
            if rule.char not in line:
                continue
            for m in rule.pattern.finditer(line):
                fixed[m.start()] = rule.reading
        if out is readings:
            out = list(readings)
        out[k] = tuple(fixed)
    return out


# Positions the metre reads (mark 中 only then): the 两读 characters of the reading table,
# a level and an oblique reading of the same meaning that the poet read as the metre
# needed (王力《汉语诗律学》第一章 §5 "平仄两读而意义不变": 看 听 望 忘 过 醒 叹 誉 凝 探),
# and merged simplified characters whose original the context leaves undecided (干 =
# 乾 平 / 幹 仄): see :mod:`.senses`.
SAME_MEANING = metre_free_chars()
SAME_MEANING_SOURCE = "王力《汉语诗律学》第一章§5（平仄两读而意义不变）"


def resolve_by_metre(chars: str, tones: str, marks: str, required: str) -> tuple[str, list[int]]:
    """Read each metre-free position (:data:`SAME_MEANING`, mark 中) in the required tone.

    ``chars``/``tones``/``marks``/``required`` are aligned strings (simplified characters,
    平/仄/?, 平/仄/中/?, 平/仄/中).  Returns the tone string and the positions changed.
    """
    if SAME_MEANING.isdisjoint(chars):
        return tones, []
    out = list(tones)
    changed = []
    for i, ch in enumerate(chars[: len(required)]):
        if (
            ch in SAME_MEANING
            and marks[i] == "中"
            and required[i] in "平仄"
            and out[i] != required[i]
        ):
            out[i] = required[i]
            changed.append(i)
    return ("".join(out), changed) if changed else (tones, [])
