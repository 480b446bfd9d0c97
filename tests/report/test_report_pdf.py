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
from nicadvisor.model import Audit, Finding, Host, InputProblem, PhysicalNic, Severity
from nicadvisor.model.capabilities import CAPABILITIES
from nicadvisor.report import write_pdf
from nicadvisor.report.pdf import DEFAULT_TITLE


def _text(path: Path) -> tuple[str, list[str]]:
    """Whole text with whitespace (incl. non-breaking spaces) collapsed, and the raw text of each page."""
    pages = [p.extract_text() for p in PdfReader(str(path)).pages]
    return re.sub(r"\s+", " ", " ".join(pages).replace("\xa0", " ")), pages


def _flat(s: str) -> str:
    return re.sub(r"\s+", " ", s)


@pytest.fixture
def pdf(audit, tmp_path) -> Path:
    return write_pdf(audit, tmp_path / "checklist.pdf")


def test_pdf_holds_hosts_matrix_checklist_benchmarks_and_appendix(audit, pdf):
    text, pages = _text(pdf)
    assert sorted(p.name for p in pdf.parent.iterdir()) == ["checklist.pdf"]  # no temporary file left
    reader = PdfReader(str(pdf))
    assert reader.metadata.title == DEFAULT_TITLE
    # cover
    assert DEFAULT_TITLE in pages[0]
    assert "NOT READY" in pages[0] and "1 error finding on 1 host to fix first" in pages[0]
    assert "2026-11-21T10:00:00+00:00" in pages[0]
    assert "2 host(s)" in pages[0] and "Inputs read (8)" in pages[0]
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
    # checklist items: one empty checkbox per finding, numbered, with severity word
    assert text.count("☐") == len(audit.findings) == 5
    assert "☐ 1. ✖ ERROR — pNIC MTU below the Geneve minimum (esxi-a/vmnic2 · MTU-PNIC-001)" in text
    assert "☐ 4. ▲ WARNING — PCIe link of the ConnectX-6 Dx not reported" in text
    for f in audit.findings:
        assert _flat(f.title) in text
        assert _flat(f.recommendation) in text
        assert _flat(f.message) in text
        for r in f.references:
            assert r in text
    # evidence: command, source and raw line (escaped < > & survive), multi-line output kept
    assert "$ esxcli network nic list" in text
    assert _flat(VMNIC2) in text
    assert _flat(LNKCAP) in text and "L1 <4us" in text
    assert "VMNET_CAP_ENCAP VMNET_CAP_Geneve_OFFLOAD" in text
    assert "& check the physical switch ports" in text
    assert "Other findings" in text and "No vSphere inventory" in text
    # benchmarks: measured vs expected with units and basis
    assert "Benchmarks" in text
    assert "14.4 Gbit/s" in text and "17.8 Gbit/s" in text and "81 %" in text
    assert "56 µs" in text and "54 µs" in text and "17,800 transactions/s" in text
    assert "netperf on the same veth pair" in text
    # appendices
    assert "Appendix: inputs not understood" in text
    assert UNDERSTOOD_SOURCE in text and "no parser for command 'esxcli network nic foo'" in text
    assert "Appendix: inputs read" in text
    # footer with page numbers on every page
    for n, page in enumerate(pages, start=1):
        assert f"page {n} of {len(pages)}" in page


def test_pdf_pages_render(pdf):
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    for old in Path("/tmp").glob("nicadv-pdf-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "2", str(pdf), "/tmp/nicadv-pdf"],
                   check=True, timeout=60)
    pngs = sorted(Path("/tmp").glob("nicadv-pdf-*.png"))
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
    assert "✔ READY" in text and "NOT READY" not in text
    assert "Benchmarks" not in text
    assert "Every input was understood." in text


def test_pdf_of_an_empty_audit(tmp_path):
    text, pages = _text(write_pdf(Audit(created_at="2026-11-21T10:00:00+00:00"), tmp_path / "e.pdf"))
    assert "NOT RATED" in text and "no physical NIC could be read" in text
    assert "No inputs were recorded." in text
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
    a.findings.append(Finding(
        "LONG-1", "Long evidence", Severity.WARNING, "esxi-a", "esxi-a/vmnic10", "m " * 300, "r",
        evidence=(ev("vsish -e get /net/pNics/vmnic10/" + "x/" * 200, token + "\n" + "<tag> & " * 100,
                     "bundle.tgz:" + "d/" * 100),)))
    a.hosts.append(Host(name="h-" + "z" * 150))
    a.inputs_not_understood.extend(InputProblem("s/" * 120, "m " * 200, "c" * 300) for _ in range(20))
    path = write_pdf(a, tmp_path / "long.pdf")
    text, pages = _text(path)
    assert "vmnic39" in text and "Long evidence" in text
    assert "VMNET_CAP_VMNET_CAP_" in text  # split over lines, not dropped
    assert "<tag> & <tag>" in text
    assert len(pages) < 40


def test_pdf_falls_back_to_builtin_fonts_with_ascii_symbols(audit, tmp_path):
    text, _ = _text(write_pdf(audit, tmp_path / "fb.pdf", font_dir=tmp_path / "no-fonts"))
    assert "[ ] 1. X ERROR" in text
    assert "OK pass" in text and "! warn" in text and "X fail" in text
    assert "56 µs" in text  # µ is in WinAnsi
    assert "pNIC MTU below the Geneve minimum" in text
