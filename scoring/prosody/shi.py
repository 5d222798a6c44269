"""Regulated verse (近体诗: 绝句 and 律诗, five or seven characters a line).

Rule source: the standard 平仄 patterns of 近体诗 as taught in 王力《诗词格律》: four line
types (五言 A 仄仄平平仄, B 平平仄仄平, C 平平平仄仄, D 仄仄仄平平; 七言 prefixes the
opposite pair), arranged by 粘 and 对 into four patterns (平起/仄起 × 首句入韵 or not);
rhyme on even lines (and line 1 when it rhymes) in one level-tone rhyme (平水韵 for the
classical system, 中华新韵 for the modern one); licence 一三五不论 (positions 1, 3 [, 5]
free); faults 孤平, 三平尾, 失粘, 失对 and 出句平收.

Definitions used here:

* 孤平: a line ending 平 in which no two 平 characters are adjacent (仄平仄仄平).
* 三平尾: the last three characters all 平.
* 失对: the 2nd characters of a couplet's two lines have the same tone.
* 失粘: the 2nd characters of an even line and the next odd line have different tones.
* 出句平收: a line that does not rhyme ends 平 (in 近体诗 only the rhyming lines end 平;
  王力《诗词格律》第二章: 不入韵的句子句末用仄声).

Ambiguous characters never create a fault in lenient mode; characters of unknown tone
never create a fault.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from functools import lru_cache
from typing import Any

from . import gu, licences, rhyme
from .align import align
from .ci import bits, tonal_share
from .context import SAME_MEANING
from .licences import arrange, by_metre, judge_poem, line_type
from .reading import Reading
from .tones import PING, UNKNOWN, CharTone, ToneSystem

FORMS: dict[str, tuple[int, int]] = {
    "shi:jueju5": (4, 5),
    "shi:jueju7": (4, 7),
    "shi:lushi5": (8, 5),
    "shi:lushi7": (8, 7),
}
# 排律 (长律): a regulated poem of ten or more lines (an even number), five or seven
# characters a line, that continues the 律诗's 粘对 couplet after couplet in one level rhyme
# (王力《诗词格律》第二章 §1 诗的种类: 超过八句的律诗 is 长律 or 排律; 《汉语诗律学》第一章
# (近体诗) on 排律: every rule of the 律诗 kept, only lengthened).  Its line count is the poem's own.
PAILU: dict[str, int] = {"shi:pailu5": 5, "shi:pailu7": 7}
PAILU_MIN_LINES = 10
_SEQ = {"A": "ABCD", "D": "DBCD", "C": "CDAB", "B": "BDAB"}


def detect(lengths: tuple[int, ...]) -> str | None:
    """The shi form whose shape (line count and length) the poem has, if any."""
    for form, (n_lines, n) in FORMS.items():
        if lengths == (n,) * n_lines:
            return form
    return None


def pailu(lengths: tuple[int, ...]) -> str | None:
    """The 排律 form whose shape the poem has (10+ lines, an even number, of 5 or 7), if any."""
    if len(lengths) < PAILU_MIN_LINES or len(lengths) % 2 or len(set(lengths)) != 1:
        return None
    return next((form for form, n in PAILU.items() if lengths[0] == n), None)


def shape(form: str, lengths: tuple[int, ...]) -> tuple[int, int]:
    """(lines, characters a line) the poem must have for ``form`` (a 排律 keeps its own
    line count when it has a 排律's shape, else it needs ten)."""
    if form in FORMS:
        return FORMS[form]
    n = PAILU[form]
    return (len(lengths), n) if pailu(lengths) == form else (PAILU_MIN_LINES, n)


def resplit(lines: list[str], form: str | None = None) -> tuple[str, list[str]] | None:
    """A shi form and the lines cut every n characters, when only line breaks are missing.

    An edition or a model output may run a poem's lines together (no punctuation, or
    commas only between couplets): when the total is a form's (20, 28, 40, 56 characters)
    and every break the text has falls at a multiple of the line length, the poem is that
    form with the missing breaks supplied -- the shi counterpart of a ci that fits its
    template once missing commas are allowed.  ``form`` restricts the check to one form.
    """
    lengths = [len(x) for x in lines]
    total = sum(lengths)
    for name, (n_lines, n) in FORMS.items():
        if (form is not None and name != form) or total != n_lines * n or not lines:
            continue
        ends = list(itertools.accumulate(lengths))
        if all(e % n == 0 for e in ends):
            text = "".join(lines)
            return name, [text[i : i + n] for i in range(0, total, n)]
    return None


def patterns(n_lines: int, n: int) -> list[tuple[str, list[str]]]:
    """The four standard patterns as (name, line tone strings)."""
    return [(name, list(lines)) for name, lines in _patterns(n_lines, n)]


@lru_cache(maxsize=64)
def _patterns(n_lines: int, n: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out = []
    for first in "ACDB":
        seq = _SEQ[first]
        # 律诗 and 排律 go on couplet after couplet with the unrhymed pair (粘 to the last)
        types = (seq + ("ABCD" if first in "AD" else "CDAB") * (n_lines // 4))[:n_lines]
        lines = [line_type(t, n) for t in types[:n_lines]]
        name = ("平起" if lines[0][1] == PING else "仄起") + (
            "首句入韵" if lines[0][-1] == PING else "首句不入韵"
        )
        out.append((name, tuple(lines)))
    return tuple(out)


def _is(ct: CharTone, tone: str, lenient: bool) -> bool:
    """Could this character be ``tone``?  (Unknown tones get the benefit of the doubt.)"""
    return ct.tone in (tone, UNKNOWN) or (lenient and ct.ambiguous)


def faults(
    tones: tuple[tuple[CharTone, ...], ...], rhyme_lines: set[int], lenient: bool
) -> tuple[list[dict[str, Any]], int]:
    """(faults found, number of checks made)."""
    found: list[dict[str, Any]] = []
    checks = 0
    for i, line in enumerate(tones):
        checks += 1
        if all(ct.tone == PING and not (lenient and ct.ambiguous) for ct in line[-3:]):
            found.append({"fault": "三平尾", "line": i})
        if i in rhyme_lines:
            checks += 1
            ping = [_is(ct, PING, lenient) for ct in line]
            if ping[-1] and not any(a and b for a, b in itertools.pairwise(ping)):
                found.append({"fault": "孤平", "line": i})
        elif line and line[-1].tone != UNKNOWN:
            checks += 1
            end = line[-1]
            if end.tone == PING and not (lenient and end.ambiguous):
                found.append({"fault": "出句平收", "line": i})
    for i in range(len(tones) - 1):
        a, b = tones[i][1], tones[i + 1][1]
        if UNKNOWN in (a.tone, b.tone):
            continue
        checks += 1
        same = a.tone == b.tone
        if lenient and (a.ambiguous or b.ambiguous):
            continue
        if i % 2 == 0 and same:
            found.append({"fault": "失对", "lines": [i, i + 1]})
        elif i % 2 == 1 and not same:
            found.append({"fault": "失粘", "lines": [i, i + 1]})
    return found, checks


def _retoned(
    tones: tuple[tuple[CharTone, ...], ...], fixed: str, changed: set[int], n: int
) -> tuple[tuple[CharTone, ...], ...]:
    """The characters' tones with the positions read by the rhyme or the metre put in."""
    if not changed:
        return tones
    return tuple(
        tuple(
            replace(ct, tone=fixed[i * n + j]) if i * n + j in changed else ct
            for j, ct in enumerate(line)
        )
        for i, line in enumerate(tones)
    )


def _per_line(
    bad: list[int], bad_lic: list[tuple[int, int]], verdicts: list[Any], n_lines: int, n: int
) -> tuple[list[list[int]], list[list[int]], list[list[dict[str, Any]]]]:
    """Off-pattern positions (poem offsets), licensed-pattern misses (line offsets) and
    verdicts, grouped by line in their order."""
    off: list[list[int]] = [[] for _ in range(n_lines)]
    for p in bad:
        off[p // n].append(p)
    off_lic: list[list[int]] = [[] for _ in range(n_lines)]
    for k, j in bad_lic:
        off_lic[k].append(j)
    by_line: list[list[dict[str, Any]]] = [[] for _ in range(n_lines)]
    for v in verdicts:
        by_line[v.line].append(v.to_dict())
    return off, off_lic, by_line


def score_shi(
    reading: Reading, form: str, *, system: ToneSystem, lenient: bool
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Metrics and diagnostics of a poem as regulated verse of ``form``."""
    n_lines, n = shape(form, reading.lengths)
    want = (n,) * n_lines
    diag: dict[str, Any] = {"form": form, "lines": [{"text": x} for x in reading.lines]}
    m: dict[str, float | None] = {
        "structural": 0.0,
        "pattern": 0.0,
        "pattern_licensed": 0.0,
        "rhyme": None,
        "rhyme_lenient": None,
        "faults": None,
    }
    if reading.lengths != want:
        _, ops = align(reading.lengths, want)
        diag["diff"] = [o for o in ops if o["op"] != "ok"]
        return m, diag
    m["structural"] = 1.0
    pys = reading.pinyin_flat()
    tone_str = reading.tone_string()
    mark_str = "".join(reading.mark_lines)
    simp = "".join(reading.simplified)
    metre = system == "classical"
    # a 两读同义 character to read by the metre at all? (else by_metre changes nothing)
    by_m = metre and "中" in mark_str and not SAME_MEANING.isdisjoint(simp)
    why = gu.reasons(mark_str, n_lines, n)
    cut = gu.huan_yun(reading, n_lines, n) if metre else None  # judged in 平水韵 only
    if cut is not None:
        why.append(f"换韵 (a new rhyme from line {cut + 1})")
    if why:  # 仄韵 or 换韵: 古体, not 近体 -- no pattern, no 律 faults
        gm, gd = gu.score_gu(reading, n_lines, n, system, why, cut)
        return gm, {**diag, **gd}
    last = tone_str[n - 1]  # line 1's last character: 平 = it rhymes (首句入韵)
    memo: licences.MetreMemo = {}  # couplet readings by the metre, shared by the calls below
    scored = []
    for name, lines in patterns(n_lines, n):
        req = "".join(lines)
        fixed = by_metre(simp, tone_str, mark_str, lines, n, lenient, memo)[0] if by_m else tone_str
        strict = tonal_share(fixed, mark_str, req, lenient=lenient)
        lic, _, _ = judge_poem(fixed, mark_str, lines, n, lenient)
        scored.append((strict[0], lic, lines[0][-1] == last, name, lines))
    best = max(scored, key=lambda s: (s[1], s[0], s[2]))  # max keeps the first of equals
    _, _, _, name, lines = best
    arranged = arrange(tone_str, mark_str, simp, lines, n, lenient, by_m, memo)
    rhyme_lines = {i for i in range(1, n_lines, 2)} | ({0} if arranged[0][-1] == PING else set())
    pos = sorted(i * n + n - 1 for i in rhyme_lines)
    text = "".join(reading.lines)
    rs = rhyme.check_set(
        tuple(pos),
        [simp[p] for p in pos],
        [pys[p] for p in pos],
        system=system,
        family="shi",
        shown="".join(text[p] for p in pos),
        first_line_free=0 in rhyme_lines,
    )
    m["rhyme"] = rhyme.score_sets([rs])
    m["rhyme_lenient"] = rhyme.score_sets([rs], lenient=True)
    # ambiguous characters read as the metre asks: rhyming ones, and 两读同义 ones (classical)
    req = "".join(lines)
    fixed, resolved = rhyme.resolve_by_rhyme(tone_str, mark_str, req, [rs])
    fixed, metre_pos = (
        by_metre(simp, fixed, mark_str, lines, n, lenient, memo) if by_m else (fixed, [])
    )
    strict = tonal_share(fixed, mark_str, req, lenient=lenient)
    m["pattern"], bad = strict[0], bits(strict[1])
    areq = "".join(arranged)
    afixed, a_rhyme = rhyme.resolve_by_rhyme(tone_str, mark_str, areq, [rs])
    afixed, a_metre = (
        by_metre(simp, afixed, mark_str, arranged, n, lenient, memo) if by_m else (afixed, [])
    )
    m["pattern_licensed"], bad_lic, verdicts = judge_poem(afixed, mark_str, arranged, n, lenient)
    cts_lines = _retoned(reading.tones, afixed, set(a_rhyme) | set(a_metre), n)
    if resolved or a_rhyme:
        diag["resolved_by_rhyme"] = [[p // n, p % n] for p in sorted(set(resolved) | set(a_rhyme))]
    if metre_pos or a_metre:
        diag["resolved_by_metre"] = [[p // n, p % n] for p in sorted(set(metre_pos) | set(a_metre))]
    if arranged != lines:
        diag["couplet_patterns"] = [licences.TYPE_OF[x[-5:]] for x in arranged]
    found, checks = faults(cts_lines, rhyme_lines, lenient)
    if metre and (why := gu.chu_lu(found, verdicts, n_lines)):  # 出律 beyond the licences
        gm, gd = gu.score_gu(reading, n_lines, n, system, why)
        return gm, {**diag, **gd}
    m["faults"] = 1.0 - len(found) / checks if checks else None
    off, off_lic, by_line = _per_line(bad, bad_lic, verdicts, n_lines, n)
    for i, entry in enumerate(diag["lines"]):
        cts = cts_lines[i]
        if reading.simplified[i] != reading.lines[i]:
            entry["simplified"] = reading.simplified[i]
        entry.update(
            tones="".join(ct.tone for ct in cts),
            marks="".join(ct.mark for ct in cts),
            pinyin=[ct.pinyin for ct in cts],
            required=lines[i],
            required_licensed=arranged[i],
            mismatches=[p - i * n for p in off[i]],
            mismatches_ambiguous=[p - i * n for p in off[i] if mark_str[p] == "中"],
            mismatches_licensed=off_lic[i],
            licences=by_line[i],
        )
        if reading.decisions and reading.decisions[i]:
            entry["readings"] = reading.decision_report(i)  # what decided each polyphone
    diag.update(
        pattern=name,
        patterns={s[3]: round(s[0], 4) for s in scored},
        licences=[v.to_dict() for v in verdicts if v.licence is not None],
        rhyme={"book": rhyme.book_name(system, "shi"), "sets": [rs.to_dict()]},
        faults=found,
    )
    if amb := reading.ambiguous_originals():  # undecided originals: counted apart, no fault
        diag["ambiguous_originals"] = [[k, i] for k, i in amb]
    return m, diag
