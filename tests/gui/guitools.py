"""Helpers the wizard tests share: is Next enabled, and run the audit of the chosen input to its end."""
from __future__ import annotations

from PySide6.QtWidgets import QWizard

AUDIT_TIMEOUT_MS = 60_000


def next_enabled(wizard) -> bool:
    """True when the wizard's Next button can be clicked."""
    return wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def run_audit(wizard, qtbot, wait_next: bool = True):
    """Go Next from Connect and wait for the audit to end (and for Next to be enabled); returns the Audit."""
    from nicadvisor.gui.wizard import PageId

    discover = wizard.pages[PageId.DISCOVER]
    with qtbot.waitSignal(discover.sig_audit_done, timeout=AUDIT_TIMEOUT_MS) as blocker:
        wizard.next()
    if wait_next:
        qtbot.waitUntil(lambda: next_enabled(wizard))
    return blocker.args[0]


def stop_task(page, qtbot) -> None:
    """Click the page's Cancel and, when it asks first (a running audit), answer "Stop it"."""
    from PySide6.QtCore import Qt

    qtbot.mouseClick(page.progress.cancel_button, Qt.MouseButton.LeftButton)
    box = page.progress.cancel_box
    if box is not None:
        [stop] = [b for b in box.buttons() if b.text() == "Stop it"]
        qtbot.mouseClick(stop, Qt.MouseButton.LeftButton)


def to_page(wizard, qtbot, page):
    """Audit the chosen input from Connect, then go Next up to ``page`` (a PageId); returns that page."""
    run_audit(wizard, qtbot)
    while wizard.currentId() != page:
        wizard.next()
    return wizard.pages[page]
