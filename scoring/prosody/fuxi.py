"""FuxiBench's Ci structure check (the Fùxì paper's CiG metric), reproduced exactly.

Source: cubenlp/FuxiBench, ``src/cipai_utils.py`` (Apache-2.0), ``FormatEvaluator.eval_single``
and ``PoemFormat.check_format`` at commit ``163bfa8c`` (the version with the ``赏析：``/``注：``
cut added for DeepSeek-R1, whose results the published tables hold), with its template file ``src/cipai2info.json`` (bundled unchanged as
``data/cipai/cipai2info.json``).  ``evaluate.py`` scores each CiG generation with
``ci_format_acc(prediction, cipai)`` (metric ``pacc``) and reports the mean as a percentage.

What the benchmark does, and so what this module does:

* **One template.**  The *standard* template of the tune only: the first 龙榆生 template
  (``longyusheng_template[0]``); the 钦定词谱 variants are never consulted (its
  ``check_format_multiple`` is never called).  Its phrases are the template split on
  ``\\t``/``\\n`` (empty ones dropped), joined with ``\\t`` and split again on ``[ \\t\\n]``.
  The tune is looked up by its name as given; an unknown name fails.  The four 诗 formats
  of the benchmark (五言绝句 …: one line of 5 or 7 repeated ×4 or ×8) are kept too.
* **The text.**  Cut at the first ``赏析：``, then at the first ``注：`` (full-width colon
  only), stripped.  Three attempts pass if any does: the text, the text after its first
  line, and the text after its first two lines (a title, then an author).
* **Splitting.**  ``[ \\t\\n，。？！、,.?!]`` only, empty pieces dropped, each piece stripped:
  ``；`` ``：`` ``“”`` and the like do not split, and stay in the piece.
* **Counting.**  Every code point of a piece counts (punctuation that does not split, Latin
  letters, placeholders, supplementary-plane characters alike).
* **Repeats.**  The piece count must equal the template's, or be 2, 4 or 8 times it (the
  template is then repeated); then piece *i* must have the length of phrase *i*.

Nothing here reads tones: the check is structure only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import tables

SOURCE = (
    "FuxiBench (cubenlp/FuxiBench @ 163bfa8c, Apache-2.0), src/cipai_utils.py: "
    "FormatEvaluator.eval_single / PoemFormat.check_format against longyusheng_template[0]"
)
REPEATS = (2, 4, 8)
ATTEMPTS = ("text", "without_first_line", "without_first_two_lines")

_POEM_SPLIT = re.compile(r"[ \t\n，。？！、,.?!]")
_TEMPLATE_SPLIT = re.compile(r"[ \t\n]")
_PHRASE_SPLIT = re.compile(r"[\t\n]")

# FuxiBench's own 诗 formats: (one line's template, repeat)
SHI_FORMATS: dict[str, tuple[str, int]] = {
    "五言绝句": ("AAAAA", 4),
    "七言绝句": ("AAAAAAA", 4),
    "五言律诗": ("AAAAA", 8),
    "七言律诗": ("AAAAAAA", 8),
}
# the platform's shi form names -> FuxiBench's
SHI_NAMES = {
    "shi:jueju5": "五言绝句",
    "shi:jueju7": "七言绝句",
    "shi:lushi5": "五言律诗",
    "shi:lushi7": "七言律诗",
}


@dataclass(frozen=True, slots=True)
class FuxiCheck:
    """FuxiBench's verdict on one text, and why.

    ``passed``: the benchmark's True/False.  ``attempt``: which of :data:`ATTEMPTS` passed
    (None when none did).  ``repeat``: how many times the template was repeated (1, 2, 4
    or 8) in the passing attempt.  ``gold``: the template's phrase lengths;
    ``pieces``: the piece lengths of the whole text (the first attempt).
    """

    tune: str
    passed: bool
    attempt: str | None
    repeat: int | None
    gold: tuple[int, ...]
    pieces: tuple[int, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "tune": self.tune,
            "passed": self.passed,
            "attempt": self.attempt,
            "repeat": self.repeat,
            "template_lengths": list(self.gold),
            "piece_lengths": list(self.pieces),
            "source": SOURCE,
        }


@lru_cache(maxsize=64)
def standard_phrases(tune: str) -> tuple[str, ...] | None:
    """The standard template's phrases as FuxiBench compares them, or None (unknown tune)."""
    if tune in SHI_FORMATS:
        line, repeat = SHI_FORMATS[tune]
        return tuple(x.strip() for x in _TEMPLATE_SPLIT.split(line.strip())) * repeat
    info = tables.cipai2info().get(tune)
    if info is None:
        return None
    raw = info["longyusheng_template"][0]["template"]
    joined = "\t".join(s for s in _PHRASE_SPLIT.split(raw) if s.strip())
    return tuple(x.strip() for x in _TEMPLATE_SPLIT.split(joined.strip()))


def pieces(text: str) -> list[str]:
    """The text split as FuxiBench splits a generation (stripped, empty pieces dropped)."""
    return [x.strip() for x in _POEM_SPLIT.split(text.strip()) if x.strip()]


def _fits(gold: tuple[int, ...], pred: list[int]) -> int | None:
    """The repeat (1, 2, 4, 8) with which ``pred`` fits ``gold``, or None."""
    n = len(gold)
    if len(pred) == n:
        k = 1
    elif len(pred) in (n * r for r in REPEATS):
        k = len(pred) // n
    else:
        return None
    return k if all(p == g for p, g in zip(pred, gold * k, strict=True)) else None


def cut_notes(text: str) -> str:
    """The text before FuxiBench's note markers (赏析： then 注：), stripped."""
    if "赏析：" in text:
        text = text.split("赏析：")[0]
    if "注：" in text:
        text = text.split("注：")[0]
    return text.strip()


def attempts(text: str) -> tuple[str, str, str]:
    """The three texts FuxiBench tries: whole, without one line, without two."""
    whole = cut_notes(text)
    one = whole[whole.find("\n") + 1 :].strip()
    two = one[one.find("\n") + 1 :].strip()
    return whole, one, two


def check(tune: str, text: str) -> FuxiCheck:
    """FuxiBench's ``eval_single(tune, text)`` with the reason it gives its verdict."""
    phrases = standard_phrases(tune)
    texts = attempts(text)
    first = tuple(len(p) for p in pieces(texts[0]))
    if phrases is None:
        return FuxiCheck(tune, False, None, None, (), first)
    gold = tuple(len(p) for p in phrases)
    for name, t in zip(ATTEMPTS, texts, strict=True):
        k = _fits(gold, list(first) if t is texts[0] else [len(p) for p in pieces(t)])
        if k is not None:
            return FuxiCheck(tune, True, name, k, gold, first)
    return FuxiCheck(tune, False, None, None, gold, first)


def tune_for(requested: str, canonical: str | None) -> str | None:
    """The FuxiBench tune a platform form names: the name as requested when the benchmark
    knows it, else the canonical name of its alias; None for a tune it does not know."""
    for name in (requested, canonical):
        if name and standard_phrases(name) is not None:
            return name
    return None
