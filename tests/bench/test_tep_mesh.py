"""Issue 17 §1, the TEP mesh read from recorded ESXi outputs (tests/parsers/captures, each with its source): the
sizes and the order of the pings, the cause in words, the round trips, and the findings scoped to the two TEP
vmknics of a failing pair (their switch and its uplinks), never every pNIC of the host.

A ping whose output no public recording holds is answered "did not run" here (the runner knows no output for it):
nothing is invented, and the mesh says so."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from capturetools import TEST_CAPTURES  # noqa: E402
from nicadvisor.bench.mtu_path import (  # noqa: E402
    Endpoint, esxi_argv, linux_argv, payload_sizes, probe_pair, read_ping, tep_endpoints,
)
from nicadvisor.collect.sources import read_capture  # noqa: E402
from nicadvisor.collect.ssh_commands import CommandRefused, check_path_ping  # noqa: E402
from nicadvisor.model import Host, PhysicalNic, Switch, VmkernelNic  # noqa: E402
from nicadvisor.model.capabilities import FAIL, capability_matrix  # noqa: E402
from nicadvisor.model.entities import (  # noqa: E402
    PATH_LOCAL_MTU, PATH_NO_REPLY, PATH_NOT_RUN, PATH_PASS, PathTest,
)
from nicadvisor.model.path_tests import MTU_FAILED, mesh_table, path_test_findings  # noqa: E402


def _text(name: str) -> str:
    return read_capture(TEST_CAPTURES / name).text


def runner(answers: dict[tuple[str, int], str]):
    """Answer each ping by (destination, payload) with a recorded output; any other: not run (no output known)."""
    asked: list[tuple[str, ...]] = []

    def run(argv: tuple[str, ...]) -> tuple[int | None, str]:
        asked.append(argv)
        key = (argv[-1], int(argv[argv.index("-s") + 1]))
        if key in answers:
            return 0, _text(answers[key])
        return 1, f"no recorded output for '{' '.join(argv)}'"
    run.asked = asked  # type: ignore[attr-defined]
    return run


def test_sizes_are_the_sender_mtu_and_the_1600_minimum_largest_first():
    assert payload_sizes(1700, "192.168.11.1") == (1672, 1572)
    assert payload_sizes(9000, "10.0.0.1") == (8972, 1572)
    assert payload_sizes(1600, "10.0.0.1") == payload_sizes(1500, "10.0.0.1") == payload_sizes(None, "10.0.0.1") \
        == (1572,)
    assert payload_sizes(9000, "fd00::1") == (8952, 1552)  # IPv6: 40-byte header


def test_the_pings_are_the_catalogue_commands_and_nothing_else_passes():
    assert esxi_argv("vmk10", "vxlan", "192.168.11.1", 1672) == (
        "vmkping", "++netstack=vxlan", "-I", "vmk10", "-d", "-s", "1672", "-c", "3", "192.168.11.1")
    assert esxi_argv("vmk10", "vxlan", "fd00::1", 1552)[-2:] == ("-6", "fd00::1")
    assert linux_argv("10.0.0.1", "10.0.0.2", 56)[:4] == ("ping", "-M", "do", "-c")
    for bad in (("vmk10", "vxlan", "192.168.11.1;reboot", 1672), ("eth0", "vxlan", "10.0.0.1", 1672),
                ("vmk10", "vx lan", "10.0.0.1", 1672), ("vmk10", "vxlan", "10.0.0.1", 70000)):
        with pytest.raises(ValueError):
            esxi_argv(*bad)
    with pytest.raises(CommandRefused):
        check_path_ping(("vmkping", "++netstack=vxlan", "-I", "vmk10", "-d", "-s", "1572", "-c", "3", "-6",
                         "192.168.11.1"))  # -6 with an IPv4 address


def test_the_teps_come_from_esxcfg_vmknic_l():
    ends = tep_endpoints("esxi-site-a-1", _text("esxi_esxcfg-vmknic-l_vxlan_vmk10_vmk11_mtu1700_chall32.txt"))
    assert [(e.interface, e.address, e.mtu, e.netstack) for e in ends] == [
        ("vmk10", "192.168.11.2", 1700, "vxlan"), ("vmk11", "192.168.11.3", 1700, "vxlan")]  # vmk0, vmk50 are no TEP


def test_a_pass_at_the_tep_mtu_carries_the_1600_minimum_and_its_round_trips():
    a = Endpoint("esxi-site-a-1", "esxi", "vmk10", "192.168.11.2", 1700, "vxlan")
    b = Endpoint("gw", "linux", "d0", "192.168.11.1", 1700)
    run = runner({("192.168.11.1", 1672): "esxi_vmkping_vxlan_1672_pass_to_gateway_chall32.txt"})
    big, small = probe_pair(a, b, run)
    assert run.asked == [esxi_argv("vmk10", "vxlan", "192.168.11.1", 1672)]  # 1600 not sent, no 56-byte ping
    assert (big.frame_bytes, big.ok, big.cause, big.sent, big.received) == (1700, True, PATH_PASS, 5, 5)
    assert (big.rtt_min_us, big.rtt_avg_us, big.rtt_max_us) == (417.0, 603.0, 685.0)
    assert big.rtt_text() == "0.417/0.603/0.685 ms" and big.detail == "passes (5 of 5 replies)"
    assert (small.frame_bytes, small.ok, small.command) == (1600, True, "")
    assert "1700-byte frames crossed this path" in small.detail and "(not sent)" in small.detail


def test_message_too_long_names_the_local_vmknic_and_a_silent_size_says_what_is_not_known():
    """ESXI-HW-G3's vmk10 (its MTU is a model fact here: 1628, so that the recorded 1600-byte ping is the one the
    mesh sends): "Message too long" is the sender's own vmknic/switch; no reply at 1572 while no 56-byte output is
    recorded leaves unreachable and dropped apart, and says so."""
    a = Endpoint("esxi-hw-g3", "esxi", "vmk10", "10.44.44.66", 1628, "vxlan")
    b = Endpoint("esxi-g5", "esxi", "vmk10", "10.44.44.59", 1600, "vxlan")
    run = runner({("10.44.44.59", 1600): "esxi_ping_vxlan_1600_message_too_long_vmk10_nsxt_lab.txt",
                  ("10.44.44.59", 1572): "esxi_ping_vxlan_1572_no_reply_vmk10_nsxt_lab.txt"})
    local, silent, reach = probe_pair(a, b, run)
    assert (local.frame_bytes, local.ok, local.cause) == (1628, False, PATH_LOCAL_MTU)
    assert "1628-byte frames cannot leave vmk10 (MTU 1628) on esxi-hw-g3: its vmknic or the switch it is on has a " \
           "smaller MTU (\"Message too long\")" in local.detail
    assert (silent.frame_bytes, silent.ok, silent.cause, silent.sent, silent.received) == (
        1600, False, PATH_NO_REPLY, 3, 0)
    assert "whether 10.44.44.59 answers at all is not known" in silent.detail
    assert (reach.payload_bytes, reach.ok, reach.cause) == (56, None, PATH_NOT_RUN)
    assert [argv[argv.index("-s") + 1] for argv in run.asked] == ["1600", "1572", "56"]


def test_round_trips_come_from_the_replies_when_the_summary_has_none():
    got = read_ping(0, _text("esxi_ping_vxlan_1572_pass_vmk10_nsxt_lab.txt"))
    assert (got.sent, got.received, got.rtt) == (1, 1, (480.0, 480.0, 480.0))
    cut = read_ping(0, _text("esxi_ping_vxlan_1500_replies_vmk10_nsxt_lab.txt"))  # no statistics line at all
    assert (cut.received, cut.rtt) == (2, (590.0, 593.0, 596.0))


def _mesh_host() -> Host:
    """Model facts only: esxi-a's two TEPs on the VDS of vmnic2/vmnic3; vmnic0/vmnic1 carry management (vSwitch0)."""
    return Host(name="esxi-a", kind="esxi",
                pnics=[PhysicalNic(name=n, mtu=m) for n, m in (("vmnic0", 1500), ("vmnic1", 1500), ("vmnic2", 9000),
                                                               ("vmnic3", 9000), ("vmnic4", 9000), ("vmnic5", 9000))],
                switches=[Switch(name="vSwitch0", mtu=1500, uplinks=["vmnic0", "vmnic1"]),
                          Switch(name="vds-overlay", mtu=9000, uplinks=["vmnic2", "vmnic3"]),
                          Switch(name="vds-storage", mtu=9000, uplinks=["vmnic4", "vmnic5"])],
                vmknics=[VmkernelNic(name="vmk0", mtu=1500, netstack="defaultTcpipStack", switch="vSwitch0"),
                         VmkernelNic(name="vmk10", mtu=9000, netstack="vxlan", switch="vds-overlay", is_tep=True,
                                     addresses=["192.168.11.2"])])


def test_a_failing_pair_marks_the_two_teps_and_the_uplinks_of_their_switch_only():
    """Issue 17 §1: one failed path marked six pNICs "✖ fail", four of them at MTU 9000. Now the finding is on vmk10
    at each end, and the MTU column fails for vmnic2/vmnic3 (the uplinks of vmk10's switch) and nothing else."""
    a, b = _mesh_host(), _mesh_host()
    b.name = "esxi-b"
    row = PathTest(client="esxi-a", server="esxi-b", client_if="vmk10", server_if="vmk10", source="192.168.11.2",
                   destination="192.168.11.3", payload_bytes=8972, frame_bytes=9000, ok=False, cause="path-drops",
                   detail="no reply to 3 pings of 9000-byte frames while 84-byte pings are answered: the path to "
                          "192.168.11.3 drops large frames; it carries 1600-byte frames (the largest that crossed) "
                          "but not 9000", netstack="vxlan", sent=3, received=0,
                   command="vmkping ++netstack=vxlan -I vmk10 -d -s 8972 -c 3 192.168.11.3   # on esxi-a")
    a.path_tests = [row]
    findings = path_test_findings([a, b])
    assert {(f.rule_id, f.host, f.obj, f.severity.value) for f in findings} == {
        (MTU_FAILED, "esxi-a", "vmk10", "error"), (MTU_FAILED, "esxi-b", "vmk10", "error")}
    f = findings[0]
    assert "esxi-a vmk10 (192.168.11.2) → esxi-b vmk10 (192.168.11.3): 9000-byte frame" in f.message
    assert "it carries 1600-byte frames" in f.message and "vmkping ++netstack=vxlan -I vmk10 -d -s 8972" in \
        f.recommendation
    for host in (a, b):
        statuses = {r.pnic: r.cells["mtu"].status for r in capability_matrix(host, findings)}
        assert [p for p, s in statuses.items() if s == FAIL] == ["vmnic2", "vmnic3"], statuses
    table = mesh_table([row])
    assert table[0]["Result"] == "FAIL" and table[0]["Frame"] == "9000 B" and table[0]["To"] == \
        "esxi-b vmk10 (192.168.11.3)"
