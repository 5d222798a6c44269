"""Probe (issue 22): a rhyme character the simplified 平水韵 file lost to a merge (蘋 → 苹).

Found by scoring 刘长卿《饯别王十一南游》 (五律, 上平十一真: 巾人春蘋): 蘋 (白蘋, 《广韵》
符真切, 真韵) was looked up as its simplified form 苹, which the bundled file lists only under
下平八庚 (苹, 符兵切, 庚韵), so the last rhyme read as 出韵 (rhyme 0.75) in both copies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.prosody import score_poem

PINGSHUI = Path(__file__).resolve().parents[2] / "scoring/prosody/data/rhyme/Pingshui_Rhyme.json"

TRAD = (
    "望君煙水闊，揮手淚霑巾。飛鳥沒何處，青山空向人。"
    "長江一帆遠，落日五湖春。誰見汀洲上，相思愁白蘋。"
)
SIMP = (
    "望君烟水阔，挥手泪沾巾。飞鸟没何处，青山空向人。"
    "长江一帆远，落日五湖春。谁见汀洲上，相思愁白苹。"
)


def test_the_file_lost_pin() -> None:
    # the gap itself, read from the bundled file: 苹 under 八庚 only, 蘋 nowhere
    book = json.loads(PINGSHUI.read_text(encoding="utf-8"))
    where = {
        (section, name)
        for section, rhymes in book.items()
        for name, chars in rhymes.items()
        if "苹" in chars
    }
    assert where == {("下平声部", "八庚")}
    assert not any("蘋" in chars for rhymes in book.values() for chars in rhymes.values())
    assert all(c in book["上平声部"]["十一真"] for c in "巾人春")


@pytest.mark.parametrize("text", [TRAD, SIMP], ids=["traditional", "simplified"])
def test_bai_pin_rhymes_in_zhen(text: str) -> None:
    s = score_poem(text, None)
    (rs,) = s.diagnostics["rhyme"]["sets"]
    assert s.form == "shi:lushi5" and rs["group"] == "上平十一真"
    assert rs["ok"] == [True, True, True, True]
    assert s.metrics["rhyme"] == 1.0 and s.metrics["faults"] == 1.0


def test_copies_alike() -> None:
    assert score_poem(TRAD, None).metrics == score_poem(SIMP, None).metrics


def test_broken_copy_ping_misses() -> None:
    # 萍 is 下平九青 only: 出韵
    s = score_poem(SIMP.replace("白苹", "白萍"), None)
    (rs,) = s.diagnostics["rhyme"]["sets"]
    assert rs["group"] == "上平十一真" and rs["ok"] == [True, True, True, False]
    assert s.metrics["rhyme"] == pytest.approx(0.75)
