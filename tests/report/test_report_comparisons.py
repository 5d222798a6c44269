"""The ``comparisons`` table on the CP-DUE-style study: each model pair's McNemar p
against statsmodels, the family's Holm and Benjamini–Hochberg p-values against
statsmodels' multipletests, accuracies on the shared items with pandas, the ranking's
best set from the Holm p-values; the table reaches the files, the API and the dashboard."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_effectsize

from scoring.report import ReportSettings, build_report
from scoring.report.build import TABLES
from scoring.report.writers import KNOWN_COLUMNS
from tests.report.cpdue import MODELS, cpdue_study
from tests.report.worked import one

pytestmark = pytest.mark.django_db


def test_model_pairs_model_vs_group_and_the_adjusted_family(db) -> None:
    cp = cpdue_study()
    rows = build_report(cp.builder.study, ReportSettings(n_boot=300)).tables["comparisons"]
    frame = cp.frame.loc[cp.frame.item.str.startswith("ck")]
    family = [r for r in rows if (r["kind"], r["task"], r["field"]) == ("accuracy", "ck", "answer")]
    pairs = [r for r in family if r["summary"] == "pair"]
    for m1, m2 in combinations(MODELS, 2):
        a = frame.loc[frame.rater == m1].set_index("item").correct
        b = frame.loc[frame.rater == m2].set_index("item").correct.reindex(a.index)
        row = one(pairs, a=f"model:{m1}", b=f"model:{m2}")
        table = [[((a == 1) & (b == 1)).sum(), ((a == 1) & (b == 0)).sum()],
                 [((a == 0) & (b == 1)).sum(), ((a == 0) & (b == 0)).sum()]]  # fmt: skip
        assert row["test"] == "McNemar exact"
        assert row["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
        assert (row["value_a"], row["value_b"]) == (
            pytest.approx(a.mean()),
            pytest.approx(b.mean()),
        )
        assert row["cohens_h"] == pytest.approx(proportion_effectsize(a.mean(), b.mean()))
        assert row["n_items"] == len(a) == 24
        assert row["ci_low"] <= row["diff"] <= row["ci_high"]
    vs = one(pairs, a="model:qwen", b="group:B")
    members = frame.loc[frame.group == "B"]
    assert vs["value_b"] == pytest.approx(members.correct.mean())
    assert vs["test"] == "bootstrap Wald" and 0 <= vs["p_value"] <= 1
    assert vs["n_items"] == members.item.nunique()
    p = np.array([r["p_value"] for r in pairs])
    assert [r["p_holm"] for r in pairs] == pytest.approx(multipletests(p, method="holm")[1])
    assert [r["p_bh"] for r in pairs] == pytest.approx(multipletests(p, method="fdr_bh")[1])
    ranks = {r["a"]: r for r in family if r["summary"] == "rank"}
    assert ranks["model:gpt-4o"]["rank"] == 1 and ranks["model:gpt-4o"]["best_set"]
    assert ranks["model:tiny"]["rank"] == 3
    for name, r in ranks.items():
        if name == "model:gpt-4o":
            continue
        vs_best = one(pairs, a="model:gpt-4o", b=name)
        assert r["best_set"] == (vs_best["p_holm"] >= 0.05)


def test_group_pairs_are_the_clustered_t_the_plan_sizes_for(db) -> None:
    """Each pair of human groups: the difference of their accuracies on the shared items
    with statsmodels' two-way (people × items) cluster-robust OLS on a group indicator
    (the same difference; the same standard error up to statsmodels' (N − 1)/(N − 2);
    t with min(G) − 1 df), adjusted by Holm within the groups' own family."""
    cp = cpdue_study()
    rows = build_report(cp.builder.study, ReportSettings(n_boot=50)).tables["comparisons"]
    family = [r for r in rows if (r["kind"], r["task"], r["field"]) == ("accuracy", "ck", "answer")]
    pairs = [r for r in family if r["summary"] == "group pair"]
    assert {(r["a"], r["b"]) for r in pairs} == {
        ("group:A", "group:B"), ("group:A", "group:C"), ("group:B", "group:C")
    }  # fmt: skip
    frame = cp.frame.loc[cp.frame.item.str.startswith("ck") & (cp.frame.kind == "human")]
    for r in pairs:
        ga, gb = r["a"].split(":")[1], r["b"].split(":")[1]
        both = frame.loc[frame.group.isin([ga, gb])]
        shared = set(both.loc[both.group == ga, "item"]) & set(both.loc[both.group == gb, "item"])
        both = both.loc[both.item.isin(shared)]
        y = both.correct.to_numpy(float)
        x = np.column_stack([np.ones_like(y), (both.group == ga).to_numpy(float)])
        person = both.rater.astype("category").cat.codes.to_numpy()
        item = both.item.astype("category").cat.codes.to_numpy()
        fit = sm.OLS(y, x).fit(
            cov_type="cluster", cov_kwds={"groups": np.column_stack([person, item])}
        )
        se = float(np.sqrt(fit.cov_params()[1, 1])) / np.sqrt((y.size - 1) / (y.size - 2))
        df = min(len(set(person)), len(shared)) - 1
        assert r["diff"] == pytest.approx(fit.params[1])
        assert r["p_value"] == pytest.approx(2 * stats.t.sf(abs(fit.params[1] / se), df))
        assert r["ci_high"] - r["diff"] == pytest.approx(stats.t.ppf(0.975, df) * se)
        assert r["test"] == "clustered t (CGM)" and r["n_items"] == len(shared)
    p = np.array([r["p_value"] for r in pairs])
    assert [r["p_holm"] for r in pairs] == pytest.approx(multipletests(p, method="holm")[1])
    # the models' family keeps its own adjustment (three model pairs, three model-group)
    models = [r for r in family if r["summary"] == "pair"]
    q = np.array([r["p_value"] for r in models])
    assert [r["p_holm"] for r in models] == pytest.approx(multipletests(q, method="holm")[1])


def test_the_table_is_registered_for_every_interface(db) -> None:
    assert "comparisons" in TABLES and "comparisons" in KNOWN_COLUMNS
    from research.api.serializers import ReportOut

    assert "comparisons" in ReportOut().fields


def test_the_dashboard_shows_the_comparison_matrix(db) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    cp = cpdue_study()
    user = get_user_model().objects.create_user("r", password="pw")
    cp.builder.study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    page = client.get(f"/research/studies/{cp.builder.study.pk}/?n_boot=50")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'aria-label="Comparison matrix"' in html
    assert "?table=comparisons" in html and "★" in html


def test_rule_rates_paired_by_prompt_and_ratings_on_shared_poems(db) -> None:
    import pandas as pd

    from tests.report.factory import Builder

    rng = np.random.default_rng(12)
    b = Builder("cmp-gen")
    b.group("g")
    b.task("ci", "rating", dimensions=[{"key": "q", "label": "q", "min": 1, "max": 5}])
    b.rule("ccv")
    for judge in ("j1", "j2"):
        b.model(judge)
    b.human("p0", "g")
    rows, ratings = [], []
    for p in range(8):
        prompt = {"cipai": f"牌{p}", "condition": "direct"}
        for model, skill in (("gen-a", 1.0), ("gen-b", -0.5)):
            for s in range(3):
                item = f"{model}-{p}-{s}"
                b.item(item, "ci", poem_text="（合成）", poem_source=f"model:{model}",
                       poem_condition="direct",
                       meta={"prompt": prompt, "model": model, "run": "direct", "sample": s})  # fmt: skip
                value = int(rng.random() < 1 / (1 + np.exp(-skill)))
                b.answer("ccv", item, "structural", value)
                rows.append({"model": model, "prompt": p, "value": value})
                for rater in ("j1", "j2", "p0"):
                    if rater == "p0" and s > 0:
                        continue  # the person rates one sample per prompt
                    score = int(rng.integers(1, 6))
                    b.answer(rater, item, "q", score)
                    ratings.append({"rater": rater, "item": item, "value": score})
    table = build_report(b.study, ReportSettings(n_boot=200)).tables["comparisons"]
    frame = pd.DataFrame(rows)
    rule = one(table, kind="rule rate", summary="pair", field="ccv/structural")
    assert (rule["a"], rule["b"], rule["n_items"]) == ("model:gen-a", "model:gen-b", 8)
    assert rule["value_a"] == pytest.approx(frame[frame.model == "gen-a"].value.mean())
    assert rule["value_b"] == pytest.approx(frame[frame.model == "gen-b"].value.mean())
    assert rule["test"] == "bootstrap Wald" and rule["ci_low"] <= rule["diff"] <= rule["ci_high"]
    rated = pd.DataFrame(ratings)
    vs = one(table, kind="rating", summary="pair", a="model:j1", b="group:g")
    shared = rated[rated.rater == "p0"].item
    assert vs["n_items"] == len(shared) == 16
    mine = rated[(rated.rater == "j1") & rated.item.isin(shared)].value.mean()
    assert vs["value_a"] == pytest.approx(mine)
    assert vs["value_b"] == pytest.approx(rated[rated.rater == "p0"].value.mean())
