"""The shape the architecture promises (docs/architecture.md), as import-linter
contracts in pyproject.toml: the pure packages import no Django and nothing of the
project, and app dependencies point one way (studies ← annotation ← scoring ← research
← jobs / demo). ``make lint`` runs the same contracts."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_are_kept() -> None:
    from importlinter.cli import lint_imports

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert lint_imports(no_cache=True) == 0, "an import contract is broken: run lint-imports"
    finally:
        os.chdir(cwd)
