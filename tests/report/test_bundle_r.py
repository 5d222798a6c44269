"""The analysis bundle's R twin, ``mixed_models.R``, run by ``Rscript`` on bundles of the
worked studies (those of ``test_bundle.py``), its numbers checked against computations
written here, independently of it:

* ``lmer`` (REML): the fixed effects and their standard errors against statsmodels'
  ``MixedLM`` with crossed variance components (one group, ``vc_formula`` for raters and
  items, ``re_formula="0"``, REML) on the same long table; the standard errors are the
  GLS ones, (X' V^-1 X)^-1 with V from statsmodels' variance estimates (lme4's
  ``vcov`` of a linear mixed model; statsmodels' own ``bse_fe`` comes from its Hessian,
  which near a zero variance differs, 15 % on the generation study).
* ``glmer`` (Laplace, nAGQ = 1): the fixed effects and random-intercept SDs against a
  Laplace approximation of the crossed random-intercept logistic model written below
  (inner Newton for the mode of the random effects, outer ``scipy.optimize.minimize``).

Skipped, with the reason, when ``Rscript`` or lme4 is absent; a failure instead when
``REQUIRE_R=1`` (``.ci/run`` sets it once R is installed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.special import expit

from scoring.report import ReportSettings, build_report
from scoring.report.bundle import FILES
from tests.report.test_bundle import _bundle_on_disk, worked_builder

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

WORKED = ("known", "cciv", "fuxi", "tang", "cpdue", "generation")
#: Agreement reached (docs/report.md §8b): lmer's estimates within 2e-7 and its SEs
#: within 1.5e-5 of statsmodels' (relative); glmer's estimates within 6e-6 of the
#: Laplace fit below (absolute, on the logit scale).
LMER_REL = 1e-4
GLMER_ABS = 1e-4
SD_ABS = 1e-3  # random-intercept SDs (a singular fit's 0 against an optimiser's 1e-5)


def _r_missing() -> str | None:
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (Debian: r-base-core)"
    done = subprocess.run(
        ["Rscript", "-e", "library(lme4)"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return "the R package lme4 is not installed (Debian: r-cran-lme4)"
    return None


@pytest.fixture
def rscript() -> str:
    why = _r_missing()
    if why is not None:
        if os.environ.get("REQUIRE_R") == "1":
            pytest.fail(f"REQUIRE_R=1 but {why}")
        pytest.skip(f"{why}; REQUIRE_R=1 makes this a failure")
    return "Rscript"


def _run_r(folder: Path, script: Path | None = None, lang: str = "C.UTF-8") -> None:
    env = {**os.environ, "LANG": lang, "LC_ALL": lang}
    done = subprocess.run(
        ["Rscript", str(script or folder / "mixed_models.R"), str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr


def _fitted(folder: Path, name: str) -> pd.DataFrame:
    path = folder / "mixed_models" / f"{name}_fixed.csv"
    return pd.read_csv(path, encoding="utf-8-sig", keep_default_na=False, dtype={"level": str})


def _bundle(worked: str, request: pytest.FixtureRequest, folder: Path) -> pd.DataFrame:
    """The worked study's bundle written to ``folder``; its long table's kept rows, with
    the rater type and item key as the script's header defines them."""
    builder = worked_builder(worked, request)
    report = build_report(builder.study, ReportSettings(n_boot=0), only=("accuracy",))
    _bundle_on_disk(builder.study, report, folder)
    long = pd.read_csv(folder / "long.csv", encoding="utf-8-sig", dtype=str, keep_default_na=False)
    long = long[long["excluded"] == ""].copy()
    human = long["rater_kind"] == "human"
    long["rater_type"] = np.where(human, "group:" + long["group"], long["model"])
    long["item_key"] = long["task"] + "/" + long["item"]
    return long


def _cells(long: pd.DataFrame, keyed: bool) -> dict[tuple[str, str], pd.DataFrame]:
    if keyed:
        rows = long[long["correct"] != ""].assign(y=lambda d: (d["correct"] == "true") * 1.0)
    else:
        rows = long[(long["rating"] == "true") & (long["value"] != "")]
        rows = rows.assign(y=lambda d: d["value"].astype(float))
    return {(str(t), str(f)): cell for (t, f), cell in rows.groupby(["task", "field"])}


def _design(cell: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The fixed effects as the script's header describes them (one column per rater
    type; the item sources after the first, by bytes, when there are several) and the
    random intercepts the fixed effects leave identifiable."""
    columns = {
        ("rater_type", t): (cell["rater_type"] == t) * 1.0
        for t in sorted(cell["rater_type"].unique(), key=str.encode)
    }
    sources = sorted(cell["item_source"].unique(), key=str.encode)
    for s in sources[1:]:
        columns[("item_source", s)] = (cell["item_source"] == s) * 1.0
    random = []
    if (cell.groupby("rater_type")["rater_id"].nunique() > 1).any():
        random.append("rater_id")
    if (cell.groupby("item_source")["item_key"].nunique() > 1).any():
        random.append("item_key")
    return pd.DataFrame(columns), random


def _separated(cell: pd.DataFrame) -> bool:
    share = cell.groupby("rater_type")["y"].mean()
    return bool(((share == 0) | (share == 1)).any())


def _statsmodels_lmm(
    cell: pd.DataFrame, X: pd.DataFrame, random: list[str]
) -> tuple[np.ndarray, np.ndarray, dict[str, float], float]:
    """REML fit of statsmodels' MixedLM with crossed variance components: (estimates,
    GLS standard errors, SD per random intercept, residual SD). The best of two
    optimisers (one alone stops short on some of these cells)."""
    import warnings

    import statsmodels.api as sm

    vc = {name: f"0 + C({name})" for name in random}
    data = cell.assign(one=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shape = sm.MixedLM.from_formula("y ~ 1", data, groups="one", vc_formula=vc, re_formula="0")
        model = sm.MixedLM(data["y"].to_numpy(), X.to_numpy(), groups=data["one"].to_numpy(),
                           exog_vc=shape.exog_vc)  # fmt: skip
        fit = max(
            (model.fit(reml=True, method=[m], maxiter=5000) for m in ("powell", "lbfgs")),
            key=lambda f: f.llf,
        )
    variances = dict(zip(sorted(vc), np.asarray(fit.vcomp), strict=True))
    V = fit.scale * np.eye(len(cell))
    for name, var in variances.items():
        Z = pd.get_dummies(cell[name]).to_numpy(dtype=float)
        V += var * Z @ Z.T
    x = X.to_numpy()
    se = np.sqrt(np.diag(np.linalg.inv(x.T @ np.linalg.solve(V, x))))
    sds = {k: float(np.sqrt(v)) for k, v in variances.items()}
    return np.asarray(fit.fe_params), se, sds, float(np.sqrt(fit.scale))


def _laplace_deviance(
    params: np.ndarray, y: np.ndarray, x: np.ndarray, Zs: list[np.ndarray]
) -> float:
    """-2 log of the Laplace approximation to the likelihood of the logistic model
    logit P(y = 1) = x β + Σ_k Z_k b_k, b_k ~ N(0, σ_k² I), with params (β, σ): the
    random effects as b = σ v, v ~ N(0, I) (so σ = 0 is allowed); Newton's method for the
    mode v̂ of log p(y | v) − |v|²/2, then −2 log p(y | v̂) + |v̂|² + log det(I + Λ Z' W Z Λ)."""
    p = x.shape[1]
    beta, sds = params[:p], params[p:]
    ZL = np.hstack([Z * s for Z, s in zip(Zs, sds, strict=True)])
    fixed = x @ beta
    v = np.zeros(ZL.shape[1])

    def hessian(eta: np.ndarray) -> np.ndarray:
        mu = expit(eta)
        return ZL.T @ (ZL * (mu * (1 - mu))[:, None]) + np.eye(len(v))

    for _ in range(100):
        eta = fixed + ZL @ v
        step = np.linalg.solve(hessian(eta), ZL.T @ (y - expit(eta)) - v)
        v = v + step
        if np.max(np.abs(step)) < 1e-12:
            break
    eta = fixed + ZL @ v
    loglik = float(np.sum(y * eta - np.logaddexp(0, eta)))
    return -2 * loglik + float(v @ v) + float(np.linalg.slogdet(hessian(eta))[1])


def _laplace_glmm(y: np.ndarray, x: np.ndarray, Zs: list[np.ndarray]) -> np.ndarray:
    """(β, σ) minimising the Laplace deviance (L-BFGS-B, σ ≥ 0)."""
    share = np.clip(x.T @ y / x.sum(axis=0), 0.05, 0.95)
    start = np.concatenate([np.log(share / (1 - share)), np.ones(len(Zs))])
    bounds = [(None, None)] * x.shape[1] + [(0.0, None)] * len(Zs)
    res = optimize.minimize(
        _laplace_deviance, start, args=(y, x, Zs), method="L-BFGS-B", bounds=bounds,
        options={"ftol": 1e-15, "gtol": 1e-9, "maxiter": 5000},
    )  # fmt: skip
    assert res.success, res.message
    return np.asarray(res.x)


def _rows_of(fitted: pd.DataFrame, key: tuple[str, str]) -> pd.DataFrame:
    rows = fitted[(fitted["task"] == key[0]) & (fitted["field"] == key[1])]
    return rows.set_index(["effect", "level"])


def _check_cell(key: tuple[str, str], cell: pd.DataFrame, fitted: pd.DataFrame, keyed: bool) -> int:
    """The script's rows for one cell against the computation here; the number of
    estimates compared."""
    X, random = _design(cell)
    rows = _rows_of(fitted, key)
    assert list(rows.index) == list(X.columns), (key, list(rows.index))
    assert set(rows["n_obs"]) == {len(cell)}, key
    expected_random = " + ".join(f"(1 | {r})" for r in random)
    assert set(rows["random"]) == {expected_random}, (key, set(rows["random"]))
    separated = keyed and _separated(cell)
    notes = set(rows["note"])
    if not separated:
        assert notes == {""}, (key, notes)  # fitted cleanly: no convergence message
    else:
        assert all("estimate unbounded" in n for n in notes), (key, notes)
        return 0  # the estimate runs off to ± infinity: nothing to compare
    est = rows["estimate"].to_numpy(dtype=float)
    sd_of = {"rater_id": "sd_rater", "item_key": "sd_item"}
    if keyed:
        Zs = [pd.get_dummies(cell[r]).to_numpy(dtype=float) for r in random]
        got = _laplace_glmm(cell["y"].to_numpy(), X.to_numpy(), Zs)
        assert est == pytest.approx(got[: X.shape[1]], rel=0, abs=GLMER_ABS), key
        for r, sd in zip(random, got[X.shape[1] :], strict=True):
            assert float(rows[sd_of[r]].iloc[0]) == pytest.approx(sd, abs=SD_ABS), (key, r)
    else:
        beta, se, sds, sigma = _statsmodels_lmm(cell, X, random)
        assert est == pytest.approx(beta, rel=LMER_REL), key
        assert rows["se"].to_numpy(dtype=float) == pytest.approx(se, rel=LMER_REL), key
        assert float(rows["sd_residual"].iloc[0]) == pytest.approx(sigma, rel=LMER_REL), key
        for r, sd in sds.items():
            assert float(rows[sd_of[r]].iloc[0]) == pytest.approx(sd, abs=SD_ABS), (key, r)
    return len(est)


def _check(long: pd.DataFrame, folder: Path) -> dict[str, int]:
    """Every keyed cell and every rating cell of the long table fitted and checked;
    the number of estimates compared per kind."""
    compared = {}
    for name, keyed in (("accuracy", True), ("ratings", False)):
        cells = _cells(long, keyed)
        if not cells:
            assert not (folder / "mixed_models" / f"{name}_fixed.csv").exists()
            compared[name] = 0
            continue
        fitted = _fitted(folder, name)
        assert set(zip(fitted["task"], fitted["field"], strict=True)) == set(cells), name
        compared[name] = sum(_check_cell(k, c, fitted, keyed) for k, c in cells.items())
    return compared


@pytest.mark.parametrize("worked", WORKED)
def test_the_r_twin_agrees_with_independent_fits(
    worked: str, rscript: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Rscript mixed_models.R on the worked study's bundle: it runs, fits every keyed
    task × field and rating dimension without a convergence message (a rater type all
    right or all wrong is said, and not compared), and gives the independent fits'
    numbers."""
    long = _bundle(worked, request, tmp_path)
    _run_r(tmp_path)
    compared = _check(long, tmp_path)
    assert sum(compared.values()) > 0
    if worked in ("cpdue", "fuxi"):
        assert compared["accuracy"] >= 6  # no keyed cell is separated there
    if worked in ("cciv", "tang"):
        assert compared["ratings"] >= 10


def _chinese(long_csv: Path) -> None:
    """Chinese group, task, item, rater and source names in the bundle's long table."""
    d = pd.read_csv(long_csv, encoding="utf-8-sig", dtype=str, keep_default_na=False)
    d["group"] = d["group"].replace({"A": "专家", "B": "普通读者"})
    d["task"] = d["task"].replace({"quality": "诗评", "ck": "常识"})
    d["item"] = "诗" + d["item"]
    d["rater_id"] = d["rater_id"].str.replace("human:", "human:张", regex=False)
    d["item_source"] = d["item_source"].replace({"qwen": "通义"})
    d.to_csv(long_csv, index=False, encoding="utf-8-sig")


def test_the_r_twin_reads_chinese_in_any_locale(
    rscript: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A C locale (R re-encodes a file's text to the locale's: the old script read not
    one row of Chinese data there) gives the same fits as a UTF-8 one, with the Chinese
    labels, and the same numbers as the study with ASCII names."""
    long = _bundle("known", request, tmp_path)
    _run_r(tmp_path)
    ascii_ = {n: _fitted(tmp_path, n) for n in ("accuracy", "ratings")}
    _chinese(tmp_path / "long.csv")
    runs: dict[str, dict[str, pd.DataFrame]] = {}
    for lang in ("C", "C.UTF-8"):
        _run_r(tmp_path, lang=lang)
        runs[lang] = {n: _fitted(tmp_path, n) for n in ("accuracy", "ratings")}
    for name in ("accuracy", "ratings"):
        _same_fits(runs["C"][name], runs["C.UTF-8"][name])
    ratings = _fitted(tmp_path, "ratings")
    assert {"诗评"} == set(ratings["task"])
    assert {"group:专家", "group:普通读者", "通义"} <= set(ratings["level"])
    accuracy = _fitted(tmp_path, "accuracy")
    assert "常识" in set(accuracy["task"])
    for name, before in ascii_.items():
        after = _fitted(tmp_path, name)
        assert len(after) == len(before) == len(_rows(long, name)), name
    for col in ("estimate", "se"):  # the same fits, whatever the names (and so the order)
        before, after = ascii_["ratings"][col].astype(float), ratings[col].astype(float)
        assert np.sort(after) == pytest.approx(np.sort(before), rel=1e-6), col


def _same_fits(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Two runs' rows: the same labels and counts, and the same numbers to 1e-6 where
    the fit is clean. Not bit for bit: lme4 (through Eigen) gives last digits that vary
    from run to run (1e-11 on these cells), and a separated cell's unbounded estimate
    and its lme4 messages vary more."""
    labels = ["task", "field", "n_obs", "n_raters", "n_items", "effect", "level", "random"]
    pd.testing.assert_frame_equal(a[labels], b[labels])
    clean = (a["note"] == "") & (b["note"] == "")
    assert (clean == (a["note"] == "")).all()
    for col in ("estimate", "se", "sd_rater", "sd_item"):
        x = pd.to_numeric(a.loc[clean, col], errors="coerce").to_numpy(dtype=float)
        y = pd.to_numeric(b.loc[clean, col], errors="coerce").to_numpy(dtype=float)
        assert x == pytest.approx(y, rel=1e-6, abs=1e-9, nan_ok=True), col


def _rows(long: pd.DataFrame, name: str) -> list[tuple[str, str, str]]:
    """The fixed effects a table has: one per rater type and extra item source per cell."""
    out = []
    for key, cell in _cells(long, name == "accuracy").items():
        out += [(*key, level) for _, level in _design(cell)[0].columns]
    return out


def test_an_unkeyed_choice_is_not_a_rating(
    rscript: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A choice task without an answer key (formats.md: the key is optional) leaves
    `correct` empty and its value is an option's number, not a point on a scale: it is
    neither an accuracy cell nor a rating one (the script took such rows for ratings)."""
    _bundle("known", request, tmp_path)
    d = pd.read_csv(tmp_path / "long.csv", encoding="utf-8-sig", dtype=str, keep_default_na=False)
    d.loc[d["task"] == "ck", "correct"] = ""
    d.to_csv(tmp_path / "long.csv", index=False, encoding="utf-8-sig")
    _run_r(tmp_path)
    assert set(_fitted(tmp_path, "ratings")["task"]) == {"quality"}
    assert "ck" not in set(_fitted(tmp_path, "accuracy")["task"])


def _row(task: str, rater: str, item: str, value: int, correct: str = "") -> dict[str, str]:
    kind = rater.split(":")[0]
    return {
        "task": task, "item": item, "field": "answer" if correct else "q", "value": str(value),
        "correct": correct, "rater_kind": kind, "rater_id": rater,
        "group": "A" if kind == "human" else "", "model": rater if kind == "model" else "",
        "item_source": "", "excluded": "", "rating": "false" if correct else "true",
    }  # fmt: skip


def test_a_cell_that_cannot_be_fitted_says_why(rscript: str, tmp_path: Path) -> None:
    """The script runs to the end: a cell lme4 refuses or that holds nothing to estimate
    gets one row saying why, and the others are fitted."""
    rows = [  # every answer right: lme4 refuses a constant response
        _row("same", f"human:h{h}", f"i{i}", 0, "true") for h in range(3) for i in range(4)
    ]
    rows += [  # one item answered by models only: no random intercept left
        _row("one", f"model:m{m}", "only", 1, "true" if m else "false") for m in range(3)
    ]
    rows += [_row("solo", "human:s", f"i{i}", i % 5 + 1) for i in range(5)]  # one rating per item
    rng = np.random.default_rng(3)
    rows += [
        _row("fine", f"human:h{h}", f"i{i}", int(rng.integers(1, 6)))
        for h in range(4)
        for i in range(6)
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "long.csv", index=False, encoding="utf-8-sig")
    _run_r(tmp_path, script=FILES / "mixed_models.R")
    notes = {
        t: n
        for name in ("accuracy", "ratings")
        for t, n in _fitted(tmp_path, name)[["task", "note"]].values
    }
    assert "Response is constant" in notes["same"] and "all right" in notes["same"]
    assert notes["one"] == "not fitted: no random intercept left to estimate"
    assert "grouping factor" in notes["solo"]  # one rating per item: the item is the residual
    assert notes["fine"] == ""
    fine = _rows_of(_fitted(tmp_path, "ratings"), ("fine", "q"))
    balanced = [float(r["value"]) for r in rows[-24:]]  # every rater rated every item
    assert float(fine["estimate"].iloc[0]) == pytest.approx(np.mean(balanced), rel=1e-9)


def test_a_table_with_nothing_to_model_says_so(rscript: str, tmp_path: Path) -> None:
    """A study of generated poems only (no keyed answer, no rating): no file, and the
    script says there was nothing to fit instead of claiming it wrote the models."""
    rows = [_row("gen", f"model:m{m}", f"i{i}", 0) for m in range(2) for i in range(3)]
    for r in rows:
        r["rating"] = "false"
    pd.DataFrame(rows).to_csv(tmp_path / "long.csv", index=False, encoding="utf-8-sig")
    env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    done = subprocess.run(
        ["Rscript", str(FILES / "mixed_models.R"), str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "no mixed model to fit" in done.stdout
    assert "written" not in done.stdout
    assert not any((tmp_path / "mixed_models").iterdir())


BROKEN: dict[str, Callable[[str], str]] = {
    "ML instead of REML": lambda s: s.replace("REML = TRUE", "REML = FALSE"),
    "no item intercept": lambda s: s.replace('"(1 | item_key)")', "NULL)"),
}


@pytest.mark.parametrize("change", BROKEN)
def test_the_check_fails_on_a_broken_script(
    change: str, rscript: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The comparison can fail: the script fitting by ML, or leaving the items'
    random intercept out, is caught on Tang's ratings."""
    long = _bundle("tang", request, tmp_path)
    source = (FILES / "mixed_models.R").read_text(encoding="utf-8")
    broken = BROKEN[change](source)
    assert broken != source
    script = tmp_path / "broken.R"
    script.write_text(broken, encoding="utf-8")
    _run_r(tmp_path, script=script)
    with pytest.raises(AssertionError):
        _check(long, tmp_path)
