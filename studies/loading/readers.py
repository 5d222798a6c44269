"""Read JSONL, CSV, JSON and YAML files into records that remember their line numbers."""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import yaml
from django.utils.translation import gettext_lazy as _

from studies.loading.encodings import (
    decode_text,
    is_old_workbook,
    is_workbook,
    mostly_utf8,
    plain_utf8,
)
from studies.loading.plain import (
    NESTED_TOO_DEEPLY,
    DuplicateKey,
    NotPlainJSON,
    duplicate_key_message,
    impurities,
    loads,
    text_problem,
)
from studies.loading.problems import Collector
from studies.loading.syntax import json_syntax_message, yaml_syntax_message
from studies.loading.workbook import read_workbook, workbook_rows
from studies.values import Text, in_english, with_params

TABULAR_FORMATS = ("jsonl", "csv", "xlsx")
CELL_FORMATS = ("csv", "xlsx")  # every value a text cell, read by the same column rules


@dataclass(frozen=True)
class Record:
    line: int
    data: dict[str, Any]


@dataclass
class Source:
    """A file to load: its display name, its bytes, and its format."""

    name: str
    content: bytes
    format: str
    encoding: str | None = None  # None: detected (studies.loading.encodings)
    sheet: str | None = None  # an XLSX workbook's sheet; None: the first

    def __post_init__(self) -> None:
        if len(self.name) > 500:  # ImportLog.filename holds 500 characters
            self.name = "…" + self.name[-499:]

    @classmethod
    def from_path(
        cls,
        path: str | Path,
        fmt: str | None = None,
        *,
        encoding: str | None = None,
        sheet: str | None = None,
    ) -> Source:
        p = Path(path)
        return cls(
            name=str(path),
            content=p.read_bytes(),
            format=fmt or guess_format(p.name),
            encoding=encoding or None,
            sheet=sheet or None,
        )

    @classmethod
    def from_upload(
        cls,
        name: str,
        stream: IO[bytes],
        fmt: str | None = None,
        *,
        encoding: str | None = None,
        sheet: str | None = None,
    ) -> Source:
        return cls(
            name=name,
            content=stream.read(),
            format=fmt or guess_format(name),
            encoding=encoding or None,
            sheet=sheet or None,
        )

    @property
    def line_count(self) -> int:
        """Lines in the file (rows of a workbook's sheet): the expected number of records,
        for progress reports."""
        if self.format == "xlsx":
            return workbook_rows(self.content, self.sheet)
        return self.content.count(b"\n") + (0 if self.content.endswith(b"\n") else 1)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


def guess_format(name: str) -> str:
    lower = name.lower()
    for ext, fmt in (
        (".jsonl", "jsonl"),
        (".ndjson", "jsonl"),
        (".csv", "csv"),
        (".tsv", "csv"),
        (".xlsx", "xlsx"),
        (".xlsm", "xlsx"),
        (".xls", "xls"),
        (".json", "json"),
        (".yaml", "yaml"),
        (".yml", "yaml"),
    ):
        if lower.endswith(ext):
            return fmt
    return "jsonl"


def _not_text(source: Source, problems: Collector) -> bool:
    """A workbook where text is expected (named .csv, or a study file): say what to do."""
    if is_workbook(source.content):
        problems.add(
            None,
            None,
            _(
                "this file is an Excel workbook (XLSX), not text: name it .xlsx (or use "
                "--format xlsx) to load a pool or responses from it, or save it as “CSV UTF-8”"
            ),
        )
        return True
    if is_old_workbook(source.content):
        problems.add(None, None, OLD_EXCEL)
        return True
    return False


OLD_EXCEL = _(
    "this is an Excel 97–2003 workbook (.xls), which is not read: open it in Excel or WPS "
    "and save it as .xlsx (Excel workbook) or as “CSV UTF-8”"
)


def decode(source: Source, problems: Collector) -> str | None:
    """The file's text, in the encoding named or detected (studies.loading.encodings)."""
    if _not_text(source, problems):
        return None
    decoded = decode_text(source.content, source.encoding)
    if decoded.text is None:
        problems.add(decoded.line, None, decoded.problem)
    return decoded.text


def _jsonl_bytes(source: Source, problems: Collector) -> bytes | None:
    """A JSONL file's bytes as UTF-8: as they are when they are (or are meant to be)
    UTF-8, so a broken byte is reported on its line; otherwise decoded and re-encoded."""
    if _not_text(source, problems):
        return None
    named = (source.encoding or "").lower().replace("_", "-")
    if named in ("utf-8", "utf8"):
        return source.content
    if not named and (plain_utf8(source.content) or mostly_utf8(source.content)):
        return source.content
    text = decode(source, problems)
    return None if text is None else text.encode("utf-8")


def read_records(source: Source, problems: Collector) -> Iterator[Record]:
    """Yield one record per JSONL line, CSV row or XLSX row; problems go to ``problems``.

    JSONL is read a line at a time from the bytes, so memory does not grow with the file
    beyond the bytes themselves (a 150,000-line pool is read as it is validated)."""
    if source.format == "jsonl":
        content = _jsonl_bytes(source, problems)
        if content is not None:
            yield from _read_jsonl(content, problems)
        return
    if source.format == "xlsx":
        for line, data in read_workbook(source.content, source.sheet, problems):
            yield Record(line, data)
        return
    if source.format == "xls":
        problems.add(None, None, OLD_EXCEL)
        return
    if source.format != "csv":
        problems.add(
            None,
            None,
            with_params(_("unsupported format %(format)r: use JSONL or CSV"), format=source.format),
        )
        return
    text = decode(source, problems)
    if text is not None:
        yield from _read_csv(text, problems)


def _jsonl_lines(content: bytes, problems: Collector) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line; lines end at \n only (U+2028 and friends may
    appear raw inside JSON strings). A line that is not UTF-8 is reported, not yielded."""
    pos = 3 if content.startswith(codecs.BOM_UTF8) else 0
    size, number = len(content), 1
    while pos <= size:
        end = content.find(b"\n", pos)
        if end == -1:
            end = size
        try:
            yield number, content[pos:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.add(
                number,
                None,
                with_params(
                    _("not valid UTF-8 (byte %(byte)s): save the file as UTF-8"),
                    byte=pos + exc.start,
                ),
            )
        pos, number = end + 1, number + 1


def _read_jsonl(content: bytes, problems: Collector) -> Iterator[Record]:
    for number, raw in _jsonl_lines(content, problems):
        if not raw.strip():
            continue
        try:
            data = loads(raw)
        except json.JSONDecodeError as exc:
            problems.add(number, None, json_syntax_message(_on_line(exc, number)))
            continue
        except DuplicateKey as exc:
            problems.add(number, exc.key, duplicate_key_message(exc.key))
            continue
        except NotPlainJSON as exc:
            problems.add(number, None, with_params(_("not usable: %(reason)s"), reason=exc.message))
            continue
        if not isinstance(data, dict):
            problems.add(
                number,
                None,
                with_params(_("expected a JSON object ({…}), got %(type)s"), type=_json_type(data)),
            )
            continue
        bad = list(impurities(data))
        for path, message in bad:
            problems.add(number, path or None, message)
        if not bad:
            yield Record(number, data)


LONE_CR = _(
    "holds a lone carriage return (CR, \\r) outside quotes, which a CSV reader takes as the "
    "end of a row: the text after it would be read as a row of its own. Remove the CR (or "
    "quote the cell, if it belongs in the text)"
)


def _on_line(exc: json.JSONDecodeError, number: int) -> json.JSONDecodeError:
    """A JSONL line's error, its line the file's (json counts from the line's start)."""
    moved = json.JSONDecodeError(exc.msg, exc.doc, exc.pos)
    moved.lineno = number + exc.lineno - 1
    return moved


def _json_type(data: object) -> Text:
    if isinstance(data, list):
        return _("a list")
    if isinstance(data, str):
        return _("a text")
    if data is None:
        return "null"
    if isinstance(data, bool):
        return "true" if data else "false"
    return _("a number")


def _delimiter(text: str) -> str:
    """A comma, or a tab for a file whose header has tabs and no comma (Excel's "Unicode
    text" and .tsv files)."""
    header = text.split("\n", 1)[0]
    return "\t" if "\t" in header and "," not in header else ","


def lone_carriage_returns(text: str, delimiter: str = ",") -> list[tuple[int, int]]:
    """(line, cell index), counted as a person does (line 1, cell 0), of every carriage
    return outside a quoted cell that is not the CR of a CRLF line end.

    Python's csv (like Excel) ends a row at such a CR, so the text after it would be read
    as a row of its own: a stray CR could add a response nobody gave. Lines are counted
    at line feeds. A file with no line feed at all (old Mac line ends, CR only) has none;
    a CR inside a quoted cell is text, as CSV allows."""
    if "\r" not in text or "\n" not in text or text.count("\r") == text.count("\r\n"):
        return []
    found: list[tuple[int, int]] = []
    line, cell, quoted, cell_start, skip = 1, 0, False, 0, -1
    for match in re.finditer('["\r\n' + re.escape(delimiter) + "]", text):
        char, index = match.group(), match.start()
        if index == skip:  # the second quote of a doubled one ("")
            continue
        if quoted:
            if char == "\n":
                line += 1
            elif char == '"':
                if text.startswith('"', index + 1):
                    skip = index + 1
                else:
                    quoted = False
            continue
        if char == '"':
            quoted = index == cell_start  # a quote opens a cell only as its first character
            continue
        if char == delimiter:
            cell += 1
        elif char == "\n":
            line, cell = line + 1, 0
        elif not text.startswith("\n", index + 1):
            found.append((line, cell))  # csv would start a row here
        cell_start = index + 1
    return found


def _lines(text: str) -> io.StringIO:
    """The text as csv reads it: lines end at line feeds only, so a row's number is the
    line an editor shows even when a quoted cell above holds a CR (csv would count that
    CR as a line too), and lone CRs are found before (``lone_carriage_returns``). A file
    with CR line ends only is read with those."""
    return io.StringIO(text, newline="\n" if "\n" in text else "")


def _read_csv(text: str, problems: Collector) -> Iterator[Record]:
    delimiter = _delimiter(text)
    lone = lone_carriage_returns(text, delimiter)
    if lone:
        first = io.StringIO(text.split("\n", 1)[0], newline="")
        names = next(csv.reader(first, delimiter=delimiter), [])
        for line, cell in lone:
            column = names[cell].strip() if cell < len(names) and line > 1 else None
            problems.add(line, column or None, LONE_CR)
        return
    reader = csv.DictReader(_lines(text), delimiter=delimiter)
    if not reader.fieldnames:
        problems.add(1, None, _("the CSV file has no header row"))
        return
    header = [h.strip() for h in reader.fieldnames]
    if len(set(header)) != len(header):
        dupes = sorted({h for h in header if header.count(h) > 1})
        problems.add(
            1,
            None,
            with_params(_("duplicate column(s) in header: %(names)s"), names=", ".join(dupes)),
        )
        return
    reader.fieldnames = header
    start = reader.line_num + 1
    pending: Record | None = None  # the last row is held back: it may be an unclosed quote
    try:
        for row in reader:
            extra = row.pop(None, None)  # type: ignore[call-overload,unused-ignore]
            if extra:
                problems.add(
                    start,
                    None,
                    with_params(
                        _("row has %(count)s more cell(s) than the header"), count=len(extra)
                    ),
                )
            cleaned = {k: (v if v is not None else "") for k, v in row.items()}
            bad = [(k, m) for k, v in cleaned.items() for m in [text_problem(v)] if m]
            for column, message in bad:
                problems.add(start, column or None, message)
            if not bad and any(v.strip() for v in cleaned.values()):
                if pending is not None:
                    yield pending
                pending = Record(start, cleaned)
            start = reader.line_num + 1
    except csv.Error as exc:
        problems.add(reader.line_num, None, with_params(_("CSV syntax error: %(exc)s"), exc=exc))
        return
    if pending is None:
        return
    column = _unclosed_quote(text, pending, header)
    if column is None:
        yield pending
        return
    problems.add(
        pending.line,
        column,
        _(
            'a quoted cell opens here and is never closed (a " without its closing "), so '
            "every line after it was read into this one cell: close the quote, or double a "
            'quote meant as text ("")'
        ),
    )


def _unclosed_quote(text: str, record: Record, header: list[str]) -> str | None:
    """The column of ``record`` (a CSV file's last row) whose quoted cell runs to the end
    of the file unclosed, or None. Python's csv reads such a cell to the end of the file
    without a word; only its strict mode says so, and only the last row can be one."""
    offset = 0
    for _line in range(record.line - 1):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return None
    tail = _lines(text[offset:])
    try:
        for _row in csv.reader(tail, delimiter=_delimiter(text), strict=True):
            pass
    except csv.Error as exc:
        if "unexpected end of data" not in str(exc):
            return None
        filled = [column for column in header if record.data.get(column, "")]
        swallowed = [column for column in filled if "\n" in record.data[column]]
        if swallowed:
            return swallowed[0]
        return filled[-1] if filled else None
    return None


def read_document(source: Source, problems: Collector) -> tuple[Any, dict[str, int]]:
    """Parse a whole JSON or YAML document; also return a map of field path -> line."""
    text = decode(source, problems)
    if text is None:
        return None, {}
    try:
        data = loads(text) if source.format == "json" else yaml.load(text, Loader=UniqueKeyLoader)
    except json.JSONDecodeError as exc:
        problems.add(exc.lineno, None, json_syntax_message(exc))
        return None, {}
    except DuplicateKey as exc:
        problems.add(_repeated_key_line(text, exc.key), exc.key, duplicate_key_message(exc.key))
        return None, {}
    except DuplicateYAMLKey as exc:
        problems.add(exc.line, exc.key, duplicate_key_message(exc.key))
        return None, {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problems.add(line, None, yaml_syntax_message(exc))
        return None, {}
    except NotPlainJSON as exc:  # NaN, Infinity, too deep
        reason = exc.message
        problems.add(None, None, with_params(_("not a usable document: %(reason)s"), reason=reason))
        return None, {}
    except (ValueError, RecursionError):  # YAML too deep, or a value YAML cannot build
        reason = NESTED_TOO_DEEPLY
        problems.add(None, None, with_params(_("not a usable document: %(reason)s"), reason=reason))
        return None, {}
    lines = _line_map(text)
    bad = list(impurities(data))
    for path, message in bad:
        problems.add(lines.get(path), path or None, message)
    return (None if bad else data), lines


class DuplicateYAMLKey(yaml.constructor.ConstructorError):
    def __init__(self, key: str, node: yaml.Node, key_node: yaml.Node) -> None:
        self.key, self.line = key, key_node.start_mark.line + 1
        super().__init__(
            "while constructing a mapping",
            node.start_mark,
            in_english(duplicate_key_message(key)),
            key_node.start_mark,
        )


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a mapping that names a key twice (YAML 1.2 forbids
    it; PyYAML keeps the last). A merge (``<<: *base``) may still override keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    repeated = key in seen
                except TypeError:  # an unhashable key: the safe loader itself refuses it
                    continue
                if repeated:
                    raise DuplicateYAMLKey(str(key), node, key_node)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _repeated_key_line(text: str, key: str) -> int | None:
    """The line of the second ``key`` in one object of a JSON text (read as YAML, which
    JSON almost always is); None when YAML cannot read it."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            names = [k.value for k, _ in node.value]
            for index, (k, _) in enumerate(node.value):
                if k.value == key and key in names[:index]:
                    return int(k.start_mark.line) + 1
            stack.extend(v for _, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None


def _line_map(text: str) -> dict[str, int]:
    """Field paths (``tasks[2].kind``) to 1-based lines, via YAML's node marks.

    JSON is (almost always) valid YAML, so one composer serves both formats; if it
    cannot read the text, problems are reported without line numbers.
    """
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return {}
    lines: dict[str, int] = {}
    seen: set[int] = set()  # an alias can make a node its own descendant

    def walk(node: yaml.Node, path: str) -> None:
        lines.setdefault(path, node.start_mark.line + 1)
        if id(node) in seen or path.count(".") + path.count("[") > 64:
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = f"{path}.{key.value}" if path else str(key.value)
                lines[sub] = key.start_mark.line + 1
                walk(value, sub)
                lines[sub] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for index, value in enumerate(node.value):
                walk(value, f"{path}[{index}]")

    if root is not None:
        walk(root, "")
    return lines
