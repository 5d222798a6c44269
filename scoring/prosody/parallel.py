"""词性对仗 (part-of-speech parallelism) of a couplet: a HEURISTIC metric.

Source of the rule: the couplet convention that aligned words share a part of speech
(《联律通则》, 中国楹联学会 2008, §2 "词性对品": 名词对名词, 动词对动词 …).  Source of the
tags: jieba's ``posseg`` (ICTCLAS-style tags, a modern-Chinese dictionary and HMM), which
often mis-tags classical usage (上 in 一行白鹭上青天 is a verb; jieba calls it 方位), so the
figure is reported as ``pos_parallelism_heuristic``, documented as a heuristic, and never
enters any rule metric or the structure/tone checks.

Definition: each character takes the coarse class of the word jieba puts it in (a word
jieba tags as an idiom or set phrase, ``i``/``l``, is re-tagged character by character, since
a whole line tagged "idiom" says nothing); the metric is the share of aligned positions
whose classes agree, or None when the lines differ in length.  Classes: noun-like (n*, t,
s, f), verb (v*), adjective (a*, b, z), numeral (m), measure (q), adverb (d), pronoun (r),
function word (p, c, u, e, y, o), other.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

SOURCE = "jieba.posseg tags; 《联律通则》(2008) §2 词性对品 -- heuristic"

_CLASSES = (
    ("noun", ("n", "t", "s", "f")),
    ("verb", ("v",)),
    ("adjective", ("a", "b", "z")),
    ("numeral", ("m",)),
    ("measure", ("q",)),
    ("adverb", ("d",)),
    ("pronoun", ("r",)),
    ("function", ("p", "c", "u", "e", "y", "o")),
)


def coarse(flag: str) -> str:
    """The coarse class of a jieba tag (``nr`` -> noun, ``vn`` -> verb, ``x`` -> other)."""
    for name, prefixes in _CLASSES:
        if flag[:1] in prefixes:
            return name
    return "other"


@lru_cache(maxsize=1)
def _posseg() -> Any:
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    return jieba.posseg


@lru_cache(maxsize=4096)
def char_classes(line: str) -> tuple[tuple[str, str], ...]:
    """(word, coarse class) for each character of a line of Chinese characters."""
    ps = _posseg()
    out: list[tuple[str, str]] = []
    for pair in ps.lcut(line):
        word, flag = pair.word, pair.flag
        if flag[:1] in ("i", "l") and len(word) > 1:
            for ch in word:
                tagged = ps.lcut(ch)
                out.append((ch, coarse(tagged[0].flag if tagged else "x")))
        else:
            out.extend((word, coarse(flag)) for _ in word)
    return tuple(out)


def pos_parallelism(
    first: tuple[str, ...], second: tuple[str, ...]
) -> tuple[float | None, dict[str, Any]]:
    """(share of aligned positions whose word classes agree, diagnostics).

    ``first`` and ``second`` are each line's segments (simplified characters); each
    segment is tagged on its own, as a phrase of the couplet.
    """
    a = tuple(x for seg in first for x in char_classes(seg))
    b = tuple(x for seg in second for x in char_classes(seg))
    n = sum(map(len, first))
    if not n or n != sum(map(len, second)):
        return None, {"source": SOURCE, "note": "lines of different lengths"}
    if len(a) != n or len(b) != n:  # never shift positions
        return None, {"source": SOURCE, "note": "segmentation lost characters"}
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x[1] != y[1]]
    return 1 - len(differ) / n, {
        "source": SOURCE,
        "classes": [[c for _, c in a], [c for _, c in b]],
        "differ": differ,
    }
