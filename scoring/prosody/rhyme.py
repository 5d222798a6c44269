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

from collections import Counter
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


@dataclass(frozen=True)
class RhymeSet:
    """One set of positions that must rhyme together, and how well they do."""

    positions: tuple[int, ...]
    chars: str
    group: str | None
    ok: tuple[bool | None, ...]  # None = character of unknown group

    @property
    def known(self) -> int:
        return sum(1 for o in self.ok if o is not None)

    @property
    def matched(self) -> int:
        return sum(1 for o in self.ok if o)

    def to_dict(self) -> dict[str, Any]:
        return {
            "positions": list(self.positions),
            "chars": self.chars,
            "group": self.group,
            "ok": list(self.ok),
        }


def check_set(
    positions: tuple[int, ...],
    chars: list[str],
    readings: list[str],
    *,
    system: ToneSystem,
    family: FormFamily,
    shown: str | None = None,
) -> RhymeSet:
    """Score one rhyme set: ``chars``/``readings`` are the (simplified) characters at
    ``positions``, looked up in the books; ``shown`` is the text as written (乾, not 干),
    which the diagnostics show."""
    gs = [
        groups_of(c, p, system=system, family=family) for c, p in zip(chars, readings, strict=True)
    ]
    if shown is not None and shown != "".join(chars):
        # the character as written first (篸 is listed itself), its simplified form else
        gs = [
            (groups_of(o, p, system=system, family=family) if o != c else None) or g
            for o, c, p, g in zip(shown, chars, readings, gs, strict=True)
        ]
    counts = Counter(g for s in gs if s for g in s)
    best = min(counts, key=lambda g: (-counts[g], g)) if counts else None
    ok = tuple(None if s is None else (best in s) for s in gs)
    return RhymeSet(positions, shown if shown is not None else "".join(chars), best, ok)


def score_sets(sets: list[RhymeSet]) -> float | None:
    """Share of known rhyme positions that fall in their set's chosen group."""
    known = sum(s.known for s in sets)
    return sum(s.matched for s in sets) / known if known else None
