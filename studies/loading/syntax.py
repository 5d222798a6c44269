"""A JSON or YAML syntax error said in the reader's language.

Python's ``json`` and PyYAML explain a syntax error in English (``Invalid control character
at``, ``mapping values are not allowed here``). A file's problem is shown in the reader's
language on the upload page, so the parser's text is never pasted: its kind is read from
it and said by a translatable message, with the line, the column and, for a control
character, which one it is.
"""

from __future__ import annotations

import json

import yaml
from django.utils.translation import gettext_lazy as _

from studies.values import Text, with_params

_CONTROL_NAMES = {
    "\r": _("carriage return, CR"),
    "\n": _("line feed, LF"),
    "\t": _("tab"),
}


def character_name(char: str) -> Text:
    """A control character named for people: 回车 for ``\\r``, else its code point."""
    return _CONTROL_NAMES.get(char) or f"U+{ord(char):04X}"


#: Python's JSON error kinds (the start of ``JSONDecodeError.msg``) and their reasons; a
#: control character is named apart (``_json_reason``).
_JSON_KINDS: tuple[tuple[str, Text], ...] = (
    ("Unterminated string", _('a string opens here and is never closed: add its closing "')),
    ("Invalid \\uXXXX", _("a \\u escape needs four hexadecimal digits (\\u4e00)")),
    (
        "Invalid \\escape",
        _(
            'a backslash starts an escape JSON does not know: write \\\\ for a backslash, or \\" '
            "for a quote"
        ),
    ),
    (
        "Expecting property name",
        _(
            "expected a key in double quotes here (a comma too many before }, or a key in "
            "single quotes?)"
        ),
    ),
    ("Expecting ':'", _("expected a colon (:) between a key and its value")),
    ("Expecting ','", _("expected a comma (,) between two values, or a closing } or ]")),
    (
        "Expecting value",
        _(
            "expected a value here (text in double quotes, a number, true, false, null, "
            "an object or a list)"
        ),
    ),
    ("Extra data", _("more text after the end of the value: one JSON object per line")),
    ("Illegal trailing comma", _("a comma before a closing } or ]: remove it")),
)


def _json_reason(exc: json.JSONDecodeError) -> Text:
    msg = exc.msg
    if msg.startswith("Invalid control character"):
        char = exc.doc[exc.pos] if 0 <= exc.pos < len(exc.doc) else ""
        return with_params(
            _(
                "a string holds a control character (%(name)s): remove it, or write it as an "
                "escape such as \\r, \\n or \\t"
            ),
            name=character_name(char) if char else "?",
        )
    for start, kind in _JSON_KINDS:
        if msg.startswith(start):
            return kind
    return _("the text is not valid JSON here")


def json_syntax_message(exc: json.JSONDecodeError) -> Text:
    """``exc`` in the active language when shown, with its line and column."""
    return with_params(
        _("not valid JSON at line %(line)s, column %(column)s: %(reason)s"),
        line=exc.lineno,
        column=exc.colno,
        reason=_json_reason(exc),
    )


_YAML_KINDS: tuple[tuple[str, Text], ...] = (
    ("mapping values are not allowed", _("a colon (:) where none may be: quote the text")),
    ("could not find expected ':'", _("a key without its colon (:)")),
    ("found character '\\t'", _("a tab, which YAML does not allow for indenting: use spaces")),
    ("found unexpected end of stream", _("the file ends inside a quoted text or a list")),
    ("found undefined alias", _("an alias (*name) with no anchor (&name) before it")),
    ("found duplicate anchor", _("an anchor (&name) used twice")),
    ("found unknown escape character", _("a backslash escape YAML does not know")),
    ("special characters are not allowed", _("a control character, which YAML does not allow")),
    ("expected <block end>", _("the indentation does not match the lines above")),
    ("did not find expected key", _("the indentation does not match the lines above")),
    ("did not find expected '-' indicator", _("a list item not in line with the ones above")),
    ("did not find expected node content", _("a value is missing here")),
)


def yaml_syntax_message(exc: yaml.YAMLError) -> Text:
    """A PyYAML error in the active language when shown, with its line and column."""
    problem = str(getattr(exc, "problem", "") or "")
    reason: Text = _("the text is not valid YAML here")
    for start, kind in _YAML_KINDS:
        if start in problem:
            reason = kind
            break
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return with_params(_("not valid YAML: %(reason)s"), reason=reason)
    return with_params(
        _("not valid YAML at line %(line)s, column %(column)s: %(reason)s"),
        line=mark.line + 1,
        column=mark.column + 1,
        reason=reason,
    )
