"""Upgrade check: a database made by an older commit, filled by its demo, migrated by this
checkout, still serves the demo and gives the same report.

    .venv/bin/python tools/check_upgrade.py c42b7f2            # SQLite
    .venv/bin/python tools/check_upgrade.py c42b7f2 --postgres postgres://postgres@127.0.0.1:5432/upgrade_check

Steps: check out BASE in a temporary git worktree; there, migrate a fresh database, load
the demo, answer a few questions as volunteers through the pages, and write the report
(JSON); then, with this checkout's code, migrate the same database, write the report
again, compare the two table by table, and load the volunteer and researcher pages. Exit
status 0 when everything matches. Both checkouts run in this checkout's virtualenv.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

VOLUNTEERS = """
import re
from django.test import Client
from studies.models import Study
study = Study.objects.get(slug="song-ci-demo")
for n in range(8):
    c = Client()
    page = c.get(f"/s/{study.slug}/", follow=True)
    assert page.status_code == 200, page.status_code
    c.post(f"/s/{study.slug}/", {"consent": "on"}, follow=True)
    done = 0
    for _ in range(60):
        page = c.get(f"/s/{study.slug}/q/", follow=True)
        html = page.content.decode()
        if "assignment" not in html:
            screening = re.findall(r'name="(q-[^"]+)" value="([^"]+)"', html)
            if screening:
                c.post(page.request["PATH_INFO"], dict(screening[:1]), follow=True)
                continue
            begin = re.search(r'href="[^"]*(\\?begin=[^"]+)"', html)
            if begin:
                c.get(f"/s/{study.slug}/q/" + begin.group(1).replace("&amp;", "&"), follow=True)
                continue
            break
        assignment = re.search(r'name="assignment" value="(\\d+)"', html).group(1)
        values = {}
        for name, value in re.findall(r'name="(f-[^"]+)" value="([^"]+)"', html):
            values.setdefault(name, []).append(value)
        fields = {k: v[i % len(v)] for i, (k, v) in enumerate(values.items())}
        c.post(f"/s/{study.slug}/q/", {"assignment": assignment, **fields}, follow=True)
        done += 1
    print("volunteer", n, "answered", done)
# Answers here are arbitrary, so attention checks fail: keep everyone in the tables.
from annotation.models import Participant
Participant.objects.filter(study=study).update(flagged=False)
"""


def run(cwd: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(
        [PYTHON, *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"{cwd.name}: {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def report(cwd: Path, env: dict[str, str], out: Path) -> dict[str, Any]:
    run(cwd, env, "manage.py", "report", "song-ci-demo", "--format", "json", "--out", str(out))
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the older commit (e.g. the last one before a migration)")
    parser.add_argument("--postgres", help="a PostgreSQL URL to use instead of SQLite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="upgrade-") as tmp:
        work = Path(tmp)
        old = work / "old"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(old), args.base],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            env = {**os.environ, "DEBUG": "1", "DATA_DIR": str(work / "data")}
            env["DATABASE_URL"] = args.postgres or f"sqlite:///{work / 'db.sqlite3'}"
            env.pop("DJANGO_SETTINGS_MODULE", None)
            run(old, env, "manage.py", "migrate", "--noinput", "-v0")
            run(old, env, "manage.py", "demo", "--no-users")
            print(run(old, env, "manage.py", "shell", stdin=VOLUNTEERS).strip())
            before = report(old, env, work / "before.json")
            print(run(ROOT, env, "manage.py", "migrate", "--noinput").strip())
            after = report(ROOT, env, work / "after.json")
            pages = run(ROOT, env, "manage.py", "shell", stdin=PAGES).strip()
            print(pages)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
    return compare(before, after)


PAGES = """
from django.contrib.auth import get_user_model
from django.test import Client
from studies.models import Study
study = Study.objects.get(slug="song-ci-demo")
user = get_user_model().objects.create_superuser("upgrade-check", password="x")
c = Client()
assert c.get(f"/s/{study.slug}/").status_code == 200
c.force_login(user)
for url in ["/research/", f"/research/studies/{study.pk}/", "/admin/", "/admin/jobs/job/"]:
    status = c.get(url).status_code
    assert status == 200, (url, status)
print("pages served: volunteer welcome, research list and dashboard, admin, jobs")
"""


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    differences = 0
    meta = {"study", "generated_at", "settings"}
    tables_before = {k: v for k, v in before.items() if k not in meta}
    tables_after = {k: v for k, v in after.items() if k not in meta}
    for name in sorted(set(tables_before) | set(tables_after)):
        a, b = tables_before.get(name), tables_after.get(name)
        same = a == b
        differences += not same
        rows = len(a) if isinstance(a, list) else "-"
        print(f"{name:<20} {rows!s:>6} rows  {'same' if same else 'DIFFERENT'}")
    print("report identical after the upgrade" if not differences else "REPORTS DIFFER")
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
