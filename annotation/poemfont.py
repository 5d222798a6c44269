"""The poems' web font: the CJK serif the project ships, subset to one study's characters.

Most Chinese Android phones have no CJK serif installed, so without a web font the poems
fall back to a sans. ``static/fonts/NotoSerifSC-Shiping.otf`` (Noto Serif CJK SC, SIL Open
Font License 1.1: ``static/fonts/OFL.txt``; rebuilt by ``tools/font_subset.py``) holds every
character of GB 2312 and of the bundled corpora, 7 MB: far too much for a phone. Each study
gets a subset of it (``fontTools.subset``) to the characters its pages show (its items,
tasks, screening, title and consent), the digits and the punctuation, as WOFF (zlib; WOFF2
when the ``brotli`` package is installed): about 300 bytes a character, a few dozen KB
for a study of a few poems, but some 850 KB for the demo's 200 poems.

**Per page.** So the volunteer pages do not load the whole study's subset: each links
the font CSS of its own page (``?for=``), whose faces (one family, disjoint
``unicode-range`` values, so the browser fetches only what the page uses) are subsets of
their own (:func:`page_fonts`): the welcome page's (the title, description and consent),
the screening page's, and on a question page its task's (the title, the task's
instructions, guide and scales: shared by every question of the task and cached) and its
item's (the item's characters the task's face lacks: some 60–100 characters, a few dozen
KB at most). The whole study's subset (no ``?for=``) stays for any other use.

A subset is built once and kept on disk (``DATA_DIR/fonts/<study id>-<hash>.woff``), named
by the hash of its characters and of the source font, so a study whose items change gets
a new file (and a new URL: the browser may cache each for a year). It is built in a
thread of its own, started by the first request for the study's font CSS; the font's
request waits for it :data:`WAIT_SECONDS` at most, else the page keeps its fallback
font and a later page gets the subset (a page never waits seconds for its font).
``manage.py demo`` builds the demo study's shared page faces at once
(:func:`shared_page_fonts`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from studies.models import Item, Study, Task

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


ITEM_TEXTS = ("stem", "options", "parts", "poem_title", "poem_author", "poem_text")


def _screening_texts(study: Study) -> Iterator[str]:
    for q in study.screening.all():
        yield q.prompt
        yield from _strings(q.options)


def _task_texts(task: Task) -> Iterator[str]:
    yield from (task.title, task.instructions)
    yield from _strings(task.dimensions)
    yield from _strings(task.guide)


def _item_texts(row: Iterable[Any]) -> Iterator[str]:
    for value in row:
        yield from _strings(value)


def study_texts(study: Study) -> Iterator[str]:
    """What a study's volunteer pages show of its own (not the interface's words)."""
    yield from (study.title, study.description, study.consent)
    yield from _screening_texts(study)
    for task in study.tasks.all():
        yield from _task_texts(task)
    items = Item.objects.filter(study=study).values_list(*ITEM_TEXTS)
    for row in items.iterator(chunk_size=2000):
        yield from _item_texts(row)


def characters(texts: Iterable[str], *, basic: bool = True) -> str:
    """The distinct characters of ``texts`` (and :data:`BASIC`), sorted, without controls."""
    chars = set(BASIC) if basic else set()
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
    scope: str = ""  # "": the whole study's; else a page's face (SCOPE)

    @property
    def path(self) -> Path:
        name = f"{self.study_id}-{self.scope}-" if self.scope else f"{self.study_id}-"
        return Path(settings.DATA_DIR) / "fonts" / f"{name}{self.digest}.{self.flavor}"

    @property
    def unicode_range(self) -> str:
        return unicode_range(self.chars) if self.scope else ""

    @property
    def content_type(self) -> str:
        return f"font/{self.flavor}"


def _font(study: Study, chars: str, scope: str = "") -> StudyFont:
    kind = flavor()
    seed = "\n".join((SUBSET_VERSION, kind, _source_stamp(), chars))
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]
    return StudyFont(study_id=study.pk, chars=chars, digest=digest, flavor=kind, scope=scope)


def study_font(study: Study) -> StudyFont:
    """The study's subset as it should be now (not built: :func:`font_file` builds)."""
    return _font(study, characters(study_texts(study)))


#: A page face's scope: ``welcome``, ``screening``, ``task<pk>`` or ``item<pk>``.
SCOPE = r"welcome|screening|task[0-9]{1,18}|item[0-9]{1,18}"
_PK = re.compile(r"(task|item)([0-9]{1,18})")


def _task_font(study: Study, task: Task) -> StudyFont:
    return _font(study, characters([study.title, *_task_texts(task)]), f"task{task.pk}")


def font_for(study: Study, scope: str) -> StudyFont | None:
    """The face of ``scope`` (a :data:`SCOPE`) as it should be now; None: no such scope
    in this study."""
    if scope == "welcome":
        texts = (study.title, study.description, study.consent)
        return _font(study, characters(texts), scope)
    if scope == "screening":
        return _font(study, characters([study.title, *_screening_texts(study)]), scope)
    match = _PK.fullmatch(scope)
    if match is None:
        return None
    if match.group(1) == "task":
        task = Task.objects.filter(study=study, pk=int(match.group(2))).first()
        return _task_font(study, task) if task is not None else None
    item = Item.objects.filter(study=study, pk=int(match.group(2))).select_related("task").first()
    if item is None:
        return None
    shared = set(_task_font(study, item.task).chars)
    own = characters(_item_texts(getattr(item, f) for f in ITEM_TEXTS), basic=False)
    return _font(study, "".join(c for c in own if c not in shared), scope)


def page_fonts(study: Study, page: str) -> list[StudyFont] | None:
    """The faces a volunteer page uses: ``welcome``, ``screening``, or ``item<pk>`` (a
    question page: its task's face and its item's own; the item's is left out when the
    task's has every character). None: no such page in this study."""
    match = _PK.fullmatch(page)
    if match is not None and match.group(1) == "item":
        item = Item.objects.filter(study=study, pk=int(match.group(2))).first()
        if item is None:
            return None
        task_font = font_for(study, f"task{item.task_id}")
        item_font = font_for(study, page)
        return [f for f in (task_font, item_font) if f is not None and f.chars]
    if page in ("welcome", "screening"):
        font = font_for(study, page)
        return [font] if font is not None else None
    return None


def shared_page_fonts(study: Study) -> list[StudyFont]:
    """The page faces every volunteer meets: the welcome page's, the screening page's and
    each task's (the items' own faces are built when first asked for)."""
    scopes = [
        "welcome",
        "screening",
        *(f"task{pk}" for pk in study.tasks.values_list("pk", flat=True)),
    ]
    return [f for f in (font_for(study, s) for s in scopes) if f is not None]


def unicode_range(chars: str) -> str:
    """The CSS ``unicode-range`` of ``chars``: runs of consecutive code points joined."""
    points = sorted({ord(c) for c in chars})
    runs: list[list[int]] = []
    for p in points:
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


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


def font_face_css(font_url: str, kind: str, unicode_range: str = "") -> str:
    """The @font-face rule naming the study's subset (served as the study's font CSS),
    or a page's face with its ``unicode-range``."""
    only = f" unicode-range: {unicode_range};" if unicode_range else ""
    return (
        "/* The poems' serif: Noto Serif CJK SC (SIL Open Font License 1.1), subset to this"
        " study's characters. */\n"
        f'@font-face {{ font-family: "{FAMILY}"; src: url("{font_url}") format("{kind}");'
        f" font-weight: 400; font-style: normal; font-display: swap;{only} }}\n"
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
