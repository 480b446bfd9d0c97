"""Issue 27 §7: the export recovers after the process that writes the reports died. Once it was killed, every later
export failed with "BrokenProcessPool…" until the wizard was restarted (``ChildProcess.call`` handled the broken pool
only in ``result()``, not when ``submit()`` raised it). Here the real child process is killed with SIGKILL between two
exports, and the second export writes its files."""
from __future__ import annotations

import os
import signal

from PySide6.QtCore import Qt

from guitools import AUDIT_TIMEOUT_MS, to_page
from nicadvisor.gui.wizard import PageId


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _export(export, qtbot, paths: dict) -> list:
    for fmt in export.edits:
        export.checks[fmt].setChecked(fmt in paths)
        export.edits[fmt].setText(str(paths.get(fmt, "")))
    with qtbot.waitSignal(export.sig_export_done, timeout=AUDIT_TIMEOUT_MS) as blocker:
        qtbot.mouseClick(export.export_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def test_export_works_again_after_its_worker_process_was_killed(make_wizard, qtbot, tmp_path):
    export = to_page(make_wizard(store=None), qtbot, PageId.EXPORT)
    first = _export(export, qtbot, {"json": tmp_path / "first.json"})
    assert [p.name for p in first] == ["first.json"]
    pid = export.child.call(os.getpid)  # the report process, asked for its own id
    assert pid != os.getpid()
    os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: _gone(pid), timeout=20_000)  # reaped by the pool: the pool now knows it is broken
    written = _export(export, qtbot, {"json": tmp_path / "second.json"})
    assert [p.name for p in written] == ["second.json"], export.hint.text()
    assert (tmp_path / "second.json").stat().st_size > 0
    assert export.child.call(os.getpid) not in (pid, os.getpid())  # a new process writes them


def test_export_asks_before_replacing_a_file(make_wizard, qtbot, tmp_path):
    """Issue 27 §17: Export overwrote files silently. It asks; the default keeps the file."""
    export = to_page(make_wizard(store=None), qtbot, PageId.EXPORT)
    target = tmp_path / "report.json"
    target.write_text("the admin's own file\n")
    for fmt in export.edits:
        export.checks[fmt].setChecked(fmt == "json")
    export.edits["json"].setText(str(target))
    qtbot.mouseClick(export.export_button, Qt.MouseButton.LeftButton)
    box = export.overwrite_box
    assert box is not None and str(target) in box.text() and export.outcome == "idle"
    assert box.defaultButton().text().startswith("Keep")
    box.defaultButton().click()
    assert target.read_text() == "the admin's own file\n" and export.outcome == "idle"
    qtbot.mouseClick(export.export_button, Qt.MouseButton.LeftButton)
    [replace] = [b for b in export.overwrite_box.buttons() if b.text() == "Replace"]
    with qtbot.waitSignal(export.sig_export_done, timeout=AUDIT_TIMEOUT_MS):
        replace.click()
    assert target.read_text().lstrip().startswith("{")
