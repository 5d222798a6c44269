"""Couplets (对联): the second line answers the first.

Rule source: the couplet conventions of 《联律通则》 (中国楹联学会, 2008) as far as form goes,
and the CCiV couplet task (same length and segmentation):

* ``length``: 1 when both lines have the same number of characters and the same
  segmentation (the lengths of their punctuation-separated segments agree), else 0;
* ``tone_opposition``: weighted share of aligned positions whose tones are opposed (平 vs
  仄).  Weights favour the rhythm: a segment's last character weighs 3, other even
  positions (2nd, 4th, 6th … of a segment: the 节奏点) weigh 2, the rest 1.  0 when the
  totals differ.  Ambiguous characters oppose anything in lenient mode; positions with an
  unknown tone are left out;
* ``ending``: half for the first line ending 仄 (上联仄收), half for the second ending 平
  (下联平收).
"""

from __future__ import annotations

import re
from typing import Any

from .tones import PING, UNKNOWN, ZE, CharTone

_MAJOR = re.compile(r"[\n；;。！!？?]+")


def split_couplet(text: str) -> tuple[str, str] | None:
    """The two lines of a couplet: split at a line break, else at a major stop, else halve.

    Labels such as ``上联：`` are expected to be stripped already.
    """
    parts = [p for p in _MAJOR.split(text.strip()) if p.strip()]
    if len(parts) == 2:
        return parts[0], parts[1]
    segs = [s for s in re.split(r"[\s，,、：:；;。！!？?]+", text.strip()) if s]
    if len(segs) >= 2 and len(segs) % 2 == 0:
        half = len(segs) // 2
        return "，".join(segs[:half]), "，".join(segs[half:])
    return None


def _weights(lengths: list[int]) -> list[int]:
    out: list[int] = []
    for n in lengths:
        out.extend(3 if i == n - 1 else (2 if i % 2 == 1 else 1) for i in range(n))
    return out


def _opposed(a: CharTone, b: CharTone, lenient: bool) -> bool | None:
    if UNKNOWN in (a.tone, b.tone):
        return None
    if lenient and (a.ambiguous or b.ambiguous):
        return True
    return a.tone != b.tone


def score_couplet(
    first: tuple[list[str], list[tuple[CharTone, ...]]],
    second: tuple[list[str], list[tuple[CharTone, ...]]],
    *,
    lenient: bool,
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Metrics and diagnostics for a couplet given each line's segments and their tones."""
    segs1, tones1 = first
    segs2, tones2 = second
    len1, len2 = [len(s) for s in segs1], [len(s) for s in segs2]
    flat1 = [ct for seg in tones1 for ct in seg]
    flat2 = [ct for seg in tones2 for ct in seg]
    m: dict[str, float | None] = {"length": 1.0 if len1 == len2 and flat1 else 0.0}
    diag: dict[str, Any] = {
        "lines": [
            {
                "text": "，".join(segs),
                "segments": lens,
                "tones": "".join(ct.tone for ct in fl),
                "marks": "".join(ct.mark for ct in fl),
                "pinyin": [ct.pinyin for ct in fl],
            }
            for segs, lens, fl in ((segs1, len1, flat1), (segs2, len2, flat2))
        ]
    }
    if sum(len1) != sum(len2) or not flat1:
        m["tone_opposition"] = 0.0
        diag["unopposed"] = []
    else:
        weights = _weights(len1)
        num = den = 0.0
        unopposed = []
        for i, (a, b, w) in enumerate(zip(flat1, flat2, weights, strict=True)):
            o = _opposed(a, b, lenient)
            if o is None:
                continue
            den += w
            num += w if o else 0
            if not o:
                unopposed.append(i)
        m["tone_opposition"] = num / den if den else None
        diag["unopposed"] = unopposed
    end1 = flat1[-1] if flat1 else None
    end2 = flat2[-1] if flat2 else None
    ok1 = end1 is not None and (end1.tone == ZE or (lenient and end1.ambiguous))
    ok2 = end2 is not None and (end2.tone == PING or (lenient and end2.ambiguous))
    m["ending"] = (ok1 + ok2) / 2
    diag["ending"] = {"first_ends_ze": ok1, "second_ends_ping": ok2}
    return m, diag
