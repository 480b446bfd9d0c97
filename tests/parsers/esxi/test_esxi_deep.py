"""ESXi deep-inspection parsers (vsish, vmkernel.log, nsxdp-cli / NSX Edge, privstats, nicinfo.sh) on the
real captures in ``shared/fixtures/captures`` and ``shared/fixtures/vm-support`` (the govc and Ansible dumps of the
same facts: tests/parsers/api/test_api_dumps.py)."""
from __future__ import annotations

import pytest

from capturetools import CAPTURES, FIXTURES, merged, only, parse_capture, records
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.base import CommandLine
from nicadvisor.parsers.registry import parse_output
from nicadvisor.parsers.esxi import privstats
from nicadvisor.parsers.esxi import nicinfo
from nicadvisor.parsers.esxi import nsx_datapath
from nicadvisor.parsers.esxi import vmkernel_log
from nicadvisor.parsers.esxi import vsish
# --- vsish ---------------------------------------------------------------------------------------

def test_vsish_properties_geneve_offload_vmnic3():
    results = parse_capture("esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt")
    r = only(results, "vsish pnic properties")
    pnics = merged(results)[0]
    assert pnics["vmnic3"]["geneve_offload"] is True
    assert pnics["vmnic3"]["vxlan_offload"] is True  # VMNET_CAP_ENCAP
    assert pnics["vmnic3"]["tso"] is True
    assert "VMNET_CAP_Geneve_OFFLOAD" in r.pnics["vmnic3"]["geneve_offload"].line
    (rec,) = records(results, "vsish properties capabilities")
    assert rec["block"] == "Device Hardware Cap Activated"
    assert rec["mask"] == "0x793c032b"
    assert len(rec["caps"]) == 15 and rec["caps"][-1] == "VMNET_CAP_SCHED"


def test_vsish_rxqueues_info_geneve_rx_filter_vmnic5():
    results = parse_capture("esxi_vsish_rxqueues_info_geneve_rxfilter_vmnic5_seed.txt")
    pnics = merged(results)[0]
    assert pnics["vmnic5"] == {"rx_queues_max": 8, "geneve_rx_filter": True, "rss": False}  # a maximum (issue 16 §5)
    (rec,) = records(results, "vsish rxqueues info")
    assert rec["filters_supported"] == 512
    assert rec["filters_moved"] == 254
    assert rec["geneve_oam_filters"] == 2
    assert rec["filter_classes_mask"] == 0x1C
    assert rec["filter_classes"] == ["VLAN_MAC", "VXLAN", "Geneve", "GenericEncap"]
    assert rec["features"] == ["Pair", "Dynamic"]
    r = only(results, "vsish rxqueues info")
    assert "Geneve" in r.pnics["vmnic5"]["geneve_rx_filter"].line


def test_vsish_rxqueues_info_rss_vmnic0():
    results = parse_capture("esxi_vsish_rxqueues_info_rss_vmnic0_seed.txt")
    pnics = merged(results)[0]
    assert pnics["vmnic0"]["rx_queues_max"] == 5 and "rx_queues" not in pnics["vmnic0"]
    assert pnics["vmnic0"]["rss"] is True
    assert "geneve_rx_filter" not in pnics["vmnic0"]  # no filter class line: unknown
    (rec,) = records(results, "vsish rxqueues info")
    assert rec["filters_supported"] == 126
    assert rec["features_mask"] == 0x1A0
    assert rec["features"] == ["Dynamic", "RSS", "Dynamic", "Preemptible"]  # wrapped line joined


@pytest.mark.parametrize("name", ["esxi_vsish_rxqueues_info_json.txt",
                                  "esxi_g_vsish_-pe_get_pNics_rxqueues_info_intel-mfd.txt"])
def test_vsish_rxqueues_info_python_form_placeholder_target(name):
    results = parse_capture(name)
    r = only(results, "vsish rxqueues info")
    assert not r.pnics  # /net/pNics/<vmnic>/: no real interface named
    assert any("<vmnic>" in n for n in r.notes)
    (rec,) = r.records
    assert rec["form"] == "python"
    assert rec["maxQueues"] == 9
    assert rec["maxRSSEngines"] == 1
    assert rec["numFilters"] == 512
    assert rec["numMovedFilters"] == 2
    assert rec["filterClasses"] == 0x7
    assert rec["features"] == 0x482


def test_vsish_rxqueues_info_python_form_with_real_target():
    """The same real output read as if the command had named vmnic4: maxQueues/maxRSSEngines become facts."""
    cap = read_capture(CAPTURES / "esxi_vsish_rxqueues_info_json.txt")
    r = vsish.parse_rxqueues_info(cap.text, CommandLine.parse("vsish -pe get /net/pNics/vmnic4/rxqueues/info"))
    assert {k: f.value for k, f in r.pnics["vmnic4"].items()} == {"rx_queues_max": 9, "rss": True}
    assert '"maxQueues" : 9' in r.pnics["vmnic4"]["rx_queues_max"].line


def test_vsish_stats_python_form_banner_and_hw_string():
    results = parse_capture("esxi_g_vsish_-pe_get_pNics_stats_ens-disabled_intel-mfd.txt")
    r = only(results, "vsish pnic stats")
    assert not r.pnics and r.notes
    (rec,) = r.records
    assert rec["form"] == "python"
    assert rec["counters"]["rxpkt"] == 46037587
    assert rec["counters"]["txbytes"] == 49220483692
    assert rec["counters"]["rxmltcast"] == 3037
    assert len(rec["rx_queue_packets"]) == 9  # rxq0..rxq8 in the "hw" string
    assert rec["rx_queue_packets"][8] == 46036574
    assert rec["tx_queue_packets"] == {0: 22594593}
    text = read_capture(CAPTURES / "esxi_g_vsish_-pe_get_pNics_stats_ens-disabled_intel-mfd.txt").text
    named = vsish.parse_pnic_stats(text, CommandLine.parse("vsish -pe get /net/pNics/vmnic2/stats"))
    assert named.pnics["vmnic2"]["rx_queues"].value == 9
    assert named.pnics["vmnic2"]["tx_queues"].value == 1


def test_vsish_stats_text_form_bnx2():
    results = parse_capture("unattributed_vdnet_esxi_vsish_pnic_stats_bnx2_comment_partial.txt")
    r = only(results, "vsish pnic stats")
    assert not r.pnics
    (rec,) = r.records
    assert rec["form"] == "text"
    assert rec["general"]["Rx Packets"] == 308907037
    assert rec["general"]["Rx Missed Errors"] == 15948
    assert rec["general"]["Module Interface Rx packets"] == 308891153
    assert rec["driver"]["rx_fw_discards"] == 15948
    assert rec["driver"]["rx_1024_to_1522_byte_packets"] == 106717008


# --- vmkernel.log --------------------------------------------------------------------------------

def test_vmkernel_log_ixgben_queues_rss_mtu_mapped_to_vmnic():
    results = parse_capture("esxi_vmkernel_log_ixgben_queues_itr_mtu.txt")
    r = only(results, "vmkernel.log")
    pnics = merged(results)[0]
    assert pnics["vmnic3"] == {"pci_address": "0000:af:00.1", "tx_queues": 12, "rx_queues": 12, "rss": True,
                               "mtu": 9000, "link_up": True}  # "ixgben_CheckLink: 0000:af:00.1: Link is up"
    assert pnics["vmnic2"] == {"pci_address": "0000:af:00.0", "rss": True}  # "Register RSS"
    assert "Changing MTU from 1500 to 9000" in r.pnics["vmnic3"]["mtu"].line
    assert "maxRxQueues=12" in r.pnics["vmnic3"]["rx_queues"].line
    assert not any(k.startswith("pci:") for k in pnics)
    (itr,) = records(results, "itr register")
    assert (itr["pci"], itr["rxITR"], itr["txITR"]) == ("0000:af:00.1", 0, 428)
    (msix,) = records(results, "interrupts")
    assert (msix["pci"], msix["type"], msix["vectors"]) == ("0000:af:00.1", "MSIX", 13)
    assert records(results, "interrupt vectors")[0]["vectors"] == 13


def test_vmkernel_log_icen_dynamic_itr_and_i40en_unkeyed():
    results = parse_capture("esxi_vmkernel_log_i40en_icen_itr_msix.txt")
    r = only(results, "vmkernel.log")
    pnics = merged(results)[0]
    for pci in ("0000:b1:00.0", "0000:b1:00.1"):
        assert pnics[f"pci:{pci}"] == {"coalesce_rx_usecs": 50, "coalesce_tx_usecs": 50, "coalesce_adaptive_rx": True}
    assert "Dynamic Interrupt Throttle Rate" in r.pnics["pci:0000:b1:00.0"]["coalesce_rx_usecs"].line
    # The reformatted i40en lines name no device: records + note, no pNIC fact.
    itr = records(results, "itr")
    assert [(x["driver"], x["direction"], x["usecs"]) for x in itr] == [("i40en", "rx", 50), ("i40en", "tx", 100)]
    assert any("name no vmnic or PCI address" in n for n in r.notes)
    vectors = {x["pci"]: (x["type"], x["vectors"]) for x in records(results, "interrupts")}
    assert vectors["0000:ca:00.1"] == ("MSIX", 73)
    assert vectors["0000:00:14.0"] == ("MSI", 1)
    assert vectors["0000:b1:00.1"] == ("MSIX", 49)
    assert len(vectors) == 10


# --- NSX data path -------------------------------------------------------------------------------

def test_nsxdp_ens_ring_get_escaped_newlines():
    results = parse_capture("esxi_g_nsxdp-cli_ens_uplink_ring_get_icen_ens_intel-mfd.txt")
    r = only(results, "nsxdp-cli ens uplink ring get")
    assert merged(results)[0]["vmnic1"] == {"tx_ring_size": 2048, "rx_ring_size": 1024, "ens_enabled": True}
    assert r.pnics["vmnic1"]["rx_ring_size"].line == "Rx Ring Size: 1024"


def test_nsxdp_ens_rss_list():
    results = parse_capture("esxi_nsxdp-cli_ens_uplink_rss_list_icen.txt")
    assert merged(results)[0]["vmnic1"] == {"rss": True, "ens_enabled": True}
    (eng,) = records(results, "ens rss engine")
    assert eng["type"] == "DFTRSS"
    assert (eng["num_queues"], eng["key_size"], eng["indirection_size"]) == (4, 40, 128)
    assert eng["secondary_queues"] == [1, 2, 3]


def test_nsxdp_ens_uplink_stats():
    results = parse_capture("esxi_nsxdp-cli_ens_uplink_stats_get.txt")
    assert merged(results)[0]["vmnic1"] == {"rx_queues": 8, "tx_queues": 8, "ens_enabled": True}
    (rec,) = records(results, "ens uplink stats")
    assert rec["counters"]["rxPkts"] == 278574864
    assert rec["counters"]["txDrops"] == 12
    assert rec["rx_queue_packets"][4] == 177082250
    assert rec["tx_queue_packets"][1] == 9912078


def test_nsxdp_ens_port_list():
    results = parse_capture("esxi_nsxdp-cli_ens_port_list.txt")
    r = only(results, "nsxdp-cli ens port list")
    assert not r.pnics
    ports = records(results, "ens port")
    assert [p["type"] for p in ports] == ["UPLINK", "GENERIC", "GENERIC", "VNIC"]
    uplink = ports[0]
    assert (uplink["port_id"], uplink["tx_queues"], uplink["rx_queues"]) == (2248146990, 8, 34)
    assert uplink["tx_placement"] == ["0", "1", "2", "3", "4", "5", "6", "7"]
    assert ports[3]["hw_mac"] == "00:0c:20:a1:0f:cf"
    assert ports[3]["rx_placement"] == ["7", "7", "7", "7"]


def test_nsxdp_ens_flow_table_geneve():
    results = parse_capture("esxi_nsxdp-cli_ens_flow-table_dump_geneve.txt")
    flows = records(results, "ens flow")
    assert [f["ft"] for f in flows] == ["L3", "L2"]
    assert (flows[0]["src_ip"], flows[0]["dst_ip"], flows[0]["src_port"]) == ("1.1.10.12", "1.2.10.6", 3)
    assert "GENEVE ENCAP" in flows[0]["actions"]
    assert flows[1]["vni"] == 65536
    assert "GENEVE DECAP" in flows[1]["actions"]


def test_nsx_edge_physical_ports_vmxnet3_pmd():
    results = parse_capture("nsx_edge_cli_get_physical-ports_vmxnet3_pmd_flattened.txt")
    pnics = merged(results)[0]
    assert sorted(pnics) == ["fp-eth0", "fp-eth1", "fp-eth2"]
    eth1 = pnics["fp-eth1"]
    assert eth1["driver"] == "rte_vmxnet3_pmd"
    assert eth1["is_virtual_uplink"] is True
    assert eth1["mtu"] == 1600
    assert eth1["mac"] == "00:50:56:a9:a2:e6"
    assert eth1["pci_address"] == "0000:13:00.0"
    assert (eth1["link_up"], eth1["link_speed_mbps"], eth1["duplex"]) == (True, 10000, "full")
    assert (eth1["rx_queues"], eth1["tx_queues"]) == (1, 1)
    assert eth1["tso"] is True and eth1["geneve_offload"] is False
    assert "numa_node" not in eth1  # SOCKET : -1
    assert pnics["fp-eth0"]["mtu"] == 1500
    assert pnics["fp-eth2"]["pci_address"] == "0000:1b:00.0"
    statuses = [p["POLLING_STATUS"] for p in records(results, "edge physical port")]
    assert statuses == ["inactive", "active", "inactive"]


def test_privstats_32_queues():
    results = parse_capture("esxi_localcli_networkinternal_nic_privstats_32q.txt")
    r = only(results, "esxcli networkinternal nic privstats get")
    assert merged(results)[0]["vmnic1"] == {"rx_queues": 32, "tx_queues": 32}
    assert r.pnics["vmnic1"]["rx_queues"].line.startswith("rxq31:")
    (rec,) = r.records
    assert rec["rx_queue_packets"][0] == 30009
    assert rec["rx_queue_packets"][9] == 30000
    assert rec["tx_queue_packets"][0] == 17
    assert rec["counters"]["Packets assigned to an invalid queue"] == 0
    assert rec["counters"]["RxXon"] == 0 and "TxXoff" in rec["counters"]


# --- nicinfo.sh ----------------------------------------------------------------------------------

def test_nicinfo_esxi5x_table_be2net():
    cap = read_capture(FIXTURES / "vm-support" / "bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt")
    results = parse_output(cap.command, cap.text)
    r = only(results, "nicinfo.sh")
    pnics = merged(results)[0]
    assert sorted(pnics) == [f"vmnic{i}" for i in range(6)]
    assert pnics["vmnic0"] == {
        "pci_address": "0000:02:00.0", "is_physical": True, "driver": "be2net", "link_up": True,
        "link_speed_mbps": 1000, "duplex": "full", "mac": "00:17:a4:77:00:c6", "mtu": 1500,
        "description": "Emulex Corporation NC553i 10Gb 2-port FlexFabric Converged Network Adapter",
    }
    assert pnics["vmnic2"]["link_speed_mbps"] == 4000  # FlexFabric provisioned speed
    assert pnics["vmnic5"]["pci_address"] == "0000:02:00.7"
    assert pnics["vmnic5"]["mac"] == "00:17:a4:77:00:d0"
    assert "admin_up" not in pnics["vmnic0"]  # no Admin Status column in 5.x
    assert r.pnics["vmnic3"]["mac"].line.startswith("vmnic3 0000:002:00.5 be2net Up 4000")
    assert not r.notes


def test_nicinfo_registered_for_script_name():
    assert [r.family for r in parse_output("nicinfo.sh", "")] == ["nicinfo.sh"]
    assert [r.family for r in parse_output("/usr/lib/vmware/vm-support/bin/nicinfo.sh", "")] == ["nicinfo.sh"]


# --- robustness ----------------------------------------------------------------------------------

_PARSERS = [
    (vsish.parse_properties, "vsish -e get /net/pNics/vmnic1/properties"),
    (vsish.parse_rxqueues_info, "vsish -pe get /net/pNics/vmnic1/rxqueues/info"),
    (vsish.parse_pnic_stats, "vsish -pe get /net/pNics/vmnic1/stats"),
    (vmkernel_log.parse_vmkernel_log, "cat /var/log/vmkernel.log"),
    (nsx_datapath.parse_ens_ring_get, "nsxdp-cli ens uplink ring get -n vmnic1"),
    (nsx_datapath.parse_ens_rss_list, "nsxdp-cli ens uplink rss list -n vmnic1"),
    (nsx_datapath.parse_ens_uplink_stats, "nsxdp-cli ens uplink stats get -n vmnic1"),
    (nsx_datapath.parse_ens_port_list, "nsxdp-cli ens port list"),
    (nsx_datapath.parse_ens_flow_table, "nsxdp-cli ens flow-table dump 0"),
    (nsx_datapath.parse_edge_physical_ports, "get physical-ports"),
    (privstats.parse_privstats, "esxcli networkinternal nic privstats get -n vmnic1"),
    (nicinfo.parse_nicinfo, "nicinfo.sh"),
]


@pytest.mark.parametrize("fn,command", _PARSERS, ids=[c for _, c in _PARSERS])
def test_parsers_never_raise_on_foreign_or_broken_text(fn, command):
    cmd = CommandLine.parse(command)
    texts = ["", "\n\n", "{", "}", "{\"a\": [1, 2", "rx queues info {", "Physical Port NAME : x",
             "ID Type PriQ NumQ\n---\nx", "\x00garbage \u00e9 : : ::"]
    texts += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CAPTURES.glob("*.txt"))]
    for text in texts:
        result = fn(text, cmd)
        assert result.family


def test_empty_outputs_are_not_understood():
    cmd = CommandLine.parse("vsish -e get /net/pNics/vmnic1/rxqueues/info")
    r = vsish.parse_rxqueues_info("", cmd)
    assert not r.understood and r.notes
    r = nsx_datapath.parse_ens_rss_list("no table here\n", CommandLine.parse("nsxdp-cli ens uplink rss list -n vmnic1"))
    assert not r.pnics and r.notes
