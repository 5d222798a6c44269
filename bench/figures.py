"""The headline figures of each benchmark's result file, each with its baseline.

Every benchmark writes its own JSON shape (bench/results/<name>.json); one function per
benchmark picks the figures that matter, each as a value beside the baseline measured in
the same run and their ratio, with the regime it comes from. A missing key (a benchmark
changed its output) drops that figure, never the whole table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Figure:
    benchmark: str
    name: str
    value: float
    unit: str
    baseline: str
    baseline_value: float | None
    ratio: float | None
    regime: str
    goal: str = ""
    meets: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


ALPHA_GOAL_MIN_RATINGS = 10_000


def _ratio(value: float, baseline: float | None) -> float | None:
    return round(value / baseline, 3) if baseline else None


def _get(data: Any, *path: str | int) -> Any:
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def loading(r: dict[str, Any]) -> list[Figure]:
    out = []
    pool, csv, jsonl = r.get("load_pool") or {}, r.get("export_csv") or {}, r.get("export_jsonl")
    rows = f"{r.get('items', '?')} items"
    if "seconds" in pool:
        floor = pool.get("floor_bulk_create_seconds")
        out.append(Figure("loading", f"load_pool, {rows}", pool["seconds"], "s",
                          "bulk_create of the same items", floor, _ratio(pool["seconds"], floor),
                          "batch", "< 20 s", pool.get("meets_target")))  # fmt: skip
    memory = r.get("load_pool_memory") or {}
    if "peak_rss_mb" in memory:
        tenth = memory.get("tenth_peak_rss_mb")
        before = memory.get("previous") or {}
        out.append(
            Figure(
                "loading",
                f"load_pool, {rows}: peak memory ({memory.get('file_mb', 0):.0f} MB file; "
                f"before streaming: {before.get('peak_rss_mb', '?')} MB at "
                f"{before.get('items', '?')} items)",
                memory["peak_rss_mb"],
                "MB",
                f"the same load of {memory.get('tenth_items', '?')} items",
                tenth,
                _ratio(memory["peak_rss_mb"], tenth),
                "batch",
                "flat: ≤ 1.2 × a tenth of the file (issue 26)",
                tenth is not None and memory["peak_rss_mb"] <= 1.2 * tenth,
            )
        )
    floor = csv.get("floor_raw_cursor_seconds")
    for name, part in (("export CSV", csv), ("export JSONL", jsonl or {})):
        if "seconds" in part:
            out.append(Figure("loading", f"{name}, {r.get('responses', '?')} responses",
                              part["seconds"], "s", "raw cursor over the same rows", floor,
                              _ratio(part["seconds"], floor), "batch",
                              "< 20 s, < 300 MB" if part is csv else "",
                              part.get("meets_target")))  # fmt: skip
    return out


def prosody(r: dict[str, Any]) -> list[Figure]:
    workloads = r.get("workloads")
    if not isinstance(workloads, dict):  # a result of the one-workload bench, before #22
        workloads = {"ci_modern": r} if "scoring_seconds" in r else {}
    what = {
        "ci_modern": "score {} Song ci (modern)",
        "classical": "score {} poems, classical (214 regulated Tang poems and Song ci)",
    }
    return [Figure("prosody", what.get(name, name + " {}").format(w.get("poems", "?")),
                   w["scoring_seconds"], "s", "pypinyin alone on the same text (CPU time)"
                   if r.get("clock", "").startswith("process") else "pypinyin alone on the same text",
                   w.get("pypinyin_seconds"), _ratio(w["scoring_seconds"], w.get("pypinyin_seconds")),
                   "batch", f"speed ≥ {r.get('goal_ratio', '?')} × pypinyin's", w.get("meets_goal"))
            for name, w in workloads.items() if "scoring_seconds" in w]  # fmt: skip


def agreement(r: dict[str, Any]) -> list[Figure]:
    out = []
    levels = _get(r, "alpha_vs_package", "levels") or {}
    n = _get(r, "alpha_vs_package", "n_ratings")
    for level, data in levels.items():
        if "from_arrays_s" in data:
            base = data.get("package_precounted_s")
            out.append(Figure("agreement", f"alpha ({level}), {n} ratings", data["from_arrays_s"],
                              "s", "krippendorff package on pre-counted values", base,
                              _ratio(data["from_arrays_s"], base), "batch"))  # fmt: skip
    hundred = r.get("hundred_point_scale") or {}
    package = hundred.get("package_alone_dense_counts") or {}
    for name, label in (("sparse_5_per_unit", "5 ratings per unit"),
                        ("dense_every_rater", "every rater rates every unit")):  # fmt: skip
        run = hundred.get(name) or {}
        if "peak_rss_mb" in run:
            out.append(Figure("agreement", f"100-point scale, {run.get('n_raters')} raters x "
                              f"{run.get('n_units')} units ({label}), every coefficient with "
                              f"CIs: peak memory", run["peak_rss_mb"], "MB",
                              "the package alone on the dense units x values counts",
                              package.get("peak_rss_mb"),
                              _ratio(run["peak_rss_mb"], package.get("peak_rss_mb")), "batch",
                              "fits in memory (< 1024 MB)", run["peak_rss_mb"] < 1024))  # fmt: skip
    return out


def report(r: dict[str, Any]) -> list[Figure]:
    out = []
    rep = r.get("report") or {}
    if "seconds" in rep:
        target = rep.get("target_seconds")
        out.append(Figure("report", f"report, {r.get('responses', '?')} responses",
                          rep["seconds"], "s", "target (no baseline measured)", target,
                          _ratio(rep["seconds"], target), "batch", f"< {target} s",
                          rep.get("meets_target")))  # fmt: skip
    if "peak_rss_mb" in rep:
        out.append(Figure("report", f"report peak memory, {r.get('responses', '?')} responses",
                          rep["peak_rss_mb"], "MB", "target", 1024.0,
                          _ratio(rep["peak_rss_mb"], 1024.0), "batch", "< 1024 MB",
                          rep["peak_rss_mb"] < 1024))  # fmt: skip
    split = r.get("report_by_source_condition") or {}
    if "seconds" in split:
        name = f"report split by source × condition, {r.get('responses', '?')} responses"
        out.append(Figure("report", name, split["seconds"], "s", "target (no baseline measured)",
                          30.0, _ratio(split["seconds"], 30.0), "batch", "< 30 s",
                          split["seconds"] < 30))  # fmt: skip
        out.append(Figure("report", f"{name}, peak memory", split["peak_rss_mb"], "MB",
                          "target", 1024.0, _ratio(split["peak_rss_mb"], 1024.0), "batch",
                          "< 1024 MB", split["peak_rss_mb"] < 1024))  # fmt: skip
    dash = r.get("dashboard_seconds") or {}
    if "cached" in dash:
        out.append(Figure("report", "dashboard page, first view (report built and cached)",
                          dash["first"], "s", "the report alone (child process)",
                          rep.get("seconds"), _ratio(dash["first"], rep.get("seconds")),
                          "batch", "—"))  # fmt: skip
        out.append(Figure("report", "dashboard page, next views (from the cache)",
                          dash["cached"], "s", "target", 1.0, _ratio(dash["cached"], 1.0),
                          "interactive", "< 1 s", dash["cached"] < 1.0))  # fmt: skip
    for table in r.get("alpha_from_database") or []:
        base = table.get("package_precounted_seconds")
        name = f"{table.get('table')} ({table.get('ratings')} ratings)"
        if "alpha_on_built_table_seconds" in table:
            # The rows read from the database, counted and passed to alpha: the counting
            # and the wrapper against the package's bare call on counts made beforehand.
            # Below ALPHA_GOAL_MIN_RATINGS that call takes a few microseconds and the fixed
            # cost of the wrapper dominates: shown, not judged.
            ratio = _ratio(table["alpha_on_built_table_seconds"], base)
            judged = (table.get("ratings") or 0) >= ALPHA_GOAL_MIN_RATINGS
            goal = table.get("goal_ratio", 2.0)
            out.append(Figure("report", f"alpha from database rows (counting included), {name}",
                              table["alpha_on_built_table_seconds"], "s",
                              "krippendorff package on pre-counted values", base, ratio, "batch",
                              f"ratio ≤ {goal}" if judged else "— (fixed cost dominates)",
                              (ratio or 0) <= goal if judged else None))  # fmt: skip
        if "from_database_seconds" in table:
            out.append(Figure("report", f"alpha including the SQL read, {name}",
                              table["from_database_seconds"], "s",
                              "krippendorff package on pre-counted values", base,
                              _ratio(table["from_database_seconds"], base), "batch",
                              "— (the read of every rating dominates)"))  # fmt: skip
    return out


def submit(r: dict[str, Any]) -> list[Figure]:
    runs = r.get("runs") or {r.get("database", "sqlite"): r}  # older files: one run
    out = []
    for database, run in runs.items():
        sub, floor = run.get("submit") or {}, run.get("floor") or {}
        if "throughput_rps" not in sub:
            continue
        regime = (f"saturation ({run.get('clients', '?')} closed-loop clients; "
                  f"{run.get('server', 'gunicorn')}, {database})")  # fmt: skip
        out += [
            Figure("submit", f"submission throughput, {database}", sub["throughput_rps"],
                   "req/s", "floor view (one INSERT)", floor.get("throughput_rps"),
                   _ratio(sub["throughput_rps"], floor.get("throughput_rps")), regime,
                   f"ratio ≥ {run.get('goal_ratio', 0.7)}", run.get("meets_goal")),
            Figure("submit", f"submission p99, {database}", sub.get("p99_ms", 0), "ms",
                   "floor view p99", floor.get("p99_ms"),
                   _ratio(sub.get("p99_ms", 0), floor.get("p99_ms")), regime),
        ]  # fmt: skip
    return out


def load(r: dict[str, Any]) -> list[Figure]:
    out = []
    real = r.get("realistic") or {}
    regime = f"realistic ({real.get('volunteers', '?')} volunteers, think time)"
    for kind, lat in (real.get("latency") or {}).items():
        if "p99_ms" in lat:
            out.append(Figure("load", f"{kind} p99 (p50 {lat.get('p50_ms')}, p95 "
                              f"{lat.get('p95_ms')})", lat["p99_ms"], "ms", "goal", 100.0,
                              _ratio(lat["p99_ms"], 100.0), regime, "p99 < 100 ms",
                              lat["p99_ms"] < 100))  # fmt: skip
    check = real.get("check") or {}
    if check:
        bad = (
            check.get("lost", 0)
            + check.get("doubled", 0)
            + sum((real.get("errors") or {}).values())
        )
        out.append(Figure("load", f"answers lost + doubled + errors of {check.get('acknowledged')}",
                          bad, "", "none", 0, None, regime, "0", bad == 0))  # fmt: skip
    sat = r.get("saturation") or {}
    answers, floor = (
        _get(sat, "answers", "answers_per_second"),
        _get(sat, "floor", "answers_per_second"),
    )
    if answers is not None:
        out.append(Figure("load", "answers per second, whole volunteer flow (enrol, next, "
                          "answer+claim)", answers, "/s", "floor view INSERTs per second",
                          floor, _ratio(answers, floor),
                          "saturation (50 closed-loop clients, no think time)",
                          "— (submission alone: see submit)"))  # fmt: skip
    faults = r.get("faults") or {}
    fcheck = faults.get("check") or {}
    if fcheck:
        bad = fcheck.get("lost", 0) + fcheck.get("doubled", 0)
        out.append(Figure("load", "lost + doubled after SIGKILL and PostgreSQL restart", bad, "",
                          "none", 0, None, "realistic, with faults", "0", bad == 0))  # fmt: skip
    return out


def irt(r: dict[str, Any]) -> list[Figure]:
    secs, base = r.get("seconds") or {}, r.get("baseline") or {}
    if "total" not in secs:
        return []
    rasch = base.get("girth_rasch_mml_seconds")
    name = f"IRT 1PL + 2PL + abilities, {r.get('raters')} raters x {r.get('units')} units"
    out = [Figure("irt", name, secs["total"], "s", "girth.rasch_mml on the same matrix", rasch,
                  _ratio(secs["total"], rasch), "batch",
                  f"< {r.get('goal_seconds', 60):.0f} s", r.get("meets_goal"))]  # fmt: skip
    slow = base.get("girth_twopl_mml_seconds")
    if "fit_2pl" in secs and slow:
        out.append(Figure("irt", f"2PL fit alone, all {r.get('units')} units", secs["fit_2pl"],
                          "s", f"girth.twopl_mml on {base.get('girth_twopl_mml_units')} units "
                          "(a tenth)", slow, _ratio(secs["fit_2pl"], slow), "batch", "—"))  # fmt: skip
    return out


def pages(r: dict[str, Any]) -> list[Figure]:
    out = []
    for name, run in (r.get("runs") or {}).items():
        page, floor = run.get("pages") or {}, run.get("floor") or {}
        if "per_s" not in page:
            continue
        regime = (f"saturation ({run.get('clients', '?')} closed-loop browsers; "
                  f"{run.get('server', 'gunicorn')}, {run.get('database')})")  # fmt: skip
        ok = (run.get("integrity") or {}).get("ok")
        out.append(Figure("pages", f"answered pages (POST + next GET), {name}; integrity "
                          f"{'ok' if ok else 'FAILED'}", page["per_s"], "/s",
                          "floor view (one INSERT)", floor.get("per_s"),
                          _ratio(page["per_s"], floor.get("per_s")), regime,
                          f"ratio ≥ {run.get('goal_ratio', 0.3)} (PostgreSQL)",
                          run.get("meets_goal") if run.get("database") == "postgresql"
                          else None))  # fmt: skip
    return out


def claims(r: dict[str, Any]) -> list[Figure]:
    """Per-claim time against the smallest pool (saturated phases), and claims per second
    with 4 workers against 2 at the same size, saturated and paced."""
    out = []
    rows = r.get("rows") or []
    who = f"{r.get('participants', '?')} participants of one group"

    def pace(row: dict[str, Any]) -> float:
        return float(row.get("pace_ms", 0.0))

    def find(items: int, workers: int, pace_ms: float) -> dict[str, Any] | None:
        return next((x for x in rows if (x["items"], x["workers"], pace(x)) == (items, workers,
                                                                                 pace_ms)), None)  # fmt: skip

    smallest = {
        w: next((x for x in rows if x["workers"] == w and not pace(x)), None) for w in (2, 4)
    }
    for row in rows:
        if pace(row):
            continue
        base = smallest.get(row["workers"]) or row
        out.append(Figure("claims", f"claim time (median), {row['items']:,} items, "
                          f"{row['workers']} workers x {row['threads']} threads",
                          row["claim_ms_median"], "ms",
                          f"the same at {base['items']:,} items", base["claim_ms_median"],
                          _ratio(row["claim_ms_median"], base["claim_ms_median"]), who,
                          "within ±20% across sizes",
                          abs(row["claim_ms_median"] / base["claim_ms_median"] - 1) <= 0.2))  # fmt: skip
    for row in rows:
        two = find(row["items"], 2, pace(row))
        if row["workers"] != 4 or two is None:
            continue
        regime = f"{who}, each worker idle {pace(row):g} ms per claim" if pace(row) else (
            f"{who}, saturated")  # fmt: skip
        out.append(Figure("claims", f"claims per second, {row['items']:,} items, 4 workers",
                          row["claims_per_s"], "/s", "the same with 2 workers", two["claims_per_s"],
                          _ratio(row["claims_per_s"], two["claims_per_s"]), regime,
                          "rising from 2 to 4 workers", row["claims_per_s"] > two["claims_per_s"]))  # fmt: skip
    return out


def coverage(r: dict[str, Any]) -> list[Figure]:
    rows = r.get("rows") or []
    if not rows:
        return []
    low = min(rows, key=lambda row: row["coverage"])
    old = min(rows, key=lambda row: row["old_coverage"])
    return [Figure("coverage", f"lowest coverage of a default 95 % interval over {len(rows)} "
                   f"designs ({low['study']}: {low['design']})", 100 * low["coverage"], "%",
                   f"the old default's lowest ({old['old']})", 100 * old["old_coverage"],
                   _ratio(low["coverage"], old["old_coverage"]), "simulation",
                   "≥ 93 %", low["coverage"] >= 0.93)]  # fmt: skip


def researchers(r: dict[str, Any]) -> list[Figure]:
    """Volunteers' latency while researchers ask for heavy reports (bench_researchers.py)."""
    vol = r.get("volunteers") or {}
    who = _get(r, "researchers", "clients")
    regime = (f"{vol.get('n', '?')} volunteers answering, {who} researchers asking for "
              f"n_boot=2000 reports with new seeds ({r.get('layout')} gunicorn pools)")  # fmt: skip
    floor = (r.get("floor") or {}).get("latency") or {}
    out = []
    for kind, lat in (vol.get("latency") or {}).items():
        if "p99_ms" not in lat:
            continue
        base = (floor.get(kind) or {}).get("p99_ms")
        label, value = (
            ("the same volunteers, no researcher (same run)", base) if base else ("goal", 100.0)
        )
        out.append(Figure("researchers", f"volunteers' {kind} p99 (p50 {lat.get('p50_ms')})",
                          lat["p99_ms"], "ms", label, value, _ratio(lat["p99_ms"], value),
                          regime, "p99 < 100 ms", lat["p99_ms"] < 100))  # fmt: skip
    failed = (vol.get("retries") or 0) + sum((vol.get("errors") or {}).values())
    out.append(Figure("researchers", "volunteers' requests retried (5xx or transport) + failed",
                      failed, "", "none", 0, None, regime, "0", failed == 0))  # fmt: skip
    return out


def dashboard_1m(r: dict[str, Any]) -> list[Figure]:
    """The dashboard while answers arrive, and the report, on 1,000,000 responses
    (bench_dashboard_1m.py)."""
    out = []
    n = r.get("responses", "?")
    live = r.get("during_collection") or {}
    dash, floor = live.get("dashboard") or {}, live.get("floor") or {}
    if "p95_ms" in dash:
        regime = (f"{n} responses, {r.get('database')}, a volunteer's answers before every view; "
                  f"{dash.get('n')} views")  # fmt: skip
        out.append(Figure("dashboard_1m", f"dashboard first view p95 (p50 {dash.get('p50_ms')}), "
                          "stored report shown stale with its age", dash["p95_ms"], "ms",
                          "floor page (logged-in GET, access check) p95", floor.get("p95_ms"),
                          _ratio(dash["p95_ms"], floor.get("p95_ms")), regime, "p95 < 1000 ms",
                          dash["p95_ms"] < 1000))  # fmt: skip
    heavy, job = r.get("heavy_job") or {}, r.get("report_job") or {}
    if "seconds" in heavy:  # since the heavy tables left the report job (issue 24 item 5)
        out.append(Figure("dashboard_1m", f"heavy-table job (IRT abilities) after the report "
                          f"job, {n} responses", heavy["seconds"], "s", "the report job",
                          job.get("seconds"), _ratio(heavy["seconds"], job.get("seconds")),
                          "batch", "shown when done"))  # fmt: skip
    what = "report without the heavy tables" if heavy else "report"
    for key, name in (("report_job", f"report job ({what}, per-form rates, plan)"),
                      ("report_cli", "manage.py report")):  # fmt: skip
        part = r.get(key) or {}
        if "seconds" in part and not part.get("skipped"):
            out.append(Figure("dashboard_1m", f"{name}, {n} responses", part["seconds"], "s",
                              "goal", 30.0, _ratio(part["seconds"], 30.0), "batch", "< 30 s",
                              part["seconds"] < 30))  # fmt: skip
            out.append(Figure("dashboard_1m", f"{name}, {n} responses, peak RSS",
                              part["peak_rss_mb"], "MB", "goal", 1024.0,
                              _ratio(part["peak_rss_mb"], 1024.0), "batch", "< 1024 MB",
                              part["peak_rss_mb"] < 1024))  # fmt: skip
    return out


def irt_warm(r: dict[str, Any]) -> list[Figure]:
    """IRT fits warm-started from the previous fit after a few new answers
    (bench_irt_warm.py)."""
    cold, warm = r.get("cold") or {}, r.get("warm") or {}
    if "seconds" not in cold or "seconds" not in warm:
        return []
    shape = r.get("shape") or {}
    regime = (f"{shape.get('raters')} raters × {shape.get('units')} units, "
              f"{r.get('new_answers')} new answers")  # fmt: skip
    diff = r.get("differences") or {}
    worst = max(diff.get("2pl_difficulty_max_se", 0.0), diff.get("2pl_slope_max_se", 0.0))
    return [Figure("irt_warm", f"1PL + 2PL warm ({warm.get('evaluations_2pl')} 2PL evaluations; "
                   f"warm − cold ≤ {worst:.3f} conditional SE)", warm["seconds"], "s",
                   f"cold ({cold.get('evaluations_2pl')} 2PL evaluations)", cold["seconds"],
                   _ratio(warm["seconds"], cold["seconds"]), regime)]  # fmt: skip


EXTRACTORS: dict[str, Callable[[dict[str, Any]], list[Figure]]] = {
    "loading": loading, "prosody": prosody, "agreement": agreement, "report": report,
    "submit": submit, "load": load, "irt": irt, "pages": pages, "claims": claims,
    "coverage": coverage, "researchers": researchers, "dashboard_1m": dashboard_1m,
    "irt_warm": irt_warm,
}  # fmt: skip


def figures(name: str, result: dict[str, Any]) -> list[Figure]:
    extract = EXTRACTORS.get(name)
    if extract is None:
        return []
    try:
        return extract(result)
    except (TypeError, ValueError, ZeroDivisionError, AttributeError):
        return []  # an unexpected shape: the raw result is still in bench/results.json
