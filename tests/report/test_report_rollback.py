"""Every change the plan recommends says how to undo it, in the PDF, the HTML and the CSV (issue 10 §1), and an
overlay finding that holds only if its pNIC carries the overlay is marked as conditional (issue 8 §4)."""
from __future__ import annotations

import csv
import subprocess

from nicadvisor.report.csv_export import write_csv
from nicadvisor.report.html_export import write_html
from nicadvisor.report.pdf import write_pdf
from nicadvisor.report.remediation import remediation_plan
from nicadvisor.rules_engine import load_rules
from nicadvisor.services.audit import AuditRequest, run_audit


def test_rollback_is_validated_like_the_recommendation(tmp_path):
    from nicadvisor.rules_engine.loader import RuleError, load_rule_file
    import pytest
    good = (tmp_path / "r.yaml")
    good.write_text("rules:\n  - id: x\n    title: Xyz\n    severity: info\n    applies_to: pnic\n    category: mtu\n"
                    "    condition: mtu != null\n    message: m ${name}\n    recommendation: r ${name}\n"
                    "    rollback: put ${nosuchfact} back\n    references: ['https://example.org']\n",
                    encoding="utf-8")
    with pytest.raises(RuleError, match=r"r\.yaml:10: rule x: rollback names unknown fact\(s\) nosuchfact"):
        load_rule_file(good)


def test_mtu_and_module_rules_carry_a_rollback():
    by = {r.id: r for r in load_rules()}
    for rid in ("pnic-mtu-below-1600", "linux-pnic-mtu-below-1600", "switch-mtu-below-1600", "no-rss",
                "coalescing-on", "linux-coalescing-on", "vds-ipfix-enabled"):
        assert by[rid].rollback, rid


def test_plan_pdf_html_and_csv_show_rollback_and_conditional(tmp_path):
    audit = run_audit(AuditRequest(demo=True))
    plan = remediation_plan(audit)
    mtu = next(i for i in plan if i.rule_id == "pnic-mtu-below-1600")
    assert mtu.conditional and "esxcli network vswitch standard set -v <switch name> -m 1500" in mtu.rollback
    # within each group of the plan (issue 25 §2), a conditional error ranks right after the real errors, before
    # plain warnings
    from nicadvisor.report.remediation import plan_groups

    for group in plan_groups(audit, plan):
        ranks = [(i.severity.rank, min((f.full_severity or f.severity).rank for f in i.findings)) for _n, i in group.items]
        assert ranks == sorted(ranks)

    pdf = write_pdf(audit, tmp_path / "a.pdf")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    flat = " ".join(text.split())
    assert "Roll back a standard vSwitch: esxcli network vswitch standard set -v <switch name> -m 1500" in flat
    assert "Conditional: no TEP or NSX host switch is known" in flat

    html = write_html(audit, tmp_path / "a.html").read_text(encoding="utf-8")
    assert ("<th>Roll back</th><td><pre>a standard vSwitch: esxcli network vswitch standard set -v &lt;switch name&gt; "
            "-m 1500") in html and "<b>Conditional:</b>" in html

    write_csv(audit, tmp_path / "a.csv")
    with open(tmp_path / "a.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    row = next(r for r in rows if r["rule_id"] == "pnic-mtu-below-1600")
    assert row["severity"] == "warning" and row["full_severity"] == "error"
    assert row["rollback"].startswith("a standard vSwitch: esxcli network vswitch standard set -v <switch name> -m 1500")
    assert row["change"].startswith("Manual: the audit read no switch") and "vmkping ++netstack=vxlan" in row["verify"]
    assert all(r["full_severity"] == "" for r in rows if r["rule_id"] == "legacy-vmklinux-driver")
