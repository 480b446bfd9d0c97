"""Overlay precision from NSX: an NSX host switch carries the overlay only when it is in an OVERLAY transport zone or
holds a realized TEP; in VLAN transport zones only it is NSX but carries none; with its zones not read its role stays
unknown ("if it carries overlay", one step lower), never full severity.

The NSX answers are the REAL captures of shared/fixtures/nsx-api (tests/nsx/nsx_responder.py ``fixture_text``). No
capture holds a host switch that is in VLAN transport zones only, so where a test needs one it adds it to a real
transport node in the test, attached to the real VLAN zone of the real transport-zones answer of the same lab (or,
for NSX-T 2.x, to zones whose type is set in the test), as each test's docstring says. pNICs, switch MTUs and uplinks
(vCenter's, not NSX's, for a VDS) and TEP vmknics are set in the tests.
"""
from __future__ import annotations

import copy
import json

import pytest

from nsx_responder import fixture_text

from nicadvisor.parsers.assemble import HostInputs, assemble_host
from nicadvisor.parsers.capture_file import Capture
from nicadvisor.model import Evidence, PhysicalNic, Severity, VmkernelNic
from nicadvisor.model.entities import OVERLAY_CARRIES, OVERLAY_NONE, OVERLAY_POSSIBLE
from nicadvisor.parsers.api import nsx as n
from nicadvisor.rules_engine import evaluate, load_rules

TN_NSX30 = "GET_api_v1_transport-nodes_list_nsx30_vds_STANDARD_apnex.json"
TZ_NSX30 = "GET_api_v1_transport-zones_list_nsx30_apnex.json"
TN_NSX22 = "GET_api_v1_transport-nodes_list_nsx22_nvds_apnex.json"
STATE_OK = "GET_api_v1_transport-nodes_id_state_nsx22_success_apnex.json"
TZ_VLAN = "6059d071-299f-4b4e-a1f4-0c63a270e61d"  # tz-vlan, transport_type VLAN, in the real nsx30 answer
TZ_OVERLAY = "de4c4833-609a-4ca3-9981-c318358a5ef5"  # tz-overlay, transport_type OVERLAY


def _nsx30_with_vlan_switch() -> dict:
    """The real nsx30 transport-nodes answer, esx03.lab given a second VDS host switch ``vds-vlan`` (a copy of its
    real ``fabric``) attached to the real VLAN zone ``tz-vlan`` only: the one part set in the test."""
    tns = json.loads(fixture_text(TN_NSX30))
    esx03 = tns["results"][0]
    assert esx03["display_name"] == "esx03.lab"
    vlan = copy.deepcopy(esx03["host_switch_spec"]["host_switches"][0])
    vlan.update(host_switch_name="vds-vlan", host_switch_id="50 03 00 00 00 00 00 00-00 00 00 00 00 00 00 01",
                transport_zone_endpoints=[{"transport_zone_id": TZ_VLAN, "transport_zone_profile_ids": []}])
    vlan.pop("ip_assignment_spec")
    esx03["host_switch_spec"]["host_switches"].append(vlan)
    tns["results"] = [esx03]
    return tns


def _switch_facts(hf: n.HostFacts) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for rf in hf.responses:
        for name, facts in rf.result.switches.items():
            for k, fact in facts.items():
                out.setdefault(name, {}).setdefault(k, fact)
    return out


def _host(hf: n.HostFacts):
    group = HostInputs(name=hf.name, kind="esxi")
    group.parsed = [(Capture(source=f"nsx://nsx{rf.path}", command=rf.command, text=rf.text), rf.result)
                    for rf in hf.responses]
    host, _problems, _parsed = assemble_host(group)
    return host


def _wire(host, pnics: dict[str, tuple[str, int]], tep_on: str | None) -> None:
    """pNICs (name → (switch, MTU)) on the host's NSX switches, each switch at its pNICs' MTU (vCenter's facts, set
    here), and a TEP vmknic on ``tep_on``."""
    ev = Evidence("esxcfg-nics -l", "set in the test", "test")
    for name, (switch, mtu) in pnics.items():
        p = PhysicalNic(name=name)
        for k, v in dict(mtu=mtu, link_up=True, link_speed_mbps=25000, driver="icen", is_physical=True).items():
            p.set_fact(k, v, ev)
        host.pnics.append(p)
    for sw in host.switches:
        ups = [name for name, (s, _) in pnics.items() if s == sw.name]
        sw.set_fact("uplinks", ups, ev)
        sw.set_fact("mtu", max(pnics[u][1] for u in ups), ev)
    if tep_on:
        host.vmknics.append(VmkernelNic(name="vmk10", is_tep=True, switch=tep_on, mtu=9000))


def test_real_overlay_and_vlan_zones_decide_which_host_switch_carries_the_overlay():
    """Real transport zones (nsx30: tz-overlay OVERLAY, tz-vlan VLAN) and the real esx03.lab transport node, whose
    ``fabric`` is in both; the second host switch ``vds-vlan`` in tz-vlan only is added in the test."""
    inv = n.build_inventory("nsx", transport_nodes=_nsx30_with_vlan_switch(), transport_zones=fixture_text(TZ_NSX30))
    (hf,) = n.host_results(inv)
    sw = _switch_facts(hf)
    assert sw["fabric"]["nsx_host_switch"].value is True
    assert "tz-overlay: OVERLAY" in sw["fabric"]["nsx_host_switch"].line
    assert sw["vds-vlan"]["nsx_host_switch"].value is False
    assert "tz-vlan: VLAN" in sw["vds-vlan"]["nsx_host_switch"].line
    assert "VLAN transport zones only" in sw["vds-vlan"]["nsx_host_switch"].line


def test_a_vlan_only_nsx_host_switch_gets_no_overlay_error_beside_the_no_tep_note():
    """The review's case: TEP on the overlay VDS (``fabric``, real zones OVERLAY+VLAN), a second NSX host switch
    ``vds-vlan`` in the real VLAN zone only (added in the test) at MTU 1500. Its uplink gets no
    ``pnic-mtu-below-1600`` error (it carries no Geneve); the switch gets the ``switch-mtu-below-1700-no-tep`` note
    and no overlay MTU finding."""
    inv = n.build_inventory("nsx", transport_nodes=_nsx30_with_vlan_switch(), transport_zones=fixture_text(TZ_NSX30))
    (hf,) = n.host_results(inv)
    host = _host(hf)
    _wire(host, {"vmnic2": ("fabric", 9000), "vmnic4": ("vds-vlan", 1500)}, tep_on="fabric")
    assert host.overlay_role(host.pnic("vmnic4")) == OVERLAY_NONE
    assert host.overlay_role(host.pnic("vmnic2")) == OVERLAY_CARRIES
    findings = evaluate(load_rules(user=False), [host])
    by = {(f.rule_id, f.target.split("/")[-1]): f for f in findings}
    assert ("pnic-mtu-below-1600", "vmnic4") not in by
    assert ("switch-mtu-below-1600", "vds-vlan") not in by
    assert by[("switch-mtu-below-1700-no-tep", "vds-vlan")].severity is Severity.INFO


def test_a_vlan_only_nsx_host_switch_without_a_tep_read_is_not_an_overlay_switch():
    """Same real zones and node (``vds-vlan`` added in the test), no TEP read: ``fabric`` is known to carry the overlay
    from its OVERLAY zone, so its uplink gets the full error; ``vds-vlan`` is not counted as an overlay switch."""
    inv = n.build_inventory("nsx", transport_nodes=_nsx30_with_vlan_switch(), transport_zones=fixture_text(TZ_NSX30))
    (hf,) = n.host_results(inv)
    host = _host(hf)
    _wire(host, {"vmnic2": ("fabric", 1500), "vmnic4": ("vds-vlan", 1500)}, tep_on=None)
    assert host.overlay_switches()[0] == {"fabric"}
    mtu = {f.target.split("/")[-1]: f for f in evaluate(load_rules(user=False), [host])
           if f.rule_id == "pnic-mtu-below-1600"}
    assert mtu["vmnic2"].severity is Severity.ERROR and mtu["vmnic2"].full_severity is None
    assert not (mtu.get("vmnic4") and mtu["vmnic4"].severity is Severity.ERROR)


def test_zones_not_read_leave_the_overlay_role_unknown_never_full_severity():
    """The real nsx30 answer for esx03.lab without the transport-zones answer: NSX names ``fabric`` a host switch but
    whether it carries the overlay is unknown (it could be VLAN only), so an MTU 1500 uplink gets the lowered
    "if it will carry overlay" finding, not the full error."""
    inv = n.build_inventory("nsx", transport_nodes=fixture_text(TN_NSX30))
    hf = n.host_results(inv)[0]
    assert hf.name == "esx03.lab"
    sw = _switch_facts(hf)
    assert "nsx_host_switch" not in sw["fabric"]
    assert any("fabric" in x and "unknown" in x for x in hf.responses[0].result.notes)
    host = _host(hf)
    _wire(host, {"vmnic2": ("fabric", 1500)}, tep_on=None)
    assert host.overlay_role(host.pnic("vmnic2")) == OVERLAY_POSSIBLE
    (f,) = [f for f in evaluate(load_rules(user=False), [host]) if f.rule_id == "pnic-mtu-below-1600"]
    assert (f.severity, f.full_severity) == (Severity.WARNING, Severity.ERROR)
    assert f.message.startswith("If vmnic2 will carry overlay traffic")


def test_a_realized_tep_makes_the_host_switch_an_overlay_switch_without_zones():
    """The real nsx22 transport node (N-VDS ``hs-fabric``) and the real nsx22 ``/state`` answer of the same lab, whose
    ``hs-fabric`` holds TEP vmk10: only its ``transport_node_id`` is set in the test to the node's id (the two answers
    were captured from different nodes). No transport-zones answer: the TEP alone decides."""
    tns = json.loads(fixture_text(TN_NSX22))
    tn_id = next(r["id"] for r in tns["results"] if r["display_name"] == "tn-esx01")
    state = json.loads(fixture_text(STATE_OK))
    state["transport_node_id"] = tn_id
    inv = n.build_inventory("nsx", transport_nodes=tns, states={tn_id: state})
    (hf,) = n.host_results(inv)
    fact = _switch_facts(hf)["hs-fabric"]["nsx_host_switch"]
    assert fact.value is True and "realized TEP" in fact.line and "vmk" in fact.line


def _nsx22_with_zones(types: dict[str, str]) -> n.NsxInventory:
    """The real nsx22 transport node tn-esx01 (N-VDS ``hs-fabric``, its transport zones named on the node as NSX-T 2.x
    does); the transport-zones answer of that lab is not among the captures, so the zones' types are set in the test."""
    tns = json.loads(fixture_text(TN_NSX22))
    ids = next(r for r in tns["results"] if r["display_name"] == "tn-esx01")["transport_zone_endpoints"]
    zones = {"results": [{"id": e["transport_zone_id"], "display_name": f"tz-{i}", "transport_type": t,
                          "host_switch_name": "hs-fabric"} for (i, t), e in zip(types.items(), ids)]}
    return n.build_inventory("nsx", transport_nodes=tns, transport_zones=zones)


def test_an_nvds_in_vlan_zones_only_is_not_flagged_as_overlay_by_nsx():
    """N-VDS ``hs-fabric`` of the real nsx22 node in two zones whose type is set in the test: both VLAN → it carries no
    overlay; one OVERLAY → it does."""
    hf = n.host_results(_nsx22_with_zones({"a": "VLAN", "b": "VLAN"}))[0]
    assert _switch_facts(hf)["hs-fabric"]["nsx_host_switch"].value is False
    hf = n.host_results(_nsx22_with_zones({"a": "VLAN", "b": "OVERLAY"}))[0]
    assert _switch_facts(hf)["hs-fabric"]["nsx_host_switch"].value is True


def test_an_nvds_in_vlan_zones_only_carries_no_overlay():
    """The real nsx22 node (zones' types set in the test, both VLAN), TEP on another switch: the N-VDS's uplink
    carries no overlay, so it gets no overlay MTU error."""
    hf = n.host_results(_nsx22_with_zones({"a": "VLAN", "b": "VLAN"}))[0]
    host = _host(hf)
    _wire(host, {"vmnic1": ("hs-fabric", 1500)}, tep_on=None)
    host.vmknics.append(VmkernelNic(name="vmk10", is_tep=True, switch="vds-overlay", mtu=9000))
    assert host.overlay_role(host.pnic("vmnic1")) == OVERLAY_NONE
