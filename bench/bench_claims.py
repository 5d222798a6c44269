"""Claims whose cost does not grow with the pool nor serialise a group (issue 16).

One task of 1,000, 10,000 and 100,000 items (quick: 1,000 and 10,000), one group, 200
participants of that group. Each participant claims its next item through the service
(``annotation.services.next_item``) and answers it, ``--rounds`` times, round robin over
the 200; the claims are spread over 2 and then 4 worker processes, each running
``--threads`` threads (one database connection each: PostgreSQL's connection limit,
shared on this machine, rules out 200 connections), so claims of one group are always in
flight at the same time.
Figures: per-claim time (median and mean of the service call) per pool size, and claims
per second with 2 and with 4 workers (each like a sync app worker: one claim at a time;
more threads per worker only oversubscribe these two cores), each the median of
``REPEATS`` interleaved phases. Two regimes: saturated (each worker claims again at
once) and paced (each worker idles ``PACE_MS`` after each claim and answer, so that the
cores have room for more workers). Goals: per-claim time within ±20% across the
sizes; claims per second higher with 4 workers than with 2. Beside them, sampled while
each phase runs: backends waiting on a lock (none when claims do not serialise), active
backends, and how busy the cores are (more workers can only add throughput while cores
are idle). Every claim is checked
afterwards: no participant holds an item twice, and the tallies equal a count over the
assignments. PostgreSQL only (SQLite serialises every write transaction by design).

    .venv/bin/python bench/bench_claims.py            # 1k, 10k, 100k items
    .venv/bin/python bench/bench_claims.py --quick    # 1k, 10k items, fewer rounds
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402
    PG_ADMIN,
    bench_env,
    deployed_autovacuum,
    fresh_database,
    write_result,
)

PG_NAME = "shiping_bench_claims"
PARTICIPANTS = 200
# Each (size, workers) phase runs REPEATS times, the sizes interleaved, and each figure is
# the median over its repeats: this machine's two cores are shared, and a neighbour's
# burst must not land on one size only.
REPEATS = 3


# The paced regime: each worker idles PACE_MS after each claim and answer, a stand-in for
# what an app worker waits on besides its own CPU and the database (the network, a
# database on another host), so that the two cores are not the limit. With 2 workers the
# cores are then partly idle, and 4 workers can only fail to claim about twice as fast if
# claims wait for one another. Its phases run half the rounds of the saturated ones.
PACE_MS = 5.0


def claims_per_participant(rounds: int) -> int:
    """Every participant's claims in the run: both regimes, 2 worker counts, REPEATS."""
    return (rounds + rounds // 2) * 2 * REPEATS


def target_for(smallest: int, rounds: int) -> int:
    """The group's target per item: the run's claims fill at most half of the smallest
    pool. With too small a target the pool runs out part-way and the later phases time
    claims that find nothing (at 1,000 items and a target of 3, the last phases did)."""
    claims = PARTICIPANTS * claims_per_participant(rounds)
    return max(3, -(-2 * claims // smallest))


def build(n_items: int, rounds: int, target: int) -> list[int]:
    """A study with one task of ``n_items`` and 200 participants of its one group, whose
    target per item leaves room for every claim of the run (``target_for``)."""
    from annotation import services
    from studies.models import Group, Item, Study, Task

    study = Study.objects.create(slug=f"claims-{n_items}", title="Claims", consent="ok",
                                 status=Study.Status.OPEN)  # fmt: skip
    group = Group.objects.create(study=study, slug="A", name="A", target_per_item=target)
    task = Task.objects.create(study=study, slug="t", title="t", kind="choice",
                               per_participant=claims_per_participant(rounds))  # fmt: skip
    options = [{"text": f"option {k}"} for k in range(4)]
    Item.objects.bulk_create(
        (Item(study=study, task=task, external_id=f"i{n:06d}", stem=f"Q{n}", options=options,
              answer={"answer": 1}, position=n) for n in range(n_items)),
        batch_size=5000,
    )  # fmt: skip
    people = [
        services.participant_enrol(study=study, consent=True, invite_token=group.invite_token)
        for _ in range(PARTICIPANTS)
    ]
    services.next_item(participant_id=people[0].pk)  # the tallies made once (lazily)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return [p.pk for p in people]


def worker(ids: list[int], threads: int, rounds: int, start_at: float, pace: float) -> None:
    """Claim and answer ``rounds`` items for each participant, idling ``pace`` seconds
    after each; print claim durations."""
    from django.db import connections

    from annotation import services

    durations: list[float] = []
    found: list[bool] = []
    lock = threading.Lock()
    # Round robin: every participant claims once, then each again, so the 200 compete
    # for the same rows at the top of the index all along.
    queue = [pk for _ in range(rounds) for pk in ids]
    queue.reverse()

    def run() -> None:
        while True:
            with lock:
                if not queue:
                    break
                pk = queue.pop()
            start = time.perf_counter()
            nxt = services.next_item(participant_id=pk, serve=True)
            took = time.perf_counter() - start
            a = nxt.assignment
            with lock:
                durations.append(took)
                found.append(a is not None)
            if a is not None:
                services.response_submit(participant=nxt.participant, assignment_id=a.pk, answer=0)
            if pace:
                time.sleep(pace)
        connections.close_all()

    pool = [threading.Thread(target=run) for _ in range(threads)]
    for conn in connections.all():  # connected before the clock starts, as an app worker is
        conn.ensure_connection()
    time.sleep(max(0.0, start_at - time.time()))  # every worker starts at once, set up
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    print(json.dumps({"durations": durations, "found": sum(found), "end": time.time()}))


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine so far (/proc/stat)."""
    with open("/proc/stat", encoding="ascii") as fh:
        fields = [int(v) for v in fh.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


class Sampler:
    """While a phase runs: how many of the bench database's backends wait on a lock (a
    claim waiting for another, as under the old per-group advisory lock) and how many are
    active, sampled every 10 ms from pg_stat_activity, and how busy the machine's cores
    are (/proc/stat). Says whether more workers could add throughput: claims that do not
    wait on each other, on cores that are all busy, cannot go faster with more workers."""

    QUERY = """SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'),
                      count(*) FILTER (WHERE state = 'active')
               FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"""

    def __init__(self, start_at: float) -> None:
        self.start_at, self.samples = start_at, []  # type: ignore[var-annotated]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.cpu: tuple[int, int] = (0, 0)

    def run(self) -> None:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            time.sleep(max(0.0, self.start_at - time.time()))
            self.cpu = cpu_ticks()
            while not self.stop.is_set():
                self.samples.append(conn.execute(self.QUERY, [PG_NAME]).fetchone())
                time.sleep(0.01)

    def result(self) -> dict[str, float]:
        self.stop.set()
        self.thread.join()
        busy, total = cpu_ticks()
        n = max(1, len(self.samples))
        return {
            "lock_waiting_mean": sum(s[0] for s in self.samples) / n,
            "active_backends_mean": sum(s[1] for s in self.samples) / n,
            "cpu_busy": (busy - self.cpu[0]) / max(1, total - self.cpu[1]),
        }


def phase(
    env: dict[str, str], ids: list[int], workers: int, threads: int, rounds: int, pace_ms: float
) -> dict:
    chunks = [ids[w::workers] for w in range(workers)]
    start = time.time() + 6  # after the workers' start-up, which is not timed
    sampler = Sampler(start)
    sampler.thread.start()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                json.dumps(chunk),
                "--threads",
                str(threads),
                "--rounds",
                str(rounds),
                "--start-at",
                str(start),
                "--pace-ms",
                str(pace_ms),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for chunk in chunks
    ]
    durations: list[float] = []
    found = 0
    end = start
    for proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError("a claims worker failed")
        got = json.loads(out.strip().splitlines()[-1])
        durations += got["durations"]
        found += got["found"]
        end = max(end, got["end"])
    elapsed = end - start
    return {
        "workers": workers,
        "threads": threads,
        "pace_ms": pace_ms,
        "claims": len(durations),
        "claims_found_nothing": len(durations) - found,  # 0: the pool never ran out
        "claims_per_s": len(durations) / elapsed,
        "claim_ms_median": 1000 * statistics.median(durations),
        "claim_ms_mean": 1000 * statistics.fmean(durations),
        **sampler.result(),
    }


def check(n_items: int) -> dict[str, int]:
    """No item twice per participant; tallies equal to the count over the assignments."""
    from collections import Counter

    from annotation.models import Assignment, Tally

    rows = Assignment.objects.filter(task__study__slug=f"claims-{n_items}")
    pairs = list(rows.values_list("participant_id", "item_id"))
    counted = Counter(
        rows.filter(status__in=["answered", "claimed"]).values_list("item_id", flat=True)
    )
    tallies = Tally.objects.filter(task__study__slug=f"claims-{n_items}", taken__gt=0)
    tallied = Counter(dict(tallies.values_list("item_id", "taken")))
    return {
        "doubled": len(pairs) - len(set(pairs)),
        "tally_mismatches": len((counted - tallied) + (tallied - counted)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--worker")
    parser.add_argument("--threads", type=int, default=1, help="per worker (1: like a sync worker)")
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--start-at", type=float, default=0.0)
    parser.add_argument("--pace-ms", type=float, default=0.0)
    parser.add_argument("--sizes", help="comma-separated pool sizes (default by --quick)")
    args = parser.parse_args()
    if args.worker:
        import django

        django.setup()
        worker(json.loads(args.worker), args.threads, args.rounds, args.start_at,
               args.pace_ms / 1000)  # fmt: skip
        return
    sizes = [1000, 10000] if args.quick else [1000, 10000, 100000]
    if args.sizes:
        sizes = [int(n) for n in args.sizes.split(",")]
    # Each phase runs 200 x rounds claims: long enough (seconds) that the workers'
    # start and a neighbour's burst do not decide a figure.
    rounds = args.rounds or (4 if args.quick else 10)
    target = target_for(min(sizes), rounds)
    env = bench_env(Path(tempfile.mkdtemp(prefix="bench-claims-")), fresh_database(PG_NAME))
    env["CONN_MAX_AGE"] = "60"
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT,
                   env=env, check=True)  # fmt: skip
    os.environ.update(env)
    import django

    django.setup()
    from django.db import connections

    people = {n_items: build(n_items, rounds, target) for n_items in sizes}
    connections.close_all()
    runs: dict[tuple[int, int, float], list[dict[str, Any]]] = {}
    regimes = ((0.0, rounds), (PACE_MS, rounds // 2))  # saturated, paced
    with deployed_autovacuum() as autovacuum:  # docs/deploy.md's, as in a deployment
        for _ in range(REPEATS):
            for n_items in sizes:
                for pace_ms, n_rounds in regimes:
                    for workers in (2, 4):
                        got = phase(env, people[n_items], workers, args.threads, n_rounds,
                                    pace_ms)  # fmt: skip
                        runs.setdefault((n_items, workers, pace_ms), []).append(got)
                        print(json.dumps({"items": n_items, **got}), flush=True)
    results: list[dict[str, Any]] = []
    for (n_items, workers, pace_ms), rows in runs.items():
        results.append({
            "items": n_items, "workers": workers, "threads": args.threads, "pace_ms": pace_ms,
            "claims": sum(r["claims"] for r in rows),
            "claims_found_nothing": sum(r["claims_found_nothing"] for r in rows),
            **{key: statistics.median(r[key] for r in rows)
               for key in ("claims_per_s", "claim_ms_median", "claim_ms_mean",
                           "lock_waiting_mean", "active_backends_mean", "cpu_busy")},
            "repeats": rows,
        })  # fmt: skip

    def row(n_items: int, workers: int, pace_ms: float = 0.0) -> dict[str, Any]:
        return next(r for r in results if (r["items"], r["workers"], r["pace_ms"]) == (
            n_items, workers, pace_ms))  # fmt: skip

    for n_items in sizes:
        row(n_items, 4, PACE_MS).update(check(n_items))  # after the last phase
    spread = max(
        max(per_claim.values()) / min(per_claim.values()) - 1
        for per_claim in ({n: row(n, w)["claim_ms_median"] for n in sizes} for w in (2, 4))
    )
    rise = {
        f"{pace_ms:g} ms": {n: row(n, 4, pace_ms)["claims_per_s"] / row(n, 2, pace_ms)["claims_per_s"]
                            for n in sizes}
        for pace_ms, _ in regimes
    }  # fmt: skip
    write_result(
        "claims",
        {
            "quick": args.quick,
            "autovacuum": autovacuum,
            "participants": PARTICIPANTS,
            "rounds": rounds,
            "target_per_item": target,
            "repeats": REPEATS,
            "rows": results,
            "per_claim_spread": spread,
            "per_claim_within_20pct": spread <= 0.2,
            "pace_ms": PACE_MS,
            # claims per second with 4 workers / with 2, by pace and pool size
            "claims_per_s_4_over_2_workers": rise,
            "claims_per_s_rise_2_to_4_workers": all(v > 1 for v in rise["0 ms"].values()),
            "claims_per_s_rise_2_to_4_workers_paced": all(
                v > 1 for v in rise[f"{PACE_MS:g} ms"].values()
            ),
        },
    )


if __name__ == "__main__":
    main()
