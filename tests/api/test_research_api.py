"""The researchers' API: what each endpoint returns (permissions: test_permission_matrix)."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from openpyxl import load_workbook

from tests.api.conftest import World

pytestmark = pytest.mark.django_db


def _get(world: World, path: str, role: str = "researcher"):
    return world.clients[role].get(path)


def test_study_detail_lists_groups_tasks_and_counts(world: World) -> None:
    data = _get(world, f"/api/v1/studies/{world.own.study.pk}/").json()
    assert [g["slug"] for g in data["groups"]] == ["A", "B", "C"]
    assert [t["slug"] for t in data["tasks"]] == ["ck", "au", "oq", "quality"]
    assert data["n_participants"] == 8  # seven made by hand and the enrolled volunteer


def test_items_carry_their_answer_keys_and_filter_by_task(world: World) -> None:
    data = _get(world, f"/api/v1/studies/{world.own.study.pk}/items/?task=au").json()
    assert [i["external_id"] for i in data["results"]] == ["au-1", "au-2"]
    assert data["results"][0]["answer"] == {"person": 0, "source": 1}


def test_items_carry_their_provenance(world: World) -> None:
    data = _get(world, f"/api/v1/studies/{world.own.study.pk}/items/?task=quality").json()
    poems = {i["external_id"]: i for i in data["results"]}
    fields = ("source_kind", "source_model", "poem_condition", "sample", "poem_form", "category")
    assert tuple(poems["poem-2"][f] for f in fields) == ("model", "qwen", "", None, "ci:浣溪沙", "")
    assert poems["poem-1"]["source_kind"] == "human"


def test_responses_are_paginated_rows_filtered_by_kind(world: World) -> None:
    base = f"/api/v1/studies/{world.own.study.pk}/responses/"
    data = _get(world, base + "?rater_kind=model&limit=5").json()
    assert data["count"] == 4 + 4 + 4 + 8  # gpt-4o ck, kimi ck, gpt-4o au, kimi ratings
    assert len(data["results"]) == 5 and data["next"]
    row = data["results"][0]
    assert set(row) >= {
        "task",
        "item",
        "rater_kind",
        "rater",
        "run",
        "group",
        "field",
        "value",
        "correct",
    }


@pytest.mark.slow
def test_report_endpoint_gives_the_known_accuracy(world: World) -> None:
    data = _get(world, f"/api/v1/studies/{world.own.study.pk}/report/?n_boot=0").json()
    row = next(
        r
        for r in data["accuracy"]
        if (r["task"], r["field"], r["rater_set"]) == ("ck", "answer", "group:A")
    )
    assert row["value"] == 0.625 and data["settings"]["n_boot"] == 0


def test_report_rejects_a_bad_n_boot(world: World) -> None:
    assert _get(world, f"/api/v1/studies/{world.own.study.pk}/report/?n_boot=x").status_code == 400
    assert (
        _get(world, f"/api/v1/studies/{world.own.study.pk}/report/?n_boot=99999").status_code == 400
    )


@pytest.mark.slow
def test_report_takes_the_settings_as_query_parameters_and_echoes_them(world: World) -> None:
    base = f"/api/v1/studies/{world.own.study.pk}/report/"
    query = "?n_boot=0&by=source,form&min_side=2&pass_threshold=0.5&tasks=quality,ck&cluster=item"
    data = _get(world, base + query).json()
    assert data["settings"] == {
        "n_boot": 0,
        "seed": 20261122,
        "confidence": 0.95,
        "pass_threshold": 0.5,
        "min_side": 2,
        "by": ["source", "form"],
        "tasks": ["quality", "ck"],
        "ratings_ci": "crossed",
        "cluster": "item",
    }
    assert {r["task"] for r in data["accuracy"]} == {"ck"}
    assert {(r["source"], r["form"]) for r in data["ratings"]} == {
        ("human", "ci:浣溪沙"),
        ("human", "ci:如梦令"),
        ("qwen", "ci:浣溪沙"),
        ("qwen", "ci:如梦令"),
    }
    for name in ("ratings", "rule_rates", "validation", "pairwise", "echo_chamber"):
        assert name in data
    bad = _get(world, base + "?by=author")
    assert bad.status_code == 400 and "by" in bad.json()
    assert _get(world, base + "?tasks=nope").status_code == 400
    assert _get(world, base + "?min_side=0").status_code == 400
    export = _get(
        world,
        f"/api/v1/studies/{world.own.study.pk}/exports/report/?n_boot=0&file=csv&table=ratings&by=source",
    )
    header = export.content.decode("utf-8-sig").splitlines()[0]
    assert header.startswith("source,task,field,rater_set,n_items")


@pytest.mark.slow
def test_report_exports_one_table_or_all(world: World) -> None:
    base = f"/api/v1/studies/{world.own.study.pk}/exports/report/?n_boot=0"
    one = _get(world, base + "&file=csv&table=accuracy")
    assert one["Content-Disposition"].endswith('known-accuracy.csv"')
    rows = list(csv.DictReader(io.StringIO(one.content.decode("utf-8-sig"))))
    assert {"task", "field", "rater_set", "value"} <= set(rows[0])
    every = zipfile.ZipFile(io.BytesIO(_get(world, base + "&file=csv").content))
    assert "agreement.csv" in every.namelist()
    book = load_workbook(io.BytesIO(_get(world, base + "&file=xlsx").content), read_only=True)
    assert "rule_vs_rating" in book.sheetnames
    assert _get(world, base + "&file=pdf").status_code == 400


def test_raw_responses_export_streams_csv_and_jsonl(world: World) -> None:
    base = f"/api/v1/studies/{world.own.study.pk}/exports/responses/"
    reply = _get(world, base + "?file=csv")
    assert reply.streaming
    text = b"".join(reply.streaming_content).decode("utf-8")
    assert text.startswith("\ufeff")  # for Excel on Chinese Windows
    assert text[1:].splitlines()[0].startswith("study,task,item,rater_kind,rater")
    plain = b"".join(_get(world, base + "?file=csv&bom=0").streaming_content).decode("utf-8")
    assert plain == text[1:]
    lines = b"".join(_get(world, base + "?file=jsonl").streaming_content).splitlines()
    assert json.loads(lines[0])["study"] == "known"
    assert _get(world, base + "?file=xlsx").status_code == 200


def test_schema_and_docs_are_served_offline(world: World) -> None:
    docs = _get(world, "/api/docs/", "anonymous").content.decode()
    assert "cdn" not in docs.lower() and "swagger-ui" in docs
    schema = _get(world, "/api/schema/", "anonymous")
    assert b"/api/v1/studies/{study_id}/report/" in schema.content


def test_list_endpoints_cost_a_constant_number_of_queries(
    world: World, django_assert_max_num_queries
) -> None:
    pk = world.own.study.pk
    for path in (
        "/api/v1/studies/",
        f"/api/v1/studies/{pk}/items/",
        f"/api/v1/studies/{pk}/responses/?limit=100",
    ):
        with django_assert_max_num_queries(8):
            assert _get(world, path).status_code == 200


def test_report_has_the_issue_15_tables(world: World) -> None:
    data = _get(world, f"/api/v1/studies/{world.own.study.pk}/report/?n_boot=0").json()
    for name in ("icc", "bws", "item_analysis", "abilities"):
        assert isinstance(data[name], list)
    # the known study's ratings: every one of four raters rated every poem
    icc = [r for r in data["icc"] if r["rater_set"] == "humans" and r["field"] == "prosody"]
    assert {r["form"] for r in icc} == {
        "ICC(1,1)",
        "ICC(2,1)",
        "ICC(3,1)",
        "ICC(1,k)",
        "ICC(2,k)",
        "ICC(3,k)",
    }
    assert any(r["summary"] == "item" and r["item"] == "ck-1" for r in data["item_analysis"])


@pytest.mark.slow
def test_issue_15_tables_export_as_csv_and_xlsx(world: World) -> None:
    base = f"/api/v1/studies/{world.own.study.pk}/exports/report/?n_boot=0"
    text = _get(world, base + "&file=csv&table=item_analysis").content.decode("utf-8-sig")
    header = next(csv.reader(io.StringIO(text)))
    assert header[:4] == ["task", "item", "field", "rater_set"]
    book = load_workbook(io.BytesIO(_get(world, base + "&file=xlsx").content), read_only=True)
    assert {"icc", "bws", "item_analysis", "abilities"} <= set(book.sheetnames)


def test_plan_endpoint_gives_rows_and_refuses_bad_goals(world: World) -> None:
    base = f"/api/v1/studies/{world.own.study.pk}/plan/"
    data = _get(world, base + "?half_width=0.1&n_sims=20").json()
    assert data["goals"]["half_width"] == 0.1
    row = next(r for r in data["rows"] if r["target"] == "accuracy" and r["task"] == "ck")
    assert row["goal"] == 0.1 and row["status"] in ("met", "short")
    bad = _get(world, base + "?half_width=0.9")
    assert bad.status_code == 400 and "half_width" in bad.json()
    assert _get(world, base + "?power=x").status_code == 400
