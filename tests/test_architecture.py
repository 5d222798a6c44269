"""The shape the architecture promises: pure packages import no Django, and app
dependencies point one way (studies ← annotation ← scoring)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PURE = ("scoring/prosody", "scoring/agreement")
ORDER = {"studies": 0, "annotation": 1, "scoring": 2}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_pure_packages_import_no_django_and_nothing_from_the_apps() -> None:
    offenders = []
    for folder in PURE:
        for path in (ROOT / folder).rglob("*.py"):
            for name in _imports(path):
                top = name.split(".")[0]
                inside_pure = any(name.startswith(p.replace("/", ".")) for p in PURE)
                if top in {"django", "rest_framework", "studies", "annotation", "config"} or (
                    top == "scoring" and not inside_pure
                ):
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_app_dependencies_point_one_way() -> None:
    offenders = []
    for app, rank in ORDER.items():
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for name in _imports(path):
                top = name.split(".")[0]
                if top in ORDER and ORDER[top] > rank:
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []
