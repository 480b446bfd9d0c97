"""Fuzzing every parser with mutations of every real capture (hypothesis): whatever admins paste or tools cut —
lines dropped, duplicated or swapped, the text cut anywhere, re-indented, CRLF line ends, stray bytes — no parser
raises (``parse_output`` would turn that into a "parser … failed" note), and no pNIC is named after a placeholder
(``<dev>``), a header word or a table heading. Deterministic (derandomize) and bounded, so CI is reproducible."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.base import is_placeholder
from nicadvisor.parsers.registry import parse_output

#: The shared real captures and the project's own (public outputs kept verbatim with their source).
CAPTURE_PATHS = {p.name: p for p in [*CAPTURES.glob("*.txt"), *(Path(__file__).parent / "captures").glob("*.txt")]}
CAPTURE_FILES = sorted(CAPTURE_PATHS)
#: Words of table headers and labels that must never become an interface name.
HEADER_WORDS = {"name", "pci", "driver", "link", "speed", "duplex", "mac", "mtu", "description", "device", "status",
                "admin", "features", "settings", "interface", "nic", "uplink", "uplinks", "port", "ports", "vmnic",
                "switch", "portgroup", "used", "num", "configured", "total", "value", "key", "true", "false", "none",
                "null", "n/a", "unknown", "address", "type", "version", "parameters"}


def _mutations():
    lines = st.lists(st.integers(min_value=0, max_value=10_000), max_size=6)
    return st.tuples(st.sampled_from(["drop", "dup", "swap", "cut", "indent", "crlf", "junk", "quote"]), lines,
                     st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12))


def _mutate(text: str, kind: str, picks: list[int], junk: str) -> str:
    lines = text.splitlines()
    if not lines:
        return junk
    idx = [p % len(lines) for p in picks] or [0]
    if kind == "drop":
        keep = set(idx)
        return "\n".join(line for i, line in enumerate(lines) if i not in keep)
    if kind == "dup":
        for i in sorted(idx, reverse=True):
            lines.insert(i, lines[i])
        return "\n".join(lines)
    if kind == "swap" and len(idx) >= 2:
        lines[idx[0]], lines[idx[1]] = lines[idx[1]], lines[idx[0]]
        return "\n".join(lines)
    if kind == "cut":
        return text[: idx[0] * len(text) // max(len(lines), 1)]
    if kind == "indent":
        return "\n".join("    " + line for line in lines)
    if kind == "crlf":
        return "\r\n".join(lines) + "\r\n"
    if kind == "quote":
        return "\n".join("> " + line for line in lines)
    for i in sorted(idx, reverse=True):  # junk
        lines.insert(i, junk)
    return "\n".join(lines)


def _check(command: str, text: str) -> None:
    for result in parse_output(command, text):
        crashed = [n for n in result.notes if re.match(r"parser .* failed on ", n)]
        assert not crashed, crashed
        for key in result.pnics:
            name = key.split(":", 1)[1] if key.startswith(("pci:", "pci-id:")) else key
            assert not is_placeholder(name), (command, key)
            assert key.lower() not in HEADER_WORDS, (command, key)


@pytest.mark.parametrize("name", CAPTURE_FILES)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutation=_mutations())
def test_no_parser_breaks_on_a_mutated_real_capture(name, mutation):
    capture = read_capture(CAPTURE_PATHS[name])
    _check(capture.command, _mutate(capture.text, *mutation))


@pytest.mark.parametrize("name", CAPTURE_FILES)
def test_every_real_capture_parses_without_a_parser_failure(name):
    capture = read_capture(CAPTURE_PATHS[name])
    _check(capture.command, capture.text)
