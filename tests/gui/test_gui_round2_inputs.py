"""Issue 27 §9 and §15 (in part): a host the form cannot reach is refused there in a sentence (``user@bad/host`` was
accepted and failed only in the audit; a 70-character name failed as "encoding with 'idna' codec failed"); targets the
audit could not read are not ticked as benchmark endpoints; "Tick at least two hosts" goes once two are. The failing
targets are real: SSH to loopback ports where nothing listens."""
from __future__ import annotations

import socket

from PySide6.QtCore import Qt

from guitools import run_audit
from nicadvisor.gui.state import SshSpec
from nicadvisor.gui.wizard import PageId

LONG = "esxi-prod-rack12-slot07-" + "nsx-edge-overlay-transport-node-" + "0123456789abcd"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_add_ssh_host_refuses_what_is_no_host_name(make_wizard):
    wizard = make_wizard(store=None)
    editor = wizard.pages[PageId.CONNECT].ssh_editor
    editor.target_edit.setText("root@bad/host")
    assert editor.add_from_form() is None and not editor.specs
    assert "'bad/host' is not a host name" in editor.error.text()
    editor.target_edit.setText(f"root@{LONG}.example.com")
    assert editor.add_from_form() is None and not editor.specs
    assert "70 characters" in editor.error.text() and "at most 63" in editor.error.text()
    assert "idna" not in editor.error.text()
    editor.target_edit.setText("root@esxi-01.example.com:2222")
    assert editor.add_from_form() is not None and len(editor.specs) == 1


def test_targets_the_audit_could_not_read_are_not_ticked_for_the_benchmark(make_wizard, qtbot):
    wizard = make_wizard(store=None)
    for _ in range(3):
        wizard.state.ssh_hosts.append(SshSpec(spec=f"root@127.0.0.1:{_closed_port()}", kind="linux", password="x"))
    wizard.pages[PageId.CONNECT].live_radio.setChecked(True)
    audit = run_audit(wizard, qtbot)
    assert not audit.hosts and len(audit.inputs_not_understood) == 3
    wizard.next()
    wizard.next()
    bench = wizard.pages[PageId.BENCHMARK]
    bench.hosts_radio.setChecked(True)
    table = bench.hosts_table
    assert table.rowCount() == 3
    assert [table.item(r, 0).checkState() for r in range(3)] == [Qt.CheckState.Unchecked] * 3
    assert bench.selected_hosts() == []
    # the hint to tick two goes once two are ticked
    qtbot.mouseClick(bench.run_button, Qt.MouseButton.LeftButton)
    assert "Tick at least two hosts" in bench.problems.text()
    for r in range(3):
        table.item(r, 0).setCheckState(Qt.CheckState.Checked)
    assert "Tick at least two hosts" not in bench.problems.text()


def test_clicking_the_selected_target_loads_it_again(make_wizard, qtbot):
    """Issue 27 §18: a click on the row already selected did not load it into the form, so "Update selected" failed."""
    wizard = make_wizard(store=None)
    editor = wizard.pages[PageId.CONNECT].ssh_editor
    wizard.pages[PageId.CONNECT].tabs.setCurrentWidget(editor)
    editor.target_edit.setText("root@esxi-01.example.com")
    assert editor.add_from_form() is not None
    editor.table.selectRow(0)
    assert editor.target_edit.text() == "root@esxi-01.example.com"
    editor.clear_form()
    assert editor.target_edit.text() == "" and editor.selected_row() == 0
    rect = editor.table.visualRect(editor.table.model().index(0, 0))
    qtbot.mouseClick(editor.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert editor.target_edit.text() == "root@esxi-01.example.com"
    editor.target_edit.setText("root@esxi-02.example.com")
    editor.update_selected()
    assert [s.spec for s in editor.specs] == ["root@esxi-02.example.com"] and editor.error.text() == ""


def test_the_banner_lists_every_failed_target_of_four(make_wizard, qtbot):
    """Issue 27 §9: 4 targets failed and the banner listed 3 (and "… and 1 more")."""
    wizard = make_wizard(store=None)
    ports = [_closed_port() for _ in range(4)]
    for port in ports:
        wizard.state.ssh_hosts.append(SshSpec(spec=f"root@127.0.0.1:{port}", kind="linux", password="x"))
    wizard.pages[PageId.CONNECT].live_radio.setChecked(True)
    audit = run_audit(wizard, qtbot, wait_next=False)
    assert len(audit.inputs_not_understood) == 4
    text = wizard.pages[PageId.DISCOVER].banner.plain_text()
    assert all(f"ssh://root@127.0.0.1:{port}:" in text for port in ports) and "more" not in text, text
