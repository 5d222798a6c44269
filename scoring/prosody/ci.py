"""Ci (词) rule scores against a cipai's templates.

Rule source: the CCiV benchmark's definitions (structural accuracy: same number of lines and
every line the template's length; tonal accuracy: share of characters whose tone matches,
中 accepting either, 0 when structure fails; standard form = ``longyusheng_template[0]``,
variant-aware = best over every 龙榆生 and 钦定词谱 template), computed here exactly, plus:

* a punctuation-tolerant structure: the poem's characters fit a template when the totals
  agree and every break in the poem falls on a phrase break of the template (an edition
  that writes 梦里不知身是客一晌贪欢 without the comma still fits);
* the matched template, per-character tone mismatches, and rhyme at the template's rhyme
  positions (中华新韵 or 词林正韵, see :mod:`.rhyme`);
* for a failed poem, the nearest template and a line-by-line alignment (:mod:`.align`), and
  a sibling cipai the poem fits instead (浪淘沙 -> 浪淘沙令).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal

from . import rhyme
from .align import PUNCT_COST, nearest, phrase_ends
from .context import resolve_by_metre
from .names import siblings
from .pauses import offsets
from .reading import Reading
from .templates import Cipai, CiTemplate, load_cipai
from .tones import ToneSystem

#: Which 词谱 the headline figures use: the 钦定词谱's templates, 龙榆生's forms (CCiV's and
#: couyun's), or the better fit of both (the default).  The CCiV figures
#: (``*_standard``, ``*_variant``) always read every template.
CipuSource = Literal["best", "qinding", "longyusheng"]
CIPU_SOURCES: tuple[CipuSource, ...] = ("best", "qinding", "longyusheng")
SOURCE_BOOK = {"qinding": "钦定词谱", "longyusheng": "龙榆生"}


def _pool(cipai: Cipai, source: CipuSource) -> tuple[frozenset[str], dict[str, Any]]:
    """The ids of the templates the headline figures may use, and what the diagnostics say
    of them: a cipai with no template from the source asked for (the 129 couyun cipai have
    no 钦定词谱 ones) uses all it has, and says so."""
    note: dict[str, Any] = {"asked": source}
    if source == "best":
        return frozenset(t.id for t in cipai.templates), note
    ids = frozenset(t.id for t in cipai.templates if t.source == SOURCE_BOOK[source])
    if not ids:
        note["note"] = f"{cipai.name} has no {SOURCE_BOOK[source]} template: all its forms used"
        return frozenset(t.id for t in cipai.templates), note
    return ids, note


def _mask_table(on: str) -> dict[int, str]:
    return {ord(c): ("1" if c == on else "0") for c in "平仄中?"}


_TABLES = {c: _mask_table(c) for c in "平仄中?"}


@lru_cache(maxsize=8192)
def bitmask(s: str, symbol: str) -> int:
    """An int whose bit i is set where ``s[i] == symbol`` (symbols 平 仄 中 ?)."""
    return int(s[::-1].translate(_TABLES[symbol]) or "0", 2)


def bits(mask: int) -> list[int]:
    """Positions of the set bits, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def tonal_share(tones: str, marks: str, required: str, *, lenient: bool) -> tuple[float, int]:
    """(share of characters fitting ``required``, bitmask of the positions that do not).

    ``tones`` holds each character's tone (平/仄/?), ``marks`` the same with 中 where both
    tones are attested (those fit either in lenient mode).  Characters of unknown tone are
    left out, except at 中 positions where anything fits.  Bit arithmetic keeps this cheap
    when a poem is compared with many templates.
    """
    n = min(len(tones), len(required))
    if len(required) > n:
        required = required[:n]
    ping, ze = bitmask(tones, "平"), bitmask(tones, "仄")
    need_ping, need_ze = bitmask(required, "平"), bitmask(required, "仄")
    bad = ((need_ping & ze) | (need_ze & ping)) & ((1 << n) - 1)
    if lenient:
        bad &= ~bitmask(marks, "中")
    counted = n - ((need_ping | need_ze) & ~(ping | ze) & ((1 << n) - 1)).bit_count()
    return ((counted - bad.bit_count()) / counted if counted > 0 else 0.0), bad


def fits_exact(
    lengths: tuple[int, ...], t: CiTemplate, optional: frozenset[int] = frozenset()
) -> bool:
    """The poem's lines are the template's phrases, each in-line pause (``optional``,
    :mod:`.pauses`) read as a break or not as the template has it."""
    if not optional:
        return lengths == t.lengths
    mandatory = offsets(lengths) - optional
    return sum(lengths) == t.total and mandatory <= t.breaks <= mandatory | optional


def _merge(lengths: tuple[int, ...], optional: frozenset[int]) -> tuple[int, ...]:
    """The line lengths with the in-line pauses read as no break."""
    out: list[int] = []
    pos = 0
    for n in lengths:
        if pos in optional and out:
            out[-1] += n
        else:
            out.append(n)
        pos += n
    return tuple(out)


MAX_PAUSE_CHOICES = 4  # up to 2**4 readings of a failed poem's pauses; beyond, all or none


def _pause_readings(optional: frozenset[int]) -> list[frozenset[int]]:
    """The sets of in-line pauses read as breaks, the fewest first (none: the poem read
    through, as before pauses were weighed), every subset when there are few."""
    pauses = sorted(optional)
    if len(pauses) > MAX_PAUSE_CHOICES:
        return [frozenset(), optional]
    return [frozenset(c) for k in range(len(pauses) + 1) for c in itertools.combinations(pauses, k)]


def _nearest(
    lengths: tuple[int, ...],
    optional: frozenset[int],
    cands: list[tuple[str, tuple[int, ...]]],
    misses: Callable[[str, list[dict[str, Any]]], int] | None,
) -> tuple[str, float, list[dict[str, Any]], int] | None:
    """The nearest form, each in-line pause read as a break or not, whichever is cheaper (a
    读 mark is an optional break: 想佳人、妆楼望 is 3 + 3 against 龙榆生's 3 + 4, one
    character short, not a phrase missing and a line too long).  A template phrase the poem
    breaks only at pauses costs nothing.  Line numbers are those of the poem read through
    (its ，。 lines), as the offline notes count them; on equal cost the reading with fewer
    pauses as breaks wins."""
    starts = [0, *itertools.accumulate(lengths)][:-1]
    through = [o for o in starts if o not in optional]  # the first offset of each line
    best: tuple[str, float, list[dict[str, Any]], int] | None = None
    for breaks in _pause_readings(optional):
        read = _merge(lengths, optional - breaks)
        near = nearest(read, cands, rhyme_misses=misses)
        if near is None:
            continue
        ends = list(itertools.accumulate(read))
        kept = [
            o
            for o in near[2]
            if not (o["op"] == "split" and all(ends[i] in breaks for i in o["poem_lines"][:-1]))
        ]
        cost = near[1] - PUNCT_COST * (len(near[2]) - len(kept))
        if best is None or cost < best[1]:
            idx = [bisect.bisect_right(through, e - n) - 1 for e, n in zip(ends, read, strict=True)]
            ops = [{**o, "poem_lines": sorted({idx[i] for i in o["poem_lines"]})} for o in kept]
            best = (near[0], cost, ops, near[3])
    return best


def _pauses(
    lengths: tuple[int, ...], optional: frozenset[int], t: CiTemplate
) -> list[dict[str, Any]]:
    """Each in-line pause of the poem: after which line it falls, and whether the fitted
    template breaks there (a 读 kept) or not (read through)."""
    ends = list(itertools.accumulate(lengths))
    return [{"after_line": ends.index(o), "break": o in t.breaks} for o in sorted(optional)]


def fits_relaxed(
    lengths: tuple[int, ...], t: CiTemplate, optional: frozenset[int] = frozenset()
) -> bool:
    """Same total, and every poem break (in-line pauses apart) on a template phrase break."""
    return sum(lengths) == t.total and offsets(lengths) - optional <= t.breaks


def _line_report(
    reading: Reading, required: str | None, bad: list[int], tones: str | None = None
) -> list[dict[str, Any]]:
    """Per line: text, tones, marks, pinyin and, against a template, its mismatches.

    ``tones``: the poem's tone string when some positions were read by the metre
    (:func:`.rhyme.resolve_by_rhyme`), else the reading's own.
    """
    out, pos = [], 0
    bad_iter = iter(bad)
    nxt = next(bad_iter, None)
    for k, line in enumerate(reading.lines):
        n = len(line)
        entry = reading.line_entry(k, None if tones is None else tones[pos : pos + n])
        if required is not None:
            entry["required"] = required[pos : pos + n]
            mism = []
            while nxt is not None and nxt < pos + n:
                mism.append(nxt - pos)
                nxt = next(bad_iter, None)
            entry["mismatches"] = mism
            # of those, characters with both tones attested: ambiguous, not plainly wrong
            entry["mismatches_ambiguous"] = [p for p in mism if entry["marks"][p] == "中"]
        out.append(entry)
        pos += n
    return out


def _per_line(positions: list[int], lengths: tuple[int, ...]) -> list[list[int]]:
    """Flat positions -> [line, index in line] pairs."""
    out, line, start = [], 0, 0
    for p in positions:
        while p >= start + lengths[line]:
            start += lengths[line]
            line += 1
        out.append([line, p - start])
    return out


def _rhyme_sets(
    groups: tuple[tuple[int, ...], ...],
    flat: tuple[str, str, list[str]],
    system: ToneSystem,
    lenient: bool = True,
) -> list[rhyme.RhymeSet]:
    """The rhyme sets at ``groups`` (positions in the poem); ``flat``: the poem's
    simplified text, its text as written and its readings, lines concatenated
    (``lenient=False``: the strict judgement only)."""
    simp, text, pys = flat
    sets = []
    for group in groups:
        pos = tuple(p for p in group if p < len(simp))
        sets.append(
            rhyme.check_set(
                pos,
                [simp[p] for p in pos],
                [pys[p] for p in pos],
                system=system,
                family="ci",
                shown="".join(text[p] for p in pos),
                lenient=lenient,
            )
        )
    return sets


def _flat(reading: Reading) -> tuple[str, str, list[str]]:
    return "".join(reading.simplified), "".join(reading.lines), reading.pinyin_flat()


def _rhyme(
    t: CiTemplate,
    reading: Reading,
    system: ToneSystem,
) -> tuple[float | None, dict[str, Any], list[rhyme.RhymeSet]]:
    """Rhyme at the template's rhyme positions."""
    sets = _rhyme_sets(t.rhyme_groups, _flat(reading), system)
    score = rhyme.score_sets(sets)
    return (
        score,
        {
            "lenient": rhyme.score_sets(sets, lenient=True),
            "book": rhyme.book_name(system, "ci"),
            "source": t.rhyme_source,
            "sets": [s.to_dict() for s in sets],
        },
        sets,
    )


def _sibling(
    name: str, lengths: tuple[int, ...], optional: frozenset[int]
) -> dict[str, Any] | None:
    for sib in siblings(name):
        cp = load_cipai(sib)
        if cp is None:
            continue
        for t in cp.templates:
            if fits_exact(lengths, t, optional) or fits_relaxed(lengths, t, optional):
                return {
                    "cipai": sib,
                    "template": t.id,
                    "note": f"the poem fits {sib} ({t.total} chars), a sibling of {name}; "
                    f"score it as ci:{sib}",
                }
    return None


def _rhyme_and_readings(
    reading: Reading,
    t: CiTemplate,
    system: ToneSystem,
    lenient: bool,
    m: dict[str, float | None],
    diag: dict[str, Any],
) -> None:
    """The rhyme against the matched template ``t``, and the characters with two
    readings read as the rhyme and the metre ask (then the tonal share counted again):
    ``m`` and ``diag`` updated in place."""
    lengths, tone_str = reading.lengths, reading.tone_string()
    mark_str = "".join(reading.mark_lines)
    fixed, resolved = tone_str, list[int]()
    if t.rhyme_groups:
        m["rhyme"], diag["rhyme"], sets = _rhyme(t, reading, system)
        m["rhyme_lenient"] = diag["rhyme"].pop("lenient")
        fixed, resolved = rhyme.resolve_by_rhyme(tone_str, mark_str, t.tones, sets)
    by_metre: list[int] = []
    if system == "classical":
        simp = "".join(reading.simplified)
        fixed, by_metre = resolve_by_metre(simp, fixed, mark_str, t.tones)
    if not (resolved or by_metre):
        return
    share, mask = tonal_share(fixed, mark_str, t.tones, lenient=lenient)
    m["tonal"], bad = share, bits(mask)
    diag["lines"] = _line_report(reading, t.tones, bad, fixed)
    diag["mismatch_count"] = len(bad)
    if resolved:
        diag["resolved_by_rhyme"] = _per_line(resolved, lengths)
    if by_metre:
        diag["resolved_by_metre"] = _per_line(by_metre, lengths)


def score_ci(
    reading: Reading,
    cipai: Cipai,
    *,
    system: ToneSystem,
    lenient: bool,
    ccv: bool,
    optional: frozenset[int] = frozenset(),
    source: CipuSource = "best",
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Metrics and diagnostics of a poem against every template of ``cipai``.

    ``source``: the 词谱 whose templates the headline ``structural``, ``tonal`` and
    ``rhyme`` (and the nearest form) use (:data:`CipuSource`; ignored in the CCiV-literal
    mode, which reads every template as CCiV ships it).

    ``optional``: offsets of the poem's in-line pauses (读 marks, :mod:`.pauses`), breaks a
    template may or may not have.  FuxiBench's ``structural_fuxi`` reads the raw text, not
    the reading: :mod:`.fuxi`.
    """
    lengths = reading.lengths
    tone_str = reading.tone_string()
    mark_str = "".join(reading.mark_lines)
    cache: dict[str, tuple[float, int]] = {}

    def tonal(t: CiTemplate) -> tuple[float, int]:
        if t.id not in cache:
            cache[t.id] = tonal_share(tone_str, mark_str, t.tones, lenient=lenient)
        return cache[t.id]

    if not lengths:
        strict: tuple[CiTemplate, ...] = ()
    elif optional:
        by_total = cipai.by_total.get(sum(lengths), ())
        strict = tuple(t for t in by_total if fits_exact(lengths, t, optional))
    else:
        strict = cipai.by_lengths.get(lengths, ())
    std = cipai.standard
    std_ok = any(t is std for t in strict)
    m: dict[str, float | None] = {
        "structural_standard": 1.0 if std_ok else 0.0,
        "tonal_standard": tonal(std)[0] if std_ok else 0.0,
        "structural_variant": 1.0 if strict else 0.0,
        "tonal_variant": max((tonal(t)[0] for t in strict), default=0.0),
    }
    pool, source_note = _pool(cipai, "best" if ccv else source)
    relaxed: tuple[CiTemplate, ...] = ()
    if not ccv and lengths:
        # fits_relaxed with the poem's total and breaks computed once
        total, breaks = sum(lengths), offsets(lengths) - optional
        relaxed = tuple(
            t
            for t in cipai.by_total.get(total, ())
            if not any(t is u for u in strict) and t.total == total and breaks <= t.breaks
        )
    order = {t.id: i for i, t in enumerate(cipai.templates)}
    cands = [(t, True) for t in strict if t.id in pool]
    cands += [(t, False) for t in relaxed if t.id in pool]
    best = max(cands, key=lambda c: (tonal(c[0])[0], c[1], -order[c[0].id]), default=None)
    m["structural"] = 1.0 if best else 0.0
    m["tonal"] = tonal(best[0])[0] if best else 0.0
    m["rhyme"] = None
    m["rhyme_lenient"] = None
    diag: dict[str, Any] = {
        "cipai": cipai.name,
        "aliases": list(cipai.aliases),
        "standard_template": std.id,
        "templates": len(cipai.templates),
        "matched_variants": [t.id for t in strict],
        "relaxed_variants": [t.id for t in relaxed],
    }
    if not ccv:
        diag["template_source"] = source_note
    if std_ok:
        diag["standard_mismatches"] = _per_line(bits(tonal(std)[1]), lengths)
    if best is not None:
        t, is_strict = best
        bad = bits(tonal(t)[1])
        diag["template"] = {**t.describe(), "match": "exact" if is_strict else "punctuation"}
        if optional:
            diag["pauses"] = _pauses(lengths, optional, t)
        diag["lines"] = None  # (its place in the diagnostics; filled below)
        if amb := reading.ambiguous_originals():  # undecided originals: never a fault
            diag["ambiguous_originals"] = [[k, i] for k, i in amb]
        diag["mismatch_count"] = len(bad)
        if not ccv:  # (the lines are reported here when the rhyme or metre read some)
            _rhyme_and_readings(reading, t, system, lenient, m, diag)
        if diag["lines"] is None:
            diag["lines"] = _line_report(reading, t.tones, bad)
        return m, diag
    diag["template"] = None
    diag["lines"] = _line_report(reading, None, [])
    by_id = {t.id: t for t in cipai.templates}
    flat = _flat(reading)

    def misses(tid: str, ops: list[dict[str, Any]]) -> int:
        """Rhyme positions of the template whose aligned character does not rhyme (the
        template's rhyme sets moved to the poem's aligned positions)."""
        t = by_id[tid]
        ends = phrase_ends(ops, t.lengths)
        moved = tuple(tuple(ends[p] for p in g if p in ends) for g in t.rhyme_groups)
        return sum(s.known - s.matched for s in _rhyme_sets(moved, flat, system, False))

    near = _nearest(lengths, optional, [(t.id, t.lengths) for t in cipai.templates if t.id in pool],
                    None if ccv else misses)  # fmt: skip
    if near is not None:
        tid, cost, ops, rhyme_misses = near
        diag["nearest"] = {
            **by_id[tid].describe(),
            "cost": cost,
            "rhyme_misses": rhyme_misses,
            "considered": len(pool),
            "diff": [o for o in ops if o["op"] != "ok"],
        }
    diag["sibling"] = _sibling(cipai.name, lengths, optional) if lengths else None
    return m, diag
