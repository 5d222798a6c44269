"""Paper layouts from the API and the dashboard (issue 24 item 1): the same layouts as
``manage.py report --paper``; the cells are checked against a pandas pivot of the API's
own report rows, never with ``scoring.report.paper``."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from openpyxl import load_workbook

from research.dashboard.labels import Labels
from scoring.report.paper import LAYOUTS
from tests.api.conftest import World

pytestmark = pytest.mark.django_db


def _expected_accuracy(world: World) -> pd.DataFrame:
    """cpdue-accuracy by hand: group and model rows × (task, field), 2 decimals."""
    report = world.clients["researcher"].get(
        f"/api/v1/studies/{world.own.study.pk}/report/?n_boot=0"
    )
    assert report.status_code == 200
    rows = pd.DataFrame(report.json()["accuracy"])
    rows = rows[rows["rater_set"].str.match(r"^(group|model):")].copy()
    # the file names its keys as the dashboard does, in the reader's language (zh-Hans
    # by default): the group's name, the task's title, the dimension's word
    with translation.override("zh-hans"):
        labels = Labels(world.own.study)
        rows["field"] = [
            labels.field(t, f) for t, f in zip(rows["task"], rows["field"], strict=True)
        ]
        rows["task"] = rows["task"].map(labels.task)
        rows["rater_set"] = rows["rater_set"].map(labels.rater_set)
    assert not rows["rater_set"].str.startswith("group:").any()
    wide = rows.pivot(index="rater_set", columns=["task", "field"], values="value")
    return wide.round(2)


def test_the_api_gives_a_paper_layout_as_csv_markdown_and_latex(world: World) -> None:
    client = world.clients["researcher"]
    base = f"/api/v1/studies/{world.own.study.pk}/exports/paper/cpdue-accuracy/?n_boot=0"
    got = client.get(base + "&file=csv")
    assert got.status_code == 200, got.content
    assert got["Content-Type"].startswith("text/csv")
    assert got["Content-Disposition"].endswith('known-cpdue-accuracy.csv"')
    lines = list(csv.reader(io.StringIO(got.content.decode("utf-8"))))
    expected = _expected_accuracy(world)
    assert len(lines) - 1 == len(expected)
    for line in lines[1:]:
        for header, cell in zip(lines[0][1:], line[1:], strict=True):
            task, fld = header.split(" / ")
            want = expected.loc[line[0], (task, fld)]
            assert cell == ("—" if pd.isna(want) else f"{want:.2f}"), (line[0], header)
    md = client.get(base + "&file=markdown")
    assert md["Content-Type"].startswith("text/markdown")
    assert md.content.decode("utf-8").startswith("**CP-DUE")
    book = load_workbook(io.BytesIO(client.get(base + "&file=xlsx").content), read_only=True)
    sheet = list(book.active.iter_rows(values_only=True))
    assert sheet[0][0].startswith("CP-DUE")  # the caption, then the header
    header = sheet[1]
    body = [r for r in sheet[2 : 2 + len(expected)]]
    for line in body:
        for head, cell in zip(header[1:], line[1:], strict=True):
            task, fld = head.split(" / ")
            want = expected.loc[line[0], (task, fld)]
            assert cell == ("—" if pd.isna(want) else pytest.approx(want)), (line[0], head)
    tex = client.get(base)  # LaTeX by default
    assert tex["Content-Disposition"].endswith('.tex"')
    assert r"\toprule" in tex.content.decode("utf-8")


def test_the_api_refuses_an_unknown_layout_and_one_without_rows(world: World) -> None:
    client = world.clients["researcher"]
    base = f"/api/v1/studies/{world.own.study.pk}/exports/paper"
    assert client.get(f"{base}/no-such/?n_boot=0").status_code == 404
    empty = client.get(f"{base}/cciv-table2/?n_boot=0")  # no rule rater's CCiV rates here
    assert empty.status_code == 400 and "rule_rates" in empty.json()["layout"]
    assert client.get(f"{base}/cpdue-accuracy/?n_boot=0&file=pdf").status_code == 400
    other = f"/api/v1/studies/{world.other.study.pk}/exports/paper/cpdue-accuracy/"
    assert client.get(other).status_code == 404  # a study not shared with them


def test_the_schema_lists_the_paper_export_with_every_layout() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/studies/{study_id}/exports/paper/{layout}/"]["get"]
    layout = next(p for p in operation["parameters"] if p["name"] == "layout")
    assert layout["in"] == "path"
    assert sorted(layout["schema"]["enum"]) == sorted(x.name for x in LAYOUTS)


def test_the_dashboard_links_each_layout_with_its_zh_hans_title(world: World) -> None:
    client = world.clients["researcher"]
    study = world.own.study
    page = client.get(f"/research/studies/{study.pk}/?n_boot=0", HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode("utf-8")
    assert "论文表格" in text and "CP-DUE：各组、各任务的正确率" in text
    for layout in LAYOUTS:
        assert f"({layout.name})" in text
    assert f"/research/studies/{study.pk}/paper/cpdue-accuracy.latex?" in text
    assert f"/research/studies/{study.pk}/paper/cciv-table2.latex?" not in text  # no rows
    got = client.get(f"/research/studies/{study.pk}/paper/cpdue-accuracy.csv?n_boot=0")
    assert got.status_code == 200
    api = client.get(f"/api/v1/studies/{study.pk}/exports/paper/cpdue-accuracy/?n_boot=0&file=csv")
    assert got.content == api.content  # the same layout from both
    assert client.get(f"/research/studies/{study.pk}/paper/nope.csv").status_code == 404
