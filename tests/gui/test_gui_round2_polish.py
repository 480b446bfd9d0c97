"""Issue 27 §14, §19, §20 (in part): the TEP mesh tab says how to fill it; the focus starts on Next and Enter on
Connect goes on; the quit dialog says "Keep working" (its "Cancel" clashed with the page's Cancel); the last page
shows Finish without Quit; the window has an icon, and the menu entry names it."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QWizard

from guitools import run_audit
from nicadvisor.gui.wizard import PageId

REPO = Path(__file__).resolve().parents[2]


def test_the_tep_mesh_tab_says_how_to_fill_it(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    bench = wizard.pages[PageId.BENCHMARK]
    bench.chart_tabs.setCurrentWidget(bench.mesh_tab)
    assert not bench.mesh_empty.isHidden() and bench.mesh_table.isHidden()
    assert "Check the TEP mesh first" in bench.mesh_empty.text()


def test_focus_starts_on_the_first_field_and_enter_on_connect_goes_on(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    wizard.activateWindow()
    first = wizard.pages[PageId.CONNECT].demo_radio
    qtbot.waitUntil(lambda: QApplication.focusWidget() is first, timeout=5_000)
    qtbot.keyClick(first, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.DISCOVER


def test_quit_dialog_last_page_and_icon(make_wizard, qtbot):
    from nicadvisor.gui.wizard import ICON

    wizard = make_wizard(store=None)
    assert not wizard.windowIcon().isNull() and ICON.is_file()
    desktop = (REPO / "packaging" / "nic-advisor.desktop").read_text()
    assert "\nIcon=nic-advisor\n" in desktop
    run_audit(wizard, qtbot)
    wizard.reject()  # the audit is unsaved: asks
    box = wizard.quit_box
    assert box is not None
    texts = [b.text() for b in box.buttons()]
    assert "Cancel" not in texts and "Keep working" in texts
    box.button(QMessageBox.StandardButton.Cancel).click()
    quit_button = wizard.button(QWizard.WizardButton.CancelButton)
    assert quit_button.isVisible()
    for _ in range(4):
        wizard.next()
    assert wizard.currentId() == PageId.EXPORT
    assert wizard.button(QWizard.WizardButton.FinishButton).isVisible() and not quit_button.isVisible()
    wizard.back()
    assert quit_button.isVisible()
    wizard.state.exported = [Path("x")]


def test_no_keyring_is_said_in_words():
    """"(no keyring backend is available (keyring.backends.fail))": a module name in nested parentheses."""
    import keyring.backends.fail

    from nicadvisor.secrets import _insecure_reason

    why = _insecure_reason(keyring.backends.fail.Keyring())
    assert why.startswith("no keyring backend is available") and "(" not in why and "keyring.backends" not in why
