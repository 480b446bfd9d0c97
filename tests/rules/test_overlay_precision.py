"""Rules about overlay traffic apply in full only where the overlay runs (issue 8 §4).

A pNIC that uplinks the switch of a TEP (or an NSX host switch) gets the full severity; one whose role is not known
yet (no TEP: before the NSX rollout) gets it one step lower, worded "If <pNIC> will carry overlay traffic"; one that
carries no overlay gets none. The verdict still never passes a host whose every candidate pNIC would fail.
"""
from __future__ import annotations

from nicadvisor.model import Evidence, Host, PhysicalNic, Severity, Switch, VmkernelNic
from nicadvisor.model.entities import OVERLAY_CARRIES, OVERLAY_NONE, OVERLAY_POSSIBLE
from nicadvisor.model.verdict import NOT_RATED, NOT_READY, READY, host_verdict
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import AuditRequest, run_audit
from nicadvisor.judgement import judge

from capturetools import fully_read

OVERLAY_RULES = {r.id for r in load_rules() if r.overlay}


def _ev(line: str) -> Evidence:
    return Evidence("esxcfg-nics -l", line, "test")


def _pnic(name: str, mtu: int, speed: int = 25000) -> PhysicalNic:
    p = PhysicalNic(name=name)
    for k, v in dict(mtu=mtu, link_up=True, link_speed_mbps=speed, driver="icen", is_physical=True).items():
        p.set_fact(k, v, _ev(f"{name} {k} {v}"))
    return p


def _host(*, tep_switch: str | None, mtus: dict[str, int], on: dict[str, str], nsx: set[str] = frozenset()) -> Host:
    h = Host(name="esx1", kind="esxi", pnics=[_pnic(n, m) for n, m in mtus.items()])
    for sw in sorted(set(on.values())):
        uplinks = [n for n, s in on.items() if s == sw]  # an ESXi uplink runs at its switch's MTU
        h.switches.append(Switch(name=sw, kind="distributed", mtu=max(mtus[n] for n in uplinks), uplinks=uplinks,
                                 nsx_host_switch=sw in nsx or None))
    if tep_switch:
        h.vmknics.append(VmkernelNic(name="vmk10", is_tep=True, switch=tep_switch, mtu=9000))
    return h


def _by_target(findings, rule_id):
    return {f.target.split("/")[-1]: f for f in findings if f.rule_id == rule_id}


def test_the_overlay_rules_are_the_overlay_ones():
    assert {"pnic-mtu-below-1600", "linux-pnic-mtu-below-1600", "no-geneve-offload", "no-rss", "link-below-10g",
            "switch-mtu-below-1600"} <= OVERLAY_RULES
    # not about overlay: a legacy driver or a downgraded PCIe link hurts every port
    assert not {"legacy-vmklinux-driver", "pcie-link-downgraded", "uplink-link-down"} & OVERLAY_RULES


def test_full_severity_on_the_tep_uplinks_none_on_the_management_switch_or_a_free_pnic():
    h = _host(tep_switch="vds-overlay", mtus={"vmnic0": 1500, "vmnic1": 1500, "vmnic2": 1500, "vmnic4": 1500},
              on={"vmnic0": "vSwitch0", "vmnic1": "vSwitch0", "vmnic2": "vds-overlay"})
    roles = {p.name: h.overlay_role(p) for p in h.pnics}
    assert roles == {"vmnic0": OVERLAY_NONE, "vmnic1": OVERLAY_NONE, "vmnic2": OVERLAY_CARRIES, "vmnic4": OVERLAY_NONE}
    mtu = _by_target(evaluate(load_rules(), [h]), "pnic-mtu-below-1600")
    assert set(mtu) == {"vmnic2"}
    assert mtu["vmnic2"].severity is Severity.ERROR and mtu["vmnic2"].full_severity is None
    assert mtu["vmnic2"].overlay_role == OVERLAY_CARRIES and not mtu["vmnic2"].message.startswith("If ")


def test_before_the_rollout_every_switch_uplink_may_carry_it_lowered_and_worded_so():
    h = _host(tep_switch=None, mtus={"vmnic0": 1500, "vmnic2": 9000, "vmnic4": 1500},
              on={"vmnic0": "vSwitch0", "vmnic2": "vds-new"})
    assert [h.overlay_role(p) for p in h.pnics] == [OVERLAY_POSSIBLE, OVERLAY_POSSIBLE, OVERLAY_NONE]
    findings = evaluate(load_rules(), [h])
    mtu = _by_target(findings, "pnic-mtu-below-1600")
    assert set(mtu) == {"vmnic0"}  # vmnic4 is on no switch: no overlay finding at all
    f = mtu["vmnic0"]
    assert (f.severity, f.full_severity, f.overlay_role) == (Severity.WARNING, Severity.ERROR, OVERLAY_POSSIBLE)
    assert f.message.startswith("If vmnic0 will carry overlay traffic") and f.conditional
    # the switch rule follows the same precision
    sw = _by_target(findings, "switch-mtu-below-1600")
    assert sw["vSwitch0"].severity is Severity.WARNING and sw["vSwitch0"].full_severity is Severity.ERROR
    # one fit candidate: the decisive checks are made on it alone, never on the unfit one
    v = host_verdict(h, findings)
    assert v.status == NOT_RATED and {m.pnic for m in v.missing} == {"", "vmnic2"}
    # with every decisive check of vmnic2 read: READY, and the reason says where the overlay may go and where not
    fully_read(h, "vmnic2")
    v = host_verdict(h, judge([h], guide=None))
    assert v.status == READY and "carry the overlay on vmnic2, not on vmnic0" in v.reason


def test_no_fit_candidate_is_not_ready_although_every_finding_was_lowered():
    h = _host(tep_switch=None, mtus={"vmnic0": 1500, "vmnic1": 1500}, on={"vmnic0": "vSwitch0", "vmnic1": "vSwitch0"})
    findings = judge([h], guide=None)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    assert [f.rule_id for f in errors] == ["overlay-no-fit-pnic"]  # the rules' findings were all lowered
    assert "vmnic0: Switch MTU below 1600, pNIC MTU below 1600;" in errors[0].message and "vmnic1:" in errors[0].message
    v = host_verdict(h, findings)
    # one setting, counted once (issue 24 §2): the switch's MTU, a change the rollout makes, not a blocker
    assert v.status == NOT_READY and v.reason == "1 configuration change before the rollout (MTU 1500 → ≥ 1600 on vSwitch0)"


def test_an_nsx_host_switch_carries_the_overlay_without_a_tep_read():
    h = _host(tep_switch=None, mtus={"vmnic0": 1500, "vmnic2": 1500}, on={"vmnic0": "vSwitch0", "vmnic2": "nvds"},
              nsx={"nvds"})
    assert [h.overlay_role(p) for p in h.pnics] == [OVERLAY_NONE, OVERLAY_CARRIES]
    mtu = _by_target(evaluate(load_rules(), [h]), "pnic-mtu-below-1600")
    assert set(mtu) == {"vmnic2"} and mtu["vmnic2"].severity is Severity.ERROR


def test_demo_lab_no_overlay_error_on_a_pnic_that_carries_none():
    audit = run_audit(AuditRequest(demo=True))
    hosts = {h.name: h for h in audit.hosts}
    overlay = [f for f in audit.findings if f.rule_id in OVERLAY_RULES]
    assert overlay
    for f in overlay:
        host = hosts[f.host]
        name = f.target.split("/")[-1]
        pnic = host.pnic(name)
        if pnic is not None:
            role = host.overlay_role(pnic)
            assert role != OVERLAY_NONE, f.target
            assert host.switch_of(name) is not None or not any(s.uplinks is not None for s in host.switches)
        assert (f.full_severity is not None) == (f.overlay_role == OVERLAY_POSSIBLE), f.target
        if f.overlay_role == OVERLAY_POSSIBLE:
            assert f.severity.rank == f.full_severity.rank + 1 or f.full_severity is Severity.INFO
    # the 1 Gbit/s management ports of the demo lab are no longer overlay errors
    assert not [f for f in overlay if f.rule_id == "pnic-mtu-below-1600" and f.severity is Severity.ERROR
                and hosts[f.host].overlay_role(hosts[f.host].pnic(f.target.split("/")[-1])) != OVERLAY_CARRIES]


def test_one_tep_on_two_overlay_uplinks_suggests_dual_tep():
    h = _host(tep_switch="vds", mtus={"vmnic2": 9000, "vmnic3": 9000}, on={"vmnic2": "vds", "vmnic3": "vds"})
    (f,) = [f for f in evaluate(load_rules(), [h]) if f.rule_id == "single-tep-with-spare-uplinks"]
    assert f.severity is Severity.INFO and "1 TEP vmknic for 2 overlay uplinks" in f.message
    h.vmknics.append(VmkernelNic(name="vmk11", is_tep=True, switch="vds", mtu=9000))
    assert not [f for f in evaluate(load_rules(), [h]) if f.rule_id == "single-tep-with-spare-uplinks"]
    before_rollout = _host(tep_switch=None, mtus={"vmnic2": 9000, "vmnic3": 9000}, on={"vmnic2": "vds", "vmnic3": "vds"})
    assert not [f for f in evaluate(load_rules(), [before_rollout]) if f.rule_id == "single-tep-with-spare-uplinks"]


def test_enhanced_datapath_mode_is_flagged_as_nfv_only():
    h = _host(tep_switch="nvds", mtus={"vmnic2": 9000}, on={"vmnic2": "nvds"}, nsx={"nvds"})
    h.switches[0].ens_mode = "ens_interrupt"
    (f,) = [f for f in evaluate(load_rules(), [h]) if f.rule_id == "ens-mode-for-general-workloads"]
    assert f.severity is Severity.INFO and f.rollback.endswith("back to ens_interrupt in the NSX transport node profile.")
    h.switches[0].ens_mode = "standard"
    assert not [f for f in evaluate(load_rules(), [h]) if f.rule_id == "ens-mode-for-general-workloads"]
