"""How a poem's text is shown: lines, the phrases a line may wrap between, first words,
blanks, authors. Pure text helpers for the templates (``studies.templatetags.verse``)
and the volunteer selectors; no Django.

A verse line is never broken inside a phrase: the page shrinks the type so that the
longest line fits (CSS, from :func:`longest_line`), and only when even the smallest
readable size is too wide does a line wrap, between phrases (after a caesura's comma),
with a hanging indent that shows the rest belongs to the same line.
"""

from __future__ import annotations

import re

# Punctuation a line may wrap after (the caesura and the ends of phrases).
_PHRASE_END = "，。、；：？！,.;:?!"
_PHRASE = re.compile(
    rf"[^{re.escape(_PHRASE_END)}]*[{re.escape(_PHRASE_END)}]+|[^{re.escape(_PHRASE_END)}]+"
)
# A run of blank marks standing for missing characters (a fill-the-line question).
BLANK_RUN = re.compile(r"□+|＿{2,}|_{3,}")
# A trailing attribution line: "——李清照", "—— 苏轼", "--无名氏".
_ATTRIBUTION = re.compile(r"\n[ \t\u3000]*(?:——|—|--|－－|──)[^\n]*\s*$")
_CORPUS_SUFFIX = re.compile(r"(?<=\D)\d+$")  # "王炎2": a corpus's homonym number


def verse_lines(text: str) -> list[str]:
    """The poem's lines as written (line breaks), blank lines dropped, spaces trimmed."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def phrases(line: str) -> list[str]:
    """A line cut after each phrase's punctuation: the only places it may wrap."""
    return _PHRASE.findall(line) or [line]


def longest_line(text: str) -> int:
    """Characters in the poem's longest line (at least 1): the page fits this line."""
    return max((len(line) for line in verse_lines(text)), default=1) or 1


def first_words(text: str, limit: int = 5) -> str:
    """The start of a poem, to name it (a tab, a choice): its first phrase, cut to
    ``limit`` characters with an ellipsis."""
    lines = verse_lines(text)
    if not lines:
        return ""
    phrase = phrases(lines[0])[0].rstrip(_PHRASE_END)
    return phrase if len(phrase) <= limit else phrase[:limit] + "…"


def without_attribution(text: str) -> str:
    """A poem without a trailing "——author" line (hidden authors)."""
    return _ATTRIBUTION.sub("", text)


def display_author(name: str) -> str:
    """An author's name as shown: without a corpus's homonym number ("王炎2" → "王炎")."""
    return _CORPUS_SUFFIX.sub("", name.strip())
