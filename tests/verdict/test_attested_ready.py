"""A READY that rests on a person's attestation says so in its own sentence (previous session's note: "A host can be
READY on attested values alone; the verdict line does not say so"), so a board reading only the verdict sees which
checks nobody read on the host."""
from __future__ import annotations

from capturetools import completed, ready_host
from nicadvisor.model import Evidence
from nicadvisor.model.verdict import READY, verdict_of
from nicadvisor.services.audit import AuditRequest, evaluate_findings, run_audit

LABEL = "attested by Alice Admin on 2026-11-30"


def _audit(tmp_path):
    return completed(run_audit(AuditRequest(capture_paths=(str(ready_host(tmp_path / "lab")),))))


def test_a_ready_host_read_on_the_host_names_no_attestation(tmp_path):
    v = verdict_of(_audit(tmp_path))
    assert v.status == READY
    assert "attestation" not in v.hosts[0].reason and "attestation" not in v.reason


def test_a_ready_host_names_the_checks_a_person_attested(tmp_path):
    audit = _audit(tmp_path)
    host = audit.hosts[0]
    pnic = host.overlay_candidates()[0]
    for fact in ("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable"):
        pnic.evidence[fact] = Evidence(LABEL, f"{fact}: BIOS slot page", "attested.yaml")
    host.evidence["product_version"] = Evidence(LABEL, "vmware -vl on the console, photo", "attested.yaml")
    audit.findings = evaluate_findings(audit.hosts)
    v = verdict_of(audit)
    assert v.status == READY
    reason = v.hosts[0].reason
    assert "2 checks rest on a person's attestation, not on a reading taken on the host" in reason
    assert f"pcie on {pnic.name} ({LABEL})" in reason and f"release on {host.name} ({LABEL})" in reason
    assert v.reason.endswith("; 2 checks rest on a person's attestation, not on a reading taken on the host")
