"""Where to change it on the switch (issue 19 §1): a finding whose fix is also on the physical switch names the port
each pNIC is cabled to (LLDP/CDP), and the inventory CSV/JSON, the HTML host page, the PDF host page and the wizard's
matrix tooltip show it per vmnic — or, when no neighbour was read, the command that reads it.

Inputs: one real ESXi host from Karim Elatov's post (github elatov/elatov.github.io, 2012-09-13): ``esxcfg-vswitch -l``
(vSwitch0, MTU 1500, uplink vmnic0) and ``vim-cmd hostsvc/net/query_networkhint`` (vmnic0 → CDP core_switch
GigabitEthernet0/27), both kept in tests/parsers/captures with their source; and a real Linux neighbour-less host
(this machine's ``ip``/sysfs of a namespace is not needed: a host of shared captures without LLDP)."""
from __future__ import annotations

import csv
import shutil
import subprocess

from capturetools import capture_path
from nicadvisor.report.csv_export import write_inventory_csv
from nicadvisor.report.html_export import to_html
from nicadvisor.report.json_export import audit_to_dict, validate_document
from nicadvisor.report.pdf import write_pdf
from nicadvisor.services.audit import AuditRequest, run_audit

CDP = "esxi_vim-cmd_query_networkhint_cdp_elatov_partial.txt"
VSWITCH = "esxi_esxcfg-vswitch-l_vss_mtu1500_vmnic0_elatov_flattened.txt"


def _audit(tmp_path, *names):
    host = tmp_path / "esx-elatov"
    host.mkdir()
    for n in names:
        shutil.copy(capture_path(n), host / n)
    return run_audit(AuditRequest(capture_paths=(str(tmp_path),)))


def test_switch_mtu_finding_names_the_uplinks_switch_port(tmp_path):
    audit = _audit(tmp_path, CDP, VSWITCH)
    (f,) = [f for f in audit.findings if f.rule_id == "switch-mtu-below-1600"]
    assert f.obj == "vSwitch0"
    assert f.recommendation.endswith(
        "On the physical switch: set the MTU of switch core_switch port GigabitEthernet0/27 for vmnic0 to carry "
        "9000-byte frames (9216 where the switch counts the Ethernet header), as LLDP/CDP names the port.")


def test_without_a_neighbour_the_finding_says_nothing_of_a_port(tmp_path):
    audit = _audit(tmp_path, VSWITCH)
    (f,) = [f for f in audit.findings if f.rule_id == "switch-mtu-below-1600"]
    assert "physical switch" not in f.recommendation


def test_inventory_json_html_pdf_and_tooltip_show_the_port(tmp_path, qtbot):
    audit = _audit(tmp_path, CDP, VSWITCH)
    out = tmp_path / "inv.csv"
    write_inventory_csv(audit, out)
    (row,) = [r for r in csv.DictReader(out.read_text(encoding="utf-8").splitlines()) if r["name"] == "vmnic0"]
    assert (row["neighbor_name"], row["neighbor_port"], row["neighbor_protocol"]) == ("core_switch",
                                                                                      "GigabitEthernet0/27", "CDP")
    assert row["switch_port"] == "switch core_switch port GigabitEthernet0/27 (CDP)"
    (pnic,) = [p for h in audit_to_dict(audit)["hosts"] for p in h["pnics"] if p["name"] == "vmnic0"]
    assert pnic["neighbor_port"] == "GigabitEthernet0/27"
    assert pnic["evidence"]["neighbor_port"]["line"] == 'portId = "GigabitEthernet0/27",'
    html = to_html(audit)
    # the host page says it once under the matrix, as the PDF does
    assert "<b>Switch ports:</b> vmnic0: switch core_switch port GigabitEthernet0/27 (CDP)</p>" in html
    pdf = write_pdf(audit, tmp_path / "r.pdf")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "vmnic0: switch core_switch port GigabitEthernet0/27 (CDP)" in text

    from PySide6.QtCore import Qt
    from nicadvisor.gui.widgets.capability_model import CapabilityTableModel
    model = CapabilityTableModel()
    model.set_audit(audit)
    (r,) = [i for i, row in enumerate(model.rows) if row.pnic == "vmnic0"]
    tip = model.data(model.index(r, 0), Qt.ItemDataRole.ToolTipRole)
    assert tip.endswith("Switch port: switch core_switch port GigabitEthernet0/27 (CDP)")


def test_unknown_neighbour_names_the_command_that_reads_it(tmp_path):
    audit = _audit(tmp_path, VSWITCH, "esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt")
    out = tmp_path / "inv.csv"
    write_inventory_csv(audit, out)
    rows = [r for r in csv.DictReader(out.read_text(encoding="utf-8").splitlines()) if r["name"].startswith("vmnic")]
    assert rows and all(r["switch_port"] == "not known: run vim-cmd hostsvc/net/query_networkhint (the switch must "
                                           "send LLDP or CDP)" for r in rows)
    assert "neighbor_port" not in rows[0]  # no neighbour read on any pNIC: the always-empty column is left out
    validate_document(audit_to_dict(audit))  # the schema holds the unknown neighbour fields as null
