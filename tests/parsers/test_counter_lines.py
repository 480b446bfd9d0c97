"""Issue 20 §3: three line readers (``esxcli networkinternal nic privstats get``, ``vsish … /properties``,
``nsxdp-cli ens fpo stats get``) used regexes whose name part and the spaces after it could be split in every way:
a pNIC name followed by 1 MB of spaces ran past 150 s. They now split lines at their colons. These properties check
that they read exactly what the regexes read, on every short line of the characters that matter (the regexes are
kept here as the specification; on short lines they are fast)."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from nicadvisor.parsers.esxi.privstats import _counter_line
from nicadvisor.parsers.esxi.nsx_datapath import parse_ens_fpo_stats
from nicadvisor.parsers.base import CommandLine
from nicadvisor.parsers.esxi.vsish import _scalar_line

PRIVSTATS = re.compile(r"^\s*(?:[\w ]+:\s*)?([A-Za-z][\w ]*?)\s*:\s*(-?\d+)\s*$")
VSISH = re.compile(r"^(\s*)([A-Za-z][\w /.-]*?)\s*:+\s*(.*)$")
FPO = re.compile(r"^\s*([A-Za-z][\w .-]*?)\s*:\s+(-?\d+)\s*$")

LINES = st.text(alphabet="aZx_9-1  \t::/.é", max_size=16)


@settings(max_examples=3000, deadline=None)
@given(LINES)
def test_privstats_counter_lines_read_as_the_regex_did(line):
    m = PRIVSTATS.match(line)
    assert _counter_line(line) == ((m.group(1).strip(), int(m.group(2))) if m else None)


@settings(max_examples=3000, deadline=None)
@given(LINES)
def test_vsish_scalar_lines_read_as_the_regex_did(line):
    m = VSISH.match(line)
    assert _scalar_line(line) == ((bool(m.group(1)), m.group(2).strip(), m.group(3).strip()) if m else None)


@settings(max_examples=3000, deadline=None)
@given(LINES)
def test_fpo_counter_lines_read_as_the_regex_did(line):
    m = FPO.match(line)
    result = parse_ens_fpo_stats(line + "\n", CommandLine.parse("nsxdp-cli ens fpo stats get --uplink vmnic0"))
    counters = result.records[0]["counters"] if result.records else {}
    assert counters == ({m.group(1): int(m.group(2))} if m else {})
