"""Parsers never raise on malformed text: every real capture, mutated by hypothesis (truncated, lines
dropped or duplicated, bytes flipped, whitespace flattened), goes through the registry without a parser
failure, and so does random text under every registered command."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES

from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.registry import _ENTRIES, _load, parse_output

CAPS = sorted(CAPTURES.glob("*.txt"))


def _no_parser_failure(results):
    for r in results:
        for note in r.notes:
            assert "failed on" not in note, note


@st.composite
def mutated(draw, text: str):
    lines = text.splitlines(keepends=True)
    op = draw(st.sampled_from(["truncate", "drop", "dup", "flip", "flatten", "shuffle"]))
    if op == "truncate" and text:
        return text[: draw(st.integers(0, len(text)))]
    if op == "drop" and lines:
        i = draw(st.integers(0, len(lines) - 1))
        return "".join(lines[:i] + lines[i + 1:])
    if op == "dup" and lines:
        i = draw(st.integers(0, len(lines) - 1))
        return "".join(lines[:i] + [lines[i]] * 3 + lines[i:])
    if op == "flip" and text:
        i = draw(st.integers(0, len(text) - 1))
        return text[:i] + draw(st.characters()) + text[i + 1:]
    if op == "flatten":
        return " ".join(text.split())
    if op == "shuffle" and lines:
        return "".join(draw(st.permutations(lines)))
    return text


@pytest.mark.parametrize("path", CAPS, ids=lambda p: p.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_captures_never_break_a_parser(path, data):
    cap = read_capture(path)
    text = data.draw(mutated(cap.text))
    _no_parser_failure(parse_output(cap.command, text))


def _commands():
    _load()
    examples = []
    for e in _ENTRIES:
        examples.append(e.pattern.pattern.lstrip("^").replace("\\b", "").replace("\\s+", " ").split("(")[0].strip())
    return examples


@settings(max_examples=200, deadline=None)
@given(cmd=st.sampled_from(_commands() or ["esxcli network nic list"]),
       text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_random_text_under_every_command(cmd, text):
    _no_parser_failure(parse_output(cmd, text))
