"""A normalised poem with its readings: lines, simplified forms, pinyin, tones and marks.

Rule source: see :mod:`.tones` (中华新韵 via pypinyin in context; 词林正韵 / 平水韵 tables)
and :mod:`.senses` (readings by sense; original characters of merged simplified ones).
Tone and mark strings are built with C-level joins over per-(character, reading) caches;
the per-character :class:`~.tones.CharTone` objects are built only when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any

from .context import apply_rules
from .normalize import to_simplified_lines
from .pinyin import original_first
from .senses import Decision, decide_lines
from .tones import (
    CharTone,
    FormFamily,
    ToneSystem,
    char_pinyin,
    classical_lookup,
    lines_pinyin,
    lines_tone_marks,
    tones_of_line,
)


@dataclass(frozen=True)
class Reading:
    """Lines of poem characters with their readings (one entry per character)."""

    lines: tuple[str, ...]
    simplified: tuple[str, ...]
    readings: tuple[tuple[str, ...], ...]  # TONE3 pinyin, "?" when unknown
    tone_lines: tuple[str, ...]  # 平/仄/?
    mark_lines: tuple[str, ...]  # 平/仄/中/? (中 = both tones attested)
    system: ToneSystem
    family: FormFamily
    # per line: position -> how a polyphone or merged character was read (:mod:`.senses`)
    decisions: tuple[dict[int, Decision], ...] = ()

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(map(len, self.lines))

    @cached_property
    def tones(self) -> tuple[tuple[CharTone, ...], ...]:
        """Per-character tones, line by line (a decided position names what decided it)."""
        out = []
        for k, (x, s, r) in enumerate(zip(self.lines, self.simplified, self.readings, strict=True)):
            cts = tones_of_line(x, s, system=self.system, family=self.family, readings=r)
            found = self.decisions[k] if self.decisions else {}
            if found:
                cts = tuple(
                    _decided(ct, d) if (d := found.get(i)) is not None else ct
                    for i, ct in enumerate(cts)
                )
            out.append(cts)
        return tuple(out)

    def decision_report(self, k: int) -> list[dict[str, Any]]:
        """Line ``k``'s decided positions: index, character, what decided, tone, pinyin."""
        found = self.decisions[k] if self.decisions else {}
        return [{"index": i, "char": self.lines[k][i], **found[i].to_dict()} for i in sorted(found)]

    def line_entry(self, k: int, tones: str | None = None) -> dict[str, Any]:
        """Line ``k`` as the diagnostics show it: text, tones (``tones`` when the rhyme or
        metre read some positions, else the reading's own), marks and pinyin; its
        simplified form where it differs, and what decided each polyphone where any was."""
        entry: dict[str, Any] = {
            "text": self.lines[k],
            "tones": self.tone_lines[k] if tones is None else tones,
            "marks": self.mark_lines[k],
            "pinyin": list(self.readings[k]),
        }
        if self.simplified[k] != self.lines[k]:
            entry["simplified"] = self.simplified[k]
        if self.decisions and self.decisions[k]:
            entry["readings"] = self.decision_report(k)
        return entry

    def ambiguous_originals(self) -> list[tuple[int, int]]:
        """(line, index) of merged characters whose original the context does not decide."""
        return [
            (k, i)
            for k, found in enumerate(self.decisions)
            for i, d in found.items()
            if d.by.startswith("ambiguous")
        ]

    def flat(self) -> list[CharTone]:
        return [ct for line in self.tones for ct in line]

    def tone_string(self) -> str:
        """Every character's tone (平/仄/?), lines concatenated."""
        return "".join(self.tone_lines)

    def ambiguous(self) -> frozenset[int]:
        """Positions (in the concatenated text) of characters with both tones attested."""
        return frozenset(i for i, c in enumerate("".join(self.mark_lines)) if c == "中")

    def pinyin_flat(self) -> list[str]:
        return [p for r in self.readings for p in r]


@lru_cache(maxsize=20_000)
def _decided(ct: CharTone, d: Decision) -> CharTone:
    """The tone of a decided position: what decided it put in (cached: both are frozen and
    a character's decisions recur)."""
    return replace(
        ct,
        tone=d.tone,
        ambiguous=d.ambiguous or d.free,
        pinyin=d.pinyin,
        source="override" if d.by == "override" else "reading table",
        decided_by=d.by,
    )


def read_lines(
    lines: list[str],
    *,
    system: ToneSystem,
    family: FormFamily,
    context: bool = True,
    overrides: Mapping[str, str] | None = None,
) -> Reading:
    """Read normalised lines (poem characters only).

    ``context=False`` reads every character alone (the CCiV benchmark's way).  In context,
    each character is read as written first (:func:`.pinyin.original_first`), then the
    phrase rules of :mod:`.context`, then the readings by sense and the original
    characters of :mod:`.senses` (``overrides``: character -> TONE3 reading or 平/仄).
    """
    simp = to_simplified_lines(lines)
    decisions: list[dict[int, Decision]] = []
    if context:
        readings = original_first(lines, simp, lines_pinyin(simp))
        readings = apply_rules(simp, readings, classical=system == "classical")
        decisions = decide_lines(
            lines,
            simp,
            readings,
            system=system,
            overrides=overrides,
            family=family,
            book=_BOOKS[family],
        )
    else:
        readings = [tuple(map(char_pinyin, s)) for s in simp]
    tm = lines_tone_marks(lines, simp, readings, system, family)
    if any(decisions):
        readings, tm = _apply(readings, tm, decisions)
    return Reading(
        lines=tuple(lines),
        simplified=simp,
        readings=tuple(readings),
        tone_lines=tuple(t for t, _ in tm),
        mark_lines=tuple(m for _, m in tm),
        system=system,
        family=family,
        decisions=tuple(decisions),
    )


def _book_tone(family: FormFamily) -> Callable[[str, str], str | None]:
    def tone(char: str, simp: str) -> str | None:
        return classical_lookup(char, simp, family)[0]

    return tone


# the tone of each family's rhyme book, for :func:`.senses.decide_lines`
_BOOKS: dict[str, Callable[[str, str], str | None]] = {
    "ci": _book_tone("ci"),
    "shi": _book_tone("shi"),
}


def _apply(
    readings: list[tuple[str, ...]],
    tm: list[tuple[str, str]],
    decisions: list[dict[int, Decision]],
) -> tuple[list[tuple[str, ...]], list[tuple[str, str]]]:
    """Readings and (tones, marks) strings with the decided positions put in."""
    out_r, out_tm = list(readings), list(tm)
    for k, found in enumerate(decisions):
        if not found:
            continue
        r, t, m = list(out_r[k]), list(out_tm[k][0]), list(out_tm[k][1])
        for i, d in found.items():
            r[i], t[i], m[i] = d.pinyin, d.tone, d.mark
        out_r[k] = tuple(r)
        out_tm[k] = ("".join(t), "".join(m))
    return out_r, out_tm
