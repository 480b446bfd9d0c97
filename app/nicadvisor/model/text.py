"""One way to write a fact's value as text, for rule messages and audit comparisons; and device or file-system text
made safe to print or write (control characters, bytes that were not UTF-8)."""
from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Iterable


def local_time(iso: str) -> str:
    """``"2025-05-01T08:15:00+00:00"`` → ``"2025-05-01 10:15"`` in the local time zone (a stamp as people read it, not
    ISO's ``+00:00``); the text itself when it is not ISO 8601."""
    try:
        when = _dt.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return str(iso)
    if when.tzinfo is not None:
        when = when.astimezone()
    return when.strftime("%Y-%m-%d %H:%M")


def fact_text(value: Any, unknown: str = "unknown") -> str:
    """``True`` → ``"yes"``, ``False`` → ``"no"``, floats without trailing zeros (``8.0`` → ``"8"``), lists joined
    by ``", "``, None → ``unknown``; anything else as ``str()``."""
    if value is None:
        return unknown
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


#: A character Python keeps for a byte that was not UTF-8 (``os.fsdecode``'s surrogateescape: byte 0xff → U+DCFF),
#: and any other lone surrogate (a JSON ``"\ud800"``): no UTF-8 writer accepts them.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
#: Unicode's bidirectional formatting characters (UAX #9 §2: the embeddings, overrides and isolates, the implicit
#: marks and the Arabic letter mark): in a host name a right-to-left override turns "esx01" + "verdict: ✔ READY"
#: around on screen (issue 29 §9). Every view writes them as the escape ``\u202e``, never as they are.
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(rf"[\ud800-\udfff{BIDI}]")
#: Control characters other than tab and newline (an ESC sequence in device text would drive a terminal).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: What cannot stand on one printed line: every control character (newline and tab too), the Unicode line and
#: paragraph separators, and lone surrogates.
_NOT_ONE_LINE = re.compile(rf"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{BIDI}]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # the byte it stands for
        return f"\\x{code - 0xDC00:02x}"
    if code > 0xFF:
        return f"\\u{code:04x}"
    return _NAMED_ESCAPES.get(ch) or f"\\x{code:02x}"


def escape_undecoded(text: str, *, in_json: bool = False) -> str:
    """``text`` with each lone surrogate written as an escape: a byte of a file name that was not UTF-8 (kept by
    Python as U+DC80–U+DCFF) as ``\\xNN`` — the byte it was —, any other as ``\\uNNNN``. Every UTF-8 writer (JSON,
    HTML, CSV, PDF, SQLite) refuses lone surrogates; the escape keeps the bytes readable. ``in_json``: ``text`` is a
    JSON document written with ``ensure_ascii=False`` (surrogates only occur inside its strings), so the escape's
    backslash is itself escaped and the string reads back as ``\\xNN``. Bidirectional formatting characters
    (:data:`BIDI`) are escaped too, as ``\\u202e`` (in JSON: the JSON escape, so the value reads back the same).
    Linear time."""
    if text.isascii():
        return text

    def one(m: re.Match[str]) -> str:
        ch = m.group()
        if not 0xD800 <= ord(ch) <= 0xDFFF:
            return f"\\u{ord(ch):04x}"
        return ("\\" if in_json else "") + _escape(ch)

    return _UNSAFE.sub(one, text)


def without_controls(text: str, replacement: str = "\ufffd") -> str:
    """``text`` for a report: control characters other than tab and newline become ``replacement`` (an ESC or OSC
    sequence from device text must not reach a terminal that shows the file), lone surrogates are escaped
    (:func:`escape_undecoded`). Linear time."""
    return escape_undecoded(CONTROL.sub(replacement, text))


#: Every formula lead character OWASP lists (CSV injection): = + - @ tab carriage-return.
FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


def formula_escaped(value: str) -> str:
    """``value`` for a CSV cell a spreadsheet opens: a leading ``'`` when it could be run as a formula (it starts
    with ``= + - @``, a tab or a carriage return and is not a plain number: OWASP "CSV Injection"), else as it is.
    :func:`formula_unescaped` reads it back."""
    return "'" + value if value.startswith(FORMULA_LEAD) and not _PLAIN_NUMBER.match(value) else value


def formula_unescaped(value: str) -> str:
    """The value :func:`formula_escaped` wrote: its leading ``'`` dropped when a formula lead follows."""
    return value[1:] if value.startswith("'") and value[1:].startswith(FORMULA_LEAD) else value


def mixed_scripts(name: str) -> list[str]:
    """The Unicode scripts of ``name``'s letters (``["CYRILLIC", "LATIN"]``) when they are more than one, else [];
    digits, punctuation and marks (Common, Inherited) do not count. ``еsx03`` (Cyrillic е) and ``esx03`` look the
    same: a name of mixed scripts may imitate another (a homoglyph, Unicode TR #39 §5.1 "mixed-script detection").
    The scripts are Unicode's Scripts.txt as packaged by ``confusable_homoglyphs``. Linear time."""
    if name.isascii():
        return []
    from confusable_homoglyphs import categories

    scripts = set(categories.unique_aliases(name)) - {"COMMON", "INHERITED", "Unknown"}  # Unknown: a byte not UTF-8
    return sorted(scripts) if len(scripts) > 1 else []


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 host"``, ``"2 hosts"``, ``"0 hosts"``: a count with its noun in the number it needs (``many`` for an
    irregular plural: ``plural(2, "switch", "switches")``). Every user-facing count goes through it, never
    ``"host(s)"`` or ``"1 pNICs"``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def one_line(text: str) -> str:
    """``text`` as it is printed on one terminal line: newline, carriage return and tab as ``\\n``, ``\\r``,
    ``\\t``, other control characters as ``\\xNN``, line separators as ``\\u2028``/``\\u2029`` and lone surrogates
    as :func:`escape_undecoded` writes them; so a name holding a newline cannot print a line of its own (a forged
    ``Verdict: ✔ READY``). Linear time."""
    return _NOT_ONE_LINE.sub(lambda m: _escape(m.group()), text)


#: Secrets shorter than this are not scrubbed: replacing every occurrence of two or three characters would
#: destroy the text (such passwords are refused by the products audited anyway).
MIN_SECRET_CHARS = 4


class SecretScrubber:
    """Replaces the secrets sent in a session (passwords; an HTTP Basic ``user:password`` in base64) with ``***``
    in any server text, in every form a server could echo them: as sent, URL-encoded (a login form), HTML-escaped,
    JSON-escaped and Base64 (Basic auth). An NSX 403 page echoing the login form put the password on stderr and
    in every report and the history (issue 20 §4). Linear time; a scrubber without secrets returns text unchanged
    and is false."""

    def __init__(self, secrets: Iterable[str] = (), basic: Iterable[tuple[str, str]] = ()) -> None:
        import base64
        import html
        import json
        import urllib.parse

        forms: set[str] = set()
        for s in secrets:
            if s and len(s) >= MIN_SECRET_CHARS:
                forms |= {s, urllib.parse.quote(s, safe=""), urllib.parse.quote_plus(s), html.escape(s),
                          json.dumps(s)[1:-1], json.dumps(s, ensure_ascii=False)[1:-1]}
        for user, password in basic:
            if password and len(password) >= MIN_SECRET_CHARS:
                forms.add(base64.b64encode(f"{user}:{password}".encode()).decode())
        self._re = re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True)))) if forms else None

    def __bool__(self) -> bool:
        return self._re is not None

    def __call__(self, text: str) -> str:
        """``text`` with every form of every secret as ``***``."""
        return self._re.sub("***", text) if self._re is not None and text else text

    def data(self, value: Any) -> Any:
        """JSON-like ``value`` (dicts, lists, strings) with every string, keys included, scrubbed (iterative: any
        depth)."""
        if self._re is None:
            return value
        root: list[Any] = [value]
        stack: list[tuple[Any, Any]] = [(root, 0)]
        while stack:
            parent, key = stack.pop()
            v = parent[key]
            if isinstance(v, str):
                parent[key] = self(v)
            elif isinstance(v, dict):
                copy = {self(k) if isinstance(k, str) else k: item for k, item in v.items()}
                parent[key] = copy
                stack.extend((copy, k) for k in copy)
            elif isinstance(v, (list, tuple)):
                items = list(v)
                parent[key] = items
                stack.extend((items, i) for i in range(len(items)))
        return root[0]
