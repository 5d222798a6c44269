"""Rebuild ``static/fonts/NotoSerifSC-Shiping.otf``, the CJK serif the project ships.

Source: Noto Serif CJK SC Regular (SIL Open Font License 1.1, ``static/fonts/OFL.txt``)
from Debian's ``fonts-noto-cjk`` package (``NotoSerifCJK-Regular.ttc``, face 2 = SC).
The subset keeps every character of GB 2312, every character of the bundled corpora
(``data/``, ``scoring/prosody/data``, the demo and the prosody tests, traditional forms
included), ASCII, CJK punctuation and full-width forms, with all layout features (the
vertical forms and the locl variants) and no hinting::

    apt-get download fonts-noto-cjk && dpkg-deb -x fonts-noto-cjk_*.deb /tmp/noto
    python tools/font_subset.py /tmp/noto/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc

Pages and figures subset this file again to the characters they use
(``fontTools.subset``), so what a browser or a PDF carries is a few dozen KB.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "static" / "fonts" / "NotoSerifSC-Shiping.otf"
CORPORA = ("data", "scoring/prosody/data", "demo", "tests/prosody")
EXTRA = "·—–…‘’“”□＿●○◎△▲"


def gb2312() -> set[str]:
    chars = set()
    for high in range(0xB0, 0xF8):
        for low in range(0xA1, 0xFF):
            try:
                chars.add(bytes([high, low]).decode("gb2312"))
            except UnicodeDecodeError:
                continue
    return chars


def corpus_chars() -> set[str]:
    chars: set[str] = set()
    for folder in CORPORA:
        for path in (ROOT / folder).rglob("*"):
            if not path.is_file():
                continue
            try:
                text = path.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            chars.update(c for c in text if ord(c) >= 0x2E80)
    return chars


def wanted() -> set[str]:
    ranges = (range(0x20, 0x7F), range(0x3000, 0x3040), range(0xFF00, 0xFFF0))
    basic = {chr(code) for r in ranges for code in r}
    return gb2312() | corpus_chars() | basic | set(EXTRA)


def main(ttc: str) -> None:
    face = TTCollection(ttc).fonts[2]  # Noto Serif CJK SC
    tmp = OUT.with_suffix(".full.otf")
    face.save(tmp)
    cmap = face.getBestCmap()
    codes = sorted(ord(c) for c in wanted() if ord(c) in cmap)
    opts = subset.Options()
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.hinting = False
    font = subset.load_font(str(tmp), opts)
    subsetter = subset.Subsetter(opts)
    subsetter.populate(unicodes=codes)
    subsetter.subset(font)
    subset.save_font(font, str(OUT), opts)
    tmp.unlink()
    print(f"{OUT}: {len(codes)} characters, {OUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1])
