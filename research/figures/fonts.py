"""The CJK font of printed figures: the shipped serif (``static/fonts/NotoSerifSC-Shiping.otf``,
SIL Open Font License 1.1, ``static/fonts/OFL.txt``) subset to a figure's characters and
converted from CFF to TrueType outlines (quadratic curves, fontTools' cu2qu), because
matplotlib embeds a TrueType font in a PDF (``pdf.fonttype 42``, a CID font with a
ToUnicode map, so the text can be searched and copied) but not a CFF one.

A subset is built once per set of characters and kept on disk
(``DATA_DIR/fonts/figure-<hash>.ttf``); the licence and copyright names travel with it.
The folder is bounded: each use touches its subset, and building one removes the least
recently used beyond ``FIGURE_FONT_CACHE_FILES`` (never one used in the last
``_IN_USE_SECONDS``, which another process may be drawing with).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import os
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.conf import settings

from annotation.poemfont import BASIC, SOURCE


def _mpl_data() -> str:
    import matplotlib

    return str(matplotlib.get_data_path())


FAMILY = "Shiping Serif SC"
VERSION = "1"
#: Greek letters and mathematical signs the CJK font lacks (κ, ρ, −, ≥): DejaVu Serif,
#: shipped with matplotlib (Bitstream Vera licence: free to embed and redistribute).
FALLBACK_FAMILY = "DejaVu Serif"
FALLBACK = Path(_mpl_data()) / "fonts" / "ttf" / "DejaVuSerif.ttf"


def characters(texts: Iterable[str]) -> str:
    """The distinct characters of ``texts`` with ASCII and CJK punctuation, sorted."""
    found = set(BASIC) | set("0123456789.,−–-+×≥≤αβκρτφ±[]()%=/·*")
    for text in texts:
        found.update(ch for ch in text if ch.isprintable())
    return "".join(sorted(found))


def _subset(chars: str, flavor: str | None, source: Path = SOURCE) -> io.BytesIO:
    from fontTools import subset

    options = subset.Options()
    options.flavor = flavor
    options.hinting = False
    options.name_IDs = ["*"]  # the licence and copyright names travel with the font
    options.notdef_outline = True
    options.layout_features = []
    font = subset.load_font(str(source), options, lazy=False)
    try:
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=chars)
        subsetter.subset(font)
        out = io.BytesIO()
        subset.save_font(font, out, options)
        out.seek(0)
        return out
    finally:
        font.close()


def cff_to_truetype(data: io.BytesIO) -> bytes:
    """A CFF-flavoured OpenType font rewritten with TrueType (``glyf``) outlines: each
    cubic curve approximated by quadratics within 1 unit (fontTools' Cu2QuPen)."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import TTFont, newTable

    font = TTFont(data)
    glyph_set = font.getGlyphSet()
    glyf, glyphs = newTable("glyf"), {}
    for name in font.getGlyphOrder():
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, 1.0, reverse_direction=True))
        glyphs[name] = pen.glyph()
    glyf.glyphOrder, glyf.glyphs = font.getGlyphOrder(), glyphs
    font["glyf"], font["loca"] = glyf, newTable("loca")
    del font["CFF "]
    if "VORG" in font:
        del font["VORG"]
    font["maxp"] = _maxp_v1()
    font["head"].glyphDataFormat = 0
    font["post"].formatType = 2.0
    font["post"].extraNames, font["post"].mapping = [], {}
    font.sfntVersion = "\x00\x01\x00\x00"
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def _maxp_v1() -> Any:
    from fontTools.ttLib import newTable

    maxp = newTable("maxp")
    maxp.tableVersion = 0x00010000
    for attr in (
        "maxZones",
        "maxTwilightPoints",
        "maxStorage",
        "maxFunctionDefs",
        "maxInstructionDefs",
        "maxStackElements",
        "maxSizeOfInstructions",
        "maxComponentElements",
    ):
        setattr(maxp, attr, 0)
    maxp.maxZones = 1
    return maxp


def _key(chars: str) -> str:
    stamp = f"{VERSION}:{SOURCE.stat().st_size}:{chars}"
    return hashlib.sha256(stamp.encode()).hexdigest()[:16]


def _rename(data: bytes, family: str) -> bytes:
    """The font under its own family name (one per subset, so matplotlib's font list
    never confuses two subsets); the copyright and licence names are kept."""
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(data))
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 3, 4, 6, 16, 17):
            names.removeNames(nameID=record.nameID)
    for name_id, text in ((1, family), (4, family), (6, family.replace(" ", "-")), (3, family)):
        names.setName(text, name_id, 3, 1, 0x409)
        names.setName(text, name_id, 1, 0, 0)
    names.setName("Regular", 2, 3, 1, 0x409)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def family_of(path: Path) -> str:
    """The family name of a subset built by :func:`truetype_subset`."""
    return f"{FAMILY} {path.stem.removeprefix('figure-')}"


#: A subset used this recently is never pruned: another process may be drawing with it.
_IN_USE_SECONDS = 600


def truetype_subset(chars: str) -> Path:
    """The TrueType subset for ``chars`` on disk (built the first time; atomic rename;
    a hit marks it used, a build prunes the least recently used)."""
    folder = Path(settings.DATA_DIR) / "fonts"
    path = folder / f"figure-{_key(chars)}.ttf"
    if path.exists():
        _touch(path)
        return path
    folder.mkdir(parents=True, exist_ok=True)
    data = _rename(cff_to_truetype(_subset(chars, None)), family_of(path))
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)
    prune_subsets(folder, int(getattr(settings, "FIGURE_FONT_CACHE_FILES", 200)))
    return path


def _touch(path: Path) -> None:
    # pruned by another process meanwhile: the next call rebuilds it
    with contextlib.suppress(OSError):
        os.utime(path)


def prune_subsets(folder: Path, keep: int, now: float | None = None) -> list[Path]:
    """Remove the least recently used subsets beyond ``keep`` (and stray ``.part`` files
    of interrupted builds), sparing any used in the last ``_IN_USE_SECONDS``; returns
    what was removed."""
    now = time.time() if now is None else now
    found: list[tuple[float, Path]] = []
    for entry in folder.glob("figure-*.ttf"):
        try:
            found.append((entry.stat().st_mtime, entry))
        except OSError:
            continue
    found.sort(reverse=True)
    stale = [p for _, p in found[keep:]]
    stale += [p for p in folder.glob("*.part") if _age(p, now) > _IN_USE_SECONDS]
    removed = []
    for old in stale:
        if _age(old, now) <= _IN_USE_SECONDS:
            continue
        try:
            old.unlink()
        except OSError:
            continue
        removed.append(old)
    return removed


def _age(path: Path, now: float) -> float:
    try:
        return now - path.stat().st_mtime
    except OSError:
        return 0.0


def woff_data_url(chars: str, source: Path = SOURCE) -> str:
    """The subset of ``source`` as a WOFF ``data:`` URL, for an SVG's ``@font-face``."""
    data = _subset(chars, "woff", source).getvalue()
    return "data:font/woff;base64," + base64.b64encode(data).decode("ascii")
