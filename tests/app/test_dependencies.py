"""The two locks: production installs requirements/runtime.txt, which holds no test or lint
tool and no GPL package; requirements/dev.txt adds the tools with the same run-time pins."""

from __future__ import annotations

import email.message
import importlib.metadata as md
import re
from pathlib import Path
from typing import cast

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s\\;]+)", re.MULTILINE)
TEST_AND_LINT_TOOLS = {
    "pytest", "pytest-django", "pytest-xdist", "hypothesis", "playwright", "mypy", "ruff",
    "import-linter", "django-stubs", "djangorestframework-stubs", "schemathesis",
    "scikit-learn", "pingouin", "girth", "krippendorff", "zxing-cpp", "aiohttp", "uv",
}  # fmt: skip


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> dict[str, str]:
    return {canonical(n): v for n, v in PIN.findall(path.read_text(encoding="utf-8"))}


def is_gpl(dist: md.Distribution) -> bool:
    """GPL (any version) but not LGPL, from the licence expression, field or classifiers."""
    meta = cast(email.message.Message, dist.metadata)  # what it is (its protocol has no get)
    texts = [meta.get("License-Expression") or "", (meta.get("License") or "")[:200]]
    texts += [c for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    joined = " ".join(texts)
    joined = re.sub(r"LGPL[\w.\-+]*|Lesser General Public", "", joined)
    return bool(re.search(r"\bGPL|General Public License", joined))


def test_runtime_lock_has_no_test_or_lint_tool() -> None:
    runtime = pins(ROOT / "requirements" / "runtime.txt")
    assert runtime, "requirements/runtime.txt pins nothing"
    assert sorted(set(runtime) & {canonical(t) for t in TEST_AND_LINT_TOOLS}) == []


def test_runtime_lock_has_no_gpl_package() -> None:
    gpl = []
    for name in pins(ROOT / "requirements" / "runtime.txt"):
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            pytest.fail(f"{name} is pinned in runtime.txt but not installed: run `make install`")
        if is_gpl(dist):
            gpl.append(name)
    assert gpl == []


def test_licence_check_sees_a_gpl_package() -> None:
    # The control: the test references include GPL packages, and the check must see them.
    assert is_gpl(md.distribution("krippendorff"))
    assert not is_gpl(md.distribution("psycopg"))  # LGPL is allowed


def test_dev_lock_keeps_every_runtime_pin() -> None:
    runtime = pins(ROOT / "requirements" / "runtime.txt")
    dev = pins(ROOT / "requirements" / "dev.txt")
    assert {n: dev.get(n) for n in runtime} == runtime
    assert {canonical(t) for t in ("pytest", "krippendorff", "pytest-xdist")} <= set(dev)


def test_nothing_the_platform_runs_imports_a_test_reference() -> None:
    apps = ["config", "studies", "annotation", "scoring", "research", "jobs", "demo"]
    pattern = re.compile(r"^\s*(?:import|from)\s+(krippendorff|pingouin|girth|sklearn)\b", re.M)
    found = [
        str(path.relative_to(ROOT))
        for app in apps
        for path in (ROOT / app).rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
