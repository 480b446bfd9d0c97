"""The Past audits panel's "Verify a past plan" (issue 25 §4): it reads the selected audit's inputs again on a worker
with progress and a stop button, and shows each plan target's state; on the demo lab (the same captures read again)
every target is "not done". Stopping it ends with no result. Screenshot: wizard-connect-verify-plan."""
from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTextBrowser

from guitools import run_audit
from nicadvisor.gui.wizard import PageId
from nicadvisor.store import AuditStore

LEFT = Qt.MouseButton.LeftButton


def test_verify_a_past_plan_from_the_history(make_wizard, qtbot, tmp_path, screenshot):
    store = AuditStore(tmp_path / "history.sqlite3")
    wizard = make_wizard(store=store)
    connect = wizard.pages[PageId.CONNECT]
    panel = connect.history
    first = run_audit(wizard, qtbot)
    wizard.back()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1)
    connect.tabs.setCurrentIndex(connect.history_tab)
    panel.table.selectRow(0)
    assert panel.verify_button.isEnabled() and not panel.verify_cancel.isVisible()

    progress: list[str] = []
    with qtbot.waitSignal(panel.sig_verified, timeout=120_000) as blocker:
        qtbot.mouseClick(panel.verify_button, LEFT)
        assert panel.verify_cancel.isVisible() and not panel.verify_cancel.autoDefault()
        panel.verify_handle.sig_progress.connect(lambda f, m: progress.append(m))
    outcome = blocker.args[0]
    assert outcome.check.against_id == first.history_id and outcome.audit.history_id == first.history_id + 1
    assert outcome.check.checks and {c.status for c in outcome.check.checks} == {"not done"}
    assert progress  # the worker reported its steps
    assert not panel.verify_cancel.isVisible()
    shown = panel.verify_dialog.findChild(QTextBrowser).toPlainText()
    assert f"Verify audit #{first.history_id}" in shown and "[not done] item 1" in shown
    assert f"0 of {len(outcome.check.checks)} plan targets done" in panel.status.text()
    screenshot(panel.verify_dialog, "connect-verify-plan")
    # the history's refresh after the verification (audit #2 stored) ends first: on a loaded machine it came after
    # the record and replaced the "Wrote" status
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2)
    # the record for the change ticket, written on a worker: the PDF and its JSON beside it
    panel.save_record(str(tmp_path / "record.pdf"))
    handle = panel._handles["record"]
    # handle.done is set in the worker before its queued end signal reaches the panel: wait for the slot's text
    qtbot.waitUntil(lambda: handle.done and "Wrote" in panel.status.text(), timeout=30_000)
    assert (tmp_path / "record.pdf").read_bytes().startswith(b"%PDF")
    assert json.loads((tmp_path / "record.json").read_text(encoding="utf-8"))["against"]["audit_id"] == first.history_id
    # a later refresh of the list (the history changed elsewhere) keeps what the user's action did: under load the
    # refresh after the verification came after the record and replaced "Wrote …"
    with qtbot.waitSignal(panel.sig_listed, timeout=30_000):
        panel.refresh()
    assert "Wrote" in panel.status.text()
    panel.verify_dialog.close()

    # Stop: the running verification ends cancelled, with no result.
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2)
    panel.select_id(first.history_id)
    assert panel.verify_button.isEnabled()
    qtbot.mouseClick(panel.verify_button, LEFT)
    handle = panel.verify_handle
    assert not handle.done
    with qtbot.waitSignal(handle.sig_cancelled, timeout=60_000):
        qtbot.mouseClick(panel.verify_cancel, LEFT)
    assert "no record was made" in panel.status.text() and not panel.verify_cancel.isVisible()
