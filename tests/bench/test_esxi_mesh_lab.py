"""Issue 17 §1 on the ESXi lab (tests/bench/esxi_lab.py: an ESXi host answering with recorded outputs, a Linux host
with real ping, a switch whose port toward vmk11 is at MTU 1600): ``bench --mtu-check`` between them from the
command line runs the TEP mesh, says the cause of the failure in words, and scopes it to the TEP path: the finding
is on vmk11 (and the Linux end), never on every pNIC of the ESXi host. Needs root."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchtools import needs_root  # noqa: E402
from esxi_lab import ESXI_TEPS, LINUX_ADDR, running_esxi_lab  # noqa: E402
from nicadvisor import cli  # noqa: E402
from nicadvisor.model.capabilities import FAIL, capability_matrix  # noqa: E402

pytestmark = [needs_root, pytest.mark.root]


@pytest.fixture(scope="module")
def lab():
    with running_esxi_lab() as lab:
        yield lab


def _row(doc, client_if, server_if, frame):
    return next(r for r in doc["mtu_paths"] if (r["client_if"], r["server_if"], r["frame_bytes"]) ==
                (client_if, server_if, frame))


def test_the_mesh_runs_between_the_esxi_and_the_linux_host_and_names_the_cause(lab, capsys, tmp_path):
    esxi = lab.esxi_target()
    code = cli.main(["audit", "--ssh", lab.specs()[0], "--kind", "esxi", "--ssh-key", str(lab.client_key),
                     "--trust-host-key", f"{esxi.host}:{esxi.port}={esxi.trusted_fingerprint}", "--quiet"])
    audit_id = int(capsys.readouterr().err.split("saved as audit #", 1)[1].split()[0])
    assert code in (0, 1, 2)
    report = tmp_path / "mesh.json"
    code = cli.main(lab.cli_args() + ["--mtu-check", "--json", str(report)])
    out, err = capsys.readouterr()
    assert code == 1, out + err  # a size did not cross
    doc = json.loads(report.read_text())
    e, x = esxi.name, lab.linux_target().name

    # ESXi → Linux from vmk10: the recorded vmkping at the TEP MTU (1700-byte frames) passed, with its round trips
    big = _row(doc, "vmk10", "d0", 1700)
    assert (big["ok"], big["cause"], big["rtt_min_us"], big["rtt_avg_us"], big["rtt_max_us"]) == (
        True, "pass", 417.0, 603.0, 685.0)
    assert big["command"].startswith(f"vmkping ++netstack=vxlan -I vmk10 -d -s 1672 -c 3 {LINUX_ADDR}")
    assert _row(doc, "vmk10", "d0", 1600)["ok"] is True
    # what no public recording holds is not answered: the mesh says the ping did not run
    assert _row(doc, "vmk11", "d0", 1700)["cause"] == "not-run"
    # Linux → vmk11: the switch port at 1600 drops the 1700-byte frames, small pings pass: the path, named
    drop = _row(doc, "d0", "vmk11", 1700)
    assert (drop["ok"], drop["cause"]) == (False, "path-drops")
    assert f"the path to {ESXI_TEPS['vmk11']} drops large frames; it carries 1600-byte frames" in drop["detail"]
    assert _row(doc, "d0", "vmk11", 84)["ok"] is True and _row(doc, "d0", "vmk11", 1600)["ok"] is True
    assert _row(doc, "d0", "vmk10", 1700)["ok"] is True  # the other TEP's path carries 1700
    assert f"FAIL  {x} d0 ({LINUX_ADDR}) → {e} vmk11 ({ESXI_TEPS['vmk11']}): 1700 B: no reply" in out
    assert f"TEP mesh recorded in audit #{audit_id} " in err

    # the failure is on the TEP path: vmk11 of the ESXi host (its Linux end is not audited), no pNIC of the host
    cli.main(["history", str(audit_id), "--json", str(tmp_path / "audit.json")])
    stored = json.loads((tmp_path / "audit.json").read_text())
    found = [(f["rule_id"], f["host"], f["object"], f["severity"]) for f in stored["findings"]
             if f["rule_id"].startswith("tep-path")]
    assert found == [("tep-path-mtu-failed", e, "vmk11", "error")]
    host = stored["hosts"][0]
    assert {(r["client_if"], r["server_if"]) for r in host["path_tests"]} == {
        ("vmk10", "d0"), ("vmk11", "d0"), ("d0", "vmk10"), ("d0", "vmk11")}  # its own, and the unaudited sender's
    assert not [p["name"] for p in host["pnics"] if "tep-path-mtu-failed" in p["capabilities"]["mtu"]["rule_ids"]]
    assert not [p for p in host["pnics"] if p["capabilities"] and p["capabilities"]["mtu"]["status"] == FAIL]
    # the PDF and the HTML carry the mesh as a table of its own
    pdf, html = tmp_path / "a.pdf", tmp_path / "a.html"
    cli.main(["history", str(audit_id), "--pdf", str(pdf), "--html", str(html)])
    import shutil
    shutil.copy(pdf, Path("/tmp") / "nicadv-esxi-mesh.pdf")  # kept to look at after the run
    from pypdf import PdfReader

    text = " ".join((page.extract_text() or "") for page in PdfReader(str(pdf)).pages)
    assert "TEP mesh" in text and "drops large frames" in " ".join(text.split()) and "0.417/0.603/0.685 ms" in text
    page = html.read_text(encoding="utf-8")
    assert '<h2 id="tep-mesh">TEP mesh</h2>' in page and '<td class="fail">FAIL</td>' in page
    csv_report = tmp_path / "a.csv"
    cli.main(["history", str(audit_id), "--csv", str(csv_report)])
    mesh_csv = (tmp_path / "a-tep-mesh.csv").read_text(encoding="utf-8-sig")
    assert "vmk11" in mesh_csv and "path-drops" in mesh_csv and mesh_csv.count("\n") == 1 + len(host["path_tests"])


def test_a_failing_tep_marks_the_uplinks_of_its_switch_only(lab, capsys):
    """The capability matrix from the scoped finding, on the model of the lab host with its TEP switch known (the
    recorded listing names a DVPort, not the switch: model facts here)."""
    from nicadvisor.model import Host, PhysicalNic, Switch, VmkernelNic
    from nicadvisor.model.path_tests import path_test_findings
    from nicadvisor.bench.mtu_path import Endpoint, probe_pair
    from nicadvisor.bench.remote import HostSession

    from nicadvisor.collect.known_hosts import KnownHosts
    import threading

    conn = HostSession(lab.hosts()[1])
    conn.connect(KnownHosts(str(lab.base / "kh")), None, threading.Event())
    try:
        linux = Endpoint(lab.linux_target().name, "linux", "d0", LINUX_ADDR, 1700)
        vmk11 = Endpoint(lab.esxi_target().name, "esxi", "vmk11", ESXI_TEPS["vmk11"], 1700, "vxlan")
        rows = probe_pair(linux, vmk11, lambda argv: (lambda got: (got.rc, got.out + got.err))(conn.run(argv)))
    finally:
        conn.close()
    host = Host(name=vmk11.host, kind="esxi",
                pnics=[PhysicalNic(name=f"vmnic{i}", mtu=9000) for i in range(6)],
                switches=[Switch(name="vSwitch0", uplinks=["vmnic0", "vmnic1"], mtu=1500),
                          Switch(name="nsx-vds", uplinks=["vmnic2", "vmnic3"], mtu=9000),
                          Switch(name="vds-storage", uplinks=["vmnic4", "vmnic5"], mtu=9000)],
                vmknics=[VmkernelNic(name="vmk10", is_tep=True, switch="nsx-vds", mtu=1700),
                         VmkernelNic(name="vmk11", is_tep=True, switch="nsx-vds", mtu=1700)],
                path_tests=rows)
    findings = path_test_findings([host])
    assert [(f.rule_id, f.obj) for f in findings] == [("tep-path-mtu-failed", "vmk11")]
    fails = [r.pnic for r in capability_matrix(host, findings) if r.cells["mtu"].status == FAIL]
    assert fails == ["vmnic2", "vmnic3"]  # the uplinks of vmk11's switch; four at MTU 9000 stay untouched
