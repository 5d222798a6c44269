"""Figures for print (issue 24 item 2): one spec per chart shared by the dashboard's SVG
and the print renderer; PDF and SVG at journal column widths with the CJK font embedded
as a subset; long charts paged with no row lost; labels distinct under --by; a cut on
the dashboard said on the chart.

The PDF checks read the file with zlib and fontTools only (no PDF library of ours): the
embedded font program (FontFile2) is parsed as a TrueType font, and the text is decoded
through the font's own ToUnicode map, as a PDF viewer's text extraction does."""

from __future__ import annotations

import io
import re
import warnings
import zlib
from dataclasses import replace
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import translation
from fontTools.ttLib import TTFont

from research.figures import printed
from research.figures.cli import _by_form
from research.figures.drawing import Interval
from research.figures.registry import CHARTS, chart_spec
from research.figures.spec import Forest, distinct, pages, size
from research.figures.svg import MAX_ROWS, dashboard_svg
from scoring.report import build_report
from scoring.report.settings import ReportSettings

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english() -> Any:
    with translation.override("en"):  # the notes checked below are the English ones
        yield


# --- a minimal PDF reader: streams, the embedded font, the text through ToUnicode ---


def _objects(pdf: bytes) -> dict[int, tuple[bytes, bytes | None]]:
    """Object number → (dictionary text, decompressed stream or None)."""
    out: dict[int, tuple[bytes, bytes | None]] = {}
    for m in re.finditer(rb"(\d+) 0 obj\s*(.*?)endobj", pdf, re.S):
        body = m.group(2)
        head, sep, rest = body.partition(b"stream")
        stream = None
        if sep:
            data = rest.lstrip(b"\r\n").rsplit(b"endstream", 1)[0]
            stream = zlib.decompress(data) if b"FlateDecode" in head else data
        out[int(m.group(1))] = (head, stream)
    return out


def _ref(head: bytes, key: bytes) -> int:
    found = re.search(rb"/" + key + rb" (\d+) 0 R", head)
    assert found is not None, key
    return int(found.group(1))


def _utf16(hexes: bytes) -> str:
    return bytes.fromhex(hexes.decode()).decode("utf-16-be")


def _to_unicode(cmap: bytes) -> dict[int, str]:
    """A ToUnicode CMap's code → text (bfchar; bfrange with a start or an array)."""
    table: dict[int, str] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, uni in re.findall(rb"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>", block):
            table[int(code, 16)] = _utf16(uni)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for lo, hi, target in re.findall(
            rb"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F]+>)", block
        ):
            codes = range(int(lo, 16), int(hi, 16) + 1)
            if target.startswith(b"["):
                for code, uni in zip(codes, re.findall(rb"<([0-9a-fA-F]+)>", target), strict=True):
                    table[code] = _utf16(uni)
            else:
                first = ord(_utf16(target[1:-1]))
                for k, code in enumerate(codes):
                    table[code] = chr(first + k)
    return table


def pdf_fonts(pdf: bytes) -> dict[int, dict[str, Any]]:
    """Each Type0 font by object number: its name, embedded TrueType program, ToUnicode."""
    objs = _objects(pdf)
    fonts = {}
    for number, (head, _stream) in objs.items():
        if b"/Subtype /Type0" not in head:
            continue
        name = re.search(rb"/BaseFont /(\S+)", head)
        found = re.search(rb"/DescendantFonts \[ ?(\d+) 0 R", head)
        assert found is not None
        descendant = objs[int(found.group(1))][0]
        descriptor = objs[_ref(descendant, b"FontDescriptor")][0]
        program = objs[_ref(descriptor, b"FontFile2")][1]
        cmap = objs[_ref(head, b"ToUnicode")][1]
        fonts[number] = {
            "name": name.group(1).decode() if name else "",
            "font": TTFont(io.BytesIO(program or b"")),
            "unicode": _to_unicode(cmap or b""),
        }
    return fonts


_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def _literal(raw: bytes) -> bytes:
    """A PDF literal string's bytes (its escapes undone)."""
    out, i = bytearray(), 0
    while i < len(raw):
        ch = raw[i : i + 1]
        if ch != b"\\":
            out += ch
            i += 1
            continue
        octal = re.match(rb"[0-7]{1,3}", raw[i + 1 : i + 4])
        if octal:
            out.append(int(octal.group(0), 8) & 0xFF)
            i += 1 + len(octal.group(0))
        else:
            nxt = raw[i + 1 : i + 2]
            out += _ESCAPES.get(nxt, nxt)
            i += 2
    return bytes(out)


_TOKEN = re.compile(rb"/(\w+) [\d.]+ Tf|\(((?:\\.|[^\\)])*)\)|<([0-9a-fA-F]+)>", re.S)


def pdf_text(pdf: bytes) -> list[str]:
    """The text of every text object (BT … ET) of every page, each string decoded
    through its font's ToUnicode map (two bytes a code, Identity-H), as a viewer does."""
    fonts = pdf_fonts(pdf)
    resources = {
        name.decode(): fonts[int(num)]["unicode"]
        for name, num in re.findall(rb"/(F\d+) (\d+) 0 R", pdf)
        if int(num) in fonts
    }
    texts = []
    for _head, stream in _objects(pdf).values():
        if not stream or b"BT" not in stream:
            continue
        for block in re.findall(rb"\bBT\b(.*?)\bET\b", stream, re.S):
            table: dict[int, str] = {}
            text = ""
            for m in _TOKEN.finditer(block):
                if m.group(1):
                    table = resources.get(m.group(1).decode(), {})
                    continue
                data = (
                    _literal(m.group(2))
                    if m.group(2) is not None
                    else bytes.fromhex(m.group(3).decode())
                )
                codes = [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]
                text += "".join(table.get(c, "\ufffd") for c in codes)
            texts.append(text)
    return texts


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type /Page\b", pdf))


# --- specs, pages, cut notes (no database needed beyond the marker) ---


def _long_forest(n: int) -> Forest:
    rows = tuple(
        Interval(f"审美 第{k}行", 0.1 * (k % 7), 0.0, 0.2 * (k % 7), n=f"n={k}") for k in range(n)
    )
    return Forest("格律与审美", rows, x_label="平均分")


@pytest.mark.slow
def test_a_long_chart_pages_and_keeps_every_row() -> None:
    spec = _long_forest(95)
    parts = pages(spec, printed.ROWS_PER_PAGE)
    assert [size(p) for p in parts] == [40, 40, 15]
    pdf = printed.render(spec, "pdf", "one")
    assert pdf_pages(pdf) == 3
    text = pdf_text(pdf)
    drawn = [t for t in text if t.startswith("审美 第")]
    assert sorted(drawn) == sorted(r.label for r in spec.rows)  # each row once, none lost
    assert any("page 3 of 3: rows 81–95 of 95" in t for t in text)
    one_page = printed.render(spec, "svg", "two", page=2).decode()
    assert "审美 第40行" in one_page and "审美 第39行" not in one_page
    with pytest.raises(printed.FigureError):
        printed.render(spec, "svg", "one", page=4)


def test_the_dashboard_svg_says_what_it_cuts() -> None:
    svg = dashboard_svg(_long_forest(49))
    assert f"showing {MAX_ROWS} of 49 rows; download the full figure" in svg
    assert "审美 第39行" in svg and "审美 第40行" not in svg
    assert "showing" not in dashboard_svg(_long_forest(12))


def test_the_pdf_embeds_a_cjk_subset_and_its_text_can_be_extracted() -> None:
    spec = replace(_long_forest(3), x_label="passing − failing (ρ, κ ≥ 0)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdf = printed.render(spec, "pdf", "one")
    assert any("passing − failing (ρ, κ ≥ 0)" in t for t in pdf_text(pdf))  # the fallback
    fonts = pdf_fonts(pdf)
    assert fonts, "no Type0 (CID) font embedded"
    font = next(f for f in fonts.values() if "审" in f["unicode"].values())
    assert re.fullmatch(r"[A-Z]{6}\+.+", font["name"])  # a subset, as PDF names one
    cmap = font["font"].getBestCmap() or {}
    mapped = set(font["unicode"].values())
    assert {"审", "美", "格", "律"} <= mapped
    assert "glyf" in font["font"]  # TrueType outlines
    assert len(font["font"].getGlyphOrder()) < 200  # a subset, not the 7 MB font
    assert cmap is not None
    assert any("格律与审美" in t for t in pdf_text(pdf))
    assert all("Glyph" not in str(w.message) for w in caught)
    assert any("审美 第2行" in t for t in pdf_text(pdf))


def test_the_svg_carries_its_font_and_keeps_text_as_text() -> None:
    svg = printed.render(_long_forest(3), "svg", "two").decode()
    assert "@font-face" in svg and "data:font/woff;base64," in svg
    used = set(re.findall(r"font-family: '([^']+)'", svg))  # the text's first family
    faces = set(re.findall(r"@font-face\{font-family:'([^']+)'", svg))
    assert used and used <= faces
    assert "格律与审美" in svg and "<text" in svg
    width = re.search(r'<svg[^>]* width="([\d.]+)pt"', svg)
    assert width and float(width.group(1)) == pytest.approx(7.2 * 72)


def test_distinct_extends_only_repeated_labels() -> None:
    rows = [{"source": "a", "x": 1}, {"source": "b", "x": 2}, {"source": "a", "x": 3}]
    assert distinct(["p", "p", "q"], rows) == ["p (source=a)", "p (source=b)", "q"]


# --- the worked studies: every chart, --by labels, the view and the command ---


def _report(study: Any, by: tuple[str, ...] = ()) -> Any:
    return build_report(study, ReportSettings(n_boot=20, by=by))


@pytest.mark.slow
def test_every_chart_renders_to_pdf_and_svg(known, tang) -> None:
    drawn = set()
    for study in (known.study, tang[0].study):
        report = _report(study)
        for name in CHARTS:
            spec = chart_spec(name, report, study, {}, _by_form(study, report, name))
            if spec is None:
                continue
            drawn.add(name)
            pdf = printed.render(spec, "pdf", "one")
            assert pdf.startswith(b"%PDF") and pdf_fonts(pdf), name
            svg = printed.render(spec, "svg", "two")
            assert b"@font-face" in svg, name
    assert drawn >= set(CHARTS) - {"published"}


@pytest.mark.slow
def test_labels_are_distinct_under_by_and_no_row_is_lost_in_print(tang) -> None:
    study = tang[0].study
    report = _report(study, ("source",))
    for name in ("ratings", "validation", "echo-chamber", "rules-vs-ratings"):
        spec = chart_spec(name, report, study, {})
        assert isinstance(spec, Forest), name
        labels = [r.label for r in spec.rows]
        assert len(labels) == len(set(labels)), name
    validation = chart_spec("validation", _report(study), study, {"val_metric": "pearson"})
    assert isinstance(validation, Forest)
    pooled = [r for r in _report(study).tables["validation"] if r["metric"] == "pearson"]
    assert size(validation) == len(pooled)  # every generator's rows too, none dropped
    # the longest chart (every generator's validation rows): cut on the dashboard with a
    # note, every row in print across pages
    spec = chart_spec("validation", report, study, {})
    assert isinstance(spec, Forest) and size(spec) > MAX_ROWS
    with translation.override("zh-hans"):
        assert "完整的图请下载" in dashboard_svg(spec)
    pdf = printed.render(spec, "pdf", "two")
    assert pdf_pages(pdf) == len(pages(spec, printed.ROWS_PER_PAGE)) >= 2
    text = pdf_text(pdf)  # a wrapped label is drawn one line a text object
    lines = [printed.wrap_label(r.label, "two").split("\n") for r in spec.rows]
    assert all(line in text for row in lines for line in row)
    firsts = [t for t in text if t in {row[0] for row in lines}]
    assert len(firsts) == size(spec)  # every row drawn once: none lost across pages


def _client(study: Any) -> Client:
    user = get_user_model().objects.create_user("r", password="pw")
    study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


@pytest.mark.slow
def test_the_dashboard_links_and_the_download_view(tang) -> None:
    study = tang[0].study
    client = _client(study)
    base = f"/research/studies/{study.pk}"
    page = client.get(f"{base}/", {"by": "source", "n_boot": "20"})
    html = page.content.decode()
    assert "download the full figure" in html  # validation: 48 rows, 40 shown
    assert f"{base}/chart/validation.pdf?width=one&amp;" in html
    assert f"{base}/chart/echo-chamber.pdf?width=one&amp;" in html
    assert f"{base}/chart/pairwise.svg?width=two&amp;" in html and "&amp;pair=1" in html
    assert f"{base}/chart/rule-rates-heatmap.pdf?width=one&amp;" in html
    assert "&amp;condition=" in html
    reply = client.get(f"{base}/chart/validation.pdf", {"by": "source", "n_boot": "20"})
    assert reply.status_code == 200 and reply["Content-Type"] == "application/pdf"
    assert pdf_pages(reply.content) == 2
    svg = client.get(f"{base}/chart/validation.svg", {"by": "source", "n_boot": "20", "page": "2"})
    assert svg.status_code == 200 and b"page 2 of 2" in svg.content
    assert client.get(f"{base}/chart/nope.pdf").status_code == 404
    assert client.get(f"{base}/chart/ratings.png").status_code == 404
    assert client.get(f"{base}/chart/ratings.pdf", {"width": "three"}).status_code == 400
    other = get_user_model().objects.create_user("o", password="pw")
    stranger = Client()
    stranger.force_login(other)
    assert stranger.get(f"{base}/chart/ratings.pdf").status_code in (403, 404)


@pytest.mark.slow
def test_the_report_command_writes_a_figure(tang, tmp_path) -> None:
    study = tang[0].study
    out = tmp_path / "ratings.pdf"
    err = io.StringIO()
    call_command(
        "report",
        study.slug,
        "--figure",
        "ratings",
        "--format",
        "pdf",
        "--width",
        "two",
        "-o",
        str(out),
        "--n-boot",
        "20",
        stderr=err,
    )
    assert out.read_bytes().startswith(b"%PDF") and "1 page in all" in err.getvalue()
    svg = tmp_path / "v.svg"
    call_command(
        "report",
        study.slug,
        "--figure",
        "validation",
        "--format",
        "svg",
        "-o",
        str(svg),
        "--figure-choice",
        "pearson",
        "--n-boot",
        "20",
        stderr=io.StringIO(),
    )
    assert b"<svg" in svg.read_bytes()
    heat = tmp_path / "heat.pdf"  # the per-form rates, computed as the report job does
    call_command(
        "report", study.slug, "--figure", "rule-rates-heatmap", "-o", str(heat),
        "--n-boot", "20", stderr=io.StringIO(),
    )  # fmt: skip
    assert heat.read_bytes().startswith(b"%PDF")
    with pytest.raises(CommandError, match="no chart 'nope'"):
        call_command("report", study.slug, "--figure", "nope", "-o", str(heat), "--n-boot", "20")
    with pytest.raises(CommandError, match="pdf or svg"):
        call_command("report", study.slug, "--figure", "ratings", "--format", "csv", "-o", "x")


def test_the_accuracy_legend_leaves_room_for_every_name() -> None:
    from research.figures.drawing import Series, _width, grouped_bars

    names = ["专家组（古典文学专业研究生）", "gpt-4o-2024-08-06@direct", "kimi-k2@direct", "组C"]
    svg = grouped_bars(
        ["常识", "作者"], [Series(n, [0.5, 0.6]) for n in names], title="正确率", note="n"
    )
    keys = [
        (float(x), float(y))
        for x, y in re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="11" height="11"', svg)
    ]
    assert len(keys) == len(names)
    for (x, y), name, (x2, y2) in zip(keys, names, [*keys[1:], (1e9, 0.0)], strict=True):
        if y2 == y:  # the next name on the same line starts after this one ends
            assert x + 15 + _width(name, 11) <= x2


def test_the_dashboard_svg_comes_from_the_autoescaped_template() -> None:
    from django.utils.safestring import SafeString

    from research.figures.drawing import _el

    hostile = '<script>alert("x")</script>'
    svg = dashboard_svg(Forest(f"t {hostile}", (Interval(hostile, 0.1, 0.0, 0.2, n=hostile),)))
    assert isinstance(svg, SafeString)
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert 'aria-label="t &lt;script&gt;alert(&quot;x&quot;)' in svg
    with pytest.raises(ValueError):
        _el("line onload", {})
    with pytest.raises(ValueError):
        _el("line", {'x1" onload="': 1})


@pytest.mark.slow
def test_a_very_long_name_is_wrapped_not_left_to_squeeze_the_plot() -> None:
    # probe 24: a model named in 70 characters (and a group in 45) stayed one line, the
    # constrained layout gave up ("axes sizes collapsed to zero") and the labels were
    # clipped at the figure's edge
    long = "🤖超长模型名称-" + "非常" * 30 + "-v2.5🎋"
    label = printed.wrap_label(f"{long} · 意境", "one")
    lines = label.split("\n")
    assert len(lines) > 3
    assert label.replace("\n", "").replace(" · ", "") == f"{long}意境"  # nothing cut
    assert all(printed._units(line) <= printed.LABEL_WIDTH["one"] for line in lines)
    assert printed.wrap_label("gpt-4o · 流畅度", "one") == "gpt-4o · 流畅度"
    rows = tuple(Interval(f"{long} · 第{k}行", 0.3, 0.1, 0.5, n="n=16") for k in range(6))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        assert printed.render(Forest("长名字", rows, x_label="平均分"), "pdf", "one")[:4] == b"%PDF"
