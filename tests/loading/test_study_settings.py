"""A study file's volunteer-facing settings (authors, time, completion URL, listing) and
its rating scales' point labels: read as written, refused with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from studies.models import Study, Task

pytestmark = pytest.mark.django_db

STUDY = """\
slug: s
title: 评分
groups:
  - {slug: A, name: 甲}
settings:
  hide_authors: false
  estimated_minutes: 7
  completion_url: "https://app.prolific.com/submissions/complete?cc={code}"
tasks:
  - slug: rate
    title: 评分
    kind: rating
    dimensions:
      - key: beauty
        label: 美感
        min: 1
        max: 5
        labels: {"1": 很差, "5": 很好}
      - key: form
        label: 格律
        min: 1
        max: 3
        labels: [不合, 基本合, 全合]
"""


def load(tmp_path: Path, text: str) -> str:
    path = tmp_path / "study.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        call_command("load_study", str(path))
    except CommandError as exc:
        return str(exc).replace(str(path), "study.yaml")
    return ""


def test_settings_and_scale_labels_load_as_written(tmp_path: Path) -> None:
    assert load(tmp_path, STUDY) == ""
    study = Study.objects.get()
    assert (study.hide_authors, study.estimated_minutes) == (False, 7)
    assert study.completion_url == "https://app.prolific.com/submissions/complete?cc={code}"
    beauty, form = Task.objects.get().dimensions
    assert beauty["labels"] == {"1": "很差", "5": "很好"}
    assert form["labels"] == {"1": "不合", "2": "基本合", "3": "全合"}  # one per point


def test_unset_settings_are_null_and_a_reload_without_them_keeps_them(tmp_path: Path) -> None:
    load(tmp_path, STUDY)
    assert load(tmp_path, STUDY.replace("  hide_authors: false\n", "")) == ""
    assert Study.objects.get().hide_authors is False  # unchanged: the file no longer says
    assert load(tmp_path, STUDY.replace("hide_authors: false", "hide_authors: null")) == ""
    assert Study.objects.get().hide_authors is None  # null: each kind's default


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (
            "hide_authors: false",
            "hide_authors: sometimes",
            "study.yaml, line 6, field 'settings.hide_authors': must be true, false or null",
        ),
        (
            "estimated_minutes: 7",
            "estimated_minutes: 0",
            "study.yaml, line 7, field 'settings.estimated_minutes': must be a whole number ≥ 1, "
            "or null",
        ),
        (
            '"https://app.prolific.com/submissions/complete?cc={code}"',
            "javascript:alert(1)",
            "study.yaml, line 8, field 'settings.completion_url': must be an http:// or "
            "https:// address",
        ),
        (
            "cc={code}",
            "cc={completion}",
            "study.yaml, line 8, field 'settings.completion_url': unknown placeholder "
            "{completion} (known: {code}, {PROLIFIC_PID}, {STUDY_ID}, {SESSION_ID}, {pid})",
        ),
        (
            'labels: {"1": 很差, "5": 很好}',
            'labels: {"1": 很差, "6": 很好}',
            "study.yaml, line 18, field 'tasks[0].dimensions[0].labels.6': '6' is not a point "
            "of 1–5",
        ),
        (
            "labels: [不合, 基本合, 全合]",
            "labels: [不合, 全合]",
            "study.yaml, line 23, field 'tasks[0].dimensions[1].labels': has 2 labels; give one "
            "per point of 1–3 (3), or an object naming some points",
        ),
        (
            'labels: {"1": 很差, "5": 很好}',
            'labels: {"1": "", "5": 很好}',
            "study.yaml, line 18, field 'tasks[0].dimensions[0].labels.1': must be a non-empty "
            "text",
        ),
        (
            "labels: [不合, 基本合, 全合]",
            "labels: 很好",
            "study.yaml, line 23, field 'tasks[0].dimensions[1].labels': must be a list of one "
            "label per point, or an object {point: label}",
        ),
    ],
)
def test_a_bad_setting_or_label_is_refused_at_its_line(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    assert old in STUDY
    message = load(tmp_path, STUDY.replace(old, new))
    assert message.splitlines() == ["1 problem found; nothing was loaded.", problem]
    assert not Study.objects.exists()
