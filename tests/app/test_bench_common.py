"""Every bench writes its result through ``bench.common.write_result``: at
bench/results/<name>.json (where ``run_all`` reads it) or a path given, named and timed;
``report_result`` also prints it and where it went."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import common  # noqa: E402


def test_a_result_is_written_named_and_timed_where_run_all_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(common, "RESULTS", tmp_path / "results")
    path = common.report_result("prosody", {"ratio": 0.4, "note": "诗"})
    assert path == tmp_path / "results" / "prosody.json" == common.result_path("prosody")
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["benchmark"] == "prosody" and written["ratio"] == 0.4
    assert written["at"].endswith("Z") and "诗" in path.read_text(encoding="utf-8")
    shown = capsys.readouterr().out
    assert '"note": "诗"' in shown and shown.rstrip().endswith(f"written to {path}")


def test_a_result_keeps_its_own_name_and_goes_to_a_path_given(tmp_path: Path) -> None:
    out = tmp_path / "elsewhere" / "a.json"
    path = common.write_result("agreement", {"benchmark": "alpha vs package"}, out)
    assert path == out
    assert json.loads(out.read_text(encoding="utf-8"))["benchmark"] == "alpha vs package"


def test_a_latency_quantile_is_the_observed_value_at_rank_floor_q_n() -> None:
    ordered = [k / 1000 for k in range(1, 101)]  # 1 … 100 ms
    assert common.quantile_ms(ordered, 0.5) == pytest.approx(51.0)  # rank 50 from 0
    assert common.quantile_ms(ordered, 0.99) == pytest.approx(100.0)
    assert common.quantile_ms(ordered, 1.0) == pytest.approx(100.0)  # clipped to the last
    assert common.quantile_ms([0.25], 0.99) == 250.0
