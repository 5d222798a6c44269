"""An independent port of FuxiBench's Ci structure evaluator, for the parity tests.

Written from cubenlp/FuxiBench ``src/cipai_utils.py`` @ 163bfa8c (``PoemFormat``,
``FormatEvaluator``) and ``src/utils.py`` (``ci_format_acc``), not from the platform's code:
it imports nothing of ``scoring`` and reads the benchmark's template file as a file.

Behaviour kept from the source, including what looks accidental:

* formats: the four 诗 formats (a line of ``A`` × 5 or 7, repeated 4 or 8 times), then one
  per tune of ``cipai2info.json`` built from ``longyusheng_template[0]['template']``: split
  on tab/newline, blank sentences dropped, re-joined with a tab;
* ``standard_format``: the template stripped and split on space/tab/newline (empty strings
  kept), times ``repeat`` when one is set;
* ``check_format``: gold = each phrase stripped; pred = the poem stripped, split on
  ``[ \\t\\n，。？！、,.?!]``, stripped, empties dropped; unequal counts fail unless pred's count
  is gold's × 2, 4 or 8 (gold is then repeated); then lengths compared pairwise (``zip``);
* ``eval_single``: unknown name -> False; cut at ``赏析：`` then ``注：``; strip; try the
  text, the text from after its first newline, and from after the next one (``find``
  returns -1 without a newline, so the text itself is tried again).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

TEMPLATES = (
    Path(__file__).resolve().parents[2]
    / "scoring"
    / "prosody"
    / "data"
    / "cipai"
    / "cipai2info.json"
)


class Format:
    def __init__(self, name: str, template: str, repeat: int | None = None) -> None:
        self.name = name
        self.template = template
        self.repeat = repeat

    def gold(self) -> list[str]:
        parts = re.split(r"[ \t\n]", self.template.strip())
        if self.repeat:
            parts = parts * self.repeat
        return [p.strip() for p in parts]

    def ok(self, poem: str) -> bool:
        gold = self.gold()
        pred = [p.strip() for p in re.split(r"[ \t\n，。？！、,.?!]", poem.strip()) if p.strip()]
        if len(gold) != len(pred):
            multiples = [len(gold) * m for m in (2, 4, 8)]
            if len(pred) not in multiples:
                return False
            gold = gold * (len(pred) // len(gold))
        return all(len(p) == len(g) for p, g in zip(pred, gold, strict=False))


def _formats() -> dict[str, Format]:
    out = {
        "五言绝句": Format("五言绝句", "AAAAA", 4),
        "七言绝句": Format("七言绝句", "AAAAAAA", 4),
        "五言律诗": Format("五言律诗", "AAAAA", 8),
        "七言律诗": Format("七言律诗", "AAAAAAA", 8),
    }
    info = json.loads(TEMPLATES.read_text(encoding="utf-8"))
    for tune, entry in info.items():
        raw = entry["longyusheng_template"][0]["template"]
        kept = [s for s in re.split(r"[\t\n]", raw) if s.strip()]
        out[tune] = Format(tune, "\t".join(kept))
    return out


FORMATS = _formats()


def eval_single(tune: str, text: str) -> bool:
    """FuxiBench's verdict on one generation for one tune."""
    fmt = FORMATS.get(tune)
    if fmt is None:
        return False
    if "赏析：" in text:
        text = text.split("赏析：")[0]
    if "注：" in text:
        text = text.split("注：")[0]
    text = text.strip()
    first_cut = text[text.find("\n") + 1 :].strip()
    second_cut = first_cut[first_cut.find("\n") + 1 :].strip()
    return fmt.ok(text) or fmt.ok(first_cut) or fmt.ok(second_cut)
