"""Modern readings from pypinyin: whole lines in context, TONE3 digits, attested tones.

Rule source: pypinyin (phrase dictionary + mmseg segmentation) and the 中华新韵 convention
used by CCiV: tones 1, 2 and neutral are 平, tones 3 and 4 are 仄.  Classical verse has no
neutral tone, so a neutral contextual reading is replaced by the character's first toned
reading.  Readings are cached per line and per syllable.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pypinyin import Style, lazy_pinyin, pinyin
from pypinyin.constants import PHRASES_DICT, RE_HANS
from pypinyin.seg import mmseg
from pypinyin.seg.simpleseg import seg as pypinyin_seg

PING = "平"
ZE = "仄"
UNKNOWN = "?"


def modern_tone(py: str) -> str:
    """平 for tones 1, 2 and neutral (5 or no digit); 仄 for 3 and 4; ? for no reading."""
    if not py or py == UNKNOWN:
        return UNKNOWN
    return ZE if py[-1] in "34" else PING


def _unknown(chunk: str) -> Any:  # pypinyin accepts a list, its stubs say str
    return [UNKNOWN] * len(chunk)


_MARKED = {
    **{
        m: (v, str(t))
        for v, ms in (
            ("a", "āáǎà"),
            ("e", "ēéěè"),
            ("i", "īíǐì"),
            ("o", "ōóǒò"),
            ("u", "ūúǔù"),
            ("v", "ǖǘǚǜ"),
        )
        for t, m in enumerate(ms, 1)
    },
    "ń": ("n", "2"),
    "ň": ("n", "3"),
    "ǹ": ("n", "4"),
    "ḿ": ("m", "2"),
    "ü": ("v", ""),
}


@lru_cache(maxsize=4096)
def tone3(py: str) -> str:
    """A tone-marked syllable (``cháng``) in TONE3 style (``chang2``; neutral tone ``5``)."""
    if not py or py == UNKNOWN:
        return UNKNOWN
    out, digit = [], "5"
    for c in py:
        v = _MARKED.get(c)
        if v is None:
            out.append(c)
        else:
            out.append(v[0])
            digit = v[1] or digit
    return "".join(out) + digit


def _runs_re() -> re.Pattern[str] | None:
    """Runs of characters pypinyin reads (its ``RE_HANS`` class) and runs of others."""
    pattern = RE_HANS.pattern
    if not (pattern.startswith("^(?:[") and pattern.endswith("])+$")):
        return None
    inner = pattern[5:-4]
    return re.compile(f"[{inner}]+|[^{inner}]+")


_RUNS = _runs_re()


def _segment(text: str) -> list[str]:
    """pypinyin's own segmentation (``pypinyin.seg.simpleseg.seg``), computed the same way.

    pypinyin splits the text into runs of Chinese and of other characters (a Python loop
    over the characters) and cuts each Chinese run by forward maximum matching against its
    phrase dictionary (``mmseg.Seg.cut`` in strict mode, one method call per prefix looked
    up).  This is the same algorithm over the same prefix set and dictionary, with the runs
    found by one regex and the look-ups made on the set itself; it returns exactly what
    ``pypinyin_seg`` returns (checked on every bundled text, tests/prosody/test_prosody_tones.py).
    Anything unexpected (another pypinyin layout, an empty text) goes to pypinyin's own.
    """
    cutter = mmseg.seg
    prefixes = getattr(getattr(cutter, "_prefix_set", None), "_set", None)
    phrases = PHRASES_DICT  # the dictionary mmseg itself checks
    if (
        _RUNS is None
        or not text
        or not isinstance(prefixes, set)
        or not phrases
        or getattr(cutter, "_no_non_phrases", None) is not True
    ):
        return list(pypinyin_seg(text))
    out: list[str] = []
    for run in _RUNS.findall(text):
        if RE_HANS.match(run[0]) is None:
            out.append(run)
        else:
            _cut(run, prefixes, phrases, out)
    return out


def _cut(text: str, prefixes: set[str], phrases: Any, out: list[str]) -> None:
    """``mmseg.Seg.cut`` in strict mode (``no_non_phrases=True``), appending to ``out``.

    From each position: extend while the text so far is a prefix of a phrase, keeping the
    longest that is a phrase; emit it, or the single character when there is none.  When
    the prefixes run to the end of the text with no phrase among them, pypinyin emits every
    remaining character alone (without cutting the rest again), and so does this."""
    i, n = 0, len(text)
    while i < n:
        end = 0  # end of the longest phrase starting at i
        j = i + 1
        while j <= n:
            word = text[i:j]
            if word not in prefixes:
                break
            if word in phrases:
                end = j
            j += 1
        if end:
            out.append(text[i:end])
            i = end
        elif j <= n:  # the prefixes stopped before the end: one character
            out.append(text[i])
            i += 1
        else:
            rest = text[i:]
            if rest in phrases:
                out.append(rest)
            else:
                out.extend(rest)
            return


_LINE_CACHE: dict[str, tuple[str, ...]] = {}
_LINE_CACHE_MAX = 200_000


def lines_pinyin(lines: Sequence[str]) -> list[tuple[str, ...]]:
    """Contextual TONE3 readings of lines of poem characters (one per code point).

    Each line is read as a whole (phrase context) but never across lines: the uncached lines
    of a call are joined by line breaks and segmented once with pypinyin's own segmenter
    (which splits at non-Chinese characters, so context stops there); each segment is then
    converted by pypinyin exactly as a whole-line call would convert it, through a cache
    (:func:`word_readings`).  The result equals ``lazy_pinyin`` on each line (checked on
    all 10,707 bundled Song ci) at a fraction of the cost.  Readings are cached per line.
    """
    found: dict[str, tuple[str, ...]] = {}
    for x in lines:
        cached = _LINE_CACHE.get(x)
        if cached is not None:
            found[x] = cached
    todo = [x for x in dict.fromkeys(lines) if x not in found]
    if todo:
        if len(_LINE_CACHE) > _LINE_CACHE_MAX:
            _LINE_CACHE.clear()
        text = "\n".join(todo)
        words = _segment(text)
        _convert_new(words)
        out = list(itertools.chain.from_iterable(map(_WORD_CACHE.__getitem__, words)))
        if len(out) == sum(map(len, todo)) + len(todo) - 1:
            # no neutral reading and no 不/一 anywhere: every line's readings as they are
            plain = "5" not in "".join(out) and "不" not in text and "一" not in text
            pos = 0
            for x in todo:
                got = tuple(out[pos : pos + len(x)])
                found[x] = got if plain else _no_neutral(x, got)
                pos += len(x) + 1
        else:  # defensive: never let a reading shift positions
            for x in todo:
                found[x] = line_pinyin(x)
        _LINE_CACHE.update((x, found[x]) for x in todo)
    # Built from a local dict, so a concurrent clear of the shared cache cannot break it.
    return [found[x] for x in lines]


_WORD_CACHE: dict[str, tuple[str, ...]] = {}
_WORD_CACHE_MAX = 100_000


def word_readings(word: str) -> tuple[str, ...]:
    """TONE3 readings of one pypinyin segment (a dictionary phrase, a character, or a run of
    non-Chinese characters: one ``?`` each), cached.

    A list argument makes pypinyin convert the segment as given, without segmenting again.
    """
    found = _WORD_CACHE.get(word)
    if found is None:
        found = tuple(map(tone3, lazy_pinyin([word], style=Style.TONE, errors=_unknown)))
        _WORD_CACHE[word] = found
    return found


def _convert_new(words: list[str]) -> None:
    """Put the readings of the segments not yet cached into the cache, in one pypinyin call:
    given a list, pypinyin converts each element on its own exactly as :func:`word_readings`
    does, so one call over the new segments saves its per-call overhead."""
    # (a set: each segment is converted on its own, so their order does not matter)
    new = list(set(words).difference(_WORD_CACHE))
    if not new:
        return
    if len(_WORD_CACHE) > _WORD_CACHE_MAX:
        _WORD_CACHE.clear()
    flat = lazy_pinyin(new, style=Style.TONE, errors=_unknown)
    if len(flat) != sum(map(len, new)):  # defensive: never let a reading shift positions
        for w in new:
            word_readings(w)
        return
    pos = 0
    for w in new:
        _WORD_CACHE[w] = tuple(map(tone3, flat[pos : pos + len(w)]))
        pos += len(w)


def line_pinyin(line: str) -> tuple[str, ...]:
    """Contextual TONE3 readings of one line (see :func:`lines_pinyin`)."""
    if line in _LINE_CACHE:
        return _LINE_CACHE[line]
    out = lazy_pinyin(line, style=Style.TONE, errors=_unknown)
    if len(out) != len(line):
        out = [lazy_pinyin(ch, style=Style.TONE, errors=_unknown)[0] for ch in line]
    return _no_neutral(line, tuple(map(tone3, out)))


# Tone sandhi in pypinyin's phrase dictionary (不住 bú zhù, 一片 yí piàn): a reading of the
# spoken chain, not of the character; 中华新韵 and the rhyme books go by the citation tone.
_SANDHI = {"不": "bu4", "一": "yi1"}


def _no_neutral(line: str, readings: tuple[str, ...]) -> tuple[str, ...]:
    """Citation tones: no neutral tone and no tone sandhi.

    A neutral-tone reading (生子 shēng zi) becomes the character's first toned reading:
    classical verse has no neutral tone, and pypinyin's neutral readings come from modern
    colloquial phrases; a character with no toned reading keeps its neutral one (平).  The
    sandhi readings of 不 and 一 that pypinyin's phrase dictionary carries (啼不住 bú, 一片
    yí) become their citation tones (bù 仄, yī 平): 不 is 多 in 平水韵 (尤 fǒu as well as
    入声 物), so its modern reading decides its tone, and bú made it 平 (李白 啼不住, 辛弃疾
    遮不住).
    """
    joined = "".join(readings)
    sandhi = ("不" in line or "一" in line) and any(
        ch in _SANDHI and r != _SANDHI[ch] and r[:-1] == _SANDHI[ch][:-1]
        for ch, r in zip(line, readings, strict=True)
    )
    if "5" not in joined and not sandhi:
        return readings
    return tuple(
        _SANDHI[ch]
        if ch in _SANDHI and r[:-1] == _SANDHI[ch][:-1]
        else ((toned_reading(ch) or r) if r.endswith("5") else r)
        for ch, r in zip(line, readings, strict=True)
    )


@lru_cache(maxsize=20000)
def toned_reading(ch: str) -> str | None:
    """The first reading of a character that has tone 1-4 (TONE3), if any."""
    out = pinyin(ch, style=Style.TONE, heteronym=True, errors=_unknown)
    for r in out[0] if out else []:
        t3 = tone3(r)
        if t3[-1] in "1234":
            return t3
    return None


@lru_cache(maxsize=20000)
def char_pinyin(ch: str) -> str:
    """Context-free first reading of one character (the CCiV benchmark's way)."""
    out = pinyin(ch, style=Style.TONE, errors=_unknown)
    return tone3(out[0][0]) if out and out[0] else UNKNOWN


_LEVEL_MARKS = frozenset("āēīōūǖáéíóúǘń")
_OBLIQUE_MARKS = frozenset("ǎěǐǒǔǚàèìòùǜňǹḿ")


def _marked_tone(py: str) -> str:
    if any(c in _OBLIQUE_MARKS for c in py):
        return ZE
    return PING


@lru_cache(maxsize=1)
def _phrase_tones() -> dict[str, frozenset[str]]:
    """Tones each character takes in pypinyin's phrase dictionary (one pass, ~0.1 s)."""
    from pypinyin.phrases_dict import phrases_dict

    acc: dict[str, set[str]] = {}
    for phrase, readings in phrases_dict.items():
        if len(phrase) != len(readings):
            continue
        for ch, alts in zip(phrase, readings, strict=True):
            marked = [r for r in alts if any(c in _LEVEL_MARKS or c in _OBLIQUE_MARKS for c in r)]
            acc.setdefault(ch, set()).update(_marked_tone(r) for r in marked)
    return {ch: frozenset(ts) for ch, ts in acc.items()}


@lru_cache(maxsize=20000)
def modern_tone_set(ch: str) -> frozenset[str]:
    """Tones of a character's attested modern readings.

    The default reading (every toned heteronym when the default is neutral) plus every
    toned reading the character takes in pypinyin's phrase dictionary.  Neutral-tone phrase
    readings (这里 zhè li) are ignored.  pypinyin's full heteronym lists are not used: they carry rare dictionary
    readings (明 mèng, 依 yǐ, 九 jiū) that would make most characters look ambiguous.
    """
    tones = set(_phrase_tones().get(ch, frozenset()))
    citation = char_pinyin(ch)
    if citation.endswith("5"):
        out = pinyin(ch, style=Style.TONE, heteronym=True, errors=_unknown)
        tones.update(
            modern_tone(tone3(r)) for r in (out[0] if out else []) if tone3(r)[-1] in "1234"
        )
    else:
        tones.add(modern_tone(citation))
    return frozenset(tones) - {UNKNOWN}


def clear_line_cache() -> None:
    """Forget cached line and segment readings (for benchmarks and tests)."""
    _LINE_CACHE.clear()
    _WORD_CACHE.clear()


@lru_cache(maxsize=20000)
def heteronyms(ch: str) -> frozenset[str]:
    """Every TONE3 reading pypinyin lists for one character (empty when it knows none)."""
    out = pinyin(ch, style=Style.TONE, heteronym=True, errors=_unknown)
    return frozenset(t for r in (out[0] if out else []) if (t := tone3(r)) != UNKNOWN)


def original_first(
    lines: Sequence[str], simplified: Sequence[str], readings: list[tuple[str, ...]]
) -> list[tuple[str, ...]]:
    """Readings of the characters as written, the simplified form's only as a fallback.

    Conversion to simplified merges characters (乾 and 幹 both become 干, 髮 and 發 发), so a
    simplified form's contextual reading may belong to another character (干 gàn for 乾).
    Where a line has a converted character, its reading in the simplified line is kept only
    when it is one of the original character's own readings (so pypinyin's simplified phrase
    context still resolves 長安 cháng); otherwise the original line's contextual reading is
    used (乾 qián), and for a character pypinyin does not know in its converted form (殢 ->
    an extension-B form) the original's reading.  Characters pypinyin does not know at all
    keep the fallback.
    """
    out = list(readings)
    orig_lines = [k for k, (x, s) in enumerate(zip(lines, simplified, strict=True)) if x != s]
    if not orig_lines:
        return out
    orig = lines_pinyin([lines[k] for k in orig_lines])
    for k, ro in zip(orig_lines, orig, strict=True):
        x, s, rs = lines[k], simplified[k], out[k]
        fixed = list(rs)
        for i, (a, b) in enumerate(zip(x, s, strict=True)):
            if a == b:
                continue
            own = heteronyms(a)
            if own and rs[i] not in own and ro[i] != UNKNOWN:
                fixed[i] = ro[i]
        out[k] = tuple(fixed)
    return out
