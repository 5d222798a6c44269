"""A PostgreSQL cluster of one run's own, for anything destructive (restarts, crashes).

The machine's PostgreSQL server is shared: a test or benchmark never restarts or
reconfigures it. What must restart a server gets one of its own here: ``initdb`` into a
temporary directory, started on a free port of 127.0.0.1 with its socket in that
directory, stopped and removed afterwards. As root the server runs as the ``postgres``
user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench.common import free_port


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class ThrowawayCluster:
    """``with ThrowawayCluster() as pg:`` — ``pg.admin_url``, ``pg.restart()``."""

    def __init__(self) -> None:
        bindir = _bindir()
        if bindir is None:
            raise RuntimeError("no initdb found (PostgreSQL's server binaries)")
        self.bindir = bindir
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="shiping-pg-"))
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)

    @staticmethod
    def unavailable_reason() -> str | None:
        if _bindir() is None:
            return "no initdb (PostgreSQL's server binaries) on this machine"
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                return "running as root and no `postgres` user to run a server as"
        return None

    @property
    def admin_url(self) -> str:
        return self.url("postgres")

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.dir)

    def _ctl(self, action: str) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.dir / "server.log")
        self._run("pg_ctl", action, "-D", str(self.dir / "data"), "-o", options, "-l", log, "-w")

    def start(self) -> ThrowawayCluster:
        self._run(
            "initdb", "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        self._ctl("start")
        return self

    def restart(self) -> None:
        self._ctl("restart")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # never started, or gone
            self._run("pg_ctl", "stop", "-D", str(self.dir / "data"), "-m", "immediate", "-w")
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> ThrowawayCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
