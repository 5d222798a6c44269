"""The text a reader sees on a rendered page, and the English sentences left in it.

Used by the dashboard's language tests (``tests/report/test_dashboard_language.py``) and
the browser test: a page in zh-Hans should hold no English sentence, only names (ids,
model names, numbers, file names, method names such as Wilson or bootstrap).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Elements whose text is not read as prose (code, scripts, styles, pre-formatted ids).
SKIPPED = frozenset({"script", "style", "code", "kbd", "samp", "pre", "template", "noscript"})
#: Words that are names, not English prose: methods, coefficients, statistics, authors.
NAMES = frozenset(
    (
        *("wilson", "bootstrap", "percentile", "fisher", "wald", "welch", "mcnemar", "holm"),
        *("benjamini", "hochberg", "krippendorff", "fleiss", "cohen", "gwet", "brennan"),
        *("prediger", "conger", "cronbach", "pearson", "spearman", "kendall", "bradley"),
        *("terry", "icc", "ac1", "ac2", "kappa", "alpha", "fuxibench", "cciv", "qwen", "gpt"),
        *("csv", "json", "jsonl", "xlsx", "zip", "sd", "se", "ci", "n", "p", "t", "z", "r"),
    )
)
#: A run of words joined by spaces (or a comma, a hyphen) only: a phrase, not a name.
RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*)+")
#: Tokens that are ids or names: rater sets, rule ids, paths, files, snake_case, all caps.
CODEISH = re.compile(r"[:/_@.=+\d]|^[A-Z0-9-]+$")
#: A number (with its sign, decimals, percent): read within a sentence, not a word.
NUMBER = re.compile(r"^[-+±−]?\d[\d.,]*%?$")
EDGES = "()[]{},;:.!?\"'“”‘’"
#: Attributes a reader meets as text (tooltips, names read aloud, placeholders).
READ_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder")


class _Text(HTMLParser):
    """Text nodes and read attributes, outside ``SKIPPED`` elements and elements marked
    ``translate="no"`` (text kept as loaded, such as a published figure's source)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skipping:
            if tag == self._skipping[0]:
                self._skipping.append(tag)
            return
        if tag in SKIPPED or dict(attrs).get("translate") == "no":
            self._skipping.append(tag)
            return
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self._add(value)

    def handle_endtag(self, tag: str) -> None:
        if self._skipping and tag == self._skipping[-1]:
            self._skipping.pop()

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._add(data)

    def _add(self, text: str) -> None:
        if text.strip():
            self.parts.append(" ".join(text.split()))


def visible_text(html: str) -> list[str]:
    """The page's text nodes outside scripts, styles and code, whitespace collapsed."""
    parser = _Text()
    parser.feed(html)
    return parser.parts


def _prose_words(run: str) -> list[str]:
    words = [
        w.lower().removesuffix("'s").removesuffix("'").strip("'’") for w in re.split(r"[ ,]+", run)
    ]
    return [w for w in words if w and w not in NAMES]


def _tokens(text: str) -> str:
    """``text`` with numbers dropped and ids (``CODEISH``) as breaks between phrases."""
    out = []
    for token in text.split():
        core = token.strip(EDGES)
        if NUMBER.match(core):
            continue
        out.append("|" if core and CODEISH.search(core) else token)
    return " ".join(out)


def english_sentences(texts: list[str], min_words: int = 3) -> list[str]:
    """Runs of ``min_words`` or more English words in ``texts`` (names and ids aside)."""
    found: list[str] = []
    for text in texts:
        for run in RUN.findall(_tokens(text)):
            if len(_prose_words(run)) >= min_words:
                found.append(run)
    return sorted(set(found))
