"""Pasted framing (issue "Read outputs the way admins actually paste them" §3, the pre-pass): indenting a real
capture as a block (spaces or a tab, as Markdown, mail and wikis do), quoting it with "> ", giving it CRLF line
ends or trailing spaces yields exactly the facts of the clean capture, for every real capture."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES
from nicadvisor.collect.capture_file import read_capture
from nicadvisor.parsers.framing import unframe
from nicadvisor.parsers.registry import parse_output

CAPTURE_FILES = sorted(p.name for p in CAPTURES.glob("*.txt"))


def _facts(command: str, text: str) -> dict:
    out = {}
    for r in parse_output(command, text):
        for kind, table in (("pnic", r.pnics), ("vmknic", r.vmknics), ("switch", r.switches), ("module", r.modules)):
            for key, facts in table.items():
                for name, fact in facts.items():
                    out[(kind, key, name)] = fact.value
        for name, fact in r.host.items():
            out[("host", name)] = fact.value
    return out


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
