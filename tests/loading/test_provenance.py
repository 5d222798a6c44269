"""Every item knows where it came from: the loaders set its source, condition, sample,
form and category from the files' own fields (studies.provenance)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from studies.models import Item
from tests.loading.helpers import snapshot, write_jsonl

pytestmark = pytest.mark.django_db
STUDY = ["--study", "poetry-understanding"]
FIELDS = ("source_kind", "source_model", "poem_condition", "sample", "poem_form", "category")


def provenance(ext: str) -> tuple[object, ...]:
    return tuple(Item.objects.values_list(*FIELDS).get(external_id=ext))


def test_pool_items_and_generations_carry_their_provenance(
    example_study, formats_dir, tmp_path
) -> None:
    call_command("load_llm_outputs", str(formats_dir / "llm_outputs.jsonl"), *STUDY)
    # A pool poem written by a model (formats.md §2), and the generated one (§3)
    assert provenance("poem-0001") == ("model", "qwen2.5-72b", "form_aware", None, "ci:浪淘沙", "")
    assert provenance("gen-0001") == ("model", "qwen2.5-72b", "direct", 0, "ci:浣溪沙", "")
    assert provenance("ck-001") == ("", "", "", None, "", "")
    outputs = write_jsonl(
        tmp_path / "more.jsonl",
        [
            {
                "model": "gpt-4o",
                "run": "form_aware",
                "sample": 3,
                "generation": {
                    "id": "gen-0002",
                    "task": "quality",
                    "prompt": {"form": "shi:jueju7", "category": "边塞"},
                    "text": "秦时明月汉时关，万里长征人未还。",
                },
            }
        ],
    )
    call_command("load_llm_outputs", str(outputs), *STUDY)
    assert provenance("gen-0002") == ("model", "gpt-4o", "form_aware", 3, "shi:jueju7", "边塞")
    pool = write_jsonl(
        tmp_path / "pool.jsonl",
        [
            {
                "id": "poem-0100",
                "task": "quality",
                "poem": {"text": "床前明月光", "source": "李白", "form": "shi:jueju5"},
                "meta": {"category": "思乡"},
            },
            {
                "id": "poem-0101",
                "task": "quality",
                "poem": {"text": "春眠不觉晓", "source": "human"},
            },
        ],
    )
    call_command("load_pool", str(pool), *STUDY)
    assert provenance("poem-0100") == ("human", "", "", None, "shi:jueju5", "思乡")
    assert provenance("poem-0101") == ("human", "", "", None, "", "")


def test_reloading_the_same_pool_changes_nothing(example_study, formats_dir) -> None:
    before = snapshot()
    call_command("load_pool", str(formats_dir / "pool.jsonl"), *STUDY)
    assert snapshot() == before


def test_a_csv_pool_takes_the_category_from_meta(example_study, tmp_path) -> None:
    path = tmp_path / "pool.csv"
    path.write_text(
        "id,task,text,source,form,condition,meta\n"
        'poem-9,quality,春风又绿江南岸,model:kimi,ci:浣溪沙,direct,"{""category"": ""春""}"\n',
        encoding="utf-8",
    )
    call_command("load_pool", str(path), *STUDY)
    assert provenance("poem-9") == ("model", "kimi", "direct", None, "ci:浣溪沙", "春")


def test_the_codebook_describes_every_export_column_in_order() -> None:
    from pathlib import Path

    from annotation.exports import COLUMNS

    text = (Path(__file__).resolve().parents[2] / "docs" / "codebook.md").read_text("utf-8")
    rows = [
        line.split("|")[1].strip().strip("`")
        for line in text.splitlines()
        if line.startswith("| `")
    ]
    assert rows == list(COLUMNS)
