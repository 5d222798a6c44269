"""Readings the held-out audit found wrong (issue 22; ``heldout_disagreements.tsv``), each
read by its 《广韵》 sense in the line it came from, with a control line where the other
reading is right.

* 髴 (髣髴): 《广韵》 敷勿切 物韵 only, 入声; the bundled 平水韵 lacked the graph, so it was
  read in its modern 平 (``tables.PINGSHUI_ADDED``).
* 重茵 (layered mats): 直容切 复也，叠也, 平.
* 令序 令典 (good season, fine statutes): 力政切 善也，法也, 仄 (太宗 韶光開令序).
* 客兴 (a traveller's mood): 许应切, 仄 (牟融 行囊歸客興, an unrhymed line end).
* 更生悲 (grief born again): 更 is 古孟切 再也, 仄; 更生 is no phrase of 更改 (a 三平尾 before).
* 龙藏 (the Buddhist canon): 徂浪切 库藏, 仄 (皎然 龍藏立言時).
"""

from __future__ import annotations

import pytest

from scoring.prosody import char_tones
from scoring.prosody.tones import FormFamily

CASES = [
    ("髣髴分初月", "髴", "仄"),
    ("片绣点重茵", "重", "平"),
    ("韶光開令序", "令", "仄"),
    ("類禋遵令典", "令", "仄"),
    ("行囊歸客興", "興", "仄"),
    ("悲後更生悲", "更", "仄"),
    ("龍藏立言時", "藏", "仄"),
    # controls: the other reading where the sense is the other one
    ("坐令鼻息吹虹霓", "令", "平"),  # 使也
    ("夜深殘雪更生寒", "更", "仄"),
    ("千山藏古寺", "藏", "平"),  # 隐藏
    ("中兴诸将", "兴", "平"),
    ("露重飞难进", "重", "仄"),
]


@pytest.mark.parametrize(("line", "char", "tone"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("family", ["shi", "ci"])
def test_the_held_out_readings(line: str, char: str, tone: str, family: FormFamily) -> None:
    found = [t for t in char_tones(line, form_family=family) if t.char == char]
    assert found and found[0].tone == tone, (line, char, found)
