"""Readings of polyphones in the set phrases of classical verse.

pypinyin's phrase dictionary is modern: it reads 一曲 yī qū (a bend) where 晏殊's 一曲新词
is yī qǔ (a song), and 教 alone as jiào where 莫教 / 不教 (to let) is jiāo.  The rules
below resolve a polyphone by its neighbours, only where the phrase decides the meaning;
everywhere else the character keeps pypinyin's contextual reading and, having both tones
attested, stays *ambiguous* (mark 中), which a lenient check accepts and the diagnostics
report as ambiguous rather than wrong.

Sources for the readings: 《汉语大词典》 (曲 qǔ 乐曲; 教 jiāo 使、令; 重 chóng 再、层;
思 sì 名词 "心绪、情思") and 王力《诗词格律》 (§ 平仄, on 思 and 看 read by the metre).
Rules marked ``classical`` apply to the classical tone system only: the modern standard
(《现代汉语词典》) reads 思 sī in every sense.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass


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
        "[莫休不肯谁偏应却争漫空可那怎犹直忍遣难未若]",
        "[人他伊君我侬谁渠]",
        "教 jiāo (to let, 使/令): 莫教, 不教, 教人 …",
    ),
    _rule(
        "重",
        "chong2",
        "[千万几数层九]",
        "[来到游见逢阳九门楼叠帘城云衾檐山阴开回归寻温看过圆题]",
        "重 chóng (again; layers): 重来, 重阳, 万重 …",
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


def apply_rules(
    lines: Sequence[str], readings: list[tuple[str, ...]], *, classical: bool
) -> list[tuple[str, ...]]:
    """Readings with the phrase rules applied (``lines`` as written or simplified)."""
    out = readings
    for k, line in enumerate(lines):
        if _CHARS.isdisjoint(line):
            continue
        fixed = list(out[k])
        for rule in RULES:
            if (rule.classical_only and not classical) or rule.char not in line:
                continue
            for m in rule.pattern.finditer(line):
                fixed[m.start()] = rule.reading
        if out is readings:
            out = list(readings)
        out[k] = tuple(fixed)
    return out
