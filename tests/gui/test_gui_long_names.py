"""Issue 27 §3: a 70-character host name never widens the window past the screen (it grew the window from 1198 to
1282 px: Quit, Run again and Copy went off-screen). The host choosers ask for room for a few dozen characters, not
for their longest name, which is elided in the middle with the whole name in its tooltip. The host is the collector
script's output of the SSH lab's ESXi host (real recorded outputs, tests/ssh/fake_esxi.py) under a 70-character name;
the review's desktop font was larger than the offscreen platform's, so the test runs with a font 1.3 times as large.
Screenshot: wizard-inspect-long-name."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWizard

from capturetools import CAPTURES
from guitools import run_audit
from nicadvisor.gui.state import Source
from nicadvisor.gui.wizard import PageId

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ssh"))
from fake_esxi import esxi_collection  # noqa: E402

LONG = "esxi-prod-rack12-slot07-" + "nsx-edge-overlay-transport-node-" + "0123456789abcd"


@pytest.fixture
def larger_font(qapp):
    font = qapp.font()
    larger = qapp.font()
    larger.setPointSizeF(font.pointSizeF() * 1.3)
    qapp.setFont(larger)
    yield
    qapp.setFont(font)


def test_a_70_character_host_name_never_widens_the_window(larger_font, make_wizard, qtbot, screenshot, tmp_path):
    assert len(LONG) == 70
    capture = esxi_collection(tmp_path, CAPTURES, name=LONG)
    wizard = make_wizard(store=None, source=Source.CAPTURES, capture_paths=(str(capture),))
    width = 1200  # the review's 1200×800 (the offscreen screen is 800 px wide)
    wizard.resize(width, 800)
    audit = run_audit(wizard, qtbot)
    assert [h.name for h in audit.hosts] == [LONG]
    for page in (PageId.DISCOVER, PageId.INSPECT, PageId.BENCHMARK, PageId.FINDINGS, PageId.EXPORT):
        if wizard.currentId() != page:
            wizard.next()
        assert wizard.currentId() == page
        qtbot.wait(50)
        assert wizard.minimumSize().width() <= width and wizard.width() <= width, (
            page, wizard.minimumSize().width(), wizard.width())
        if page == PageId.INSPECT:
            screenshot(wizard, "inspect-long-name")
    # the names are elided in the middle, whole in the tooltip
    for chooser in (wizard.pages[PageId.INSPECT].host_filter, wizard.pages[PageId.DISCOVER].finish.host):
        i = chooser.findData(LONG)
        shown, tip = chooser.itemText(i), chooser.itemData(i, Qt.ItemDataRole.ToolTipRole)
        assert "…" in shown and shown.startswith(LONG[:12]) and LONG[-8:] in shown and LONG in tip
    # the buttons the review found off-screen are inside the window
    wizard.back(), wizard.back(), wizard.back(), wizard.back()
    assert wizard.currentId() == PageId.DISCOVER
    discover = wizard.pages[PageId.DISCOVER]
    for button in (discover.rerun_button, discover.finish.copy, wizard.button(QWizard.WizardButton.CancelButton)):
        assert button.mapTo(wizard, button.rect().topRight()).x() <= wizard.width(), button.text()
    assert QApplication.font().pointSizeF() > 0
