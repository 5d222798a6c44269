"""Apparatus around the poem (titles, authors, notes) and traditional input."""

from __future__ import annotations

from prosody_poems import CHUNWANG, CHUNWANG_TRAD, RUMENGLING

from scoring.prosody import score_poem
from scoring.prosody.normalize import split_lines, strip_apparatus


def test_title_author_and_notes_are_stripped_and_reported() -> None:
    text = (
        "《如梦令·昨夜雨疏风骤》\n宋·李清照\n"
        + RUMENGLING.replace("知否，知否？", "知否（一作“知否”），知否？")
        + "\n注释：\n1.雨疏风骤：雨点稀疏，晚风急猛。\n2.浓睡：酣睡。"
    )
    s = score_poem(text, "ci:如梦令")
    assert s.metrics == score_poem(RUMENGLING, "ci:如梦令").metrics
    stripped = s.diagnostics["stripped"]
    assert stripped["header"] == ["《如梦令·昨夜雨疏风骤》", "宋·李清照"]
    assert stripped["notes"][0].startswith("注释：")
    assert stripped["brackets"] == ["（一作“知否”）"]


def test_cipai_name_line_and_labelled_author_line() -> None:
    text = "如梦令\n作者：李清照\n" + RUMENGLING + "\n【赏析】这首词写惜春之情。"
    s = score_poem(text, "ci:如梦令")
    assert s.metrics["structural_standard"] == 1.0
    assert s.diagnostics["stripped"]["header"] == ["如梦令", "作者：李清照"]


def test_bare_title_then_author_name() -> None:
    body = strip_apparatus(
        "水调歌头·明月几时有\n苏轼\n明月几时有？把酒问青天。", frozenset({"水调歌头"})
    )
    assert body.header == ["水调歌头·明月几时有", "苏轼"]
    assert split_lines(body.body) == ["明月几时有", "把酒问青天"]


def test_form_detected_from_a_cipai_title_when_not_given() -> None:
    s = score_poem("如梦令\n" + RUMENGLING, None)
    assert s.form == "ci:如梦令" and s.metrics["structural"] == 1.0


def test_traditional_input_scores_like_simplified() -> None:
    for system in ("modern", "classical"):
        trad = score_poem(CHUNWANG_TRAD, "shi:lushi5", tone_system=system)  # type: ignore[arg-type]
        simp = score_poem(CHUNWANG, "shi:lushi5", tone_system=system)  # type: ignore[arg-type]
        assert trad.metrics == simp.metrics
        assert trad.diagnostics["pattern"] == simp.diagnostics["pattern"]
        assert trad.diagnostics["lines"][0]["simplified"] == "国破山河在"


def test_separators_and_dropped_symbols() -> None:
    # Punctuation and whitespace break lines; Latin letters and digits vanish in place.
    assert split_lines("明月a几时有？把酒 问青天") == ["明月几时有", "把酒", "问青天"]


def test_bundled_traditional_tang_poems_score_like_their_simplified_text() -> None:
    # data/corpus/tang_300.json is in traditional characters (國破山河在 …).
    import json
    from pathlib import Path

    from prosody_poems import DENG_GUANQUELOU

    path = Path(__file__).resolve().parents[2] / "data" / "corpus" / "tang_300.json"
    poems = {p["title"]: "".join(p["paragraphs"]) for p in json.loads(path.read_text("utf-8"))}
    for title, simplified, form in (
        ("春望", CHUNWANG, "shi:lushi5"),
        ("登鸛雀樓", DENG_GUANQUELOU, "shi:jueju5"),
    ):
        for system in ("modern", "classical"):
            trad = score_poem(poems[title], None, tone_system=system)  # type: ignore[arg-type]
            simp = score_poem(simplified, form, tone_system=system)  # type: ignore[arg-type]
            assert trad.form == form
            assert trad.metrics == simp.metrics


def test_unmarked_title_and_author_lines_are_dropped_only_when_the_poem_then_fits() -> None:
    # "春望 / 杜甫" carry no marks; without them the text is a 五律, with them it is not.
    text = "春望\n杜甫\n" + CHUNWANG
    s = score_poem(text, None)
    assert s.form == "shi:lushi5" and s.metrics["structural"] == 1.0
    assert s.diagnostics["stripped"]["header"] == ["春望", "杜甫"]


def test_a_first_poem_line_that_is_also_a_cipai_alias_is_kept() -> None:
    # 江南好 is an alias of 忆江南 but here it is the poem's first line.
    text = "忆江南\n江南好\n风景旧曾谙。日出江花红胜火，春来江水绿如蓝。能不忆江南？"
    s = score_poem(text, "ci:忆江南")
    assert s.metrics["structural_standard"] == 1.0
    assert s.diagnostics["stripped"]["header"] == ["忆江南"]
