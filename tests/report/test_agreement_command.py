"""``manage.py agreement FILE``: any rating table, long or wide, with clear errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.agreement.agreement_examples import KRIPPENDORFF_2011


def _wide_csv(tmp_path: Path) -> Path:
    lines = ["unit," + ",".join(KRIPPENDORFF_2011)]
    for u in range(12):
        cells = ["." if col[u] is None else str(col[u]) for col in KRIPPENDORFF_2011.values()]
        lines.append(f"u{u + 1}," + ",".join(cells))
    path = tmp_path / "wide.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _long_csv(tmp_path: Path) -> Path:
    lines = ["rater,unit,value"]  # any column order
    for coder, values in KRIPPENDORFF_2011.items():
        lines += [f"{coder},u{u},{v}" for u, v in enumerate(values) if v is not None]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(*args: str) -> dict:
    out = io.StringIO()
    call_command("agreement", *args, "--json", "--n-boot", "50", stdout=out)
    return json.loads(out.getvalue())


def alpha(doc: dict) -> float:
    return next(r["value"] for r in doc["results"] if r["metric"] == "krippendorff_alpha")


@pytest.mark.parametrize(
    ("level", "expected"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_from_a_wide_csv_at_every_level(tmp_path, level, expected) -> None:
    doc = run(str(_wide_csv(tmp_path)), "--level", level)
    assert doc["shape"] == "wide" and (doc["n_units"], doc["n_raters"]) == (12, 4)
    assert round(alpha(doc), 3) == expected


def test_long_csv_gives_the_same_result_as_wide(tmp_path) -> None:
    long, wide = run(str(_long_csv(tmp_path))), run(str(_wide_csv(tmp_path)))
    assert long["shape"] == "long"
    assert alpha(long) == pytest.approx(alpha(wide), abs=1e-12)
    assert {r["metric"] for r in long["results"]} == {
        "percent_agreement",
        "krippendorff_alpha",
        "fleiss_kappa",
        "gwet_ac1",
        "brennan_prediger",
        "conger_kappa",
    }


def test_two_raters_get_cohen_kappa_weighted_at_the_ordinal_level(tmp_path) -> None:
    path = tmp_path / "two.csv"
    path.write_text("a;b\n1;1\n2;2\n3;2\n4;4\n5;4\n", encoding="utf-8")  # semicolons sniffed
    doc = run(str(path), "--level", "ordinal", "--domain", "1..5")
    weights = {r["weights"] for r in doc["results"] if r["metric"] == "cohen_kappa"}
    assert weights == {"none", "linear", "quadratic"}


def test_text_output_lists_every_coefficient(tmp_path) -> None:
    out = io.StringIO()
    call_command("agreement", str(_wide_csv(tmp_path)), "--n-boot", "20", stdout=out)
    text = out.getvalue()
    assert "krippendorff_alpha" in text and "0.7434" in text and "12 units" in text


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (
            "unit,rater,value\nu1,A,1\nu1,A,2\n",
            [],
            "line 3: rater 'A' rated unit 'u1' again (first at line 2)",
        ),
        ("unit,rater,value\nu1,,1\n", [], "line 2, field rater: empty"),
        ("unit,rater,value\nu1,A\n", [], "line 2: expected at least 3 fields, found 2"),
        (
            "unit,rater,value\nu1,A,high\n",
            ["--level", "interval"],
            "line 2, field value: 'high' is not a number",
        ),
        ("A,B\n1,2\n3\n", [], "line 3: expected 2 fields, found 1"),
        ("A,B\n1,-2\n", ["--level", "ratio"], "line 2, field B: ratio values cannot be negative"),
        (
            "A,B\n1,7\n",
            ["--domain", "1..5"],
            "line 2, field B: '7' is not on the declared scale (1, 2, 3, 4, 5)",
        ),
        ("A,B\n好,很好\n", ["--level", "ordinal"], "line 2, field A: '好' is not a number"),
        ("A,B\n1,2\n", ["--domain", "5..1"], "--domain '5..1': the scale runs from low to high"),
        ("", [], "line 1: a header row is needed"),
    ],
)
def test_bad_input_names_the_line_and_field(tmp_path, content, args, message) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        call_command("agreement", str(path), *args)
    assert message in str(exc.value)


def test_missing_file_is_an_error(tmp_path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        call_command("agreement", str(tmp_path / "nope.csv"))


def test_ordered_labels_with_a_declared_domain_at_the_ordinal_level(tmp_path) -> None:
    # Krippendorff (2011, section C) with the values 1..5 written as ordered labels:
    # ordinal alpha 0.815 as printed there; the file reader used to reject labels.
    names = dict(zip(range(1, 6), ("很差", "差", "中", "好", "很好"), strict=True))
    lines = ["unit," + ",".join(KRIPPENDORFF_2011)]
    for u in range(12):
        cells = ["" if (v := col[u]) is None else names[v] for col in KRIPPENDORFF_2011.values()]
        lines.append(f"u{u + 1}," + ",".join(cells))
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    doc = run(str(path), "--level", "ordinal", "--domain", ",".join(names.values()))
    assert doc["level"] == "ordinal" and doc["domain"] == list(names.values())
    assert round(alpha(doc), 3) == 0.815


@pytest.mark.parametrize(
    "content",
    ["unit,rater,value\nu1,,1\n", "A,B\n1,2\n3\n", "A,B\n1,x\n"],
)
def test_line_errors_also_name_the_file(tmp_path, content) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        call_command("agreement", str(path), "--level", "interval")
    assert str(exc.value).startswith(f"{path}: line ")


def test_negative_seed_is_a_command_error(tmp_path) -> None:
    with pytest.raises(CommandError, match="--seed"):
        call_command("agreement", str(_wide_csv(tmp_path)), "--seed", "-1")


def test_text_output_shows_a_fractional_confidence(tmp_path) -> None:
    out = io.StringIO()
    call_command(
        "agreement", str(_wide_csv(tmp_path)), "--n-boot", "20", "--confidence", "0.975", stdout=out
    )
    assert "97.5% CI" in out.getvalue()
