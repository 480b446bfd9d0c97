"""rules/nsx.yaml: loads under the shipped schema, and its rules fire on NSX facts joined with pNIC facts.

The hosts here join outputs of different real sources (an NSX Manager example response and ESXi
captures from another lab) by pNIC name, to exercise the rules; the values are the captures' own.
"""
from __future__ import annotations


from capturetools import SHARED, capture_path
from nsx_responder import fixture_text

from nicadvisor.model.references import PAGES
from nicadvisor.parsers.assemble import HostInputs, assemble_host
from nicadvisor.parsers.capture_file import Capture
from nicadvisor.collect.sources import read_capture
from nicadvisor.paths import rules_dir
from nicadvisor.parsers.api import nsx as n
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.rules_engine.context import pnic_context
from nicadvisor.rules_engine.loader import load_rule_file

REFERENCES = SHARED / "reference"


def _rules():
    return {r.id: r for r in load_rule_file(rules_dir() / "nsx.yaml")}


def test_nsx_rules_load_and_cite_shared_references():
    rules = _rules()
    assert set(rules) == {"nsx-ens-mode-pnic-not-ens-capable", "nsx-ens-interrupt-pnic-not-interrupt-capable",
                          "nsx-ens-mode-not-realized", "switch-mtu-above-pnic-mtu"}
    assert {r.category for r in rules.values()} == {"ens", "mtu"}
    for r in rules.values():
        for ref in r.references:
            if ref.startswith("https://"):  # a vendor page: its title and version are in model/references.py
                assert ref in PAGES, f"{r.id}: {ref} is not in the reference catalogue"
                continue
            doc, _, section = ref.partition(" §")
            text = (REFERENCES / doc).read_text(encoding="utf-8")
            assert section.split(" ", 1)[-1] in text, f"{r.id}: section {section!r} not found in {doc}"
    assert {r.id for r in load_rules()} >= set(rules)  # ids unique among all shipped rule files


def _nsx22_host(*capture_names: str):
    inv = n.build_inventory("nsx", transport_nodes=fixture_text("GET_api_v1_transport-nodes_list_nsx22_nvds_apnex.json"),
                            uplink_profiles=fixture_text("GET_api_v1_host-switch-profiles_list_nsx22_mtu1700_vlan12_apnex.json"))
    (hf,) = n.host_results(inv)
    group = HostInputs(name=hf.name, kind="esxi", captures=[read_capture(capture_path(c)) for c in capture_names])
    group.parsed = [(Capture(source=f"nsx://nsx{rf.path}", command=rf.command, text=rf.text), rf.result)
                    for rf in hf.responses]
    host, _problems, _parsed = assemble_host(group)
    return host


def test_uplink_profile_mtu_above_pnic_mtu_fires():
    # NSX: hs-fabric uplink vmnic1, uplink profile pf-uplink mtu 1700; capture: vmnic1 MTU 1500
    host = _nsx22_host("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt")
    vmnic1 = host.pnic("vmnic1")
    assert vmnic1.mtu == 1500 and host.switch_of("vmnic1").mtu == 1700
    hits = [f for f in evaluate(load_rules(), [host]) if f.rule_id == "switch-mtu-above-pnic-mtu"]
    assert [f.target for f in hits] == ["tn-esx01/vmnic1"]
    f = hits[0]
    assert "1500" in f.message and "1700" in f.message and "hs-fabric" in f.message
    assert {e.line.split(" (")[0] for e in f.evidence} >= {"mtu: 1700"}


def test_ens_rules_with_the_switch_ens_mode_context():
    # esxcfg-nics -e capture: vmnic1 igbn not ENS capable; vmnic7 i40en ENS capable, INTR capable;
    # vmnic4 ixgben ENS capable, not INTR capable, ENS Driven.
    host = _nsx22_host("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt")
    rules = _rules()

    def ctx(name, mode):
        c = pnic_context(host, host.pnic(name))
        c["switch_ens_mode"] = mode  # the context addition requested for context.py
        return c

    not_capable = rules["nsx-ens-mode-pnic-not-ens-capable"].compiled
    assert not_capable.matches(ctx("vmnic1", "ens_interrupt")) and not_capable.matches(ctx("vmnic1", "ens"))
    assert not not_capable.matches(ctx("vmnic1", "standard")) and not not_capable.matches(ctx("vmnic1", None))
    assert not not_capable.matches(ctx("vmnic7", "ens"))
    no_intr = rules["nsx-ens-interrupt-pnic-not-interrupt-capable"].compiled
    assert no_intr.matches(ctx("vmnic4", "ens_interrupt")) and not no_intr.matches(ctx("vmnic7", "ens_interrupt"))
    not_realized = rules["nsx-ens-mode-not-realized"].compiled
    assert host.pnic("vmnic5").ens_mode == "standard" and not_realized.matches(ctx("vmnic5", "ens"))
    assert not not_realized.matches(ctx("vmnic5", "standard"))
    # without the context addition the ENS rules stay silent (switch_ens_mode unknown)
    assert not [f for f in evaluate(load_rules(), [host]) if f.rule_id.startswith("nsx-ens")]
