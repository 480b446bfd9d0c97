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


def test_legacy_driver_fix_installs_the_native_driver_and_rolls_back(demo_plan):
    # esxi-pasek-bnx2x/vmnic4 runs bnx2x (QLogic 57810): its native driver is qfle3 (VMware KB 52044)
    f = next(i for i in demo_plan if i.rule_id == "legacy-vmklinux-driver").findings[0]
    assert "esxcli software vib install -d /vmfs/volumes/<datastore>/<qfle3 offline bundle>.zip" in f.change
    assert "esxcli system module set --enabled=true --module=qfle3" in f.change
    assert "esxcli system module set --enabled=false --module=bnx2x" in f.change
    assert f.rollback.startswith("esxcli system module set --enabled=true --module=bnx2x\n")
    assert "esxcli network nic get -n vmnic4" in f.verify


def test_tep_mtu_fix_says_where_the_switch_first_then_nsx_and_undoes_in_reverse(demo_plan):
    # esxi-sio4-nsxv: TEP vmk2 (MTU 1600) runs on the VDS vDS-C-Transport (MTU 1600)
    f = next(i for i in demo_plan if i.rule_id == "tep-mtu-below-1700").findings[0]
    lines = f.change.splitlines()
    vds = next(i for i, ln in enumerate(lines) if ln.startswith("first the switch")
               and ln.endswith("Get-VDSwitch -Name 'vDS-C-Transport' | Set-VDSwitch -Mtu 9000"))
    nsx = next(i for i, ln in enumerate(lines) if ln.startswith("NSX Manager: System > Fabric > Profiles > Uplink "
                                                                  "Profiles >") and ln.endswith("MTU 9000"))
    assert vds < nsx
    back = f.rollback.splitlines()
    assert back[-1].startswith("then the switch") and back[-1].endswith("Set-VDSwitch -Mtu 1600")
    assert next(i for i, ln in enumerate(back) if ln.endswith("MTU 1600") and ln.startswith("NSX Manager")) < len(back) - 1
    assert "vmkping ++netstack=vxlan -I vmk2 -d -s 8972 <remote TEP IP>" in f.verify


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
