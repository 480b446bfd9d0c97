"""The switch port each pNIC is cabled to (LLDP/CDP neighbour), read from real outputs of every source: the vSphere API
(community.vmware's QueryNetworkHint sample), ESXi ``vim-cmd hostsvc/net/query_networkhint``, Linux ``lldpctl -f
json`` and ``networkctl lldp``. Each capture's ``# source:`` line names where it comes from (tests/parsers/captures)."""
from __future__ import annotations

from capturetools import merged, parse_capture
from nicadvisor.parsers.api import network_hints
from nicadvisor.parsers.base import CommandLine
from nicadvisor.parsers.esxi.networkhint import parse_query_networkhint, read_hints
from nicadvisor.collect.sources import read_capture
from capturetools import capture_path


def neighbors(name: str) -> dict[str, dict]:
    pnics, *_ = merged(parse_capture(name))
    return {nic: {k.removeprefix("neighbor_"): v for k, v in f.items() if k.startswith("neighbor_")}
            for nic, f in pnics.items() if any(k.startswith("neighbor_") for k in f)}


def lines(name: str, nic: str) -> dict[str, str]:
    (r,) = [r for r in parse_capture(name) if nic in r.pnics]
    return {k: f.line.strip() for k, f in r.pnics[nic].items() if k.startswith("neighbor_")}


def test_vmnic_info_lldp_parameters_give_switch_mtu_and_vlan_but_no_port():
    name = "esxi_api_ansible_vmnic_info_return_sample_lldp_mtu9216_partial.txt"
    # the module keeps only lldpInfo.parameter: System Name, MTU, Vlan ID, but never the port ID
    assert neighbors(name) == {"vmnic0": {"protocol": "LLDP", "name": "sw1", "port_description": "switch port description",
                                          "mtu": 9216, "vlan": 1}}
    assert lines(name, "vmnic0")["neighbor_mtu"] == '"MTU": "9216",'


def test_partial_lldp_parameters_without_a_name_leave_the_neighbour_unknown():
    # only "Aggregated Port ID" / "Aggregation Status" survived the excerpt: nothing says where vmnic0 is cabled
    assert neighbors("esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt") == {}


def test_vim_cmd_cdp_hint_names_switch_and_port_with_its_own_lines():
    name = "esxi_vim-cmd_query_networkhint_cdp_elatov_partial.txt"
    assert neighbors(name) == {"vmnic0": {"protocol": "CDP", "name": "core_switch", "port": "GigabitEthernet0/27",
                                          "mgmt_address": "192.168.9.18"}}
    assert lines(name, "vmnic0")["neighbor_port"] == 'portId = "GigabitEthernet0/27",'


def test_vim_cmd_cdp_excerpt_without_device_is_records_only_until_the_command_names_the_vmnic():
    cap = read_capture(capture_path("unattributed_vdnet_esxi_vim-cmd_query_networkhint_cdp_c2960_comment_partial.txt"))
    r = parse_query_networkhint(cap.text, CommandLine.parse("vim-cmd hostsvc/net/query_networkhint"))
    assert r.pnics == {} and "vmnic it belongs to is not named" in r.notes[0]
    (rec,) = r.records
    assert (rec["device_id"], rec["port_id"], rec["vlan"], rec["mtu"]) == ("vmk-colo-057", "GigabitEthernet0/15", 243,
                                                                           None)  # mtu = 0: not sent
    named = parse_query_networkhint(cap.text, CommandLine.parse("vim-cmd hostsvc/net/query_networkhint "
                                                                "--pnic-names=vmnic3"))
    got = {k: f.value for k, f in named.pnics["vmnic3"].items()}
    assert got == {"neighbor_protocol": "CDP", "neighbor_name": "vmk-colo-057", "neighbor_port": "GigabitEthernet0/15",
                   "neighbor_mgmt_address": "10.112.24.57", "neighbor_vlan": 243}
    assert named.pnics["vmnic3"]["neighbor_vlan"].line.strip() == "vlan = 243,"


def test_vim_cmd_nesting_is_read_without_indentation():
    cap = read_capture(capture_path("esxi_vim-cmd_query_networkhint_cdp_elatov_partial.txt"))
    hints, _lines, notes = read_hints(cap.text)
    assert notes == [] and [h["device"] for h in hints] == ["vmnic0"]
    assert hints[0]["connectedSwitchPort"]["samples"] == 2982 and hints[0]["dynamicType"] is None


def test_lldpctl_json_list_form_two_neighbours_one_without_a_name():
    name = "linux_lldpctl-f_json_leaf01_swp12_and_cisco_sg200_g1_lldpd1.0.16.txt"
    assert neighbors(name) == {
        "ens1f0": {"protocol": "LLDP", "name": "leaf-01", "chassis_id": "f6:9f:b5:5d:f7:d9", "port": "swp12",
                   "port_description": "uplink esx-a vmnic2", "mgmt_address": "fe80::f49f:b5ff:fe5d:f7d9"},
        # the Cisco SG 200-08P sends no System Name: the switch is known by its chassis ID only
        "ens1f1": {"protocol": "LLDP", "chassis_id": "00:35:35:35:35:35", "port": "g1"}}
    assert lines(name, "ens1f1")["neighbor_port"] == "lldp.ens1f1.port.id = g1"


def test_lldpctl_json_object_form():
    assert neighbors("linux_lldpctl-f_json_one_neighbour_leaf01_swp12_lldpd1.0.16.txt")["ens1f0"]["port"] == "swp12"


def test_networkctl_lldp_aligned_rows_keep_ellipsized_names_as_printed():
    assert neighbors("linux_networkctl_lldp_systemd250_rsw069_eth1-27-1_ellipsized.txt") == {
        "eth0": {"protocol": "LLDP", "chassis_id": "c2:18:50:40:d6:2c", "name": "rsw069.p041.f01…",
                 "port": "eth1/27/1"}}  # PORT DESCRIPTION n/a: not sent
    got = neighbors("linux_networkctl_lldp_full_systemd249_two_links_gi1-46_partial.txt")
    assert {nic: n["port"] for nic, n in got.items()} == {"enp2s0": "Gi1/46", "enp6s0f3": "Gi1/45"}


def test_networkctl_lldp_row_not_under_its_titles_is_split_around_caps():
    assert neighbors("linux_networkctl_lldp_systemd253_junos_xe-0-0-4_masked.txt") == {
        "eth0": {"protocol": "LLDP", "chassis_id": "xx:dd:xx:xx:xx:80",
                 "name": "dus-04x-3n2x-rack-f1x-4-5x00a.g.sgxlabs.com", "port": "516", "port_description": "xe-0/0/4"}}


def test_one_protocol_per_pnic_lldp_first_and_cdp_fields_from_the_real_c2960():
    cap = read_capture(capture_path("unattributed_vdnet_esxi_vim-cmd_query_networkhint_cdp_c2960_comment_partial.txt"))
    hints, _l, _n = read_hints(cap.text)
    cdp = hints[0]["connectedSwitchPort"]
    (sample,) = [rec for res in parse_capture("esxi_api_ansible_vmnic_info_return_sample_lldp_mtu9216_partial.txt")
                 for rec in res.records if rec.get("device") == "vmnic0"]
    lldp = {"parameter": [{"key": k, "value": v} for k, v in sample["lldp_info"].items()]}  # as the API answers it
    r = network_hints.hint_facts([{"device": "vmnic2", "connectedSwitchPort": cdp, "lldpInfo": lldp}])
    got = {k: f.value for k, f in r.pnics["vmnic2"].items()}
    assert got == {"neighbor_protocol": "LLDP", "neighbor_name": "sw1", "neighbor_mtu": 9216, "neighbor_vlan": 1,
                   "neighbor_port_description": "switch port description"}
    assert r.pnics["vmnic2"]["neighbor_mtu"].line == 'vmnic2 lldpInfo.parameter.MTU = "9216"'
    assert [rec["kind"] for rec in r.records] == ["lldp", "cdp"]
    only_cdp = network_hints.hint_facts([{"device": "vmnic2", "connectedSwitchPort": cdp}])
    assert only_cdp.pnics["vmnic2"]["neighbor_port"].line == 'vmnic2 connectedSwitchPort.portId = "GigabitEthernet0/15"'
