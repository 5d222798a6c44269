"""A study's 词谱 source (its ``cipu_source`` setting) reaches its rule raters: stored
scores use it, their run names it when it is not the default (changing it scores the poems
again), a bad one is refused at its line (issue 22 item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.models import Rater, Response
from scoring.prosody import RULES_VERSION
from scoring.report.prereg import design
from scoring.rules import rule_scores_compute
from studies.models import Item, Study, Task
from tests.present import present
from tests.scoring_app.study_file import load_study_text

pytestmark = pytest.mark.django_db

STUDY = """\
slug: s
title: 格律
groups:
  - {slug: A, name: 甲}
settings:
  rule_raters: [classical, ccv]
%s
tasks:
  - slug: rate
    title: 评分
    kind: rating
    dimensions:
      - {key: form, label: 格律, min: 1, max: 5}
"""
# 辛弃疾《水调歌头·盟鸥》: 窥鱼笑汝痴计，不解举吾杯 breaks 6 + 5, which only a 钦定词谱 体 has
MENGOU = (
    "带湖吾甚爱，千丈翠奁开。先生杖屦无事，一日走千回。凡我同盟鸥鹭，今日既盟之后，"
    "来往莫相猜。白鹤在何处，尝试与偕来。\n破青萍，排翠藻，立苍苔。窥鱼笑汝痴计，"
    "不解举吾杯。废沼荒丘畴昔，明月清风此夜，人世几欢哀。东岸绿阴少，杨柳更须栽。"
)


def load(tmp_path: Path, extra: str) -> str:
    return load_study_text(tmp_path, STUDY % extra)


def _structural(study: Study) -> dict[str, tuple[float, str]]:
    item = Item.objects.create(
        study=study,
        task=Task.objects.get(study=study),
        external_id="p1",
        poem_text=MENGOU,
        poem_form="ci:水调歌头",
    )
    rule_scores_compute(study=study)
    out = {}
    for r in Response.objects.filter(item=item, field="structural", rater__kind="rule"):
        rater = Rater.objects.get(pk=r.rater_id)
        out[rater.name] = (present(r.value), rater.run)
    return out


def test_by_default_the_better_fit_of_both_books(tmp_path: Path) -> None:
    assert load(tmp_path, "") == ""
    study = Study.objects.get(slug="s")
    assert study.cipu_source == "best"
    assert _structural(study) == {
        "prosody:classical": (1.0, RULES_VERSION),
        "prosody:ccv": (1.0, RULES_VERSION),
    }


def test_the_study_source_reaches_the_stored_scores(tmp_path: Path) -> None:
    assert load(tmp_path, "  cipu_source: longyusheng") == ""
    study = Study.objects.get(slug="s")
    assert study.cipu_source == "longyusheng"
    # 龙榆生 has no 6 + 5 form of that line: no fit; the CCiV-literal rater ignores the source
    assert _structural(study) == {
        "prosody:classical": (0.0, RULES_VERSION + "+longyusheng"),
        "prosody:ccv": (1.0, RULES_VERSION + "+longyusheng"),
    }


def test_a_bad_source_is_refused_at_its_line(tmp_path: Path) -> None:
    message = load(tmp_path, "  cipu_source: wanshu")
    assert "cipu_source" in message and "qinding" in message
    assert not Study.objects.filter(slug="s").exists()


def test_the_plan_design_names_a_source_other_than_the_default(tmp_path: Path) -> None:
    # a plan frozen before the setting existed shows no deviation while it stays `best`
    assert load(tmp_path, "") == ""
    assert "cipu_source" not in design(Study.objects.get(slug="s"))
    Study.objects.filter(slug="s").update(cipu_source="qinding")
    assert design(Study.objects.get(slug="s"))["cipu_source"] == "qinding"
