"""Issue 19 §2: Enter never presses Finish. The wizard is walked with the Enter key alone, as a keyboard user would:
after each Next the focus is on Next (on Discover once the audit let it go on), and on the Export page Enter neither
closes the wizard nor exports anything (it closed the wizard with nothing exported and no question)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWizard

from guitools import AUDIT_TIMEOUT_MS, next_enabled
from nicadvisor.gui.wizard import PageId
from nicadvisor.store import AuditStore


def press_enter(qtbot):
    focus = QApplication.focusWidget()
    assert focus is not None, "nothing has the keyboard focus"
    qtbot.keyClick(focus, Qt.Key.Key_Return)
    return focus


def test_enter_on_every_page_goes_on_and_never_finishes(make_wizard, qtbot, tmp_path):
    # with a history the audit is kept, so a Finish would close without asking: the case of the review
    wizard = make_wizard(store=AuditStore(tmp_path / "history.sqlite3"))
    wizard.activateWindow()
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    finish = wizard.button(QWizard.WizardButton.FinishButton)
    next_button.setFocus()
    order = [PageId.DISCOVER, PageId.INSPECT, PageId.BENCHMARK, PageId.FINDINGS, PageId.EXPORT]
    for page in order:
        assert QApplication.focusWidget() is next_button, (wizard.currentId(), QApplication.focusWidget())
        press_enter(qtbot)
        assert wizard.currentId() == page
        if page == PageId.DISCOVER:  # Next waits for the audit, then takes the focus back
            qtbot.waitUntil(lambda: next_enabled(wizard), timeout=AUDIT_TIMEOUT_MS)
            qtbot.waitUntil(lambda: QApplication.focusWidget() is next_button, timeout=5_000)
    export = wizard.pages[PageId.EXPORT]
    assert QApplication.focusWidget() is not finish and QApplication.focusWidget() is export.export_button
    for _ in range(3):
        press_enter(qtbot)
        qtbot.wait(50)
    assert wizard.isVisible() and wizard.currentId() == PageId.EXPORT and wizard.result() == 0
    assert export.outcome == "idle" and wizard.state.exported == []
    # Finish focused with Tab: Enter still does not close; a click does
    finish.setFocus()
    press_enter(qtbot)
    assert wizard.isVisible() and wizard.result() == 0
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not wizard.isVisible())


def test_after_clicking_next_the_focus_stays_on_next(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    wizard.activateWindow()
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    qtbot.mouseClick(next_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: next_enabled(wizard), timeout=AUDIT_TIMEOUT_MS)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is next_button, timeout=5_000)
    for _ in range(2):  # Inspect, Benchmark
        qtbot.mouseClick(next_button, Qt.MouseButton.LeftButton)
        assert QApplication.focusWidget() is next_button, QApplication.focusWidget()
