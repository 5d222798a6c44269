"""Hostile study definitions (JSON and YAML): a clean load or a LoadError, never a
traceback, and a rejected file leaves every table as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from studies.loading.readers import Source
from studies.loading.study import KNOWN_KEYS
from tests.fuzz.strategies import FUZZ, assert_loads_or_rejects, hostile_bytes, mutants
from tests.loading.helpers import loader

study_load = loader("study")

pytestmark = pytest.mark.django_db
STUDY = json.loads((Path(__file__).parents[1] / "fixtures/formats/study.json").read_text())
MUTANT = mutants([STUDY], sorted(KNOWN_KEYS))
YAML_TRAPS = st.sampled_from(
    [
        "slug: a\nwhen: 2001-12-14\n",
        "slug: a\nblob: !!binary aGVsbG8=\n",
        "a: !!set {x, y}\n",
        "a: &a [*a]\n",
        "a: !!python/object:os.system x\n",
        "? [a, b]\n: c\n",
        "- [" * 2000,
        "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n",
        "slug: a\ntitle: .nan\n",
        "1: 2\n",
        "null\n",
        "'\\x00'\n",
        "slug: a\ntasks: .inf\n",
        "x: 1" + "0" * 5000 + "\n",
    ]
)


@pytest.mark.slow
@FUZZ
@given(study=MUTANT, fmt=st.sampled_from(["json", "yaml"]))
def test_study_with_hostile_values_loads_or_is_rejected_cleanly(study, fmt: str, db) -> None:
    if fmt == "json":
        content = json.dumps(study, allow_nan=True).encode("utf-8", "surrogatepass")
    else:
        text = yaml.safe_dump(study, allow_unicode=True)
        content = text.encode("utf-8", "surrogatepass")
    source = Source(f"study.{fmt}", content, fmt)
    assert_loads_or_rejects(lambda: study_load(source))


@FUZZ
@given(
    content=st.one_of(hostile_bytes(), YAML_TRAPS.map(str.encode)),
    fmt=st.sampled_from(["json", "yaml"]),
)
@pytest.mark.slow
def test_any_bytes_as_a_study_are_rejected_cleanly(content: bytes, fmt: str, db) -> None:
    source = Source(f"study.{fmt}", content, fmt)
    assert_loads_or_rejects(lambda: study_load(source))
