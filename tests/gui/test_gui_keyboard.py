"""Issue 19 §2 and issue 27 §5, §19: Enter never presses Finish. The wizard is walked with the Enter key alone, as a
keyboard user would: on Connect the focus starts on the first field (the Input choice) and Enter there goes Next; after
each Next the focus is on Next (on Discover once the audit let it go on); on the Export page the focus is on Export,
drawn with its focus ring, and Enter there exports (as Space does), while Enter on Finish never closes the wizard
(it closed it with nothing exported and no question)."""
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
    connect = wizard.pages[PageId.CONNECT]
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    finish = wizard.button(QWizard.WizardButton.FinishButton)
    # Connect: the focus starts on the first field, the checked Input choice, and Enter there goes Next
    qtbot.waitUntil(lambda: QApplication.focusWidget() is connect.demo_radio, timeout=5_000)
    order = [PageId.DISCOVER, PageId.INSPECT, PageId.BENCHMARK, PageId.FINDINGS, PageId.EXPORT]
    for page in order:
        if page != PageId.DISCOVER:
            assert QApplication.focusWidget() is next_button, (wizard.currentId(), QApplication.focusWidget())
        press_enter(qtbot)
        assert wizard.currentId() == page
        if page == PageId.DISCOVER:  # Next waits for the audit, then takes the focus back
            qtbot.waitUntil(lambda: next_enabled(wizard), timeout=AUDIT_TIMEOUT_MS)
            qtbot.waitUntil(lambda: QApplication.focusWidget() is next_button, timeout=5_000)
    export = wizard.pages[PageId.EXPORT]
    assert QApplication.focusWidget() is not finish and QApplication.focusWidget() is export.export_button
    assert focus_ring_drawn(qtbot, export.export_button), "the focused Export button shows no focus ring"
    for fmt, edit in export.edits.items():
        export.checks[fmt].setChecked(fmt == "json")
        edit.setText(str(tmp_path / f"report.{fmt}"))
    export.export_button.setFocus()
    with qtbot.waitSignal(export.sig_export_done, timeout=AUDIT_TIMEOUT_MS):
        press_enter(qtbot)  # Enter on the focused Export exports, as Space does
    assert wizard.state.exported == [tmp_path / "report.json"] and (tmp_path / "report.json").is_file()
    assert wizard.isVisible() and wizard.currentId() == PageId.EXPORT and wizard.result() == 0
    # Finish focused with Tab: Enter still does not close; a click does
    finish.setFocus()
    press_enter(qtbot)
    qtbot.keyClick(finish, Qt.Key.Key_Enter)
    assert wizard.isVisible() and wizard.result() == 0
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not wizard.isVisible())


def focus_ring_drawn(qtbot, button) -> bool:
    """True when the focused ``button`` is drawn differently from the same button without the focus (its ring)."""
    qtbot.wait(50)
    focused = button.grab().toImage()
    button.clearFocus()
    qtbot.wait(50)
    plain = button.grab().toImage()
    button.setFocus()
    return focused != plain


def test_enter_on_connect_does_nothing_until_the_page_is_filled(make_wizard, qtbot, tmp_path):
    wizard = make_wizard(store=None)
    wizard.activateWindow()
    connect = wizard.pages[PageId.CONNECT]
    connect.capture_radio.setChecked(True)  # a capture input with no path: the page is not filled
    connect.capture_radio.setFocus()
    qtbot.keyClick(connect.capture_radio, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.CONNECT
    connect.capture_edit.setText(str(tmp_path / "capture.txt"))
    connect.capture_edit.setFocus()
    qtbot.keyClick(connect.capture_edit, Qt.Key.Key_Return)  # Enter in a typed path is no decision to go on
    assert wizard.currentId() == PageId.CONNECT
    connect.capture_radio.setFocus()
    qtbot.keyClick(connect.capture_radio, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.DISCOVER


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
