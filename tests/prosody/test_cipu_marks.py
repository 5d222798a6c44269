"""Templates with their marks (issue 22 item 3).

CCiV's ``cipai2info.json`` ships 187 of its 245 钦定词谱 templates with the example poem's
own tones and no 可平可仄 (中) mark, so a poem judged against one is held to another poet's
every tone.  The platform's own modes give such a template the 中 marks of the 龙榆生 form
of its 体 (``marks``: ``borrowed:<id>``), or of a neighbouring 体's corresponding phrases
(``aligned:<id>:<k>/<n>``); the CCiV-literal mode keeps the templates as shipped.

Hand-checked poems (school-edition texts, tones read from 《词林正韵》):

* 岳飞《满江红·写怀》: 驾长车、踏破 printed 驾长车，踏破贺兰山缺 (3 + 6), which only the
  钦定词谱's 戴复古 体 (``qinding:2``: 后段 with 靖康耻 / 犹未雪 as two 3-character
  phrases) has; against its tones as CCiV ships them the poem scored 0.839, with the 龙榆生
  定格's marks it is 0.946: its 5 misses are 凭(栏处) 抬(望眼) 眼 仰 (犹)未, each a 平/仄
  position fixed in both books.  耻 stays a miss of the rhyme: 戴复古's 体 rhymes there
  (江上渡, 后段六仄韵), 岳飞 does not.
* 辛弃疾《水调歌头·盟鸥》: 窥鱼笑汝痴计，不解举吾杯 (6 + 5 where 龙榆生's 定格 has 4 + 7)
  fits only ``qinding:1``; 0.758 as CCiV ships it, 0.937 with the marks.
* 李清照《声声慢》 with its three 读 marks: tests/prosody/test_pauses.py, and below with
  each source.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cipu_validation import corpus_table, example_table
from test_pauses import SHENGSHENGMAN

from scoring.prosody import score_poem
from scoring.prosody.batch import score_rows
from scoring.prosody.explain import notes
from scoring.prosody.tables import cipai2info
from scoring.prosody.templates import load_cipai

DATA = Path(__file__).resolve().parents[2] / "scoring" / "prosody" / "data" / "cipai"

MANJIANGHONG = (
    "怒发冲冠，凭栏处、潇潇雨歇。抬望眼、仰天长啸，壮怀激烈。三十功名尘与土，八千里路云和月。"
    "莫等闲、白了少年头，空悲切。\n靖康耻，犹未雪。臣子恨，何时灭！驾长车，踏破贺兰山缺。"
    "壮志饥餐胡虏肉，笑谈渴饮匈奴血。待从头、收拾旧山河，朝天阙。"
)
MENGOU = (
    "带湖吾甚爱，千丈翠奁开。先生杖屦无事，一日走千回。凡我同盟鸥鹭，今日既盟之后，"
    "来往莫相猜。白鹤在何处，尝试与偕来。\n破青萍，排翠藻，立苍苔。窥鱼笑汝痴计，"
    "不解举吾杯。废沼荒丘畴昔，明月清风此夜，人世几欢哀。东岸绿阴少，杨柳更须栽。"
)


def _raw(name: str, key: str, i: int) -> str:
    """A template's symbols as the JSON file has them (separators dropped)."""
    data = json.loads((DATA / "cipai2info.json").read_text(encoding="utf-8"))
    return re.sub(r"\s", "", data[name][key][i]["template"])


def test_the_literal_templates_are_the_shipped_ones_and_187_are_unmarked() -> None:
    unmarked = 0
    for name in cipai2info():
        lit = load_cipai(name, literal=True)
        assert lit is not None
        for t in lit.templates:
            key, i = t.id.split(":")
            raw = _raw(name, "qinding_templates" if key == "qinding" else f"{key}_template", int(i))
            assert t.tones == raw
            unmarked += key == "qinding" and "中" not in raw
    assert unmarked == 187


def test_every_unmarked_template_borrows_or_says_it_has_no_marks() -> None:
    kinds: dict[str, int] = {}
    for name in cipai2info():
        own, lit = load_cipai(name), load_cipai(name, literal=True)
        assert own is not None and lit is not None
        for t, u in zip(own.templates, lit.templates, strict=True):
            # marks only added: every fixed tone of the platform's template is the book's
            assert all(a == b or a == "中" for a, b in zip(t.tones, u.tones, strict=True))
            if t.source == "钦定词谱" and "中" not in u.tones:
                kind = t.marks.split(":")[0]
                kinds[kind] = kinds.get(kind, 0) + 1
                assert ("中" in t.tones) == (kind != "absent")
            else:
                assert t.marks == "original" and t.tones == u.tones
    assert sum(kinds.values()) == 187 and kinds["borrowed"] >= 30 and kinds["absent"] <= 40


def test_a_same_ti_template_takes_the_longyusheng_marks_position_by_position() -> None:
    # 水调歌头 qinding:2 (苏轼's 体, CCiV ships no 中) has 龙榆生's 定格's phrases and rhymes
    t = next(t for t in load_cipai("水调歌头").templates if t.id == "qinding:2")  # type: ignore[union-attr]
    assert t.marks == "borrowed:longyusheng:0"
    own, donor = (
        _raw("水调歌头", "qinding_templates", 2),
        _raw("水调歌头", "longyusheng_template", 0),
    )
    expected = "".join("中" if d == "中" else c for c, d in zip(own, donor, strict=True))
    assert t.tones == expected and t.tones != own


def test_yue_fei_manjianghong_school_edition() -> None:
    s = score_poem(MANJIANGHONG, "ci:满江红")
    t = s.diagnostics["template"]
    assert (t["id"], t["source"], t["marks"]) == (
        "qinding:2",
        "钦定词谱",
        "aligned:longyusheng:0:93/93",
    )
    assert s.metrics["structural"] == 1.0
    assert s.metrics["tonal"] == pytest.approx(88 / 93)
    misses = [
        (k, ln["mismatches"]) for k, ln in enumerate(s.diagnostics["lines"]) if ln["mismatches"]
    ]
    assert misses == [(1, [0]), (3, [0, 2]), (4, [0]), (12, [1])]
    assert s.metrics["rhyme"] == pytest.approx(0.9)  # 耻 at 戴复古's rhyme (江上渡)
    assert s.diagnostics["template_source"] == {"asked": "best"}
    # the literal mode keeps the template as shipped (and CCiV's 3 + 6 split fits nothing)
    lit = score_poem(MANJIANGHONG, "ci:满江红", ccv_compatible=True)
    assert "template_source" not in lit.diagnostics


def test_a_broken_manjianghong_fails_where_it_should() -> None:
    # 冲 (平) -> 竖 (仄) where both books fix 平 (怒发冲冠: 中仄平平)
    s = score_poem(MANJIANGHONG.replace("冲冠", "竖冠"), "ci:满江红")
    assert s.diagnostics["lines"][0]["mismatches"] == [2]
    assert s.metrics["tonal"] == pytest.approx(87 / 93)


def test_xin_qiji_mengou_and_each_source() -> None:
    best = score_poem(MENGOU, "ci:水调歌头")
    assert best.diagnostics["template"]["id"] == "qinding:1"
    assert best.diagnostics["template"]["marks"].startswith("aligned:longyusheng:0")
    assert best.metrics["tonal"] == pytest.approx(89 / 95)
    lit = score_poem(MENGOU, "ci:水调歌头", ccv_compatible=True)
    assert lit.metrics["tonal_variant"] == pytest.approx(72 / 95)  # as CCiV ships it
    assert score_poem(MENGOU, "ci:水调歌头", cipu_source="qinding").metrics == best.metrics
    # 龙榆生 has no 上六下五 form of this 过片 line: no fit, the nearest is one of his
    lys = score_poem(MENGOU, "ci:水调歌头", cipu_source="longyusheng")
    assert lys.metrics["structural"] == 0.0
    near = lys.diagnostics["nearest"]
    assert near["source"] == "龙榆生" and near["considered"] == 3
    assert [d["op"] for d in near["diff"]] == ["moved"]


def test_a_broken_mengou_fails_where_it_should() -> None:
    s = score_poem(MENGOU.replace("翠奁", "翠匣"), "ci:水调歌头")  # 奁 平 -> 匣 入声
    assert s.diagnostics["lines"][1]["mismatches"] == [3]


def test_shengshengman_with_du_marks_under_each_source() -> None:
    for source in ("best", "longyusheng"):
        s = score_poem(SHENGSHENGMAN, "ci:声声慢", cipu_source=source)
        assert s.diagnostics["template"]["id"] == "longyusheng:0"
        assert s.metrics["structural"] == 1.0 and s.metrics["rhyme"] == 1.0
    q = score_poem(SHENGSHENGMAN, "ci:声声慢", cipu_source="qinding")
    assert q.diagnostics["template"] is None or q.diagnostics["template"]["source"] == "钦定词谱"


def test_a_cipai_without_qinding_templates_says_so() -> None:
    s = score_poem("春花秋月何时了，往事知多少。", "ci:虞美人", cipu_source="qinding")
    assert s.diagnostics["template_source"]["asked"] == "qinding"
    t = score_poem("一\n二", "ci:浪淘沙令", cipu_source="qinding")
    assert "no 钦定词谱 template" in t.diagnostics["template_source"]["note"]


def test_an_unknown_source_is_refused() -> None:
    with pytest.raises(ValueError, match="cipu_source"):
        score_poem(MENGOU, "ci:水调歌头", cipu_source="wanshu")  # type: ignore[arg-type]


PUBLISHED = Path(__file__).parent / "data" / "cipu_sources.json"


def test_example_poems_score_their_own_templates() -> None:
    # goal 1.0: each template's own example, classical reading (docs/prosody.md §3.1)
    table = example_table()
    assert table == json.loads(PUBLISHED.read_text("utf-8"))["examples"]
    for label, row in table.items():
        assert row["mean"] >= 0.98, label
        if not label.endswith("(as CCiV ships it)"):
            shipped = table[f"{label} (as CCiV ships it)"]
            assert row["mean"] >= shipped["mean"] and row["n"] == shipped["n"]


@pytest.mark.slow
def test_song_ci_table_as_published() -> None:
    # docs/prosody.md §3.1, second table (about two minutes)
    assert corpus_table() == json.loads(PUBLISHED.read_text("utf-8"))["song_ci"]


def test_the_notes_name_where_the_marks_come_from() -> None:
    said = notes(score_poem(MANJIANGHONG, "ci:满江红").diagnostics)
    assert said[0].startswith("template: qinding:2 (钦定词谱 双调九十三字")
    assert "龙榆生's longyusheng:0" in said[0] and "93/93" in said[0]
    # a template with its own marks needs no note
    assert not any(
        n.startswith("template:") for n in notes(score_poem(SHENGSHENGMAN, "ci:声声慢").diagnostics)
    )


def test_the_batch_tool_takes_the_source() -> None:
    rows = [{"id": "mengou", "text": MENGOU, "form": "ci:水调歌头"}]
    best = next(score_rows(rows))
    lys = next(score_rows(rows, cipu_source="longyusheng"))
    assert (best["structural"], lys["structural"]) == (1.0, 0.0)
