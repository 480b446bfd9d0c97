"""The Connect page's "Compatibility data" tab: read guide files on a worker, show the diff, apply only on request,
and a file that is not a guide changes nothing (issue 8 §1)."""
from __future__ import annotations

from pathlib import Path

from nicadvisor.vcg.guide_store import FILE_NAME, guide_dir, load_dataset

EXCHANGE = Path(__file__).parents[1] / "vcg" / "guide_files" / "exchange_sample.json"


def test_import_from_the_wizard_shows_the_diff_then_applies(make_wizard, qtbot, tmp_path, screenshot):
    from nicadvisor.gui.wizard import PageId

    wizard = make_wizard()
    connect = wizard.pages[PageId.CONNECT]
    panel = connect.guide_panel
    connect.tabs.setCurrentWidget(panel)
    try:
        # read on a worker after the wizard was built (not on the GUI thread before its first paint)
        qtbot.waitUntil(lambda: "No compatibility guide imported" in panel.status.text(), timeout=10_000)
        bad = tmp_path / "notes.json"
        bad.write_text('{"hello": "world"}', encoding="utf-8")
        panel.prepare([str(bad)])
        qtbot.waitUntil(lambda: panel.pick_button.isEnabled(), timeout=10_000)
        assert panel.diff.toPlainText().startswith("Not imported — nothing was changed:") and str(bad) in \
            panel.diff.toPlainText()
        assert not panel.apply_button.isEnabled() and load_dataset() is None

        panel.prepare([str(EXCHANGE)])
        qtbot.waitUntil(lambda: panel.apply_button.isEnabled(), timeout=10_000)
        assert "3 device(s) added" in panel.diff.toPlainText()
        assert load_dataset() is None  # nothing written before Apply
        screenshot(wizard, "connect-compatibility-data")
        panel.apply()
        qtbot.waitUntil(lambda: "version 1" in panel.status.text(), timeout=10_000)
        assert load_dataset().version == 1 and "exchange_sample.json — exchange-json" in panel.status.text()
    finally:
        for p in guide_dir().glob("guide*.json"):
            p.unlink()
