"""Every fix is typed as given, with its check and its roll-back (issue 19 §1): each error/warning rule gives the exact
change (ESXi shell, PowerCLI, NSX API or UI path, or "Manual: …" saying why no command does it), how to verify it and
how to undo it, with the host's own names filled in; every vmkping leaves from the TEP vmknic on its netstack."""
from __future__ import annotations

import re

import pytest

from nicadvisor.model import Severity
from nicadvisor.report.remediation import remediation_plan
from nicadvisor.rules_engine import load_rules
from nicadvisor.services.audit import AuditRequest, run_audit

RULES = load_rules(user=False)
ACTIONABLE = [r for r in RULES if r.severity is not Severity.INFO]
#: A vmkping command (not the word in prose: "A vmkping MTU test …").
VMKPING = re.compile(r"vmkping\s+(?=[-+$<])")


@pytest.mark.parametrize("rule", ACTIONABLE, ids=lambda r: r.id)
def test_every_actionable_rule_gives_change_verify_and_rollback(rule):
    assert rule.change and rule.verify and rule.rollback, rule.id


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_every_vmkping_leaves_from_the_tep_on_its_netstack(rule):
    for text in (rule.recommendation, rule.change, rule.verify, rule.rollback):
        for m in VMKPING.finditer(text):
            assert text[m.end():].startswith("++netstack=vxlan -I "), (rule.id, text)


@pytest.fixture(scope="module")
def demo_plan():
    return remediation_plan(run_audit(AuditRequest(demo=True)))


def test_every_demo_plan_item_says_change_verify_and_rollback_with_names_filled(demo_plan):
    assert len(demo_plan) >= 6
    for item in demo_plan:
        for f in item.findings:
            for text in (f.change, f.verify, f.rollback):
                assert text and "${" not in text, (item.rule_id, f.target)
            for text in (f.change, f.verify, f.rollback):
                for m in VMKPING.finditer(text):
                    assert re.match(r"\+\+netstack=\w+ -I (vmk\d+|<TEP vmknic>) -d -s \d+ ", text[m.end():]), text


def test_legacy_driver_fix_on_esxi_60_is_an_esxi_upgrade(demo_plan):
    """esxi-pasek-bnx2x/vmnic4 runs bnx2x 2.713.10.v60.4 (QLogic 57810; ESXi 6.0 by its VIB, but no vmware -vl was
    captured): NSX-T does not support 6.0, so the plan says first that on 6.0 the fix is an ESXi upgrade (6.7 ships
    qfle3 inbox), then the swap for 6.5/6.7 (issue 24 §3). With the release read as 6.0, only the upgrade."""
    from nicadvisor.model import Host, PhysicalNic
    from nicadvisor.rules_engine import evaluate, load_rules

    f = next(i for i in demo_plan if i.rule_id == "legacy-vmklinux-driver").findings[0]
    assert f.change.startswith("The audit read no ESXi release (vmware -vl): on ESXi 6.0 or older do not swap "
                               "drivers, upgrade the host to a release NSX supports (NSX-T does not support "
                               "ESXi 6.0")
    assert "esxcli network nic get -n vmnic4" in f.verify
    host = Host(name="h60", kind="esxi", product_version="6.0.0", pnics=[PhysicalNic(name="vmnic4", driver="bnx2x")])
    g = next(f for f in evaluate(load_rules(user=False), [host]) if f.rule_id == "legacy-vmklinux-driver")
    assert g.change.startswith("Manual: upgrade the host from ESXi 6.0.0 to a release NSX supports")
    assert "esxcli system module set" not in g.change and "qfle3 inbox" in g.change


def test_legacy_driver_fix_on_esxi_67_cites_kb_52044_and_its_rollback_removes_what_it_installed():
    """On ESXi 6.7 the move bnx2x → qfle3 is VMware KB 52044's, with its performance regression said first; the
    roll-back exists only on 6.x and also removes the qfle3 VIB when the change installed it."""
    from nicadvisor.model import Host, PhysicalNic
    from nicadvisor.rules_engine import evaluate, load_rules

    host = Host(name="h67", kind="esxi", product_version="6.7.0",
                pnics=[PhysicalNic(name="vmnic4", driver="bnx2x"), PhysicalNic(name="vmnic5", driver="nx_nic")])
    found = {f.target: f for f in evaluate(load_rules(user=False), [host]) if f.rule_id == "legacy-vmklinux-driver"}
    f = found["h67/vmnic4"]
    assert f.change.startswith('Before you move: VMware KB 52044 "Network I/O performance regression after '
                               'migrating from bnx2x driver to qfle3 driver"')
    assert "esxcli system module set --enabled=true --module=qfle3" in f.change
    assert "esxcli system module set --enabled=false --module=bnx2x" in f.change
    assert f.rollback.startswith("Only on ESXi 6.x (7.0 and later have no vmklinux driver to go back to):\n"
                                 "esxcli system module set --enabled=true --module=bnx2x\n")
    assert "esxcli software vib remove -n qfle3" in f.rollback
    # a family the ESXi 6.7 image has no native driver for: no unfilled placeholder anywhere
    g = found["h67/vmnic5"]
    for text in (g.message, g.recommendation, g.change, g.verify, g.rollback):
        assert "<native driver>" not in text
    assert "the native driver the VMware Compatibility Guide lists for this device" in g.recommendation


def test_an_nsx_v_host_gets_a_v2t_migration_not_nsx_t_uplink_profile_calls(demo_plan):
    """esxi-sio4-nsxv (NSX 6.2 / ESXi 6.0 lab): VTEP vmk2 on the vxlan netstack of the VDS vDS-C-Transport, no
    N-VDS: an NSX-V host (issue 24 §3). Its plan is a V2T migration (switch first), never an NSX-T uplink-profile
    API call, and it says NSX-T does not support ESXi 6.0."""
    f = next(i for i in demo_plan if i.rule_id == "tep-mtu-below-1700").findings[0]
    assert f.change.startswith("Manual: the host looks like an NSX-V host (VTEP vmk2 on the vxlan netstack of the VDS "
                               "vDS-C-Transport")
    assert "V2T" in f.change and "NSX-T does not support ESXi 6.0" in f.change
    assert "Get-VDSwitch -Name 'vDS-C-Transport' | Set-VDSwitch -Mtu 9000" in f.change
    for text in (f.change, f.rollback):
        assert "PATCH /policy/api" not in text and "Uplink Profiles" not in text
    assert "vmkping ++netstack=vxlan -I vmk2 -d -s 8972 <remote TEP IP>" in f.verify


def test_an_nsx_t_tep_rollback_clears_an_unset_profile_mtu_rather_than_setting_one():
    """An NSX-T TEP (ESXi 7.0, vmk10 on a VDS): the change sets the uplink profile's MTU; the roll-back empties the
    field again when it was unset (the global Tunnel Endpoint MTU), and only otherwise sets the old value."""
    from nicadvisor.model import Host, Switch, VmkernelNic
    from nicadvisor.rules_engine import evaluate, load_rules

    host = Host(name="esx7", kind="esxi", product_version="7.0.3",
                switches=[Switch(name="vds-tep", kind="distributed", mtu=1600, uplinks=["vmnic2"])],
                vmknics=[VmkernelNic(name="vmk10", netstack="vxlan", is_tep=True, mtu=1600, switch="vds-tep",
                                     addresses=["10.0.0.10"])])
    f = next(f for f in evaluate(load_rules(user=False), [host]) if f.rule_id == "tep-mtu-below-1700")
    assert "NSX API: PATCH /policy/api/v1/infra/host-switch-profiles/<uplink profile id>" in f.change
    assert "if the MTU field was empty before, empty it again" in f.rollback
    assert 'without "mtu" when it had none, else "mtu": 1600' in f.rollback
    assert f.rollback.splitlines()[-1].endswith("Set-VDSwitch -Mtu 1600")

def test_pnic_mtu_fix_gives_the_switch_command_and_its_undo(demo_plan):
    item = next(i for i in demo_plan if i.rule_id == "pnic-mtu-below-1600")
    for f in item.findings:
        assert "-m 9000" in f.change and ("-m 1500" in f.rollback or "Set-VDSwitch -Mtu 1500" in f.rollback), f.target
    # no switch was read for esxi-elatov-z2mini/vmnic0: it says so and gives both forms with a placeholder
    f = next(f for f in item.findings if f.target == "esxi-elatov-z2mini/vmnic0")
    assert f.change.startswith("Manual: the audit read no switch for this pNIC")
    assert "esxcli network vswitch standard set -v <switch name> -m 9000" in f.change


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_every_page_a_rule_cites_has_its_title_and_version_in_the_catalogue(rule):
    from nicadvisor.model.references import DOCUMENTS, PAGES

    for ref in rule.references:
        if ref.startswith("https://"):
            assert ref in PAGES and PAGES[ref].title and PAGES[ref].version, (rule.id, ref)
        else:
            assert ref.partition(" §")[0] in DOCUMENTS, (rule.id, ref)


def test_a_vds_mtu_change_says_it_reaches_every_member_host_and_the_fabric_is_its_own_item(demo_plan):
    """Set-VDSwitch -Mtu changes the VDS on every member host (issue 24 §3): the change says so; the physical
    fabric (switch ports, routed TEP subnet) is its own plan item, the network team's."""
    f = next(i for i in demo_plan if i.rule_id == "switch-mtu-below-1700").findings[0]
    assert "Set-VDSwitch -Mtu 9000" in f.change
    assert "This changes vDS-C-Transport on every member host, not only this one" in f.change
    fabric = next(i for i in demo_plan if i.rule_id == "fabric-mtu-for-overlay")
    assert fabric.findings[0].change.startswith("Manual (the network team, on the physical switches): MTU 9000")
    assert "routed TEP subnet" in fabric.findings[0].change


def test_ipfix_bidirectional_sampling_is_a_release_feature_not_a_sampling_rate():
    """vds-ipfix-impact-nsxv.txt: bi-directional IPFIX needs ESXi 6.5 U3+/6.7 U2+ with vRNI 5.2, which configures
    it; Broadcom KB 337860: vRNI does not support changing the sampling rate. Neither the advice nor the change
    offers "a sampling rate above 0" as the way out (issue 24 §3)."""
    from nicadvisor.model import Host, Switch
    from nicadvisor.rules_engine import evaluate, load_rules

    host = Host(name="h", kind="esxi", switches=[Switch(name="DSwitch", kind="distributed", ipfix_enabled=True)])
    f = next(f for f in evaluate(load_rules(user=False), [host]) if f.rule_id == "vds-ipfix-enabled")
    for text in (f.recommendation, f.change):
        assert "rate above 0" not in text and "sampling rate above" not in text
    assert "ESXi 6.5 U3+ or 6.7 U2+ with vRNI 5.2" in f.recommendation
    assert "vRNI does not support changing it (Broadcom KB 337860)" in f.recommendation
    assert "https://knowledge.broadcom.com/external/article/337860/faq-ipfix-in-vrealize-network-insight.html" \
        in f.references


def test_a_25g_connectx4_lx_linked_at_10g_is_a_finding():
    """esxi-h0062-x722-cx4lx (real session, ESXi 7.0.3): vmnic3, a ConnectX-4 Lx advertising 25000BaseTwinax/Full,
    links at 10000 Mbit/s: a finding on that pNIC (issue 24 §3), not on the X722 1 GbE port that advertises 1 GbE."""
    from nicadvisor.services.audit import AuditRequest, run_audit

    audit = run_audit(AuditRequest(demo=True))
    found = [f for f in audit.findings if f.rule_id == "link-below-rated-speed"]
    assert [f.target for f in found] == ["esxi-h0062-x722-cx4lx/vmnic3"]
    assert "vmnic3 links at 10 Gbit/s, below the 25000 Mbit/s it advertises" in found[0].message
