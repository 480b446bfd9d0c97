"""The capability matrix: a cell passes only on facts that prove something."""
from __future__ import annotations

from nicadvisor.model import Evidence, Finding, Host, PhysicalNic, Severity
from nicadvisor.model.capabilities import CAPABILITIES, FAIL, PASS, UNKNOWN, capability_matrix

EV = Evidence("esxcli network nic list", "vmnic0  0000:18:00.0  ixgben ...", "test")


def _host():
    p = PhysicalNic(name="vmnic0")
    p.set_fact("driver", "ixgben", EV)
    p.set_fact("mtu", 1500, EV)
    return Host(name="h", kind="esxi", pnics=[p])


def _finding(rule_id, severity, category):
    return Finding(rule_id=rule_id,
                   title="t",
                   severity=severity,
                   host="h",
                   target="h/vmnic0",
                   message="m",
                   recommendation="r",
                   category=category)


def test_driver_cell_needs_a_listing_that_confirms_the_driver():
    # the driver version was not read: that is the reason, not "not in the compatibility database"
    (row,) = capability_matrix(_host(), [])
    cell = row.cells["driver"]
    assert cell.status == UNKNOWN and "not in the compatibility database" not in cell.text + cell.reason
    assert "driver version of vmnic0 was not read" in cell.reason and "esxcli network nic get -n vmnic0" in cell.reason
    # a database entry for the device confirms nothing by itself
    (row,) = capability_matrix(_host(), [_finding("vcg-entries", Severity.INFO, "driver")])
    assert row.cells["driver"].status == UNKNOWN
    (row,) = capability_matrix(_host(), [_finding("vcg-driver-meets-minimum", Severity.INFO, "driver")])
    assert row.cells["driver"].status == PASS
    # version read, nothing lists the device: then it is not in the database
    host = _host()
    host.pnics[0].set_fact("driver_version", "1.8.7", EV)
    (row,) = capability_matrix(host, [])
    assert row.cells["driver"].status == UNKNOWN and "not in the compatibility database" in row.cells["driver"].text


def test_cells_follow_findings_and_facts():
    (row,) = capability_matrix(_host(), [_finding("pnic-mtu-below-1600", Severity.ERROR, "mtu")])
    assert row.cells["mtu"].status == FAIL and row.cells["mtu"].evidence == (EV,)
    assert row.cells["geneve_offload"].status == UNKNOWN and row.cells["geneve_offload"].text == "not reported"
    assert set(row.cells) == {c.key for c in CAPABILITIES}
