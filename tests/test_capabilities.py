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
    return Finding(rule_id, "t", severity, "h", "h/vmnic0", "m", "r", category=category)


def test_driver_cell_needs_a_compatibility_database_entry():
    (row,) = capability_matrix(_host(), [])
    assert row.cells["driver"].status == UNKNOWN and "not in the compatibility database" in row.cells["driver"].text
    (row,) = capability_matrix(_host(), [_finding("vcg-entries", Severity.INFO, "driver")])
    assert row.cells["driver"].status == PASS


def test_cells_follow_findings_and_facts():
    (row,) = capability_matrix(_host(), [_finding("pnic-mtu-below-1600", Severity.ERROR, "mtu")])
    assert row.cells["mtu"].status == FAIL and row.cells["mtu"].evidence == (EV,)
    assert row.cells["geneve_offload"].status == UNKNOWN and row.cells["geneve_offload"].text == "not reported"
    assert set(row.cells) == {c.key for c in CAPABILITIES}
