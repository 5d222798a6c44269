"""Level/oblique (平/仄) tone of each character, in context.

Rule sources:

* **modern** (中华新韵, the CCiV convention): pypinyin reads the whole line at once, so its
  phrase dictionary resolves many polyphones (长安 cháng, 长大 zhǎng); tones 1, 2 and the
  neutral tone are 平, tones 3 and 4 are 仄.
* **classical**: the bundled 词林正韵 tables for ci (``Ci_Word_Tune.json`` /
  ``Cilin_Rhyme.json``, then the 平水韵 table) and the 平水韵 table for shi
  (``Word_Tune.json`` / ``Pingshui_Rhyme.json``); 入声 characters are 仄.  Characters missing
  from the tables fall back to the modern reading (``source == "pypinyin"``).

A character is *ambiguous* when both tones are attested: ``多`` in the classical table, or
pypinyin heteronyms spanning 平 and 仄 in the modern system.  Its ``tone`` is still the
reading chosen in context (for ``多`` characters: the contextual modern reading); a lenient
check accepts either tone.  Placeholders for lost characters have tone ``?``.

Readings come from :mod:`.pinyin` (cached per line); the per-character objects are
interned too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

from . import tables
from .normalize import PLACEHOLDERS, is_poem_char
from .pinyin import (
    PING,
    UNKNOWN,
    ZE,
    char_pinyin,
    heteronyms,
    line_pinyin,
    lines_pinyin,
    modern_tone,
    modern_tone_set,
    tone3,
)

ToneSystem = Literal["modern", "classical"]
FormFamily = Literal["ci", "shi"]
TONE_SYSTEMS: tuple[str, ...] = get_args(ToneSystem)


def check_tone_system(value: object) -> None:
    """ValueError unless ``value`` is a tone system: a typo (``"classic"``, ``"Classical"``)
    must not score in a mixture of both systems (some steps test ``== "modern"``, others
    ``== "classical"``)."""
    if value not in TONE_SYSTEMS:
        raise ValueError(f"tone_system {value!r}: one of classical, modern")


EITHER = "中"


@dataclass(frozen=True, slots=True)
class CharTone:
    """One character's tone.

    ``char`` is the character as given; ``tone`` is 平, 仄 or ? (unknown); ``ambiguous`` is
    True when both tones are attested; ``pinyin`` is the contextual reading in TONE3 style
    (``chang2``; empty when unknown); ``source`` names where the tone came from.
    """

    char: str
    tone: str
    ambiguous: bool
    pinyin: str
    source: str
    decided_by: str = ""

    @property
    def mark(self) -> str:
        """平, 仄, 中 (both readings attested) or ? (unknown)."""
        return EITHER if self.ambiguous and self.tone != UNKNOWN else self.tone

    def fits(self, required: str, *, lenient: bool = False) -> bool | None:
        """Does this character satisfy a template position (平/仄/中)?  None if unknown."""
        if required == EITHER:
            return True
        if self.tone == UNKNOWN:
            return None
        if self.tone == required:
            return True
        return lenient and self.ambiguous

    def to_dict(self) -> dict[str, object]:
        return {
            "char": self.char,
            "tone": self.tone,
            "mark": self.mark,
            "ambiguous": self.ambiguous,
            "pinyin": self.pinyin,
            "source": self.source,
            **({"decided_by": self.decided_by} if self.decided_by else {}),
        }


def _classical_lookup(ch: str, family: FormFamily) -> tuple[str | None, str]:
    if family == "ci":
        t = tables.ci_tone_table().get(ch)
        if t is not None:
            return t, "词林正韵"
    t = tables.shi_tone_table().get(ch)
    if t is not None:
        return t, "平水韵"
    return None, "pypinyin"


def classical_lookup(char: str, simp: str, family: FormFamily) -> tuple[str | None, str]:
    """(平/仄/多 or None, source) of a character in the classical books: the character as
    written first, then a traditional character the simplification merges with another
    (:data:`.tables.TRADITIONAL_TONES`), then its simplified form."""
    tone, source = _classical_lookup(char, family)
    if tone is not None or char == simp:
        return tone, source
    own = tables.TRADITIONAL_TONES.get(char)
    if own is not None:
        return own[0], own[1]
    return _classical_lookup(simp, family)


@lru_cache(maxsize=100000)
def make_char_tone(
    char: str, simp: str, py: str, system: ToneSystem, family: FormFamily
) -> CharTone:
    """Build (and intern) the CharTone of ``char`` read as ``py`` under a tone system."""
    if char in PLACEHOLDERS:
        return CharTone(char, UNKNOWN, False, "", "placeholder")
    tone = modern_tone(py)
    pys = "" if py == UNKNOWN else py
    if system == "classical":
        table_tone, source = classical_lookup(char, simp, family)
        if table_tone in (PING, ZE):
            return CharTone(char, table_tone, False, pys, source)
        if table_tone == "多":
            both = tone if tone != UNKNOWN else PING
            return CharTone(char, both, True, pys, source)
    ambiguous = len(modern_tone_set(char if heteronyms(char) else simp)) > 1
    return CharTone(char, tone, ambiguous, pys, "pypinyin" if tone != UNKNOWN else "unknown")


_CT_CACHE: dict[tuple[str, str], dict[tuple[str, str, str], CharTone]] = {}
_Key = tuple[str, str, str]
# (system, family) -> (line char, simplified char, reading) -> tone + mark, two characters
_MARK_CACHE: dict[tuple[str, str], dict[_Key, str]] = {}


def line_tone_marks(
    line: str,
    simplified: str,
    readings: Sequence[str],
    system: ToneSystem,
    family: FormFamily,
) -> tuple[str, str]:
    """(tones, marks) strings of a line: 平/仄/? and 平/仄/中/?, one per character.

    ``line`` is as written, ``simplified`` its converted copy (often the same string).
    """
    both = _MARK_CACHE.setdefault((system, family), {})
    try:
        pairs = "".join(map(both.__getitem__, zip(line, simplified, readings, strict=True)))
    except KeyError:
        for key in set(zip(line, simplified, readings, strict=True)).difference(both):
            ct = make_char_tone(*key, system, family)
            both[key] = ct.tone + ct.mark
        pairs = "".join(map(both.__getitem__, zip(line, simplified, readings, strict=True)))
    return pairs[::2], pairs[1::2]


def lines_tone_marks(
    lines: Sequence[str],
    simplified: Sequence[str],
    readings: Sequence[Sequence[str]],
    system: ToneSystem,
    family: FormFamily,
) -> list[tuple[str, str]]:
    """:func:`line_tone_marks` of each line, looked up in one pass over the whole poem."""
    sizes = list(map(len, lines))
    if sizes != list(map(len, simplified)) or sizes != list(map(len, readings)):
        return [  # as line by line (which raises on a length mismatch)
            line_tone_marks(x, s, r, system, family)
            for x, s, r in zip(lines, simplified, readings, strict=True)
        ]
    flat = [p for r in readings for p in r]
    t, m = line_tone_marks("".join(lines), "".join(simplified), flat, system, family)
    out, pos = [], 0
    for n in sizes:
        out.append((t[pos : pos + n], m[pos : pos + n]))
        pos += n
    return out


def tones_of_line(
    line: str,
    simplified: str,
    *,
    system: ToneSystem,
    family: FormFamily,
    context: bool = True,
    readings: tuple[str, ...] | None = None,
) -> tuple[CharTone, ...]:
    """Tones of an already-normalised line (poem characters only) and its simplified form.

    ``readings`` may carry the line's pinyin when already computed in a batch.
    """
    if readings is None:
        readings = line_pinyin(simplified) if context else tuple(map(char_pinyin, simplified))
    cache = _CT_CACHE.setdefault((system, family), {})
    out = []
    for key in zip(line, simplified, readings, strict=True):
        ct = cache.get(key)
        if ct is None:
            ct = cache[key] = make_char_tone(*key, system, family)
        out.append(ct)
    return tuple(out)


def char_tones(
    line: str, *, tone_system: ToneSystem = "classical", form_family: FormFamily = "ci"
) -> list[CharTone]:
    """Tones of the poem characters of ``line`` (punctuation and other symbols skipped).

    The line is read as a whole for context, as a poem's lines are
    (:func:`.reading.read_lines`): each character as written first, its simplified form
    only as a fallback, then the phrase rules of :mod:`.context`; ``CharTone.char`` keeps
    the character as given.
    """
    from .reading import read_lines

    check_tone_system(tone_system)
    chars = "".join(ch for ch in line if is_poem_char(ch))
    if not chars:
        return []
    return list(read_lines([chars], system=tone_system, family=form_family).tones[0])


__all__ = [
    "EITHER",
    "PING",
    "UNKNOWN",
    "ZE",
    "CharTone",
    "FormFamily",
    "ToneSystem",
    "char_pinyin",
    "char_tones",
    "line_pinyin",
    "line_tone_marks",
    "lines_pinyin",
    "lines_tone_marks",
    "make_char_tone",
    "modern_tone",
    "modern_tone_set",
    "tone3",
    "tones_of_line",
]
