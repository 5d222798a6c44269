"""Which rule raters a study stores (its ``rule_raters`` setting): classical first by
default, the CCiV literal rater on request, refused with file, line and field when wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.models import Rater, Response
from scoring.prosody import RULES_VERSION, score_poem
from scoring.rules import default_tone_system, rule_scores_compute
from studies.models import Item, Study, Task
from tests.scoring_app.study_file import load_study_text

pytestmark = pytest.mark.django_db

STUDY = """\
slug: s
title: 格律
groups:
  - {slug: A, name: 甲}
settings:
  rule_raters: [modern, ccv]
tasks:
  - slug: rate
    title: 评分
    kind: rating
    dimensions:
      - {key: form, label: 格律, min: 1, max: 5}
"""
# 晏殊《浣溪沙》 with the title line a FuxiBench-style output carries
HUANXISHA = (
    "浣溪沙\n一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回。"
    "无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
)


def load(tmp_path: Path, text: str) -> str:
    return load_study_text(tmp_path, text)


def _poem(study: Study) -> Item:
    return Item.objects.create(
        study=study,
        task=Task.objects.get(study=study),
        external_id="p1",
        poem_text=HUANXISHA,
        poem_form="ci:浣溪沙",
    )


def test_the_study_setting_chooses_the_stored_rule_raters(tmp_path: Path) -> None:
    assert load(tmp_path, STUDY) == ""
    study = Study.objects.get()
    assert study.rule_raters == ["modern", "ccv"] and default_tone_system(study) == "modern"
    item = _poem(study)
    rule_scores_compute(study=study)
    assert set(Rater.objects.filter(kind="rule").values_list("name", "run")) == {
        ("prosody:modern", RULES_VERSION),
        ("prosody:ccv", RULES_VERSION),
    }
    ccv = {r.field: r.value for r in Response.objects.filter(item=item, rater__name="prosody:ccv")}
    expected = score_poem(HUANXISHA, "ci:浣溪沙", ccv_compatible=True).metrics
    assert ccv == {k: v for k, v in expected.items() if v is not None}
    # CCiV literal: the title line counts as a line, so its structure fails; the
    # FuxiBench-compatible structure allows a title line and passes
    assert ccv["structural_standard"] == 0.0 and ccv["structural_fuxi"] == 1.0
    with_note = score_poem(HUANXISHA + "\n注：晏殊词。", "ci:浣溪沙", ccv_compatible=True)
    assert with_note.metrics["structural_fuxi"] == 1.0  # FuxiBench cuts at 注：
    assert with_note.metrics["structural_variant"] == 0.0


def test_the_default_is_classical_first_then_modern(tmp_path: Path) -> None:
    assert (
        load(tmp_path, STUDY.replace("  rule_raters: [modern, ccv]\n", "  listed: false\n")) == ""
    )
    study = Study.objects.get()
    assert study.rule_raters == ["classical", "modern"]
    assert default_tone_system(study) == "classical"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("[classical, pingshui]", "unknown rule rater 'pingshui'"),
        ("[ccv, modern]", "must be classical or modern"),
        ("[]", "must be a non-empty list"),
        ("[modern, modern]", "lists a rule rater twice"),
    ],
)
def test_a_bad_rule_raters_setting_is_refused_at_its_line(
    tmp_path: Path, value: str, problem: str
) -> None:
    message = load(tmp_path, STUDY.replace("[modern, ccv]", value))
    lines = message.splitlines()
    assert lines[0] == "1 problem found; nothing was loaded."
    assert lines[1].startswith("study.yaml, line 6, field 'settings.rule_raters': ")
    assert problem in lines[1]
    assert not Study.objects.exists()


def test_poem_page_opens_with_the_study_tone_system_and_counts_from_one(
    tmp_path: Path,
    client,
    django_user_model,
) -> None:
    from django.urls import reverse

    assert load(tmp_path, STUDY.replace("[modern, ccv]", "[classical]")) == ""
    study = Study.objects.get()
    item = Item.objects.create(
        study=study,
        task=Task.objects.get(study=study),
        external_id="lz",
        poem_text="黄河远上白云间，一片孤城万仞山。羌笛何须怨杨柳，春风不度玉门关。",
        poem_form="shi:jueju7",
    )
    user = django_user_model.objects.create_user("r", password="pw")
    study.researchers.add(user)
    client.force_login(user)
    page = client.get(reverse("research:poem", args=[item.pk]))
    assert page.context["tone_system"] == "classical"
    notes = [(n["where"], n["what"]) for n in page.context["notes"]]
    # 羌笛何须怨杨柳: the 特拗 at the 5th and 6th characters of the 3rd line (1-based)
    assert ("第 3 句第 5 字", "拗救/放宽：特拗") in notes or (
        "line 3, character 5",
        "licence: 特拗",
    ) in notes
    assert "王力《诗词格律》" in page.content.decode()


def test_poem_page_names_a_character_read_by_the_metre(
    tmp_path: Path,
    client,
    django_user_model,
) -> None:
    from django.urls import reverse

    assert load(tmp_path, STUDY.replace("[modern, ccv]", "[classical]")) == ""
    study = Study.objects.get()
    item = Item.objects.create(
        study=study,
        task=Task.objects.get(study=study),
        external_id="xiyu",
        # 杜甫《春夜喜雨》: 晓看红湿处 -- 看 平 by the metre (2nd character of the 7th line)
        poem_text="好雨知时节，当春乃发生。随风潜入夜，润物细无声。"
        "野径云俱黑，江船火独明。晓看红湿处，花重锦官城。",
        poem_form="shi:lushi5",
    )
    user = django_user_model.objects.create_user("r", password="pw")
    study.researchers.add(user)
    client.force_login(user)
    page = client.get(reverse("research:poem", args=[item.pk]))
    notes = {n["where"]: (n["what"], n["source"]) for n in page.context["notes"]}
    where = next(w for w in notes if w in ("第 7 句第 2 字", "line 7, character 2"))
    assert notes[where][0] in (
        "平仄两读而意义不变：按格律所需声调读",
        "same meaning in both tones: read as the metre requires",
    )
    assert "王力《汉语诗律学》" in notes[where][1]
    assert not any("失粘" in what for what, _ in notes.values())


def test_a_family_added_to_the_registry_is_accepted_and_stored_with_no_other_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rule-family registry (scoring/prosody/families.py) is the one place a family is
    # named: the settings' validator, the stored rule raters and the default read it.
    from scoring.prosody import families

    lenient = families.RuleFamily("classical-lenient", "两读 either way", "classical")
    monkeypatch.setitem(families.BY_NAME, lenient.name, lenient)
    assert load(tmp_path, STUDY.replace("[modern, ccv]", "[classical, classical-lenient]")) == ""
    study = Study.objects.get()
    item = _poem(study)
    rule_scores_compute(study=study)
    names = set(Rater.objects.filter(kind="rule").values_list("name", flat=True))
    assert names == {"prosody:classical", "prosody:classical-lenient"}
    stored = Response.objects.filter(item=item, rater__name="prosody:classical-lenient")
    assert {r.field for r in stored} == set(
        k
        for k, v in score_poem(HUANXISHA, "ci:浣溪沙", tone_system="classical").metrics.items()
        if v is not None
    )
