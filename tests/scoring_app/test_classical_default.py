"""Classical tones are the default of the project's interfaces for a study that says
nothing (issue 22, item 6): stored rule scores, the poem page, the dashboard's preferred
rule metric, the researcher API's rule raters and ``manage.py prosody``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Rater
from scoring.rules import default_tone_system, study_rule_raters
from studies.models import Item

pytestmark = pytest.mark.django_db
POEM = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"


def test_a_study_that_says_nothing_scores_and_shows_classical_tones(
    example_study,
    client,
    django_user_model,
) -> None:
    assert example_study.rule_raters[0] == "classical"  # the study file names none
    assert study_rule_raters(example_study)[0] == "classical"
    assert default_tone_system(example_study) == "classical"
    call_command("score_poems", example_study.slug)
    names = set(
        Rater.objects.filter(study=example_study, kind="rule").values_list("name", flat=True)
    )
    assert "prosody:classical" in names
    item = Item.objects.filter(study=example_study).exclude(poem_text="").first()
    assert item is not None
    user = django_user_model.objects.create_user("r", password="pw")
    example_study.researchers.add(user)
    client.force_login(user)
    page = client.get(reverse("research:poem", args=[item.pk]))
    assert page.context["tone_system"] == "classical"
    modern = client.get(reverse("research:poem", args=[item.pk]), {"tones": "modern"})
    assert modern.context["tone_system"] == "modern"


def test_manage_py_prosody_defaults_to_classical(tmp_path: Path, capsys) -> None:
    src = tmp_path / "poems.jsonl"
    src.write_text(json.dumps({"id": "1", "form": "shi:jueju5", "text": POEM}) + "\n", "utf-8")
    call_command("prosody", str(src))
    assert json.loads(capsys.readouterr().out)["tone_system"] == "classical"
