"""The pure NSX API parser on every real example response of shared/fixtures/nsx-api (values asserted
are the ones in those files), the truncated (.PARTIAL.txt) ones included, and never raising."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capturetools import NSX_API as NSX_FIXTURES, nsx_fixture_text as fixture_text

from nicadvisor.parsers.api import nsx as n
TN_NSX30 = "GET_api_v1_transport-nodes_list_nsx30_vds_STANDARD_apnex.json"
TN_ENS_INTR = "GET_api_v1_transport-nodes_list_nsx3x_nvds_ENS_INTERRUPT_saltfixture.json"
TN_NSX22 = "GET_api_v1_transport-nodes_list_nsx22_nvds_apnex.json"
TN_NSX24 = "GET_api_v1_transport-nodes_id_nsx24_nvds_apnex.json"
TN_VDS_SALT = "GET_api_v1_transport-nodes_id_nsx3x_vds_STANDARD_saltfixture.json"
TN_PARTIAL = "GET_api_v1_transport-nodes_list_nsx41plus_vds_vtepha_laidbackware.PARTIAL.txt"
STATE_OK = "GET_api_v1_transport-nodes_id_state_nsx22_success_apnex.json"
STATE_FAILED = "GET_api_v1_transport-nodes_id_state_nsx22_failed_apnex.json"
STATE_POLICY = "GET_policy_api_v1_infra_sites_default_enforcement-points_default_host-transport-nodes_id_state_vcf90_docs.json"
STATUS = "GET_api_v1_transport-nodes_id_status_nsx30_esxi_apnex.json"
PROF_LIST = "GET_api_v1_host-switch-profiles_list_nsx22_mtu1700_vlan12_apnex.json"
PROF_ONE = "GET_api_v1_host-switch-profiles_id_nsx3x_uplink_mtu1600_lag_saltfixture.json"
GLOBAL_PARTIAL = "GET_api_v1_global-configs_list_SwitchingGlobalConfig_apiref_latest.PARTIAL.txt"
VERSION = "GET_api_v1_node_version_nsx3133_nsxoperator_fixture.json"
TZ_NSX30 = "GET_api_v1_transport-zones_list_nsx30_apnex.json"
TZ_SALT = "GET_api_v1_transport-zones_list_nsx3x_saltfixture.json"
TNP_POLICY = "REQUEST_PUT_policy_api_v1_infra_host-transport-node-profiles_id_VDS_ENS_INTERRUPT_vcf90_docs.json"

ALL = [TN_NSX30, TN_ENS_INTR, TN_NSX22, TN_NSX24, TN_VDS_SALT, TN_PARTIAL, STATE_OK, STATE_FAILED, STATE_POLICY,
       STATUS, PROF_LIST, PROF_ONE, GLOBAL_PARTIAL, VERSION, TZ_NSX30, TZ_SALT, TNP_POLICY]


def test_every_fixture_is_covered():
    present = {p.name for p in NSX_FIXTURES.iterdir() if not p.name.endswith(".source.txt")}
    assert present == set(ALL), "a new NSX API fixture needs a parser test"


def _tn(name):
    nodes, notes = n.parse_transport_nodes(fixture_text(name))
    return nodes, notes


# --- transport nodes ---------------------------------------------------------------------------------

def test_nsx30_list_vds_standard_hosts_and_edge():
    nodes, notes = _tn(TN_NSX30)
    assert notes == []
    assert [tn.display_name for tn in nodes] == ["esx03.lab", "esx04.lab", "esx05.lab", "tn-edge02"]
    hosts = [tn for tn in nodes if tn.is_host]
    assert [tn.host_name for tn in hosts] == ["esx03.lab", "esx04.lab", "esx05.lab"]
    edge = nodes[3]
    assert edge.node_type == "EdgeNode" and not edge.node_type_inferred and not edge.is_host
    esx03 = hosts[0]
    assert esx03.id == "f51d9e4b-a7f0-4817-952c-87c7fe6d2a23"
    assert (esx03.os_type, esx03.os_version, esx03.kind) == ("ESXI", "7.0.0", "esxi")
    assert esx03.aliases == ["esx03.lab", "esx03", "172.16.10.103"]
    hs = esx03.host_switches[0]
    assert (hs.name, hs.type, hs.type_stated, hs.mode) == ("fabric", "VDS", True, "STANDARD")
    assert hs.id == "50 03 36 cb c0 78 d5 a4-e6 a1 40 8e 23 c8 22 ea"
    assert hs.uplink_profile_id == "dd702690-b8c8-4580-997d-146c07c1d9bd"
    assert hs.pnics == [] and hs.vds_uplinks == [("Uplink 1", "uplink-1"), ("Uplink 2", "uplink-2")]
    assert (hs.ip_assignment, hs.ip_pool_id) == ("StaticIpPoolSpec", "5734374a-e25a-4560-bc09-bdf46dc0da90")
    assert hs.transport_zone_ids == ["de4c4833-609a-4ca3-9981-c318358a5ef5", "6059d071-299f-4b4e-a1f4-0c63a270e61d"]
    assert edge.host_switches[0].pnics == [("fp-eth0", "uplink1")]


def test_ens_interrupt_nvds_host():
    nodes, _ = _tn(TN_ENS_INTR)
    (tn,) = nodes
    assert tn.host_name == "10.206.243.190" and tn.fqdn == "ESXi-mcm1514577-163356055792.eng.vmware.com"
    hs = tn.host_switches[0]
    assert (hs.name, hs.type, hs.mode) == ("nvds1", "NVDS", "ENS_INTERRUPT")
    assert hs.uplink_profile_id == "fb38b6c9-379b-42cf-b78c-13fc05da2e0d"
    assert hs.profile_ids["NiocProfile"] == "8cb3de94-2834-414c-b07d-c034d878db56"
    assert hs.ip_assignment == "AssignedByDhcp" and hs.lcores == 0 and hs.pnics == []
    assert hs.transport_zone_ids == ["b68c4c9e-fc51-413d-81fd-aadd28f8526a"]


def test_nsx22_list_old_shape_and_edge_inferred_from_fp_eth_ports():
    nodes, _ = _tn(TN_NSX22)
    edge, esx = nodes
    assert edge.display_name == "tn-edge01" and edge.node_type == "EdgeNode" and edge.node_type_inferred
    assert esx.display_name == "tn-esx01" and esx.node_type is None and esx.is_host
    assert esx.kind == "esxi"  # from the vmnicN device names: no node_deployment_info in 2.2
    hs = esx.host_switches[0]
    assert (hs.name, hs.type, hs.type_stated, hs.mode) == ("hs-fabric", "NVDS", False, None)
    assert hs.pnics == [("vmnic1", "uplink1")]
    assert hs.uplink_profile_id == "6f3c6c31-550f-4fed-be38-414c38b1f945"
    assert esx.transport_zone_ids == ["c769876e-4c83-4bd1-b6f3-debac7c9a110", "9a7ece00-3a4b-4a21-a811-f07e6a60b9e9"]


def test_nsx24_single_object_two_pnics():
    (tn,), _ = _tn(TN_NSX24)
    assert tn.id == "f9c74aee-96eb-433c-9d86-d728375e7fe5"
    assert tn.host_name == "esx01.lab" and tn.display_name == "tn-esx01.lab" and tn.os_version == "6.7.0"
    assert "tn-esx01.lab" in tn.aliases
    hs = tn.host_switches[0]
    assert hs.pnics == [("vmnic0", "uplink1"), ("vmnic1", "uplink2")] and hs.mode is None
    assert hs.profile_ids == {"UplinkHostSwitchProfile": "4cc43e15-16fe-4031-882d-cda910f221e6",
                              "LldpHostSwitchProfile": "9e0b4d2d-d155-4b4b-8947-fbfe5b79f7cb",
                              "NiocProfile": "8cb3de94-2834-414c-b07d-c034d878db56"}


def test_single_vds_transport_node():
    (tn,), _ = _tn(TN_VDS_SALT)
    assert tn.host_name == "10.193.58.122"
    hs = tn.host_switches[0]
    assert (hs.name, hs.type, hs.mode, hs.ip_assignment) == ("dvs1", "VDS", "STANDARD", "AssignedByDhcp")
    assert hs.vds_uplinks == [("Uplink 1", "uplink-1")]
    assert hs.uplink_profile_id == "0a26d126-7116-11e5-9d70-feff819cdc9f"


def test_partial_transport_node_fragment_read_up_to_the_cut():
    nodes, notes = _tn(TN_PARTIAL)
    (tn,) = nodes
    assert any("not complete JSON" in x for x in notes) and any("no id" in x for x in notes)
    assert tn.display_name == "172.20.16.14"
    hs = tn.host_switches[0]
    assert (hs.name, hs.type, hs.mode) == ("nsxt-vds", "VDS", "STANDARD")
    assert hs.profile_ids == {"UplinkHostSwitchProfile": "b57c54d4-1c0d-4274-a6f8-12cbb31a7ffb",
                              "VtepHAHostSwitchProfile": "0de8282e-7385-4e8e-a905-0c11960db728"}
    assert hs.ip_pool_id == "9da01264-9497-4fdb-a6c1-9da6f26e7489"
    assert hs.transport_zone_ids == ["c438e640-c193-4130-ae2e-26858d6eb64d"]


def test_policy_transport_node_profile_host_switches_and_policy_paths():
    nodes, _ = n.parse_transport_nodes(fixture_text(TNP_POLICY))
    assert nodes == []  # a transport-node profile is not a transport node
    (hs,), notes = n.parse_host_switch_spec(fixture_text(TNP_POLICY))
    assert notes == []
    assert (hs.name, hs.type, hs.mode) == ("vtepha_vds", "VDS", "ENS_INTERRUPT")
    assert hs.uplink_profile_id == "/infra/host-switch-profiles/b32e6ce6-f1ba-4e31-a2c4-33d550505cdd"
    assert hs.ip_pool_id == "/infra/ip-pools/v4"
    inv = n.NsxInventory(uplink_profiles={"b32e6ce6-f1ba-4e31-a2c4-33d550505cdd": n.UplinkProfile(
        id="b32e6ce6-f1ba-4e31-a2c4-33d550505cdd")})
    assert inv.uplink_profile(hs.uplink_profile_id) is not None  # Policy path resolved to the profile id


# --- state ------------------------------------------------------------------------------------------

def test_state_success_one_tep():
    st_, notes = n.parse_transport_node_state(fixture_text(STATE_OK))
    assert notes == []
    assert (st_.transport_node_id, st_.state, st_.maintenance_mode_state) == (
        "28a72d62-e01f-40cd-9b77-8f0bce12e700", "success", "DISABLED")
    (hss,) = st_.host_switch_states
    assert hss.name == "hs-fabric" and hss.type is None
    (ep,) = hss.endpoints
    assert (ep.device_name, ep.ip, ep.subnet_mask, ep.default_gateway, ep.label) == (
        "vmk10", "172.16.11.10", "255.255.255.0", "172.16.11.1", 10241)
    facts = n.state_facts(st_)
    vmk = facts.vmknics["vmk10"]
    assert vmk["is_tep"].value is True and vmk["addresses"].value == ["172.16.11.10"]
    assert vmk["switch"].value == "hs-fabric"
    assert facts.records[0]["host_switches"][0]["tep_count"] == 1


def test_state_failed_has_no_host_switch_states_teps_unknown():
    st_, notes = n.parse_transport_node_state(fixture_text(STATE_FAILED))
    assert st_.state == "failed" and st_.failure_code == 8804 and st_.failure_message == "Host configuration failed."
    assert st_.host_switch_states is None and any("realized TEPs unknown" in x for x in notes)
    assert st_.details[0][0:2] == ("Host", "failed") and "RPC request timed out" in st_.details[0][2]
    facts = n.state_facts(st_, host="tn-x")
    assert facts.vmknics == {} and facts.records[0]["host_switches"] is None
    assert any("state 'failed' (failure_code 8804)" in x for x in facts.notes)


def test_policy_state_vds_tep_with_empty_gateway():
    st_, _ = n.parse_transport_node_state(fixture_text(STATE_POLICY))
    (hss,) = st_.host_switch_states
    assert (hss.name, hss.type) == ("dvs1", "VDS")
    (ep,) = hss.endpoints
    assert (ep.device_name, ep.ip, ep.subnet_mask, ep.default_gateway) == ("vmk10", "172.16.223.175", "255.255.224.0", None)
    assert st_.deployment_state == "success"
    assert [d[0] for d in st_.details] == ["HostConfig", "AppInit", "LogicalSwitchFullSync"]


def test_status_is_not_state():
    st_, notes = n.parse_transport_node_state(fixture_text(STATUS))
    assert st_ is None and notes == ["not a transport-node state response"]


# --- profiles, global config, zones, version -----------------------------------------------------------

def test_uplink_profile_list_mtu_1700_vlan_12_failover():
    (p,), notes = n.parse_uplink_profiles(fixture_text(PROF_LIST))
    assert notes == []
    assert (p.id, p.display_name, p.mtu, p.transport_vlan, p.teaming_policy) == (
        "6f3c6c31-550f-4fed-be38-414c38b1f945", "pf-uplink", 1700, 12, "FAILOVER_ORDER")
    assert p.active_uplinks == ["uplink1"] and p.standby_uplinks is None  # key absent in this capture
    assert p.expected_teps == 1


def test_uplink_profile_single_mtu_1600_lag_src_mac():
    (p,), _ = n.parse_uplink_profiles(fixture_text(PROF_ONE))
    assert (p.mtu, p.transport_vlan, p.overlay_encap, p.teaming_policy) == (1600, 0, "GENEVE", "LOADBALANCE_SRC_MAC")
    assert p.lags == [("lag-1", 2)] and p.active_uplinks == ["uplink-1"] and p.expected_teps == 1


def test_global_config_partial_list_physical_uplink_mtu_1600():
    cfg, notes = n.parse_switching_global_config(fixture_text(GLOBAL_PARTIAL))
    assert cfg.physical_uplink_mtu == 1600 and cfg.remote_tunnel_physical_mtu == 1500
    assert cfg.uplink_mtu_threshold is None  # not in the visible part: the default 9000 is not assumed
    assert any("not complete JSON" in x for x in notes)


def test_transport_zones():
    zones, _ = n.parse_transport_zones(fixture_text(TZ_NSX30))
    by_id = {z.id: z for z in zones}
    assert len(zones) == 6
    assert (by_id["de4c4833-609a-4ca3-9981-c318358a5ef5"].display_name,
            by_id["de4c4833-609a-4ca3-9981-c318358a5ef5"].transport_type) == ("tz-overlay", "OVERLAY")
    zones, _ = n.parse_transport_zones(fixture_text(TZ_SALT))
    assert [z.display_name for z in zones] == ["Check-New-Transport-Zone-edit-edit-test2", "Transport-Zone-101"]


def test_node_version_prefers_product_version():
    v, _ = n.parse_node_version(fixture_text(VERSION))
    assert v.version == "3.1.3.3.0.18844959" and v.node_version == "3.1.3.3.0.18844962"
    assert v.numbers[:4] == (3, 1, 3, 3)


# --- inventory → facts ----------------------------------------------------------------------------------

def _facts(hf):
    sw, vmk, host = {}, {}, {}
    for rf in hf.responses:
        for k, d in rf.result.switches.items():
            for f, fact in d.items():
                sw.setdefault(k, {}).setdefault(f, fact.value)
        for k, d in rf.result.vmknics.items():
            for f, fact in d.items():
                vmk.setdefault(k, {}).setdefault(f, fact.value)
        for f, fact in rf.result.host.items():
            host.setdefault(f, fact.value)
    return sw, vmk, host


def test_nvds_mtu_from_uplink_profile_and_uplinks_from_pnics():
    inv = n.build_inventory("nsx", transport_nodes=fixture_text(TN_NSX22), uplink_profiles=fixture_text(PROF_LIST),
                            switching_config=fixture_text(GLOBAL_PARTIAL))
    (hf,) = n.host_results(inv)  # tn-edge01 left out
    assert hf.name == "tn-esx01" and hf.kind == "esxi"
    sw, _, host = _facts(hf)
    # profile mtu, not global 1600; its transport zones were not read: whether it carries the overlay is unknown
    assert sw["hs-fabric"] == {"kind": "opaque", "uplinks": ["vmnic1"], "mtu": 1700}
    assert "ens_mode" not in sw["hs-fabric"]  # 2.x: mode on the transport zone, not read
    assert host == {"kind": "esxi"}
    assert [rf.path for rf in hf.responses] == ["/api/v1/transport-nodes/66148b6a-3ad3-41cb-9c26-7e72e856ddb2",
                                                "/api/v1/host-switch-profiles/6f3c6c31-550f-4fed-be38-414c38b1f945"]
    mtu_fact = hf.responses[1].result.switches["hs-fabric"]["mtu"]
    assert mtu_fact.line.startswith("mtu: 1700 (uplink profile pf-uplink)")
    assert hf.responses[1].result.records[0]["transport_vlan"] == 12


def test_ens_interrupt_mode_and_unresolved_profile():
    inv = n.build_inventory("nsx", transport_nodes=fixture_text(TN_ENS_INTR), version=fixture_text(VERSION),
                            transport_zones=fixture_text(TZ_SALT))
    (hf,) = n.host_results(inv)
    sw, _, host = _facts(hf)
    assert sw["nvds1"] == {"kind": "opaque", "ens_mode": "ens_interrupt", "nsx_host_switch": True}
    assert host == {"kind": "esxi", "product_version": "7.0.0"}
    assert any("uplink profile fb38b6c9-379b-42cf-b78c-13fc05da2e0d was not read" in p for p in hf.problems)
    rec = hf.responses[0].result.records[0]
    assert rec["transport_zones"] == [{"id": "b68c4c9e-fc51-413d-81fd-aadd28f8526a", "name": "Transport-Zone-101",
                                       "transport_type": "OVERLAY"}]


def test_vds_standard_mode_needs_version_and_mtu_is_vcenters():
    with_version = n.build_inventory("nsx", transport_nodes=fixture_text(TN_VDS_SALT), version=fixture_text(VERSION))
    sw, _, _ = _facts(n.host_results(with_version)[0])
    assert sw["dvs1"] == {"kind": "distributed", "ens_mode": "standard"}  # NSX 3.1: STANDARD is what runs (zones not read)
    without = n.build_inventory("nsx", transport_nodes=fixture_text(TN_VDS_SALT))
    hf = n.host_results(without)[0]
    sw, _, _ = _facts(hf)
    assert sw["dvs1"] == {"kind": "distributed"}  # 4.2+ may realize STANDARD as EDP: unknown version → unset
    assert any("version is unknown" in x for x in hf.responses[0].result.notes)


def test_vds_profile_mtu_is_only_noted():
    # the nsx30 hosts' profile is not among the fixtures; the single profile fixture stands in under its own id
    inv = n.build_inventory("nsx", transport_nodes=fixture_text(TN_NSX30), uplink_profiles=fixture_text(PROF_ONE))
    inv.transport_nodes[0].host_switches[0].profile_ids["UplinkHostSwitchProfile"] = "d3804574-de10-4b2f-b92b-a5a29def128b"
    hf = n.host_results(inv)[0]
    sw, _, _ = _facts(hf)
    assert "mtu" not in sw["fabric"]
    prof_r = hf.responses[1].result
    assert any("owned by vCenter" in x and "1600 bytes" in x for x in prof_r.notes)


def test_effective_mtu_rules():
    prof, _ = n.parse_uplink_profiles(fixture_text(PROF_LIST))
    glob, _ = n.parse_switching_global_config(fixture_text(GLOBAL_PARTIAL))
    assert n.effective_mtu(prof[0], glob) == (1700, "profile")
    no_mtu = n.UplinkProfile(id="x", mtu=None)
    assert n.effective_mtu(no_mtu, glob) == (1600, "global")
    assert n.effective_mtu(no_mtu, None)[0] is None
    assert n.effective_mtu(None, glob)[0] is None  # profile not read: the global value is not assumed


def test_state_of_another_node_is_dropped():
    inv = n.build_inventory("nsx", transport_nodes=fixture_text(TN_NSX22),
                            states={"66148b6a-3ad3-41cb-9c26-7e72e856ddb2": fixture_text(STATE_OK)})
    assert inv.states == {}
    assert any("describes transport node 28a72d62" in x for x in inv.notes)


# --- robustness --------------------------------------------------------------------------------------------

def test_garbage_and_wrong_shapes():
    for fn in (n.parse_transport_nodes, n.parse_uplink_profiles, n.parse_transport_zones, n.parse_host_switch_spec):
        out, notes = fn("<html>502 Bad Gateway</html>")
        assert out == [] and notes
    assert n.parse_node_version("")[0] is None
    assert n.parse_switching_global_config("[1, 2")[0] is None
    assert n.parse_transport_node_state({"results": "x"})[0] is None


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_responses_never_raise(name, data):
    text = fixture_text(name)
    cut = data.draw(st.integers(0, len(text)))
    i = data.draw(st.integers(0, max(len(text) - 1, 0)))
    mutated = data.draw(st.sampled_from([text[:cut], text[:i] + data.draw(st.characters()) + text[i + 1:],
                                         text.replace('"', "", 1), text.replace("{", "[", 1)]))
    for fn in (n.parse_transport_nodes, n.parse_transport_node_state, n.parse_uplink_profiles,
               n.parse_transport_zones, n.parse_switching_global_config, n.parse_node_version,
               n.parse_host_switch_spec):
        fn(mutated)
    inv = n.build_inventory("x", transport_nodes=mutated, uplink_profiles=mutated, switching_config=mutated,
                            states={"a": mutated}, version=mutated, transport_zones=mutated)
    n.host_results(inv)
