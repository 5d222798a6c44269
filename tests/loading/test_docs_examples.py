"""Docs that load as written: every example block of docs/formats.md and docs/loading.md,
in the order the docs give them, into a fresh database.

A file example is marked ``<!-- example: NAME[, encoding ENC] -->`` on the line before
its block: it is saved under NAME (in ENC, default UTF-8) and loaded at once with the
command for its kind; a ``sh`` block's ``manage.py`` commands are run as written, in the
directory holding those files; a ``text`` block is output shown to the reader; a block
marked ``<!-- not run: REASON -->`` shows a command on the reader's own data. Any other
block fails this test, so a new example cannot escape it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.models import AggregateResult, Response
from studies.models import Item, Study

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(
    r"(?:<!-- example: (?P<name>[^,>]+?)(?:, encoding (?P<enc>[\w-]+))? -->\n)?"
    r"(?:<!-- not run: (?P<why>[^>]+?) -->\n)?"
    r"(?P<indent>[ ]*)```(?P<lang>\w*)\n(?P<body>.*?)\n(?P=indent)```",
    re.S,
)
LOADERS = {
    "study.json": ["load_study"],
    "pool.jsonl": ["load_pool", "--study", "poetry-understanding"],
    "llm_outputs.jsonl": ["load_llm_outputs", "--study", "poetry-understanding"],
    "responses.jsonl": ["load_responses", "--study", "poetry-understanding"],
    "题库.csv": ["load_pool", "--study", "poetry-understanding"],
    "study-warmup.json": ["load_study"],
    "pool-warmup.jsonl": ["load_pool", "--study", "poetry-warmup"],
    "study-generated.json": ["load_study"],
}
SKIPPED = {"migrate"}  # pytest-django has migrated the test database


def blocks(name: str) -> list[re.Match[str]]:
    return list(BLOCK.finditer((DOCS / name).read_text("utf-8")))


def dedent(body: str, indent: str) -> str:
    return "\n".join(line.removeprefix(indent) for line in body.splitlines()) + "\n"


def commands(script: str) -> list[list[str]]:
    """The ``manage.py`` commands of a shell block (comments and ``export`` lines aside)."""
    out = []
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        if words and words[0].endswith("python") and words[1:2] == ["manage.py"]:
            out.append(words[2:])
        else:
            assert not words or words[0] == "export", f"not a manage.py command: {line}"
    return out


def test_every_example_of_the_loading_docs_loads_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    ran: list[str] = []
    for doc in ("formats.md", "loading.md"):
        found = blocks(doc)
        assert found, doc
        for block in found:
            lang, body = block["lang"], dedent(block["body"], block["indent"])
            where = f"{doc}: block {body[:60]!r}"
            if block["why"]:  # a command shown on the reader's own files, with the reason
                continue
            if block["name"]:
                name = block["name"]
                assert name in LOADERS, f"{where}: no loader for {name}"
                (tmp_path / name).write_bytes(body.encode(block["enc"] or "utf-8"))
                command, *options = LOADERS[name]
                call_command(command, name, *options)
                ran.append(f"{command} {name}")
            elif lang == "sh":
                for words in commands(body):
                    if words[0] not in SKIPPED:
                        call_command(*words)
                        ran.append(" ".join(words))
            else:
                assert lang == "text", f"{where}: neither a named file, a sh block nor text"
    out = capsys.readouterr().out
    study = Study.objects.get(slug="poetry-understanding")
    ids = set(Item.objects.filter(study=study).values_list("external_id", flat=True))
    assert {"ck-001", "au-017", "oq-005", "poem-0001", "gen-0001", "ck-101", "ck-102"} <= ids
    assert Response.objects.filter(rater__kind="human").exists()
    assert AggregateResult.objects.filter(model="gpt-4o").exists()
    assert (tmp_path / "poetry-understanding.xlsx").stat().st_size > 0
    # the session of loading.md loads formats.md's files again: nothing changes
    assert "pool.jsonl: 4 rows; 0 created, 0 updated, 4 unchanged" in out
    assert "load_pool 题库.csv --study poetry-understanding --encoding gbk" in ran
    # practice and qualification, the quality rules and the finish page (formats.md)
    warm = Study.objects.get(slug="poetry-warmup")
    assert warm.practice_task == "warm" and warm.qualification["task"] == "qual"
    assert warm.finish_results and warm.quality_rules["speed_ratio"] == 0.3
    assert Item.objects.filter(study=warm, task__slug="qual").count() == 2
    # a study of generated poems only: no group, a rating task without dimensions
    generated = Study.objects.get(slug="cciv-rules")
    assert not generated.groups.exists() and generated.tasks.get().dimensions == []
