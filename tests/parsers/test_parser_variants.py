"""Layouts admins paste that the shared fixtures do not show (issue 11 §4-5), each on a real output: public outputs
kept verbatim with their source in tests/parsers/captures/, transformations of the shared real captures, and
outputs the real ethtool prints at test time for interfaces made in a private network namespace."""
from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from capturetools import capture_path, parsed_facts
from nicadvisor.collect.sources import read_capture

HERE = Path(__file__).resolve().parent
OWN = HERE / "captures"


def _facts(path: Path) -> dict:
    cap = read_capture(path)
    return parsed_facts(cap.command, cap.text)


def test_every_own_capture_names_its_public_source_and_command():
    files = sorted(OWN.glob("*.txt"))
    assert files
    for f in files:
        head = f.read_text(encoding="utf-8").splitlines()[:2]
        assert head[0].startswith("# source: ") and head[1].startswith("# command: "), f.name


def test_a_pasted_session_of_several_commands_is_read_command_by_command():
    """handong32/eelinux: a session with two sysctl queries, `ethtool -c` and `ethtool -k` (kernel 4.10 names); the
    header names no command. Before, only the first echoed command (ethtool -c) was read."""
    facts = _facts(OWN / "linux_pasted_session_ethtool-c-k_kernel4.10_enp6s0f1.txt")
    nic = {k[2]: v for k, v in facts.items() if k[:2] == ("pnic", "enp6s0f1")}
    assert nic["coalesce_adaptive_rx"] is True and nic["coalesce_rx_usecs"] == 100  # ethtool -c
    assert nic["receive_hashing"] is True and nic["tso"] is True and nic["lro"] is False  # ethtool -k
    # tx-udp_tnl-segmentation: on, but through GSO_PARTIAL (tx-gso-partial: on) with no rx-udp_tunnel-port-offload
    # line: read as no tunnel offload (nsx-t-performance-on-intel.txt §1.3, the rule the igb capture introduced)
    assert nic["vxlan_offload"] is False and nic["geneve_offload"] is False
    assert {k[1] for k in facts} == {"enp6s0f1"}  # nothing named after a sysctl line or a prompt


def test_older_ixgbe_pcie_lines_and_interface_names_in_the_kernel_log():
    """ixgbe 3.23.2: 'PCI Express bandwidth of 32GT/s available' + '(Speed:5.0GT/s, Width: x8, Encoding Loss:20%)';
    the interface is named by the driver's other lines for that address (eth3, eth4)."""
    facts = _facts(OWN / "linux_dmesg_ixgbe_82599_speed_width_encoding_loss.txt")
    for name, addr in (("eth3", "0000:21:00.0"), ("eth4", "0000:21:00.1")):
        assert facts[("pnic", name, "pci_address")] == addr
        assert (facts[("pnic", name, "pcie_speed_gts")], facts[("pnic", name, "pcie_width")]) == (5.0, 8)
        assert ("pnic", name, "pcie_width_capable") not in facts  # these lines say nothing of the slot's maximum


def test_e1000e_probe_line_and_the_rename_after_it():
    """e1000e I219-V: '(PCI Express:2.5GT/s:Width x1)' on eth0, then 'eno1: renamed from eth0': the pNIC is eno1."""
    facts = _facts(OWN / "linux_dmesg_e1000e_i219_renamed_eno1.txt")
    assert facts == {("pnic", "eno1", "pci_address"): "0000:00:1f.6", ("pnic", "eno1", "pcie_speed_gts"): 2.5,
                     ("pnic", "eno1", "pcie_width"): 1, ("pnic", "eno1", "driver"): "e1000e",
                     ("pnic", "eno1", "link_up"): True, ("pnic", "eno1", "link_speed_mbps"): 1000,
                     ("pnic", "eno1", "duplex"): "full"}  # issue 16 §5: the driver prefix and its link message


def _dmesg(name: str) -> tuple[dict, list[str]]:
    from nicadvisor.parsers.registry import parse_output

    cap = read_capture(OWN / name)
    results = parse_output(cap.command, cap.text, cap.notes)
    facts = {}
    for r in results:
        for key, table in r.pnics.items():
            facts.update({(key, n): f.value for n, f in table.items()})
    return facts, [n for r in results for n in r.notes]


def test_igb_gbs_wording_and_renames_in_a_whole_journal():
    """igb '(PCIe:2.5Gb/s:Width x1)' (Gb/s = GT/s per lane) under the probe name eth5, in a `journalctl -b` excerpt
    (not only -k); udev then renames eth5 to enp6s0: the pNIC is enp6s0."""
    facts, _notes = _dmesg("linux_journal_igb_pcie_gbs_renamed_systemd14879.txt")
    assert {k: v for k, v in facts.items() if k[0] == "enp6s0"} == {
        ("enp6s0", "pci_address"): "0000:06:00.0", ("enp6s0", "pcie_speed_gts"): 2.5, ("enp6s0", "pcie_width"): 1,
        ("enp6s0", "driver"): "igb"}
    # the other igb ports the journal names (enp1s0 … enp5s0) are known by their address and driver only
    assert {k[0] for k in facts} == {f"enp{n}s0" for n in range(1, 7)} and not any(eth for eth, _ in facts
                                                                                  if eth.startswith("eth"))


def test_a_temporary_or_shared_name_never_names_a_pnic():
    """rename3 is udev's temporary name (its rename to eno1 failed); a reloaded igb names four ports eth0: the facts
    stay under the PCI addresses, with a note, instead of merging devices under one name."""
    facts, notes = _dmesg("linux_dmesg_igb_pcie_gbs_rename3_systemd14886.txt")
    assert facts[("eno1", "pci_address")] == "0000:01:00.0"
    assert facts[("pci:0000:02:00.0", "pcie_speed_gts")] == 2.5 and not any(k[0] == "rename3" for k in facts)
    assert any("rename3" in n and "temporary" in n for n in notes)
    facts, notes = _dmesg("linux_dmesg_igb_pcie_gbs_and_gts_pfring283.txt")
    assert {k[0] for k in facts} == {"pci:0000:02:00.0", "pci:0000:02:00.1", "pci:0000:05:00.0", "pci:0000:06:00.0"}
    assert facts[("pci:0000:02:00.0", "pcie_speed_gts")] == 5.0 and facts[("pci:0000:02:00.0", "pcie_width")] == 4
    assert any("names eth0 for 4 devices" in n for n in notes)


def test_ixgbe_two_line_wording_in_syslog_format_names_the_port():
    facts, _notes = _dmesg("linux_kernlog_ixgbe_pcie_speed_width_fcoe_pfring293.txt")
    assert facts == {("eth4", "pci_address"): "0000:06:00.1", ("eth4", "pcie_speed_gts"): 5.0,
                     ("eth4", "pcie_width"): 8, ("eth4", "driver"): "ixgbe"}  # the FCoE option line of 08:00.0 is no
    # link fact


needs_netns = pytest.mark.skipif(shutil.which("ip") is None or shutil.which("ethtool") is None,
                                 reason="iproute2 and ethtool are installed by the setup")


@pytest.fixture
def netns():
    """A private network namespace with a veth pair (va/vb, down) and a bridge (br0, down)."""
    ns = f"nicadv-var-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", ns], check=True, timeout=20)
    try:
        for argv in (["link", "add", "va", "type", "veth", "peer", "name", "vb"], ["link", "add", "br0", "type", "bridge"],
                     ["link", "set", "va", "up"]):
            subprocess.run(["ip", "-n", ns, *argv], check=True, timeout=20)
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, timeout=20)


def _ethtool(ns: str, *args: str) -> str:
    return subprocess.run(["ip", "netns", "exec", ns, "ethtool", *args], capture_output=True, text=True,
                          timeout=20).stdout


@needs_netns
@pytest.mark.root
def test_real_ethtool_variants_of_software_and_down_interfaces(netns):
    # ethtool -l with separate RX:/TX: counts and "Combined: n/a" (veth): queues from RX/TX, n/a never a 0
    text = _ethtool(netns, "-l", "va")
    assert "Combined:\tn/a" in text  # the layout under test, printed by this machine's ethtool
    lf = parsed_facts("ethtool -l va", text)
    assert (lf[("pnic", "va", "rx_queues")], lf[("pnic", "va", "rx_queues_max")]) == (1, 2)
    assert all(v != 0 for v in lf.values())
    # "Speed: Unknown!" with the link down (a bridge without ports): link down, no speed, no duplex
    text = _ethtool(netns, "br0")
    assert "Speed: Unknown!" in text and "Link detected: no" in text
    assert parsed_facts("ethtool br0", text) == {("pnic", "br0", "link_up"): False,
                                                 ("pnic", "br0", "is_physical"): False}  # a bridge by its name
    # a veth whose peer is down: "Link detected: no" although a speed is printed: no speed is kept
    va = parsed_facts("ethtool va", _ethtool(netns, "va"))
    assert va[("pnic", "va", "link_up")] is False and ("pnic", "va", "link_speed_mbps") not in va


def test_coalesce_table_is_read_by_the_table_reader_aligned_or_flattened():
    """esxcli network nic coalesce get (blockbridge guide, ConnectX-3): the N/A rows record nothing; the same table
    whitespace-flattened by pasting (rule dropped) gives the same facts, by the shapes of its values."""
    cap = read_capture(capture_path("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt"))
    clean = parsed_facts(cap.command, cap.text)
    assert {k[1] for k in clean} == {"vmnic1000202", "vmnic2"}  # vmnic0/1: N/A everywhere, nothing recorded
    assert clean[("pnic", "vmnic2", "coalesce_rx_usecs")] == 3 and clean[("pnic", "vmnic2", "coalesce_adaptive_rx")] is False
    flat = "\n".join(" ".join(ln.split()) for ln in cap.text.splitlines() if not ln.startswith("---"))
    assert parsed_facts(cap.command, flat) == clean


@needs_netns
@pytest.mark.root
def test_ip_link_text_forms_read_what_the_json_form_reads(netns):
    """The advice "run ip link show" can be followed: its text form (plain, -o one-line, -d details, ip addr show)
    gives the MTU, admin/link state and MAC the JSON form gives, on real output of this machine's iproute2."""
    def ip(*args: str) -> str:
        return subprocess.run(["ip", "-n", netns, *args], capture_output=True, text=True, timeout=20).stdout

    want = {k: v for k, v in parsed_facts("ip -d -j link show", ip("-d", "-j", "link", "show")).items()
            if k[2] in ("mtu", "admin_up", "link_up", "mac")}
    assert want[("pnic", "va", "mtu")] == 1500 and want[("pnic", "va", "admin_up")] is True
    for args in (("link", "show"), ("-o", "link"), ("-d", "link", "show"), ("addr", "show")):
        got = parsed_facts("ip " + " ".join(args), ip(*args))
        assert {k: v for k, v in got.items() if k[2] in ("mtu", "admin_up", "link_up", "mac")} == want, args
        assert got[("pnic", "va", "is_physical")] is False  # va@vb: a veth
        assert not any(k[1] == "lo" for k in got)
    assert parsed_facts("ip -d link show", ip("-d", "link", "show"))[("pnic", "br0", "is_physical")] is False
