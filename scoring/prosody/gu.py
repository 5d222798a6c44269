"""古体诗: a poem of 绝句 or 律诗 shape that is not regulated verse.

Rule source: 王力《诗词格律》第二章 §1 (近体诗 rhymes in level tones only; a poem rhyming in
oblique tones is 古体) and 《汉语诗律学》 §§14-16 (古体诗: 仄韵, free tones, no 粘对).

Recognised here: **仄韵** -- most of the rhyme lines (the even lines) end in an oblique
tone (鹿柴 响景 上声, 江雪 绝灭雪 入声, 春晓 晓鸟少 上声, 寻隐者不遇 去处 去声, 望岳 了晓鸟小
上声).  Such a poem gets no 律 figures (``pattern``, ``pattern_licensed`` and ``faults`` are
None: a 古体 has no pattern to break), and its rhyme is checked in the whole 平水韵 (all 106
rhymes, 仄 ones included) under the classical system, in 中华新韵 under the modern one: the
even lines, and line 1 when it rhymes with them.

Not recognised (yet): 换韵 within a poem of 近体 shape, 出律 beyond the licences, and 古体
of other line counts (those are reported as an undetected form).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from . import rhyme, tables
from .reading import Reading
from .tones import ToneSystem

SOURCE = "王力《诗词格律》第二章 §1；《汉语诗律学》§14–16（古体诗：仄韵，不拘粘对）"
PING, ZE = "平", "仄"


@lru_cache(maxsize=1)
def pingshui_all_groups() -> dict[str, frozenset[str]]:
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


def _groups(ch: str, py: str, system: ToneSystem) -> frozenset[str] | None:
    if system == "classical":
        return pingshui_all_groups().get(ch)
    return rhyme.groups_of(ch, py, system="modern", family="shi")


def rhyme_set(reading: Reading, n_lines: int, n: int, system: ToneSystem) -> rhyme.RhymeSet:
    """The even lines' final characters (and line 1's when it joins their rhyme)."""
    simp = "".join(reading.simplified)
    text = "".join(reading.lines)
    pys = reading.pinyin_flat()
    even = [i * n + n - 1 for i in range(1, n_lines, 2)]
    gs = [_groups(simp[p], pys[p], system) for p in even]
    counts = Counter(g for s in gs if s for g in s)
    best = min(counts, key=lambda g: (-counts[g], g)) if counts else None
    first = n - 1
    first_gs = _groups(simp[first], pys[first], system)
    pos = even
    if best is not None and first_gs and best in first_gs:
        pos, gs = [first, *even], [first_gs, *gs]
    ok = tuple(None if s is None else (best in s) for s in gs)
    shown = "".join(text[p] for p in pos)
    return rhyme.RhymeSet(tuple(pos), shown, best, ok, ok, None)


def score_gu(
    reading: Reading, n_lines: int, n: int, system: ToneSystem, why: list[str]
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Metrics and diagnostics of a 古体 poem of 近体 shape."""
    rs = rhyme_set(reading, n_lines, n, system)
    score = rhyme.score_sets([rs])
    m: dict[str, float | None] = {
        "structural": 1.0,
        "pattern": None,
        "pattern_licensed": None,
        "rhyme": score,
        "rhyme_lenient": score,
        "faults": None,
    }
    lines = []
    for k, line in enumerate(reading.lines):
        entry: dict[str, Any] = {
            "text": line,
            "tones": reading.tone_lines[k],
            "marks": reading.mark_lines[k],
            "pinyin": list(reading.readings[k]),
        }
        if reading.simplified[k] != line:
            entry["simplified"] = reading.simplified[k]
        lines.append(entry)
    diag: dict[str, Any] = {
        "ti": "古体",
        "gu": {"reasons": why, "source": SOURCE},
        "lines": lines,
        "pattern": None,
        "licences": [],
        "faults": [],
        "rhyme": {
            "book": "平水韵 (all 106 rhymes)" if system == "classical" else "中华新韵",
            "sets": [rs.to_dict()],
        },
    }
    return m, diag
