"""Issue "Verdicts an admin can trust" §2: a capability cell shows every finding on the pNIC's path (its switch,
the TEP vmknics on that switch; a failed path test only through the vmknic it names), a "no" never passes, and an unknown cell says why."""
from __future__ import annotations

import pytest

from nicadvisor.model import Host, PhysicalNic, Switch, VmkernelNic
from nicadvisor.model.capabilities import (
    CAPABILITIES, FAIL, NOT_JUDGED, PASS, UNKNOWN, WARN, capability_matrix,
)
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import AuditRequest, run_audit


@pytest.fixture(scope="module")
def demo():
    audit = run_audit(AuditRequest(demo=True))
    return audit, {h.name: {r.pnic: r for r in capability_matrix(h, audit.findings)} for h in audit.hosts}


def test_a_vmkping_failure_of_no_known_vmknic_stays_a_host_finding_and_marks_no_pnic(demo):
    """Issue 17 §1: one vmkping -d without -I (the default netstack) that failed locally once marked all six pNICs of
    the nested VCF 9 host "✖ fail", four of them at MTU 9000. It names no TEP, so it marks none of them; and since
    issue 24 §3 it is no error at all: a local MTU error on the default netstack says nothing about the TEP path, so
    the host is not NOT READY on it. Each pNIC's MTU cell says what its own MTU is."""
    audit, rows = demo
    cell = rows["esxi-vcf9-nested"]["vmnic0"].cells["mtu"]  # MTU 9000 itself
    assert cell.text == "mtu 9000"
    assert cell.status == PASS
    assert "mtu-path-test-failed" not in {f.rule_id for f in cell.findings}
    statuses = {r.pnic: r.cells["mtu"].status for r in rows["esxi-vcf9-nested"].values()}
    # no TEP yet: the two at MTU 1500 warn on their own MTU ("if it carries overlay"), nothing fails for the vmkping
    assert statuses == {"vmnic0": PASS, "vmnic1": WARN, "vmnic2": WARN, "vmnic3": PASS, "vmnic4": PASS,
                        "vmnic5": PASS}
    assert {(f.rule_id, f.target) for f in audit.findings if f.host == "esxi-vcf9-nested" and f.category == "mtu"
            and f.rule_id.startswith("mtu-path")} == set()
    assert next(h for h in audit.verdict.hosts if h.host == "esxi-vcf9-nested").status != "not_ready"


def test_switch_and_tep_findings_show_in_the_uplink_mtu_cell(demo):
    _audit, rows = demo
    cell = rows["esxi-sio4-nsxv"]["vmnic1"].cells["mtu"]  # vmnic1 uplinks vDS-C-Transport (1600), TEP vmk2 (1600)
    assert cell.text == "not reported" and cell.status == WARN
    assert {(f.rule_id, f.target) for f in cell.findings} == {
        ("switch-mtu-below-1700", "esxi-sio4-nsxv/vDS-C-Transport"), ("tep-mtu-below-1700", "esxi-sio4-nsxv/vmk2"),
        ("fabric-mtu-for-overlay", "esxi-sio4-nsxv/vDS-C-Transport")}  # the network team's item (issue 24 §3)


def test_a_no_never_passes(demo):
    audit, rows = demo
    cell = rows["esxi-nsx-perf-xl710"]["vmnic5"].cells["rss"]  # RSS off (Geneve Rx filter on): no rule fires
    assert cell.text.startswith("rss no") and cell.status == NOT_JUDGED
    assert "not judged" in cell.reason
    for host in audit.hosts:
        for row in rows[host.name].values():
            pnic = host.pnic(row.pnic)
            for cap in CAPABILITIES:
                if any(getattr(pnic, n) is False for n in cap.negative):
                    assert row.cells[cap.key].status != PASS, (host.name, row.pnic, cap.key)


def _pnic_from_vsish(name: str, rx_filter: bool, rss: bool) -> PhysicalNic:
    # model facts only (no device output): the combination vsish rxqueues/info reports for an old NIC
    return PhysicalNic(name=name, mtu=9000, geneve_rx_filter=rx_filter, rss=rss)


def test_a_finding_that_read_a_no_decides_that_column_too():
    # both pNICs uplink the switch of a TEP: the overlay rules apply in full
    host = Host(name="h", kind="esxi", pnics=[_pnic_from_vsish("vmnic0", False, False),
                                              _pnic_from_vsish("vmnic1", False, True)],
                switches=[Switch(name="vds", uplinks=["vmnic0", "vmnic1"])],
                vmknics=[VmkernelNic(name="vmk10", is_tep=True, switch="vds")])
    findings = evaluate(load_rules(), [host])
    rows = {r.pnic: r for r in capability_matrix(host, findings)}
    both_no = rows["vmnic0"]
    assert both_no.cells["rss"].status == FAIL
    assert both_no.cells["rx_filter"].status == FAIL  # was "✔ pass": the error read geneve_rx_filter == false
    assert "no-rx-filter-no-rss" in {f.rule_id for f in both_no.cells["rx_filter"].findings}
    # the same "no" is never a pass on another pNIC either
    assert rows["vmnic1"].cells["rx_filter"].status == WARN


def test_unknown_cells_say_why_and_how(demo):
    _audit, rows = demo
    driver = rows["linux-igb-mfd"]["enp2s0"].cells["driver"]
    assert driver.status == UNKNOWN and "not in the compatibility database" in driver.text
    assert "none of this column's facts" not in driver.reason  # the facts were read; the database lacks them
    assert "compatibility guide" in driver.reason
    mtu = rows["linux-igb-mfd"]["enp2s0"].cells["mtu"]
    assert mtu.status == UNKNOWN and "cat /sys/class/net/enp2s0/mtu" in mtu.reason
    ens = rows["linux-igb-mfd"]["enp2s0"].cells["ens"]
    assert ens.status == NOT_JUDGED and "ESXi" in ens.reason


def test_vcenter_only_hosts_are_told_how_to_learn_what_the_api_does_not_report():
    pnic = PhysicalNic(name="vmnic2", mtu=9000, evidence={})
    host = Host(name="esx-01", kind="esxi", pnics=[pnic], inputs=["vcenter://vc.lab:443/host-12"])
    cell = capability_matrix(host, [])[0].cells["geneve_offload"]
    assert cell.status == UNKNOWN
    assert "not readable through the vSphere API" in cell.reason and "--esxcli-over-api" in cell.reason


def test_a_cell_passes_only_on_the_values_it_needs_and_a_path_warning_says_what_is_missing(demo):
    """Wizard review: Link "✔ pass" on esxi-pasek-bnx2x/vmnic4 with the link speed never read (the below-10 Gbit/s
    rule could not run), and MTU "▲ warn / not reported" on esxi-sio4-nsxv/vmnic1 without saying that the pNIC's own
    MTU is still to be read."""
    _audit, rows = demo
    link = rows["esxi-pasek-bnx2x"]["vmnic4"].cells["link"]
    assert link.status == UNKNOWN and "link speed mbps not reported" in link.reason
    mtu = rows["esxi-sio4-nsxv"]["vmnic1"].cells["mtu"]
    assert mtu.status == WARN and "vmnic1's own values were not reported — not in the inputs: run esxcfg-nics -l" \
        in mtu.reason
    # a conditional warning (if it carries overlay) keeps a read 1 Gbit/s link from passing
    slow = rows["esxi-elatov-z2mini"]["vmnic0"].cells["link"]
    assert slow.status == WARN and "(if it carries overlay)" in slow.reason
