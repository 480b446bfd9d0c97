"""Issue 16 §2: every report shows, per host, the commands a collector could not run and why — the JSON
(``hosts[].not_run``, schema-valid, read back by the history codec), the PDF host page and the HTML host section.
The audit is of the collector script's output of the SSH lab's ESXi host (busybox sh, fake tools printing its real
recorded outputs: tests/ssh/fake_esxi.py), whose unrecorded commands fail."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from pypdf import PdfReader

from capturetools import CAPTURES
from nicadvisor.document import host_from_dict, host_to_doc
from nicadvisor.report import audit_to_dict, validate_document
from nicadvisor.report.html_export import to_html
from nicadvisor.report.pdf import write_pdf
from nicadvisor.services.audit import AuditRequest, run_audit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ssh"))
from fake_esxi import esxi_collection  # noqa: E402


def test_every_report_lists_what_could_not_run(tmp_path):
    audit = run_audit(AuditRequest(capture_paths=(str(esxi_collection(tmp_path, CAPTURES)),)))
    (host,) = audit.hosts
    assert len(host.not_run) > 10
    doc = audit_to_dict(audit)
    validate_document(doc)
    (h,) = doc["hosts"]
    assert h["not_run"] == [n.to_dict() for n in host.not_run]
    assert {"command": "esxcfg-nics -e", "reason": "failed", "partial": False,
            "detail": "exit status 1: fake esxcfg-nics: no output of 'esxcfg-nics -e' was recorded for this lab host"
            } in h["not_run"]
    assert host_from_dict(json.loads(json.dumps(host_to_doc(host)))).not_run == host.not_run  # the history keeps it

    pdf = tmp_path / "r.pdf"
    write_pdf(audit, pdf)
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(str(pdf)).pages).split())  # table cells wrap
    assert f"Commands that could not run ({len(host.not_run)})" in text
    assert "not present on this host or release" in text and "/var/log/vmkernel.log: No such file or directory" in text

    html = to_html(audit)
    assert f'<h3 id="not-run-1">Commands that could not run ({len(host.not_run)})</h3>' in html
    assert "<td>failed</td><td><code>esxcfg-nics -e</code></td>" in html
