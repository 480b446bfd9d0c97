"""ESXi tables in other column spacings or with a column missing (``esxcfg-nics -l``, an NSX switch block of
``esxcfg-vswitch -l`` without MTU, older and indented ``esxcli network ip interface ipv4 get``): columns are found
by the header's words and the values' shapes, never by fixed offsets.

Real public outputs of ``tests/parsers/captures/`` (:func:`capturetools.read_local_capture`).
"""
from __future__ import annotations

from capturetools import read_local_capture as read

# --- ESXi tables in other column spacings or with a column missing ----------------------------------------------

NICS_KB_NO_MAC_MTU = "esx3_esxcfg-nics-l_no_mac_no_mtu_columns_pci_04_04.00_collapsed_spaces_prompt_kb1009542.txt"
NICS_BOLD_MAC = "esx_classic_esxcfg-nics-l_collapsed_header_bold_mac_elatov.txt"
NICS_41U2 = "esx41u2_esxcfg-nics-l_egrep_pci_function_two_digits_single_spaced_elatov.txt"
VSWITCH_NSX_MH = "esxi55_esxcfg-vswitch-l_nsx-mh_nsx-vswitch_block_without_mtu_column_fuel-docs.txt"
VSWITCH_NVDS = "esxi_nsxt251_esxcfg-vswitch-l_nvds_block_without_mtu_column_blog.txt"
IPV4_OLD = "esxi5_vcap5_esxcli_network_ip_interface_ipv4_get_old_layout_single_spaced_elatov.txt"
IPV4_55 = "esxi55u3_esxcli_ipv4_get_no_gateway_and_nic_list_pci_3digit_bus_jiyiyun.txt"
IPV4_INDENTED = "esxi_nsxt2_esxcli_ipv4_get_indented_vmk10_tep_vmk50_hyperbus_ip_interface_list_netstack_vxlan_navinrio.txt"
IPV4_MISALIGNED = "esxi_vsan_doc_esxcli_ipv4_get_-i_vmk1_misaligned_columns_broadcom_techdocs.txt"


def test_esxcfg_nics_in_other_spacings_and_without_columns_keeps_every_pnic():
    pnics, *_ = read(NICS_KB_NO_MAC_MTU)  # ESX 3.x: no MAC, no MTU column, single spaces, PCI 04:04.00
    assert {n: (p["driver"], p["link_speed_mbps"], p["pci_address"]) for n, p in pnics.items()} == {
        "vmnic0": ("tg3", 1000, "0000:04:04.0"), "vmnic1": ("tg3", 1000, "0000:04:04.1")}
    pnics, *_ = read(NICS_BOLD_MAC)  # a collapsed header, the MAC in Markdown bold
    assert (pnics["vmnic0"]["mac"], pnics["vmnic0"]["mtu"], pnics["vmnic0"]["description"]) == \
        ("00:0c:29:d3:3d:34", 1500, "Intel PRO/1000 MT Single Port Adapt.")
    pnics, *_ = read(NICS_41U2)  # no header at all, single spaces, a two-digit PCI function
    assert pnics["vmnic4"]["pci_address"] == "0000:0b:00.0" and pnics["vmnic4"]["mtu"] == 1500


def test_an_nsx_switch_block_without_an_mtu_column_is_read():
    _p, _v, switches, _m, _h = read(VSWITCH_NVDS)  # NSX-T 2.5.1 N-VDS after vSwitch0, no blank lines
    assert switches["NVDS-Overlay"] == {"kind": "opaque", "uplinks": ["vmnic1", "vmnic0"]}
    assert switches["vSwitch0"] == {"kind": "standard", "mtu": 1500, "uplinks": []}
    _p, _v, switches, _m, _h = read(VSWITCH_NSX_MH)  # NSX-MH's nsx-vswitch, no uplink yet, indented unevenly
    assert switches["nsx-vswitch"] == {"kind": "opaque", "uplinks": []}
    assert switches["vSwitch1"]["uplinks"] == ["vmnic2", "vmnic3"]


def test_older_and_indented_ipv4_get_layouts():
    for name, expected in ((IPV4_OLD, {"vmk0": "192.168.0.103", "vmk1": "192.168.1.106", "vmk2": "192.168.3.102"}),
                           (IPV4_55, {"vmk0": "192.168.5.116"}),
                           (IPV4_INDENTED, {"vmk0": "192.168.1.83", "vmk10": "10.20.30.30", "vmk50": "169.254.1.1"}),
                           (IPV4_MISALIGNED, {"vmk1": "172.40.0.9"})):
        _p, vmknics, *_ = read(name)
        assert {n: v["addresses"] for n, v in vmknics.items() if "addresses" in v} == \
            {n: [a] for n, a in expected.items()}, name
