"""The analysis bundle (docs/report.md §"Analysis bundle"): one zip to reproduce a report.

``manage.py report STUDY --bundle out.zip`` writes:

* ``responses.csv``: the raw export (``annotation.exports``, UTF-8 with a BOM; its
  ``recruitment`` column left blank unless asked for: a bundle is made to be shared,
  and recruitment platform ids such as a Prolific PID identify a person there) and
  ``codebook.md``: docs/codebook.md with the long table's and ``design.json``'s columns;
* ``long.csv``: the model-ready long table (``scoring.report.longtable``);
* ``report.json``, ``report.xlsx`` and ``report/<table>.csv`` (one file per table);
* ``settings.json`` (the report's settings), ``provenance.json`` (data fingerprint,
  commit, ``RULES_VERSION``, package versions, loaded files with their SHA-256);
* ``design.json``: what the export does not say and the report needs (the tasks'
  kinds, dimensions, keyed parts and positive options, the items' answer keys, options
  and interval clusters, attention-check items, excluded participants);
* ``recompute.py`` (numpy, pandas, scipy; nothing of the platform) recomputing
  ``accuracy``, ``ratings``, ``rule_rates`` and ``validation`` with their intervals
  from ``responses.csv`` and ``design.json``; ``mixed_models.R`` (lme4) on ``long.csv``;
* ``MANIFEST.json``: every other file's SHA-256 and size.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from django.conf import settings as django_settings

from annotation.exports import BOM, COLUMNS, export_rows, export_write
from annotation.models import Rater
from scoring.report import prereg
from scoring.report.build import TABLES, Report
from scoring.report.data import TaskInfo, _items, _tasks, rater_exclusions
from scoring.report.longtable import write_long_csv
from scoring.report.writers import json_text, table_csv, write_json, write_xlsx
from studies.models import Item, Study

FILES = Path(__file__).parent / "bundle_files"
SCRIPTS = ("recompute.py", "mixed_models.R")

LONG_CODEBOOK = """
## The long table (`long.csv`)

One row per response of a human or a model (rule raters' scores are columns), for mixed
models (`mixed_models.R`, statsmodels). The export's columns keep their meaning; added:

| column | what it holds |
|---|---|
| `rater_id` | one id per rater: `<rater_kind>:<rater>[@<run>]` (the random intercept for people) |
| `model` | a model's rater set, `model:<name>[@<run>]`; empty for people |
| `item_attention_check` | `true` for an attention-check item |
| `rater_flagged` | `true` for a flagged participant |
| `excluded` | why the report leaves the row out: `flagged` (when the study excludes flagged participants; not one a researcher kept), `decision` (a researcher excluded the participant), `plan` (the frozen plan's exclusion rules), `attention_check`, `sample` (a model's sample after the first); empty when kept |
| `rating` | `true` when the task is rated on dimensions (`value` is a point on its scale; `mixed_models.R` models these values, and `correct` for the other tasks) |
| `rule_<rule>__<metric>` | the item's score by that rule rater and metric (0–1), e.g. `rule_prosody_modern__tonal`; empty when the rule did not score the item |

## `design.json`

`study`; `exclude_flagged` (the study's setting); `flagged_raters` (`rater_kind`, `rater`,
`run` as in the export: the flagged participants no researcher decided to keep);
`excluded_raters` (the same keys and `basis`, `decision` or `plan`: the participants a
researcher excluded, and those the frozen plan's exclusion rules leave out);
`attention_check_items` (`task`, `item`); `groups` (the groups'
slugs in the study's order); `tasks` (in report order: `slug`, `kind`, `rating` (rated on
dimensions), `dimensions` (their keys), `all_parts` (the accuracy table's field `*`),
`storage` (the order the report reads the tasks' responses in), `positive` (the positive
option of a two-option field in `validation`), `n_keyed` (item → number of keyed parts,
for those tasks)); `items` (the report's tasks' items in storage order, the order its
bootstraps draw them in: `task`, `item`, `source` and `condition` as the report splits
them (null: unknown), `answer` (the answer key, field → option index; null for none),
`choices` (field → option texts), `unit` and `prompt` (the clusters of the intervals,
docs/statistics.md §22: the repeated samples of one generation prompt by one model are
one `unit`; `prompt` is the generation prompt across models; else the item's own id));
`settings` (the report's).
"""


def design(study: Study, report: Report) -> dict[str, Any]:
    """What ``recompute.py`` needs beside the export (module docstring)."""
    tasks: dict[int, TaskInfo] = _tasks(study, report.settings.tasks)
    keyed: dict[int, dict[str, int]] = {pk: {} for pk, t in tasks.items() if t.has_all_parts}
    checks = []
    for task_id, ext, answer, check, slug in Item.objects.filter(study=study).values_list(
        "task_id", "external_id", "answer", "is_attention_check", "task__slug"
    ):
        if task_id in keyed and isinstance(answer, dict):
            keyed[task_id][ext] = len(answer)
        if check:
            checks.append({"task": slug, "item": ext})
    out = rater_exclusions(study)
    flagged = Rater.objects.filter(pk__in=out.flagged).order_by("pk")
    basis = {pk: b for pk, b in out.basis().items() if b != "flagged"}
    whole = Rater.objects.filter(pk__in=list(basis)).order_by("pk")
    storage = {pk: n for n, pk in enumerate(sorted(tasks))}  # the report reads tasks by id
    return {
        "study": study.slug,
        "exclude_flagged": study.exclude_flagged,
        "flagged_raters": [
            {"rater_kind": k, "rater": n, "run": r}
            for k, n, r in flagged.values_list("kind", "name", "run")
        ],
        "excluded_raters": [
            {"rater_kind": k, "rater": n, "run": r, "basis": basis[pk]}
            for pk, k, n, r in whole.values_list("pk", "kind", "name", "run")
        ],
        "attention_check_items": checks,
        "groups": list(study.groups.order_by("position", "slug").values_list("slug", flat=True)),
        "tasks": [
            {
                "slug": t.slug,
                "kind": t.kind,
                "rating": t.is_rating,
                "dimensions": [str(d["key"]) for d in t.dimensions],
                "all_parts": t.has_all_parts,
                "storage": storage[pk],
                "positive": _positive(t),
                **({"n_keyed": keyed[pk]} if pk in keyed else {}),
            }
            for pk, t in tasks.items()
        ],
        "items": design_items(study, tasks),
        "settings": report.settings.as_json(),
    }


def _positive(task: TaskInfo) -> int:
    """The positive option of a two-option field (``validation``: option 0 unless the
    task's ``meta.positive_option`` names another)."""
    raw = task.meta.get("positive_option", 0) if task.meta else 0
    return int(raw) if isinstance(raw, int) and not isinstance(raw, bool) else 0


def design_items(study: Study, tasks: dict[int, TaskInfo]) -> list[dict[str, Any]]:
    """The report's tasks' items in storage order (the order the report's bootstraps
    draw them in): task, item, the report's ``source`` and ``condition`` (null when
    unknown), the answer key, the option texts per field, and the clusters of the
    intervals (``unit``: the repeated samples of one prompt by one model together;
    ``prompt``: the generation prompt across models; an item's own id otherwise)."""
    frame = _items(study).sort_index()
    frame = frame.loc[frame["task"].isin(list(tasks))]
    rank = {pk: n for n, pk in enumerate(frame.index)}

    def own(label: str) -> str:  # "i:<pk>" -> "i:<rank>": no database id in the bundle
        return f"i:{rank[int(label[2:])]}" if label.startswith("i:") else label

    return [
        {
            "task": tasks[int(row.task)].slug,
            "item": row.external_id,
            "source": row.source,
            "condition": row.condition,
            "answer": row.answer,
            "choices": {k: list(v) for k, v in row.choices.items()},
            "unit": own(row.unit),
            "prompt": own(row.prompt),
        }
        for row in frame.itertuples()
    ]


def codebook() -> str:
    path = Path(django_settings.BASE_DIR) / "docs" / "codebook.md"
    base = path.read_text(encoding="utf-8") if path.exists() else "# Codebook\n"
    return base.rstrip("\n") + "\n" + LONG_CODEBOOK


Producer = Callable[[IO[bytes]], None]


def _text(write: Callable[[IO[str]], Any], *, bom: bool = False) -> Producer:
    """A producer writing ``write``'s text as UTF-8 (after a BOM when ``bom``)."""

    def produce(raw: IO[bytes]) -> None:
        out = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        if bom:
            out.write(BOM)
        write(out)
        out.flush()
        out.detach()  # leave ``raw`` open for its owner

    return produce


def _bytes(data: bytes) -> Producer:
    def produce(raw: IO[bytes]) -> None:
        raw.write(data)

    return produce


def _json(data: Any) -> Producer:
    return _bytes((json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def _table(report: Report, name: str, out: IO[str]) -> None:
    table_csv(name, report.tables[name], out, report.settings.by)


def shared_rows(study: Study, *, recruitment: bool = False) -> Iterator[tuple[Any, ...]]:
    """The raw export's rows for the bundle: the ``recruitment`` column blank unless
    ``recruitment`` (the column stays, so ``load_responses`` reads the file back)."""
    rows = export_rows(study)
    if recruitment:
        return rows
    at = COLUMNS.index("recruitment")
    return ((*row[:at], "", *row[at + 1 :]) for row in rows)


def entries(
    study: Study, report: Report, *, bom: bool = True, recruitment: bool = False
) -> list[tuple[str, Producer]]:
    """The bundle's files (but ``MANIFEST.json``) as (name, producer writing its bytes);
    ``bom``: CSV files start with the UTF-8 byte order mark (for spreadsheets; every
    reader here accepts it); ``recruitment``: keep the volunteers' recruitment ids in
    ``responses.csv`` (``shared_rows``). The export and the long table are streamed from
    the database as they are written."""

    def xlsx(raw: IO[bytes]) -> None:
        write_xlsx(report, raw)

    return [
        (
            "responses.csv",
            _text(
                lambda o: export_write(shared_rows(study, recruitment=recruitment), "csv", o),
                bom=bom,
            ),
        ),
        ("codebook.md", _bytes(codebook().encode("utf-8"))),
        ("long.csv", _text(lambda o: write_long_csv(study, o, bom=bom))),
        ("report.json", _text(lambda o: write_json(report, o))),
        ("report.xlsx", xlsx),
        *(
            (
                f"report/{name}.csv",
                _text(functools.partial(_table, report, name), bom=bom),
            )
            for name in TABLES
        ),
        ("settings.json", _json(report.settings.as_json())),
        ("provenance.json", _json(report.provenance)),
        ("design.json", _json(design(study, report))),
        *((name, _bytes((FILES / name).read_bytes())) for name in SCRIPTS),
        *_plan_entries(study),
    ]


def _plan_entries(study: Study) -> list[tuple[str, Producer]]:
    """The newest frozen analysis plan, as JSON and as its preregistration document."""
    plan = prereg.current_plan(study)
    if plan is None:
        return []
    frozen = {"sha256": plan.sha256, "frozen_at": plan.frozen_at.isoformat(), **plan.content}
    return [
        ("plan.json", _json(frozen)),
        ("plan.md", _bytes(prereg.preregistration(plan).encode("utf-8"))),
    ]


def _manifest(study: Study, report: Report, files: list[dict[str, Any]]) -> bytes:
    about = {"study": study.slug, "generated_at": report.generated_at, "files": files}
    return json_text(about).encode("utf-8")


def bundle_files(
    study: Study, report: Report, *, bom: bool = True, recruitment: bool = False
) -> dict[str, bytes]:
    """The bundle's files by name, in memory (``MANIFEST.json`` last): for tests and
    small studies; ``write_bundle`` streams them into the zip."""
    files: dict[str, bytes] = {}
    for name, produce in entries(study, report, bom=bom, recruitment=recruitment):
        buffer = io.BytesIO()
        produce(buffer)
        files[name] = buffer.getvalue()
    listed = [
        {"name": n, "bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}
        for n, b in files.items()
    ]
    files["MANIFEST.json"] = _manifest(study, report, listed)
    return files


class _Hashing(io.RawIOBase):
    """A writable stream passing bytes on to ``raw`` while hashing and counting them."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.sha, self.n = raw, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = bytes(data)
        self.raw.write(view)
        self.sha.update(view)
        self.n += len(view)
        return len(view)


def write_bundle(
    study: Study, report: Report, path: Path, *, bom: bool = True, recruitment: bool = False
) -> list[str]:
    """Write the bundle of ``report`` (built for ``study``) as a zip at ``path``, its
    files in a folder named after the study, each streamed into the zip (memory stays
    that of a chunk of rows); returns their names. The zip is written beside ``path``
    and renamed when complete: never a half-written bundle under its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    listed: list[dict[str, Any]] = []
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, produce in entries(study, report, bom=bom, recruitment=recruitment):
                with zf.open(f"{study.slug}/{name}", "w", force_zip64=True) as raw:
                    sink = _Hashing(raw)
                    produce(sink)  # type: ignore[arg-type]
                listed.append({"name": name, "bytes": sink.n, "sha256": sink.sha.hexdigest()})
            zf.writestr(f"{study.slug}/MANIFEST.json", _manifest(study, report, listed))
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return [*(f["name"] for f in listed), "MANIFEST.json"]
