"""vmkernel.log and vobd.log: per-vmnic link up/down events in the vmklinux-era and native-driver forms; the last
event wins.

Real public outputs of ``tests/parsers/captures/`` (:func:`capturetools.read_local_capture`).
"""
from __future__ import annotations

from capturetools import merged, parse_capture, read_local_capture as read

VOBD_MARKDOWN = "esxi_vobd_log_vmnic6_linkstate_down_up_markdown_escaped_blockquote_blog.txt"

# --- vmkernel.log (and vobd.log): per-vmnic link up/down events, the last one wins -----------------------------
# No public vmkernel.log line of the vmklinux era with a bus address without domain ('<6>ixgbe 04:00.0: vmnic2: NIC
# Link is Up …') was found (research-gaps README, gap 3); the reader takes that form, untested here.


VMKLINUX_E1000E = "esxi65_vmkernel_log_vmklinux_e1000e_vmnic0_nic_link_is_up_tab_indented_elatov.txt"
NATIVE_NE1000 = "esxi65u1_dmesg_tail_native_ne1000_vmnic0_link_is_up_tab_indented_elatov.txt"
VOBD_JOINED = "esxi_vobd_log_linkstate_down_vmnic0-7_all_lines_joined_no_newline_partial_kb431016.txt"
VOBD_FLAPPING = "esxi_vobd_hostd_linkstate_flapping_taking_down_vmnic5_timestamps_stripped_kb324499.txt"
VMKERNEL = "cat /var/run/log/vmkernel.log"
VOBD = "cat /var/run/log/vobd.log"


def test_vmklinux_era_link_messages_name_the_vmnic():
    """ESXi 6.5 GA, vmklinux e1000e: '<6>vmnic0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx'."""
    pnics, *_ = read(VMKLINUX_E1000E, VMKERNEL)
    assert pnics["vmnic0"] == {"link_up": True, "link_speed_mbps": 1000, "duplex": "full"}


def test_native_driver_link_messages_by_vmnic_or_by_pci_address():
    pnics, *_ = read(NATIVE_NE1000, VMKERNEL)  # 'INFO (ne1000): vmnic0: Link is Up' (twice, no speed)
    assert pnics["vmnic0"] == {"link_up": True}
    # ixgben 'ixgben_CheckLink:3864: 0000:af:00.1: Link is up for device', the address then started as vmnic3
    pnics = merged(parse_capture("esxi_vmkernel_log_ixgben_queues_itr_mtu.txt"))[0]
    assert pnics["vmnic3"]["link_up"] is True and "link_up" not in pnics["vmnic2"]


def test_vobd_link_state_records_the_last_one_wins():
    pnics, *_ = read(VOBD_MARKDOWN, VOBD)  # vmnic6 linkstate down, then up (Markdown-escaped, quoted)
    assert pnics["vmnic6"]["link_up"] is True
    pnics, *_ = read(VOBD_JOINED, VOBD)  # every record joined on one line by the KB page
    assert {n: p["link_up"] for n, p in pnics.items()} == {f"vmnic{i}": False for i in range(8)}
    pnics, *_ = read(VOBD_FLAPPING, VOBD)  # ESXi took the flapping port down
    assert pnics["vmnic5"] == {"admin_up": False}
