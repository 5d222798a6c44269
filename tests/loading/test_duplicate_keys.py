"""A key named twice in one object is refused with the file, the line and the key, in
every JSON, JSONL and YAML reader (JSON and PyYAML would keep the last value: a study
file with two ``slug`` keys would quietly be another study)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from studies.loading.plain import DuplicateKey, loads
from studies.loading.problems import LoadError
from studies.loading.readers import Source, UniqueKeyLoader
from studies.models import Study
from tests.loading.helpers import loader

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
pytestmark = pytest.mark.django_db


def _refused(kind: str, source: Source, **kwargs: object) -> list[tuple[object, ...]]:
    with pytest.raises(LoadError) as caught:
        loader(kind)(source, **kwargs)
    return [(p.file, p.line, p.field, p.message) for p in caught.value.problems]


def test_a_study_json_with_two_slugs_is_refused_at_the_second() -> None:
    text = (FORMATS / "study.json").read_text("utf-8")
    text = text.replace('  "title":', '  "slug": "another-study",\n  "title":', 1)
    (problem,) = _refused("study", Source("study.json", text.encode(), "json"))
    assert problem[:3] == ("study.json", 3, "slug")
    assert "'slug' appears twice" in str(problem[3])
    assert not Study.objects.exists()


def test_a_nested_repeat_in_a_json_document_names_its_line() -> None:
    text = (FORMATS / "study.json").read_text("utf-8")
    text = text.replace('"kind": "choice",', '"kind": "choice", "kind": "multi",', 1)
    (problem,) = _refused("study", Source("s.json", text.encode(), "json"))
    line = next(i for i, x in enumerate(text.splitlines(), 1) if '"kind": "multi"' in x)
    assert problem[:3] == ("s.json", line, "kind")


def test_a_study_yaml_with_two_slugs_is_refused_at_the_second() -> None:
    data = json.loads((FORMATS / "study.json").read_text("utf-8"))
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    text = text.replace("title:", "slug: another-study\ntitle:", 1)
    (problem,) = _refused("study", Source("study.yaml", text.encode(), "yaml"))
    line = text.splitlines().index("slug: another-study") + 1
    assert problem[:3] == ("study.yaml", line, "slug")
    assert "'slug' appears twice" in str(problem[3])
    assert not Study.objects.exists()


def test_a_yaml_merge_may_still_override_keys() -> None:
    text = "base: &b {min: 1, max: 5}\nscale:\n  <<: *b\n  max: 7\n"
    assert yaml.load(text, Loader=UniqueKeyLoader)["scale"] == {"min": 1, "max": 7}
    with pytest.raises(yaml.YAMLError):
        yaml.load("a: 1\nb: 2\na: 3\n", Loader=UniqueKeyLoader)


@pytest.mark.parametrize(
    ("kind", "name", "line"),
    [
        ("pool", "pool.jsonl", '{"id": "ck-new", "task": "ck", "stem": "问", '
         '"options": ["甲", "乙"], "answer": 0, "answer": 1}'),
        ("responses", "responses.jsonl", '{"participant": "p-1", "group": "C", '
         '"item": "ck-001", "answer": 0, "answer": 1}'),
        ("llm_outputs", "outputs.jsonl", '{"model": "m", "item": "ck-001", '
         '"answer": 0, "answer": 1}'),
    ],
)  # fmt: skip
def test_a_jsonl_line_naming_a_key_twice_is_refused(
    example_study: Study, kind: str, name: str, line: str
) -> None:
    good = (FORMATS / name).read_text("utf-8").splitlines()[:1] if kind != "llm_outputs" else []
    content = "\n".join([*good, line]).encode()
    problems = _refused(kind, Source(name, content, "jsonl"), study=example_study)
    assert (name, len(good) + 1, "answer") in [p[:3] for p in problems]


def test_loads_refuses_a_repeat_at_any_depth() -> None:
    assert loads('{"a": {"b": 1, "c": 2}}') == {"a": {"b": 1, "c": 2}}
    with pytest.raises(DuplicateKey) as caught:
        loads('{"a": [{"b": 1, "b": 2}]}')
    assert caught.value.key == "b"


def test_the_offline_scorer_refuses_a_repeated_key(tmp_path: Path) -> None:
    from scoring.prosody.cli import ToolError, read_poems

    poems = tmp_path / "poems.jsonl"
    poems.write_text('{"id": "a", "text": "床前明月光", "text": "x"}\n', "utf-8")
    with pytest.raises(ToolError, match=r"line 1.*'text' appears twice"):
        read_poems(poems)


def test_the_batch_scorer_refuses_a_repeated_key_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from scoring.prosody import batch

    poems = tmp_path / "poems.jsonl"
    poems.write_text('{"id": "a", "text": "床前明月光"}\n{"id": "b", "id": "c", "text": "x"}\n')
    with pytest.raises(batch.InputError, match=r"poems.jsonl, line 2: .*'id' appears twice"):
        batch.read_poems(poems)
    assert batch.main([str(poems)]) == 2
    assert "line 2" in capsys.readouterr().err
