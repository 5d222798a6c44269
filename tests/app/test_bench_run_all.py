"""``make bench``: run_all runs every bench script, merges results with their baselines
and ratios into bench/results.json, and rewrites the table between the markers only."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import figures, run_all  # noqa: E402

FAKE_SUBMIT = """
import json, sys
from pathlib import Path
quick = "--quick" in sys.argv
out = Path(__file__).parent / "results" / "submit.json"
out.parent.mkdir(exist_ok=True)
out.write_text(json.dumps({"quick": quick, "clients": 50, "goal_ratio": 0.7,
    "meets_goal": True, "floor": {"throughput_rps": 400.0, "p99_ms": 200.0},
    "submit": {"throughput_rps": 300.0, "p99_ms": 250.0}}))
"""


def test_run_all_runs_each_bench_merges_results_and_regenerates_the_table(
    tmp_path, monkeypatch
) -> None:
    bench = tmp_path / "bench"
    (bench / "results").mkdir(parents=True)
    (bench / "bench_submit.py").write_text(FAKE_SUBMIT)
    (bench / "bench_broken.py").write_text("raise SystemExit(3)")
    doc = tmp_path / "performance.md"
    doc.write_text("intro\n<!-- bench:start -->\nold\n<!-- bench:end -->\noutro\n")
    for name, value in {"BENCH": bench, "RESULTS": bench / "results", "DOC": doc,
                        "MERGED": bench / "results.json"}.items():  # fmt: skip
        monkeypatch.setattr(run_all, name, value)

    assert run_all.main(["--quick"]) == 1  # one benchmark failed

    merged = json.loads((bench / "results.json").read_text())
    assert merged["runs"]["submit"]["status"] == "ok" and merged["runs"]["submit"]["fresh"]
    assert merged["runs"]["submit"]["result"]["quick"] is True  # --quick passed through
    assert merged["runs"]["broken"]["status"] == "failed (exit 3)"
    throughput = merged["figures"][0]
    assert (throughput["value"], throughput["baseline_value"], throughput["ratio"]) == (
        300.0, 400.0, 0.75,
    )  # fmt: skip
    text = doc.read_text()
    assert text.startswith("intro\n<!-- bench:start -->\n") and text.endswith("-->\noutro\n")
    assert "old" not in text and "| submission throughput, sqlite | 300 req/s |" in text
    assert "saturation (50 closed-loop clients; gunicorn, sqlite)" in text
    assert "Failed in this run: `broken` failed (exit 3)." in text


def test_load_test_figures_separate_the_realistic_and_saturation_regimes() -> None:
    result = {
        "realistic": {"volunteers": 200, "latency": {"answer": {"p50_ms": 9, "p95_ms": 30,
                      "p99_ms": 60}}, "errors": {}, "check": {"acknowledged": 900, "lost": 0,
                      "doubled": 0}},
        "saturation": {"answers": {"answers_per_second": 80.0},
                       "floor": {"answers_per_second": 100.0}},
    }  # fmt: skip
    found = {f.name: f for f in figures.figures("load", result)}
    p99 = found["answer p99 (p50 9, p95 30)"]
    assert (p99.value, p99.ratio, p99.meets, p99.regime.split()[0]) == (60, 0.6, True, "realistic")
    sat = found["answers per second, whole volunteer flow (enrol, next, answer+claim)"]
    # The whole flow is shown beside the floor, not judged: submission alone is (below).
    assert (sat.ratio, sat.meets, sat.regime.split()[0]) == (0.8, None, "saturation")
    assert found["answers lost + doubled + errors of 900"].value == 0


def test_submit_figures_give_one_row_per_database_each_judged_against_its_floor() -> None:
    run = {"clients": 50, "server": "gunicorn, 2 workers x 1 thread(s)", "goal_ratio": 0.7}
    result = {"runs": {
        "sqlite": {**run, "floor": {"throughput_rps": 1000.0, "p99_ms": 40.0},
                   "submit": {"throughput_rps": 750.0, "p99_ms": 50.0}, "meets_goal": True},
        "postgresql": {**run, "floor": {"throughput_rps": 1000.0, "p99_ms": 50.0},
                       "submit": {"throughput_rps": 600.0, "p99_ms": 90.0}, "meets_goal": False},
    }}  # fmt: skip
    found = {f.name: f for f in figures.figures("submit", result)}
    lite, pg = found["submission throughput, sqlite"], found["submission throughput, postgresql"]
    assert (lite.ratio, lite.meets, pg.ratio, pg.meets) == (0.75, True, 0.6, False)
    assert (
        pg.regime
        == "saturation (50 closed-loop clients; gunicorn, 2 workers x 1 thread(s), postgresql)"
    )
    assert found["submission p99, postgresql"].ratio == 1.8


def test_report_alpha_is_judged_on_large_tables_and_the_sql_read_shown_beside() -> None:
    def table(ratings: int, seconds: float) -> dict:
        return {"table": f"t{ratings}", "ratings": ratings, "from_database_seconds": seconds,
                "package_precounted_seconds": 0.01, "alpha_on_built_table_seconds": 0.005,
                "goal_ratio": 2.0}  # fmt: skip

    result = {"alpha_from_database": [table(500, 0.05), table(200_000, 0.3)]}
    small, small_sql, large, large_sql = figures.figures("report", result)
    assert (small.ratio, small.meets) == (0.5, None)  # a fixed cost, not a scaling figure
    assert (large.value, large.ratio, large.meets) == (0.005, 0.5, True)
    # The SQL read is shown beside, never judged against the package's bare call.
    assert (small_sql.ratio, large_sql.ratio, large_sql.meets) == (5.0, 30.0, None)


def test_dashboard_1m_figures_judge_p95_and_the_report_against_the_goals() -> None:
    result = {"responses": 1000, "database": "sqlite",
              "during_collection": {"dashboard": {"n": 20, "p50_ms": 400.0, "p95_ms": 1200.0},
                                    "floor": {"p95_ms": 10.0}},
              "report_job": {"seconds": 40.0, "peak_rss_mb": 500.0},
              "report_cli": {"seconds": 20.0, "peak_rss_mb": 1100.0}}  # fmt: skip
    dash, job, job_mb, cli, cli_mb = figures.figures("dashboard_1m", result)
    assert (dash.value, dash.ratio, dash.meets) == (1200.0, 120.0, False)
    assert (job.meets, job_mb.meets, cli.meets, cli_mb.meets) == (False, True, True, False)
    assert cli_mb.ratio == round(1100 / 1024, 3)


def test_researchers_figures_are_judged_on_the_goal_beside_the_floor_of_the_same_run() -> None:
    lat = lambda p50, p99: {"p50_ms": p50, "p99_ms": p99}  # noqa: E731
    result = {
        "layout": "split",
        "researchers": {"clients": 3},
        "volunteers": {"n": 200, "retries": 0, "errors": {},
                       "latency": {"answer": lat(40.0, 90.0), "next": lat(30.0, 120.0)}},
        "floor": {"latency": {"answer": lat(20.0, 60.0), "next": lat(20.0, 80.0)}},
    }  # fmt: skip
    found = {f.name.split(" (")[0]: f for f in figures.figures("researchers", result)}
    answer, nxt = found["volunteers' answer p99"], found["volunteers' next p99"]
    assert (answer.baseline_value, answer.ratio, answer.meets) == (60.0, 1.5, True)
    assert (nxt.baseline_value, nxt.ratio, nxt.meets) == (80.0, 1.5, False)
    assert "no researcher" in answer.baseline
    del result["floor"]  # a run without the floor is judged on the goal alone
    answer = {f.name.split(" (")[0]: f for f in figures.figures("researchers", result)}[
        "volunteers' answer p99"
    ]
    assert (answer.baseline, answer.baseline_value, answer.ratio) == ("goal", 100.0, 0.9)
