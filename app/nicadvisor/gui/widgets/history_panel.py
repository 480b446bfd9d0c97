"""The "Past audits" panel: the audit history (``nicadvisor.store.AuditStore``) as a table, with Open, Delete
and Refresh. Reading, loading and deleting run on worker threads (SQLite file I/O)."""
from __future__ import annotations

import datetime as _dt
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractButton, QAbstractItemView, QDialog, QFileDialog, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QLineEdit, QMessageBox,
    QPushButton, QTableWidgetItem, QTextBrowser, QVBoxLayout, QWidget,
)

from nicadvisor.gui import audit_cache
from nicadvisor.gui.state import WizardState
from nicadvisor.gui.tasks import TaskHandle, TaskRunner
from nicadvisor.gui.widgets.common import readonly_table
from nicadvisor.gui.widgets.formatting import esc
from nicadvisor.model.text import local_time, plural

COLUMNS = ("Date", "Name", "Status", "Verdict", "Hosts", "pNICs", "Errors", "Warnings", "Inputs")
#: Width (px) of the Verdict column; the user can widen it, the tooltip shows the whole verdict.
VERDICT_WIDTH = 320
#: The audit run's own state, not its verdict: no tick for a finished run ("✔ done" beside NOT READY read as an OK).
STATUS_TEXT = {"done": "finished", "cancelled": "■ cancelled", "failed": "✖ failed", "interrupted": "▲ interrupted",
               "running": "◷ running", "nothing read": "✖ nothing read"}
#: Colour of the verdict column's text per verdict status.
VERDICT_INK = {"ready": "#1b5e20", "not_ready": "#8e0000", "not_rated": "#444444"}
IdRole = Qt.ItemDataRole.UserRole + 1


def inputs_text(inputs: tuple[str, ...], demo_dir: str | None = None) -> str:
    """Short text of an audit's inputs: ``"demo lab"`` for the bundled demo folder, a file or folder's
    name for paths, live targets (``vcenter://…``, ``ssh://…``, ``https://…``) and ``local`` as they are."""
    out = []
    for text in inputs:
        if demo_dir and text == demo_dir:
            out.append("demo lab")
        elif "://" in text or text == "local":
            out.append("this machine" if text == "local" else text)
        else:
            out.append(PurePath(text).name or text)
    return ", ".join(out)


def _reopen(store: Any, audit_id: int) -> Any:
    """``services.audit.reopen_audit`` (worker thread): imported here, not with the panel, so that the audit stack
    (the rules engine builds its parser on import) is not loaded before the wizard's first window."""
    from nicadvisor.services.audit import reopen_audit

    return audit_cache.warm(reopen_audit(store, audit_id))  # its verdict made here, not on the GUI thread


def _demo_dir() -> str | None:
    try:
        from nicadvisor.paths import demo_lab_dir
    except ImportError:
        return None
    return str(demo_lab_dir())


def _text_dialog(parent: QWidget, title: str, text: str, *extra: QPushButton) -> QDialog:
    """A non-modal dialog showing ``text`` (plain) with the ``extra`` buttons and a Close button, none of them the
    default; deleted on close. The caller opens it."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    view = QTextBrowser(dialog)
    view.setPlainText(text)
    close = QPushButton("Close", dialog)
    close.setAutoDefault(False)
    close.clicked.connect(dialog.close)
    box = QVBoxLayout(dialog)
    box.addWidget(view)
    row = QHBoxLayout()
    for button in (*extra, close):
        button.setParent(dialog)
        button.setAutoDefault(False)
        row.addWidget(button)
    box.addLayout(row)
    dialog.resize(900, 600)
    return dialog


class PastAuditsPanel(QWidget):
    """Lists ``state.store.list_audits()`` newest first: date, status, verdict, hosts, pNICs, errors, warnings,
    inputs.

    Open loads the selected audit (worker, ``services.audit.reopen_audit``: an unfinished one gets its rules
    evaluated and stays NOT RATED) and emits :attr:`sig_loaded`; Delete asks for confirmation
    (:attr:`confirm_box`, opened non-blocking), then removes it. While the wizard opens the history on a
    worker (``state.store_loading``) the panel says "History loading…"; when it could not be opened
    (``state.store`` None) the panel says why and that audits run without history. :meth:`show_store_state`
    redraws this once the store is known.

    Signals:
        sig_listed(int): the list was (re)read; carries the number of audits.
        sig_loaded(object): an audit was loaded (``nicadvisor.model.Audit`` with ``history_id`` set).
        sig_deleted(int): the audit with this id was deleted.
        sig_failed(str): reading, loading or deleting failed; the message is also shown in :attr:`status`.
        sig_verified(object): "Verify a past plan" finished
            (:class:`nicadvisor.services.verify.VerifyOutcome`; its lines are in :attr:`verify_dialog`).
    """

    sig_listed = Signal(int)
    sig_loaded = Signal(object)
    sig_deleted = Signal(int)
    sig_failed = Signal(str)
    sig_verified = Signal(object)

    def __init__(self, state: WizardState, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = runner
        self.summaries: list[Any] = []
        self._outcome_shown = False  # the status shows what the last user action did (see _show_outcome)
        self.confirm_box: QMessageBox | None = None
        self._handles: dict[str, TaskHandle] = {}
        self._demo = _demo_dir()

        self.table = readonly_table(COLUMNS, single=False, alternating=True, fit=len(COLUMNS) - 1)
        # the verdict is elided to a fixed width (its tooltip holds it whole): at its full length it pushed Hosts,
        # pNICs, Errors, Warnings and Inputs, which tell audits apart, off the screen
        verdict = COLUMNS.index("Verdict")
        self.table.horizontalHeader().setSectionResizeMode(verdict, QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().resizeSection(verdict, VERDICT_WIDTH)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.compare_dialog: QDialog | None = None
        self.name_dialog: QInputDialog | None = None

        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Show this audit (matrix, findings, export) without running it again")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Select two audits (Ctrl+click): what changed from the older to the newer")
        self.name_button = QPushButton("Name…")
        self.verify_button = QPushButton("Verify a past plan")
        self.verify_button.setToolTip("After the change: read this audit's inputs again and check each item of its "
                                      "plan (done, not done, changed differently, not re-read)")
        self.verify_cancel = QPushButton("Stop verifying")
        self.verify_cancel.setAutoDefault(False)  # never the default: Enter must not stop a running check
        self.verify_cancel.setVisible(False)
        self.verify_dialog: QDialog | None = None
        self.verify_handle: TaskHandle | None = None
        self.verified: Any = None  # the last VerifyOutcome
        self.name_button.setToolTip("Give the selected audit a name (\"before the driver update\")")
        self.delete_button = QPushButton("Delete…")
        self.refresh_button = QPushButton("Refresh")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search (name, date, verdict, inputs)")
        self.search.setClearButtonEnabled(True)
        for b in (self.open_button, self.compare_button, self.name_button, self.delete_button, self.refresh_button):
            b.setAutoDefault(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QHBoxLayout()
        for b in (self.open_button, self.compare_button, self.name_button, self.verify_button, self.verify_cancel,
                  self.delete_button, self.refresh_button):
            buttons.addWidget(b)
        buttons.addWidget(self.search)
        buttons.addWidget(self.status, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)

        self.open_button.clicked.connect(self.open_selected)
        self.compare_button.clicked.connect(self.compare_selected)
        self.name_button.clicked.connect(self.name_selected)
        self.verify_button.clicked.connect(self.verify_selected)
        self.verify_cancel.clicked.connect(self.cancel_verify)
        self.search.textChanged.connect(self._apply_search)
        self.delete_button.clicked.connect(self.delete_selected)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.cellDoubleClicked.connect(lambda _r, _c: self.open_selected())
        self._show_unavailable()
        self._update_buttons()

    def _show_unavailable(self) -> None:
        """"History loading…" or why there is no history, while ``state.store`` is None; Refresh follows."""
        state = self.state
        self.refresh_button.setEnabled(state.store is not None)
        if state.store is not None:
            return
        if state.store_loading:
            self.status.setText("History loading…")
        else:
            self.status.setText(f"<b style='color:#b00020'>The audit history is not available:</b> "
                                f"{esc(state.store_problem or 'it could not be opened')}. Audits run without "
                                "history (nothing is kept after the wizard closes).")

    def show_store_state(self) -> None:
        """The history store is known now (opened, or not with ``state.store_problem``): list the past
        audits (worker) or say why there are none."""
        self._show_unavailable()
        self._update_buttons()
        self.refresh()

    # --- helpers -----------------------------------------------------------------------------------
    def available(self) -> bool:
        """True when the history store is open."""
        return self.state.store is not None

    def selected_ids(self) -> list[int]:
        """The audit ids of the selected rows, in display order (newest first)."""
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [int(self.table.item(r, 0).data(IdRole)) for r in rows if self.table.item(r, 0) is not None]

    def selected_id(self) -> int | None:
        """The audit id of the (first) selected row, or None."""
        ids = self.selected_ids()
        return ids[0] if ids else None

    def select_id(self, audit_id: int) -> bool:
        """Select the row of ``audit_id``; False when it is not listed."""
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).data(IdRole) == audit_id:
                self.table.selectRow(row)
                return True
        return False

    def _busy(self) -> bool:
        return any(not h.done for h in self._handles.values())

    @Slot()
    def _update_buttons(self) -> None:
        ids = self.selected_ids() if self.available() and not self._busy() else []
        self.open_button.setEnabled(len(ids) == 1)
        self.name_button.setEnabled(len(ids) == 1)
        self.delete_button.setEnabled(len(ids) == 1)
        self.compare_button.setEnabled(len(ids) == 2)
        self.verify_button.setEnabled(len(ids) == 1)

    def _run(self, name: str, fn, on_done) -> TaskHandle:
        handle = self.runner.prepare(f"history-{name}", fn)
        self._handles[name] = handle
        handle.sig_finished.connect(on_done)
        handle.sig_failed.connect(self._on_failed)
        handle.sig_cancelled.connect(self._update_buttons)
        self.runner.start(handle)
        self._update_buttons()
        return handle

    # --- list --------------------------------------------------------------------------------------
    @Slot()
    def refresh(self) -> None:
        """Re-read the list of past audits (worker)."""
        store = self.state.store
        if store is None:
            return
        self._run("list", lambda _p, _c: store.list_audits(), self._on_listed)

    @Slot(object)
    def _on_listed(self, summaries: Any) -> None:
        keep = self.selected_id()
        self.summaries = list(summaries or [])
        self.table.setRowCount(len(self.summaries))
        for row, s in enumerate(self.summaries):
            verdict = s.verdict_of()
            values = (local_time(s.created_at), s.name, STATUS_TEXT.get(s.display_status, s.display_status),
                      f"{verdict.symbol} {verdict.headline}", str(s.hosts), str(s.pnics),
                      "—" if s.errors is None else str(s.errors), "—" if s.warnings is None else str(s.warnings),
                      inputs_text(s.inputs, self._demo)
                      + (f" — not read: {inputs_text(s.unread, self._demo)}" if s.unread else ""))
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                if col in (4, 5, 6, 7):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if col == 3:
                    item.setForeground(QBrush(QColor(VERDICT_INK[verdict.status])))
                item.setToolTip("\n".join(s.inputs) + "".join(f"\n✖ not read: {u}" for u in s.unread)
                                if col == len(values) - 1 else text)
                if col == 0:
                    item.setData(IdRole, s.id)
                    item.setToolTip(f"audit #{s.id}, started {s.created_at}"
                                    + (f", finished {s.finished_at}" if s.finished_at else ""))
                self.table.setItem(row, col, item)
        self._apply_search()
        if keep is not None:
            self.select_id(keep)
        if self.table.rowCount() and self.selected_id() is None:
            self.table.selectRow(0)
        if not self.summaries:
            self.status.setText("No past audit yet: every audit you run is kept here.")
        elif not self._outcome_shown:  # a refresh never hides what the user's last action did ("Wrote …")
            self.status.setText(f"{len(self.summaries)} past audit{'s' if len(self.summaries) != 1 else ''}. "
                                "Open shows one again without reading the hosts.")
        self._update_buttons()
        self.sig_listed.emit(len(self.summaries))

    def _show_outcome(self, text: str) -> None:
        """Show what the user's last action did (compared, opened, verified, wrote, deleted, failed): a later
        refresh of the list keeps it (under load the refresh after a verification replaced "Wrote …")."""
        self._outcome_shown = True
        self.status.setText(text)

    @Slot()
    def _apply_search(self) -> None:
        needle = self.search.text().strip().lower()
        for row in range(self.table.rowCount()):
            text = " ".join(self.table.item(row, c).text() for c in range(self.table.columnCount())).lower()
            self.table.setRowHidden(row, bool(needle) and needle not in text)

    def visible_ids(self) -> list[int]:
        """The audit ids of the rows the search leaves shown, in display order."""
        return [int(self.table.item(r, 0).data(IdRole)) for r in range(self.table.rowCount())
                if not self.table.isRowHidden(r)]

    # --- compare and name --------------------------------------------------------------------------
    @Slot()
    def compare_selected(self) -> None:
        """Compare the two selected audits (older → newer) on a worker; the result opens in
        :attr:`compare_dialog` (non-modal)."""
        ids, store = self.selected_ids(), self.state.store
        if len(ids) != 2 or store is None or self._busy():
            return
        before, after = sorted(ids)
        self.status.setText(f"Comparing audit #{before} with #{after}…")

        def task(_p, _c):
            from nicadvisor.services.history import compare_audits

            return before, after, compare_audits(store, before, after)

        self._run("compare", task, self._on_compared)

    @Slot(object)
    def _on_compared(self, result: Any) -> None:
        from nicadvisor.model.diff import diff_lines

        before, after, diff = result
        dialog = _text_dialog(self, f"Audit #{before} → #{after}", "\n".join(diff_lines(diff)))
        self.compare_dialog = dialog
        dialog.finished.connect(lambda _r: setattr(self, "compare_dialog", None))
        self._show_outcome(f"Compared audit #{before} with #{after}.")
        self._update_buttons()
        dialog.open()

    @Slot()
    def name_selected(self) -> None:
        """Ask for a name for the selected audit (non-modal input dialog), then store it (worker)."""
        audit_id = self.selected_id()
        if audit_id is None or self.state.store is None:
            return
        current = next((x.name for x in self.summaries if x.id == audit_id), "")
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Name past audit")
        dialog.setLabelText(f"Name of audit #{audit_id}:")
        dialog.setTextValue(current)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dialog.textValueSelected.connect(lambda text, i=audit_id: self._store_name(i, text))
        dialog.finished.connect(lambda _r: setattr(self, "name_dialog", None))
        self.name_dialog = dialog
        dialog.open()

    def _store_name(self, audit_id: int, name: str) -> None:
        store = self.state.store
        self._run("name", lambda _p, _c: store.set_name(audit_id, name), lambda _r: self.refresh())

    # --- open --------------------------------------------------------------------------------------
    @Slot()
    def open_selected(self) -> None:
        """Load the selected audit (worker); :attr:`sig_loaded` carries it."""
        audit_id, store = self.selected_id(), self.state.store
        if audit_id is None or store is None or self._busy():
            return
        self.status.setText(f"Opening audit #{audit_id}…")
        self._run("load", lambda _p, _c: _reopen(store, audit_id), self._on_loaded)

    @Slot(object)
    def _on_loaded(self, audit: Any) -> None:
        self._show_outcome(f"Opened audit #{audit.history_id}: {plural(len(audit.hosts), 'host')}.")
        self._update_buttons()
        self.sig_loaded.emit(audit)

    # --- verify a past plan ----------------------------------------------------------------------
    @Slot()
    def verify_selected(self) -> None:
        """Read the selected audit's inputs again and check its plan (worker, with progress in :attr:`status` and
        :attr:`verify_cancel`); the result opens in :attr:`verify_dialog` and :attr:`sig_verified` carries it. Live
        targets need the CLI (their passwords): ``nic-advisor verify --against ID``."""
        audit_id, store = self.selected_id(), self.state.store
        if audit_id is None or store is None or self._busy():
            return
        self.status.setText(f"Verifying the plan of audit #{audit_id}…")

        def task(progress, cancel):
            from nicadvisor.services.audit import AuditRequest
            from nicadvisor.services.verify import load_approved, stored_inputs, verify_plan

            approved = load_approved(store, audit_id)
            inputs = stored_inputs(approved[0])
            if inputs.live:
                raise ValueError(f"audit #{audit_id} read live targets: verify it with their passwords on the "
                                 f"command line (nic-advisor verify --against {audit_id})")
            request = AuditRequest(capture_paths=inputs.capture_paths, local=inputs.local)
            return verify_plan(store, audit_id, request, progress=progress, cancel=cancel, approved=approved)

        handle = self._run("verify", task, self._on_verified)
        self.verify_handle = handle
        handle.sig_progress.connect(
            lambda f, m, i=audit_id: self.status.setText(f"Verifying audit #{i}: {f * 100:.0f} % {esc(m)}"))
        for end in (handle.sig_finished, handle.sig_failed, handle.sig_cancelled):
            end.connect(lambda *_a: self.verify_cancel.setVisible(False))
        handle.sig_cancelled.connect(lambda: self.status.setText("Verification stopped; no record was made."))
        self.verify_cancel.setVisible(True)

    @Slot()
    def cancel_verify(self) -> None:
        """Stop a running verification (the audit it was reading stops at its next step)."""
        if self.verify_handle is not None and not self.verify_handle.done:
            self.verify_handle.cancel()

    @Slot(object)
    def _on_verified(self, outcome: Any) -> None:
        from nicadvisor.report.plan_check import check_lines

        check = outcome.check
        self.verified = outcome
        save = QPushButton("Save record (PDF and JSON)…")
        save.setToolTip("The one-page post-change record for the change ticket, linked to this audit by its id and "
                        "SHA-256")
        save.clicked.connect(self._ask_record_path)
        dialog = _text_dialog(self, f"Plan of audit #{check.against_id}, verified",
                              "\n".join(check_lines(check) + [f"note: {n}" for n in check.notes]), save)
        self.verify_dialog = dialog
        dialog.finished.connect(lambda _r: setattr(self, "verify_dialog", None))
        self._show_outcome(f"Verified audit #{check.against_id}: {esc(check.summary())}.")
        self._update_buttons()
        self.sig_verified.emit(outcome)
        self.refresh()  # the new audit is in the history
        dialog.open()

    @Slot()
    def _ask_record_path(self) -> None:
        if self.verified is None:
            return
        box = QFileDialog(self, "Save the post-change record", f"verify-audit-{self.verified.check.against_id}.pdf",
                          "PDF (*.pdf)")
        box.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.fileSelected.connect(self.save_record)
        box.open()

    @Slot(str)
    def save_record(self, path: str) -> None:
        """Write the last verification's record (worker): the PDF at ``path`` and the JSON beside it (``.json``)."""
        if self.verified is None or not path:
            return
        check = self.verified.check
        pdf = PurePath(path) if path.lower().endswith(".pdf") else PurePath(path + ".pdf")

        def task(_p, _c):
            from nicadvisor.services.verify import write_record

            return write_record(check, pdf_path=str(pdf), json_path=str(pdf.with_suffix(".json")))

        self._run("record", task, self._on_record_written)

    @Slot(object)
    def _on_record_written(self, paths: Any) -> None:
        self._show_outcome("Wrote " + esc(", ".join(str(p) for p in paths)) + ".")
        self._update_buttons()

    # --- delete ------------------------------------------------------------------------------------
    @Slot()
    def delete_selected(self) -> None:
        """Ask for confirmation (non-blocking message box), then delete the selected audit."""
        audit_id = self.selected_id()
        if audit_id is None or self.state.store is None:
            return
        s = next((x for x in self.summaries if x.id == audit_id), None)
        what = f"the audit of {local_time(s.created_at)} ({s.hosts} host(s))" if s else f"audit #{audit_id}"
        box = QMessageBox(QMessageBox.Icon.Question, "Delete past audit",
                          f"Delete {what} from the history? This cannot be undone.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.buttonClicked.connect(lambda button, i=audit_id, b=box: self._on_confirm(b, button, i))
        self.confirm_box = box
        box.open()

    def _on_confirm(self, box: QMessageBox, button: QAbstractButton, audit_id: int) -> None:
        self.confirm_box = None
        if box.standardButton(button) != QMessageBox.StandardButton.Yes:
            return
        store = self.state.store

        def task(_p, _c):
            store.delete(audit_id)
            return audit_id

        self._run("delete", task, self._on_deleted)

    @Slot(object)
    def _on_deleted(self, audit_id: Any) -> None:
        self._show_outcome(f"Deleted audit #{audit_id}.")
        self.sig_deleted.emit(int(audit_id))
        self.refresh()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._show_outcome(f"<b style='color:#b00020'>History:</b> {esc(message)}")
        self._update_buttons()
        self.sig_failed.emit(message)
