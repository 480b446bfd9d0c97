"""Issue 27 §18: the SSH targets' table at 1200×800 and 1920×1080. The Host key column said "asked on first contact"
after the key was trusted (now the trusted fingerprint, short, with the whole key in its tooltip), and Status cells
were cut mid-word (now they wrap between words, the row as tall as its text). The status is a real one: what
connecting to a loopback port where nothing listens says."""
from __future__ import annotations

import socket

import pytest
from PySide6.QtCore import QRect, Qt

from guitools import AUDIT_TIMEOUT_MS
from nicadvisor.gui.state import SshSpec
from nicadvisor.gui.wizard import PageId



def _fingerprint() -> str:
    """The SHA256 fingerprint of a freshly generated host key (``known_hosts.fingerprint``)."""
    import paramiko

    from nicadvisor.collect.known_hosts import fingerprint

    return fingerprint(paramiko.ECDSAKey.generate())


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("size", [(1200, 800), (1920, 1080)])
def test_host_key_column_and_status_cells_read_whole(make_wizard, qtbot, screenshot, size):
    wizard = make_wizard(store=None)
    wizard.resize(*size)
    connect = wizard.pages[PageId.CONNECT]
    editor = connect.ssh_editor
    connect.tabs.setCurrentWidget(editor)
    editor.target_edit.setText(f"root@127.0.0.1:{_closed_port()}")
    editor.password.setText("x")
    spec = editor.add_from_form()
    assert spec is not None
    with qtbot.waitSignal(connect.sig_test_done, timeout=AUDIT_TIMEOUT_MS):
        qtbot.mouseClick(editor.button_for(spec), Qt.MouseButton.LeftButton)
    assert "connection refused" in spec.status
    key = _fingerprint()
    trusted = SshSpec(spec="root@esxi-01.example.com", kind="esxi", password="x",
                      stored_key=f"ssh-ed25519 {key}")
    editor.specs.append(trusted)
    editor.refresh()
    qtbot.wait(50)
    column = editor.COLUMNS.index("Host key")
    cell = editor.table.item(1, column)
    digest = key.removeprefix("SHA256:")
    assert cell.text() == f"✔ trusted SHA256:{digest[:6]}…{digest[-4:]}" and key in cell.toolTip()
    assert editor.table.item(0, column).text() == "asked on first contact"
    # every status is shown whole: wrapped between words inside its row, not cut
    status_col = len(editor.COLUMNS)
    table = editor.table
    fm = table.fontMetrics()
    for row in range(table.rowCount()):
        text = table.item(row, status_col).text()
        width = table.columnWidth(status_col) - 2 * table.style().pixelMetric(
            table.style().PixelMetric.PM_FocusFrameHMargin) - 4
        needed = fm.boundingRect(QRect(0, 0, width, 100_000), Qt.TextFlag.TextWordWrap, text).height()
        assert needed <= table.rowHeight(row), (size, row, text, needed, table.rowHeight(row))
    screenshot(wizard, f"connect-ssh-status-{size[0]}")
