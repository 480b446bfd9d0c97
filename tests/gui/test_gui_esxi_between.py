"""Issue 17 §1 in the wizard: the Benchmark page runs the TEP mesh between an audited ESXi host and a Linux host of
the ESXi lab (tests/bench/esxi_lab.py: recorded ESXi outputs, real Linux ping, a switch port at MTU 1600 toward
vmk11), shows it as a table (the "TEP mesh" tab) with the cause of the failure, and the wizard's audit gets the
finding on vmk11 only. Needs root. Screenshot: wizard-benchmark-tep-mesh."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from guitools import run_audit
from nicadvisor.gui.state import SshSpec
from nicadvisor.gui.wizard import PageId

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bench"))

from esxi_lab import ESXI_TEPS, LINUX_ADDR, running_esxi_lab  # noqa: E402

pytestmark = pytest.mark.root


def test_the_tep_mesh_from_the_benchmark_page(make_wizard, qtbot, screenshot):
    from nicadvisor.gui.pages.benchmark import MTU_ONLY

    with running_esxi_lab() as lab:
        wizard = make_wizard(store=None)
        for t, kind in ((lab.esxi_target(), "esxi"), (lab.linux_target(), "linux")):
            wizard.state.ssh_hosts.append(SshSpec(spec=f"{t.user}@{t.host}:{t.port}", kind=kind,
                                                  key_file=t.key_filename, trusted_fingerprint=t.trusted_fingerprint))
        wizard.pages[PageId.CONNECT].live_radio.setChecked(True)
        audit = run_audit(wizard, qtbot)
        assert {h.kind for h in audit.hosts} == {"esxi", "linux"}
        wizard.next()
        wizard.next()
        page = wizard.pages[PageId.BENCHMARK]
        page.hosts_radio.setChecked(True)
        assert page.hosts_table.rowCount() == 2 and page.hosts_table.item(0, 1).text().endswith("(ESXi)")
        page.hosts_table.item(1, 2).setText("d0")  # the Linux host's TEP network; the ESXi host's TEPs are listed
        page.tests_box.setCurrentIndex(page.tests_box.findData(MTU_ONLY))
        asked = []
        page.confirm_plan = lambda lines: asked.append(lines) or False
        with qtbot.waitSignal(page.sig_bench_done, timeout=120_000):
            qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
        assert asked == []  # read-only: nothing to confirm
        rows = [[page.mesh_table.item(r, c).text() for c in range(page.mesh_table.columnCount())]
                for r in range(page.mesh_table.rowCount())]
        e, x = lab.esxi_target().name, lab.linux_target().name
        drop = next(r for r in rows if r[0].startswith(f"{x} d0") and "vmk11" in r[1] and r[2] == "1700 B")
        assert drop[3] == "FAIL" and f"the path to {ESXI_TEPS['vmk11']} drops large frames" in drop[5]
        ok = next(r for r in rows if r[0] == f"{e} vmk10 ({ESXI_TEPS['vmk10']})" and r[2] == "1700 B")
        assert ok[3] == "PASS" and ok[4] == "0.417/0.603/0.685 ms" and ok[1] == f"{x} d0 ({LINUX_ADDR})"
        assert "<b>1 FAIL</b>" in page.mtu_result.text()
        found = [(f.rule_id, f.host, f.obj) for f in wizard.state.audit.findings if f.rule_id.startswith("tep-path")]
        assert sorted(found) == sorted([("tep-path-mtu-failed", e, "vmk11"), ("tep-path-mtu-failed", x, "d0")])
        screenshot(wizard, "benchmark-tep-mesh")


def test_the_quick_profile_with_an_esxi_server_from_the_benchmark_page(make_wizard, qtbot, screenshot):
    """Issue 17 §2 from the wizard: the plan shown before anything changes names the firewall ruleset and the copy of
    iperf3; after the run the ruleset is put back and the copy removed."""
    with running_esxi_lab() as lab:
        wizard = make_wizard(store=None)
        for t, kind in ((lab.linux_target(), "linux"), (lab.esxi_target(), "esxi")):  # the Linux host sends
            wizard.state.ssh_hosts.append(SshSpec(spec=f"{t.user}@{t.host}:{t.port}", kind=kind,
                                                  key_file=t.key_filename, trusted_fingerprint=t.trusted_fingerprint))
        wizard.pages[PageId.CONNECT].live_radio.setChecked(True)
        run_audit(wizard, qtbot)
        wizard.next()
        wizard.next()
        page = wizard.pages[PageId.BENCHMARK]
        page.hosts_radio.setChecked(True)
        page.hosts_table.item(0, 2).setText("d0")
        page.tests_box.setCurrentIndex(page.tests_box.findData("quick"))
        page.duration.setValue(2)
        shown = []

        def confirm(lines):
            shown.append(lines)
            assert lab.state()["rulesets"] == {"remoteSerialPort": False} and lab.copies() == []
            return True

        page.confirm_plan = confirm
        with qtbot.waitSignal(page.sig_bench_done, timeout=120_000) as blocker:
            qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
        (lines,) = shown
        assert any("firewall: enable ruleset remoteSerialPort (inbound TCP 1024-65535)" in ln for ln in lines)
        assert any("iperf3.nicadv-" in ln and "through a pseudo-terminal" in ln for ln in lines)
        report = blocker.args[0]
        assert [r.test for r in report.results] == ["TCP_STREAM"] and report.results[0].throughput_gbps > 0
        assert any("TCP_RR is not measurable with it (ESXi has no netperf)" in p for p in report.problems)
        assert lab.state()["rulesets"] == {"remoteSerialPort": False} and lab.copies() == []
        screenshot(wizard, "benchmark-esxi-quick")
