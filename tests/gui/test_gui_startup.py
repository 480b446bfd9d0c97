"""Start-up does no I/O on the GUI thread: the audit history (SQLite open + migration, ``backend.open_store``)
and the keyring backend discovery (``keyring.get_keyring()`` through ``nicadvisor.secrets.backend_problem``,
which may talk to D-Bus) both run on the wizard's TaskRunner; the Connect page says "History loading…" and
keeps "Remember in OS keyring" disabled until they return."""
from __future__ import annotations

import dataclasses
import sqlite3
import threading

import pytest

from nicadvisor.gui.backend import Backend
from nicadvisor.gui.wizard import PageId
from nicadvisor.store import AuditStore

WAIT_MS = 10_000


def test_history_and_keyring_are_read_off_the_gui_thread(make_wizard, qtbot, tmp_path, monkeypatch):
    gui_thread = threading.current_thread()
    seen: dict[str, threading.Thread] = {}
    release_store, release_keyring = threading.Event(), threading.Event()
    path = tmp_path / "history.sqlite3"

    def open_store():
        seen["open_store"] = threading.current_thread()
        assert release_store.wait(WAIT_MS / 1000)
        return AuditStore(path), ""

    def backend_problem(backend=None):
        seen["backend_problem"] = threading.current_thread()
        assert release_keyring.wait(WAIT_MS / 1000)
        return None

    monkeypatch.setattr("nicadvisor.secrets.backend_problem", backend_problem)
    backend = dataclasses.replace(Backend.real(), open_store=open_store)
    try:
        wizard = make_wizard(ready=False, backend=backend)
        connect = wizard.pages[PageId.CONNECT]
        # Both calls are blocked on their workers: the window is up and says so.
        qtbot.waitUntil(lambda: {"open_store", "backend_problem"} <= set(seen), timeout=WAIT_MS)
        assert wizard.state.store_loading and wizard.state.store is None
        assert connect.history.status.text() == "History loading…"
        assert connect.tabs.tabText(connect.history_tab) == "Past audits (loading…)"
        assert not connect.history.refresh_button.isEnabled()
        for editor in connect.editors:
            assert not editor.remember.isEnabled() and not editor.keyring_note.isVisibleTo(editor)
            assert "checking the OS keyring" in editor.remember.toolTip()
    finally:
        release_store.set()
        release_keyring.set()

    with qtbot.waitSignal(connect.sig_keyring_checked, timeout=WAIT_MS) as blocker:
        pass
    assert blocker.args == [None]
    qtbot.waitUntil(lambda: not wizard.state.store_loading, timeout=WAIT_MS)
    assert seen["open_store"] is not gui_thread and seen["backend_problem"] is not gui_thread
    assert isinstance(wizard.state.store, AuditStore) and wizard.state.store.path == path
    qtbot.waitUntil(lambda: "No past audit yet" in connect.history.status.text(), timeout=WAIT_MS)
    assert connect.tabs.tabText(connect.history_tab) == "Past audits (0)"
    assert connect.history.refresh_button.isEnabled()
    for editor in connect.editors:
        assert editor.remember.isEnabled() and not editor.keyring_note.isVisibleTo(editor)

    # The store the wizard opened on its worker is closed by shutdown.
    store = wizard.state.store
    assert wizard.shutdown(WAIT_MS)
    assert wizard.state.store is None
    with pytest.raises(sqlite3.ProgrammingError):  # "Cannot operate on a closed database."
        store.list_audits()


def test_insecure_keyring_found_on_worker_disables_remember(make_wizard, qtbot, monkeypatch):
    why = "no keyring backend is available (keyring.backends.fail)"
    monkeypatch.setattr("nicadvisor.secrets.backend_problem", lambda backend=None: why)
    wizard = make_wizard(store=None)
    connect = wizard.pages[PageId.CONNECT]
    qtbot.waitUntil(lambda: connect.keyring_problem == why, timeout=WAIT_MS)
    for editor in connect.editors:
        assert not editor.remember.isEnabled()
        assert editor.keyring_note.isVisibleTo(editor) and "passwords will be asked every time" in \
            editor.keyring_note.text()


FIRST_WINDOW = r"""
import os, sys
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
app = QApplication(["nic-advisor-gui"])
class First(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and getattr(obj, "isWindow", lambda: False)() and obj.isVisible():
            print(type(obj).__name__, "nicadvisor.gui.wizard" in sys.modules, obj.text() if hasattr(obj, "text") else "")
            sys.stdout.flush()
            os._exit(0)
        return False
first = First()
app.installEventFilter(first)
from nicadvisor.gui.app import main
main([])
"""


def test_a_window_is_painted_before_the_wizard_loads(tmp_path):
    """Issue 19 §2: a cold start showed a black window for seconds. The first window painted says NIC Advisor is
    starting, before the wizard's modules (the pages, the charting library) are even imported; how soon that is, is
    measured in ``benchmarks/gui_stalls.py start``, not here."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, "-c", FIRST_WINDOW], capture_output=True, text=True, timeout=120, env=env)
    window, wizard_loaded, text = (run.stdout.split(" ", 2) + ["", "", ""])[:3]
    assert window == "QLabel" and wizard_loaded == "False", run.stdout + run.stderr[-2000:]
    assert "NIC Advisor" in text and "starting" in text
