"""Couplets: length and segmentation, tone opposition, endings."""

from __future__ import annotations

import pytest

from scoring.prosody import score_poem


def test_haineicunzhiji_is_fully_opposed() -> None:
    # 海内存知己 仄仄平平仄 / 天涯若比邻 平平仄仄平: every position opposed;
    # the first line ends 仄 (己), the second 平 (邻).  Same in both tone systems.
    for system in ("modern", "classical"):
        s = score_poem("海内存知己，天涯若比邻", "couplet", tone_system=system)  # type: ignore[arg-type]
        assert s.metrics == {"length": 1.0, "tone_opposition": 1.0, "ending": 1.0}


def test_tian_dui_di_weights_the_segment_end() -> None:
    # 天对地 / 雨对风: 天/雨 opposed (weight 1), 对/对 same (weight 2, even position),
    # 地/风 opposed (weight 3, segment end): (1 + 3) / 6.
    s = score_poem("天对地\n雨对风", "couplet")
    assert s.metrics["tone_opposition"] == pytest.approx(4 / 6)
    assert s.diagnostics["unopposed"] == [1]
    assert s.metrics["ending"] == 1.0


def test_lengths_differ() -> None:
    s = score_poem("海内存知己，天涯若比邻居", "couplet")
    assert s.metrics["length"] == 0.0 and s.metrics["tone_opposition"] == 0.0


def test_segmentation_must_match_not_only_the_total() -> None:
    # 顾宪成's couplet, 7+4 characters on each side: same segmentation.
    good = score_poem("风声雨声读书声，声声入耳\n家事国事天下事，事事关心", "couplet")
    assert good.metrics["length"] == 1.0
    # Moving the first comma gives 4+7 against 7+4: equal totals, different segmentation.
    bad = score_poem("风声雨声，读书声声声入耳\n家事国事天下事，事事关心", "couplet")
    assert bad.metrics["length"] == 0.0
    assert bad.diagnostics["lines"][0]["segments"] == [4, 7]
    assert bad.metrics["tone_opposition"] is not None and bad.metrics["tone_opposition"] > 0


def test_both_lines_ending_level() -> None:
    # 天涯若比邻 ends 平 (should be 仄); 海内存知音 ends 音 平 (right): half marks.
    s = score_poem("天涯若比邻；海内存知音", "couplet")
    assert s.metrics["ending"] == 0.5
    assert s.diagnostics["ending"] == {"first_ends_ze": False, "second_ends_ping": True}


def test_labels_are_stripped() -> None:
    s = score_poem("上联：海内存知己\n下联：天涯若比邻", "couplet")
    assert s.metrics == {"length": 1.0, "tone_opposition": 1.0, "ending": 1.0}


def test_one_line_only_is_a_diagnostic() -> None:
    s = score_poem("海内存知己", "couplet")
    assert s.diagnostics["error"] == "could not find two lines"
    assert all(v is None for v in s.metrics.values())
