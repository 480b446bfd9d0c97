"""Discover page: runs the audit on a worker thread and shows hosts, pNICs and unreadable inputs."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QGroupBox, QHBoxLayout, QHeaderView, QLabel, QListWidget, QListWidgetItem, QPushButton, QSplitter,
    QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget, QWizardPage,
)

from nicadvisor.gui.backend import Backend
from nicadvisor.gui.state import Source, WizardState
from nicadvisor.gui.tasks import TaskHandle, TaskRunner
from nicadvisor.gui.widgets.formatting import driver_text, esc, pci_ids_text, speed_text
from nicadvisor.gui.widgets.progress_panel import ProgressPanel

TREE_COLUMNS = ("Host / pNIC", "Driver", "Link speed", "MTU", "PCI address", "PCI IDs (ven:dev  subven:subdev)",
                "Description")


def audit_summary(audit: Any) -> str:
    """One line: hosts, pNICs, findings by severity, inputs not understood."""
    hosts = len(audit.hosts)
    pnics = sum(1 for h in audit.hosts for p in h.pnics if p.is_physical is not False)
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in audit.findings:
        sev = getattr(f.severity, "value", str(f.severity))
        counts[sev] = counts.get(sev, 0) + 1
    parts = [f"{hosts} host{'s' if hosts != 1 else ''}", f"{pnics} physical pNIC{'s' if pnics != 1 else ''}",
             f"{len(audit.findings)} findings ({counts['error']} errors, {counts['warning']} warnings, "
             f"{counts['info']} info)"]
    if audit.inputs_not_understood:
        parts.append(f"{len(audit.inputs_not_understood)} input(s) not understood")
    return " · ".join(parts)


class DiscoverPage(QWizardPage):
    """Runs ``backend.audit`` for the input chosen on Connect; complete once the audit finished.

    The audit starts when the page is entered (and again when the input changed, or on Run again).
    Cancel sets the task's ``threading.Event``; the page then says so and offers Run again.

    Signals:
        sig_audit_done(object): the audit finished; carries the ``nicadvisor.model.Audit``.
        sig_audit_cancelled(): the audit was cancelled.
        sig_audit_failed(str): the audit raised; carries the error message.
    """

    sig_audit_done = Signal(object)
    sig_audit_cancelled = Signal()
    sig_audit_failed = Signal(str)

    def __init__(self, state: WizardState, runner: TaskRunner, backend: Backend,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = runner
        self.backend = backend
        self.setTitle("Discover")
        self.setSubTitle("Reading the hosts and their physical NICs (pNICs) and running the NSX readiness rules.")
        self._handle: TaskHandle | None = None
        self._audit_key: tuple | None = None
        self.outcome = "idle"  # idle | running | done | cancelled | failed

        self.progress = ProgressPanel()
        self.rerun_button = QPushButton("Run again")
        self.rerun_button.setEnabled(False)
        top = QHBoxLayout()
        top.addWidget(self.progress, 1)
        top.addWidget(self.rerun_button)

        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(TREE_COLUMNS))
        self.tree.setHeaderLabels(list(TREE_COLUMNS))
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setStretchLastSection(True)

        self.problems = QListWidget()
        self.problems.setWordWrap(True)
        self.problems.setAlternatingRowColors(True)
        self.problems_box = QGroupBox("Inputs not understood")
        pb = QVBoxLayout(self.problems_box)
        pb.addWidget(self.problems)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.problems_box)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)

        self.rerun_button.clicked.connect(self.start_audit)

    # --- wizard hooks ----------------------------------------------------------------------------
    def initializePage(self) -> None:  # Qt override
        if self.state.audit is None or self._audit_key != self.state.input_key():
            self.start_audit()

    def cleanupPage(self) -> None:  # Qt override: Back pressed
        if self._handle is not None and not self._handle.done:
            self._handle.cancel()

    def isComplete(self) -> bool:  # Qt override
        return self.outcome == "done" and self.state.audit is not None

    # --- the audit task --------------------------------------------------------------------------
    @Slot()
    def start_audit(self) -> None:
        """Start (or restart) the audit for the current input; the previous task is cancelled."""
        if self._handle is not None and not self._handle.done:
            self._handle.cancel()
        self.state.audit = None
        self._audit_key = self.state.input_key()
        self.outcome = "running"
        self.tree.clear()
        self._placeholder("Reading the inputs… hosts and pNICs appear here when the audit has finished.")
        self.problems.clear()
        self.summary.setText("")
        self.rerun_button.setEnabled(False)
        self.completeChanged.emit()

        source = self.state.source
        paths = self.state.capture_paths if source is Source.CAPTURES else ()
        audit_fn = self.backend.audit

        def task(progress, cancel):
            return audit_fn(demo=source is Source.DEMO, capture_paths=paths, local=source is Source.LOCAL,
                            progress=progress, cancel=cancel)

        handle = self.runner.prepare("audit", task)
        self._handle = handle
        handle.sig_finished.connect(self._on_finished)
        handle.sig_cancelled.connect(self._on_cancelled)
        handle.sig_failed.connect(self._on_failed)
        what = {Source.DEMO: "the demo lab", Source.LOCAL: "this machine",
                Source.CAPTURES: f"{len(paths)} capture path(s)"}[source]
        self.progress.bind(handle, f"Auditing {what}…")
        self.runner.start(handle)

    @Slot(object)
    def _on_finished(self, audit: Any) -> None:
        if self.sender() is not self._handle:
            return
        if self.state.bench_report is not None and not audit.benchmarks:
            audit.benchmarks = list(self.state.bench_report.results)  # the benchmark is of this machine
        self.state.audit = audit
        self.outcome = "done"
        self.progress.end("Audit finished." if audit.hosts else "Audit finished: no host found.", 1.0)
        self.rerun_button.setEnabled(True)
        self._show(audit)
        self.completeChanged.emit()
        self.sig_audit_done.emit(audit)

    @Slot()
    def _on_cancelled(self) -> None:
        if self.sender() is not self._handle:
            return
        self.outcome = "cancelled"
        self.progress.end("Audit cancelled — nothing was kept. Click Run again to restart it, or Back to "
                          "choose another input.")
        self.summary.setText("<b>Cancelled.</b>")
        self.tree.clear()
        self._placeholder("The audit was cancelled: nothing was kept. Click Run again to restart it.")
        self.rerun_button.setEnabled(True)
        self.completeChanged.emit()
        self.sig_audit_cancelled.emit()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        if self.sender() is not self._handle:
            return
        self.outcome = "failed"
        self.progress.end(f"Audit failed: {message}")
        self.summary.setText(f"<b style='color:#b00020'>The audit failed:</b> {esc(message)}")
        self.tree.clear()
        self._placeholder("The audit failed (see above). Click Run again, or Back to choose another input.")
        self.rerun_button.setEnabled(True)
        self.completeChanged.emit()
        self.sig_audit_failed.emit(message)

    # --- display ---------------------------------------------------------------------------------
    def _placeholder(self, text: str) -> None:
        item = QTreeWidgetItem([text])
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # readable, not selectable
        font = QFont(self.tree.font())
        font.setItalic(True)
        item.setFont(0, font)
        self.tree.addTopLevelItem(item)
        item.setFirstColumnSpanned(True)

    def _show(self, audit: Any) -> None:
        self.tree.clear()
        self.summary.setText(esc(audit_summary(audit)))
        bold = QFont(self.tree.font())
        bold.setBold(True)
        grey = QBrush(QColor("#777777"))
        for host in audit.hosts:
            kind = {"esxi": "ESXi", "linux": "Linux"}.get(host.kind or "", host.kind or "")
            version = " ".join(p for p in (kind, host.product_version,
                                           f"build {host.build}" if host.build else None) if p)
            n = len(host.pnics)
            item = QTreeWidgetItem([host.name, "", "", "", "", "",
                                    f"{version or 'host'} · {n} pNIC{'' if n == 1 else 's'}"])
            item.setFont(0, bold)
            item.setToolTip(0, "\n".join(host.inputs) if host.inputs else host.name)
            for pnic in host.pnics:
                pseudo = pnic.is_physical is False
                child = QTreeWidgetItem([
                    pnic.name + ("  (pseudo device)" if pseudo else ""),
                    driver_text(pnic),
                    speed_text(pnic),
                    str(pnic.mtu) if pnic.mtu else "",
                    pnic.pci_address or "",
                    pci_ids_text(pnic),
                    pnic.description or "",
                ])
                child.setToolTip(6, pnic.description or "")
                if pseudo:
                    for col in range(len(TREE_COLUMNS)):
                        child.setForeground(col, grey)
                item.addChild(child)
            self.tree.addTopLevelItem(item)
            item.setExpanded(True)
        if not audit.hosts:
            self._placeholder("No host was found in the inputs: see the inputs not understood below, "
                              "then go Back to choose other files.")
        header = self.tree.header()
        for col in range(len(TREE_COLUMNS) - 1):
            self.tree.resizeColumnToContents(col)
        header.setSectionResizeMode(len(TREE_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)

        for problem in audit.inputs_not_understood:
            text = problem.message
            if problem.source and problem.source not in text:
                text = f"{problem.source}: {text}"
            entry = QListWidgetItem(text)
            entry.setToolTip(f"{problem.source}\n{problem.command}".strip())
            self.problems.addItem(entry)
        if not audit.inputs_not_understood:
            entry = QListWidgetItem("Every input was understood.")
            entry.setFlags(Qt.ItemFlag.NoItemFlags)
            self.problems.addItem(entry)
        self.problems_box.setTitle(f"Inputs not understood ({len(audit.inputs_not_understood)})")
