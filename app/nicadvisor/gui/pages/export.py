"""Export page: write the audit as PDF, JSON and/or CSV on a worker thread."""
from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox, QFileDialog, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QListWidget, QPushButton,
    QMessageBox, QVBoxLayout, QWidget,
)

from nicadvisor.gui import settings as app_settings
from nicadvisor.gui import audit_cache
from nicadvisor.gui.backend import Backend
from nicadvisor.gui.child_process import ChildProcess
from nicadvisor.gui.pages.discover import audit_summary
from nicadvisor.gui.pages.task_page import TaskPage
from nicadvisor.gui.state import WizardState
from nicadvisor.gui.tasks import TaskRunner
from nicadvisor.gui.widgets.common import ask_first
from nicadvisor.gui.widgets.formatting import esc
from nicadvisor.gui.widgets.verdict_banner import VerdictBanner

FORMATS = (("pdf", "PDF report", "PDF (*.pdf)"), ("json", "JSON (machine-readable)", "JSON (*.json)"),
           ("csv", "CSV (capability matrix and findings)", "CSV (*.csv)"),
           ("html", "HTML page (for mail and wikis)", "HTML (*.html)"))


def default_export_dir() -> str:
    """The user's documents folder as Qt reports it, or the current directory (no file-system access)."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return docs or os.getcwd()


def write_problem(path: Path, exc: OSError) -> str:
    """Why ``path`` could not be written, as a sentence: a folder on its way that is a file says so (the system said
    "File exists"), otherwise the file and the system's reason."""
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            return f"{folder} is not a folder, so {path.name} cannot be written in it"
    return f"{path}: {exc.strerror or exc}"


def contents_text(state: WizardState) -> str:
    """HTML: what an export of ``state`` holds (hosts, pNICs, findings, benchmark results)."""
    audit = state.audit
    if audit is None:
        return "No audit yet: go Back to Discover."
    n_bench = len(audit.benchmarks or [])
    bench = (f"{n_bench} benchmark result(s) from this machine" if n_bench
             else "no benchmark results (the Benchmark page was skipped)")
    hosts = ", ".join(h.name for h in audit.hosts[:8]) + (" …" if len(audit.hosts) > 8 else "")
    return (f"<b>{audit_summary(audit)}</b><br>Hosts: {esc(hosts) or 'none'}<br>"
            f"The PDF opens with this verdict and its reason, and holds, per host, the capability matrix and every "
            f"finding as a checklist item with its recommendation and evidence; then {bench}, and the inputs "
            f"that were not understood. JSON and CSV carry the same facts for other tools.")


class ExportPage(TaskPage):
    """Chooses output paths and runs ``backend.export(audit, pdf=, json=, csv=)`` in a worker.

    Parent folders are created by the worker. The written paths are listed in :attr:`written`.

    Signals:
        sig_export_done(object): list[Path] of the files written.
        sig_export_failed(str): the export raised; carries the message.
    """

    sig_export_done = Signal(object)
    sig_export_failed = Signal(str)

    TASK_NAME = "export"
    TASK_TITLE = "Export"
    CANCEL_ON_BACK = False  # the files are written in a few seconds; Back leaves the export running

    def __init__(self, state: WizardState, runner: TaskRunner, backend: Backend,
                 parent: QWidget | None = None) -> None:
        super().__init__(state, runner, backend, parent)
        self.end_signals = (self.sig_export_done, None, self.sig_export_failed)
        #: The process the reports are written in (closed by :meth:`close_child`, at the wizard's shutdown).
        self.child = ChildProcess()
        #: The question asked before files that exist are replaced (None: none open).
        self.overwrite_box: QMessageBox | None = None
        self._warmed = False
        self.setTitle("Export")
        self.setSubTitle("Save the audit: a PDF report with the tuning checklist, JSON for tools, CSV for "
                         "spreadsheets.")
        self.setFinalPage(True)

        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M")
        base = Path(app_settings.load_export_folder() or default_export_dir())
        self.checks: dict[str, QCheckBox] = {}
        self.edits: dict[str, QLineEdit] = {}
        box = QGroupBox("Files")
        grid = QGridLayout(box)
        for row, (fmt, label, _filter) in enumerate(FORMATS):
            check = QCheckBox(label)
            check.setChecked(fmt == "pdf" or fmt == "json")
            edit = QLineEdit(str(base / f"nic-advisor-{stamp}.{fmt}"))
            browse = QPushButton("Browse…")
            browse.clicked.connect(lambda _=False, f=fmt: self._on_browse(f))
            check.toggled.connect(edit.setEnabled)
            check.toggled.connect(browse.setEnabled)
            edit.setEnabled(check.isChecked())
            browse.setEnabled(check.isChecked())
            grid.addWidget(check, row, 0)
            grid.addWidget(edit, row, 1)
            grid.addWidget(browse, row, 2)
            self.checks[fmt] = check
            self.edits[fmt] = edit
        grid.setColumnStretch(1, 1)

        self.export_button = QPushButton("Export")
        # no auto-default (it would stay the dialog's default and take Enter from any field); Enter on the focused
        # Export button exports all the same: the wizard presses a page's focused action_button (keyPressEvent)
        self.export_button.setAutoDefault(False)
        self.action_button = self.export_button
        row_layout = QHBoxLayout()
        row_layout.addWidget(self.export_button)
        row_layout.addWidget(self.progress, 1)

        self.contents = QLabel("")
        self.contents.setWordWrap(True)
        contents_box = QGroupBox("What the files contain")
        QVBoxLayout(contents_box).addWidget(self.contents)

        self.written = QListWidget()
        self.written.setAlternatingRowColors(True)
        self.written.setMaximumHeight(8 * self.written.fontMetrics().lineSpacing() + 12)
        written_box = QGroupBox("Written")
        wl = QVBoxLayout(written_box)
        wl.addWidget(self.written)
        self.hint = QLabel("Nothing exported yet. Choose the files above and click Export; Finish closes the wizard.")
        self.hint.setWordWrap(True)
        self.hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        wl.addWidget(self.hint)
        self.open_pdf_button = QPushButton("Open PDF")
        self.show_folder_button = QPushButton("Show folder")
        opened = QHBoxLayout()
        for b in (self.open_pdf_button, self.show_folder_button):
            b.setAutoDefault(False)
            b.setEnabled(False)
            opened.addWidget(b)
        opened.addStretch(1)
        wl.addLayout(opened)
        self.open_pdf_button.clicked.connect(self.open_pdf)
        self.show_folder_button.clicked.connect(self.show_folder)

        self.banner = VerdictBanner()

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(contents_box)
        layout.addWidget(box)
        layout.addLayout(row_layout)
        layout.addWidget(written_box)
        layout.addStretch(1)
        self.export_button.clicked.connect(self.start_export)

    def initializePage(self) -> None:  # Qt override
        if self.state.audit is not None and not self._warmed:  # start the report process while the user reads
            self._warmed = True
            child = self.child
            self.runner.submit("export-warm", lambda _p, _c: child.warm())
        self.export_button.setEnabled(self.state.audit is not None)
        self.banner.show_audit(self.state)
        self.contents.setText(contents_text(self.state))

    def chosen_paths(self) -> dict[str, Path | None]:
        """``{"pdf": Path|None, "json": ..., "csv": ...}`` from the check boxes and line edits."""
        out: dict[str, Path | None] = {}
        for fmt, _label, _filter in FORMATS:
            text = self.edits[fmt].text().strip()
            out[fmt] = Path(os.path.expanduser(text)) if self.checks[fmt].isChecked() and text else None
        return out

    @Slot()
    def start_export(self) -> None:
        """Run the export of ``state.audit`` to the chosen paths on a worker thread."""
        if self.state.audit is None or self.task_running():
            return
        paths = self.chosen_paths()
        if not any(paths.values()):
            self.hint.setText("Tick at least one format to export.")
            return
        chosen = [(fmt, p) for fmt, p in paths.items() if p is not None]
        existing = [p for _fmt, p in chosen if p.is_file()]
        if existing:  # it overwrote them silently: ask, keeping them by default
            self._ask_overwrite(existing, chosen)
            return
        self._export(chosen)

    def _ask_overwrite(self, existing: list[Path], chosen: list[tuple[str, Path]]) -> None:
        """Ask (window-modal, not blocking: :attr:`overwrite_box`) before replacing ``existing`` files; the default
        keeps them and exports nothing."""
        if self.overwrite_box is not None:
            return
        n = len(existing)

        def answered(replace: bool) -> None:
            self.overwrite_box = None
            if replace:
                self._export(chosen)
            else:
                self.hint.setText("Nothing was replaced: change the file names above, or click Export and Replace.")

        self.overwrite_box = ask_first(
            self, "Replace existing files?",
            f"{'This file exists' if n == 1 else f'These {n} files exist'} already:\n\n"
            + "\n".join(str(p) for p in existing) + f"\n\nReplace {'it' if n == 1 else 'them'} with the new report?",
            "Replace", "Keep them, choose other names", answered)

    def _export(self, chosen: list[tuple[str, Path]]) -> None:
        """Write ``chosen`` (format, path) on a worker, each format in the report process."""
        if self.state.audit is None or self.task_running():
            return
        audit, export_fn, store, child = self.state.audit, self.backend.export, self.state.store, self.child

        def task(progress, cancel):
            written: list[Path] = []
            failed: list[str] = []
            for i, (fmt, path) in enumerate(chosen):  # one format at a time: a failure loses none of the others
                progress(0.1 + 0.9 * i / len(chosen), f"Writing {path.name}…")
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    # in the child process: the PDF build held the interpreter lock and froze the window ~320 ms
                    written += child.export(export_fn, audit, store, {fmt: path}, cancel)
                except OSError as exc:
                    failed.append(write_problem(path, exc))
            return written, failed

        self.run_task(task, "Exporting…")

    def task_finished(self, result: Any) -> Any:  # TaskPage hook: the done signal carries the written paths
        written, failed = result
        self.state.exported = list(written)
        self.written.clear()
        for p in written:
            self.written.addItem(str(p))
        pdfs = [p for p in written if p.suffix.lower() == ".pdf"]
        self.open_pdf_button.setEnabled(bool(pdfs))
        self.show_folder_button.setEnabled(bool(written))
        self.progress.set_failed(bool(failed))
        if failed:
            self.progress.end(f"Exported {len(written)} of {len(written) + len(failed)} file(s).", 1.0)
            self.hint.setText("<b style='color:#b00020'>Not written:</b> " + "<br>".join(esc(f) for f in failed)
                              + "<br>Choose another folder and click Export again.")
        else:
            self.progress.end(f"Exported {len(written)} file(s).", 1.0)
            self.hint.setText("Done. Click Finish to close the wizard, or export again elsewhere.")
        if written:
            app_settings.save_export_folder(str(written[0].parent))
        return written

    def task_failed(self, message: str) -> None:  # TaskPage hook
        super().task_failed(message)
        self.progress.set_failed(True)
        self.hint.setText(f"<b style='color:#b00020'>The export failed:</b> {esc(message)}")

    def close_child(self) -> None:
        """Stop the report process (the wizard is closing)."""
        self.child.close()

    @Slot()
    def open_pdf(self) -> bool:
        """Open the PDF just written with the desktop's viewer; when the desktop has no program for it (the button did
        nothing), say so and give the path. Returns whether the desktop took it."""
        pdf = next((p for p in self.state.exported if p.suffix.lower() == ".pdf"), None)
        return pdf is not None and self._open(pdf, "PDF files")

    @Slot()
    def show_folder(self) -> bool:
        """Open the folder of the files just written in the desktop's file manager; when there is none, say so and give
        the path. Returns whether the desktop took it."""
        return bool(self.state.exported) and self._open(self.state.exported[0].parent, "folders")

    def _open(self, path: Path, what: str) -> bool:
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            return True
        self.hint.setText(f"<b>This desktop has no program that opens {what}.</b> Open it yourself: "
                          f"<code>{esc(path)}</code>")
        return False

    def _on_browse(self, fmt: str) -> None:
        label, name_filter = next((lbl, flt) for f, lbl, flt in FORMATS if f == fmt)
        path, _ = QFileDialog.getSaveFileName(self, f"Save {label}", self.edits[fmt].text(), name_filter)
        if path:
            self.edits[fmt].setText(path)
