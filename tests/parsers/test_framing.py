"""Pasted framing (issue "Read outputs the way admins actually paste them" §3, the pre-pass): indenting a real
capture as a block (spaces or a tab, as Markdown, mail and wikis do), quoting it with "> ", giving it CRLF line
ends or trailing spaces yields exactly the facts of the clean capture, for every real capture."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES, parsed_facts
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.framing import unframe

CAPTURE_FILES = sorted(p.name for p in CAPTURES.glob("*.txt"))


_facts = parsed_facts


def _frame(text: str, indent: str, quote: bool, crlf: bool, trailing: str) -> str:
    lines = [indent + line + trailing for line in text.splitlines()]
    if quote:
        lines = ["> " + line for line in lines]
    return ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")


@pytest.mark.parametrize("name", CAPTURE_FILES)
@settings(max_examples=6, deadline=None, derandomize=True)
@given(indent=st.sampled_from(["", "    ", "\t", "  ", "        "]), quote=st.booleans(), crlf=st.booleans(),
       trailing=st.sampled_from(["", " ", "  \t"]))
def test_pasted_framing_yields_the_same_facts(name, indent, quote, crlf, trailing):
    capture = read_capture(CAPTURES / name)
    clean = _facts(capture.command, capture.text)
    assert _facts(capture.command, _frame(capture.text, indent, quote, crlf, trailing)) == clean


def test_unframe_keeps_relative_indentation_and_is_idempotent():
    text = "    Parameters:\n     DRSS: array of int\n      Number of queues\n"
    assert unframe(text) == "Parameters:\n DRSS: array of int\n  Number of queues\n"
    assert unframe(unframe(text)) == unframe(text)
    assert unframe("> a\r\n>  b\r\n") == "a\n b\n"
    assert unframe("a > b\n> c\n") == "a > b\n> c\n"  # not every line quoted: not a quote block
