"""``audit --bench`` beside captured hosts measures the auditor's own loopback, not the audited hosts: the reports say
so in one line instead of two pages of charts with empty "expected" legends (issue 19 §1); the figures stay in the
JSON. Runs the real quick benchmark on loopback (0.3 s per test)."""
from __future__ import annotations

import json
import re
import subprocess

from pypdf import PdfReader

from nicadvisor.cli import main


def test_a_capture_audit_with_bench_says_in_one_line_that_nothing_comparable_was_measured(tmp_path, capsys):
    pdf, html, js = tmp_path / "a.pdf", tmp_path / "a.html", tmp_path / "a.json"
    code = main(["audit", "--demo", "--no-history", "--quiet", "--bench", "--duration", "0.3",
                 "--pdf", str(pdf), "--html", str(html), "--json", str(js)])
    capsys.readouterr()
    assert code == 1  # the demo lab is NOT READY
    doc = json.loads(js.read_text(encoding="utf-8"))
    assert doc["benchmarks"] and all(b["path"] == "loopback" for b in doc["benchmarks"])
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True)
                    .stdout.split())
    line = (f"Benchmarks: {len(doc['benchmarks'])} test(s) ran on the machine running NIC Advisor (loopback), not "
            "between the audited hosts, so nothing comparable to them was measured")
    assert text.count(line) == 1
    for absent in ("Measured against expected", "expected for the same path", "measured (Gbit/s)", "Commands run"):
        assert absent not in text
    outline = [o.title for o in PdfReader(str(pdf)).outline if not isinstance(o, list)]
    assert "Benchmarks" not in outline
    page = html.read_text(encoding="utf-8")
    assert line in " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "Benchmarks: measured against expected" not in page and page.count("<svg") == 1  # the capability chart


def _crowded_audit():
    """The sample audit with six benchmark results between its two hosts: a crowded chart (more than four groups)
    whose category labels are turned, and were 7 pt."""
    from audit_sample import FakeBench, build_audit

    audit = build_audit()
    audit.benchmarks = [FakeBench({"test": "TCP_RR", "spec": f"TCP_RR {size} B", "tool": "netperf",
                                   "path": "host-to-host", "client": "esxi-a", "server": "lnx-1",
                                   "throughput_gbps": None, "transactions_per_s": 17800.0 - size,
                                   "latency_us": 56.0 + size / 100, "duration_s": 10.0, "raw": "",
                                   "expected": None, "command": ["netperf", "-t", "TCP_RR"]})
                        for size in (1, 64, 256, 1024, 4096, 8192)]
    return audit


def test_chart_labels_are_8_points_or_more_in_the_pdf_and_the_html(tmp_path):
    from nicadvisor.report.html_export import to_html
    from nicadvisor.report.pdf import write_pdf

    audit = _crowded_audit()
    sizes = []

    def visit(text, _cm, tm, _font, size):
        if text.strip():
            sizes.append(round(size * (tm[0] if tm[0] else 1), 2))

    reader = PdfReader(str(write_pdf(audit, tmp_path / "c.pdf")))
    for page in reader.pages:
        page.extract_text(visitor_text=visit)
    assert "TCP_RR 8192 B" in " ".join(p.extract_text() for p in reader.pages)  # the crowded chart is drawn
    assert sizes and min(sizes) >= 8, sorted(set(sizes))[:5]
    html = to_html(audit)
    svgs = re.findall(r"<svg [^>]*>", html)
    assert len(svgs) >= 2
    for svg in svgs:  # drawn in points, as in the PDF: 8 units of text are 8 pt (10.7 px), not 8 px
        width = re.search(r'width="([\d.]+)pt"', svg)
        view = re.search(r'viewBox="0 0 ([\d.]+) ', svg)
        assert width and view, svg
        scale = float(width.group(1)) / float(view.group(1))
        for size in re.findall(r"font-size: ?([\d.]+)px", html):
            assert float(size) * scale >= 8
