"""Loading and export benchmarks (issue 2).

- ``load_pool`` of N generated items (default 150,000) through the real command, against a
  floor: a bare ``bulk_create`` of the same items with no parsing or validation, in the
  same run on the same database. Target: under 20 s on 2 cores. One item in five is a
  poem. The loads run with ``SCORE_ON_LOAD=0``: the loader alone is measured, as the
  floor is. (A load of more than SCORE_ON_LOAD_MAX_ITEMS poems hands their rule scores to
  a background job; without a broker, as here, Celery runs that job in the same process
  right after the load, which would add the scoring of 30,000 poems to the figure and
  leave the tenth, scored inside its own load, not comparable. bench_prosody measures
  scoring.)
  Its peak memory is recorded beside a pool a tenth its size (memory should not grow with
  the file: issue 11, defect 15; issue 26: within 1.2 × at 150,000 / 15,000 lines) and
  beside the figures before the streaming load. ``--memory`` runs only these two loads
  (15,000 and 150,000 lines, or N/10 and N with ``--items N``) and writes
  ``results/loading_memory.json``.
- ``export_responses`` of M generated responses (default 1,000,000) through the real
  command, against a floor: one raw SQL cursor reading the same joined rows and writing
  them with the csv module. Targets: under 20 s, peak memory under 300 MB.

Run: ``python bench/bench_loading.py [--quick | --memory [--items N]] [--database-url URL]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import bench_env, manage, report_result, setup_django, timed

STUDY = {
    "slug": "bench",
    "title": "bench",
    "groups": [{"slug": "A", "name": "A"}, {"slug": "B", "name": "B"}],
    "tasks": [
        {"slug": "ck", "title": "choice", "kind": "choice"},
        {
            "slug": "rate",
            "title": "rating",
            "kind": "rating",
            "dimensions": [{"key": "prosody", "label": "p", "min": 1, "max": 5}],
        },
    ],
}


def write_pool(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            if i % 5 == 4:
                row: dict[str, object] = {
                    "id": f"p-{i}",
                    "task": "rate",
                    "poem": {
                        "title": "春",
                        "form": "ci:浣溪沙",
                        "text": "一雨春江遍绿莎，去帆风疾晚生波，乱流欲渡奈愁何。",
                        "source": "human",
                    },
                }
            else:
                row = {
                    "id": f"q-{i}",
                    "task": "ck",
                    "stem": f"第{i}题：下列哪一句出自杜甫？",
                    "options": ["国破山河在", "床前明月光", "春眠不觉晓", "白日依山尽"],
                    "answer": 0,
                    "meta": {"n": i},
                }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def floor_bulk_create(path: Path) -> float:
    """The same items written by a bare bulk_create (no validation), then removed."""
    from studies.models import Item, Study

    study = Study.objects.get(slug="bench")
    tasks = {t.slug: t.pk for t in study.tasks.all()}
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]

    def run() -> None:
        Item.objects.bulk_create(
            [
                Item(
                    study=study,
                    task_id=tasks[r["task"]],
                    external_id="floor-" + r["id"],
                    stem=r.get("stem", ""),
                    options=r.get("options", []),
                    answer=r.get("answer"),
                    poem_text=r.get("poem", {}).get("text", ""),
                    content_hash="x",
                    position=i,
                )
                for i, r in enumerate(rows)
            ],
            batch_size=1000,
        )

    seconds = timed(run)
    Item.objects.filter(external_id__startswith="floor-").delete()
    return seconds


def make_responses(n: int) -> None:
    """n human responses: n/100 items × 100 raters, inserted with raw SQL for speed."""
    from django.db import connection, transaction

    from annotation.models import Participant, Rater
    from studies.models import Group, Item, Study

    study = Study.objects.get(slug="bench")
    group = Group.objects.get(study=study, slug="A")
    raters = Rater.objects.bulk_create(
        [Rater(study=study, kind="human", name=f"p-{i:04d}") for i in range(100)]
    )
    if raters[0].pk is None:
        raters = list(Rater.objects.filter(study=study, kind="human").order_by("pk"))
    Participant.objects.bulk_create(
        [
            Participant(
                study=study,
                rater=r,
                group=group,
                public_id=f"bench-{r.pk}",
                resume_code=f"R{r.pk:09d}",
                status="imported",
            )
            for r in raters
        ]
    )
    items = list(
        Item.objects.filter(study=study, task__slug="ck")
        .order_by("pk")
        .values_list("pk", "task_id")[: n // 100]
    )
    sql = (
        "INSERT INTO annotation_response (study_id, task_id, item_id, rater_id, field, value, correct, time_ms, sample, raw, created_at, updated_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    )
    now = "2026-11-22 00:00:00+00:00"
    with transaction.atomic(), connection.cursor() as cur:
        batch = []
        for item_pk, task_pk in items:
            for r, rater in enumerate(raters):
                batch.append(
                    (
                        study.pk,
                        task_pk,
                        item_pk,
                        rater.pk,
                        "answer",
                        float(r % 4),
                        r % 4 == 0,
                        4000 + r,
                        0,
                        "",
                        now,
                        now,
                    )
                )
            if len(batch) >= 20000:
                cur.executemany(sql, batch)
                batch.clear()
        if batch:
            cur.executemany(sql, batch)


def floor_export(out: Path) -> float:
    from django.db import connection

    sql = (
        "SELECT t.slug, i.external_id, ra.kind, ra.name, ra.run, g.slug, r.field, r.value, r.correct, r.time_ms, r.sample, r.created_at "
        "FROM annotation_response r JOIN studies_task t ON t.id = r.task_id JOIN studies_item i ON i.id = r.item_id "
        "JOIN annotation_rater ra ON ra.id = r.rater_id "
        "LEFT JOIN annotation_participant pa ON pa.rater_id = ra.id "
        "LEFT JOIN studies_group g ON g.id = pa.group_id"
    )

    def run() -> None:
        with connection.cursor() as cur, out.open("w", encoding="utf-8", newline="") as fh:
            cur.execute(sql)
            writer = csv.writer(fh)
            while rows := cur.fetchmany(5000):
                writer.writerows(rows)

    return timed(run)


# Peak RSS of load_pool before the one-pass load (issue 26), same machine, SQLite.
BEFORE_ONE_PASS = {"items": 150_000, "peak_rss_mb": 402.9, "tenth_peak_rss_mb": 267.3}
MEMORY_RATIO_GOAL = 1.2


def memory_only(n_items: int, database_url: str | None) -> dict[str, object]:
    """``load_pool`` of n/10 and n lines, each into its own study, in child processes:
    their peak RSS (VmHWM) and ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        env = bench_env(tmpdir, database_url)
        manage(env, "migrate", "--noinput")
        loading = {**env, "SCORE_ON_LOAD": "0"}
        runs = {}
        for n in (n_items // 10, n_items):
            (tmpdir / "study.json").write_text(json.dumps({**STUDY, "slug": f"m{n}"}), "utf-8")
            manage(env, "load_study", str(tmpdir / "study.json"))
            pool = tmpdir / f"pool{n}.jsonl"
            write_pool(pool, n)
            runs[n] = {
                **manage(loading, "load_pool", str(pool), "--study", f"m{n}"),
                "file_mb": pool.stat().st_size / 2**20,
            }
            pool.unlink()
    setup_django(env)
    from django.db import connection

    small, large = runs[n_items // 10], runs[n_items]
    ratio = large["peak_rss_mb"] / small["peak_rss_mb"]
    return {
        "database": connection.vendor,
        "lines": {str(n): r for n, r in runs.items()},
        "ratio": ratio,
        "goal_ratio": MEMORY_RATIO_GOAL,
        "meets_goal": ratio <= MEMORY_RATIO_GOAL,
        "before_one_pass": BEFORE_ONE_PASS,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10,000 items and 100,000 responses")
    parser.add_argument(
        "--memory", action="store_true", help="only load_pool's peak memory at N/10 and N lines"
    )
    parser.add_argument("--items", type=int, default=150_000, help="N for --memory")
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    args = parser.parse_args()
    if args.memory:
        memory = memory_only(args.items, args.database_url)
        report_result("loading_memory", memory)
        return
    n_items, n_responses = (10_000, 100_000) if args.quick else (150_000, 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        env = bench_env(tmpdir, args.database_url)
        manage(env, "migrate", "--noinput")
        loading = {**env, "SCORE_ON_LOAD": "0"}  # the loader alone (see the docstring)
        (tmpdir / "study.json").write_text(json.dumps(STUDY), encoding="utf-8")
        manage(env, "load_study", str(tmpdir / "study.json"))
        small_study = {**STUDY, "slug": "small"}
        (tmpdir / "small.json").write_text(json.dumps(small_study), encoding="utf-8")
        manage(env, "load_study", str(tmpdir / "small.json"))
        small_pool = tmpdir / "small.jsonl"
        write_pool(small_pool, n_items // 10)
        load_small = manage(loading, "load_pool", str(small_pool), "--study", "small")
        pool = tmpdir / "pool.jsonl"
        write_pool(pool, n_items)
        pool_mb = pool.stat().st_size / 2**20
        setup_django(env)
        floor_load = floor_bulk_create(pool)
        load = manage(loading, "load_pool", str(pool), "--study", "bench")
        reload = manage(loading, "load_pool", str(pool), "--study", "bench")
        t0 = time.perf_counter()
        make_responses(n_responses)
        generate = time.perf_counter() - t0
        floor_csv = floor_export(tmpdir / "floor.csv")
        export_csv = manage(
            env, "export_responses", "bench", "--format", "csv", "--out", str(tmpdir / "out.csv")
        )
        export_jsonl = manage(
            env,
            "export_responses",
            "bench",
            "--format",
            "jsonl",
            "--out",
            str(tmpdir / "out.jsonl"),
        )
        rows = sum(1 for _ in (tmpdir / "out.csv").open(encoding="utf-8")) - 1
    from django.db import connection

    result = {
        "database": connection.vendor,
        "items": n_items,
        "responses": rows,
        "load_pool": {
            **load,
            "score_on_load": False,
            "floor_bulk_create_seconds": floor_load,
            "ratio_to_floor": load["seconds"] / floor_load,
            "target_seconds": 20,
            "meets_target": load["seconds"] < 20 or args.quick,
        },
        "load_pool_again_unchanged": reload,
        "load_pool_memory": {
            "items": n_items,
            "peak_rss_mb": load["peak_rss_mb"],
            "file_mb": pool_mb,
            "tenth_items": n_items // 10,
            "tenth_peak_rss_mb": load_small["peak_rss_mb"],
            "ratio_to_tenth": load["peak_rss_mb"] / load_small["peak_rss_mb"],
            # Before the streaming load (commit c42b7f2, 2026-11-25): the content held whole.
            "previous": {"items": 100_000, "peak_rss_mb": 639.8},
            "before_one_pass": BEFORE_ONE_PASS,
            "goal_ratio": MEMORY_RATIO_GOAL,
        },
        "export_csv": {
            **export_csv,
            "floor_raw_cursor_seconds": floor_csv,
            "ratio_to_floor": export_csv["seconds"] / floor_csv,
            "target_seconds": 20,
            "target_peak_rss_mb": 300,
            "meets_target": export_csv["seconds"] < 20 and export_csv["peak_rss_mb"] < 300,
        },
        "export_jsonl": {**export_jsonl, "ratio_to_floor": export_jsonl["seconds"] / floor_csv},
        "generate_responses_seconds": generate,
        "quick": args.quick,
    }
    report_result("loading", result)


if __name__ == "__main__":
    main()
