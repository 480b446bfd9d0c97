"""Inspect page: the capability matrix (a row per pNIC, a column per capability) and a detail pane."""
from __future__ import annotations

from PySide6.QtCore import QItemSelection, QModelIndex, Qt, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget,
    QWizardPage,
)

from nicadvisor.gui.state import WizardState
from nicadvisor.gui import audit_cache
from nicadvisor.gui.widgets.capability_model import (
    FIXED_COLUMNS, ROW_FILTERS, CapabilityFilterProxy, CapabilityTableModel,
)
from nicadvisor.gui.widgets.common import add_name_item, detail_browser, name_chooser, splitter
from nicadvisor.gui.widgets.formatting import esc, evidence_html, finding_html
from nicadvisor.gui.widgets.verdict_banner import VerdictBanner
from nicadvisor.model.capabilities import CAPABILITIES, STATUS_SYMBOL, STATUS_TEXT

LEGEND = ("Each cell: status symbol and word, then the values read. "
          + " &nbsp; ".join(f"<b>{STATUS_SYMBOL[s]}</b> {STATUS_TEXT[s]}"
                            for s in ("pass", "warn", "fail", "unknown", "n/a"))
          + " (not judged) &nbsp;— a cell takes the worst finding on the pNIC and its path (switch, TEP, host MTU "
          "test); select one to see the evidence, the findings and why. Click a column title to sort.")


#: The detail pane while no cell is selected, and while the audit read no pNIC at all (there is nothing to select).
SELECT_CELL = "Select a cell of the matrix to see its evidence and findings."
NOTHING_READ = ("No pNIC was read, so the matrix is empty: the banner above says why. Go Back to choose other inputs.")

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
        self.proxy = CapabilityFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
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
        self.banner = VerdictBanner()

        self.row_filter = QComboBox()
        for key, label in ROW_FILTERS:
            self.row_filter.addItem(label, key)
        self.host_filter = name_chooser()
        self.group_box = QCheckBox("Group by host")
        self.group_box.setChecked(True)
        self.group_box.setToolTip("Keep the rows of one host together whatever column is sorted")
        self.count = QLabel("")
        tools = QHBoxLayout()
        tools.addWidget(QLabel("Show:"))
        tools.addWidget(self.row_filter)
        tools.addWidget(QLabel("Host:"))
        tools.addWidget(self.host_filter, 1)
        tools.addWidget(self.group_box)
        tools.addWidget(self.count)

        self.detail = detail_browser(SELECT_CELL)

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.legend)
        layout.addLayout(tools)
        layout.addWidget(splitter(Qt.Orientation.Vertical, (self.table, 3), (self.detail, 2)), 1)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.row_filter.currentIndexChanged.connect(self._on_filter_changed)
        self.host_filter.currentIndexChanged.connect(self._on_filter_changed)
        self.group_box.toggled.connect(self.proxy.set_group_by_host)

    def initializePage(self) -> None:  # Qt override
        audit = self.state.audit
        self.banner.show_audit(self.state)
        self.model.set_audit(audit)
        self.host_filter.blockSignals(True)
        self.host_filter.clear()
        self.host_filter.addItem("All hosts", "")
        for host in dict.fromkeys(r.host for r in self.model.rows):
            add_name_item(self.host_filter, host, host)
        self.host_filter.blockSignals(False)
        self._on_filter_changed()
        self._size_columns()
        self.detail.clear()
        self.detail.setPlaceholderText(SELECT_CELL if self.model.rowCount() else NOTHING_READ)
        if self.proxy.rowCount():
            self.select_cell(self.proxy.mapToSource(self.proxy.index(0, 0)).row(), len(FIXED_COLUMNS))

    @Slot()
    def _on_filter_changed(self) -> None:
        self.proxy.set_row_filter(self.row_filter.currentData() or "all")
        self.proxy.set_host(self.host_filter.currentData() or "")
        self.count.setText(f"{self.proxy.rowCount()} of {self.model.rowCount()} pNICs")
        # the detail pane follows the current cell: cleared when the filter hid it
        self.show_detail(self.proxy.mapToSource(self.table.currentIndex()))

    def visible_rows(self) -> list[tuple[str, str]]:
        """(host, pNIC) of the rows shown, in display order."""
        out = []
        for r in range(self.proxy.rowCount()):
            row = self.model.rows[self.proxy.mapToSource(self.proxy.index(r, 0)).row()]
            out.append((row.host, row.pnic))
        return out

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
        """Select the cell at (``row``, ``column``) of the matrix model (``self.model`` coordinates, whatever the
        sorting and filtering; also updates the detail pane). A row hidden by the filters is not selected."""
        index = self.proxy.mapFromSource(self.model.index(row, column))
        self.table.setCurrentIndex(index)
        if index.isValid():
            self.table.scrollTo(index)

    @Slot(QItemSelection, QItemSelection)
    def _on_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        self.show_detail(self.proxy.mapToSource(indexes[0]) if indexes else QModelIndex())

    def show_detail(self, index: QModelIndex) -> None:
        """Fill the detail pane for ``index`` (of ``self.model``): a capability cell, or a pNIC summary for
        column 0."""
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
                 f"<p><b>Why:</b> {esc(cell.reason)}</p>",
                 "<h4>Findings that decided it (on the pNIC and its path)</h4>"]
        if cell.findings:
            for f in cell.findings:
                where = "" if f.host == row.host and f.obj == row.pnic else f"<p><i>on {esc(f.target)}</i></p>"
                parts.append(where + finding_html(f, with_evidence=False))
        else:
            parts.append("<p><i>No finding.</i></p>")
        evidence = list(cell.evidence)
        for f in cell.findings:
            evidence += [e for e in f.evidence if e not in evidence]
        parts.append(evidence_html(evidence, "Evidence (command, source, raw output line)"))
        self.detail.setHtml("".join(parts))
