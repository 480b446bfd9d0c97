"""Findings page: rule hits grouped by severity, filterable, with a detail pane."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
    QWizardPage,
)

from nicadvisor.gui.state import WizardState
from nicadvisor.gui.widgets.common import detail_browser, splitter
from nicadvisor.gui.widgets.formatting import SEVERITY_COLOURS, esc, finding_html
from nicadvisor.gui.widgets.verdict_banner import VerdictBanner

SEVERITIES = (("error", "✖ Errors"), ("warning", "▲ Warnings"), ("info", "ℹ Info"))
FindingRole = Qt.ItemDataRole.UserRole + 1


class FindingsPage(QWizardPage):
    """Tree of ``state.audit.findings`` under one group per severity (errors first).

    The severity check boxes and the text filter hide rows; selecting a finding shows its message,
    recommendation, references and evidence in :attr:`detail`.
    """

    def __init__(self, state: WizardState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setTitle("Findings")
        self.setSubTitle("What the NSX readiness rules found, most severe first, with the evidence they read.")

        self.severity_boxes: dict[str, QCheckBox] = {}
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Show:"))
        for sev, label in SEVERITIES:
            box = QCheckBox(label)
            box.setChecked(True)
            box.toggled.connect(self._apply_filter)
            self.severity_boxes[sev] = box
            filters.addWidget(box)
        filters.addSpacing(20)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter by text (host, pNIC, rule, title…)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._apply_filter)
        filters.addWidget(self.search, 1)

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Finding", "Target", "Rule"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setWordWrap(False)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)

        self.detail = detail_browser("Select a finding to see its message, recommendation, references and evidence.")

        self.banner = VerdictBanner()

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addLayout(filters)
        layout.addWidget(splitter(Qt.Orientation.Horizontal, (self.tree, 3), (self.detail, 2)), 1)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        self._groups: dict[str, QTreeWidgetItem] = {}

    def initializePage(self) -> None:  # Qt override
        audit = self.state.audit
        self.banner.show_verdict(audit.verdict if audit is not None else None)
        self.populate(audit.findings if audit is not None else [], audit.verdict if audit is not None else None)

    def populate(self, findings: list[Any], verdict: Any = None) -> None:
        """Rebuild the tree from ``findings`` (sorted by severity, host, target, rule). ``verdict`` (the audit's)
        words the empty case: "every rule passed" only when the audit is rated."""
        self.tree.clear()
        self.detail.clear()
        self._groups = {}
        bold = QFont(self.tree.font())
        bold.setBold(True)
        ordered = sorted(findings, key=lambda f: (f.severity.rank, f.host, f.target, f.rule_id))
        first = None
        for sev, label in SEVERITIES:
            mine = [f for f in ordered if f.severity.value == sev]
            group = QTreeWidgetItem([f"{label} ({len(mine)})", "", ""])
            group.setFont(0, bold)
            group.setForeground(0, QBrush(QColor(SEVERITY_COLOURS[sev])))
            group.setFirstColumnSpanned(False)
            for f in mine:
                item = QTreeWidgetItem([f.title, f.target, f.rule_id])
                item.setData(0, FindingRole, f)
                item.setToolTip(0, f.message)
                group.addChild(item)
                first = first or item
            self.tree.addTopLevelItem(group)
            group.setExpanded(True)
            self._groups[sev] = group
        self._apply_filter()
        if first is not None:
            self.tree.setCurrentItem(first)
        elif verdict is not None and verdict.status == "not_rated":
            self.detail.setHtml(f"<p><b>No findings — and no conclusion:</b> the audit is {esc(verdict.headline)}. "
                                "The rules had too little to judge; see the causes above.</p>")
        else:
            self.detail.setHtml("<p><i>No findings: every rule passed on the facts that were read.</i></p>")

    def visible_findings(self) -> list[Any]:
        """Findings of rows not hidden by the filters, in display order."""
        out = []
        for group in self._groups.values():
            if group.isHidden():
                continue
            for i in range(group.childCount()):
                child = group.child(i)
                if not child.isHidden():
                    out.append(child.data(0, FindingRole))
        return out

    @Slot()
    def _apply_filter(self) -> None:
        needle = self.search.text().strip().lower()
        for sev, group in self._groups.items():
            group.setHidden(not self.severity_boxes[sev].isChecked())
            for i in range(group.childCount()):
                child = group.child(i)
                f = child.data(0, FindingRole)
                haystack = " ".join((f.title, f.target, f.rule_id, f.host, f.message, f.category)).lower()
                child.setHidden(bool(needle) and needle not in haystack)

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        finding = current.data(0, FindingRole) if current is not None else None
        if finding is None:
            self.detail.clear()
            return
        self.detail.setHtml(finding_html(finding))
