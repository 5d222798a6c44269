"""Readings by sense: polyphones and merged simplified characters, decided in context.

Two bundled tables (``data/readings/``, sources in each entry and in ``docs/prosody.md``):

* ``polyphones.json`` -- the classical readings of polyphones (令 为 长 重 相 漫 降 观 和 思
  华 应 横 看 听 忘 过 醒 …): each reading with its 平水韵 rhyme and tone, its sense, the set
  phrases that select it and its source (《广韵》 fanqie, 平水韵).  A reading of tone ``两``
  is one sense read in either tone (王力《汉语诗律学》第一章§5: 看 听 忘 过 醒 望 …).
* ``originals.json`` -- simplified characters that merge classical words of different
  readings (干 = 干/乾/幹, 几 = 幾/几, 发 = 發/髮 …): the characters each stands for, with
  the words that select them.

Order of decision at a position (the first that applies wins; :attr:`Decision.by` names it):

1. an **override** (a plain mapping character -> TONE3 reading or 平/仄, given by the caller);
2. for a merged simplified character in a simplified text, the **original character**: a
   word of the table around the position, else the word pypinyin's segmenter finds there
   when OpenCC's phrase table converts that word otherwise than the character alone; when
   no word decides and the common candidates differ in tone, the position is **ambiguous**
   (mark 中, read as the metre asks, never a fault);
3. for a polyphone (classical system), a **phrase** of the table around the position;
4. the **metre**, when the reading is 两读 (mark 中; :func:`.licences.by_metre` and
   :func:`.context.resolve_by_metre` read it in the tone the pattern needs);
5. the **commonest** classical reading (the table's default; still mark 中 when another
   reading has the other tone, so a lenient check accepts either).  An entry whose
   sources split no sense for the other positions has no default (``null``): there the
   contextual reading stays, as for a character the table lacks (mark 中 when 平水韵 lists
   both tones).

Pure Python: the tables are read once; OpenCC's s2t loads lazily, only for a merged
character no listed word decides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .pinyin import PING, ZE, modern_tone

TWO = "两"
METRE = "metre"
PHRASE = "phrase"
COMMON = "common"
OVERRIDE = "override"
AMBIGUOUS = "ambiguous"
WORD = "word"

# phrases grouped by (length, offset of the character): {phrase: [(rank, index)]}
Windows = tuple[tuple[int, int, dict[str, list[tuple[int, int]]]], ...]


@dataclass(frozen=True, slots=True)
class Decision:
    """How one position was read.

    ``tone``: 平/仄 (for a 两读 or ambiguous position, the reading taken until the metre
    decides); ``ambiguous``: mark 中 (another reading has the other tone); ``free``: the
    metre decides (两读, or an original character the context does not decide);
    ``by``: what decided (``override``, ``phrase:徒令``, ``word:干涸``, ``metre``,
    ``common``, ``ambiguous:乾/幹``); ``original``: the recovered traditional character
    ("" when the character is not a merged one).
    """

    tone: str
    pinyin: str
    ambiguous: bool
    free: bool
    by: str
    original: str = ""

    @property
    def mark(self) -> str:
        return "中" if self.ambiguous or self.free else self.tone

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"by": self.by, "tone": self.tone, "pinyin": self.pinyin}
        if self.original:
            out["original"] = self.original
        if self.free:
            out["metre"] = True
        return out


@dataclass(frozen=True)
class _Reading:
    pinyin: str
    alt: str
    tone: str  # 平, 仄 or 两
    rhyme: str
    sense: str
    source: str


@dataclass(frozen=True)
class _Entry:
    readings: tuple[_Reading, ...]
    # index of the commonest reading; None: no sourced default, the contextual reading stays
    default: int | None
    # the phrases grouped for look-up (:func:`_windows`)
    phrases: Windows
    source: str
    # the decision by the default when it is not 两读 (None otherwise)
    common: Decision | None = None
    # the same when the entry has no phrases: every position, without a look-up
    constant: Decision | None = None
    # the characters just before / after it in its phrases: a position neither of whose
    # neighbours is one of them matches no phrase (no look-up)
    before: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Candidate:
    char: str
    pinyin: str
    tone: str
    common: bool
    sense: str


@dataclass(frozen=True)
class _Merge:
    candidates: tuple[_Candidate, ...]
    phrases: Windows
    source: str


def _load(name: str) -> dict[str, Any]:
    ref = resources.files("scoring.prosody").joinpath("data", "readings", name)
    with ref.open("r", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return {k: v for k, v in data.items() if not k.startswith("_")}


def _phrase_index(char: str, lists: Sequence[Sequence[str]]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for k, phrases in enumerate(lists):
        for ph in phrases:
            start = ph.find(char)
            while start >= 0:
                out.append((ph, start, k))
                start = ph.find(char, start + 1)
    return tuple(sorted(out, key=lambda x: -len(x[0])))


def _default_index(ch: str, readings: Sequence[_Reading], pinyin: str | None) -> int | None:
    """The index of the default reading (None: the entry has none, ``null``)."""
    if pinyin is None:
        return None
    for i, r in enumerate(readings):
        if r.pinyin == pinyin:
            return i
    raise ValueError(f"polyphones.json {ch}: the default {pinyin} is none of its readings")


@lru_cache(maxsize=1)
def polyphones() -> dict[str, _Entry]:
    """The polyphone table, keyed by character (simplified, or a traditional one listed
    under its own form: 乾 幹 跡 沒 著)."""
    out: dict[str, _Entry] = {}
    for ch, e in _load("polyphones.json").items():
        readings = tuple(
            _Reading(r["pinyin"], r.get("alt", ""), r["tone"], r["rhyme"], r["sense"], r["source"])
            for r in e["readings"]
        )
        default = _default_index(ch, readings, e["default"])
        index = _phrase_index(ch, [r["phrases"] for r in e["readings"]])
        phrases = _windows(index)
        common = None
        if default is not None and readings[default].tone != TWO:
            common = _common(readings, default)
        out[ch] = _Entry(
            readings,
            default,
            phrases,
            e["source"],
            common,
            common if not phrases else None,
            frozenset(ph[off - 1] for ph, off, _ in index if off > 0),
            frozenset(ph[off + 1] for ph, off, _ in index if off + 1 < len(ph)),
        )
    return out


def _common(readings: Sequence[_Reading], k: int) -> Decision:
    """The decision by the commonest reading ``k`` (mark 中 when another reading has the
    other tone)."""
    r = readings[k]
    other = any(x.tone not in (r.tone, TWO) for x in readings)
    return Decision(r.tone, r.pinyin, other, False, COMMON)


@lru_cache(maxsize=1)
def merges() -> dict[str, _Merge]:
    """The merged simplified characters, keyed by the simplified character."""
    out: dict[str, _Merge] = {}
    for ch, e in _load("originals.json").items():
        cands = tuple(
            _Candidate(c["char"], c["pinyin"], c["tone"], c["common"], c["sense"])
            for c in e["candidates"]
        )
        phrases = _windows(_phrase_index(ch, [c["phrases"] for c in e["candidates"]]))
        out[ch] = _Merge(cands, phrases, e["source"])
    return out


@lru_cache(maxsize=1)
def metre_free_chars() -> frozenset[str]:
    """Characters a position of which may be read as the metre asks (mark 中 only then):
    polyphones with a 两读 reading, and merged characters whose candidates differ in tone."""
    two = {ch for ch, e in polyphones().items() if any(r.tone == TWO for r in e.readings)}
    merged = {ch for ch, m in merges().items() if len({c.tone for c in m.candidates}) > 1}
    return frozenset(two | merged)


@lru_cache(maxsize=1)
def _watched() -> frozenset[str]:
    return frozenset(polyphones()) | frozenset(merges())


def _windows(phrases: tuple[tuple[str, int, int], ...]) -> Windows:
    """The phrases grouped by (length, offset of the character): at a position, one slice
    and one dict look-up per group instead of a scan of every phrase.  Each phrase keeps
    its rank in ``phrases`` (longest first, then the table's order)."""
    groups: dict[tuple[int, int], dict[str, list[tuple[int, int]]]] = {}
    for rank, (ph, off, k) in enumerate(phrases):
        groups.setdefault((len(ph), off), {}).setdefault(ph, []).append((rank, k))
    return tuple((n, off, d) for (n, off), d in groups.items())


def _matches(line: str, i: int, windows: Windows) -> list[tuple[str, int]]:
    """Every listed phrase found around position ``i`` (longest first, then table order)."""
    found: list[tuple[int, str, int]] = []
    for n, off, d in windows:
        start = i - off
        if start < 0 or start + n > len(line):
            continue
        word = line[start : start + n]
        hits = d.get(word)
        if hits:
            found.extend((rank, word, k) for rank, k in hits)
    found.sort()
    return [(word, k) for _, word, k in found]


def _tone_of(py: str, classical_tone: str, system: str) -> str:
    return classical_tone if system == "classical" else modern_tone(py)


# --- the segmenter and OpenCC's phrase table, for merged characters no listed word decides


@lru_cache(maxsize=1)
def _s2t() -> Any:
    from opencc import OpenCC

    return OpenCC("s2t.json").convert


def _words(line: str) -> list[tuple[str, int]]:
    """The line cut into words by pypinyin's segmenter (the one that reads the line:
    maximum matching over its phrase dictionary), with their start positions.  jieba
    would do as well but costs seconds to load its dictionary."""
    from pypinyin.seg.simpleseg import seg

    out, pos = [], 0
    for w in seg(line):
        out.append((w, pos))
        pos += len(w)
    return out


@lru_cache(maxsize=50_000)
def _word_evidence(line: str, i: int) -> tuple[str, str] | None:
    """(word, traditional character) when the segmenter's word at ``i`` is one OpenCC's
    phrase table converts otherwise than the character alone (干涸 -> 乾涸, 干杯 -> 乾杯),
    else None."""
    for w, start in _words(line):
        if start <= i < start + len(w):
            if len(w) < 2:
                return None
            conv = _s2t()(w)
            alone = _s2t()(line[i])
            if len(conv) == len(w) and conv[i - start] != alone:
                return w, conv[i - start]
            return None
    return None


def _decide_merge(written: str, simp_line: str, i: int, traditional: bool, system: str) -> Decision:
    m = merges()[simp_line[i]]
    cands = m.candidates
    if traditional:  # the character as written is the original (a variant such as 幷
        # that no candidate names is read from its context like the simplified form)
        cands = tuple(c for c in cands if c.char == written) or cands
        traditional = len(cands) < len(m.candidates)
    hits = _matches(simp_line, i, m.phrases)
    tones = {m.candidates[k].tone for _, k in hits if m.candidates[k] in cands}
    if len(tones) == 1:  # words of candidates of both tones (露才干: 露干 / 才干) decide nothing
        ph, k = next((ph, k) for ph, k in hits if m.candidates[k] in cands)
        c = m.candidates[k]
        return Decision(
            _tone_of(c.pinyin, c.tone, system), c.pinyin, False, False, f"{PHRASE}:{ph}", c.char
        )
    if not traditional and not tones and len({c.tone for c in cands}) > 1:
        # the segmenter only where the tone depends on the original (not 发 髮/發, 后, 里)
        ev = _word_evidence(simp_line, i)
        if ev is not None:
            chosen = [c for c in cands if c.char == ev[1]]
            if chosen and len({c.tone for c in chosen}) == 1:
                c = chosen[0]
                return Decision(
                    _tone_of(c.pinyin, c.tone, system),
                    c.pinyin,
                    False,
                    False,
                    f"{WORD}:{ev[0]}",
                    c.char,
                )
    common = [c for c in cands if c.common] or list(cands)
    first = common[0]
    tone = _tone_of(first.pinyin, first.tone, system)
    if len({_tone_of(c.pinyin, c.tone, system) for c in common}) == 1:
        return Decision(tone, first.pinyin, False, False, COMMON, first.char)
    names = "/".join(dict.fromkeys(c.char for c in common))
    return Decision(tone, first.pinyin, True, True, f"{AMBIGUOUS}:{names}", "")


def _best(line: str, i: int, entry: _Entry) -> tuple[str, int] | None:
    """The phrase that decides: the longest; of equally long ones selecting readings of
    both tones, the one that starts at the character (死生长别离: 长别, not 生长)."""
    hits = _matches(line, i, entry.phrases)
    if not hits:
        return None
    top = [h for h in hits if len(h[0]) == len(hits[0][0])]
    if len({entry.readings[k].tone for _, k in top}) > 1:
        starting = [(ph, k) for ph, k in top if line.startswith(ph, i)]
        return starting[0] if starting else top[0]
    return top[0]


def _decide_polyphone(entry: _Entry, simp_line: str, i: int, current: str) -> Decision | None:
    """The decision at ``i``; None when no phrase decides and the entry has no default
    (the contextual reading stays)."""
    if entry.constant is not None:
        return entry.constant
    hit = None
    if (i > 0 and simp_line[i - 1] in entry.before) or (
        i + 1 < len(simp_line) and simp_line[i + 1] in entry.after
    ):
        hit = _best(simp_line, i, entry)
    if hit is None and entry.common is not None:
        return entry.common
    k = hit[1] if hit is not None else entry.default
    if k is None:
        return None
    r = entry.readings[k]
    if r.tone == TWO:
        # provisional reading: the contextual one when it is one of the two, until the
        # metre decides (the diagnostics then say which positions it read)
        py = current if current in (r.pinyin, r.alt) else r.pinyin
        return Decision(modern_tone(py), py, True, True, METRE)
    if hit is not None:
        return Decision(r.tone, r.pinyin, False, False, f"{PHRASE}:{hit[0]}")
    return _common(entry.readings, k)


_SYLLABLE = re.compile(r"^[a-zv]{1,6}[1-5]$")


def check_overrides(overrides: Mapping[str, str] | None) -> dict[str, str]:
    """Validated reading overrides: one character -> a TONE3 reading (``ling2``) or 平/仄.

    Raises ValueError naming the first bad entry.
    """
    out: dict[str, str] = {}
    for ch, value in (overrides or {}).items():
        if not isinstance(ch, str) or len(ch) != 1:
            raise ValueError(f"reading override {ch!r}: the key must be one character")
        if not isinstance(value, str) or not (value in (PING, ZE) or _SYLLABLE.match(value)):
            raise ValueError(
                f"reading override {ch}: {value!r} is neither 平/仄 nor a TONE3 reading "
                "such as ling2"
            )
        out[ch] = value
    return out


def _override(value: str, current_py: str) -> Decision:
    if value in (PING, ZE):
        return Decision(value, current_py, False, False, OVERRIDE)
    return Decision(modern_tone(value), value, False, False, OVERRIDE)


def decide_lines(
    lines: Sequence[str],
    simplified: Sequence[str],
    readings: Sequence[tuple[str, ...]],
    *,
    system: str,
    overrides: Mapping[str, str] | None = None,
    family: str = "",
    book: Callable[[str, str], str | None] | None = None,
) -> list[dict[int, Decision]]:
    """The decisions of every watched position, line by line (positions 0-based).

    ``lines`` as written, ``simplified`` their converted copies, ``readings`` the
    contextual TONE3 readings so far.  A character the conversion changed (乾 -> 干) is
    its own original; one written in its simplified form is recovered from its context
    (a traditional text writes 干 only for 干 itself, which the context reads alike).
    ``overrides`` maps a character (as written or simplified) to a TONE3 reading
    (``ling2``) or a tone (平/仄).  ``book(char, simplified)`` gives the tone of the
    ``family``'s rhyme book (平/仄/多 or None): a position the commonest reading decides
    keeps the book's own mark when the book lists the character under that one tone
    (词林正韵 has 花 平 only, 平水韵 also 上声): the table resolves what the book leaves
    open and adds no ambiguity to what it decides.
    """
    watched = _watched()
    poly = polyphones()
    merged = merges()
    classical = system == "classical"
    out: list[dict[int, Decision]] = []
    for x, s, rs in zip(lines, simplified, readings, strict=True):
        found: dict[int, Decision] = {}
        if overrides or not watched.isdisjoint(s) or not watched.isdisjoint(x):
            if overrides:
                where: Sequence[int] = range(len(s))
            elif x == s:
                where = [i for i, c in enumerate(s) if c in watched]
            else:
                where = [
                    i
                    for i, (w, c) in enumerate(zip(x, s, strict=True))
                    if c in watched or w in watched
                ]
            for i in where:
                w, c = x[i], s[i]
                d: Decision | None = None
                if overrides and (w in overrides or c in overrides):
                    d = _override(overrides.get(w) or overrides[c], rs[i])
                elif c in merged:
                    d = _decide_merge(w, s, i, w != c, system)
                if d is None and classical:
                    entry = poly.get(w) or poly.get(c)
                    if entry is not None:
                        d = _decide_polyphone(entry, s, i, rs[i])
                        if book is not None and d is not None and d.by == COMMON and d.ambiguous:
                            d = _within_book(d, w, c, family, book)
                if d is not None:
                    found[i] = d
        out.append(found)
    return out


_WITHIN_BOOK: dict[tuple[str, str, str, str], Decision] = {}


def _within_book(
    d: Decision, w: str, c: str, family: str, book: Callable[[str, str], str | None]
) -> Decision:
    """``d`` (a commonest-reading decision) without its mark 中 when the book lists the
    character under ``d``'s tone only; cached (a commonest-reading decision depends on the
    character alone)."""
    key = (w, c, family, d.pinyin)
    kept = _WITHIN_BOOK.get(key)
    if kept is None:
        kept = d
        if book(w, c) == d.tone:
            kept = Decision(d.tone, d.pinyin, False, d.free, d.by, d.original)
        _WITHIN_BOOK[key] = kept
    return kept


def table_rows() -> list[dict[str, str]]:
    """The polyphone table flattened (character, reading, tone, rhyme, sense, source),
    for the docs and the CLI."""
    rows = []
    for ch, e in polyphones().items():
        for k, r in enumerate(e.readings):
            rows.append(
                {
                    "char": ch,
                    "pinyin": r.pinyin + (f"/{r.alt}" if r.alt else ""),
                    "tone": r.tone,
                    "rhyme": r.rhyme,
                    "sense": r.sense,
                    "default": "yes" if k == e.default else "",
                    "source": r.source,
                }
            )
    return rows
