"""CSV exports: the checklist (one row per finding) and the pNIC inventory, read back with csv."""
from __future__ import annotations

import csv
import dataclasses

from audit_sample import CX6_PCI, LNKCAP, LSPCI_SRC, NIC_LIST, NIC_LIST_CMD, NIC_LIST_HEADER, VMNIC0, VMNIC2, build_audit
from nicadvisor.model import Finding, PhysicalNic, Severity
from nicadvisor.model.capabilities import CAPABILITIES
from nicadvisor.report import write_csv, write_inventory_csv
from nicadvisor.report.csv_export import CHECKLIST_COLUMNS


def _read(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        return reader.fieldnames, list(reader)


def test_checklist_csv_one_row_per_finding_most_severe_first(audit, tmp_path):
    path = write_csv(audit, tmp_path / "checklist.csv")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")  # BOM: spreadsheets read it as UTF-8
    header, rows = _read(path)
    assert tuple(header) == CHECKLIST_COLUMNS
    assert len(rows) == len(audit.findings) == 5
    assert [r["severity"] for r in rows] == ["error", "warning", "warning", "info", "info"]
    assert all(r["done"] == "" for r in rows)
    first = rows[0]
    assert (first["host"], first["target"], first["rule_id"]) == ("esxi-a", "esxi-a/vmnic2", "MTU-PNIC-001")
    assert first["title"] == "pNIC MTU below the Geneve minimum"
    assert first["recommendation"].startswith("Set the MTU of the switch carrying vmnic2 to 1700 bytes")
    # evidence keeps its source file (relative to the inputs) and the raw multi-line output after "command [source]: "
    assert first["evidence"] == f"{NIC_LIST_CMD} [{NIC_LIST}]: {NIC_LIST_HEADER}\n{VMNIC2}"
    # references by title, version and address, never by the project's internal file name
    assert "nsx-t-performance-on-intel.txt" not in first["references"]
    assert ("VMware NSX-T Data Center: Performance considerations on Intel platforms. white paper, 2020 (NSX-T 3.0)."
            in first["references"]) and "§1.3.2" in first["references"]
    by_rule = {r["rule_id"]: r for r in rows}
    assert by_rule["LINK-SPEED-002"]["evidence"] == f"{NIC_LIST_CMD} [{NIC_LIST}]: {VMNIC0}"
    assert by_rule["PCIE-LINK-003"]["evidence"] == f"lspci -vv [{LSPCI_SRC}]: {LNKCAP}"
    assert by_rule["PCIE-LINK-003"]["target"] == f"lnx-1/{CX6_PCI}"
    assert by_rule["INPUT-COVERAGE"]["evidence"] == "" and by_rule["INPUT-COVERAGE"]["host"] == ""


def test_checklist_csv_neutralises_formulas(tmp_path):
    a = build_audit()
    a.findings = [Finding(rule_id="R1",
                          title="=HYPERLINK(\"http://x\")",
                          severity=Severity.WARNING,
                          host="h",
                          target="h/vmnic0",
                          message="+1 more",
                          recommendation="-cmd|' /C calc'!A0",
                          references=("@ref",))]
    _, rows = _read(write_csv(a, tmp_path / "c.csv"))
    row = rows[0]
    assert row["title"] == "'=HYPERLINK(\"http://x\")"
    assert row["message"] == "'+1 more"
    assert row["recommendation"] == "'-cmd|' /C calc'!A0"
    assert row["references"] == "'@ref."


def test_inventory_csv_one_row_per_pnic_with_facts_and_statuses(audit, tmp_path):
    header, rows = _read(write_inventory_csv(audit, tmp_path / "inventory.csv"))
    fields = [f.name for f in dataclasses.fields(PhysicalNic) if f.name != "evidence"]
    # the model's order, without the fact columns no pNIC of this audit filled
    filled = [f for f in fields if f == "name" or any(getattr(p, f) is not None for h in audit.hosts for p in h.pnics)]
    assert header == ["host"] + filled + [f"{c.key}_status" for c in CAPABILITIES] + ["host_verdict", "switch_port"]
    assert "ens_interrupt_capable" not in header and "legacy_vmklinux" not in header
    assert [(r["host"], r["name"]) for r in rows] == [
        ("esxi-a", "vmnic0"), ("esxi-a", "vmnic2"), ("esxi-a", "vmnic3"), ("esxi-a", "vusb0"),
        ("lnx-1", "enp2s0"), ("lnx-1", CX6_PCI)]
    rows_by = {r["name"]: r for r in rows}
    vmnic2 = rows_by["vmnic2"]
    assert (vmnic2["pci_address"], vmnic2["driver"], vmnic2["link_speed_mbps"], vmnic2["mtu"]) == (
        "0000:5e:00.0", "icen", "100000", "1500")
    assert vmnic2["description"] == "Intel(R) Ethernet Controller E810-C for QSFP"
    assert vmnic2["link_up"] == "true" and vmnic2["is_physical"] == "true"
    assert vmnic2["geneve_offload"] == ""  # unknown: empty, never false/0
    assert vmnic2["mtu_status"] == "fail" and vmnic2["link_status"] == "pass"
    assert rows_by["vmnic3"]["geneve_offload"] == "true" and rows_by["vmnic3"]["geneve_offload_status"] == "pass"
    assert rows_by["vmnic0"]["link_speed_mbps"] == "1000" and rows_by["vmnic0"]["link_status"] == "warn"
    assert rows_by["vusb0"]["is_physical"] == "false"
    assert all(rows_by["vusb0"][f"{c.key}_status"] == "" for c in CAPABILITIES)
    enp = rows_by["enp2s0"]
    assert (enp["driver"], enp["driver_version"], enp["firmware_version"]) == ("igb", "5.4.0-k", "3.16.0")
    assert (enp["tso"], enp["lro"]) == ("true", "false")
    cx = rows_by[CX6_PCI]
    assert (cx["pcie_speed_capable_gts"], cx["pcie_width_capable"], cx["numa_node"]) == ("16.0", "16", "0")
    assert cx["pcie_status"] == "warn"


def test_verdict_csv_says_the_one_verdict_even_when_nothing_was_read(audit, tmp_path):
    """Review: a NOT RATED checklist CSV (no findings) was the same file as a READY one: the verdict file says it."""
    from nicadvisor.model import Audit
    from nicadvisor.report.csv_export import VERDICT_COLUMNS, write_verdict_csv

    header, rows = _read(write_verdict_csv(Audit(), tmp_path / "empty.csv"))
    assert header == list(VERDICT_COLUMNS)
    assert [(r["scope"], r["label"]) for r in rows] == [("audit", "NOT RATED")]
    assert rows[0]["reason"].startswith("no physical NIC could be read")
    header, rows = _read(write_verdict_csv(audit, tmp_path / "v.csv"))
    v = audit.verdict
    assert (rows[0]["scope"], rows[0]["status"], rows[0]["label"]) == ("audit", v.status, v.label)
    assert rows[0]["reason"].splitlines()[0] == v.reason
    assert [(r["host"], r["label"], r["reason"]) for r in rows[1:] if r["scope"] == "host"] == [
        (h.host, h.label, h.reason) for h in v.hosts]
    _, inventory = _read(write_inventory_csv(audit, tmp_path / "i.csv"))
    labels = {h.host: h.label for h in v.hosts}
    assert all(r["host_verdict"] == labels[r["host"]] for r in inventory)


def test_inventory_of_the_demo_names_the_flagged_legacy_driver_and_drops_empty_columns(tmp_path):
    """Issue 19 §1: the demo's inventory had ten columns empty in every row, and legacy_vmklinux empty for the
    bnx2x pNIC the legacy-driver rule flags."""
    from nicadvisor.services.audit import AuditRequest, run_audit

    header, rows = _read(write_inventory_csv(run_audit(AuditRequest(demo=True)), tmp_path / "inv.csv"))
    assert all(any(r[c] for r in rows) for c in header if not c.endswith("_status"))
    bnx2x = next(r for r in rows if r["driver"] == "bnx2x")
    assert (bnx2x["host"], bnx2x["name"], bnx2x["legacy_vmklinux"]) == ("esxi-pasek-bnx2x", "vmnic4", "true")
    assert all(r["legacy_vmklinux"] == "" for r in rows if r["driver"] != "bnx2x")
