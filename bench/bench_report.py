"""Report benchmark (issue 5): the full statistics report over 1,000,000 responses.

A generated study (3 groups; 6 tasks: two single-choice, one three-part, one best/worst,
two 1–5 rating tasks with 5 and 2 dimensions whose poems carry provenance — half by people,
half by the four judge models under two prompt conditions and two samples, six cipai —
so every table of issue 12 has rows; 4 model raters; one rule rater with three metrics;
published figures to match; 1 % of participants flagged; two attention checks) is written straight into a
throw-away database, then ``manage.py report`` runs in a child process whose wall time
and peak memory (VmHWM from /proc/self/status) are measured. Targets: 30 s and 1 GB.

Alpha from the database: one rating dimension's responses read with ``values_list``,
built into a ``RatingTable`` and passed to ``krippendorff_alpha``, timed against the
``krippendorff`` package's own call on the same pre-counted units × values matrix in
the same run (best of 5 each). Goal: at most 2×.

Run: ``python bench/bench_report.py [--quick] [--database-url URL] [--n-boot N]``.
Writes bench/results/report.json (not committed).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import bench_env, manage, report_result, setup_django

GROUPS = (("A", 0.50), ("B", 0.60), ("C", 0.75))  # slug, chance a member answers right
MODELS = (
    ("gpt-4o", "", 0.80),
    ("kimi-k2", "direct", 0.70),
    ("qwen2.5-72b", "", 0.60),
    ("qwen2.5-7b", "", 0.40),
)
DIMS5 = ("prosody", "theme", "emotion", "imagery", "language")
DIMS2 = ("informativeness", "aesthetic")
PER_TASK = 10
# Fields each participant answers per item of each task: 1 + 1 + 3 + 2 + 5 + 2 = 14.
FIELDS_PER_PARTICIPANT = PER_TASK * 14


def _poem(i: int, forms: tuple[str, ...]) -> dict[str, object]:
    """A rating item's poem with its provenance: every other poem by a person, the rest by
    one of the judge models under one of two prompt conditions, two samples each."""
    model = MODELS[(i // 2) % len(MODELS)][0]
    machine = i % 2 == 0
    return {
        "poem_text": "春风",
        "poem_form": forms[i % len(forms)],
        "poem_source": f"model:{model}" if machine else "human",
        "source_kind": "model" if machine else "human",
        "source_model": model if machine else "",
        "poem_condition": ("direct", "form_aware")[(i // 8) % 2] if machine else "",
        "sample": (i // 16) % 2 if machine else None,
        "category": ("ci", "shi", "couplet")[i % 3],
    }


def make_study(n_items: int) -> dict:
    from annotation.models import AggregateResult
    from studies.models import Group, Item, Study, Task

    study = Study.objects.create(slug="bench", title="基准研究")
    groups = [
        Group.objects.create(study=study, slug=s, name=f"组{s}", position=i, target_per_item=3)
        for i, (s, _) in enumerate(GROUPS)
    ]
    dims = lambda keys: [{"key": k, "label": k, "min": 1, "max": 5} for k in keys]  # noqa: E731
    specs = [
        ("ck", "choice", []),
        ("th", "choice", []),
        ("au", "multi", []),
        ("oq", "best_worst", []),
        ("quality", "rating", dims(DIMS5)),
        ("ci", "rating", dims(DIMS2)),
    ]
    tasks = {
        slug: Task.objects.create(
            study=study, slug=slug, title=slug, kind=kind, dimensions=d, position=i
        )
        for i, (slug, kind, d) in enumerate(specs)
    }
    answers = {
        "ck": lambda i: {"answer": i % 3},
        "th": lambda i: {"answer": i % 4},
        "au": lambda i: {"person": i % 4, "source": (i + 1) % 4, "meaning": (i + 2) % 4},
        "oq": lambda i: {"best": i % 3, "worst": (i + 1) % 3},
        "quality": lambda i: None,
        "ci": lambda i: None,
    }
    forms = ("ci:浣溪沙", "ci:如梦令", "ci:菩萨蛮", "ci:西江月", "ci:清平乐", "ci:蝶恋花")
    items = []
    for slug, task in tasks.items():
        for i in range(n_items):
            poem = _poem(i, forms) if task.kind == "rating" else {}
            items.append(
                Item(
                    study=study,
                    task=task,
                    external_id=f"{slug}-{i}",
                    answer=answers[slug](i),
                    position=i,
                    is_attention_check=slug == "ck" and i < 2,
                    **poem,
                )
            )
    Item.objects.bulk_create(items, batch_size=2000)
    AggregateResult.objects.bulk_create(
        [
            AggregateResult(
                study=study,
                model=m,
                task=f"bench:{form}",
                metric="structural_accuracy",
                value=0.5,
                run=run,
                source="bench",
            )
            for m, _r, _s in MODELS
            for run in ("direct", "form_aware")
            for form in forms
        ]
    )
    ids = {}
    for pk, ext in Item.objects.filter(study=study).values_list("pk", "external_id"):
        ids[ext] = pk
    return {"study": study, "groups": groups, "tasks": tasks, "items": ids}


def make_raters(world: dict, n_items: int, n_target: int) -> tuple[list, list, Any]:
    """The study's raters: (people, each a finished participant; models; the rule rater),
    as many people as make about ``n_target`` responses with the models' and rule's."""
    from annotation.models import Participant, Rater

    study = world["study"]
    n_model = len(MODELS) * n_items * 14
    n_rule = 2 * n_items * 3
    n_people = max(3, (n_target - n_model - n_rule) // FIELDS_PER_PARTICIPANT)
    raters = Rater.objects.bulk_create(
        [Rater(study=study, kind="human", name=f"p-{i}") for i in range(n_people)]
        + [Rater(study=study, kind="model", name=n, run=r) for n, r, _ in MODELS]
        + [Rater(study=study, kind="rule", name="prosody:modern", run="1")],
        batch_size=2000,
    )
    if raters[0].pk is None:
        raters = list(Rater.objects.filter(study=study).order_by("pk"))
    people, models, rule = raters[:n_people], raters[n_people:-1], raters[-1]
    groups = world["groups"]
    Participant.objects.bulk_create(
        [
            Participant(
                study=study,
                rater=r,
                group=groups[i % 3],
                public_id=f"bench-{r.pk}",
                resume_code=f"R{r.pk:09d}",
                status="finished",
                flagged=i % 100 == 7,
            )
            for i, r in enumerate(people)
        ],
        batch_size=2000,
    )
    return people, models, rule


KEYS = {  # task -> (field, number of options) of the keyed tasks
    "ck": (("answer", 3),),
    "th": (("answer", 4),),
    "au": (("person", 4), ("source", 4), ("meaning", 4)),
    "oq": (("best", 3), ("worst", 3)),
}


def answer_values(
    slug: str, i: int, skill: float, rng: Any, quality: Any
) -> list[tuple[str, float, bool | None, int]]:
    """(field, value, correct, time in ms) of a rater of ``skill`` answering item ``i`` of
    task ``slug``: right with probability ``skill`` on keyed tasks, near the poem's
    ``quality`` on rating tasks (one point lower for the less skilled)."""
    import numpy as np

    if slug not in KEYS:
        dims = DIMS5 if slug == "quality" else DIMS2
        return [
            (
                fld,
                float(int(np.clip(quality[i] + rng.integers(-1, 2) + (skill < 0.5), 1, 5))),
                None,
                30000,
            )
            for fld in dims
        ]
    out: list[tuple[str, float, bool | None, int]] = []
    for n, (fld, k) in enumerate(KEYS[slug]):
        right = (i + n) % k if slug != "oq" else (i + n) % 3
        ok = rng.random() < skill
        value = right if ok else (right + 1 + int(rng.integers(0, k - 1))) % k
        out.append((fld, float(value), value == right, 5000))
    return out


def make_responses(world: dict, n_items: int, n_target: int) -> int:
    import numpy as np
    from django.db import connection, transaction

    study, tasks, items = world["study"], world["tasks"], world["items"]
    rng = np.random.default_rng(5)
    people, models, rule = make_raters(world, n_items, n_target)
    quality = rng.integers(1, 6, size=n_items)  # each poem's "true" quality
    now = "2026-11-22 00:00:00+00:00"
    sql = (
        "INSERT INTO annotation_response (study_id, task_id, item_id, rater_id, field, value, "
        "correct, time_ms, sample, raw, created_at, updated_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    )
    batch: list[tuple] = []
    total = 0

    def flush(cur) -> None:
        nonlocal total
        cur.executemany(sql, batch)
        total += len(batch)
        batch.clear()

    def answer(cur, rater_pk: int, slug: str, i: int, skill: float) -> None:
        item, task = items[f"{slug}-{i}"], tasks[slug].pk
        for fld, value, correct, ms in answer_values(slug, i, skill, rng, quality):
            batch.append((study.pk, task, item, rater_pk, fld, value, correct, ms, 0, "", now, now))
        if len(batch) >= 20000:
            flush(cur)

    with transaction.atomic(), connection.cursor() as cur:
        for p, rater in enumerate(people):
            skill = GROUPS[p % 3][1]
            for slug in tasks:
                for k in range(PER_TASK):
                    answer(cur, rater.pk, slug, (p * PER_TASK + k * 37) % n_items, skill)
        for rater, (_, _, skill) in zip(models, MODELS, strict=True):
            for slug in tasks:
                for i in range(n_items):
                    answer(cur, rater.pk, slug, i, skill)
        for slug in ("quality", "ci"):
            for i in range(n_items):
                item, task = items[f"{slug}-{i}"], tasks[slug].pk
                scores = {
                    "structural": float(quality[i] >= 3),
                    "tonal": min(1.0, quality[i] / 5 + 0.1),
                    "rhyme": float(i % 3 != 0),
                }
                for fld, v in scores.items():
                    batch.append(
                        (study.pk, task, item, rule.pk, fld, v, None, None, 0, "", now, now)
                    )
        flush(cur)
    return total


def make_large_table(world: dict, n_units: int) -> None:
    """A second rating task, ``wide``: n_units poems × 4 raters on 1–5 (after the report)."""
    import numpy as np
    from django.db import connection, transaction

    from annotation.models import Participant, Rater
    from studies.models import Item, Task

    study = world["study"]
    task = Task.objects.create(
        study=study,
        slug="wide",
        title="wide",
        kind="rating",
        position=9,
        dimensions=[{"key": "v", "label": "v", "min": 1, "max": 5}],
    )
    Item.objects.bulk_create(
        [Item(study=study, task=task, external_id=f"wide-{i}", position=i) for i in range(n_units)],
        batch_size=5000,
    )
    ids = list(Item.objects.filter(task=task).order_by("pk").values_list("pk", flat=True))
    raters = [Rater.objects.create(study=study, kind="human", name=f"w-{k}") for k in range(4)]
    for r in raters:
        Participant.objects.create(study=study, rater=r, group=world["groups"][0], public_id=r.name)
    rng = np.random.default_rng(11)
    truth = rng.integers(1, 6, size=n_units)
    now = "2026-11-22 00:00:00+00:00"
    sql = (
        "INSERT INTO annotation_response (study_id, task_id, item_id, rater_id, field, value, "
        "correct, time_ms, sample, raw, created_at, updated_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    )
    with transaction.atomic(), connection.cursor() as cur:
        for r in raters:
            noise = rng.integers(-1, 2, size=n_units)
            values = np.clip(truth + noise, 1, 5)
            cur.executemany(
                sql,
                [
                    (study.pk, task.pk, pk, r.pk, "v", float(v), None, None, 0, "", now, now)
                    for pk, v in zip(ids, values, strict=True)
                ],
            )


def table_seconds(slug: str, n_boot: int, by: tuple[str, ...] = ()) -> dict[str, float]:
    """In-process time of reading the study and of each table (the report's own build
    loop, table by table), to find hot spots."""
    from scoring.report import registry
    from scoring.report.build import Context
    from scoring.report.data import study_data
    from scoring.report.sets import rater_sets
    from scoring.report.settings import ReportSettings
    from scoring.report.splits import split_data
    from studies.models import Study

    study = Study.objects.get(slug=slug)
    opts = ReportSettings(n_boot=n_boot, by=by)
    t0 = time.perf_counter()
    data = study_data(study)
    sets = rater_sets(data.raters, data.group_slugs)
    out = {"read": time.perf_counter() - t0}
    whole = Context(data, sets, opts, data)
    for spec in registry.SPECS:
        name = spec.name
        t0 = time.perf_counter()
        keys = tuple(k for k in by if k not in spec.native) if spec.split else ()
        if keys:
            for _combo, part in split_data(data, keys):
                spec.build(Context(part, sets, opts, data))
        else:
            spec.build(whole)
        out[name] = time.perf_counter() - t0
    return out


def dashboard_seconds(slug: str) -> dict[str, float]:
    """The dashboard page of the bench study through Django's test client: the first view
    (the report and the per-form rule rates built and cached), the next view (from the
    cache), and the next page of the validation table."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from studies.models import Study

    study = Study.objects.get(slug=slug)
    user = get_user_model().objects.create_superuser("bench-researcher", password="x")
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(user)
    url = f"/research/studies/{study.pk}/"
    out = {}
    for name, query in (("first", {}), ("cached", {}), ("next_page", {"p_validation": "2"})):
        t0 = time.perf_counter()
        reply = client.get(url, query)
        out[name] = time.perf_counter() - t0
        if reply.status_code != 200:
            raise SystemExit(f"dashboard: HTTP {reply.status_code}")
        out[f"{name}_kb"] = len(reply.content) / 1024
    return out


def alpha_ratio(task_slug: str, field: str) -> dict:
    """alpha of one dimension from the database vs the package on pre-counted values."""
    import krippendorff
    import numpy as np

    from annotation.models import Response
    from scoring.agreement import RatingTable, krippendorff_alpha
    from scoring.report.data import float_blocks

    domain = [1, 2, 3, 4, 5]

    def from_db() -> tuple[float, RatingTable]:
        rows = Response.objects.filter(
            task__study__slug="bench", task__slug=task_slug, field=field, rater__kind="human"
        ).values_list("item_id", "rater_id", "value")
        data = np.concatenate(list(float_blocks(rows)))  # the report's own reader
        table = RatingTable.from_arrays(
            data[:, 0].astype(np.int64),
            data[:, 1].astype(np.int64),
            data[:, 2].astype(np.int64),
            level="ordinal",
            domain=domain,
        )
        return krippendorff_alpha(table).value, table

    def best(fn, n: int = 5) -> tuple[float, Any]:
        times, out = [], None
        for _ in range(n):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        return min(times), out

    t_db, (value, table) = best(from_db)
    counts = table.counts()
    counts = counts[counts.sum(axis=1) >= 2]
    t_pkg, pkg_value = best(
        lambda: krippendorff.alpha(
            value_counts=counts, value_domain=domain, level_of_measurement="ordinal"
        )
    )
    t_mem, _ = best(lambda: krippendorff_alpha(table).value)
    return {
        "table": f"{task_slug}/{field}, humans",
        "ratings": table.n_ratings,
        "units": table.n_units,
        "raters": table.n_raters,
        "alpha": value,
        "package_alpha": float(pkg_value),
        "from_database_seconds": t_db,
        "package_precounted_seconds": t_pkg,
        "alpha_on_built_table_seconds": t_mem,
        "ratio_from_database": t_db / t_pkg,
        "ratio_on_built_table": t_mem / t_pkg,
        "goal_ratio": 2.0,
    }


def report_json(env: dict[str, str], out: Path, n_boot: int, *more: str) -> dict[str, float]:
    """``manage.py report bench`` as JSON into ``out`` (``more``: further options), timed
    in a child process (``manage``)."""
    return manage(
        env,
        "report",
        "bench",
        "--format",
        "json",
        "--out",
        str(out),
        "--n-boot",
        str(n_boot),
        *more,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="about 60,000 responses")
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    parser.add_argument("--n-boot", type=int, default=200)
    args = parser.parse_args()
    n_target, n_items = (60_000, 100) if args.quick else (1_000_000, 500)
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        env = bench_env(tmpdir, args.database_url)
        env["SCORE_ON_LOAD"] = "0"
        manage(env, "migrate", "--noinput")
        setup_django(env)
        t0 = time.perf_counter()
        world = make_study(n_items)
        n = make_responses(world, n_items, n_target)
        generate = time.perf_counter() - t0
        out = tmpdir / "report.json"
        run = report_json(env, out, args.n_boot)
        tables = {
            k: len(v)
            for k, v in json.loads(out.read_text(encoding="utf-8")).items()
            if isinstance(v, list)
        }
        from scoring.report.build import PAPER_TABLES

        empty = [k for k in PAPER_TABLES if not tables.get(k)]  # each must have rows
        if empty:
            raise SystemExit(f"the bench study left new tables empty: {', '.join(empty)}")
        # The same report split by provenance (every table per source × condition).
        split = report_json(env, tmpdir / "report-by.json", args.n_boot, "--by", "source,condition")
        profile = {
            "whole": table_seconds("bench", args.n_boot),
            "by_source_condition": table_seconds("bench", args.n_boot, ("source", "condition")),
        }
        dashboard = dashboard_seconds("bench")
        alpha = [alpha_ratio("quality", "prosody")]
        make_large_table(world, 5_000 if args.quick else 50_000)
        alpha.append(alpha_ratio("wide", "v"))
        from django.db import connection

        vendor = connection.vendor
        if args.database_url:
            manage(env, "flush", "--noinput")
    result = {
        "database": vendor,
        "responses": n,
        "items_per_task": n_items,
        "n_boot": args.n_boot,
        "generate_seconds": generate,
        "report": {
            **run,
            "target_seconds": 30,
            "target_peak_rss_mb": 1024,
            "meets_target": run["seconds"] < 30 and run["peak_rss_mb"] < 1024,
            "rows": tables,
        },
        "report_by_source_condition": {
            **split,
            "target_seconds": 30,
            "target_peak_rss_mb": 1024,
            "meets_target": split["seconds"] < 30 and split["peak_rss_mb"] < 1024,
        },
        "profile_seconds": profile,
        "dashboard_seconds": dashboard,
        "alpha_from_database": alpha,
        "quick": args.quick,
    }
    report_result("report", result)


if __name__ == "__main__":
    main()
