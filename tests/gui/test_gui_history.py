"""The "Past audits" panel of the Connect page: an audit run earlier is listed, reopened (straight to
Inspect) and deleted; a benchmark is stored with it; a history that cannot be opened is said so and the
wizard runs without it. Screenshot: wizard-connect-past-audits."""
from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QTextBrowser

from guitools import next_enabled, run_audit
from nicadvisor.gui.backend import Backend, _real_open_store
from nicadvisor.gui.wizard import PageId
from nicadvisor.store import AuditStore

LEFT = Qt.MouseButton.LeftButton


def test_past_audit_listed_reopened_deleted(make_wizard, qtbot, tmp_path, screenshot):
    store = AuditStore(tmp_path / "history.sqlite3")
    wizard = make_wizard(store=store)
    connect = wizard.pages[PageId.CONNECT]
    panel = connect.history
    qtbot.waitUntil(lambda: panel.status.text() != "")
    assert panel.table.rowCount() == 0 and "No past audit yet" in panel.status.text()

    first = run_audit(wizard, qtbot)
    assert first.history_id is not None
    physical = sum(1 for h in first.hosts for p in h.pnics if p.is_physical is not False)
    errors = sum(1 for f in first.findings if f.severity.value == "error")
    warnings = sum(1 for f in first.findings if f.severity.value == "warning")

    wizard.back()
    assert wizard.currentId() == PageId.CONNECT
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1)  # refreshed when the audit finished
    row = [panel.table.item(0, c).text() for c in range(panel.table.columnCount())]
    assert row[1:] == ["", "finished", f"{first.verdict.symbol} {first.verdict.headline}", str(len(first.hosts)),
                       str(physical), str(errors), str(warnings), "demo lab"]
    assert connect.tabs.tabText(connect.history_tab) == "Past audits (1)"
    connect.tabs.setCurrentIndex(connect.history_tab)
    screenshot(wizard, "connect-past-audits")

    # Open: loads it from the history and skips Discover.
    panel.table.selectRow(0)
    with qtbot.waitSignal(connect.sig_history_opened, timeout=10_000) as blocker:
        qtbot.mouseClick(panel.open_button, LEFT)
    opened = blocker.args[0]
    assert wizard.currentId() == PageId.INSPECT
    assert opened is wizard.state.audit and opened.history_id == first.history_id
    assert [h.name for h in opened.hosts] == [h.name for h in first.hosts]
    assert len(opened.findings) == len(first.findings)
    inspect = wizard.pages[PageId.INSPECT]
    assert inspect.model.rowCount() == physical
    assert inspect.model.index(0, 0).data().startswith(first.hosts[0].name)

    # A benchmark run now is stored with that audit (AuditStore.set_benchmarks).
    wizard.next()
    bench = wizard.pages[PageId.BENCHMARK]
    bench.duration.setValue(1)
    with qtbot.waitSignal(bench.sig_bench_done, timeout=120_000) as blocker:
        qtbot.mouseClick(bench.run_button, LEFT)
    report = blocker.args[0]
    assert report.results, report.problems
    qtbot.waitUntil(lambda: bench.save_handle is not None and bench.save_handle.done, timeout=10_000)
    stored = store.load(first.history_id).benchmarks
    assert [(r.test, r.tool, r.path) for r in stored] == [(r.test, r.tool, r.path) for r in report.results]

    # Back to Connect, then Next: a reopened audit is not reused; Discover audits again (#2).
    wizard.back()
    wizard.back()
    assert wizard.currentId() == PageId.CONNECT
    # (issue 27 §16: it asks first, and the answer to run one goes on)
    wizard.next()
    box = connect.new_audit_box
    assert wizard.currentId() == PageId.CONNECT and box is not None
    [new] = [b for b in box.buttons() if b.text() == "Run a new audit of the demo lab"]
    with qtbot.waitSignal(wizard.pages[PageId.DISCOVER].sig_audit_done, timeout=60_000) as blocker:
        qtbot.mouseClick(new, LEFT)
    second = blocker.args[0]
    assert second.history_id == first.history_id + 1 and wizard.state.opened_history_id is None
    wizard.back()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2)
    assert [s.id for s in panel.summaries] == [second.history_id, first.history_id]  # newest first

    # Delete (after confirmation) removes it from the list and the file.
    assert panel.select_id(first.history_id)
    qtbot.mouseClick(panel.delete_button, LEFT)
    box = panel.confirm_box
    assert box is not None and box.isVisible() and "cannot be undone" in box.text()
    with qtbot.waitSignal(panel.sig_deleted, timeout=10_000) as blocker:
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), LEFT)
    assert blocker.args == [first.history_id]
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1)
    assert [s.id for s in store.list_audits()] == [second.history_id]

    # Cancel in the confirmation keeps it.
    panel.table.selectRow(0)
    qtbot.mouseClick(panel.delete_button, LEFT)
    qtbot.mouseClick(panel.confirm_box.button(QMessageBox.StandardButton.Cancel), LEFT)
    assert [s.id for s in store.list_audits()] == [second.history_id]


def test_history_that_cannot_be_opened(make_wizard, qtbot, tmp_path, screenshot):
    bad = tmp_path / "history.sqlite3"
    bad.write_bytes(b"this is not an SQLite database, but some other file " * 40)
    backend = dataclasses.replace(Backend.real(), open_store=lambda: _real_open_store(bad))
    wizard = make_wizard(backend=backend)
    connect = wizard.pages[PageId.CONNECT]
    qtbot.waitUntil(lambda: not wizard.state.store_loading, timeout=10_000)  # opened on a worker
    assert wizard.state.store is None and "not a database" in wizard.state.store_problem
    assert connect.tabs.tabText(connect.history_tab) == "Past audits (unavailable)"
    text = connect.history.status.text()
    assert "not available" in text and "not a database" in text and "without history" in text
    assert not connect.history.open_button.isEnabled() and not connect.history.refresh_button.isEnabled()
    audit = run_audit(wizard, qtbot)  # the audit still runs, without history
    assert audit.history_id is None and audit.hosts
    assert "not saved (the audit history is not available)" in wizard.pages[PageId.DISCOVER].summary.text()


def test_benchmark_page_draws_the_earlier_runs_of_the_same_tests(make_wizard, qtbot, tmp_path, screenshot):
    """A second benchmark of a later audit shows the first audit's results of the same tests on the same path as
    hollow circles on the charts and in the result detail (read from the history on a worker)."""
    import pyqtgraph as pg

    store = AuditStore(tmp_path / "history.sqlite3")
    wizard = make_wizard(store=store)
    bench = wizard.pages[PageId.BENCHMARK]
    runs = []
    discover = wizard.pages[PageId.DISCOVER]
    for n in range(2):
        if n == 0:
            run_audit(wizard, qtbot)
        else:  # a second audit of the same inputs
            while wizard.currentId() != PageId.DISCOVER:
                wizard.back()
            with qtbot.waitSignal(discover.sig_audit_done, timeout=60_000):
                qtbot.mouseClick(discover.rerun_button, LEFT)
            qtbot.waitUntil(lambda: next_enabled(wizard))
        while wizard.currentId() != PageId.BENCHMARK:
            wizard.next()
        bench.duration.setValue(1)
        with qtbot.waitSignal(bench.sig_bench_done, timeout=120_000) as blocker:
            qtbot.mouseClick(bench.run_button, LEFT)
        runs.append(blocker.args[0])
        assert runs[-1].results, runs[-1].problems
        qtbot.waitUntil(lambda: bench.save_handle is not None and bench.save_handle.done, timeout=10_000)
        qtbot.waitUntil(lambda: bench.earlier_handle is not None and bench.earlier_handle.done, timeout=10_000)
    qtbot.waitUntil(lambda: any(bench._earlier), timeout=10_000)  # drawn when the worker's answer arrives
    first, second = runs
    first_id = store.list_audits()[-1].id
    assert [[(e.audit_id, e.value) for e in runs_of] for runs_of in bench._earlier] == [
        [(first_id, r.throughput_gbps if r.throughput_gbps is not None else r.latency_us)] for r in first.results]
    dots = [i for i in bench.throughput_chart._items if isinstance(i, pg.ScatterPlotItem)]
    assert len(dots) == 1 and list(dots[0].data["y"]) == [r.throughput_gbps for r in first.results
                                                         if r.throughput_gbps is not None]
    bench.table.setCurrentCell(0, 0)
    assert f"audit #{first_id} of" in bench.result_detail.toPlainText() and "Earlier runs:" in bench.result_detail.toPlainText()
    screenshot(wizard, "benchmark-earlier-runs")
    store.close()


def test_an_opened_past_audit_is_marked_and_back_next_asks(make_wizard, qtbot, tmp_path, screenshot):
    """Issue 27 §16: an opened past audit looked like one just run, and Back then Next re-audited whatever the Input
    radio said (a duplicate audit) without a word."""
    from nicadvisor.model.text import local_time

    store = AuditStore(tmp_path / "history.sqlite3")
    wizard = make_wizard(store=store)
    connect = wizard.pages[PageId.CONNECT]
    first = run_audit(wizard, qtbot)
    wizard.back()
    qtbot.waitUntil(lambda: connect.history.table.rowCount() == 1)
    connect.history.table.selectRow(0)
    with qtbot.waitSignal(connect.sig_history_opened, timeout=10_000):
        qtbot.mouseClick(connect.history.open_button, LEFT)
    assert wizard.currentId() == PageId.INSPECT
    past = f"Past audit of {local_time(first.created_at)} — read only"
    for pid in (PageId.INSPECT, PageId.FINDINGS, PageId.EXPORT):
        while wizard.currentId() != pid:
            wizard.next()
        banner = wizard.pages[pid].banner
        assert banner.plain_text().startswith(past + "\n"), banner.plain_text()
        assert "+00:00" not in banner.text()
    wizard.resize(1200, 800)
    screenshot(wizard, "export-past-audit")
    while wizard.currentId() != PageId.CONNECT:
        wizard.back()
    # Next asks; the default answer shows the same audit again, no new audit is run
    wizard.next()
    box = connect.new_audit_box
    assert wizard.currentId() == PageId.CONNECT and box is not None
    assert box.defaultButton().text() == "Show the past audit again"
    assert local_time(first.created_at) in box.text()
    screenshot(box, "dialog-new-audit")
    qtbot.mouseClick(box.defaultButton(), LEFT)
    assert wizard.currentId() == PageId.INSPECT and wizard.state.audit.history_id == first.history_id
    assert [s.id for s in store.list_audits()] == [first.history_id]
    # a new audit, once asked for, is no longer a past one
    wizard.back()
    wizard.next()
    [new] = [b for b in connect.new_audit_box.buttons() if b.text().startswith("Run a new audit")]
    with qtbot.waitSignal(wizard.pages[PageId.DISCOVER].sig_audit_done, timeout=60_000) as blocker:
        qtbot.mouseClick(new, LEFT)
    assert blocker.args[0].history_id == first.history_id + 1
    qtbot.waitUntil(lambda: next_enabled(wizard))
    wizard.next()
    assert not wizard.pages[PageId.INSPECT].banner.plain_text().startswith("Past audit")


def test_compare_shows_a_host_whose_verdict_changed_with_local_stamps(make_wizard, qtbot, tmp_path, screenshot):
    """Issue 27 §16: Compare had no line for a host whose verdict changed (NOT READY → NOT RATED) and showed ISO
    "+00:00" stamps. The same host name, first read from esxi-pasek-bnx2x's captures (NOT READY: a driver change),
    then from esxi-nsx-perf-xl710's (NOT RATED: its pNIC listing was filtered)."""
    import shutil

    from nicadvisor.model.text import local_time
    from nicadvisor.paths import demo_lab_dir
    from nicadvisor.services.audit import AuditRequest, run_audit as audit_of

    audits = []
    for step, demo in (("before", "esxi-pasek-bnx2x"), ("after", "esxi-nsx-perf-xl710")):
        folder = tmp_path / step / "esx-h"
        shutil.copytree(demo_lab_dir() / demo, folder)
        audits.append(audit_of(AuditRequest(capture_paths=(str(folder),))))
    before, after = audits
    assert [h.status for h in before.verdict.hosts] == ["not_ready"]
    assert [h.status for h in after.verdict.hosts] == ["not_rated"]
    store = AuditStore(tmp_path / "history.sqlite3")
    ids = [store.save(a) for a in audits]
    wizard = make_wizard(store=store)
    panel = wizard.pages[PageId.CONNECT].history
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2)
    panel.table.selectAll()
    qtbot.waitUntil(lambda: panel.compare_button.isEnabled())
    qtbot.mouseClick(panel.compare_button, LEFT)
    qtbot.waitUntil(lambda: panel.compare_dialog is not None, timeout=30_000)
    text = panel.compare_dialog.findChild(QTextBrowser).toPlainText()
    assert "+00:00" not in text and f"Before ({local_time(before.created_at)})" in text
    assert "Host verdicts changed (1):" in text, text
    assert f"esx-h: ✖ NOT READY → ? NOT RATED ({after.verdict.hosts[0].reason})" in text, text
    screenshot(panel.compare_dialog, "dialog-compare")
