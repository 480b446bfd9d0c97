"""The capture format's record of a command that failed (its notes: exit status and stderr, timed out), read back as
the host's "could not run" list, and collections (many captures in one file, as the collector script writes them to
stdout). Pure; the texts are real recorded outputs (shared/fixtures/captures) and the error words the tools print."""
from __future__ import annotations

import pytest

from capturetools import capture_path
from nicadvisor.collect.sources import gather, read_capture
from nicadvisor.model import CommandNotRun
from nicadvisor.parsers.assemble import HostInputs, assemble_host
from nicadvisor.parsers.capture_file import (
    COLLECTION_MARK, Capture, CaptureError, exit_note, is_collection, not_run_of, parse_collection_text, reason_of,
)


def _cap(command: str, text: str = "", *notes: str) -> Capture:
    return Capture(source="x", command=command, text=text, notes=notes)


@pytest.mark.parametrize("err, rc, reason", [
    ("sh: vsish: not found", 127, "absent"),
    ("grep: /var/log/vmkernel.log: No such file or directory", 2, "absent"),
    ("Error: Unknown command or namespace network nic coalesce get", 1, "absent"),
    ("netlink error: Operation not permitted", 1, "privilege"),
    ("cat: /sys/class/net/eth0/device/config: Permission denied", 1, "privilege"),
    ("Cannot get RX ring count: Operation not supported", 1, "unsupported"),
    ("cat: read error: Invalid argument", 1, "unsupported"),
    ("something else went wrong", 3, "failed"),
    ("", 127, "absent"),
])
def test_why_a_command_failed(err, rc, reason):
    assert reason_of(err, rc) == reason
    n = not_run_of(_cap("ethtool -x eth0", "", exit_note(rc, err)))
    assert n == CommandNotRun("ethtool -x eth0", reason, exit_note(rc, err), False)


def test_notes_of_commands_that_ran_are_not_failures():
    text = read_capture(capture_path("linux_ethtool-i_igb_enp2s0.txt")).text
    assert not_run_of(_cap("ethtool -i enp2s0", text)) is None
    assert not_run_of(_cap("ethtool -i enp2s0", text, "exit status 0")) is None
    assert not_run_of(_cap("ethtool -i enp2s0", text, "stderr: a warning")) is None
    assert not_run_of(_cap("ethtool -i enp2s0", text, "run in network namespace ns1")) is None


def test_a_timeout_and_a_partial_answer():
    assert not_run_of(_cap("vsish -e get /net/pNics/vmnic0/stats", "", "timed out after 30 s")) == CommandNotRun(
        "vsish -e get /net/pNics/vmnic0/stats", "timeout", "timed out after 30 s", False)
    text = read_capture(capture_path("linux_ethtool_settings_ice_e810_25g_dac_flattened.txt")).text
    n = not_run_of(_cap("ethtool em1", text, "stderr: netlink error: Operation not permitted"))
    assert (n.reason, n.partial, n.label) == ("privilege", True, "ran partly: needs more privilege (on Linux: root)")
    # a failed command's one line of output is its error message, named with the note
    n = not_run_of(_cap("esxcli network nic coalesce get", "Error: Unknown command or namespace\n", "exit status 1"))
    assert (n.reason, n.partial, n.detail) == ("absent", False, "exit status 1 / Error: Unknown command or namespace")


def test_assembling_lists_failures_and_parses_only_answers():
    listing = read_capture(capture_path("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt")).text
    host, problems, _ = assemble_host(HostInputs("esx", captures=[
        _cap("esxcli network nic list", listing),
        _cap("vsish -e get /net/pNics/vmnic0/properties", "", exit_note(127, "sh: vsish: not found")),
        _cap("ls /sys/class/net", "eth0\nlo\n"),  # a collector's discovery: no parser, and no problem
    ]))
    assert problems == [] and [p.name for p in host.pnics] == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
    assert [(n.command, n.reason) for n in host.not_run] == [("vsish -e get /net/pNics/vmnic0/properties", "absent")]
    assert host.pnic("vmnic0").geneve_offload is None


def _collection(boundary: str, *files: str) -> bytes:
    return (f"{COLLECTION_MARK} boundary={boundary}\n" + "".join(f"--{boundary}\n{f}\n" for f in files)).encode()


def test_a_collection_reads_back_each_capture_verbatim(tmp_path):
    files = [capture_path(n).read_text() for n in ("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt",
                                                   "esxi_esxcfg-module-g_icen_options.txt")]
    no_newline = "# command: cat /sys/class/net/eth0/mtu\n# host: h1\n1500"  # an output without its last line end
    data = _collection("nicadvisor-abc123456", files[0], "--nicadvisor-abc12345\n# not a boundary\n", files[1],
                       no_newline)
    assert is_collection(data)
    caps, problems = parse_collection_text("h.txt", data)
    assert problems == ["h.txt:#2: no '# command:' header line, so the command that produced it is unknown"]
    assert [c.source for c in caps] == ["h.txt:#1", "h.txt:#3", "h.txt:#4"]
    assert caps[0].text == read_capture(capture_path("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt")).text
    assert (caps[2].text, caps[2].host) == ("1500", "h1")
    # through a terminal (ssh -tt) every line end is \r\n: read the same
    crlf, _ = parse_collection_text("h.txt", data.replace(b"\n", b"\r\n"))
    assert [c.text for c in crlf] == [c.text for c in caps]
    # --capture reads it as that many captures, each host named by its # host: header, else the folder
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "h.txt").write_bytes(data)
    hosts, problems = gather([tmp_path / "lab" / "h.txt"])
    assert sorted((h.name, len(h.captures)) for h in hosts) == [("h1", 1), ("lab", 2)]
    assert [p.source for p in problems] == [f"{tmp_path}/lab/h.txt:#2"]


def test_not_a_collection():
    with pytest.raises(CaptureError, match="not a NIC Advisor collection"):
        parse_collection_text("h.txt", b"# nic-advisor collection: boundary=x\n")  # a boundary of 8 or more
    assert not is_collection(b"# command: esxcfg-nics -l\n")
    caps, problems = parse_collection_text("h.txt", f"{COLLECTION_MARK} boundary=12345678\nhello\n".encode())
    assert caps == [] and problems == ["h.txt: a collection without captures (no line '--12345678')"]
