"""Reloads that change things, CSV input, and the raw export's rows."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from annotation.exports import COLUMNS, export_rows
from annotation.models import Response
from studies.models import ImportLog, Item, Study
from tests.loading.helpers import snapshot, write_jsonl

pytestmark = pytest.mark.django_db
STUDY = ["--study", "poetry-understanding"]


def test_changed_answer_key_updates_the_item_and_regrades_responses(
    example_study, formats_dir, tmp_path, capsys
) -> None:
    call_command("load_llm_outputs", str(formats_dir / "llm_outputs.jsonl"), *STUDY)
    assert Response.objects.get(rater__name="gpt-4o", item__external_id="ck-001").correct is False
    lines = (formats_dir / "pool.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["answer"] = 1  # the key now says 杜甫
    path = write_jsonl(tmp_path / "pool.jsonl", [first, *lines[1:]])
    capsys.readouterr()
    call_command("load_pool", str(path), *STUDY)
    assert "0 created, 1 updated, 3 unchanged" in capsys.readouterr().out
    assert Item.objects.get(external_id="ck-001").answer == {"answer": 1}
    assert Response.objects.get(rater__name="gpt-4o", item__external_id="ck-001").correct is True


def test_csv_pool_loads_choice_and_rating_rows(example_study, tmp_path) -> None:
    path = tmp_path / "pool.csv"
    path.write_text(
        "id,task,stem,option_a,option_b,option_c,answer,title,author,form,text,source,meta\n"
        'ck-300,ck,哪位诗人？,李白,杜甫,王维,B,,,,,,"{""difficulty"": 2}"\n'
        'poem-300,quality,,,,,,春晓,孟浩然,shi:jueju5,"春眠不觉晓，\n处处闻啼鸟。",human,\n',
        encoding="utf-8",
    )
    call_command("load_pool", str(path), *STUDY)
    ck = Item.objects.get(external_id="ck-300")
    assert (ck.answer, ck.meta, [o["text"] for o in ck.options]) == (
        {"answer": 1},
        {"difficulty": 2},
        ["李白", "杜甫", "王维"],
    )
    poem = Item.objects.get(external_id="poem-300")
    assert (poem.poem_title, poem.poem_author, poem.poem_form, poem.poem_text) == (
        "春晓",
        "孟浩然",
        "shi:jueju5",
        "春眠不觉晓，\n处处闻啼鸟。",
    )
    before = snapshot()
    call_command("load_pool", str(path), *STUDY)
    assert snapshot() == before


def test_export_rows_are_the_responses_and_nothing_identifying(
    example_study, formats_dir, tmp_path
) -> None:
    call_command("load_llm_outputs", str(formats_dir / "llm_outputs.jsonl"), *STUDY)
    call_command("load_responses", str(formats_dir / "responses.jsonl"), *STUDY)
    out = tmp_path / "export.csv"
    call_command("export_responses", "poetry-understanding", "--format", "csv", "--out", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert len(rows) == Response.objects.count()
    # 8 model responses + 3 human ones from the files; the rest are the rule scores of the
    # two poems (poem-0001 and the generated gen-0001) under both tone systems.
    kinds = [r["rater_kind"] for r in rows]
    assert (kinds.count("model"), kinds.count("human")) == (8, 3)
    assert {r["rater"] for r in rows if r["rater_kind"] == "rule"} == {
        "prosody:modern",
        "prosody:classical",
    }
    assert list(rows[0]) == [
        "study",
        "task",
        "item",
        "rater_kind",
        "rater",
        "run",
        "group",
        "field",
        "value",
        "correct",
        "time_ms",
        "sample",
        "answered_at",
        # beyond formats.md §4 (docs/codebook.md): what was chosen, the group's name, and
        # where the item came from
        "option_text",
        "group_name",
        "item_source",
        "item_condition",
        "item_sample",
        "item_form",
        "item_category",
        "recruitment",
    ]
    human = [r for r in rows if r["rater_kind"] == "human"]
    group_c = Study.objects.get(slug="poetry-understanding").groups.get(slug="C").name
    assert sorted(
        (r["item"], r["field"], r["value"], r["correct"], r["group"], r["time_ms"]) for r in human
    ) == [
        ("ck-001", "answer", "1", "false", "C", "5300"),
        ("poem-0001", "aesthetic", "3", "", "C", "41000"),
        ("poem-0001", "prosody", "2", "", "C", "41000"),
    ]
    assert human[0]["rater"] == "p-8f3a"
    assert {r["group_name"] for r in human} == {group_c}
    chosen = {(r["rater"], r["item"], r["field"]): r["option_text"] for r in rows}
    assert chosen["p-8f3a", "ck-001", "answer"] == "杜甫"  # option 1 of 李白, 杜甫, 王安石
    assert chosen["gpt-4o", "au-017", "person"] == "班超"
    assert chosen["gpt-4o", "oq-005", "worst"].startswith("春天来了真好看")
    assert chosen["p-8f3a", "poem-0001", "prosody"] == ""  # a rating chooses no option
    where = {
        r["item"]: (r["item_source"], r["item_condition"], r["item_sample"], r["item_form"])
        for r in rows
    }
    assert where["poem-0001"] == ("qwen2.5-72b", "form_aware", "", "ci:浪淘沙")
    assert where["gen-0001"] == ("qwen2.5-72b", "direct", "0", "ci:浣溪沙")
    assert where["ck-001"] == ("", "", "", "")
    jsonl = tmp_path / "export.jsonl"
    call_command(
        "export_responses", "poetry-understanding", "--format", "jsonl", "--out", str(jsonl)
    )
    parsed = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    gpt = next(r for r in parsed if r["rater"] == "gpt-4o" and r["item"] == "ck-001")
    assert gpt["value"] == 1 and isinstance(gpt["value"], int) and gpt["correct"] is False
    xlsx = tmp_path / "export.xlsx"
    call_command("export_responses", "poetry-understanding", "--format", "xlsx", "--out", str(xlsx))
    from openpyxl import load_workbook

    sheet = load_workbook(xlsx, read_only=True)["responses"]
    assert sum(1 for _ in sheet.iter_rows()) == len(rows) + 1


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_an_export_loads_back_as_unchanged_responses(
    example_study, formats_dir, tmp_path, fmt
) -> None:
    call_command("load_responses", str(formats_dir / "responses.jsonl"), *STUDY)
    call_command("load_llm_outputs", str(formats_dir / "llm_outputs.jsonl"), *STUDY)
    out = tmp_path / f"export.{fmt}"
    call_command("export_responses", "poetry-understanding", "--format", fmt, "--out", str(out))
    before = snapshot()
    text = io.StringIO()
    call_command("load_responses", str(out), *STUDY, stdout=text)
    assert snapshot() == before
    assert "3 rows; 0 created, 0 updated, 3 unchanged" in text.getvalue()
    # The same rows into a fresh study give the same human responses (the round trip).
    human = {
        r for r in export_rows(Study.objects.get(slug="poetry-understanding")) if r[3] == "human"
    }
    Response.objects.filter(rater__kind="human").delete()
    call_command("load_responses", str(out), *STUDY, stdout=io.StringIO())
    again = {
        r for r in export_rows(Study.objects.get(slug="poetry-understanding")) if r[3] == "human"
    }
    # Every column, the time too where the first file gave one (ck-001). A response
    # imported without a time is exported with the time it was stored, and its fields,
    # gathered into one answer again, take the first field's (microseconds apart).
    at = COLUMNS.index("answered_at")

    def timeless(rows: set[tuple[object, ...]]) -> set[tuple[object, ...]]:
        return {r[:at] + r[at + 1 :] for r in rows}

    assert timeless(again) == timeless(human) and len(human) == 3
    assert {r for r in again if r[2] == "ck-001"} == {r for r in human if r[2] == "ck-001"}


def test_import_log_records_changing_loads_only(example_study, formats_dir) -> None:
    assert list(ImportLog.objects.values_list("kind", "created")) == [("pool", 4), ("study", 9)]
    call_command("load_pool", str(formats_dir / "pool.jsonl"), *STUDY)
    assert ImportLog.objects.count() == 2
