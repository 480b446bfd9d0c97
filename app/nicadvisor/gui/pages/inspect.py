"""Inspect page: the capability matrix (a row per pNIC, a column per capability) and a detail pane."""
from __future__ import annotations

from PySide6.QtCore import QItemSelection, QModelIndex, Qt, Slot
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget, QWizardPage

from nicadvisor.gui.state import WizardState
from nicadvisor.gui.widgets.capability_model import FIXED_COLUMNS, CapabilityTableModel
from nicadvisor.gui.widgets.common import detail_browser, splitter
from nicadvisor.gui.widgets.formatting import esc, evidence_html, finding_html
from nicadvisor.model.capabilities import CAPABILITIES, STATUS_SYMBOL, STATUS_TEXT

LEGEND = ("Each cell: status symbol and word, then the values read. "
          + " &nbsp; ".join(f"<b>{STATUS_SYMBOL[s]}</b> {STATUS_TEXT[s]}" for s in ("pass", "warn", "fail", "unknown"))
          + " &nbsp;— select a cell to see the evidence and the findings that decided it.")


class InspectPage(QWizardPage):
    """Shows ``capability_matrix`` for every host of ``state.audit`` in a QTableView.

    Selecting a capability cell fills the detail pane (:attr:`detail`) with the cell's values, the
    evidence lines (command, source, raw line) and the findings that decided its status.
    """

    def __init__(self, state: WizardState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setTitle("Inspect")
        self.setSubTitle("Capability matrix: what each physical NIC offers for NSX Geneve overlay traffic.")
        self.model = CapabilityTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        # Two lines per cell ("✔ pass" / values), each elided; the full text is in the tooltip and the
        # detail pane. Wrapping made rows of very different heights and truncated the last column.
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.setAlternatingRowColors(False)

        self.legend = QLabel(LEGEND)
        self.legend.setWordWrap(True)

        self.detail = detail_browser("Select a cell of the matrix to see its evidence and findings.")

        layout = QVBoxLayout(self)
        layout.addWidget(self.legend)
        layout.addWidget(splitter(Qt.Orientation.Vertical, (self.table, 3), (self.detail, 2)), 1)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)

    def initializePage(self) -> None:  # Qt override
        self.model.set_audit(self.state.audit)
        self._size_columns()
        self.detail.clear()
        if self.model.rowCount():
            self.select_cell(0, len(FIXED_COLUMNS))

    def _size_columns(self) -> None:
        header = self.table.horizontalHeader()
        fm = self.table.fontMetrics()
        header.setMinimumSectionSize(fm.horizontalAdvance("? unknown") + 16)
        for col in range(len(FIXED_COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        for i in range(len(CAPABILITIES)):
            header.setSectionResizeMode(len(FIXED_COLUMNS) + i, QHeaderView.ResizeMode.Stretch)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(2 * fm.lineSpacing() + 10)

    def select_cell(self, row: int, column: int) -> None:
        """Select the cell at (``row``, ``column``) of the matrix (also updates the detail pane)."""
        index = self.model.index(row, column)
        self.table.setCurrentIndex(index)
        self.table.scrollTo(index)

    @Slot(QItemSelection, QItemSelection)
    def _on_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        self.show_detail(indexes[0] if indexes else QModelIndex())

    def show_detail(self, index: QModelIndex) -> None:
        """Fill the detail pane for ``index``: a capability cell, or a pNIC summary for column 0."""
        if not index.isValid():
            self.detail.clear()
            return
        row = self.model.rows[index.row()]
        if index.column() < len(FIXED_COLUMNS):
            lines = [f"<h3>{esc(row.host)} / {esc(row.pnic)}</h3><table cellspacing='4'>"]
            for cap in CAPABILITIES:
                cell = row.cells[cap.key]
                lines.append(f"<tr><td><b>{esc(cap.title)}</b></td><td>{STATUS_SYMBOL[cell.status]} "
                             f"{STATUS_TEXT[cell.status]}</td><td>{esc(cell.text)}</td></tr>")
            lines.append("</table><p><i>Select a capability cell for its evidence and findings.</i></p>")
            self.detail.setHtml("".join(lines))
            return
        cap = CAPABILITIES[index.column() - len(FIXED_COLUMNS)]
        cell = row.cells[cap.key]
        parts = [f"<h3>{esc(row.host)} / {esc(row.pnic)} — {esc(cap.title)}: "
                 f"{STATUS_SYMBOL[cell.status]} {STATUS_TEXT[cell.status]}</h3>",
                 f"<p><b>Values:</b> {esc(cell.text)}</p>",
                 "<h4>Findings that decided it</h4>"]
        if cell.findings:
            parts += [finding_html(f, with_evidence=False) for f in cell.findings]
        elif cell.status == "unknown":
            parts.append("<p><i>No finding, and none of this column's facts was reported: unknown.</i></p>")
        else:
            parts.append("<p><i>No finding: the facts below pass the rules of this column.</i></p>")
        evidence = list(cell.evidence)
        for f in cell.findings:
            evidence += [e for e in f.evidence if e not in evidence]
        parts.append(evidence_html(evidence, "Evidence (command, source, raw output line)"))
        self.detail.setHtml("".join(parts))
