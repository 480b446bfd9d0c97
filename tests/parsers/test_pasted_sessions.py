"""Pasted sessions (issue 11 §3, the framing pre-pass): a shell prompt with the echoed command line before the
output, a bare prompt after it, an author's ``...`` elision between lines, the nicinfo.sh banner — together with
the indenting, quoting and CRLF line ends of pasting — yield exactly the facts of the clean capture, for every real
capture in ../shared/fixtures."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES, FIXTURES, parsed_facts
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.framing import is_command_echo, unframe

CAPTURE_PATHS = sorted([*CAPTURES.glob("*.txt"), *(FIXTURES / "vm-support").glob("*.txt")], key=lambda p: p.name)
#: Prompt shapes seen in the real captures: ESXi 5.x+ (``[root@h0062:~]``), ESXi 4.x busybox (``~ #``), the
#: Pensando guide (``[root]``), RHEL-style (``[root@host ~]#``), Linux user shells.
PROMPTS = ("[root@esx01:~] ", "~ # ", "[root] ", "[root@esx01 ~]# ", "admin@host:~$ ", "$ ", "# ")
BARE = ("[root@esx01:~]", "~ # ", "$", "admin@host:~$ ")


_facts = parsed_facts


def _first_command(header: str) -> str:
    return header.split(" ; ")[0].split("   (")[0].strip()


@pytest.mark.parametrize("path", CAPTURE_PATHS, ids=lambda p: p.name)
@settings(max_examples=6, deadline=None, derandomize=True)
@given(prompt=st.sampled_from(PROMPTS), bare=st.sampled_from((None, *BARE)), elide_at=st.none() | st.integers(0, 500),
       indent=st.sampled_from(["", "    ", "\t"]), quote=st.booleans(), crlf=st.booleans())
def test_a_pasted_session_yields_the_facts_of_the_clean_capture(path, prompt, bare, elide_at, indent, quote, crlf):
    capture = read_capture(path)
    clean = _facts(capture.command, capture.text)
    lines = capture.text.splitlines()
    if elide_at is not None:
        lines.insert(elide_at % (len(lines) + 1), "...")
    lines = [prompt + _first_command(capture.command), *lines] + ([bare] if bare is not None else [])
    lines = [("> " if quote else "") + indent + line for line in lines]
    text = ("\r\n" if crlf else "\n").join(lines)
    assert _facts(capture.command, text) == clean


def test_nicinfo_banner_and_session_around_it_yield_the_same_facts():
    path = FIXTURES / "vm-support" / "bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt"
    cap = read_capture(path)
    assert cap.text.lstrip().splitlines()[0].strip() == "commands$ head -11 nicinfo.sh.txt"
    assert "Network Interface Cards Information." in cap.text
    body = unframe(cap.text)
    assert "Network Interface Cards Information." not in body and len(body.splitlines()) == len(cap.text.splitlines())
    assert _facts(cap.command, cap.text) == _facts(cap.command, body)
    assert len({k[1] for k in _facts(cap.command, cap.text)}) == 6


@pytest.mark.parametrize("line, command", [
    ("[root@h0062:~] esxcli network nic list", "esxcli network nic list"),  # unattributed_esxi703_nic_list_…
    ("\t~ # esxcfg-nics -l | grep vmnic7", "esxcfg-nics -l | grep vmnic7"),  # …_esxi41_elatov.txt
    ("[root] esxcfg-nics -l", "esxcfg-nics -l"),                              # …_pensando-guide.txt
    ("\tcommands$ head -11 nicinfo.sh.txt", "head -11 nicinfo.sh.txt"),       # nicinfo.sh bundle excerpt
    ("[root@ESXi-04:~] ", ""),                                                # …_esxi60_sio4.txt, bare prompt
    ("    ~ # ", ""),                                                         # code-index file 48915758579
])
def test_prompt_lines_of_real_captures_are_recognised(line, command):
    assert is_command_echo(line) == command


@pytest.mark.parametrize("path", CAPTURE_PATHS, ids=lambda p: p.name)
def test_no_output_line_of_a_real_capture_is_taken_for_a_bare_prompt(path):
    """Bare prompts are blanked by the pre-pass: no line that is output (not a prompt of the capture's session)
    may look like one. Every line a real capture holds that reads as a bare prompt starts like a prompt."""
    for line in read_capture(path).text.splitlines():
        if is_command_echo(line) == "":
            assert line.strip().startswith(("[root@", "[dpasek@", "~ #")), line


@pytest.mark.parametrize("line", ["# queues supported:8", "# Manifest name: <foo>", "Name    PCI Device",
                                  "vmnic0  0000:18:00.0  ixgben  Up", "   Driver Info:", "[]", "nsx-edge-1>"])
def test_output_lines_of_real_captures_are_not_prompts(line):
    """vsish ``# queues supported:8`` (esxi_vsish_rxqueues_info_*), the vm-support manifest README's
    ``# Manifest name:``, table headers and rows, nic get keys, JSON."""
    assert is_command_echo(line) is None


def test_unframe_removes_elisions_and_blanks_bare_prompts_only():
    assert unframe("a\n...\nb\n") == "a\nb\n"
    assert unframe("    a\n...\n    b\n") == "a\nb\n"  # an unindented elision in an indented block
    assert unframe("> a\n...\n> b\n") == "a\nb\n"
    assert unframe("~ # esxcfg-nics -l\nx\n~ # \n") == "~ # esxcfg-nics -l\nx\n\n"
    assert unframe("[]\n{}\n") == "[]\n{}\n"  # JSON is not a prompt
    assert unframe(unframe("  ~ # a\n  ...\n  b  \r\n")) == unframe("  ~ # a\n  ...\n  b  \r\n")
