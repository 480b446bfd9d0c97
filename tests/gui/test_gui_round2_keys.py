"""Issue 27 §1, §4, §5, §12: "Finish this audit" claims nothing until an audit finished with every check made; Enter
never cancels a running audit (Cancel never takes the default focus, and a click on it asks first); Enter on a focused
Finish never closes the wizard; quitting mid-audit prints no traceback."""
from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWizard

from guitools import AUDIT_TIMEOUT_MS, run_audit, stop_task
from nicadvisor.gui.widgets.finish_audit import NOTHING_MISSING
from nicadvisor.gui.wizard import PageId

ALL_CLEAR = "nothing left to run"


def claim(panel) -> str:
    """What the Finish box says as read: title, verdict line, and the commands or the placeholder in their place."""
    return "\n".join((panel.title(), panel.what.text(), panel.text() or panel.commands.placeholderText()))


def test_finish_box_claims_nothing_before_during_after_failure_and_cancel(make_wizard, qtbot, tmp_path):
    wizard = make_wizard(store=None)
    discover = wizard.pages[PageId.DISCOVER]
    panel = discover.finish
    assert ALL_CLEAR not in claim(panel) and NOTHING_MISSING not in claim(panel)  # fresh start
    with qtbot.waitSignal(discover.sig_audit_cancelled, timeout=AUDIT_TIMEOUT_MS):
        wizard.next()
        assert discover.task_running() and ALL_CLEAR not in claim(panel)  # during
        stop_task(discover, qtbot)
    assert ALL_CLEAR not in claim(panel)  # after cancel
    assert "once an audit has finished" in claim(panel)
    wizard.back()
    # an audit that read no host (NOT RATED, 0 hosts)
    connect = wizard.pages[PageId.CONNECT]
    connect.capture_radio.setChecked(True)
    connect.capture_edit.setText(str(tmp_path / "no-such-capture.txt"))
    audit = run_audit(wizard, qtbot, wait_next=False)
    assert not audit.hosts and not audit.rated
    assert ALL_CLEAR not in claim(panel) and "No host was read" in claim(panel)


def test_enter_never_cancels_a_running_audit_and_cancel_asks(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    wizard.activateWindow()
    discover = wizard.pages[PageId.DISCOVER]
    cancel = discover.progress.cancel_button
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    next_button.setFocus()
    qtbot.keyClick(next_button, Qt.Key.Key_Return)  # Next with the keyboard: the audit starts
    assert wizard.currentId() == PageId.DISCOVER and discover.task_running()
    handle = discover._handle
    assert QApplication.focusWidget() is not cancel, "Cancel took the focus: Enter would stop the audit"
    focus = QApplication.focusWidget()
    if focus is not None:
        qtbot.keyClick(focus, Qt.Key.Key_Return)
    cancel.setFocus()  # even when the user tabs onto Cancel, Enter does not press it
    qtbot.keyClick(cancel, Qt.Key.Key_Return)
    assert not handle.cancel_event.is_set() and discover.progress.cancel_box is None
    # a click asks first; the default answer keeps the audit running
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    box = discover.progress.cancel_box
    assert box is not None and not handle.cancel_event.is_set()
    assert box.defaultButton().text() == "Keep running"
    box.defaultButton().click()
    assert not handle.cancel_event.is_set()
    qtbot.waitSignal(discover.sig_audit_done, timeout=AUDIT_TIMEOUT_MS).wait() if discover.task_running() else None
    assert discover.outcome == "done"


def test_enter_on_a_tabbed_to_finish_never_closes(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    wizard.activateWindow()
    run_audit(wizard, qtbot)
    for _ in range(4):
        wizard.next()
    assert wizard.currentId() == PageId.EXPORT
    finish = wizard.button(QWizard.WizardButton.FinishButton)
    for _ in range(12):  # Tab through the page: every stop, Enter never closes the wizard
        focus = QApplication.focusWidget()
        qtbot.keyClick(focus, Qt.Key.Key_Tab)
        focus = QApplication.focusWidget()
        if focus is finish:
            qtbot.keyClick(focus, Qt.Key.Key_Return)
            qtbot.keyClick(focus, Qt.Key.Key_Enter)
            assert wizard.isVisible() and wizard.result() == 0
            break
    else:
        raise AssertionError("Tab never reached Finish")
    assert wizard.isVisible() and wizard.state.exported == []


def test_quitting_mid_audit_prints_no_traceback(make_wizard, qtbot, capsys):
    wizard = make_wizard(store=None)
    errors = []
    hook, sys.excepthook = sys.excepthook, lambda *a: errors.append(a)
    try:
        wizard.next()
        assert wizard.pages[PageId.DISCOVER].task_running()
        wizard._quit_confirmed = True  # the user answered "Quit anyway"
        wizard.reject()
        qtbot.waitUntil(lambda: not wizard.isVisible())
        qtbot.wait(200)  # queued end signals of the cancelled audit run now
    finally:
        sys.excepthook = hook
    assert not errors, errors


def test_after_a_benchmark_started_from_the_keyboard_the_focus_is_on_next_not_back(make_wizard, qtbot):
    from nicadvisor.bench.netns import can_create

    wizard = make_wizard(store=None)
    wizard.activateWindow()
    run_audit(wizard, qtbot)
    wizard.next()
    wizard.next()
    bench = wizard.pages[PageId.BENCHMARK]
    (bench.netns_radio if can_create() is None else bench.loopback_radio).setChecked(True)
    bench.duration.setValue(1)
    bench.run_button.setFocus()
    with qtbot.waitSignal(bench.sig_bench_done, timeout=120_000):
        qtbot.keyClick(bench.run_button, Qt.Key.Key_Space)
    back = wizard.button(QWizard.WizardButton.BackButton)
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is next_button, timeout=5_000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert QApplication.focusWidget() is not back and wizard.currentId() == PageId.FINDINGS


def test_a_long_status_never_shrinks_the_progress_bar(make_wizard, qtbot):
    """Issue 27 §10: a long status line shrank the bar from about 570 to 230 px."""
    wizard = make_wizard(store=None)
    run_audit(wizard, qtbot)
    panel = wizard.pages[PageId.DISCOVER].progress
    panel.status.setText("Audit finished.")
    qtbot.wait(50)
    before = panel.bar.width()
    for status in ("Audit failed: " + "a long sentence naming esxi-prod-rack12-slot07-nsx-edge-overlay and why " * 4,
                   "Reading /srv/captures/" + "esxi-prod-rack12-slot07-nsx-edge-overlay-transport-node/" * 3 + "x.txt"):
        panel.status.setText(status)
        qtbot.wait(50)
        assert panel.bar.width() >= before - 2, (before, panel.bar.width())
