"""Issue "Verdicts an admin can trust" §1: one verdict (READY / NOT READY / NOT RATED with the reason), never an
all-clear without data, shown the same in the CLI and its exit code, the JSON, the PDF and the history list."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from capturetools import CAPTURES, completed, ready_host
from nicadvisor.cli import main
from nicadvisor.model import Audit
from nicadvisor.model.verdict import NOT_RATED, NOT_READY, READY, incomplete_verdict
from nicadvisor.paths import demo_lab_dir
from nicadvisor.services.audit import AuditRequest, run_audit
from nicadvisor.store import AuditStore

HERE = Path(__file__).resolve().parent


def _bad_input(kind: str, tmp_path: Path) -> Path:
    if kind == "empty folder":
        (tmp_path / "empty").mkdir()
        return tmp_path / "empty"
    if kind == "binary file":
        path = tmp_path / "blob.bin"
        path.write_bytes(bytes(range(256)) * 64)
        return path
    if kind == "fake tgz":
        path = tmp_path / "esx-fake-2026-01-01--00.00-1.tgz"
        path.write_bytes(b"this is not a gzip archive\n" * 10)
        return path
    if kind == "truncated gzip":
        path = tmp_path / "esx-cut-2026-01-01--00.00-2.tgz"
        path.write_bytes(gzip.compress(b"x" * 100_000)[:40])
        return path
    return tmp_path / "does-not-exist"


def _history_line(capsys, audit_id: int) -> str:
    assert main(["history"]) == 0
    return next(x for x in capsys.readouterr().out.splitlines() if x.startswith(f"#{audit_id} "))


@pytest.mark.parametrize("kind", ["empty folder", "binary file", "fake tgz", "truncated gzip", "missing path"])
def test_nothing_read_is_not_rated_in_every_view(kind, tmp_path, capsys):
    bad = _bad_input(kind, tmp_path)
    code = main(["audit", "--quiet", "--capture", str(bad), "--json", str(tmp_path / "a.json"),
                 "--pdf", str(tmp_path / "a.pdf")])
    out, err = capsys.readouterr()
    assert code == 2
    assert "Verdict: ? NOT RATED: no physical NIC could be read from the inputs" in out
    assert f"  cause: {bad}: " in out  # the cause is listed first, naming the input
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["summary"]["ready"] is False
    assert (doc["verdict"]["status"], doc["verdict"]["label"]) == ("not_rated", "NOT RATED")
    assert doc["verdict"]["causes"] and doc["verdict"]["causes"][0].startswith(str(bad))
    cover = PdfReader(tmp_path / "a.pdf").pages[0].extract_text()
    assert "NOT RATED" in cover and "READY for" not in cover.replace("NOT RATED", "")
    audit_id = int(err.split("saved as audit #")[1].split()[0])
    line = _history_line(capsys, audit_id)
    assert "NOT RATED" in line and "✔ done" not in line
    assert " nothing read " in line  # the status column says so too


def test_an_input_that_yields_no_host_keeps_the_rest_from_being_ready(tmp_path, capsys):
    good = ready_host(tmp_path)
    # a whole esxcfg-nics -l alone is never READY (issue 16 §1): its decisive checks were not made
    assert main(["audit", "--quiet", "--no-history", "--capture", str(good)]) == 2
    assert "decisive checks not made on esx-nested: run " in capsys.readouterr().out
    missing = tmp_path / "esx-02"
    code = main(["audit", "--quiet", "--no-history", "--capture", str(good), str(missing),
                 "--json", str(tmp_path / "a.json")])
    out = capsys.readouterr().out
    assert code == 2
    assert f"NOT RATED: 1 of 2 inputs could not be read: {missing}" in out
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["verdict"]["causes"][0].startswith(f"{missing}: ")
    # with its decisive checks made, the host read is READY, and the unread input still keeps the audit from it
    audit = completed(run_audit(AuditRequest(capture_paths=(str(good), str(missing)))))
    assert [h.label for h in audit.verdict.hosts] == ["READY"]
    assert audit.verdict.headline == f"NOT RATED: 1 of 2 inputs could not be read: {missing}"


def test_errors_stay_not_ready_and_name_the_unread_input(tmp_path, capsys):
    bad = demo_lab_dir() / "esxi-hpe-connectx5"
    code = main(["audit", "--no-history", "--capture", str(bad), str(tmp_path / "gone")])  # the full summary
    out = capsys.readouterr().out
    assert code == 1
    # no TEP yet: both pNICs would fail the Geneve MTU if they carried the overlay, so no pNIC is fit for it: an
    # error finding, as every NOT READY
    assert ("NOT READY: 1 configuration change before the rollout (MTU 1500 → ≥ 1600 on esxi-hpe-connectx5); "
            "1 input could not be read") in out
    assert "[error] esxi-hpe-connectx5: No pNIC fit for the overlay" in out


def test_interrupted_audit_reopened_is_never_ready(tmp_path, capsys):
    child = subprocess.run([sys.executable, str(HERE / "audit_kill_child.py")], capture_output=True, text=True,
                           timeout=120, check=False, env=dict(os.environ))
    assert child.returncode == 9, child.stderr
    audit_id = int(child.stdout.split()[0])
    line = _history_line(capsys, audit_id)
    assert "interrupted" in line and "NOT RATED: interrupted after 3 of 10 hosts" in line
    out_json, out_pdf = tmp_path / "again.json", tmp_path / "again.pdf"
    code = main(["history", str(audit_id), "--json", str(out_json), "--pdf", str(out_pdf)])
    out = capsys.readouterr().out
    assert code == 2
    doc = json.loads(out_json.read_text())
    assert doc["summary"]["ready"] is False and doc["verdict"]["label"] == "NOT RATED"
    assert doc["verdict"]["completion"] == "interrupted" and doc["verdict"]["hosts_expected"] == 10
    assert len(doc["hosts"]) == 3
    # the rules ran on what it holds: its errors are shown, and the verdict names them
    assert doc["findings"] and {f["host"] for f in doc["findings"]} <= {h["name"] for h in doc["hosts"]}
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert doc["verdict"]["reason"] == "interrupted after 3 of 10 hosts" + (
        f" ({len(errors)} error finding{'' if len(errors) == 1 else 's'} on what was read)" if errors else "")
    assert "Verdict: ? NOT RATED: interrupted after 3 of 10 hosts" in out
    assert "NOT RATED" in PdfReader(out_pdf).pages[0].extract_text()


def test_incomplete_verdict_wording():
    assert incomplete_verdict("interrupted", 4, 10).headline == "NOT RATED: interrupted after 4 of 10 hosts"
    assert incomplete_verdict("cancelled", 1, None).reason == "cancelled after 1 host"
    assert incomplete_verdict("running", 2).reason == "still running: 2 hosts read so far"
    v = incomplete_verdict("interrupted", 3, 10, errors=5)
    assert v.status == NOT_RATED and v.exit_code == 2 and "(5 error findings on what was read)" in v.reason


def test_demo_lab_verdicts_are_computed_from_its_facts():
    audit = run_audit(AuditRequest(demo=True))
    v = audit.verdict
    assert v.label == "NOT READY" and v.exit_code == 1
    by_host = {h.host: h for h in v.hosts}
    # a Linux host whose link state and MTU no input reports is not rated: no pNIC listing was read
    assert by_host["linux-igb-mfd"].status == NOT_RATED and "link state of enp2s0" in by_host["linux-igb-mfd"].reason
    e810 = by_host["linux-e810-pulchart"]
    assert e810.status == NOT_RATED and "decisive checks not made on linux-e810-pulchart: run cat /sys/class/net/em1/mtu and 4 more commands" \
        in e810.reason and "cat /sys/class/net/em1/device/max_link_width" in e810.finish and "the MTU of em1" in [m.missing for m in e810.missing]
    # its switches name uplinks that no pNIC listing holds (only a tso get of vmnic1 was captured): not rated,
    # however clean the little that was read
    assert by_host["esxi-sio4-nsxv"].status == NOT_RATED
    assert by_host["esxi-sio4-nsxv"].reason == "uplinks vmnic0, vmnic2, vmnic10 not listed: run esxcfg-nics -l"
    # its only listing was filtered (| grep vmnic5): the pNICs it left out were never seen
    assert by_host["esxi-nsx-perf-xl710"].reason == "pNIC list filtered (| grep vmnic5): run esxcfg-nics -l"
    assert READY not in {h.status for h in v.hosts}
    # NOT READY comes from an error finding, and every host that is not READY says what it lacks
    assert all((h.status == NOT_READY) == any(f.host == h.host and f.severity.value == "error"
                                              for f in audit.findings) for h in v.hosts)
    assert all(h.finish for h in v.hosts)


def test_cancelled_and_empty_audits_are_not_ready():
    assert Audit().verdict.status == NOT_RATED
    audit = run_audit(AuditRequest(capture_paths=(str(CAPTURES / "linux_ethtool-k_igb_enp2s0.txt"),)))
    assert audit.verdict.status == NOT_RATED  # features only: no MTU
    audit.completion = "cancelled"
    assert audit.verdict.reason == "cancelled after 1 of 1 hosts"


def test_history_summary_of_a_finished_audit_is_the_stored_verdict(tmp_path):
    audit = completed(run_audit(AuditRequest(capture_paths=(str(ready_host(tmp_path)),))))
    with AuditStore(tmp_path / "h.sqlite3") as store:
        audit_id = store.save(audit)
        line = store.summary(audit_id)
        assert (line.verdict, line.verdict_of().headline) == ("ready", audit.verdict.headline)


def test_ready_on_virtual_uplinks_says_so(tmp_path):
    """Hostile review: a nested ESXi host's six nvmxnet3 uplinks were READY as "6 physical pNICs"."""
    v = completed(run_audit(AuditRequest(capture_paths=(str(ready_host(tmp_path)),)))).verdict
    assert v.status == READY and "6 pNICs, 6 of them virtual uplinks" in v.reason and "physical" not in v.reason
    assert "6 of them virtual uplinks" in v.hosts[0].reason


def test_a_port_read_alone_with_its_link_down_is_not_rated():
    """Regression review: ``esxcli network nic get`` of one down port (no listing, no MTU) became NOT READY "link
    down" once a candidate without link counted as unfit; the host's other ports were never seen: NOT RATED."""
    audit = run_audit(AuditRequest(capture_paths=(str(CAPTURES / "esxi_esxcli_nic_get_i40en_x710_fw7.10.txt"),)))
    (host,) = audit.verdict.hosts
    assert audit.hosts[0].pnics[0].link_up is False
    assert host.status == NOT_RATED and "decisive checks not made on" in host.reason
    assert "the MTU of vmnic0" in [m.missing for m in host.missing] and "esxcfg-nics -l" in host.finish
