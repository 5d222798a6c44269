"""A study's reading overrides (its ``reading_overrides`` setting) reach its rule raters:
stored scores use them, their run names them (changing them scores the poems again), a
bad one is refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Rater, Response
from scoring.prosody import RULES_VERSION
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
  rule_raters: [classical]
%s
tasks:
  - slug: rate
    title: 评分
    kind: rating
    dimensions:
      - {key: form, label: 格律, min: 1, max: 5}
"""
# 王维《送梓州李使君》: 树杪百重泉 -- 重 chóng; read zhòng it is a (false) 孤平
ZIZHOU = (
    "万壑树参天，千山响杜鹃。山中一夜雨，树杪百重泉。"
    "汉女输橦布，巴人讼芋田。文翁翻教授，不敢倚先贤。"
)


def load(tmp_path: Path, extra: str) -> str:
    return load_study_text(tmp_path, STUDY % extra)


def _faults(study: Study) -> tuple[float, str]:
    item = Item.objects.create(
        study=study, task=Task.objects.get(study=study), external_id="p1", poem_text=ZIZHOU
    )
    rule_scores_compute(study=study)
    r = Response.objects.get(item=item, field="faults", rater__kind="rule")
    return present(r.value), Rater.objects.get(pk=r.rater_id).run


def test_without_overrides_the_table_reads_chong(tmp_path: Path) -> None:
    assert load(tmp_path, "") == ""
    value, run = _faults(Study.objects.get(slug="s"))
    assert value == 1.0 and run == RULES_VERSION


def test_the_study_overrides_reach_the_stored_scores(tmp_path: Path) -> None:
    assert load(tmp_path, '  reading_overrides: {"重": "zhong4"}') == ""
    study = Study.objects.get(slug="s")
    assert study.reading_overrides == {"重": "zhong4"}
    value, run = _faults(study)
    assert value < 1.0 and run.startswith(RULES_VERSION + "+r")


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ('  reading_overrides: {"重": "heavy"}', "重"),
        ('  reading_overrides: {"百重": "平"}', "单个汉字"),  # zh-Hans first
        ("  reading_overrides: [重]", "对象"),
    ],
)
def test_a_bad_override_is_refused_at_its_line(tmp_path: Path, extra: str, said: str) -> None:
    message = load(tmp_path, extra)
    assert "reading_overrides" in message and said in message
    assert not Study.objects.filter(slug="s").exists()


def test_the_admin_field_refuses_a_bad_value_too() -> None:
    study = Study(slug="t", title="t", reading_overrides={"重": "zhong"})
    with pytest.raises(ValidationError):
        study.full_clean(exclude=["researchers"])
