"""Issue 24 §3 "Evidence from different times": two captures of one host that state one fact differently are said
to differ, the newer is used when both state their capture date, both dates are shown (CLI, PDF/HTML host page,
JSON ``hosts[].conflicts[]``), and when a capture states no date their order is unknown and neither is preferred.

Real outputs: the demo lab's esxi-vcf9-nested (github.com/ogelbric/VCF9-notes @ 014de1af: a ``vmkping -d -s 1500``
that failed with ``sendto() failed (Message too long)`` before ``esxcli network ip interface set -i vmk0 -m 9000``,
and the ``esxcli network ip interface list`` after it, MTU 9000). Neither capture states a date (the source is one
README at one commit). The dated cases add a ``# captured:`` header line to those same real outputs (the output
lines stay verbatim): the header is the test's statement of when each was taken, as the collector's stamp would be.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema

from nicadvisor.cli import main
from nicadvisor.model.conflicts import Conflict, newer
from nicadvisor.parsers.capture_file import capture_time, parse_capture_text
from nicadvisor.paths import demo_lab_dir
from nicadvisor.services.audit import AuditRequest, run_audit

SCHEMA = Path(__file__).resolve().parents[2] / "app" / "nicadvisor" / "report" / "audit.schema.json"
VCF9 = demo_lab_dir() / "esxi-vcf9-nested"
PING = "esxi_vmkping-d_message_too_long_mtu_mismatch.txt"
LIST = "esxi_esxcli_ip_interface_list_esxi9_urpf.txt"


def _host(folder: Path):
    audit = run_audit(AuditRequest(capture_paths=(str(folder),)))
    (host,) = audit.hosts
    return audit, host


def _dated_copy(tmp_path: Path, dates: dict[str, str]) -> Path:
    """The vcf9 host's real captures with a ``# captured:`` line after their ``# source:`` line."""
    out = tmp_path / "esxi-vcf9-nested"
    shutil.copytree(VCF9, out)
    for name, when in dates.items():
        lines = (out / name).read_text(encoding="utf-8").splitlines(keepends=True)
        lines.insert(1, f"# captured: {when}\n")
        (out / name).write_text("".join(lines), encoding="utf-8")
    return out


def test_undated_captures_that_disagree_are_said_to_differ_and_neither_is_preferred():
    _, host = _host(VCF9)
    (c,) = [c for c in host.conflicts if c.obj == "vmk0"]
    assert c.fact == "mtu" and c.kept is None and not c.order_known
    assert [v.value.split(" ")[0:2] for v in c.values] == [["9000"], ["below", "1528"]]
    assert {Path(v.source).name for v in c.values} == {PING, LIST}
    assert all(v.captured is None and v.when() == "date not stated" for v in c.values)
    assert "Message too long" in c.values[1].line
    text = c.text()
    assert "vmk0 MTU: 9000 in " + LIST in text and "below 1528" in text
    assert "which is newer is unknown (a capture states no date), so neither is preferred" in text
    vmk0 = next(v for v in host.vmknics if v.name == "vmk0")
    assert vmk0.mtu == 9000  # the first value read stays in the model, not preferred: every view says so


def test_the_newer_capture_is_used_and_both_dates_are_shown(tmp_path):
    # the ping before the change, the interface list after `esxcli network ip interface set -i vmk0 -m 9000`
    folder = _dated_copy(tmp_path, {PING: "2025-06-10 09:12", LIST: "2025-06-10 09:20"})
    _, host = _host(folder)
    (c,) = host.conflicts
    assert c.kept == 0 and c.values[0].value == "9000"
    assert [v.captured for v in c.values] == ["2025-06-10 09:20 UTC", "2025-06-10 09:12 UTC"]
    assert c.text().endswith("the newer capture (2025-06-10 09:20 UTC) is used, 9000")
    assert next(v for v in host.vmknics if v.name == "vmk0").mtu == 9000


def test_a_newer_failing_ping_outweighs_an_older_mtu_reading(tmp_path):
    folder = _dated_copy(tmp_path, {PING: "2025-06-11", LIST: "2025-06-10"})
    _, host = _host(folder)
    (c,) = host.conflicts
    assert c.kept == 1 and c.values[1].captured == "2025-06-11"
    vmk0 = next(v for v in host.vmknics if v.name == "vmk0")
    assert vmk0.mtu is None and "mtu" not in vmk0.evidence  # the older 9000 is not used; no number is invented


def test_a_same_day_pair_keeps_its_order_unknown(tmp_path):
    folder = _dated_copy(tmp_path, {PING: "2025-06-10", LIST: "2025-06-10 09:20"})
    _, host = _host(folder)
    (c,) = host.conflicts
    assert c.kept is None and "both were captured in the same period" in c.text()


def test_cli_pdf_html_and_json_show_both_values_and_dates(tmp_path):
    folder = _dated_copy(tmp_path, {PING: "2025-06-10 09:12", LIST: "2025-06-10 09:20"})
    out = tmp_path / "r"
    out.mkdir()
    proc = subprocess.run(
        ["python3", "-m", "nicadvisor.cli", "audit", "--capture", str(folder), "--no-history",
         "--json", str(out / "a.json"), "--pdf", str(out / "a.pdf"), "--html", str(out / "a.html")],
        capture_output=True, text=True, timeout=600)
    assert "evidence from different times: vmk0 MTU: 9000 in " + LIST + " (2025-06-10 09:20 UTC)" in proc.stdout
    doc = json.loads((out / "a.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    (c,) = doc["hosts"][0]["conflicts"]
    assert c["object"] == "vmk0" and c["fact"] == "mtu" and c["kept"] == 0 and c["order"] == "newer-kept"
    assert [(Path(v["source"]).name, v["captured"], v["how"]) for v in c["values"]] == [
        (LIST, "2025-06-10 09:20 UTC", "header"), (PING, "2025-06-10 09:12 UTC", "header")]
    pdf = subprocess.run(["pdftotext", "-layout", str(out / "a.pdf"), "-"], capture_output=True, text=True,
                         check=True).stdout
    assert "Evidence from different times (1)" in pdf and "2025-06-10 09:20 UTC" in pdf and "yes (newer)" in pdf
    html = (out / "a.html").read_text()
    assert "Evidence from different times (1)" in html and "no (older)" in html and "2025-06-10 09:12 UTC" in html
    # the reopened document keeps them
    from nicadvisor.document import host_from_dict
    assert host_from_dict(doc["hosts"][0]).conflicts[0].kept == 0


def test_the_demo_reports_say_it_for_the_vcf9_host(tmp_path, capsys):
    code = main(["audit", "--demo", "--no-history", "--quiet", "--json", str(tmp_path / "d.json")])
    assert code == 1
    assert ("Evidence from different times: 1 fact(s) on 1 host(s) stated differently by two captures (1 of unknown "
            "order: neither preferred") in capsys.readouterr().out
    doc = json.loads((tmp_path / "d.json").read_text())
    by = {h["name"]: h["conflicts"] for h in doc["hosts"]}
    assert [c["order"] for c in by["esxi-vcf9-nested"]] == ["unknown"]
    assert all(not v for n, v in by.items() if n != "esxi-vcf9-nested")


def test_capture_dates_and_their_order():
    assert newer("2025-06-10 09:20 UTC", "2025-06-10 09:12 UTC") == 0
    assert newer("2017-09", "2018-02-20") == 1
    assert newer("2017-09", "2017-09-14") is None and newer(None, "2017-09-14") is None
    assert newer("2025-06-10", "2025-06-10 09:20 UTC") is None
    assert capture_time("x/esx-h1-2023-05-01--10.22-12345.tgz:commands/nicinfo.sh.txt") == ("2023-05-01 10:22",
                                                                                            "bundle")
    cap = parse_capture_text("a.txt", b"# source: x\n# captured: 2024-01-02T03:04\n# command: vmware -vl\nVMware ESXi\n")
    assert cap.captured == ("2024-01-02 03:04 UTC", "header") and cap.text == "VMware ESXi\n"
    assert Conflict.from_dict(Conflict(obj="vmk0", fact="mtu", values=()).to_dict()).obj == "vmk0"
