"""esxcli over the vSphere API, the reading half: an ExecuteSoap answer (XML) → rows (parsers/api/esxcli_soap), the
rows → facts by the module of each command family (parsers/esxi/esxcli_nic, coalesce, module, ping), LLDP/CDP hints
(parsers/api/network_hints), and the recordings a live audit keeps, replayed into the same facts. Each row reader
is checked against the text parser of the same command on the same real capture.

Sources of the test data: tests/esxcli_rows.py (govmomi's own recorded answers, and rows built from the real
captures of shared/fixtures/captures); ``esxi_vmkping-d_message_too_long_mtu_mismatch.txt`` (ping summary;
``Recieved`` is the API's spelling used by public PowerCLI scripts); LLDP parameters from
``esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt``.
"""
from __future__ import annotations

import json
import re

from capturetools import capture_path, merged, parse_capture
from esxcli_rows import (GOVMOMI_HOSTNAME_GET, GOVMOMI_VM_PORT_LIST, nic_get_row, powercli_rows, rows_xml,
                         table_rows)
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers import rows as api_rows
from nicadvisor.parsers.api import esxcli_soap as soap
from nicadvisor.parsers.api import network_hints
from nicadvisor.parsers.esxi import coalesce, esxcli_nic, module, ping
from nicadvisor.collect.vsphere_esxcli_commands import validate as _validate


# --- response XML → rows ---------------------------------------------------------------------------------

def test_response_rows_on_govmomi_fixtures():
    rows, kind, err = soap.response_rows(GOVMOMI_VM_PORT_LIST)
    assert err is None and kind == "VimEsxCLInetworkvmportlistPort"
    assert rows == [{"DVPortID": "", "IPAddress": "192.168.247.149", "MACAddress": "00:0c:29:12:b2:cf",
                     "PortID": "33554438", "Portgroup": "VM Network", "TeamUplink": "vmnic0",
                     "UplinkPortID": "33554434", "vSwitch": "vSwitch0"}]
    rows, kind, err = soap.response_rows(GOVMOMI_HOSTNAME_GET)
    assert (rows, kind, err) == ([{"DomainName": "localdomain", "FullyQualifiedDomainName": "esxbox.localdomain",
                                   "HostName": "esxbox"}], "VimEsxCLIsystemhostnamegetFullyQualifiedHostName", None)
    assert api_rows.row_line(rows[0]) == "DomainName=localdomain; FullyQualifiedDomainName=esxbox.localdomain; HostName=esxbox"
    assert soap.response_rows("")[2] == "empty response"
    assert soap.response_rows("<obj><unclosed></obj>")[2].startswith("response is not XML")
    assert "DOCTYPE" in soap.response_rows('<!DOCTYPE x [<!ENTITY a "b">]><obj>&a;</obj>')[2]
    # an unknown command's rows are not turned into facts, just noted
    assert soap.facts_for(("network", "vm", "port", "list"), rows).notes == ["no converter for 'esxcli network vm port list'"]


# --- rows → facts, against the text parsers on the same real captures --------------------------------------

def test_nic_list_rows_match_the_capture_and_the_text_parser():
    rows = powercli_rows()
    facts = esxcli_nic.nic_list_facts(rows)
    assert facts.notes == [] and facts.family == "vSphere API esxcli network nic list"
    pnics = merged([facts])[0]
    assert sorted(pnics) == ["vmnic0", "vmnic1", "vmnic4", "vmnic5"]
    assert pnics["vmnic0"] == {"pci_address": "0000:04:00.0", "is_physical": True, "driver": "bnx2x", "admin_up": True,
                               "link_up": True, "link_speed_mbps": 10000, "duplex": "full", "mac": "fc:15:b4:15:14:60",
                               "mtu": 1500,
                               "description": "Broadcom Corporation QLogic 57810 10 Gigabit Ethernet Adapter"}
    assert pnics["vmnic5"]["pci_address"] == "0000:04:00.5" and pnics["vmnic5"]["mac"] == "fc:15:b4:15:14:66"
    assert facts.pnics["vmnic0"]["mtu"].line.startswith("AdminStatus=Up; Description=Broadcom Corporation")
    # the esxcli text parser reads the same PowerCLI records into the same facts
    assert merged(parse_capture("esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt"))[0] == pnics


def test_nic_get_row_matches_the_text_parser():
    row = nic_get_row("esxi_esxcli_nic_get_i40en_x710_fw7.10.txt")
    assert row["DriverInfo"] == {"BusInfo": "0000:19:00:0", "Driver": "i40en",
                                 "FirmwareVersion": "7.10 0x800075e5 19.5.12", "Version": "1.8.6"}
    facts = esxcli_nic.nic_get_facts([row], {"nic-name": "vmnic0"})
    pnics = merged([facts])[0]
    assert pnics == {"vmnic0": {"pci_address": "0000:19:00.0", "is_physical": True, "driver": "i40en",
                                "driver_version": "1.8.6", "firmware_version": "7.10 0x800075e5 19.5.12",
                                "link_up": False,
                                "link_speed_max_mbps": 10000}}  # the fastest advertised link mode (10000BaseX/Full)
    assert merged(parse_capture("esxi_esxcli_nic_get_i40en_x710_fw7.10.txt"))[0] == pnics
    fields = facts.records[0]["fields"]
    assert facts.records[0]["nic"] == "vmnic0" and fields["VirtualAddress"] == "00:50:56:56:d8:de"
    assert fields["AdvertisedLinkModes"] == "Auto, 1000BaseX/Full, 10000BaseX/Full" and "DriverInfo" not in fields


def test_coalesce_rows_match_the_text_parser():
    rows = table_rows("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt", r"^NIC\s+RX microseconds")
    assert rows[2] == {"NIC": "vmnic1000202", "RXmicroseconds": "3", "RXmaximumframes": "15", "TXmicroseconds": "0",
                       "TXMaximumframes": "1", "AdaptiveRX": "Off", "AdaptiveTX": "Off", "Sampleintervalseconds": "0"}
    facts = coalesce.coalesce_facts(rows)
    pnics = merged([facts])[0]
    assert pnics == {"vmnic1000202": {"coalesce_rx_usecs": 3, "coalesce_rx_frames": 15, "coalesce_tx_usecs": 0,
                                      "coalesce_tx_frames": 1, "coalesce_adaptive_rx": False,
                                      "coalesce_adaptive_tx": False},
                     "vmnic2": {"coalesce_rx_usecs": 3, "coalesce_rx_frames": 15, "coalesce_tx_usecs": 0,
                                "coalesce_tx_frames": 1, "coalesce_adaptive_rx": False,
                                      "coalesce_adaptive_tx": False}}  # N/A rows: nothing
    assert merged(parse_capture("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt"))[0] == pnics
    assert [r["nic"] for r in facts.records] == ["vmnic0", "vmnic1", "vmnic1000202", "vmnic2"]
    assert facts.records[2] == {"kind": "coalesce", "nic": "vmnic1000202", "adaptive_tx": False, "sample_interval_s": 0}


def test_module_parameters_rows():
    rows = table_rows("esxi_g_esxcli_system_module_parameters_list_ixgbe_grep_esxi60_elatov.txt", r"^Name\s+Type")
    assert rows == [{"Name": "LRO", "Type": "array of int", "Value": "0",
                     "Description": "Large Receive Offload (0,1), default 1 = on"}]
    facts = module.module_parameters_facts(rows, {"module": "ixgbe"})
    mods = merged([facts])[3]
    assert mods == {"ixgbe": {"parameters": {"LRO": "Large Receive Offload (0,1), default 1 = on"}, "options": {"LRO": "0"}}}
    assert facts.records == [{"kind": "module_parameter", "module": "ixgbe", "name": "LRO", "type": "array of int",
                              "value": "0", "description": "Large Receive Offload (0,1), default 1 = on"}]
    unset = [dict(rows[0], Value="")]
    assert merged([module.module_parameters_facts(unset, {"module": "ixgbe"})])[3]["ixgbe"]["options"] == {}
    assert module.module_parameters_facts(rows, {}).notes == [
        "esxcli system module parameters list (API): module name unknown"]


def test_ping_summary_record():
    text = read_capture(capture_path("esxi_vmkping-d_message_too_long_mtu_mismatch.txt")).text
    m = re.search(r"(\d+) packets transmitted, (\d+) packets received, (\d+)% packet loss", text)
    row = {"Summary": {"HostAddr": "192.168.6.1", "Transmitted": m.group(1), "Recieved": m.group(2),
                       "PacketLost": m.group(3)}}
    facts = ping.ping_facts([row], {"host": "192.168.6.1", "size": 1500, "df": True})
    assert facts.records == [{"kind": "vmkping", "via": "vSphere API", "size": 1500, "df": True, "target": "192.168.6.1",
                              "sent": 3, "received": 0, "loss_pct": 100.0, "error": None, "interface": None,
                              "netstack": None, "rtt_avg_us": None, "rtt_min_us": None, "rtt_max_us": None}]
    assert not facts.pnics and not facts.vmknics
    assert ping.ping_facts([]).notes == ["esxcli network diag ping (API): empty answer"]


def test_lldp_hint_records():
    text = read_capture(capture_path("esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt")).text
    params = [{"key": k, "value": v} for k, v in re.findall(r'"(Aggregat[^"]+)": "([^"]*)"', text)]
    assert params == [{"key": "Aggregated Port ID", "value": "0"}, {"key": "Aggregation Status", "value": "1"}]
    hints = [{"device": "vmnic0", "lldpInfo": {"parameter": params}}, {"device": "vmnic1"}, "junk", {"device": 3}]
    facts = network_hints.hint_facts(hints)
    assert facts.records == [{"kind": "lldp", "nic": "vmnic0", "chassis_id": None, "port_id": None, "ttl_s": None,
                              "system_name": None,
                              "parameters": {"Aggregated Port ID": "0", "Aggregation Status": "1"}}]
    assert not facts.pnics and facts.notes == []
    # recorded and replayed
    text = network_hints.hints_recording("HostSystem:host-21", "HostNetworkSystem:hostnetworksystem-15", hints[:2], "vc:443")
    assert network_hints.facts_from_recording(text).records == facts.records


def test_recording_replays_into_the_same_facts():
    rows = powercli_rows()
    xml = rows_xml(rows)
    assert soap.response_rows(xml)[0] == rows
    spec, values = _validate(("network", "nic", "list"))
    text = soap.esxcli_recording("HostSystem:host-21", spec.words, {}, spec.moid, spec.method, [], xml, None, None, "vc:443")
    doc = json.loads(text)
    assert (doc["kind"], doc["moid"], doc["method"], doc["version"]) == (
        "esxcli", "ha-cli-handler-network-nic", "vim.EsxCLI.network.nic.list", "urn:vim25/5.0")
    assert soap.facts_from_recording(text).pnics == esxcli_nic.nic_list_facts(rows).pnics
    failed = soap.esxcli_recording("HostSystem:host-21", spec.words, {}, spec.moid, spec.method, [], None, None,
                                 "MethodNotFound: x", None)
    assert soap.facts_from_recording(failed).notes == ["esxcli network nic list: no response recorded (MethodNotFound: x)"]
    assert soap.facts_from_recording("not json").notes[0].startswith("not an esxcli-over-API recording")
    assert soap.facts_from_recording("[1]").notes == ["not an esxcli-over-API recording (no kind/command)"]
