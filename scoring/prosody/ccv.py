"""The CCiV-literal reading: every character read alone, as the benchmark's converter reads it.

Source: the 平仄 converter of the CCiV / Fùxì authors, ``PoemConverter.convert_character`` in
cubenlp/FuxiBench ``src/xinyun/converter.py`` and ``src/xinyun/pinyin_utils.py`` @ e5d83fd8
(Apache-2.0), re-implemented here:

* a character is Chinese when it lies in U+4E00..U+9FFF (``is_chinese_char``); nothing else
  is read (the line normalisation, :func:`.normalize.ccv_lines`, has already dropped it);
* the character **as written**, alone, goes to pypinyin (``Style.TONE3``, first reading,
  default error handling): no conversion to simplified, no context, no rhyme book.  乾 is
  qian2 (平), never 干 gàn; 殢 ti4 and 鬖 san1 keep their readings and their place in the
  denominator;
* the tone is the syllable's final digit, ``5`` when there is none (a neutral tone, or a
  character pypinyin returns unchanged); 1, 2 and 5 are 平, 3 and 4 are 仄.

So every Chinese character has a tone, and the tonal share's denominator is every
character of the poem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from pypinyin import Style, pinyin

from .reading import Reading
from .tones import CharTone

SOURCE = (
    "CCiV / Fuxi 平仄 converter (cubenlp/FuxiBench src/xinyun @ e5d83fd8, Apache-2.0): "
    "each character alone, pypinyin TONE3 first reading, tones 1/2/5 = 平, 3/4 = 仄"
)
_DIGIT = re.compile(r"(\d)$")


@lru_cache(maxsize=65536)
def read_char(ch: str) -> tuple[str, str]:
    """(平 or 仄, the TONE3 syllable pypinyin gives) of one character read alone."""
    out = pinyin(ch, style=Style.TONE3)
    syllable = out[0][0] if out and out[0] else ""
    m = _DIGIT.search(syllable)
    tone = m.group(1) if m else "5"
    return ("平" if tone in "125" else "仄"), syllable


@lru_cache(maxsize=65536)
def char_tone(ch: str) -> CharTone:
    """The :class:`.tones.CharTone` of a character read as the converter reads it."""
    tone, syllable = read_char(ch)
    return CharTone(ch, tone, False, syllable if syllable != ch else "", "ccv-converter")


@dataclass(frozen=True)
class CcvReading(Reading):
    """A :class:`.reading.Reading` whose characters were read by the CCiV converter."""

    @cached_property
    def tones(self) -> tuple[tuple[CharTone, ...], ...]:
        return tuple(tuple(map(char_tone, line)) for line in self.lines)


def read_lines(lines: list[str]) -> CcvReading:
    """Read CCiV-normalised lines character by character, as written."""
    readings = tuple(tuple(read_char(c)[1] or "?" for c in line) for line in lines)
    tone_lines = tuple("".join(read_char(c)[0] for c in line) for line in lines)
    return CcvReading(
        lines=tuple(lines),
        simplified=tuple(lines),
        readings=readings,
        tone_lines=tone_lines,
        mark_lines=tone_lines,
        system="modern",
        family="ci",
    )
