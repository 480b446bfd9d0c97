"""Benchmark page, "Between audited hosts over SSH" (two Linux hosts), on the remote lab of real parts
(tests/bench/remote_lab.py: two network namespaces with their own sshd, joined by a tbf-shaped veth): the wizard
audits both hosts over SSH, then benchmarks between them after the plan of changes was confirmed; declining changes nothing. Needs root.

Screenshot: wizard-benchmark-between-hosts.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from guitools import run_audit
from nicadvisor.gui.state import SshSpec
from nicadvisor.gui.wizard import PageId

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bench"))

from remote_lab import running_lab  # noqa: E402

pytestmark = pytest.mark.root
LEFT = Qt.MouseButton.LeftButton
TOOLS = ("netperf", "netserver", "iperf3", "python3")


@pytest.fixture(scope="module")
def lab():
    with running_lab(rate_mbit=50) as lab:
        yield lab


def _audited_benchmark_page(make_wizard, qtbot, lab):
    wizard = make_wizard(store=None)
    for h in lab.hosts():
        t = h.target
        wizard.state.ssh_hosts.append(SshSpec(spec=f"{t.user}@{t.host}:{t.port}", kind="linux",
                                              key_file=t.key_filename, trusted_fingerprint=t.trusted_fingerprint))
    wizard.pages[PageId.CONNECT].live_radio.setChecked(True)
    audit = run_audit(wizard, qtbot)
    assert {h.name for h in audit.hosts} == {h.target.name for h in lab.hosts()}
    wizard.next()
    wizard.next()
    assert wizard.currentId() == PageId.BENCHMARK
    page = wizard.pages[PageId.BENCHMARK]
    page.hosts_radio.setChecked(True)
    assert page.hosts_table.isVisible() and page.hosts_table.rowCount() == 2
    for row in range(2):
        page.hosts_table.item(row, 2).setText("d0")  # the tbf-shaped data link, not the SSH link
    page.duration.setValue(2)
    return wizard, page


def test_benchmark_between_audited_hosts_after_the_plan_is_confirmed(make_wizard, qtbot, lab, screenshot):
    wizard, page = _audited_benchmark_page(make_wizard, qtbot, lab)
    shown: list[list[str]] = []

    def confirm(lines):
        shown.append(lines)
        assert lab.folders() == set()  # nothing is changed before the user says yes
        return True

    page.confirm_plan = confirm
    with qtbot.waitSignal(page.sig_bench_done, timeout=90_000) as blocker:
        qtbot.mouseClick(page.run_button, LEFT)
    report = blocker.args[0]
    (lines,) = shown
    assert lines[0] == "Benchmark plan:" and any(line.startswith("Changes on ") for line in lines)
    assert [r.test for r in report.results] == ["TCP_STREAM", "TCP_RR"], report.problems
    stream, rr = report.results
    a, b = (h.target.name for h in lab.hosts())
    assert (stream.client, stream.server) == (a, b)
    # d0 is a veth, not a pNIC the audit rates: the expectation is the tbf rate the probe read on the sender
    assert f"tc tbf {lab.rate_mbit} Mbit/s read on {a}/d0" in stream.expected.basis
    assert stream.verdict() in ("pass", "warn")
    assert any("is not a pNIC of" in n for n in stream.expected.notes)
    # TCP_RR: judged against the path's own ICMP echo round trip, measured just before it
    assert "ICMP echo round trip" in rr.expected.basis and rr.verdict() in ("pass", "warn", "fail")
    row = next(i for i in range(page.table.rowCount()) if page.table.item(i, 0).text() == "TCP_STREAM")
    assert page.table.item(row, 5).text() == f"{stream.verdict().upper()}: {stream.comparison()}"
    assert wizard.state.audit.benchmarks == report.results
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}
    screenshot(wizard, "benchmark-between-hosts")


def test_declining_the_plan_changes_nothing(make_wizard, qtbot, lab):
    wizard, page = _audited_benchmark_page(make_wizard, qtbot, lab)
    asked = []

    def decline(lines):  # issue 27 §15: the bar read 100 % while the plan waited, and after it was declined
        asked.append(page.progress.bar.value())
        return False

    page.confirm_plan = decline
    done = []
    page.sig_bench_done.connect(done.append)
    qtbot.mouseClick(page.run_button, LEFT)
    qtbot.waitUntil(lambda: "declined" in page.progress.status.text(), timeout=60_000)
    qtbot.waitUntil(lambda: not page.task_running() and page.run_button.isEnabled())
    assert done == [] and wizard.state.bench_report is None
    assert asked == [0] and page.progress.bar.value() == 0
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}
    assert wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def test_the_mtu_check_runs_first_then_the_confirmed_tests(make_wizard, qtbot, lab, screenshot):
    """The TEP mesh is on the Benchmark page, from the same service call as ``bench --between --mtu-check``:
    ticked, it runs first (ping -M do, read-only), then the confirmed tests. On the lab's 1500-byte data link the
    1600-byte frames fail on the sender, which becomes an error on d0 at both ends in the wizard's audit."""
    from nicadvisor.gui.pages.benchmark import MTU_ONLY

    wizard, page = _audited_benchmark_page(make_wizard, qtbot, lab)
    assert page.mtu_box.isVisible() and page.tests_box.findData(MTU_ONLY) >= 0
    page.mtu_box.setChecked(True)
    page.confirm_plan = lambda lines: True
    with qtbot.waitSignal(page.sig_bench_done, timeout=120_000) as blocker:
        qtbot.mouseClick(page.run_button, LEFT)
    report = blocker.args[0]
    assert [r.test for r in report.results] == ["TCP_STREAM", "TCP_RR"], report.problems
    a, b = (h.target.name for h in lab.hosts())
    assert "0 pass, <b>2 FAIL</b>, 0 did not run" in page.mtu_result.text()
    assert page.chart_tabs.currentWidget() is page.mesh_tab and page.mesh_table.isVisible()  # the mesh is brought to the front
    rows = [[page.mesh_table.item(r, c).text() for c in range(page.mesh_table.columnCount())]
            for r in range(page.mesh_table.rowCount())]
    assert [row[:4] for row in rows] == [[f"{a} d0 ({lab.data_addr(0)})", f"{b} d0 ({lab.data_addr(1)})", "1600 B",
                                          "FAIL"],
                                         [f"{b} d0 ({lab.data_addr(1)})", f"{a} d0 ({lab.data_addr(0)})", "1600 B",
                                          "FAIL"]]
    assert all(f"1600-byte frames cannot leave d0 (MTU 1500) on {row[0].split()[0]}" in row[5] for row in rows)
    audit = wizard.state.audit
    assert all(h.path_tests for h in audit.hosts) and {h.mtu_path_ok for h in audit.hosts} == {None}
    assert {(f.host, f.obj) for f in audit.findings if f.rule_id == "tep-path-mtu-failed"} == {(a, "d0"), (b, "d0")}
    assert audit.benchmarks == report.results
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}
    screenshot(wizard, "benchmark-mtu-check")


def test_only_the_mtu_check_asks_nothing_and_changes_nothing(make_wizard, qtbot, lab):
    from nicadvisor.gui.pages.benchmark import MTU_ONLY

    wizard, page = _audited_benchmark_page(make_wizard, qtbot, lab)
    page.tests_box.setCurrentIndex(page.tests_box.findData(MTU_ONLY))
    asked = []
    page.confirm_plan = lambda lines: asked.append(lines) or False
    with qtbot.waitSignal(page.sig_bench_done, timeout=60_000) as blocker:
        qtbot.mouseClick(page.run_button, LEFT)
    assert asked == [] and blocker.args[0].results == []  # read-only: no plan of changes to confirm
    assert page.mesh_table.rowCount() == 2 and "<b>2 FAIL</b>" in page.mtu_result.text()
    assert all(h.path_tests for h in wizard.state.audit.hosts)
    assert lab.folders() == set() and lab.processes(*TOOLS) == {}
    page.loopback_radio.setChecked(True)
    qtbot.mouseClick(page.run_button, LEFT)
    assert "runs between hosts" in page.problems.text() and not page.task_running()
