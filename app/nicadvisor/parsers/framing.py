"""The pre-pass every parser's input goes through: the framing that pasting adds, removed before any parser runs.

Outputs reach NIC Advisor copied from mail, tickets, wikis and Markdown: indented as a block, quoted with ``> ``,
with CRLF line ends and trailing spaces. :func:`unframe` removes exactly that framing — a CR before each line end,
trailing white space, a ``>`` quote prefix present on every non-empty line, and the indentation common to every
non-empty line — and keeps everything else (the relative indentation of nested outputs, column positions within
the block). Pure and linear in the size of the text.
"""
from __future__ import annotations

import re

_QUOTE_RE = re.compile(r"^[ \t]*>[ \t]?")


def _common_indent(lines: list[str]) -> str:
    """The longest whitespace prefix shared by every non-empty line (tabs and spaces compared as written)."""
    prefix: str | None = None
    for line in lines:
        if not line.strip():
            continue
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if prefix is None:
            prefix = indent
        else:
            i = 0
            while i < len(prefix) and i < len(indent) and prefix[i] == indent[i]:
                i += 1
            prefix = prefix[:i]
        if not prefix:
            return ""
    return prefix or ""


def unframe(text: str) -> str:
    """``text`` without the framing pasting adds (see the module docstring). Idempotent."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    filled = [line for line in lines if line.strip()]
    if filled and all(_QUOTE_RE.match(line) for line in filled):
        lines = [_QUOTE_RE.sub("", line, count=1) if line.strip() else "" for line in lines]
    indent = _common_indent(lines)
    if indent:
        lines = [line[len(indent):] if line.startswith(indent) else line.lstrip(" \t") for line in lines]
    return "\n".join(lines)
