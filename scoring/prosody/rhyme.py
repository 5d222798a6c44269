"""Rhyme: do the characters at a form's rhyme positions share a rhyme group?

Rhyme books (bundled tables, see ``data/SOURCES.md`` §5):

* modern -- 中华新韵 (14 groups, ``Xinyun_Rhyme.json``); a character missing from the table
  is placed by its pypinyin final (一麻 a/ia/ua, 二波 o/e/uo, … 十四姑 u);
* classical ci -- 词林正韵 (19 部, ``Cilin_Rhyme.json``), any tone within a 部;
* classical shi -- 平水韵 level-tone rhymes (上平 15 + 下平 15, ``Pingshui_Rhyme.json``).

A character may belong to several groups (polyphones, 通押 entries); each of its groups
counts.  For each set of positions that must rhyme together (one set, or several for tunes
that change rhyme: couyun ``yun_classify``), the group shared by most positions is chosen
and the score is the share of positions in it.  Characters with no known group (placeholders,
rare characters in the classical books) are reported and left out of the share.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import tables
from .tones import FormFamily, ToneSystem

_INITIALS = (
    "zh",
    "ch",
    "sh",
    "b",
    "p",
    "m",
    "f",
    "d",
    "t",
    "n",
    "l",
    "g",
    "k",
    "h",
    "j",
    "q",
    "x",
    "r",
    "z",
    "c",
    "s",
    "y",
    "w",
)
_FINAL_GROUP = {
    "a": "一麻",
    "ia": "一麻",
    "ua": "一麻",
    "o": "二波",
    "e": "二波",
    "uo": "二波",
    "ie": "三皆",
    "ve": "三皆",
    "ue": "三皆",
    "ai": "四开",
    "uai": "四开",
    "ei": "五微",
    "ui": "五微",
    "uei": "五微",
    "ao": "六豪",
    "iao": "六豪",
    "ou": "七尤",
    "iu": "七尤",
    "iou": "七尤",
    "an": "八寒",
    "ian": "八寒",
    "uan": "八寒",
    "van": "八寒",
    "en": "九文",
    "in": "九文",
    "un": "九文",
    "vn": "九文",
    "ang": "十唐",
    "iang": "十唐",
    "uang": "十唐",
    "eng": "十一庚",
    "ing": "十一庚",
    "ong": "十一庚",
    "iong": "十一庚",
    "ueng": "十一庚",
    "i": "十二齐",
    "v": "十二齐",
    "er": "十二齐",
    "u": "十四姑",
}


def xinyun_group_of_pinyin(py: str) -> str | None:
    """中华新韵 group of a TONE3 reading by its final (fallback for untabled characters)."""
    base = py.rstrip("012345").replace("ü", "v")
    if not base or base == "?":
        return None
    initial = next((i for i in _INITIALS if base.startswith(i) and len(base) > len(i)), "")
    final = base[len(initial) :]
    if initial in ("zh", "ch", "sh", "r", "z", "c", "s") and final == "i":
        return "十三支"
    if initial in ("j", "q", "x", "y") and final.startswith("u"):
        final = "v" + final[1:]
    if initial == "y" and final in ("an", "ang", "ao", "e", "a", "ou", "ong", "in", "ing"):
        final = {"e": "ie", "in": "in", "ing": "ing"}.get(final, "i" + final)
    if initial == "w":
        final = "u" + final if final != "u" else "u"
    return _FINAL_GROUP.get(final)


@lru_cache(maxsize=65536)
def groups_of(
    char: str, py: str, *, system: ToneSystem, family: FormFamily
) -> frozenset[str] | None:
    """The rhyme groups of a (simplified) character under a rhyme book; None if unknown.

    For classical shi only level-tone rhymes count, so a character the 平水韵 lists only
    under oblique rhymes has the empty set (known, rhymes with nothing).
    """
    if system == "classical":
        if family == "ci":
            return tables.cilin_groups().get(char)
        found = tables.pingshui_ping_groups().get(char)
        if found is None and char in tables.shi_tone_table():
            return frozenset()
        return found
    found = tables.xinyun_groups().get(char)
    if found:
        return found
    g = xinyun_group_of_pinyin(py)
    return frozenset({g}) if g else None


def book_name(system: ToneSystem, family: FormFamily) -> str:
    if system == "modern":
        return "中华新韵"
    return "词林正韵" if family == "ci" else "平水韵"


# Lenient rhyme: the documented allowances (通押) beside the strict book.
# 词林正韵 部 that Song poets rhymed together (戈载《词林正韵·发凡》 splits 平水韵 十灰 between
# 第三部 (杯回) and 第五部 (台来) and notes they were rhymed together; 王力《汉语诗律学》
# 第四章 (词韵) on the Song mixing of -n/-ng/-m endings, of -n/-m, and of the entering-tone
# endings -k/-t/-p, which joins 词林正韵 第十七、十八、十九部: 苏轼《念奴娇·赤壁怀古》 rhymes
# 壁 (十七部) with 物雪杰发灭月 (十八部)).
CI_TONGYA: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"第三部", "第五部"}), "戈载《词林正韵·发凡》（灰咍通押）"),
    (frozenset({"第六部", "第十一部", "第十三部"}), "王力《汉语诗律学》第四章（真文庚青侵通押）"),
    (frozenset({"第七部", "第十四部"}), "王力《汉语诗律学》第四章（寒删先覃盐咸通押）"),
    (
        frozenset({"第十七部", "第十八部", "第十九部"}),
        "王力《汉语诗律学》第四章（入声韵 -k/-t/-p 混押：质陌锡职缉、物月曷黠屑叶、合洽通押）",
    ),
)
# 平水韵 neighbouring rhymes a regulated poem's first line may borrow (首句借邻韵,
# 王力《诗词格律》第二章 §2); only the first line, never a couplet's rhyme.
SHI_NEIGHBOURS: tuple[frozenset[str], ...] = tuple(
    frozenset(x.split())
    for x in (
        "上平一东 上平二冬",
        "上平三江 下平七阳",
        "上平四支 上平五微 上平八齐",
        "上平六鱼 上平七虞",
        "上平九佳 上平十灰",
        "上平十一真 上平十二文 上平十三元",
        "上平十三元 上平十四寒 上平十五删 下平一先",
        "下平二萧 下平三肴 下平四豪",
        "下平八庚 下平九青 下平十蒸",
        "下平十三覃 下平十四盐 下平十五咸",
    )
)
SHI_NEIGHBOUR_SOURCE = "王力《诗词格律》第二章（首句借邻韵）"
# The 仄 邻韵 a 古体 poem may rhyme together (古体 only; never a 近体 rhyme): the 上 去 入
# rhymes that stand, by the 平水韵's 四声相承 (东董送屋, 冬肿宋沃, 真轸震质, 元阮愿月,
# 先铣霰屑 …), where the 平 rhymes of :data:`SHI_NEIGHBOURS` stand; 九泰 (去声 only) with
# 卦队; but 入声六月 goes with 曷黠屑 only, not with 质物 (the 入声 of 真文), as Tang 古体
# rhymes it (李白《将进酒》 发雪月; 白居易《琵琶行》 别月发, where 瑟 (质) does not join them).
# Derived by the platform from 王力's 平 list (《诗词格律》第二章, 古体诗的用韵), not copied
# from a printed 仄 list; 上去通押 is not joined.  Found by the issue-22 probe:
# 孟浩然《秋登兰山寄张五》 rhymes 悦灭 (屑) with 发歇月 (月), 杜甫《佳人》 谷木 (屋) with 烛玉 (沃).
GUTI_ZE_NEIGHBOURS: tuple[frozenset[str], ...] = tuple(
    frozenset(x.split())
    for x in (
        "上声一董 上声二肿",
        "上声四纸 上声五尾 上声八荠",
        "上声六语 上声七麌",
        "上声九蟹 上声十贿",
        "上声十一轸 上声十二吻 上声十三阮",
        "上声十三阮 上声十四旱 上声十五潸 上声十六铣",
        "上声十七筱 上声十八巧 上声十九皓",
        "上声二十三梗 上声二十四迥",
        "上声二十七感 上声二十八琰 上声二十九豏",
        "去声一送 去声二宋",
        "去声三绛 去声二十三漾",
        "去声四寘 去声五未 去声八霁",
        "去声六御 去声七遇",
        "去声九泰 去声十卦 去声十一队",
        "去声十二震 去声十三问 去声十四愿",
        "去声十四愿 去声十五翰 去声十六谏 去声十七霰",
        "去声十八啸 去声十九效 去声二十号",
        "去声二十四敬 去声二十五径",
        "去声二十八勘 去声二十九艳 去声三十陷",
        "入声一屋 入声二沃",
        "入声三觉 入声十药",
        "入声四质 入声五物",
        "入声六月 入声七曷 入声八黠 入声九屑",
        "入声十一陌 入声十二锡 入声十三职",
        "入声十五合 入声十六叶 入声十七洽",
    )
)


@dataclass(frozen=True)
class RhymeSet:
    """One set of positions that must rhyme together, and how well they do."""

    positions: tuple[int, ...]
    chars: str
    group: str | None
    ok: tuple[bool | None, ...]  # None = character of unknown group
    ok_lenient: tuple[bool | None, ...] = ()
    allowance: str | None = None  # the 通押 that made ok_lenient differ, with its source

    # (``ok`` and ``ok_lenient`` hold True, False or None only: counted at C speed)
    @property
    def known(self) -> int:
        return len(self.ok) - self.ok.count(None)

    @property
    def matched(self) -> int:
        return self.ok.count(True)

    @property
    def matched_lenient(self) -> int:
        return (self.ok_lenient or self.ok).count(True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "positions": list(self.positions),
            "chars": self.chars,
            "group": self.group,
            "ok": list(self.ok),
            "ok_lenient": list(self.ok_lenient or self.ok),
            "allowance": self.allowance,
        }


def check_set(
    positions: tuple[int, ...],
    chars: list[str],
    readings: list[str],
    *,
    system: ToneSystem,
    family: FormFamily,
    shown: str | None = None,
    first_line_free: bool = False,
    lenient: bool = True,
) -> RhymeSet:
    """Score one rhyme set: ``chars``/``readings`` are the (simplified) characters at
    ``positions``, looked up in the books; ``shown`` is the text as written (乾, not 干),
    which the diagnostics show.  ``first_line_free``: the first position is a regulated
    poem's first line, which may borrow a neighbouring rhyme (lenient only).
    ``lenient=False``: the strict judgement only (``ok_lenient`` left empty)."""
    gs = [
        groups_of(c, p, system=system, family=family) for c, p in zip(chars, readings, strict=True)
    ]
    if shown is not None and shown != "".join(chars):
        # the character as written first (篸 is listed itself), its simplified form else
        gs = [
            (groups_of(o, p, system=system, family=family) if o != c else None) or g
            for o, c, p, g in zip(shown, chars, readings, gs, strict=True)
        ]
    counts: dict[str, int] = {}
    for s in gs:
        for g in s or ():
            counts[g] = counts.get(g, 0) + 1
    best = min(counts, key=lambda g: (-counts[g], g)) if counts else None
    ok = tuple(None if s is None else (best in s) for s in gs)
    text = shown if shown is not None else "".join(chars)
    if not lenient:
        return RhymeSet(positions, text, best, ok)
    ok_lenient, allowance = _lenient(gs, best, ok, system, family, first_line_free)
    return RhymeSet(positions, text, best, ok, ok_lenient, allowance)


def _lenient(
    gs: list[frozenset[str] | None],
    best: str | None,
    ok: tuple[bool | None, ...],
    system: ToneSystem,
    family: FormFamily,
    first_line_free: bool,
) -> tuple[tuple[bool | None, ...], str | None]:
    """Positions that rhyme under the book's documented allowances, and which applied."""
    if system != "classical" or best is None:
        return ok, None
    if family == "ci":
        # the option keeping most positions (the first of equal ones), the book alone last
        out, src, most = ok, "", -1
        for cls, name in (*CI_TONGYA, (frozenset({best}), "")):
            here = tuple(None if g is None else not g.isdisjoint(cls) for g in gs)
            kept = here.count(True)
            if kept > most:
                out, src, most = here, name, kept
        return (out, src) if out != ok else (ok, None)
    if not first_line_free or not gs or ok[0] is not False or gs[0] is None:
        return ok, None
    if any(best in cls and gs[0] & cls for cls in SHI_NEIGHBOURS):
        return (True, *ok[1:]), SHI_NEIGHBOUR_SOURCE
    return ok, None


def score_sets(sets: list[RhymeSet], *, lenient: bool = False) -> float | None:
    """Share of known rhyme positions that fall in their set's chosen group (or, lenient,
    in a group the book's documented 通押 joins to it)."""
    known = sum(s.known for s in sets)
    if not known:
        return None
    return sum(s.matched_lenient if lenient else s.matched for s in sets) / known


def resolve_by_rhyme(
    tones: str, marks: str, required: str, sets: list[RhymeSet]
) -> tuple[str, list[int]]:
    """Read an ambiguous character at a rhyme position in the tone the form asks there.

    A character with both tones attested (mark 中: 看 kān/kàn, 听 tīng/tìng, 思 sī/sì) that
    rhymes at a rhyme position is read in the tone the template or pattern requires there,
    as the metre reads it (王力《诗词格律》, on 看 and 听 read by the metre): its contextual
    reading is no fault.  Returns the tone string with those positions changed and the
    positions (0-based, in the concatenated text).
    """
    if "中" not in marks:
        return tones, []  # no character of both tones: nothing to read by the rhyme
    out = list(tones)
    resolved = []
    for rs in sets:
        for p, ok in zip(rs.positions, rs.ok_lenient or rs.ok, strict=True):
            if not ok or p >= len(out) or p >= len(required) or marks[p] != "中":
                continue
            need = required[p]
            if need in ("平", "仄") and out[p] != need:
                out[p] = need
                resolved.append(p)
    return "".join(out), resolved
