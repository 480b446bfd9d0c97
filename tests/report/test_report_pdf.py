"""PDF checklist: written with reportlab, read back with pypdf, pages 1-2 rendered with pdftoppm.

The PNGs land in /tmp/nicadv-pdf-*.png so a person can look at them (they were looked at while
writing the layout: matrix cells, wrapped evidence, footers).
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from audit_sample import CX6_PCI, LNKCAP, UNDERSTOOD_SOURCE, VMNIC2, build_audit, ev
from capturetools import completed, ready_host
from nicadvisor.model import Audit, Finding, Host, InputProblem, PhysicalNic, Severity
from nicadvisor.model.capabilities import CAPABILITIES
from nicadvisor.report import write_pdf
from nicadvisor.report.pdf import DEFAULT_TITLE
from nicadvisor.services.audit import AuditRequest, run_audit


def _text(path: Path) -> tuple[str, list[str]]:
    """Whole text with whitespace (incl. non-breaking spaces) collapsed, and the raw text of each page."""
    pages = [p.extract_text() for p in PdfReader(str(path)).pages]
    return re.sub(r"\s+", " ", " ".join(pages).replace("\xa0", " ")), pages


def _flat(s: str) -> str:
    return re.sub(r"\s+", " ", s)


@pytest.fixture
def pdf(audit, tmp_path) -> Path:
    return write_pdf(audit, tmp_path / "checklist.pdf")


def test_pdf_holds_summary_plan_hosts_benchmarks_and_appendix(audit, pdf):
    text, pages = _text(pdf)
    assert sorted(p.name for p in pdf.parent.iterdir()) == ["checklist.pdf"]  # no temporary file left
    reader = PdfReader(str(pdf))
    assert reader.metadata.title == DEFAULT_TITLE
    # page 1: the decision (issue 25 §1); page 2: the executive summary
    decision = _flat(pages[0])
    assert DEFAULT_TITLE in decision and "Readiness decision" in decision
    assert "NOT READY" in decision and "1 configuration change before the rollout" in decision
    assert "2026-11-21T10:00:00+00:00" in decision
    first = _flat(pages[1])
    assert "Executive summary" in first
    assert "Scope: 2 hosts" in first and "Inputs (8)" in first
    assert "Verdict and scorecard per host" in first and "Top remediation actions" in first
    assert "esxi-a ESXi 8.0 U2 ✖ NOT READY 1 configuration change" in first  # the host row names its release
    for host in ("esxi-a", "lnx-1"):
        assert f"Host {host}" in text
    # capability matrix: every column title, every physical pNIC, symbol AND word in cells
    for cap in CAPABILITIES:
        assert cap.title in text
    for name in ("vmnic0", "vmnic2", "vmnic3", "enp2s0", CX6_PCI):
        assert name in text
    assert "Not rated (pseudo devices): vusb0" in text
    for cell in ("✔ pass", "▲ warn", "✖ fail", "? unknown"):
        assert cell in text
    # the remediation plan: one item per rule (errors first), information-only findings in the appendix only
    assert re.search(r"\d\. ✖ ERROR — pNIC MTU below the Geneve minimum \(1 target\(s\) on 1 host; rule MTU-PNIC-001\)",
                     text)
    plan = text[text.index("Remediation plan"):text.index("Host esxi-a")]
    assert "Geneve offload active" not in plan and "No vSphere inventory" not in plan
    info = text[text.index("Appendix: information only"):]
    assert "Geneve offload active" in info and "No vSphere inventory" in info
    for f in audit.findings:
        assert _flat(f.title) in text
        assert _flat(f.message) in text
        if f.severity is not Severity.INFO:
            assert _flat(f.recommendation) in text
            for r in f.references:
                assert r.partition(" §")[2] in text  # the section, after the document's title
    # evidence: command, source and raw line (escaped < > & survive)
    assert "$ esxcli network nic list" in text
    assert _flat(VMNIC2) in text
    assert "& check the physical switch ports" in text
    # benchmarks: measured vs expected with units and basis
    assert "Benchmarks" in text
    assert "14.4 Gbit/s" in text and "17.8 Gbit/s" in text and "19 % below expected" in text
    assert "56 µs" in text and "54 µs" in text and "17,800 transactions/s" in text
    assert "netperf on the same veth pair" in text
    # the charts, drawn without a display: their legends are text of the PDF
    assert "measured (Gbit/s)" in text and "expected for the same path, high edge (µs)" in text
    assert "fail (" in text and "pass (" in text  # the capability summary chart's legend
    # appendices
    assert "Appendix: inputs not understood" in text
    assert UNDERSTOOD_SOURCE in text and "no parser for command 'esxcli network nic foo'" in text
    assert "Appendix: inputs read" in text
    # footer with page numbers on every page
    for n, page in enumerate(pages, start=1):
        assert f"page {n} of {len(pages)}" in page


def test_pdf_form_fields_and_bookmarks_read_back(audit, pdf):
    reader = PdfReader(str(pdf))
    fields = reader.get_fields()
    plan_rules = {f.rule_id for f in audit.findings if f.severity is not Severity.INFO}
    for n in range(1, len(plan_rules) + 1):  # per item: done, owner, change ticket, due date, one box per target
        for key in ("done", "owner", "ticket", "due", "target1"):
            assert f"item{n}.{key}" in fields, (n, key, sorted(fields))
    assert f"item{len(plan_rules) + 1}.done" not in fields  # info findings are no checklist items
    for i in range(1, len(audit.hosts) + 1):
        assert f"signoff{i}.name" in fields and f"signoff{i}.date" in fields
    assert fields["item1.done"]["/FT"] == "/Btn" and fields["item1.owner"]["/FT"] == "/Tx"
    titles = [o.title for o in reader.outline if not isinstance(o, list)]
    assert titles[0] == DEFAULT_TITLE
    assert {"Remediation plan", "Host index", "Benchmarks", "Appendix: inputs read"} <= set(titles)
    assert {"Host esxi-a · ESXi 8.0 U2 (8.0.2, build 22380479)", "Host lnx-1 · Linux"} <= {
        t.split(". ", 1)[1] for t in titles if re.match(r"\d+\. Host", t)}  # numbered: the host index names them


def test_pdf_text_is_at_least_8_points(pdf):
    sizes = []

    def visit(text, _cm, tm, _font, size):
        if text.strip():
            sizes.append(round(size * (tm[0] if tm[0] else 1), 2))

    for page in PdfReader(str(pdf)).pages:
        page.extract_text(visitor_text=visit)
    assert sizes and min(sizes) >= 8, sorted(set(sizes))[:5]


def test_evidence_sources_are_relative_to_the_inputs(tmp_path):
    import shutil as sh

    from nicadvisor.paths import demo_lab_dir
    from nicadvisor.services.audit import AuditRequest, run_audit

    lab = tmp_path / "home" / "auditor" / "lab"
    sh.copytree(demo_lab_dir() / "esxi-hpe-connectx5", lab / "esxi-hpe-connectx5")
    audit = run_audit(AuditRequest(capture_paths=(str(lab),)))
    text, _ = _text(write_pdf(audit, tmp_path / "r.pdf"))
    assert "[lab/esxi-hpe-connectx5/" in text
    assert str(tmp_path) not in text  # the auditor's home folder is printed nowhere


def test_pdf_pages_render(pdf, tmp_path):
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    # pages in the test's own folder: another test run (pytest -n, another session) renders at the same time
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "2", str(pdf), str(tmp_path / "nicadv-pdf")],
                   check=True, timeout=120)
    pngs = sorted(tmp_path.glob("nicadv-pdf-*.png"))
    assert len(pngs) == 2
    for png in pngs:
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5000


def test_pdf_without_benchmarks_or_problems_and_ready(tmp_path):
    a = build_audit()
    a.benchmarks = []
    a.inputs_not_understood = []
    a.findings = [f for f in a.findings if f.severity is not Severity.ERROR]
    text, _ = _text(write_pdf(a, tmp_path / "a.pdf", title="Lab audit"))
    assert "Lab audit" in text
    assert "NOT RATED" in text and "✔ READY" not in text  # no error, but its decisive checks were not all made
    ready = completed(run_audit(AuditRequest(capture_paths=(str(ready_host(tmp_path)),))))
    ready_text, _ = _text(write_pdf(ready, tmp_path / "r.pdf", title="Lab audit"))
    assert "✔ READY" in ready_text and "NOT READY" not in ready_text.replace("NOT READY comes from an error", "")
    assert "Benchmarks" not in text
    assert "Every input was understood." in text


def test_pdf_of_an_empty_audit(tmp_path):
    text, pages = _text(write_pdf(Audit(created_at="2026-11-21T10:00:00+00:00"), tmp_path / "e.pdf"))
    assert "NOT RATED" in text and "no physical NIC could be read" in text
    assert "Inputs (0): none" in text
    assert "page 1 of" in pages[0]


def test_pdf_wraps_long_evidence_and_many_rows(tmp_path):
    a = build_audit()
    host = a.hosts[0]
    for i in range(10, 40):
        p = PhysicalNic(name=f"vmnic{i}", is_physical=True)
        p.set_fact("pci_address", f"0000:{i:02x}:00.0", ev("lspci", "x", "s"))
        p.set_fact("ens_mode", "ens_interrupt", ev("esxcfg-nics -e", "x", "s"))
        host.pnics.append(p)
    token = "VMNET_CAP_" * 80  # one word far wider than the page
    a.findings.append(Finding(rule_id="LONG-1",
                              title="Long evidence",
                              severity=Severity.WARNING,
                              host="esxi-a",
                              target="esxi-a/vmnic10",
                              message="m " * 300,
                              recommendation="r",
                              evidence=(ev("vsish -e get /net/pNics/vmnic10/" + "x/" * 200, token + "\n" + "<tag> & " * 100,
                     "bundle.tgz:" + "d/" * 100),)))
    a.hosts.append(Host(name="h-" + "z" * 150))
    a.inputs_not_understood.extend(InputProblem("s/" * 120, "m " * 200, "c" * 300) for _ in range(20))
    path = write_pdf(a, tmp_path / "long.pdf")
    text, pages = _text(path)
    assert "vmnic39" in text and "Long evidence" in text
    assert "VMNET_CAP_VMNET_CAP_" in text  # split over lines, not dropped
    assert "more characters" in text  # a cell holds at most 800 characters of device text: no page overflow
    assert len(pages) < 40


def test_pdf_falls_back_to_builtin_fonts_with_ascii_symbols(audit, tmp_path):
    text, _ = _text(write_pdf(audit, tmp_path / "fb.pdf", font_dir=tmp_path / "no-fonts"))
    assert re.search(r"\d\. X ERROR — pNIC MTU below the Geneve minimum", text)
    assert "OK pass" in text and "! warn" in text and "X fail" in text
    assert "56 µs" in text  # µ is in WinAnsi
    assert "pNIC MTU below the Geneve minimum" in text


def test_demo_lab_summary_fits_page_one_and_the_plan_groups_by_rule(tmp_path):
    from nicadvisor.report.remediation import remediation_plan, top_actions
    from nicadvisor.services.audit import AuditRequest, run_audit

    audit = run_audit(AuditRequest(demo=True))
    _text_all, pages = _text(write_pdf(audit, tmp_path / "demo.pdf"))
    first = _flat(pages[1])  # page 1 is the decision; the executive summary follows on page 2
    plan = remediation_plan(audit)
    assert "Verdict and scorecard per host" in first and "Top remediation actions" in first
    for host in audit.hosts:
        assert host.name in first
    for _n, item in top_actions(plan):
        assert _flat(item.title) in first  # the top actions are on the summary page, not spilled over
    # the MTU fix is one item for all its targets, not one per pNIC
    mtu = [i for i in plan if i.rule_id == "pnic-mtu-below-1600"]
    assert len(mtu) == 1 and len(mtu[0].targets) == sum(
        1 for f in audit.findings if f.rule_id == "pnic-mtu-below-1600")
