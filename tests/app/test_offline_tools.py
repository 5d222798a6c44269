"""The offline tools need no secret and no project settings: ``manage.py agreement`` and
``manage.py prosody`` without SECRET_KEY, and the console scripts ``shiping-agreement``
and ``shiping-prosody`` that ``pip install`` puts on PATH, with no Django settings at
all. A problem is one line (or a list of bad lines), never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from scoring.prosody import cli as prosody_cli
from studies.loading.fields import POEM_FORM

ROOT = Path(__file__).resolve().parents[2]
RATINGS = "unit,A,B,C\nu1,1,1,2\nu2,2,2,2\nu3,3,3,3\nu4,1,2,1\n"
POEMS = [
    {"id": "a", "form": "shi:jueju5", "text": "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"},
    {"id": "b", "text": "床前明月光，疑是地上霜。举头望明月，低头思故乡。"},
]


def _bare_env(**extra: str) -> dict[str, str]:
    """An environment without SECRET_KEY, DEBUG, TESTING or DJANGO_SETTINGS_MODULE."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    return {**{k: os.environ[k] for k in keep if k in os.environ}, **extra}


def _files(tmp_path: Path) -> tuple[Path, Path]:
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(RATINGS, encoding="utf-8")
    poems = tmp_path / "poems.jsonl"
    poems.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in POEMS), "utf-8")
    return ratings, poems


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_manage_py_tools_run_without_a_secret_key(tmp_path) -> None:
    ratings, poems = _files(tmp_path)
    env = _bare_env()
    agreement = _run(
        [sys.executable, "manage.py", "agreement", str(ratings), "--n-boot", "20", "--json"],
        ROOT,
        env,
    )
    assert agreement.returncode == 0, agreement.stderr
    assert json.loads(agreement.stdout)["n_units"] == 4
    prosody = _run([sys.executable, "manage.py", "prosody", str(poems)], ROOT, env)
    assert prosody.returncode == 0, prosody.stderr
    rows = [json.loads(line) for line in prosody.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["a", "b"] and rows[0]["structural"] == 1.0


@pytest.mark.slow
def test_tool_problems_are_one_line_never_a_traceback(tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "form": "sonnet", "text": "x"}\n{oops\n', encoding="utf-8")
    env = _bare_env()
    for args in (
        ["agreement", str(tmp_path / "missing.csv")],
        ["prosody", str(tmp_path / "missing.jsonl")],
        ["prosody", str(bad)],
    ):
        run = _run([sys.executable, "manage.py", *args], ROOT, env)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.startswith(f"manage.py {args[0]}: ")
    assert "line 1, field 'form': 'sonnet' is not a form" in run.stderr
    assert "line 2: not valid JSON" in run.stderr


def test_other_commands_without_a_secret_key_say_so_in_one_line() -> None:
    run = _run([sys.executable, "manage.py", "migrate"], ROOT, _bare_env())
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and "SECRET_KEY is not set" in run.stderr


@pytest.mark.slow
@pytest.mark.parametrize("module", ["scoring.agreement.cli", "scoring.prosody.cli"])
def test_the_console_tools_import_no_django(module: str, tmp_path) -> None:
    code = f"import sys, {module}; sys.exit('django' in sys.modules)"
    run = _run([sys.executable, "-c", code], tmp_path, _bare_env(PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stderr


def test_the_pure_form_rule_is_the_loaders() -> None:
    assert prosody_cli.POEM_FORM.pattern == POEM_FORM.pattern


@pytest.mark.slow
def test_pip_install_puts_both_console_scripts_on_path(tmp_path) -> None:
    """A real wheel of the project, installed apart from the checkout: the scripts run
    with no Django settings, from any folder, with the prosody tables inside."""
    wheels, target, source = tmp_path / "wheels", tmp_path / "site", tmp_path / "source"
    # Built from a copy (setuptools writes build/ beside the sources), which also shows the
    # wheel needs nothing but pyproject.toml and the two pure packages.
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    for package in ("agreement", "prosody"):
        shutil.copytree(
            ROOT / "scoring" / package,
            source / "scoring" / package,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    built = _run(
        [*pip, "wheel", "--no-deps", "-w", str(wheels), str(source)], tmp_path, dict(os.environ)
    )
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = wheels.glob("shiping-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "scoring/prosody/data/rhyme/Pingshui_Rhyme.json" in names
    assert not [n for n in names if n.startswith(("config/", "studies/", "scoring/report/"))]
    installed = _run(
        [*pip, "install", "--no-deps", "--target", str(target), str(wheel)],
        tmp_path,
        dict(os.environ),
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    ratings, poems = _files(tmp_path)
    env = _bare_env(PYTHONPATH=str(target), PATH=f"{target / 'bin'}:{os.environ['PATH']}")
    agreement = _run(["shiping-agreement", str(ratings), "--n-boot", "20"], tmp_path, env)
    assert agreement.returncode == 0, agreement.stderr
    assert "krippendorff_alpha" in agreement.stdout
    out = tmp_path / "scores.csv"
    prosody = _run(["shiping-prosody", str(poems), "--out", str(out)], tmp_path, env)
    assert prosody.returncode == 0, prosody.stderr
    assert "2 poems scored" in prosody.stderr and out.read_text("utf-8").startswith("id,form")
    missing = _run(["shiping-prosody", str(tmp_path / "none.jsonl")], tmp_path, env)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
