"""The text of a file in the encodings researchers' files arrive in.

A CSV saved by Excel on Chinese Windows is GB18030 (GBK); Excel's "Unicode text" and
many older tools write UTF-16 with a byte-order mark; some write UTF-8 with a BOM. The
rule, in order (docs/loading.md, "Encodings"):

1. an encoding named by the user (``--encoding``, the upload page's choice) is used
   strictly: a byte it cannot read is a problem naming its line;
2. a byte-order mark decides (UTF-8, UTF-16 or UTF-32, little or big endian);
3. text that is valid UTF-8 is UTF-8; text that is mostly UTF-8 with a few broken
   bytes is UTF-8 damaged, and its first broken byte is reported (never read as
   another encoding, which would load mojibake);
4. otherwise charset-normalizer chooses among the encodings such a file can be in:
   UTF-16/32 without a mark when the bytes hold NULs (no GB18030 or Big5 text does),
   GB18030 (a superset of GBK and GB2312) or Big5 otherwise. If it cannot tell, the file
   is refused with what to do: save it as UTF-8, or name its encoding.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from charset_normalizer import from_bytes
from django.utils.translation import gettext_lazy as _

from studies.values import Text, with_params

BOMS = (  # longest first: the UTF-32 LE mark begins with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
WIDE = ["utf_16_le", "utf_16_be", "utf_32_le", "utf_32_be"]
CHINESE = ["gb18030", "big5"]

# The choices offered where a user names an encoding (the upload page); the commands'
# --encoding takes any name Python knows.
NAMED = [
    ("utf-8", "UTF-8"),
    ("gb18030", "GB18030 / GBK / GB2312"),
    ("big5", "Big5"),
    ("utf-16", "UTF-16"),
]

SAVE_AS_UTF8 = _(
    "save the file as UTF-8 (Excel: 另存为 → “CSV UTF-8 (逗号分隔)”; WPS or Notepad: "
    "encoding UTF-8), or name its encoding (--encoding gb18030, big5, utf-16)"
)


@dataclass(frozen=True)
class Decoded:
    text: str | None  # None: the file could not be read
    encoding: str = ""  # the codec used, as Python names it
    line: int | None = None  # where the problem is, when there is one
    problem: Text = ""


def known_encoding(name: str) -> str | None:
    """Python's name for ``name`` (``GBK`` → ``gbk``), or None if Python has no such codec."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _line_of(content: bytes, offset: int) -> int:
    return content[:offset].count(b"\n") + 1


def _strict(content: bytes, encoding: str) -> Decoded:
    try:
        return Decoded(content.decode(encoding), encoding)
    except UnicodeDecodeError as exc:
        return Decoded(
            None,
            encoding,
            _line_of(content, exc.start),
            with_params(
                _("cannot be read as %(encoding)s (byte %(byte)d): %(todo)s"),
                encoding=encoding,
                byte=exc.start,
                todo=SAVE_AS_UTF8,
            ),
        )


def mostly_utf8(content: bytes) -> bool:
    """More well-formed non-ASCII UTF-8 characters than broken bytes: a UTF-8 file with
    damage, not a file in another encoding (GB18030 text is hardly ever valid UTF-8)."""
    text = content.decode("utf-8", errors="replace")
    broken = text.count("\ufffd")
    good = sum(1 for c in text if ord(c) > 127) - broken
    return good > 0 and good >= broken


def decode_text(content: bytes, encoding: str | None = None) -> Decoded:
    """The text of ``content`` by the rule in this module's docstring."""
    if encoding:
        name = known_encoding(encoding)
        if name is None:
            return Decoded(
                None,
                encoding,
                None,
                with_params(_("unknown encoding %(encoding)r"), encoding=encoding),
            )
        if name == "utf-8":
            name = "utf-8-sig"  # a BOM is not part of the text
        return _strict(content, name)
    for bom, name in BOMS:
        if content.startswith(bom):
            return _strict(content, name)
    try:
        return Decoded(content.decode("utf-8"), "utf-8")
    except UnicodeDecodeError as exc:
        broken = Decoded(
            None,
            "utf-8",
            _line_of(content, exc.start),
            with_params(
                _("not valid UTF-8 (byte %(byte)d): %(todo)s"), byte=exc.start, todo=SAVE_AS_UTF8
            ),
        )
    if mostly_utf8(content):
        return broken
    best = from_bytes(content, cp_isolation=WIDE if b"\x00" in content else CHINESE).best()
    return broken if best is None else _strict(content, best.encoding)


def is_workbook(content: bytes) -> bool:
    """An XLSX (or other ZIP) file, whatever its name says."""
    return content.startswith(b"PK\x03\x04")


def is_old_workbook(content: bytes) -> bool:
    """An Excel 97–2003 .xls file (an OLE compound document)."""
    return content.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")


def plain_utf8(content: bytes, chunk: int = 1 << 20) -> bool:
    """Whether ``content`` is valid UTF-8 (read in chunks: no copy of the whole text)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(content), chunk):
            decoder.decode(content[start : start + chunk])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True
