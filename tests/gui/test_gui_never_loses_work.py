"""Issue "A report a change board signs, a wizard that never loses work" §2: closing with work in progress asks
first; Enter in a text field never finishes the wizard; a failed export says so in place and lists only what was
written; the window, the last input and the export folder are remembered; every status glyph has a font."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from guitools import AUDIT_TIMEOUT_MS, run_audit
from nicadvisor.gui.state import Source
from nicadvisor.gui.wizard import NicAdvisorWizard, PageId

APP = Path(__file__).resolve().parents[2] / "app" / "nicadvisor"


def _quit_button(box: QMessageBox):
    return next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole)


def test_closing_with_an_unsaved_audit_asks_first(make_wizard, qtbot):
    wizard = make_wizard(store=None)  # no history: the audit exists only in the window
    run_audit(wizard, qtbot)
    assert wizard.unsaved_work() == ["the audit is neither exported nor kept in Past audits"]
    wizard.close()
    assert wizard.isVisible() and wizard.quit_box is not None  # not closed: asked
    assert "neither exported nor kept" in wizard.quit_box.text()
    wizard.quit_box.button(QMessageBox.StandardButton.Cancel).click()
    assert wizard.isVisible() and wizard.quit_box is None
    wizard.reject()  # Quit / Escape ask too
    assert wizard.isVisible() and wizard.quit_box is not None
    _quit_button(wizard.quit_box).click()
    qtbot.waitUntil(lambda: not wizard.isVisible())


def test_typed_target_and_running_audit_are_named(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    qtbot.keyClicks(connect.vcenter_editor.url, "https://vc.lab.example")
    assert wizard.unsaved_work() == ["typed but not added: https://vc.lab.example"]
    connect.vcenter_editor.url.clear()
    assert wizard.unsaved_work() == []
    discover = wizard.pages[PageId.DISCOVER]
    wizard.next()  # the demo-lab audit starts on its worker
    assert discover.task_running()
    assert "an audit is running" in wizard.unsaved_work()
    qtbot.waitUntil(lambda: not discover.task_running(), timeout=AUDIT_TIMEOUT_MS)


def test_enter_in_a_text_field_never_finishes(make_wizard, qtbot, tmp_path):
    wizard = make_wizard()
    run_audit(wizard, qtbot)
    while wizard.currentId() != PageId.EXPORT:
        wizard.next()
    export = wizard.pages[PageId.EXPORT]
    edit = export.edits["pdf"]
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.keyClick(edit, Qt.Key.Key_Enter)
    assert wizard.isVisible() and wizard.currentId() == PageId.EXPORT and wizard.result() == 0


def test_a_failed_export_says_so_and_lists_only_what_was_written(make_wizard, qtbot, tmp_path):
    wizard = make_wizard()
    run_audit(wizard, qtbot)
    while wizard.currentId() != PageId.EXPORT:
        wizard.next()
    export = wizard.pages[PageId.EXPORT]
    blocker_file = tmp_path / "not-a-folder"
    blocker_file.write_text("a file where a folder is needed\n")
    export.checks["csv"].setChecked(False)
    export.edits["pdf"].setText(str(tmp_path / "ok" / "report.pdf"))
    export.edits["json"].setText(str(blocker_file / "report.json"))  # its folder is a file: cannot be written
    with qtbot.waitSignal(export.sig_export_done, timeout=AUDIT_TIMEOUT_MS) as blocker:
        qtbot.mouseClick(export.export_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0] == [tmp_path / "ok" / "report.pdf"]
    assert [export.written.item(i).text() for i in range(export.written.count())] == [str(tmp_path / "ok" / "report.pdf")]
    assert "Not written:" in export.hint.text() and "report.json" in export.hint.text()
    assert "Done" not in export.hint.text() and export.progress.failed
    assert export.open_pdf_button.isEnabled() and export.show_folder_button.isEnabled()
    assert (tmp_path / "ok" / "report.pdf").stat().st_size > 0


def test_window_input_and_export_folder_are_remembered(qtbot, tmp_path):
    from nicadvisor.gui import settings as app_settings

    capture = str(Path(__file__).resolve().parents[2] / "resources" / "demo-lab" / "esxi-sio4-nsxv")
    first = NicAdvisorWizard(store=None, remember=True, source=Source.CAPTURES, capture_paths=(capture,))
    qtbot.addWidget(first)
    first.show()
    first.resize(760, 640)
    qtbot.wait(20)
    size = (first.width(), first.height())
    assert size != (1200, 800)  # not the default
    run_audit(first, qtbot)
    first.state.exported = [tmp_path / "x.pdf"]  # nothing unsaved: closes without asking
    app_settings.save_export_folder(str(tmp_path))
    first.close()
    assert not first.isVisible()
    again = NicAdvisorWizard(store=None, remember=True)  # no input asked: the last one comes back
    qtbot.addWidget(again)
    assert again.state.source is Source.CAPTURES and again.state.capture_paths == (capture,)
    assert (again.width(), again.height()) == size
    assert again.pages[PageId.EXPORT].edits["pdf"].text().startswith(str(tmp_path))
    again.shutdown()


def test_every_status_glyph_has_an_installed_font():
    """Each symbol a status text starts with (✔ ▲ ✖ ■ ◷ ℹ – ?) must be in a font fontconfig knows (the setup
    installs DejaVu): ⏳ was not, and showed as an empty box."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in APP.rglob("*.py"))
    glyphs = set(re.findall(r"[\u2190-\u2BFF]", source))
    assert {"✔", "▲", "✖", "◷"} <= glyphs
    for ch in sorted(glyphs):
        fonts = subprocess.run(["fc-list", f":charset={ord(ch):x}", "family"], capture_output=True, text=True,
                               check=True).stdout.strip()
        assert fonts, f"no installed font has {ch} (U+{ord(ch):04X})"


def test_findings_counts_follow_the_filter_groups_by_rule_and_clear_hidden_detail(make_wizard, qtbot):
    wizard = make_wizard()
    audit = run_audit(wizard, qtbot)
    while wizard.currentId() != PageId.FINDINGS:
        wizard.next()
    page = wizard.pages[PageId.FINDINGS]
    errors = sum(1 for f in audit.findings if f.severity.value == "error")
    assert page.group_labels()[0] == f"✖ Errors ({errors})"
    page.search.setText("vmnic1")
    shown = sum(1 for f in audit.findings if f.severity.value == "error" and "vmnic1" in
                " ".join((f.title, f.target, f.rule_id, f.host, f.message, f.category)).lower())
    assert page.group_labels()[0] == f"✖ Errors ({shown} of {errors})"
    page.search.clear()
    # the current finding's pane empties when a filter hides it
    page.tree.setCurrentItem(page.tree.topLevelItem(0).child(0))
    current = page.tree.currentItem().data(0, Qt.ItemDataRole.UserRole + 1)
    assert current.message in page.detail.toPlainText()
    page.severity_boxes[current.severity.value].setChecked(False)
    assert page.detail.toPlainText() == ""
    page.severity_boxes[current.severity.value].setChecked(True)
    # grouped by rule: one group per rule id, each holding only that rule's findings
    page.grouping.setCurrentIndex(page.grouping.findData("rule"))
    rules = {f.rule_id for f in audit.findings}
    assert page.tree.topLevelItemCount() == len(rules)
    for i in range(page.tree.topLevelItemCount()):
        group = page.tree.topLevelItem(i)
        ids = {group.child(j).data(0, Qt.ItemDataRole.UserRole + 1).rule_id for j in range(group.childCount())}
        assert len(ids) == 1 and group.text(0).startswith(ids.pop())


def test_live_targets_ask_before_quit_and_come_back_without_their_passwords(qtbot):
    """Issue 27 §11: a vCenter added with URL, user and password while "Demo" was still ticked was lost on Quit or
    Escape without a question, and SSH hosts and vCenters were never remembered across restarts."""
    from nicadvisor.gui import settings as app_settings

    first = NicAdvisorWizard(store=None, remember=True)
    qtbot.addWidget(first)
    first.show()
    vc = first.pages[PageId.CONNECT].vcenter_editor
    vc.url.setText("https://vcenter-01.example.com")
    vc.user.setText("auditor@vsphere.local")
    vc.password.setText("not-kept-anywhere")
    assert vc.add_from_form() is not None
    ssh = first.pages[PageId.CONNECT].ssh_editor
    ssh.target_edit.setText("root@esxi-07.example.com:2222")
    ssh.password.setText("not-kept-either")
    ssh.kind.setCurrentIndex(ssh.kind.findData("linux"))
    assert ssh.add_from_form() is not None
    assert first.state.source is not Source.LIVE  # the radio was left on the demo
    assert any("2 live targets entered but not audited" in r for r in first.unsaved_work())
    first.reject()  # Quit / Escape
    assert first.isVisible() and first.quit_box is not None and "live targets" in first.quit_box.text()
    _quit_button(first.quit_box).click()
    qtbot.waitUntil(lambda: not first.isVisible())
    stored = "\n".join(str(app_settings.settings().value(k)) for k in app_settings.settings().allKeys())
    assert "not-kept" not in stored  # no secret in the settings file
    again = NicAdvisorWizard(store=None, remember=True)
    qtbot.addWidget(again)
    (v,) = again.state.vcenters
    (h,) = again.state.ssh_hosts
    assert (v.url, v.user, v.password) == ("https://vcenter-01.example.com", "auditor@vsphere.local", "")
    assert (h.spec, h.kind, h.password) == ("root@esxi-07.example.com:2222", "linux", "")
    assert again.pages[PageId.CONNECT].ssh_editor.table.rowCount() == 1
    again.state.ssh_hosts.clear(), again.state.vcenters.clear()
    again.shutdown()
    app_settings.save_targets([], [])  # the next test that remembers starts with none
