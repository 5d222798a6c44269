"""The figure fonts' folder stays bounded (research.figures.fonts.prune_subsets)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from research.figures import fonts


def _subset(folder: Path, name: str, mtime: float) -> Path:
    path = folder / f"figure-{name}.ttf"
    path.write_bytes(b"x")
    os.utime(path, (mtime, mtime))
    return path


def test_prune_keeps_the_most_recently_used_and_spares_those_in_use(tmp_path: Path) -> None:
    now = 1_000_000.0
    old = [_subset(tmp_path, f"old{i}", now - 10_000 - i) for i in range(5)]
    recent = [_subset(tmp_path, f"new{i}", now - 60 - i) for i in range(3)]
    part = tmp_path / "x.part"
    part.write_bytes(b"")
    os.utime(part, (now - 5_000, now - 5_000))
    removed = fonts.prune_subsets(tmp_path, keep=2, now=now)
    # keep=2 leaves new0, new1; new2 is beyond it but in use (60 s old): spared
    assert sorted(p.name for p in removed) == sorted([p.name for p in old] + [part.name])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in recent)


def test_a_hit_marks_the_subset_used(tmp_path: Path, settings: Any) -> None:
    settings.DATA_DIR = tmp_path
    path = fonts.truetype_subset("诗")
    os.utime(path, (1.0, 1.0))
    assert fonts.truetype_subset("诗") == path
    assert path.stat().st_mtime > 1_000_000


def test_building_prunes_beyond_the_setting(tmp_path: Path, settings: Any) -> None:
    settings.DATA_DIR = tmp_path
    settings.FIGURE_FONT_CACHE_FILES = 1
    folder = tmp_path / "fonts"
    folder.mkdir()
    stale = _subset(folder, "stale", 1.0)
    built = fonts.truetype_subset("评")
    assert built.exists() and not stale.exists()
