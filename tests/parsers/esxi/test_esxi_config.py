"""ESXi switch / vmknic / module / coalescing / vmkping parsers, on the real captures in
shared/fixtures/captures (and shared/fixtures/vm-support)."""
from __future__ import annotations

import pytest

from capturetools import CAPTURES, FIXTURES, capture_path, merged, parse_capture
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.base import CommandLine
from nicadvisor.parsers.esxi.coalesce import parse_coalesce_get, parse_intnet_rss_get
from nicadvisor.parsers.esxi.module import (
    parse_esxcfg_module_get,
    parse_esxcfg_module_info,
    parse_module_parameters_list,
    parse_options,
)
from nicadvisor.parsers.esxi.ping import parse_vmkping
from nicadvisor.parsers.esxi.vmknic import is_tep_netstack, parse_esxcfg_vmknic, parse_ip_interface_list
from nicadvisor.parsers.esxi.vswitch import (
    parse_esxcfg_vswitch,
    parse_vswitch_dvs_list,
    parse_vswitch_standard_list,
)
from nicadvisor.parsers.registry import parse_output

# capture → the family its (only / relevant) command must be dispatched to
DISPATCH = {
    "esxi_esxcfg-module-g_icen_options.txt": "esxcfg-module -g",
    "esxi_esxcfg-module-i_i40en_2.6.0.30_params_itr.txt": "esxcfg-module -i",
    "esxi_esxcfg-module-i_igbn_1.10.3.0_params.txt": "esxcfg-module -i",
    "esxi_esxcfg-vmknic-l_ipv4_ipv6_tso_mss_netstack_esxi703.txt": "esxcfg-vmknic -l",
    "esxi_esxcfg-vmknic-l_mtu_9000.txt": "esxcfg-vmknic -l",
    "esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt": "esxcfg-vswitch -l",
    "esxi_esxcli_intnet_rss_get_intel.txt": "esxcli intnet rss get",
    "esxi_esxcli_ip_interface_list_esxi9_urpf.txt": "esxcli network ip interface list",
    "esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt": "esxcli network nic coalesce get",
    "esxi_esxcli_vswitch_standard_list_mtu.txt": "esxcli network vswitch standard list",
    "esxi_g_esxcfg-vmknic_-l_netstack_esxi60_sio4.txt": "esxcfg-vmknic -l",
    "esxi_g_esxcfg-vswitch_-l_vss_and_dvs_esxi60_sio4.txt": "esxcfg-vswitch -l",
    "esxi_g_esxcli_system_module_parameters_list_bnx2x_PARTIAL_flattened_pasek.txt":
        "esxcli system module parameters list",
    "esxi_g_esxcli_system_module_parameters_list_ixgbe_grep_esxi60_elatov.txt": "esxcli system module parameters list",
    "esxi_vmkping-d_message_too_long_mtu_mismatch.txt": "vmkping",
}
BNX2X_COMBINED = "esxi_g_esxcli_network_nic_get_and_module_parameters_list_bnx2x_esxi60_pasek.txt"
VMSUPPORT_DVS = FIXTURES / "vm-support" / "bundle_commands_esxcfg-vswitch_-l.txt_DVS_section_elatov.txt"


def _one(name: str):
    """The ParseResult of this module's family for capture ``name`` (dispatched by the registry)."""
    results = [r for r in parse_capture(name) if r.family == DISPATCH[name]]
    assert len(results) == 1, [r.family for r in parse_capture(name)]
    return results[0]


@pytest.mark.parametrize("name", sorted(DISPATCH))
def test_registry_dispatches_capture_to_its_parser(name):
    r = _one(name)
    assert r.understood, r.notes
    assert not [n for n in r.notes if "failed" in n]


# --- esxcfg-vmknic -l ------------------------------------------------------------------------------

def test_vmknic_ipv4_ipv6_rows_merge_esxi703():
    _, vmknics, *_ = merged(parse_capture("esxi_esxcfg-vmknic-l_ipv4_ipv6_tso_mss_netstack_esxi703.txt"))
    assert vmknics == {"vmk0": {
        "addresses": ["172.26.64.10", "fe80::8ae9:a4ff:fe6b:b854"],
        "mtu": 1500, "tso_mss": 65535, "portgroup": "Management Network", "netstack": "defaultTcpipStack",
    }}


def test_vmknic_mtu_9000_misaligned_row_and_na_address():
    r = _one("esxi_esxcfg-vmknic-l_mtu_9000.txt")
    _, vmknics, *_ = merged([r])
    assert set(vmknics) == {"vmk0", "vmk1", "vmk2"}
    # vmk1's row is two characters left of the header columns: still read
    assert vmknics["vmk1"]["portgroup"] == "ATvmnic10"
    assert vmknics["vmk1"]["addresses"] == ["1.1.1.1", "fe80::250:56ff:fe66:5642"]
    assert vmknics["vmk1"]["mtu"] == 1500
    # vmk2: IPv4 "N/A" is no address; MTU 9000
    assert vmknics["vmk2"]["addresses"] == ["fe80::250:56ff:fe63:a0ef"]
    assert vmknics["vmk2"]["mtu"] == 9000
    assert vmknics["vmk2"]["portgroup"] == "PGvmnic0"
    assert vmknics["vmk0"]["addresses"] == ["172.31.0.82", "fe80::4adf:37ff:fe07:1f14"]
    assert all(v["netstack"] == "defaultTcpipStack" and v["tso_mss"] == 65535 for v in vmknics.values())
    assert all("is_tep" not in v for v in vmknics.values())
    assert not r.notes
    # the evidence of the merged addresses holds both rows
    assert r.vmknics["vmk1"]["addresses"].line.count("\n") == 1


def test_vmknic_vxlan_netstack_is_tep_esxi60():
    r = _one("esxi_g_esxcfg-vmknic_-l_netstack_esxi60_sio4.txt")
    _, vmknics, *_ = merged([r])
    assert vmknics["vmk2"] == {"addresses": ["172.18.192.21"], "mtu": 1600, "tso_mss": 65535,
                               "netstack": "vxlan", "is_tep": True}
    assert vmknics["vmk0"]["portgroup"] == "Management Network"
    assert vmknics["vmk1"] == {"addresses": ["172.18.0.114"], "mtu": 1500, "tso_mss": 65535,
                               "portgroup": "ISCSI", "netstack": "defaultTcpipStack"}
    # vmk2's "Port Group" is DVPort 8: not a port group name
    assert {"kind": "vmknic_dvport", "vmknic": "vmk2", "dvport": "8"} in r.records
    assert "172.18.192.21" in r.vmknics["vmk2"]["mtu"].line


def test_is_tep_netstack():
    assert is_tep_netstack("vxlan") is True
    assert is_tep_netstack("nsx-overlay") is True
    assert is_tep_netstack("defaultTcpipStack") is None
    assert is_tep_netstack(None) is None


# --- esxcli network ip interface list ------------------------------------------------------------

def test_ip_interface_list_esxi9_urpf():
    r = _one("esxi_esxcli_ip_interface_list_esxi9_urpf.txt")
    _, vmknics, *_ = merged([r])
    assert vmknics == {"vmk0": {"portgroup": "Management Network", "netstack": "defaultTcpipStack",
                                "mtu": 9000, "tso_mss": 65535, "switch": "vSwitch0"}}
    assert r.vmknics["vmk0"]["mtu"].line.strip() == "MTU: 9000"


# --- esxcfg-vswitch -l ---------------------------------------------------------------------------

def test_vswitch_vss_and_dvs_mtu():
    _, vmknics, switches, _, _ = merged(parse_capture("esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt"))
    assert switches == {
        "vSwitch0": {"kind": "standard", "mtu": 1500, "uplinks": ["vmnic0"]},
        # the name overflows its column ("DSwitch_063LongName 6690")
        "DSwitch_063LongName": {"kind": "distributed", "mtu": 9000, "uplinks": ["vmnic3"]},
    }
    assert vmknics == {"vmk1": {"switch": "DSwitch_063LongName"}}


def test_vswitch_one_vss_three_dvs_esxi60():
    _, vmknics, switches, _, _ = merged(parse_capture("esxi_g_esxcfg-vswitch_-l_vss_and_dvs_esxi60_sio4.txt"))
    assert switches == {
        "vSwitch0": {"kind": "standard", "mtu": 1500, "uplinks": ["vmnic0"]},
        "vDS-C-Transport": {"kind": "distributed", "mtu": 1600, "uplinks": ["vmnic1"]},
        "dvSwitch": {"kind": "distributed", "mtu": 1500, "uplinks": ["vmnic2"]},
        "DSwitch": {"kind": "distributed", "mtu": 1500, "uplinks": ["vmnic10"]},
    }
    # DVPort 8 client vmk2 (the vxlan TEP of esxi_g_esxcfg-vmknic_-l_netstack_esxi60_sio4.txt)
    assert vmknics == {"vmk2": {"switch": "vDS-C-Transport"}}


def test_vswitch_vm_support_dvs_section_flattened():
    cap = read_capture(VMSUPPORT_DVS)
    results = parse_output("esxcfg-vswitch -l", cap.text)
    _, vmknics, switches, _, _ = merged(results)
    assert switches == {"dvSwitch": {"kind": "distributed", "mtu": 1500, "uplinks": ["vmnic3", "vmnic2"]}}
    assert vmknics == {}
    assert results[0].switches["dvSwitch"]["uplinks"].line.strip() == "dvSwitch 256 19 256 1500 vmnic3,vmnic2"


def test_vswitch_standard_list_mtu():
    r = _one("esxi_esxcli_vswitch_standard_list_mtu.txt")
    _, _, switches, _, _ = merged([r])
    assert switches == {
        "defvSwitch": {"kind": "standard", "mtu": 1500, "uplinks": ["vmnic2"]},
        "vSwitch0": {"kind": "standard", "mtu": 1500, "uplinks": ["vmnic0"]},
    }
    assert r.switches["defvSwitch"]["uplinks"].line.strip() == "Uplinks: vmnic2"


def test_vswitch_kv_parsers_ignore_other_name_blocks():
    # esxcli network nic get's "Name: vmnic4" block (no MTU/Uplinks/Class) is not a switch
    text = capture_path(BNX2X_COMBINED).read_text()
    assert not parse_vswitch_standard_list(text, CommandLine.parse("esxcli network vswitch standard list")).switches
    assert not parse_vswitch_dvs_list(text, CommandLine.parse("esxcli network vswitch dvs vmware list")).switches


# --- modules -------------------------------------------------------------------------------------

def test_module_get_icen_options():
    r = _one("esxi_esxcfg-module-g_icen_options.txt")
    _, _, _, modules, _ = merged([r])
    assert modules == {"icen": {"options": {"vmdq": "1,2,3,4", "sriov": "0,0,1,1"}}}
    assert {"kind": "module_enabled", "module": "icen", "enabled": True} in r.records


def test_parse_options_string():
    assert parse_options("RSS=4,4 DRSS=4") == ({"RSS": "4,4", "DRSS": "4"}, [])
    assert parse_options("") == ({}, [])


def test_module_info_i40en_params_itr():
    r = _one("esxi_esxcfg-module-i_i40en_2.6.0.30_params_itr.txt")
    _, _, _, modules, _ = merged([r])
    m = modules["i40en"]
    assert m["version"] == "2.6.0.30-1OEM.800.1.0.20613240"
    assert list(m["parameters"]) == ["DRSS", "EEE", "LLDP", "MaxRdmaInts", "RDMA", "RSS", "RxITR", "TxITR",
                                     "VMDQ", "max_vfs", "trust_all_vfs"]
    assert m["parameters"]["RxITR"] == "Default RX interrupt interval (0..4095), in microseconds (default = 50)"
    assert m["parameters"]["TxITR"] == "Default TX interrupt interval (0..4095)), in microseconds, (default = 100)"
    assert m["parameters"]["DRSS"].startswith("Number of queues for Default Queue Receive-Side Scaling (DRSS)")
    assert "options" not in m
    rec = next(x for x in r.records if x["name"] == "MaxRdmaInts")
    assert rec == {"kind": "module_parameter", "module": "i40en", "name": "MaxRdmaInts", "type": "int",
                   "value": None, "description": "Maximum RDMA Interrupts (default = 16)"}


def test_module_info_igbn_params():
    _, _, _, modules, _ = merged(parse_capture("esxi_esxcfg-module-i_igbn_1.10.3.0_params.txt"))
    assert modules == {"igbn": {
        "version": "1.10.3.0-1OEM.800.1.0.20143090",
        "parameters": {
            "NumRxDesc": "Maximum number of RX descriptors (128..4096)",
            "NumTxDesc": "Maximum number of TX descriptors (128..4096)",
            "RxITR": "Default RX interrupt interval (0..0xFFF)",
            "TxITR": "Default TX interrupt interval (0..0xFFF)",
        },
    }}


def test_module_info_ignores_other_version_lines():
    # the bnx2x combined capture has "Version: 2.713.10.v60.4" in a nic get block, no esxcfg-module -i block
    text = capture_path(BNX2X_COMBINED).read_text()
    r = parse_esxcfg_module_info(text, CommandLine.parse("esxcfg-module -i bnx2x"))
    assert not r.understood and r.notes


def test_module_parameters_list_ixgbe_grep():
    r = _one("esxi_g_esxcli_system_module_parameters_list_ixgbe_grep_esxi60_elatov.txt")
    _, _, _, modules, _ = merged([r])
    assert modules == {"ixgbe": {
        "parameters": {"LRO": "Large Receive Offload (0,1), default 1 = on"},
        "options": {"LRO": "0"},
    }}
    assert any("filtered" in n for n in r.notes)
    assert r.records == [{"kind": "module_parameter", "module": "ixgbe", "name": "LRO", "type": "array of int",
                          "value": "0", "description": "Large Receive Offload (0,1), default 1 = on"}]


def test_module_parameters_list_bnx2x_flattened_partial():
    r = _one("esxi_g_esxcli_system_module_parameters_list_bnx2x_PARTIAL_flattened_pasek.txt")
    _, _, _, modules, _ = merged([r])
    params = modules["bnx2x"]["parameters"]
    assert list(params) == ["RSS", "autogreeen", "bnx2x_vf_passthru_wait_event_timeout", "debug", "debug_unhide_nics"]
    assert params["RSS"] == "Controls the number of queues in an RSS pool. Supported Values 2-4."
    assert params["debug"] == "Default debug msglevel"
    # flattened: Value cannot be told from Description → options stay unknown
    assert "options" not in modules["bnx2x"]
    assert any("disable_fea" in n for n in r.notes)
    assert any("flattened" in n for n in r.notes)
    assert {x["name"]: x["type"] for x in r.records}["autogreeen"] == "uint"


def test_module_parameters_list_bnx2x_truncated_after_header():
    results = parse_capture(BNX2X_COMBINED)
    mine = [r for r in results if r.family == "esxcli system module parameters list"]
    assert len(mine) == 1
    assert not mine[0].modules and not mine[0].records
    assert any("no rows" in n for n in mine[0].notes)


# --- coalescing / RSS ----------------------------------------------------------------------------

def test_coalesce_get_connectx3_na_stays_unknown():
    r = _one("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt")
    pnics, *_ = merged([r])
    expected = {"coalesce_rx_usecs": 3, "coalesce_rx_frames": 15, "coalesce_tx_usecs": 0,
                "coalesce_tx_frames": 1, "coalesce_adaptive_rx": False,
                "coalesce_adaptive_tx": False}
    assert pnics == {"vmnic1000202": expected, "vmnic2": expected}  # vmnic0/vmnic1: all N/A
    assert {x["nic"] for x in r.records} == {"vmnic0", "vmnic1", "vmnic1000202", "vmnic2"}
    assert next(x for x in r.records if x["nic"] == "vmnic2")["adaptive_tx"] is False
    assert r.pnics["vmnic2"]["coalesce_rx_usecs"].line.startswith("vmnic2        3")


def test_intnet_rss_get_intel():
    r = _one("esxi_esxcli_intnet_rss_get_intel.txt")
    pnics, *_ = merged([r])
    assert pnics == {"vmnic1": {"rss": True}}
    assert r.records == [{
        "kind": "intnet_rss", "nic": "vmnic1", "current_support": True,
        "modes_supported": "DefQ RSS (DRSS) and NetQ RSS (RSS)", "max_rss_queues": 32, "netq_rss_engines": 7,
        "active_modes": "DefQ RSS and NetQ RSS", "defq_rss_active_queues": 1, "netq_rss_active_queues": 0,
    }]
    assert r.pnics["vmnic1"]["rss"].line == "Current support: Enabled"


# --- vmkping -------------------------------------------------------------------------------------

def test_vmkping_message_too_long():
    r = _one("esxi_vmkping-d_message_too_long_mtu_mismatch.txt")
    assert r.records == [{"kind": "vmkping", "size": 1500, "df": True, "target": "192.168.6.1", "sent": 3,
                          "received": 0, "loss_pct": 100.0, "error": "Message too long",
                          "interface": None, "netstack": None,
                          "meaning": "'sendto() failed (Message too long)' is a local MTU error of the vmknic the "
                                     "route chose: the 1528-byte frame (payload 1500) is larger than its MTU and never "
                                     "left the host; not a path failure; a test on the default netstack says nothing "
                                     "about the TEP path"}]
    assert not r.vmknics
    # a local error on the default netstack (issue 24 §3): -d -s 1500 can never pass on a 1500-byte vmknic, and it
    # tests no TEP path, so the host's TEP path stays unknown
    assert "mtu_path_ok" not in r.host


# --- robustness: never raise on cut or foreign text -----------------------------------------------

PARSERS = [
    (parse_esxcfg_vmknic, "esxcfg-vmknic -l"),
    (parse_ip_interface_list, "esxcli network ip interface list"),
    (parse_esxcfg_vswitch, "esxcfg-vswitch -l"),
    (parse_vswitch_standard_list, "esxcli network vswitch standard list"),
    (parse_vswitch_dvs_list, "esxcli network vswitch dvs vmware list"),
    (parse_esxcfg_module_info, "esxcfg-module -i i40en"),
    (parse_esxcfg_module_get, "esxcfg-module -g icen"),
    (parse_module_parameters_list, "esxcli system module parameters list -m bnx2x"),
    (parse_coalesce_get, "esxcli network nic coalesce get"),
    (parse_intnet_rss_get, "esxcli intnet rss get -n vmnic1"),
    (parse_vmkping, "vmkping -d -s 8972 10.0.0.1"),
]


def test_parsers_never_raise_on_truncated_or_foreign_captures():
    texts = [read_capture(capture_path(n)).text for n in [*DISPATCH, BNX2X_COMBINED]]
    texts.append(read_capture(VMSUPPORT_DVS).text)
    for fn, command in PARSERS:
        cmd = CommandLine.parse(command)
        for text in texts:
            for cut_at in range(0, len(text), max(1, len(text) // 25)):
                fn(text[:cut_at], cmd)  # must not raise
        assert not fn("", cmd).understood


def test_captures_exist():
    for name in [*DISPATCH, BNX2X_COMBINED]:
        assert (CAPTURES / name).is_file()
    assert VMSUPPORT_DVS.is_file()
