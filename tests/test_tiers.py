"""The tiers' marker check (tests/tiers.py): a test that starts a browser or a server and
lacks its marker is found; the real suite has none such."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from tests.tiers import POSTGRES_PATHS, marker_problems

ROOT = Path(__file__).resolve().parent.parent


def fake(nodeid: str, fixtures: list[str], markers: list[str]) -> pytest.Item:
    marks = [SimpleNamespace(name=m) for m in markers]
    item: Any = SimpleNamespace(nodeid=nodeid, fixturenames=fixtures, iter_markers=lambda: marks)
    return cast(pytest.Item, item)


def test_an_unmarked_browser_or_server_test_is_found() -> None:
    items = [
        fake("a::drives_chromium", ["db", "browser"], []),
        fake("b::serves", ["live_server"], ["slow"]),
        fake("c::load", ["stack"], []),
        fake("d::marked", ["browser", "live_server"], ["browser"]),
        fake("e::served_under_load", ["live_server"], ["load"]),
        fake("f::plain", ["db"], []),
    ]
    problems = marker_problems(items)
    assert [p.split(":")[0] for p in problems] == ["a", "b", "c"]
    assert "needs a browser marker" in problems[0]
    assert "needs a browser or load marker" in problems[1]


@pytest.mark.slow
def _whole_suite_collected(config: pytest.Config) -> bool:
    """Whether this run collected every test file (no paths given, or the tests folder or
    the root): then its own collection already ran the check on the whole suite (a -m or
    -k selection deselects after the check)."""
    whole = {ROOT, ROOT / "tests"}
    return all((Path(config.invocation_params.dir) / a).resolve() in whole for a in config.args)


def test_the_collected_suite_has_every_marker_it_needs(request: pytest.FixtureRequest) -> None:
    # Every collection runs the check itself (tests/conftest.py) and stops with a usage
    # error; a run of a subset of the files collects the whole suite here.
    if _whole_suite_collected(request.config):
        return
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "missing their tier marker" not in done.stdout + done.stderr


def test_engine_dependent_paths_exist() -> None:
    missing = [p for p in POSTGRES_PATHS if not (ROOT / p).exists()]
    assert missing == []
