"""The files researchers bring: a pool saved as CSV by Excel on Chinese Windows (GB18030 /
GBK), as UTF-16 (with or without a byte-order mark, comma or tab separated), as UTF-8
with a BOM, and as an XLSX workbook loads exactly as the UTF-8 JSONL pool does; a file
that cannot be read is refused naming its line and saying what to do (docs/loading.md,
"Encodings" and "Excel workbooks")."""

from __future__ import annotations

import codecs
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from openpyxl import Workbook

from studies.loading.encodings import decode_text
from studies.models import Item
from tests.conftest import FORMATS
from tests.loading.helpers import snapshot

pytestmark = pytest.mark.django_db

STUDY = ["--study", "poetry-understanding"]
POEM = ("title", "author", "form", "text", "source", "condition")


def pool_lines() -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in (FORMATS / "pool.jsonl").read_text("utf-8").splitlines()]
    return [x for x in lines if x]


def as_row(item: dict[str, Any]) -> dict[str, str]:
    """A JSONL pool line as the CSV row formats.md §2 describes."""
    row = {"id": item["id"], "task": item["task"], "stem": item.get("stem", "")}
    for letter, option in zip("abcdefghij", item.get("options", []), strict=False):
        row[f"option_{letter}"] = option
    answer = item.get("answer")
    row["answer"] = json.dumps(answer, ensure_ascii=False) if isinstance(answer, dict) else ""
    if isinstance(answer, int):
        row["answer"] = "ABCDEFGHIJ"[answer]
    elif isinstance(answer, str):
        row["answer"] = answer
    for key in POEM:
        row[key] = (item.get("poem") or {}).get(key, "")
    row["parts"] = json.dumps(item["parts"], ensure_ascii=False) if "parts" in item else ""
    row["meta"] = json.dumps(item["meta"], ensure_ascii=False) if "meta" in item else ""
    return row


def header(rows: list[dict[str, str]]) -> list[str]:
    return list(dict.fromkeys(k for row in rows for k in row))


def csv_text(delimiter: str = ",") -> str:
    rows = [as_row(x) for x in pool_lines()]
    out = io.StringIO()
    writer = csv.DictWriter(out, header(rows), delimiter=delimiter, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def workbook_bytes(sheet: str = "题库", before: str | None = None) -> bytes:
    rows = [as_row(x) for x in pool_lines()]
    book = Workbook()
    first = book.active
    if before:  # another sheet first: the pool must be named to be read
        first.title = before
        first.append(["说明"])
        first.append(["请见下一页"])
        pool = book.create_sheet(sheet)
    else:
        first.title = sheet
        pool = first
    names = header(rows)
    pool.append(names)
    for row in rows:
        pool.append([row.get(name) or None for name in names])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def write(tmp_path: Path, name: str, content: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


VARIANTS = {
    "gbk": ("pool.csv", lambda: csv_text().encode("gbk"), []),
    "gb18030": ("pool.csv", lambda: csv_text().encode("gb18030"), []),
    "utf-8-bom": ("pool.csv", lambda: csv_text().encode("utf-8-sig"), []),
    "utf-16-bom": ("pool.csv", lambda: csv_text().encode("utf-16"), []),
    "utf-16-le-no-bom": ("pool.csv", lambda: csv_text().encode("utf-16-le"), []),
    "utf-16-tabs (Excel: Unicode text)": ("pool.tsv", lambda: csv_text("\t").encode("utf-16"), []),
    "gbk-named": ("pool.csv", lambda: csv_text().encode("gbk"), ["--encoding", "GBK"]),
    "gbk-jsonl": (
        "pool.jsonl",
        lambda: (FORMATS / "pool.jsonl").read_text("utf-8").encode("gb18030"),
        [],
    ),
    "utf-16-jsonl": (
        "pool.jsonl",
        lambda: (FORMATS / "pool.jsonl").read_text("utf-8").encode("utf-16"),
        [],
    ),
    "xlsx": ("pool.xlsx", lambda: workbook_bytes(), []),
    "xlsx-named-sheet": (
        "pool.xlsx",
        lambda: workbook_bytes(before="说明"),
        ["--sheet", "题库"],
    ),
}


def items() -> list[tuple[Any, ...]]:
    return sorted(
        Item.objects.values_list(
            "external_id", "task__slug", "stem", "options", "answer", "parts", "poem_text"
        )
    )


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_pool_in_the_files_researchers_bring_loads_as_the_utf8_jsonl(
    variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("load_study", str(FORMATS / "study.json"))
    name, make, extra = VARIANTS[variant]
    call_command("load_pool", write(tmp_path, name, make()), *STUDY, *extra)
    loaded = items()
    assert len(loaded) == len(pool_lines())
    assert "李白" in json.dumps(loaded, ensure_ascii=False)  # Chinese read, not mojibake
    capsys.readouterr()
    # The same pool as UTF-8 JSONL finds every item as it is: nothing created or updated.
    call_command("load_pool", str(FORMATS / "pool.jsonl"), *STUDY)
    out = capsys.readouterr().out
    assert f"0 created, 0 updated, {len(loaded)} unchanged" in out
    assert items() == loaded


def refused(*args: str) -> str:
    before = snapshot()
    with pytest.raises(CommandError) as err:
        call_command(*args)
    assert snapshot() == before
    return str(err.value)


def test_a_file_in_no_encoding_it_could_be_names_its_line_and_says_what_to_do(
    tmp_path: Path,
) -> None:
    call_command("load_study", str(FORMATS / "study.json"))
    # UTF-8 with broken bytes on line 2: reported there, never read as GB18030 mojibake
    text = csv_text().encode("utf-8").split(b"\r\n")
    assert "杜甫".encode() in text[1]
    text[1] = text[1].replace("杜甫".encode(), b"\xb6\xc5\xb8")
    message = refused("load_pool", write(tmp_path, "pool.csv", b"\r\n".join(text)), *STUDY)
    assert "pool.csv, line 2: not valid UTF-8" in message
    assert "CSV UTF-8" in message and "--encoding" in message


def test_a_named_encoding_is_used_strictly(tmp_path: Path) -> None:
    call_command("load_study", str(FORMATS / "study.json"))
    path = write(tmp_path, "pool.csv", csv_text().encode("gbk"))
    message = refused("load_pool", path, *STUDY, "--encoding", "utf-8")
    assert "cannot be read as utf-8-sig" in message and ", line 2" in message
    assert "unknown encoding 'klingon'" in refused(
        "load_pool", path, *STUDY, "--encoding", "klingon"
    )


def test_workbooks_where_text_is_expected_and_old_xls_files_say_what_to_do(
    tmp_path: Path,
) -> None:
    call_command("load_study", str(FORMATS / "study.json"))
    as_csv = refused("load_pool", write(tmp_path, "pool.csv", workbook_bytes()), *STUDY)
    assert "Excel workbook (XLSX)" in as_csv and "name it .xlsx" in as_csv
    study = refused("load_study", write(tmp_path, "study.json", workbook_bytes()))
    assert "Excel workbook (XLSX)" in study
    old = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100
    assert ".xls" in refused("load_pool", write(tmp_path, "pool.xls", old), *STUDY)
    assert "save it as .xlsx" in refused("load_pool", write(tmp_path, "pool.csv", old), *STUDY)
    broken = refused("load_pool", write(tmp_path, "pool.xlsx", b"PK\x03\x04broken"), *STUDY)
    assert "not a readable XLSX workbook" in broken
    no_sheet = refused(
        "load_pool", write(tmp_path, "pool.xlsx", workbook_bytes()), *STUDY, "--sheet", "Sheet9"
    )
    assert "no sheet named “Sheet9” (its sheets: 题库)" in no_sheet


def test_workbook_rows_are_checked_with_the_csv_rules_and_named_by_row(tmp_path: Path) -> None:
    call_command("load_study", str(FORMATS / "study.json"))
    book = Workbook()
    sheet = book.active
    sheet.append(["id", "task", "stem", "option_a", "option_b", "answer", None])
    sheet.append(["ck-1", "ck", "问", "甲", "乙", "B", None])
    sheet.append([None] * 7)  # a blank row is passed over, as in CSV
    sheet.append(["ck-2", "ck", "问", "甲", "乙", "D", None])
    sheet.append(["ck-3", "ck", "问", "甲", "乙", 1, "stray"])
    out = io.BytesIO()
    book.save(out)
    message = refused("load_pool", write(tmp_path, "pool.xlsx", out.getvalue()), *STUDY)
    assert "pool.xlsx, line 4, field 'answer': option 'D' is out of range" in message
    assert "pool.xlsx, line 5: cell G5 has a value but its column has no header" in message


def test_responses_exported_as_xlsx_load_back_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("load_study", str(FORMATS / "study.json"))
    call_command("load_pool", str(FORMATS / "pool.jsonl"), *STUDY)
    call_command("load_responses", str(FORMATS / "responses.jsonl"), *STUDY)
    out = tmp_path / "export.xlsx"
    call_command("export_responses", "poetry-understanding", "--format", "xlsx", "--out", str(out))
    before = snapshot()
    capsys.readouterr()
    call_command("load_responses", str(out), *STUDY)
    assert "0 created, 0 updated" in capsys.readouterr().out
    assert snapshot() == before


def test_detection_is_the_documented_rule() -> None:
    text = "id,stem\nq1,春眠不觉晓，处处闻啼鸟\n"
    assert decode_text(text.encode("gbk")).encoding == "gb18030"
    assert decode_text("國破山河在，城春草木深".encode("big5")).encoding == "big5"
    assert decode_text(codecs.BOM_UTF8 + text.encode()).text == text
    assert decode_text(text.encode("utf-16-be")).encoding == "utf_16_be"
    assert decode_text(text.encode("utf-16")).text == text


@pytest.mark.slow
def test_the_upload_page_reads_a_gbk_csv_and_a_named_sheet(client, django_user_model) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from studies.models import Study

    call_command("load_study", str(FORMATS / "study.json"))
    study = Study.objects.get(slug="poetry-understanding")
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    url = reverse("admin:upload")
    assert 'name="encoding"' in client.get(url).content.decode()
    gbk = SimpleUploadedFile("题库.csv", csv_text().encode("gbk"))
    page = client.post(url, {"kind": "pool", "study": study.pk, "file": gbk}, follow=True)
    assert "文件已导入。" in page.content.decode()
    loaded = items()
    book = SimpleUploadedFile("题库.xlsx", workbook_bytes(before="说明"))
    data = {"kind": "pool", "study": study.pk, "file": book, "sheet": "题库"}
    page = client.post(url, data, follow=True)
    assert "文件已导入。" in page.content.decode() and items() == loaded
    assert Item.objects.count() == len(pool_lines())
