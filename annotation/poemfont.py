"""The poems' web font: the CJK serif the project ships, subset to one study's characters.

Most Chinese Android phones have no CJK serif installed, so without a web font the poems
fall back to a sans. ``static/fonts/NotoSerifSC-Shiping.otf`` (Noto Serif CJK SC, SIL Open
Font License 1.1: ``static/fonts/OFL.txt``; rebuilt by ``tools/font_subset.py``) holds every
character of GB 2312 and of the bundled corpora, 7 MB: far too much for a phone. Each study
gets a subset of it (``fontTools.subset``) to the characters its pages show (its items,
tasks, screening, title and consent), the digits and the punctuation, as WOFF (zlib; WOFF2
when the ``brotli`` package is installed): about 300 bytes a character, a few dozen KB
for a study of a few poems (a study of thousands of characters gets a large file: the
demo's is some 850 KB; slicing it by ``unicode-range`` is not done).

A subset is built once and kept on disk (``DATA_DIR/fonts/<study id>-<hash>.woff``), named
by the hash of its characters and of the source font, so a study whose items change gets
a new file (and a new URL: the browser may cache each for a year). It is built in a
thread of its own, started by the first request for the study's font CSS; the font's
request waits for it :data:`WAIT_SECONDS` at most, else the page keeps its fallback
font and a later page gets the subset (a page never waits seconds for its font).
``manage.py demo`` builds the demo study's at once.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from studies.models import Item, Study

SOURCE = Path(settings.BASE_DIR) / "static" / "fonts" / "NotoSerifSC-Shiping.otf"
FAMILY = "Shiping Serif"  # the name static/css/site.css puts first in --cjk
# Always kept: ASCII (the option digits, scale points, codes) and the common CJK
# punctuation; the study's own texts bring any other mark they use.
BASIC = (
    "".join(chr(c) for c in range(0x20, 0x7F))
    + "\u3000，。、；：？！“”‘’（）《》〈〉【】「」『』—–…·～□＿"
)
WAIT_SECONDS = 2.0  # how long a font's request waits for its subset being built
SUBSET_VERSION = "2"
logger = logging.getLogger(__name__)
_building: dict[Path, threading.Thread] = {}
_building_lock = threading.Lock()  # raise when the subsetting options change: new files, new URLs


def woff2_available() -> bool:
    return importlib.util.find_spec("brotli") is not None


def flavor() -> str:
    """``woff2`` when the brotli package is installed, else ``woff`` (zlib)."""
    return "woff2" if woff2_available() else "woff"


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (options, parts, guides, dimensions)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def study_texts(study: Study) -> Iterator[str]:
    """What a study's volunteer pages show of its own (not the interface's words)."""
    yield from (study.title, study.description, study.consent)
    for q in study.screening.all():
        yield q.prompt
        yield from _strings(q.options)
    for task in study.tasks.all():
        yield from (task.title, task.instructions)
        yield from _strings(task.dimensions)
        yield from _strings(task.guide)
    items = Item.objects.filter(study=study).values_list(
        "stem", "options", "parts", "poem_title", "poem_author", "poem_text"
    )
    for stem, options, parts, title, author, text in items.iterator(chunk_size=2000):
        yield from (stem, title, author, text)
        yield from _strings(options)
        yield from _strings(parts)


def characters(texts: Iterable[str]) -> str:
    """The distinct characters of ``texts`` and :data:`BASIC`, sorted, without controls."""
    chars = set(BASIC)
    for text in texts:
        chars.update(text)
    return "".join(sorted(c for c in chars if c.isprintable()))


@functools.cache
def _source_stamp() -> str:
    """The source font's own hash (read once per process): the same on every server,
    where a file's time would differ between machines and name fonts they lack."""
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()


@dataclass(frozen=True)
class StudyFont:
    """One study's subset: its characters, their hash (the file's and URL's name)."""

    study_id: int
    chars: str
    digest: str
    flavor: str

    @property
    def path(self) -> Path:
        return Path(settings.DATA_DIR) / "fonts" / f"{self.study_id}-{self.digest}.{self.flavor}"

    @property
    def content_type(self) -> str:
        return f"font/{self.flavor}"


def study_font(study: Study) -> StudyFont:
    """The study's subset as it should be now (not built: :func:`font_file` builds)."""
    chars = characters(study_texts(study))
    kind = flavor()
    seed = "\n".join((SUBSET_VERSION, kind, _source_stamp(), chars))
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]
    return StudyFont(study_id=study.pk, chars=chars, digest=digest, flavor=kind)


def subset_bytes(chars: str, kind: str) -> bytes:
    """The source font subset to ``chars``, as ``kind`` (woff or woff2)."""
    from fontTools import subset  # a few hundred ms to import: only when a file is built

    options = subset.Options()
    options.flavor = kind
    options.hinting = False  # CFF outlines; hints serve no phone
    options.name_IDs = ["*"]  # the licence and copyright names travel with the font
    options.notdef_outline = True
    font = subset.load_font(str(SOURCE), options, lazy=True)
    try:
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=chars)
        subsetter.subset(font)
        with tempfile.SpooledTemporaryFile() as out:
            subset.save_font(font, out, options)
            out.seek(0)
            return out.read()
    finally:
        font.close()


def font_file(font: StudyFont) -> Path:
    """The subset's file on disk, built the first time it is asked for. Written to a
    temporary name and renamed, so a request never reads half a file (two requests
    building it at once both write the same bytes)."""
    path = font.path
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    data = subset_bytes(font.chars, font.flavor)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, 0o644)  # not mkstemp's 0600: any server process may read it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def font_face_css(font_url: str, kind: str) -> str:
    """The @font-face rule naming the study's subset (served as the study's font CSS)."""
    return (
        "/* The poems' serif: Noto Serif CJK SC (SIL Open Font License 1.1), subset to this"
        " study's characters. */\n"
        f'@font-face {{ font-family: "{FAMILY}"; src: url("{font_url}") format("{kind}");'
        " font-weight: 400; font-style: normal; font-display: swap; }\n"
    )


def _build_quietly(font: StudyFont) -> None:
    try:
        font_file(font)
    except Exception:  # the pages keep their fallback font; the next request tries again
        logger.exception("the poem font of study %s could not be built", font.study_id)
    finally:
        with _building_lock:
            _building.pop(font.path, None)


def font_file_soon(font: StudyFont, wait: float) -> Path | None:
    """The subset's file when it is built within ``wait`` seconds, else None. The build
    runs in a thread of its own (one per file at a time), which a request may leave
    running: the next request finds its file."""
    path = font.path
    if path.is_file():
        return path
    with _building_lock:
        thread = _building.get(path)
        if thread is None:
            thread = threading.Thread(
                target=_build_quietly, args=(font,), name=f"poem-font-{path.stem}", daemon=True
            )
            _building[path] = thread
            thread.start()
    thread.join(wait)
    return path if path.is_file() else None
