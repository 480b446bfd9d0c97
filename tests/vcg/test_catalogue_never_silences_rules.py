"""A driver-catalogue value (lower trust than a reading) never makes a rule stop firing that
fires on the facts read on the host, and the i40en Geneve Rx filter fact holds only for the XL710 its source shows."""
from __future__ import annotations

import copy

import pytest

from nicadvisor.model import Evidence, Host, PhysicalNic, Switch, VmkernelNic
from nicadvisor.model.capabilities import PASS, capability_matrix
from nicadvisor.rules_engine import evaluate, load_rules
from nicadvisor.services.audit import AuditRequest, run_audit
from nicadvisor.vcg.driver_catalogue import load_catalogue
from nicadvisor.judgement import fill_from_driver_catalogue
from nicadvisor.vcg.knowledge import catalogue_conflicts, catalogue_facts

VSISH = "vsish -e get /net/pNics/vmnic5/rxqueues/info"


def _i40en_on_67ga(vid: str = "8086", did: str = "1583", **read) -> Host:
    """i40en 1.3.1 (the ESXi 6.7 GA inbox driver nsx-t-performance-on-intel.txt §1.11 names) on ESXi 6.7 GA, uplink
    of the TEP switch; ``read`` are facts read on the host (vsish)."""
    nic = PhysicalNic(name="vmnic5", vid=vid, did=did, driver="i40en", driver_version="1.3.1-18vmw.670.0.0.8169922",
                      is_physical=True, mtu=9000, link_up=True, link_speed_mbps=40000)
    for name, value in read.items():
        nic.set_fact(name, value, Evidence(VSISH, f"{name}: {value}", "host"))
    return Host(name="esx67", kind="esxi", product_version="6.7.0", build="8169922", pnics=[nic],
                switches=[Switch(name="vds", uplinks=["vmnic5"], mtu=9000)],
                vmknics=[VmkernelNic(name="vmk10", is_tep=True, switch="vds", mtu=9000)])


def _rules_hit(host: Host) -> set[tuple[str, str]]:
    return {(f.rule_id, f.severity.value) for f in evaluate(load_rules(), [host])}


def test_a_catalogue_value_never_silences_no_rss():
    host = _i40en_on_67ga(rss=False)
    before = _rules_hit(host)
    assert ("no-rss", "warning") in before
    filled = fill_from_driver_catalogue(host)
    assert "vmnic5.geneve_rx_filter" not in filled
    assert host.pnic("vmnic5").geneve_rx_filter is None          # unknown, as read
    assert before <= _rules_hit(host)                             # no finding lost or lowered
    assert ("no-rss", "warning") in _rules_hit(host)


def test_a_catalogue_value_that_silences_nothing_is_filled_and_marked():
    host = _i40en_on_67ga()                                       # nothing read: no rule fires on Rx filters
    assert fill_from_driver_catalogue(host) == ["vmnic5.geneve_rx_filter"]
    (row,) = capability_matrix(host, evaluate(load_rules(), [host]))
    assert row.cells["rx_filter"].status == PASS and "from the driver catalogue" in row.cells["rx_filter"].text


@pytest.mark.parametrize("did, name", [("37d1", "X722"), ("1572", "X710"), ("158b", "XXV710")])
def test_the_i40en_rx_filter_fact_is_scoped_to_the_xl710(did, name):
    host = _i40en_on_67ga(did=did)
    fact = catalogue_facts(host, host.pnic("vmnic5"))["geneve_rx_filter"]
    assert not fact.decided and fact.value is None and "XL710" in fact.reason, name
    assert fill_from_driver_catalogue(host) == []
    # a reading on another device is no "conflict" with a statement about the XL710
    read = _i40en_on_67ga(did=did, geneve_rx_filter=False)
    assert catalogue_conflicts([read]) == []


def test_unknown_pci_ids_decide_nothing():
    host = _i40en_on_67ga()
    nic = host.pnic("vmnic5")
    nic.vid = nic.did = None
    assert not catalogue_facts(host, nic)["geneve_rx_filter"].decided


def test_every_device_scope_names_a_catalogue_fact():
    from nicadvisor.vcg.knowledge import DEVICE_SCOPE

    cat = load_catalogue()
    for (os_name, driver, capability), (ids, _what) in DEVICE_SCOPE.items():
        assert (os_name, driver) in cat.drivers(os_name)
        assert capability in cat.lookup(driver, None, os_name, esxi_version="9.0"), (driver, capability)
        assert ids and all(len(v) == 4 and len(d) == 4 for v, d in ids)


def test_demo_x722_rx_filter_is_not_passed_on_a_document_about_the_xl710():
    audit = run_audit(AuditRequest(demo=True))
    host = next(h for h in audit.hosts if h.name == "esxi-h0062-x722-cx4lx")
    cells = {r.pnic: r.cells["rx_filter"] for r in capability_matrix(host, audit.findings)}
    for name in ("vmnic0", "vmnic1"):                             # Intel X722 (8086:37d1) on i40en
        assert cells[name].status != PASS and "from the driver catalogue" not in cells[name].text


def test_a_catalogue_fill_keeps_every_demo_finding():
    audit = run_audit(AuditRequest(demo=True))
    for host in audit.hosts:
        bare = copy.deepcopy(host)
        for p in bare.pnics:                                      # drop what the catalogue filled
            for field, ev in list(p.evidence.items()):
                if ev.command == "from the driver catalogue":
                    setattr(p, field, None)
                    del p.evidence[field]
        assert _rules_hit(bare) <= _rules_hit(host), host.name
