"""A fleet reads as its configurations (issue 19 §1): the demo lab copied 50 times (500 hosts of 10 configurations)
made a 760-page PDF; hosts whose pNICs, configuration and findings are the same are now reported once as a group
("50 hosts: names…") with what differs per host, the PDF stays within 1.5× the demo's pages, and the CSV and JSON
keep one row per host."""
from __future__ import annotations

import copy
import csv
import re

import pytest
from pypdf import PdfReader

from nicadvisor.model import Audit
from nicadvisor.report.csv_export import write_csv, write_inventory_csv
from nicadvisor.report.fleet import host_groups
from nicadvisor.report.json_export import audit_to_dict
from nicadvisor.report.pdf import write_pdf
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit


def _estate(base: Audit, copies: int, edit=None) -> Audit:
    """``copies`` × the demo lab's hosts under numbered names (``lab03-esxi-…``), ``edit(i, host)`` applied, rules
    evaluated (as benchmarks/pdf.py builds its estates)."""
    hosts = []
    for i in range(copies * len(base.hosts)):
        host = copy.deepcopy(base.hosts[i % len(base.hosts)])
        host.name = f"lab{i // len(base.hosts):02d}-{host.name}"
        if edit:
            edit(i, host)
        hosts.append(host)
    audit = Audit(hosts=hosts, inputs=list(base.inputs), created_at=base.created_at)
    audit.findings = evaluate_findings(hosts)
    return audit


@pytest.fixture(scope="module")
def base():
    return run_audit(AuditRequest(demo=True))


def test_500_hosts_of_10_configurations_report_as_10_groups_within_1_5_times_the_demo(base, tmp_path):
    demo_pages = len(PdfReader(str(write_pdf(base, tmp_path / "demo.pdf"))).pages)
    fleet = _estate(base, 50)
    assert len(fleet.hosts) == 500 and len(host_groups(fleet)) == 10
    path = write_pdf(fleet, tmp_path / "fleet.pdf")
    reader = PdfReader(str(path))
    assert len(reader.pages) <= 1.5 * demo_pages, (len(reader.pages), demo_pages)
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    assert text.count("50 hosts whose pNICs, configuration and findings are the same") == 10
    assert "Hosts lab00-esxi-vcf9-nested and 49 alike" in text
    assert "lab49-esxi-vcf9-nested" in text  # every member named under its group
    # the CSV and JSON keep one row per host and finding
    with open(write_csv(fleet, tmp_path / "c.csv"), encoding="utf-8-sig", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == len(fleet.findings)
    with open(write_inventory_csv(fleet, tmp_path / "i.csv"), encoding="utf-8-sig", newline="") as fh:
        assert len({row["host"] for row in csv.DictReader(fh)}) == 500
    assert len(audit_to_dict(fleet)["hosts"]) == 500


def test_a_difference_no_rule_judges_is_listed_and_a_different_finding_makes_its_own_group(base):
    def edit(i, host):
        for k, pnic in enumerate(host.pnics):  # every host its own MAC addresses, as in a real fleet
            pnic.mac = f"02:00:00:{i // 256:02x}:{i % 256:02x}:{k:02x}"
        if host.name == "lab07-esxi-hpe-connectx5":  # another firmware: the report says the same of it
            host.pnic("vmnic0").firmware_version = "16.35.9999"
        if host.name == "lab08-esxi-hpe-connectx5":  # MTU 9000: no more MTU finding on vmnic0
            host.pnic("vmnic0").mtu = 9000

    fleet = _estate(base, 10, edit)
    groups = {g.host.name: g for g in host_groups(fleet)}
    connectx5 = groups["lab00-esxi-hpe-connectx5"]
    assert connectx5.size == 9 and "lab08-esxi-hpe-connectx5" not in connectx5.hosts
    assert groups["lab08-esxi-hpe-connectx5"].size == 1
    (line,) = connectx5.differences["lab07-esxi-hpe-connectx5"]
    assert re.fullmatch(r"vmnic0 firmware_version 16\.35\.9999 \(lab00-esxi-hpe-connectx5: .+\)", line)
    assert list(connectx5.differences) == ["lab07-esxi-hpe-connectx5"]  # their MAC addresses are no difference shown
