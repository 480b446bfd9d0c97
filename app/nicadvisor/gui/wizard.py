"""The NIC Advisor wizard: Connect → Discover → Inspect → Benchmark → Findings → Export."""
from __future__ import annotations

import enum
import importlib
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent, QIcon, QKeyEvent, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QMessageBox, QRadioButton, QWidget, QWizard,
)

from nicadvisor.gui import settings as app_settings
from nicadvisor.gui import startup
from nicadvisor.gui.backend import Backend
from nicadvisor.gui.pages.benchmark import BenchmarkPage
from nicadvisor.gui.pages.connect import ConnectPage
from nicadvisor.gui.pages.discover import DiscoverPage
from nicadvisor.gui.pages.export import ExportPage
from nicadvisor.gui.pages.findings import FindingsPage
from nicadvisor.gui.pages.inspect import InspectPage
from nicadvisor.gui.state import Source, WizardState
from nicadvisor.gui.tasks import TaskHandle, TaskRunner
from nicadvisor.gui.trust import HostKeyAsker

#: The window (and menu entry's) icon, shipped in the package (pyproject's package-data).
ICON = Path(__file__).with_name("nic-advisor.svg")

#: When (ms after the wizard's first paint) the audit stack and the charting library start loading on a worker.
WARM_AFTER_MS = 300
#: How long (ms after the wizard is built) the start-up tasks of a wizard that is not shown wait before they start.
HOLD_MAX_MS = 1000
#: What the warm-up imports, in order: the live targets (an SSH host typed on Connect is parsed by them; with the SSH
#: and vSphere collectors behind: paramiko, pyVmomi), the audit stack (the rules engine builds its parser on import:
#: ~0.4 s), then the Benchmark page's charts (pyqtgraph and numpy: ~0.5 s). None of it is needed to paint the first
#: page, and each would stall the GUI thread where it is first used.
WARM_MODULES = ("nicadvisor.services.targets", "nicadvisor.services.audit", "nicadvisor.gui.widgets.bench_chart")

DEFAULT_STORE = object()
"""Sentinel of ``NicAdvisorWizard(store=...)``: open the audit history at its default path."""


class PageId(enum.IntEnum):
    """Page ids, in wizard order."""

    CONNECT = 0
    DISCOVER = 1
    INSPECT = 2
    BENCHMARK = 3
    FINDINGS = 4
    EXPORT = 5


class NicAdvisorWizard(QWizard):
    """The main window: a QWizard whose pages share a :class:`WizardState`, a :class:`TaskRunner`
    and a :class:`Backend`.

    The audit history (``nicadvisor.store.AuditStore``) is opened once here: ``store`` is an open store,
    None (run without history), or :data:`DEFAULT_STORE` (``backend.open_store()``: the default file, opened
    and migrated on a worker thread — never on the GUI thread; ``state.store_loading`` is True and the Past
    audits tab says "History loading…" until it returns, then :attr:`sig_store_ready` is emitted; when it
    cannot be opened the wizard runs without history and the Connect page says why). An audit started
    before the history is open is not saved in it. A store the wizard opened itself is closed by
    :meth:`shutdown`. ``known_hosts`` is the SSH host-key store (``nicadvisor.collect.known_hosts.KnownHosts``;
    None: the app's default file).

    Attributes:
        state: the shared wizard state.
        runner: the task runner every page submits its blocking work to.
        backend: the service callables (the real services unless one is injected).
        asker: answers first-contact SSH host-key questions of worker threads with a dialog.
        pages: page objects by :class:`PageId`.
        store_handle: the task opening the default history (None when ``store`` was given).

    Signals:
        sig_store_ready(): the default history was opened on its worker (``state.store`` set) or could not be
            (``state.store`` None, ``state.store_problem`` says why).
    """

    sig_store_ready = Signal()

    def __init__(self, backend: Backend | None = None, source: Source = Source.DEMO,
                 capture_paths: tuple[str, ...] = (), parent: QWidget | None = None,
                 store: object = DEFAULT_STORE, known_hosts: object = None, remember: bool = False) -> None:
        super().__init__(parent)
        self.remember = remember
        if remember and source is Source.DEMO and not capture_paths:  # nothing asked on the command line
            saved_source, saved_paths = app_settings.load_input()
            source, capture_paths = Source(saved_source), saved_paths
        self.state = WizardState(source=source, capture_paths=tuple(capture_paths), known_hosts=known_hosts)
        if remember:  # the SSH hosts and vCenters entered before (no password: those are in the keyring)
            self.state.ssh_hosts[:], self.state.vcenters[:] = app_settings.load_targets()
        self.backend = backend or Backend.real()
        self._owns_store = store is DEFAULT_STORE
        self._closed = False
        self._opened: list[tuple[Any, str]] = []  # what the store worker returned, until the GUI thread takes it
        self.store_handle: TaskHandle | None = None
        if store is DEFAULT_STORE:
            self.state.store, self.state.store_problem, self.state.store_loading = None, "", True
        else:
            self.state.store = store
            self.state.store_problem = "" if store is not None else "no history file was given"
        self.runner = TaskRunner(self)
        # the start-up tasks (the history opened, the keyring checked, the guide's status read) wait for the first
        # paint: run beside the pages being built they took the interpreter lock and a CPU from it (_first_painted)
        self.runner.hold()
        self.asker = HostKeyAsker(self, self)
        self.setWindowTitle("NIC Advisor — NSX Geneve overlay readiness")
        self.setWindowIcon(QIcon(str(ICON)))
        self._focus_placed = False
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        # Enter in a text field never presses Next or Finish (a typed path or URL is not a decision to go on).
        self.setOption(QWizard.WizardOption.NoDefaultButton, True)
        self.quit_box: QMessageBox | None = None
        self._quit_confirmed = False
        # "Cancel" is the task button on the Discover/Benchmark/Export pages; the wizard's own is "Quit".
        self.setButtonText(QWizard.WizardButton.CancelButton, "Quit")
        self.pages = {
            PageId.CONNECT: ConnectPage(self.state, self.runner, self.backend, self.asker),
            PageId.DISCOVER: DiscoverPage(self.state, self.runner, self.backend, self.asker),
            PageId.INSPECT: InspectPage(self.state),
            PageId.BENCHMARK: BenchmarkPage(self.state, self.runner, self.backend, self.asker),
            PageId.FINDINGS: FindingsPage(self.state),
            PageId.EXPORT: ExportPage(self.state, self.runner, self.backend),
        }
        for pid, page in self.pages.items():
            self.setPage(int(pid), page)
        self.setStartId(int(PageId.CONNECT))
        connect = self.pages[PageId.CONNECT]
        connect.open_target_id = int(PageId.INSPECT)
        discover = self.pages[PageId.DISCOVER]
        discover.sig_audit_done.connect(self._on_audit_done)
        # Enter never presses Finish (it closed the wizard with nothing exported and no question): Finish is no
        # auto-default button, and arriving on a page puts the focus on Next, or on the Export page on its own button.
        self.button(QWizard.WizardButton.FinishButton).setAutoDefault(False)
        self._focus_next_when_complete = False
        self.currentIdChanged.connect(self._place_focus)
        for page in self.pages.values():
            page.completeChanged.connect(self._restore_next_focus)
        self.resize(1200, 800)
        geometry = app_settings.load_geometry() if remember else None
        if geometry is not None:
            self.restoreGeometry(geometry)
        if self._owns_store:
            self.store_handle = self._open_store()
        # the audit stack and the charts are loaded on a worker while the user reads the Connect page (not when the
        # first audit starts), once the first page is painted (not before: it would slow the paint down)
        self._painted = False
        QTimer.singleShot(HOLD_MAX_MS, self, self._release_unshown)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override: the first paint starts the warm-up
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self, self._first_painted)  # after this paint (and its children's) is done

    def _release_unshown(self) -> None:
        """A wizard not shown (a test's) runs its start-up tasks anyway; a shown one waits for its paint."""
        if not self.isVisible():
            self.runner.release()

    def _first_painted(self) -> None:
        startup.mark("wizard")
        self.runner.release()
        QTimer.singleShot(WARM_AFTER_MS, self, self._warm_audit_stack)

    def _warm_audit_stack(self) -> None:
        if not self._closed:
            handle = self.runner.prepare("warm-audit",
                                         lambda _p, _c: [importlib.import_module(m) for m in WARM_MODULES])
            handle.sig_finished.connect(self._warmed)
            self.runner.start(handle)

    @Slot(object)
    def _warmed(self, _modules: object) -> None:
        # the Benchmark page's charts, made hidden while the user reads a page (not when Next reaches it)
        if not self._closed:
            self.pages[PageId.BENCHMARK].prebuild_charts()

    # --- the audit history, opened on a worker ----------------------------------------------------------
    def _open_store(self) -> TaskHandle:
        """Open (and migrate) the default history with ``backend.open_store`` on a worker."""
        open_store, opened = self.backend.open_store, self._opened

        def task(_progress, _cancel):
            result = open_store()
            opened.append(result)  # so that shutdown can close it if the answer never reaches the GUI thread
            return result

        handle = self.runner.prepare("history-open", task)
        handle.sig_finished.connect(self._on_store_opened)
        handle.sig_failed.connect(self._on_store_failed)
        self.runner.start(handle)
        return handle

    @Slot(object)
    def _on_store_opened(self, result: Any) -> None:
        self._opened.clear()
        store, problem = result
        if self._closed:  # the wizard was shut down meanwhile: nobody will close it later
            if store is not None:
                store.close()
            return
        self._store_ready(store, problem)

    @Slot(str)
    def _on_store_failed(self, message: str) -> None:
        self._opened.clear()
        if not self._closed:
            self._store_ready(None, f"the history could not be opened: {message}")

    def _store_ready(self, store: Any, problem: str) -> None:
        self.state.store, self.state.store_problem, self.state.store_loading = store, problem, False
        self.pages[PageId.CONNECT].store_ready()
        self.sig_store_ready.emit()

    def _on_audit_done(self, _audit: object) -> None:
        if self.remember and self.state.source is not Source.LIVE:
            app_settings.save_input(self.state.source.value, self.state.capture_paths)
        connect = self.pages[PageId.CONNECT]
        connect.refresh_targets()
        connect.history.refresh()

    # --- where the keyboard focus goes ----------------------------------------------------------------
    @Slot(int)
    def _place_focus(self, _page_id: int) -> None:
        """After a page change: the focus on Next; on the last page on its own action (Export), never on Finish; on a
        page whose Next waits for its task (Discover), back on Next once the task lets it go on."""
        next_button = self.button(QWizard.WizardButton.NextButton)
        page = self.currentPage()
        # the last page has Finish: Quit beside it said the same thing twice (Escape still asks as Quit did)
        self.button(QWizard.WizardButton.CancelButton).setVisible(_page_id != int(PageId.EXPORT))
        self._focus_next_when_complete = False
        first_field = getattr(page, "first_field", None)
        if first_field is not None:  # Connect: the input choice, the page's first field (Enter on it goes Next)
            first_field().setFocus(Qt.FocusReason.OtherFocusReason)
        elif next_button.isVisible() and next_button.isEnabled():
            next_button.setFocus(Qt.FocusReason.OtherFocusReason)
        elif next_button.isVisible():
            # Next waits for the page's task: the focus rests on the page, never on the task's Cancel (Enter there
            # stopped a running audit)
            self._focus_next_when_complete = True
            if page is not None:
                page.setFocus(Qt.FocusReason.OtherFocusReason)
        elif page is not None:
            action = getattr(page, "action_button", None)
            if action is not None and action.isEnabled():
                # a keyboard focus (as a shortcut gives): the style draws its focus ring (with OtherFocusReason it drew
                # none, and Enter on a button that looks unfocused is a guess)
                action.setFocus(Qt.FocusReason.ShortcutFocusReason)
            else:
                page.setFocus(Qt.FocusReason.OtherFocusReason)

    @Slot()
    def _restore_next_focus(self) -> None:
        """Next became clickable on the page entered with Next: the focus goes back to it unless the user has put it
        in a field meanwhile."""
        next_button = self.button(QWizard.WizardButton.NextButton)
        page = self.currentPage()  # None while the wizard closes
        if not self._focus_next_when_complete or page is None or not page.isComplete():
            return
        self._focus_next_when_complete = False
        if not isinstance(QApplication.focusWidget(), (QLineEdit, QAbstractSpinBox, QComboBox)):
            next_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def showEvent(self, event: QShowEvent) -> None:  # Qt override: the first page's focus is on Next, too
        super().showEvent(event)
        if not self._focus_placed:
            self._focus_placed = True
            QTimer.singleShot(0, lambda: None if self._closed else self._place_focus(self.currentId()))

    def sizeHint(self) -> QSize:  # Qt override
        return QSize(1200, 800)

    def shutdown(self, deadline_ms: int = 5000) -> bool:
        """Answer pending host-key questions with No, cancel running tasks and wait for their workers (up to
        ``deadline_ms``); then close the history store the wizard opened. True if every worker ended."""
        self.asker.close()
        ended = self.runner.shutdown(deadline_ms)
        self.pages[PageId.EXPORT].close_child()
        if ended and self._owns_store and not self._closed:
            self._closed = True
            for store, _problem in self._opened:  # opened, but its answer is still queued for the GUI thread
                if store is not None:
                    store.close()
            self._opened.clear()
            if self.state.store is not None:
                self.state.store.close()
            self.state.store, self.state.store_loading = None, False
            self.state.store_problem = "the wizard was closed"
        return ended

    # --- closing never loses work ------------------------------------------------------------------
    def unsaved_work(self) -> list[str]:
        """What closing now would lose or stop, one sentence each (empty: nothing)."""
        out = []
        names = {PageId.DISCOVER: "an audit is running", PageId.EXPORT: "the reports are being written",
                 PageId.BENCHMARK: "a benchmark is running (what it changed is restored when it stops)"}
        out += [text for pid, text in names.items() if self.pages[pid].task_running()]
        connect = self.pages[PageId.CONNECT]
        typed = [t for t in (e.pending_entry() for e in (connect.vcenter_editor, connect.ssh_editor,
                                                         connect.nsx_editor)) if t]
        if typed:
            out.append(f"typed but not added: {', '.join(typed)}")
        state = self.state
        discover = self.pages[PageId.DISCOVER]
        # whatever input is selected: live targets added while "Demo" was still ticked were lost without a question
        if state.live_specs() and (state.source is not Source.LIVE or state.audit is None
                                   or discover.audited_key() != state.input_key()):
            n = len(state.live_specs())
            kept = (" (the SSH hosts and vCenters are kept for the next start, without passwords not saved in the "
                    "keyring)" if self.remember else "")
            out.append(f"{n} live target{'s' if n != 1 else ''} entered but not audited{kept}")
        if state.audit is not None and not state.exported and state.audit.history_id is None:
            out.append("the audit is neither exported nor kept in Past audits")
        return out

    def _confirm_quit(self, proceed: Any) -> bool:
        """True when the wizard may close now; otherwise asks (non-blocking :attr:`quit_box`) and calls
        ``proceed()`` again once the user chose Quit."""
        reasons = [] if self._quit_confirmed else self.unsaved_work()
        if not reasons:
            return True
        if self.quit_box is None:
            box = QMessageBox(QMessageBox.Icon.Warning, "Quit NIC Advisor?",
                              "Quitting now would lose or stop work:\n\n" + "\n".join(f"• {r}" for r in reasons),
                              QMessageBox.StandardButton.Cancel, self)
            # "Keep working", not "Cancel": the page has its own Cancel (of its task), which this is not
            box.button(QMessageBox.StandardButton.Cancel).setText("Keep working")
            quit_button = box.addButton("Quit anyway", QMessageBox.ButtonRole.DestructiveRole)
            box.setDefaultButton(QMessageBox.StandardButton.Cancel)
            box.setWindowModality(Qt.WindowModality.WindowModal)

            def answered(button: Any) -> None:
                self.quit_box = None
                if button is quit_button:
                    self._quit_confirmed = True
                    proceed()

            box.buttonClicked.connect(answered)
            self.quit_box = box
            box.open()
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        """Enter in a text field never presses Next or Finish (a typed path or URL is no decision to go on), and Enter
        never presses Finish at all: closing is a click (or Space on the focused button). Enter on a radio button
        goes Next when Next can be pressed; Enter on a page's focused ``action_button`` (Export) presses it."""
        focus = QApplication.focusWidget()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if (isinstance(focus, (QLineEdit, QAbstractSpinBox, QComboBox))
                    or focus is self.button(QWizard.WizardButton.FinishButton)):
                event.accept()
                return
            action = getattr(self.currentPage(), "action_button", None)
            if focus is not None and focus is action and action.isEnabled():  # Export: Enter exports, as Space does
                event.accept()
                action.click()
                return
            next_button = self.button(QWizard.WizardButton.NextButton)
            # Enter on a choice (a radio button: Connect's Input) goes Next, as a default button would; not on a check
            # box (Connect's "Remember in OS keyring" sits in a form whose entry is not added yet)
            if isinstance(focus, QRadioButton) and next_button.isVisible() and next_button.isEnabled():
                event.accept()
                self.next()
                return
        super().keyPressEvent(event)

    def _remember_window(self) -> None:
        if self.remember:
            app_settings.save_geometry(self.saveGeometry())
            app_settings.save_targets(self.state.ssh_hosts, self.state.vcenters)

    def done(self, result: int) -> None:  # Qt override: Finish, Quit, Escape
        if not self._confirm_quit(lambda: self.done(result)):
            return
        self._remember_window()
        self.shutdown()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override: the window's close button
        if not self._confirm_quit(self.close):
            event.ignore()
            return
        self._remember_window()
        self.shutdown()
        super().closeEvent(event)
