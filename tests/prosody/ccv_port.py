"""An independent port of the CCiV benchmark's evaluator, for the parity tests.

CCiV's own evaluation script is not in any source we could reach (cubenlp/CCiV is not in
the code index; searched: the repository by name, ``longyusheng_template`` and
``qinding_templates`` across indexed code, "CCiV cipai tonal accuracy evaluation pypinyin").
What is reachable, and ported here without importing anything of ``scoring``:

* the character converter the CCiV / Fùxì authors ship, cubenlp/FuxiBench
  ``src/xinyun/converter.py`` (``PoemConverter.convert_character``) and
  ``src/xinyun/pinyin_utils.py`` @ e5d83fd8: Chinese = U+4E00..U+9FFF; pypinyin
  ``Style.TONE3`` of the character alone, first syllable; tone = trailing digit, else 5;
  1/2/5 平, 3/4 仄;
* the CCiV paper's definitions as docs/prosody.md §4 records them: strip non-Chinese
  characters, punctuation and whitespace separate lines (a lost-character mark is dropped
  without separating); structural accuracy = same number of lines, every line the
  template's length; tonal accuracy = share of characters whose 平/仄 fits the template
  (中 fits either), denominator every character, 0 when the structure fails; standard
  form = ``longyusheng_template[0]``, variant-aware = best over 龙榆生 then 钦定词谱 templates;
  template phrases split on runs of tab/newline/space.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from pypinyin import Style, pinyin

TEMPLATES = (
    Path(__file__).resolve().parents[2]
    / "scoring"
    / "prosody"
    / "data"
    / "cipai"
    / "cipai2info.json"
)
LOST = set("□■○●◯＊*＿_×")


def pingze(ch: str) -> str:
    if not "\u4e00" <= ch <= "\u9fff":
        return ""
    syl = pinyin(ch, style=Style.TONE3)[0][0]
    digit = syl[-1] if syl and syl[-1].isdigit() else "5"
    return "平" if digit in ("1", "2", "5") else "仄"


def lines_of(text: str) -> list[str]:
    out, cur = [], ""
    for ch in text:
        if "\u4e00" <= ch <= "\u9fff":
            cur += ch
            continue
        if ch in LOST:
            continue
        if ch in "\t\n\r" or unicodedata.category(ch).startswith(("P", "Z")):
            if cur:
                out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def _templates() -> dict[str, list[tuple[list[int], str]]]:
    data = json.loads(TEMPLATES.read_text(encoding="utf-8"))
    out = {}
    for tune, entry in data.items():
        forms = []
        for t in entry["longyusheng_template"] + entry["qinding_templates"]:
            phrases = [p for p in re.split(r"[\t\n ]+", t["template"].strip()) if p]
            forms.append(([len(p) for p in phrases], "".join(phrases)))
        out[tune] = forms
    return out


TEMPLATES_BY_TUNE = _templates()


def evaluate(tune: str, text: str) -> dict[str, float]:
    """CCiV's four figures for one poem: structural/tonal, standard/variant."""
    lines = lines_of(text)
    lengths = [len(x) for x in lines]
    tones = "".join(pingze(c) for c in "".join(lines))

    def tonal(required: str) -> float:
        hits = sum(1 for t, r in zip(tones, required, strict=True) if r == "中" or t == r)
        return hits / len(required) if required else 0.0

    forms = TEMPLATES_BY_TUNE[tune]
    std_lengths, std_tones = forms[0]
    std_ok = lengths == std_lengths
    fitting = [req for lens, req in forms if lens == lengths]
    return {
        "structural_standard": 1.0 if std_ok else 0.0,
        "tonal_standard": tonal(std_tones) if std_ok else 0.0,
        "structural_variant": 1.0 if fitting else 0.0,
        "tonal_variant": max((tonal(r) for r in fitting), default=0.0),
    }
