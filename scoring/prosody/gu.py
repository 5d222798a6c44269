"""古体诗: a poem of 绝句 or 律诗 shape that is not regulated verse.

Rule source: 王力《诗词格律》第二章 §1 (近体诗 rhymes in level tones only; a poem rhyming in
oblique tones is 古体) and 《汉语诗律学》 §§14-16 (古体诗: 仄韵, free tones, no 粘对).

Recognised here: **仄韵** -- most of the rhyme lines (the even lines) end in an oblique
tone (鹿柴 响景 上声, 江雪 绝灭雪 入声, 春晓 晓鸟少 上声, 寻隐者不遇 去处 去声, 望岳 了晓鸟小
上声).  Such a poem gets no 律 figures (``pattern``, ``pattern_licensed`` and ``faults`` are
None: a 古体 has no pattern to break), and its rhyme is checked in the whole 平水韵 (all 106
rhymes, 仄 ones included) under the classical system, in 中华新韵 under the modern one: the
even lines, and line 1 when it rhymes with them.

**换韵** -- the poem falls at a couplet boundary into two parts, each with at least two
rhyme lines (its even lines, and its first line when that joins them) in one rhyme, the
two rhymes different and not neighbours (邻韵, which 近体 lets only line 1 borrow:
``rhyme.SHI_NEIGHBOURS``), and no rhyme shared by all the even lines.  A 近体 poem keeps one
rhyme throughout (王力《诗词格律》第二章 §1); a change of rhyme is 古体's (《汉语诗律学》
§15 换韵).  Each part's rhyme is then checked apart.

**出律** beyond the licences (王力《诗词格律》第二章 §2: a 绝句 that does not keep the 律句
and the 粘对 is a 古绝, a 古体; 《汉语诗律学》§17: 古风 that 入律 in places stays 古风),
judged in the classical system on the 律 analysis after every licence (拗救, 一三五不论) has
been applied, by either of:

* 粘对 broken at half the joins or more (two of a 绝句's three, four of a 律诗's seven);
* in a 律诗, more than half of the couplets (three of four) carry a 律 fault: an
  unlicensed off-pattern position, 孤平, 三平尾, 出句平收, 失对 within the couplet, or 失粘
  with the line before it;
* 三平调 (三平尾, unlicensed) in two lines or more (:data:`SAN_PING_LINES`).

The rule is conservative: a 绝句's two couplets are too few to tell a 古绝 from a faulty
律绝 by faults alone, so a 绝句 needs its 粘对 broken; a 律诗 with half its couplets out
(崔颢《黄鹤楼》, 李白《登金陵凤凰台》: 王力 calls them 拗律, 古风式的律诗, and counts them
律诗) stays 近体 with its faults; a single 三平调 (the mark of 古风, 王力《诗词格律》第二章
§4) makes no poem 古体 -- it stays a 律 fault; two do.  Under the modern system (中华新韵 tones)
neither 换韵 nor 出律 is judged: 古体 and 近体 are told apart in the 平水韵.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from . import rhyme, tables
from .licences import Verdict
from .reading import Reading
from .tones import ToneSystem

SOURCE = (
    "王力《诗词格律》第二章 §1、§2（古绝）、§4（三平调）；《汉语诗律学》§14–17"
    "（古体诗：仄韵，换韵，不拘粘对）"
)
PING, ZE = "平", "仄"
# 三平调 is the mark of 古风 (王力《诗词格律》第二章 §4): one line of it is a 近体 poem's fault
# (祖咏 积雪浮云端), two make the poem 古体.  In the bundled 唐诗三百首 exactly three poems of
# 近体 shape had two, all filed under 五言古诗 (常建《宿王昌龄隐居》, 王维《送綦毋潜落第还乡》
# 《西施咏》); no poem filed under 绝句/律诗 has two (the issue-22 probe).
SAN_PING_LINES = 2


@lru_cache(maxsize=1)
def pingshui_allgroups() -> dict[str, frozenset[str]]:
    """平水韵: character -> every rhyme it is listed under (平 上 去 入, 106 rhymes)."""
    acc: dict[str, set[str]] = {}
    for section, sub in tables.pingshui().items():
        for name, chars in sub.items():
            for ch in chars:
                label = name if name.startswith(section[:2]) else f"{section[:2]}{name}"
                acc.setdefault(ch, set()).add(label)  # the table writes 入声一屋 in full
    return {ch: frozenset(gs) for ch, gs in acc.items()}


def reasons(marks: str, n_lines: int, n: int) -> list[str]:
    """Why a poem of 近体 shape reads as 古体 (empty: it may be 近体).  ``marks``: 平/仄/中/?
    per character; a character with both tones attested (中) never counts as 仄 here."""
    ends = [marks[i * n + n - 1] for i in range(1, n_lines, 2)]
    known = [t for t in ends if t in (PING, ZE)]
    if known and 2 * sum(t == ZE for t in known) > len(known):
        return [f"仄韵 ({len([t for t in known if t == ZE])} of {len(known)} rhyme lines end 仄)"]
    return []


def groups(ch: str, py: str, system: ToneSystem) -> frozenset[str] | None:
    """A final's rhymes: every 平水韵 rhyme (classical), its 中华新韵 group (modern)."""
    if system == "classical":
        return pingshui_allgroups().get(ch)
    return rhyme.groups_of(ch, py, system="modern", family="shi")


def _finals(
    reading: Reading, n_lines: int, n: int, system: ToneSystem
) -> list[frozenset[str] | None]:
    simp = "".join(reading.simplified)
    pys = reading.pinyin_flat()
    return [groups(simp[i * n + n - 1], pys[i * n + n - 1], system) for i in range(n_lines)]


def _neighbours(a: str, b: str) -> bool:
    return a == b or any(a in s and b in s for s in rhyme.SHI_NEIGHBOURS)


def _part_rhymes(gs: list[frozenset[str] | None], lo: int, hi: int) -> frozenset[str]:
    """The rhymes shared by lines ``lo``..``hi-1``'s rhyme lines (its even lines, and its
    first line when that joins them), when they are at least two; else empty."""
    even = [gs[i] for i in range(lo + 1, hi, 2)]
    if not even or any(not g for g in even):
        return frozenset()
    common = frozenset.intersection(*(g for g in even if g))
    count = len(even)
    first = gs[lo]
    if first and common & first:
        common, count = common & first, count + 1
    return common if count >= 2 else frozenset()


def huan_yun(reading: Reading, n_lines: int, n: int) -> int | None:
    """The line where a 换韵 poem's second rhyme begins (None: one rhyme throughout), in
    the 平水韵 (classical system only)."""
    gs = _finals(reading, n_lines, n, "classical")
    even = [gs[i] for i in range(1, n_lines, 2)]
    if any(not g for g in even) or frozenset.intersection(*(g for g in even if g)):
        return None  # an unknown final, or a rhyme all the even lines share
    for cut in range(2, n_lines, 2):
        a, b = _part_rhymes(gs, 0, cut), _part_rhymes(gs, cut, n_lines)
        if a and b and not any(_neighbours(x, y) for x in a for y in b):
            return cut
    return None


def chu_lu(found: list[dict[str, Any]], verdicts: list[Verdict], n_lines: int) -> list[str]:
    """Why a poem of 近体 shape is 出律 beyond the licences (empty: it keeps the 律).
    ``found``: the poem-level faults, ``verdicts``: the off-pattern positions, after every
    licence has been applied (see the module docstring for the rule and its sources)."""
    couplets = n_lines // 2
    out: set[int] = {v.line // 2 for v in verdicts if v.licence is None}
    joins = 0
    for f in found:
        if f["fault"] in ("失粘", "失对"):
            joins += 1
            out.add(f["lines"][1] // 2)  # 失粘 belongs to the couplet it opens
        else:
            out.add(f["line"] // 2)
    why = []
    if 2 * joins >= n_lines - 1:
        why.append(f"出律 (粘对 broken at {joins} of {n_lines - 1} joins)")
    if couplets > 2 and 2 * len(out) > couplets:
        why.append(f"出律 ({len(out)} of {couplets} couplets break the 律 beyond the licences)")
    san_ping = sum(1 for f in found if f["fault"] == "三平尾")
    if san_ping >= SAN_PING_LINES:
        why.append(f"出律 (三平调 in {san_ping} lines, the mark of 古风)")
    return why


def rhyme_set(
    reading: Reading, n_lines: int, n: int, system: ToneSystem, lo: int = 0
) -> rhyme.RhymeSet:
    """The even lines' final characters (and the first line's when it joins their rhyme),
    of lines ``lo``..``n_lines-1``."""
    simp = "".join(reading.simplified)
    text = "".join(reading.lines)
    pys = reading.pinyin_flat()
    even = [i * n + n - 1 for i in range(lo + 1, n_lines, 2)]
    gs = [groups(simp[p], pys[p], system) for p in even]
    counts = Counter(g for s in gs if s for g in s)
    best = min(counts, key=lambda g: (-counts[g], g)) if counts else None
    first = lo * n + n - 1
    first_gs = groups(simp[first], pys[first], system)
    pos = even
    if best is not None and first_gs and best in first_gs:
        pos, gs = [first, *even], [first_gs, *gs]
    ok = tuple(None if s is None else (best in s) for s in gs)
    shown = "".join(text[p] for p in pos)
    return rhyme.RhymeSet(tuple(pos), shown, best, ok, ok, None)


def _by_rhyme(reading: Reading, sets: list[rhyme.RhymeSet]) -> tuple[str, list[int]]:
    """A character of both tones (中) that rhymes is read in its rhyme's tone (平水韵 labels
    name it: 上平/下平 are 平, 上声/去声/入声 仄), as in a 近体 poem (rhyme.resolve_by_rhyme)."""
    tones = reading.tone_string()
    need = ["?"] * len(tones)
    for rs in sets:
        for p in rs.positions:
            if rs.group:
                need[p] = PING if "平" in rs.group else ZE
    marks = "".join(reading.mark_lines)
    return rhyme.resolve_by_rhyme(tones, marks, "".join(need), sets)


def score_gu(
    reading: Reading,
    n_lines: int,
    n: int,
    system: ToneSystem,
    why: list[str],
    cut: int | None = None,
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Metrics and diagnostics of a 古体 poem of 近体 shape (``cut``: where a 换韵 poem's
    second rhyme begins; each part's rhyme is checked apart)."""
    if cut is None:
        sets = [rhyme_set(reading, n_lines, n, system)]
    else:
        sets = [rhyme_set(reading, cut, n, system), rhyme_set(reading, n_lines, n, system, cut)]
    return gu_result(reading, system, sets, why, SOURCE)


def gu_result(
    reading: Reading, system: ToneSystem, sets: list[rhyme.RhymeSet], why: list[str], source: str
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Metrics and diagnostics of a 古体 poem whose rhyme ``sets`` are found: no 律 figures,
    each line with its tones (a character of both tones read in its rhyme's tone)."""
    score = rhyme.score_sets(sets)
    m: dict[str, float | None] = {
        "structural": 1.0,
        "pattern": None,
        "pattern_licensed": None,
        "rhyme": score,
        "rhyme_lenient": score,
        "faults": None,
    }
    tones, resolved = _by_rhyme(reading, sets) if system == "classical" else ("", [])
    starts = [sum(reading.lengths[:k]) for k in range(len(reading.lines))]
    lines = [
        reading.line_entry(k, tones[at : at + len(line)] if tones else None)
        for k, (at, line) in enumerate(zip(starts, reading.lines, strict=True))
    ]
    diag: dict[str, Any] = {
        **({"resolved_by_rhyme": [_at(starts, p) for p in resolved]} if resolved else {}),
        "ti": "古体",
        "gu": {"reasons": why, "source": source},
        "lines": lines,
        "pattern": None,
        "licences": [],
        "faults": [],
        "rhyme": {
            "book": "平水韵 (all 106 rhymes)" if system == "classical" else "中华新韵",
            "sets": [rs.to_dict() for rs in sets],
        },
    }
    return m, diag


def _at(starts: list[int], p: int) -> list[int]:
    """[line, position] of a poem offset (0-based)."""
    k = max(i for i, s in enumerate(starts) if s <= p)
    return [k, p - starts[k]]
