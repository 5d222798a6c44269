"""古体诗 of any shape other than 绝句 and 律诗: 五古/七古 of other line counts, 杂言, 柏梁体.

Rule source: 王力《诗词格律》第二章 (§1 诗的种类: 古体诗 has any number of lines; the
section on 诗韵: 古体诗 rhymes in 仄 as well as 平 tones, may change rhyme (换韵) and rhyme
neighbouring rhymes together (邻韵通押); no 粘对) and 《汉语诗律学》§§14-17 (古体诗的用韵,
换韵, 柏梁体: every line rhymes).  A poem of 绝句 or 律诗 shape is judged by :mod:`.gu`; a poem of 排律 shape (10+
lines of 5 or 7, an even number) is read as 排律 first (:func:`.shi.score_shi`) and is
古体 here only when it breaks the 律 as :mod:`.gu` judges an eight-line poem.

**Shape.**  A poem with no cipai named is read as 古体 when its lines are

* 齐言: four or more lines, all of five or all of seven characters (not 4 or 8: those are
  :mod:`.gu`'s), or
* 杂言: four or more lines of three characters or more, more than half of the characters in lines of five or seven, at
  most a fifth in lines of four or six characters (the 四字/六字 phrases of 词; every 杂言
  古体 and 乐府 of the bundled 唐诗三百首 has at most 18%; a 君不见 + 7 line of ten counts apart), and not all lines but one
  of one length with that one a character longer or shorter (a 律诗 with a character lost
  or a mark that split a line is a broken text, not 杂言),

and the text does not fit a ci: when its line lengths are those of a tune's template
(missing commas and 读 pauses allowed, as :mod:`.ci` matches) and its tones fit that
template (share ≥ ``CI_TONAL``), it is left undetected with the tune named, since the
shape alone cannot tell 浣溪沙 from a six-line 七古 (李白《金陵酒肆留别》 fits 浣溪沙's
lines, its tones only 0.69 of them).

**Rhyme.**  Every line may rhyme (柏梁体, 七古 openings); a line that does not rhyme must be
followed by one that does (a couplet ends in its rhyme): in a run of k unrhymed lines
between rhyme lines, every second one is a missed rhyme (k // 2 misses), and an unrhymed
close of the poem misses at its last line.  The poem is cut into segments (换韵), each a
run of lines with at least two rhyme lines in one rhyme, so as to make the fewest misses,
a new segment costing half a miss (a single odd line is a miss, never a new rhyme).
Classical: the 平水韵 (all 106 rhymes), each segment's rhyme the one most of its rhyme lines
share; lenient (``rhyme_lenient``): the neighbouring 平 rhymes that :data:`.rhyme.SHI_NEIGHBOURS`
lists (东冬, 江阳, 支微齐 …) are one rhyme, as 古体 allows (王力《诗词格律》第二章, 古体诗的用韵: 邻韵
通押), and so are the 上去入 rhymes standing where they stand (:data:`.rhyme.GUTI_ZE_NEIGHBOURS`:
屋沃, 月屑 …; 上去通押 is not joined).  Modern:
中华新韵, no allowance.  ``rhyme`` is the share of rhyme positions (rhyme lines and missed
ones) in their segment's rhyme.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import gu, rhyme
from .ci import fits_relaxed, score_ci
from .names import known_cipai
from .pauses import optional_breaks
from .reading import Reading, read_lines
from .templates import CiTemplate, load_cipai
from .tones import ToneSystem

FORM = "shi:guti"
SOURCE = (
    "王力《诗词格律》第二章（诗的种类；古体诗的用韵：平仄韵皆可，换韵，邻韵通押）；"
    "《汉语诗律学》§14–17（古体诗的用韵、换韵、柏梁体）"
)
NEIGHBOUR_SOURCE = (
    "王力《诗词格律》第二章（古体诗的用韵：邻韵通押；邻韵：rhyme.SHI_NEIGHBOURS，"
    "仄声按四声相承：rhyme.GUTI_ZE_NEIGHBOURS）"
)
CI_TONAL = 0.8  # a text of a tune's shape whose tones fit it this well is that ci
SEGMENT_COST = 0.5  # a new rhyme costs half a missed rhyme
MIN_LINES = 4
MAX_CI_PHRASE_SHARE = 0.2
MIN_LINE = 3  # 君不见, 噫吁嚱: a shorter 'line' is a broken text (a mark split a line)

Groups = frozenset[str] | None


def shape_reason(lengths: tuple[int, ...]) -> str | None:
    """Why a poem of these line lengths is no 近体 shape but a 古体's (None: not a 古体's
    shape; the caller has tried 绝句, 律诗 and 排律 first)."""
    total = sum(lengths)
    if len(lengths) < MIN_LINES or not total:
        return None
    sizes = sorted(set(lengths))
    if sizes in ([5], [7]):
        if len(lengths) in (4, 8):
            return None  # a 绝句's or 律诗's shape: gu.py's
        return f"line count not 近体 ({len(lengths)} lines of {sizes[0]}: 绝句 4, 律诗 8, 排律 10+ even)"
    common, count = Counter(lengths).most_common(1)[0]
    if count == len(lengths) - 1 and any(abs(x - common) == 1 for x in lengths):
        return None  # one line a character off the rest: a broken text, not 杂言
    main = sum(x for x in lengths if x in (5, 7))
    ci_like = sum(x for x in lengths if x in (4, 6))
    if min(lengths) < MIN_LINE or 2 * main <= total or ci_like > MAX_CI_PHRASE_SHARE * total:
        return None
    return f"杂言 (lines of {', '.join(map(str, sizes))} characters)"


@lru_cache(maxsize=1)
def _templates_by_total() -> dict[int, tuple[CiTemplate, ...]]:
    """Every template of every known tune, by its number of characters."""
    out: dict[int, list[CiTemplate]] = {}
    for name in known_cipai():
        cipai = load_cipai(name)
        for t in cipai.templates if cipai is not None else ():
            out.setdefault(t.total, []).append(t)
    return {k: tuple(v) for k, v in out.items()}


def ci_shapes(body: str, lines: list[str]) -> list[str]:
    """The tunes one of whose templates the lines fit (missing commas and 读 allowed)."""
    lengths = tuple(map(len, lines))
    optional = optional_breaks(body, lines)
    found = (
        t.cipai
        for t in _templates_by_total().get(sum(lengths), ())
        if fits_relaxed(lengths, t, optional)
    )
    return list(dict.fromkeys(found))


_NEIGHBOURS = rhyme.SHI_NEIGHBOURS + rhyme.GUTI_ZE_NEIGHBOURS


def _classes(groups: frozenset[str], system: ToneSystem) -> list[frozenset[str]]:
    """The rhyme classes a final of these rhymes can open: each 邻韵 set of
    :data:`.rhyme.SHI_NEIGHBOURS` (平) or :data:`.rhyme.GUTI_ZE_NEIGHBOURS` (上去入) holding
    one of them (classical), else the rhyme alone."""
    out: list[frozenset[str]] = []
    for g in sorted(groups):
        near = [c for c in _NEIGHBOURS if g in c] if system == "classical" else []
        out += [c for c in near or [frozenset({g})] if c not in out]
    return out


@dataclass(frozen=True)
class Segment:
    """Lines ``lo``..``hi`` (0-based, inclusive) in one rhyme; ``rhymes``: its rhyme lines
    (lines whose final is in the rhyme, leniently), ``missed``: lines that should rhyme."""

    lo: int
    hi: int
    cls: frozenset[str]  # the rhymes the segment's lines rhyme in (leniently)
    rhymes: tuple[int, ...]
    missed: tuple[int, ...]


def _slots(run: list[int]) -> list[int]:
    """The lines of an unrhymed run that should have rhymed: every second one (an odd run
    has one way), on the couplets' ends (odd lines, 0-based) when the run is even."""
    return [i for i in run if i % 2] if len(run) % 2 == 0 else run[1::2]


def _block(
    finals: list[Groups], a: int, b: int, cls: frozenset[str]
) -> tuple[int, int, list[int], list[int]] | None:
    """(misses, rhyme lines counted, rhyme lines, missed lines) of lines a..b in rhyme class
    ``cls`` (line b rhymes); None when fewer than two known lines rhyme."""
    rhymes: list[int] = []
    missed: list[int] = []
    run: list[int] = []
    known = 0
    for i in range(a, b + 1):
        g = finals[i]
        if g is None or g & cls:
            missed += _slots(run)
            run = []
            rhymes.append(i)
            known += g is not None
        else:
            run.append(i)
    return None if known < 2 else (len(missed), known, rhymes, missed)


def segments(finals: list[Groups], system: ToneSystem) -> list[Segment]:
    """The cut into rhyme segments with the fewest misses (see the module docstring)."""
    n = len(finals)
    best: list[tuple[float, int, frozenset[str]]] = [(0.0, -1, frozenset())]
    best += [(float("inf"), -1, frozenset())] * n
    # best[b + 1]: the cheapest cut of lines 0..b whose last segment ends at b
    for b in range(n):
        for cls in _classes(finals[b] or frozenset(), system):
            misses = known = run = 0
            for a in range(b, -1, -1):  # lines a..b, walked leftwards
                g = finals[a]
                if g is None or g & cls:
                    misses, run, known = misses + run // 2, 0, known + (g is not None)
                else:
                    run += 1
                cost = best[a][0] + misses + run // 2 + SEGMENT_COST
                if known >= 2 and cost < best[b + 1][0]:
                    best[b + 1] = (cost, a, cls)
    tail = [(best[b + 1][0] + (n - b) // 2, b) for b in range(n) if best[b + 1][1] >= 0]
    if not tail:  # no two lines rhyme: every couplet's end is a miss
        return [Segment(0, n - 1, frozenset(), (), tuple(range(1, n, 2)) or (n - 1,))]
    _, b = min(tail)
    out: list[Segment] = []
    end = n - 1
    while b >= 0:
        _, a, cls = best[b + 1]
        found = _block(finals, a, b, cls)
        assert found is not None
        after = list(range(end, b, -2))  # an unrhymed close: its last line, every second
        out.append(Segment(a, end, cls, tuple(found[2]), tuple(sorted(found[3] + after))))
        end, b = a - 1, a - 1
    return out[::-1]


def _rhyme_set(
    seg: Segment, finals: list[Groups], ends: list[int], shown: str, system: ToneSystem
) -> rhyme.RhymeSet:
    """A segment as a rhyme set: its rhyme lines and missed lines, its strict rhyme."""
    lines = sorted(seg.rhymes + seg.missed)
    counts = Counter(g for i in seg.rhymes for g in (finals[i] or ()) if g in seg.cls)
    group = min(counts, key=lambda g: (-counts[g], g)) if counts else None
    ok = tuple(
        None if finals[i] is None else (i in seg.rhymes and group in (finals[i] or ()))
        for i in lines
    )
    ok_lenient = tuple(None if finals[i] is None else i in seg.rhymes for i in lines)
    allowance = NEIGHBOUR_SOURCE if ok_lenient != ok else None
    pos = tuple(ends[i] for i in lines)
    return rhyme.RhymeSet(pos, "".join(shown[p] for p in pos), group, ok, ok_lenient, allowance)


def _tone_of(group: str) -> str:
    return "平" if "平" in group else "仄"


def rhyme_reasons(sets: list[rhyme.RhymeSet], segs: list[Segment], system: ToneSystem) -> list[str]:
    """换韵 and 仄韵 as the segments show them."""
    why = []
    if len(segs) > 1:
        starts = ", ".join(str(s.lo + 1) for s in segs)
        why.append(f"换韵 ({len(segs)} rhymes, from lines {starts})")
    if system == "classical":
        ze = [s.group for s in sets if s.group and _tone_of(s.group) == "仄"]
        if ze:
            why.append(f"仄韵 ({len(ze)} of {len(sets)} rhymes oblique: {', '.join(ze)})")
    return why


def score_guti(
    reading: Reading, system: ToneSystem, why: list[str]
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Metrics and diagnostics of a 古体 poem of free shape (``why``: the shape's reasons,
    to which the rhyme's 换韵 and 仄韵 are added)."""
    shown = "".join(reading.lines)
    finals, ends = finals_of(reading, system)
    segs = segments(finals, system)
    sets = [_rhyme_set(s, finals, ends, shown, system) for s in segs]
    reasons = why + [r for r in rhyme_reasons(sets, segs, system) if r not in why]
    m, diag = gu.gu_result(reading, system, sets, reasons, SOURCE)
    m["rhyme_lenient"] = rhyme.score_sets(sets, lenient=True)
    for d, s in zip(diag["rhyme"]["sets"], segs, strict=True):
        d["lines"] = [s.lo, s.hi]
    return m, diag


def ci_fit(body: str, lines: list[str], system: ToneSystem) -> tuple[str, float] | None:
    """The tune whose template the text fits in shape and, at ``CI_TONAL`` or better, in
    tones (its best tonal share), else None: a 古体's shape that is a ci's."""
    tunes = ci_shapes(body, lines)
    if not tunes:
        return None
    reading = read_lines(lines, system=system, family="ci")
    optional = optional_breaks(body, lines)
    best: tuple[float, str] = (0.0, "")
    for name in tunes:
        cipai = load_cipai(name)
        if cipai is not None:
            m, _ = score_ci(
                reading, cipai, system=system, lenient=False, ccv=False, optional=optional
            )
            best = max(best, (m.get("tonal") or 0.0, name))
    return (best[1], best[0]) if best[0] >= CI_TONAL else None


def finals_of(reading: Reading, system: ToneSystem) -> tuple[list[Groups], list[int]]:
    """Each line's final's rhymes, and the finals' offsets in the poem."""
    simp = "".join(reading.simplified)
    pys = reading.pinyin_flat()
    ends = list(itertools.accumulate(reading.lengths))
    offsets = [e - 1 for e in ends]
    return [gu.groups(simp[p], pys[p], system) if p >= 0 else None for p in offsets], offsets


def changed_rhyme(reading: Reading, system: ToneSystem) -> list[str]:
    """换韵 as the segments find it (a 排律 keeps one rhyme: 王力《诗词格律》第二章 §1)."""
    finals, _ = finals_of(reading, system)
    segs = segments(finals, system)
    return rhyme_reasons([], segs, system)[:1] if len(segs) > 1 else []
