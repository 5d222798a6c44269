"""The formats.md examples load; a second load changes nothing (fixture: formats.md, lightly
completed where the doc elides options with '…')."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotation.models import AggregateResult, Participant, Rater, Response
from studies.models import Group, Item, Study, Task
from tests.loading.helpers import snapshot
from tests.present import present

pytestmark = pytest.mark.django_db


def load_all(formats_dir, capsys) -> list[str]:
    call_command("load_study", str(formats_dir / "study.json"))
    slug = ["--study", "poetry-understanding"]
    call_command("load_pool", str(formats_dir / "pool.jsonl"), *slug)
    call_command("load_llm_outputs", str(formats_dir / "llm_outputs.jsonl"), *slug)
    call_command("load_responses", str(formats_dir / "responses.jsonl"), *slug)
    return capsys.readouterr().out.splitlines()


def test_examples_load_into_the_data_model(formats_dir, capsys) -> None:
    load_all(formats_dir, capsys)
    study = Study.objects.get(slug="poetry-understanding")
    assert study.title == "古诗词理解测试"
    assert (study.status, study.listed) == (Study.Status.DRAFT, False)  # until opened
    assert [(g.slug, g.target_per_item) for g in Group.objects.filter(study=study)] == [
        ("A", 3),
        ("B", 3),
        ("C", 3),
    ]
    assert list(Task.objects.filter(study=study).values_list("slug", "kind")) == [
        ("ck", "choice"),
        ("au", "multi"),
        ("oq", "best_worst"),
        ("quality", "rating"),
    ]
    ck = Item.objects.get(external_id="ck-001")
    assert ck.answer == {"answer": 0}
    assert [o["text"] for o in ck.options] == ["李白", "杜甫", "王安石"]
    assert Item.objects.get(external_id="au-017").answer == {"person": 0, "source": 0, "meaning": 0}
    assert Item.objects.get(external_id="oq-005").answer == {"best": 0, "worst": 2}
    poem = Item.objects.get(external_id="poem-0001")
    assert (poem.poem_form, poem.poem_source, poem.poem_condition) == (
        "ci:浪淘沙",
        "model:qwen2.5-72b",
        "form_aware",
    )
    gen = Item.objects.get(external_id="gen-0001")
    assert (gen.task.slug, gen.poem_form, gen.poem_source, gen.poem_title, gen.poem_condition) == (
        "quality",
        "ci:浣溪沙",
        "model:qwen2.5-72b",
        "春雨",
        "direct",
    )

    gpt = Rater.objects.get(kind="model", name="gpt-4o")
    got = {
        (r.item.external_id, r.field): (r.value, r.correct)
        for r in Response.objects.filter(rater=gpt)
    }
    # gpt-4o answered ck-001 with 1 (key 0): wrong; au-017 person 2/source 0/meaning 3 vs key 0/0/0.
    assert got == {
        ("ck-001", "answer"): (1, False),
        ("au-017", "person"): (2, False),
        ("au-017", "source"): (0, True),
        ("au-017", "meaning"): (3, False),
        ("oq-005", "best"): (1, False),
        ("oq-005", "worst"): (2, True),
    }
    kimi = Response.objects.filter(rater__name="kimi-k2").order_by("field")
    assert [(r.field, r.value, r.correct) for r in kimi] == [
        ("aesthetic", 3, None),
        ("prosody", 4, None),
    ]
    agg = AggregateResult.objects.get()
    assert (agg.model, agg.task, agg.metric, agg.value, agg.n) == (
        "gpt-4o",
        "ck",
        "accuracy",
        0.7545,
        505,
    )
    # Aggregates are never responses.
    assert (
        not Response.objects.filter(rater__name="gpt-4o", task__slug="ck")
        .exclude(item__external_id="ck-001")
        .exists()
    )

    human = Participant.objects.get(rater__name="p-8f3a")
    assert present(human.group).slug == "C" and human.entry == "import"
    ck_answer = Response.objects.get(rater=human.rater, field="answer")
    # The file says correct: true for answer 1, but the key is 0: the key wins.
    assert (ck_answer.value, ck_answer.correct, ck_answer.time_ms) == (1, False, 5300)
    assert present(ck_answer.answered_at).isoformat() == "2026-11-15T10:15:00+00:00".replace(
        "15T", "20T"
    )


def test_second_load_changes_nothing(formats_dir, capsys) -> None:
    load_all(formats_dir, capsys)
    before = snapshot()
    out = load_all(formats_dir, capsys)
    assert snapshot() == before
    counts = [line for line in out if " rows; " in line]  # one a file (then its notes)
    assert len(counts) == 4 and all(" 0 created, 0 updated" in line for line in counts), out


def test_dry_run_writes_nothing(formats_dir, capsys) -> None:
    before = snapshot()
    call_command("load_study", str(formats_dir / "study.json"), "--dry-run")
    out = capsys.readouterr().out
    assert "would be created" in out and "Dry run" in out
    assert snapshot() == before


def test_yaml_study_definition_is_the_same_study(formats_dir, tmp_path) -> None:
    import json

    import yaml

    data = json.loads((formats_dir / "study.json").read_text(encoding="utf-8"))
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    call_command("load_study", str(path))
    before = snapshot()
    call_command("load_study", str(formats_dir / "study.json"))
    assert snapshot()["Task"] == before["Task"]
    assert Study.objects.count() == 1
