"""Tones: context, the two tone systems, ambiguity, positions."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.prosody import char_tones
from scoring.prosody.pinyin import modern_tone, tone3


def _unknown(chars: str) -> Any:
    """One "?" per character pypinyin cannot read (it takes a list; its stubs say str)."""
    return ["?"] * len(chars)


def _tones(line: str, **kw: str) -> str:
    return "".join(ct.tone for ct in char_tones(line, **kw))  # type: ignore[arg-type]


def test_modern_convention_maps_tones_one_two_and_neutral_to_level() -> None:
    # 中华新韵 as in CCiV: 1, 2 and neutral are 平; 3 and 4 are 仄.
    assert [modern_tone(p) for p in ("ma1", "ma2", "ma3", "ma4", "ma5")] == [
        "平",
        "平",
        "仄",
        "仄",
        "平",
    ]
    assert tone3("lǜ") == "lv4" and tone3("cháng") == "chang2" and tone3("de") == "de5"


def test_polyphone_chang_read_in_context() -> None:
    # pypinyin reads 长安 as cháng'ān (平) and 长大 as zhǎngdà (仄): checked with pypinyin 0.55.
    an = char_tones("长安", tone_system="modern")[0]
    da = char_tones("长大", tone_system="modern")[0]
    assert (an.pinyin, an.tone) == ("chang2", "平")
    assert (da.pinyin, da.tone) == ("zhang3", "仄")
    # 长 has readings of both tones, so the modern system reports it ambiguous either way.
    assert an.ambiguous and da.ambiguous and an.mark == "中"
    # The classical system (the default) decides it by the set phrase (the reading table).
    classical = char_tones("长安")[0]
    assert (classical.tone, classical.ambiguous, classical.decided_by) == (
        "平",
        False,
        "phrase:长安",
    )


def test_polyphone_chong_in_chongyang() -> None:
    # 重阳 is chóngyáng (平), although 重's first reading is zhòng (仄).
    cts = char_tones("九月九日重阳节")
    assert (cts[4].char, cts[4].pinyin, cts[4].tone) == ("重", "chong2", "平")


def test_classical_tables_make_entering_tone_characters_oblique() -> None:
    # 白 bái and 一 yī are modern level tones but 入声 (so 仄) in 平水韵 and 词林正韵.
    assert _tones("白日依山尽", tone_system="modern") == "平仄平平仄"
    assert _tones("白日依山尽", tone_system="classical", form_family="shi") == "仄仄平平仄"
    assert char_tones("一", tone_system="classical", form_family="ci")[0].tone == "仄"
    assert char_tones("白", tone_system="classical")[0].source == "词林正韵"


def test_table_duo_characters_are_ambiguous_and_keep_their_contextual_reading() -> None:
    # 看 is 多 (kān 平 / kàn 仄) in 平水韵; the reading in context decides the strict tone.
    kan = char_tones("看", tone_system="classical", form_family="shi")[0]
    assert kan.ambiguous and kan.tone == "仄" and kan.fits("平", lenient=True)
    assert kan.fits("平") is False


def test_word_tune_quirk_both_tones_in_pingshui_count_as_ambiguous() -> None:
    # Word_Tune.json says 空 is 仄, but 平水韵 lists 空 under 一东 (平) and 一送/一董 (仄).
    kong = char_tones("空", tone_system="classical", form_family="shi")[0]
    assert kong.ambiguous and kong.tone == "平"


def test_non_chinese_characters_never_take_a_position() -> None:
    cts = char_tones("a明□月 12几时有？")
    assert "".join(ct.char for ct in cts) == "明□月几时有"
    assert cts[1].tone == "?" and cts[1].source == "placeholder"


def test_supplementary_plane_character_counts_once() -> None:
    # 𪖙 (U+2A599) is one code point and one position.
    assert len(char_tones("𪖙花")) == 2


def test_traditional_characters_read_like_simplified() -> None:
    trad = char_tones("長安國破", tone_system="classical", form_family="shi")
    simp = char_tones("长安国破", tone_system="classical", form_family="shi")
    assert [c.char for c in trad] == list("長安國破")
    assert [(c.tone, c.pinyin, c.ambiguous) for c in trad] == [
        (c.tone, c.pinyin, c.ambiguous) for c in simp
    ]


def test_neutral_tone_in_context_falls_back_to_a_toned_reading() -> None:
    # pypinyin reads 生子 as shēng zi (neutral); verse has no neutral tone: 子 is zǐ, 仄.
    zi = char_tones("生子当如孙仲谋")[1]
    assert (zi.pinyin, zi.tone) == ("zi3", "仄")


def test_char_tone_to_dict_is_plain_data() -> None:
    d = char_tones("天", tone_system="modern")[0].to_dict()
    assert d == {
        "char": "天",
        "tone": "平",
        "mark": "平",
        "ambiguous": False,
        "pinyin": "tian1",
        "source": "pypinyin",
    }


def test_segmented_cached_reading_equals_pypinyin_on_whole_lines() -> None:
    # lines_pinyin converts pypinyin's own segments through a cache; it must give exactly
    # what lazy_pinyin gives on the whole line (checked here on the first 300 Song ci).
    import json
    from pathlib import Path

    from pypinyin import Style, lazy_pinyin

    from scoring.prosody.normalize import split_lines
    from scoring.prosody.pinyin import clear_line_cache, lines_pinyin, tone3

    corpus = Path(__file__).resolve().parents[2] / "data" / "corpus" / "song_ci_30cipai.jsonl"
    clear_line_cache()
    for raw in corpus.read_text(encoding="utf-8").splitlines()[:300]:
        lines = split_lines(json.loads(raw)["text"])
        ours = lines_pinyin(lines)
        for line, got in zip(lines, ours, strict=True):
            raw_out = lazy_pinyin(line, style=Style.TONE, errors=_unknown)
            want = [tone3(p) for p in raw_out]
            # Neutral readings and the sandhi of 不/一 are replaced on purpose (see
            # pinyin._no_neutral): those positions must hold the citation tone.
            citation = {"不": "bu4", "一": "yi1"}
            for ch, g, w in zip(line, got, want, strict=True):
                if ch in citation and w[:-1] == citation[ch][:-1]:
                    assert g == citation[ch]
                elif not w.endswith("5"):
                    assert g == w


@pytest.mark.slow
def test_segmenter_port_equals_pypinyin_segmenter() -> None:
    # pinyin._segment computes pypinyin's own segmentation (simpleseg.seg: Chinese runs cut
    # by forward maximum matching) faster; on every bundled text, as written and simplified,
    # whole and as the scorer joins its lines, it must return exactly pypinyin's segments.
    import json
    from pathlib import Path

    from pypinyin.seg.simpleseg import seg as pypinyin_seg

    from scoring.prosody.normalize import split_lines, to_simplified
    from scoring.prosody.pinyin import _segment

    corpus = Path(__file__).resolve().parents[2] / "data" / "corpus"
    texts = [
        json.loads(x)["text"]
        for x in (corpus / "song_ci_30cipai.jsonl").read_text(encoding="utf-8").splitlines()
        if x
    ]
    tang = json.loads((corpus / "tang_300.json").read_text(encoding="utf-8"))
    texts += ["\n".join(p["paragraphs"]) for p in tang]
    # edge cases: empty, no Chinese, 〇, placeholders, extension B, a prefix run with no
    # phrase at the end of a run (pypinyin then emits each character alone)
    texts += ["", "abc", "〇〇年", "□□中国人□", "\U00020000\U00020001a中", "重重叠叠", "一一"]
    checked = 0
    for text in texts:
        simp = to_simplified(text)
        for s in (text, simp, "\n".join(split_lines(simp))):
            assert _segment(s) == list(pypinyin_seg(s)), s[:40]
            checked += 1
    assert checked == 3 * (10707 + len(tang) + 7)
