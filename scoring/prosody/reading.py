"""A normalised poem with its readings: lines, simplified forms, pinyin, tones and marks.

Rule source: see :mod:`.tones` (中华新韵 via pypinyin in context; 词林正韵 / 平水韵 tables).
Tone and mark strings are built with C-level joins over per-(character, reading) caches;
the per-character :class:`~.tones.CharTone` objects are built only when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .context import apply_rules
from .normalize import to_simplified
from .pinyin import original_first
from .tones import (
    CharTone,
    FormFamily,
    ToneSystem,
    char_pinyin,
    line_tone_marks,
    lines_pinyin,
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

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(map(len, self.lines))

    @cached_property
    def tones(self) -> tuple[tuple[CharTone, ...], ...]:
        """Per-character tones, line by line."""
        return tuple(
            tones_of_line(x, s, system=self.system, family=self.family, readings=r)
            for x, s, r in zip(self.lines, self.simplified, self.readings, strict=True)
        )

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


def read_lines(
    lines: list[str], *, system: ToneSystem, family: FormFamily, context: bool = True
) -> Reading:
    """Read normalised lines (poem characters only).

    ``context=False`` reads every character alone (the CCiV benchmark's way).  In context,
    each character is read as written first (:func:`.pinyin.original_first`), then the
    phrase rules of classical verse apply (:mod:`.context`).
    """
    simp = tuple(map(to_simplified, lines))
    if context:
        readings = original_first(lines, simp, lines_pinyin(simp))
        readings = apply_rules(simp, readings, classical=system == "classical")
    else:
        readings = [tuple(map(char_pinyin, s)) for s in simp]
    tm = [
        line_tone_marks(x, s, r, system, family)
        for x, s, r in zip(lines, simp, readings, strict=True)
    ]
    return Reading(
        lines=tuple(lines),
        simplified=simp,
        readings=tuple(readings),
        tone_lines=tuple(t for t, _ in tm),
        mark_lines=tuple(m for _, m in tm),
        system=system,
        family=family,
    )
