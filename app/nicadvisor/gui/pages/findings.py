"""Findings page: rule hits grouped by severity, filterable, with a detail pane."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
    QWidget, QWizardPage,
)

from nicadvisor.gui.state import WizardState
from nicadvisor.gui import audit_cache
from nicadvisor.gui.widgets.common import detail_browser, splitter
from nicadvisor.gui.widgets.formatting import SEVERITY_COLOURS, esc, finding_html
from nicadvisor.gui.widgets.verdict_banner import VerdictBanner

SEVERITIES = (("error", "✖ Errors"), ("warning", "▲ Warnings"), ("info", "ℹ Info"))
FindingRole = Qt.ItemDataRole.UserRole + 1


GROUPINGS = (("severity", "severity"), ("rule", "rule"), ("host", "host"))


class FindingsPage(QWizardPage):
    """Tree of ``state.audit.findings`` grouped by severity (errors first), by rule or by host.

    The severity check boxes and the text filter hide rows; each group's count says how many of its findings
    are shown. Selecting a finding shows its message, recommendation, references and evidence in
    :attr:`detail`; the pane is cleared when the filters hide that finding.
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
        filters.addWidget(QLabel("Group by:"))
        self.grouping = QComboBox()
        for key, label in GROUPINGS:
            self.grouping.addItem(label, key)
        self.grouping.currentIndexChanged.connect(lambda _i: self.populate(self._findings, self._verdict))
        filters.addWidget(self.grouping)

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Finding", "Target", "Rule"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
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
        # the tree above the detail pane: finding titles get the whole width and are not cut
        layout.addWidget(splitter(Qt.Orientation.Vertical, (self.tree, 3), (self.detail, 2)), 1)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        self._groups: dict[str, QTreeWidgetItem] = {}
        self._labels: dict[str, str] = {}
        self._findings: list[Any] = []
        self._verdict: Any = None

    def initializePage(self) -> None:  # Qt override
        audit = self.state.audit
        self.banner.show_audit(self.state)
        self.populate(audit.findings if audit is not None else [], audit_cache.verdict(audit) if audit is not None else None)

    def _group_keys(self, ordered: list[Any]) -> list[tuple[str, str, str]]:
        """(key, label, colour severity) of each group, in display order."""
        mode = self.grouping.currentData() or "severity"
        if mode == "severity":
            return [(sev, label, sev) for sev, label in SEVERITIES]
        keys: dict[str, str] = {}
        for f in ordered:
            key = f.rule_id if mode == "rule" else f.host
            keys.setdefault(key, f.severity.value)  # the worst first: findings are ordered by severity
        return [(k, (f"{k} — {next(f.title for f in ordered if f.rule_id == k)}" if mode == "rule" else k), sev)
                for k, sev in keys.items()]

    def _key_of(self, f: Any) -> str:
        mode = self.grouping.currentData() or "severity"
        return f.severity.value if mode == "severity" else f.rule_id if mode == "rule" else f.host

    def populate(self, findings: list[Any], verdict: Any = None) -> None:
        """Rebuild the tree from ``findings`` (sorted by severity, host, target, rule) in the chosen grouping.
        ``verdict`` (the audit's) words the empty case: "every rule passed" only when the audit is rated."""
        self._findings, self._verdict = list(findings), verdict
        self.tree.clear()
        self.detail.clear()
        self._groups, self._labels = {}, {}
        bold = QFont(self.tree.font())
        bold.setBold(True)
        ordered = sorted(findings, key=lambda f: (f.severity.rank, f.host, f.target, f.rule_id))
        first = None
        for key, label, sev in self._group_keys(ordered):
            mine = [f for f in ordered if self._key_of(f) == key]
            group = QTreeWidgetItem([label, "", ""])
            group.setFont(0, bold)
            group.setForeground(0, QBrush(QColor(SEVERITY_COLOURS[sev])))
            group.setFirstColumnSpanned(False)
            for f in mine:
                item = QTreeWidgetItem([f.title, f.target, f.rule_id])
                item.setData(0, FindingRole, f)
                item.setToolTip(0, f"{f.title}\n{f.message}")
                group.addChild(item)
                first = first or item
            self.tree.addTopLevelItem(group)
            group.setExpanded(True)
            self._groups[key] = group
            self._labels[key] = label
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

    def group_labels(self) -> list[str]:
        """The text of every group row shown, in display order (with its "shown of total" count)."""
        return [g.text(0) for g in self._groups.values() if not g.isHidden()]

    @Slot()
    def _apply_filter(self) -> None:
        needle = self.search.text().strip().lower()
        for key, group in self._groups.items():
            shown = 0
            for i in range(group.childCount()):
                child = group.child(i)
                f = child.data(0, FindingRole)
                haystack = " ".join((f.title, f.target, f.rule_id, f.host, f.message, f.category)).lower()
                hide = not self.severity_boxes[f.severity.value].isChecked() or (bool(needle) and needle not in haystack)
                child.setHidden(hide)
                shown += not hide
            total = group.childCount()
            group.setText(0, f"{self._labels[key]} ({shown} of {total})" if shown != total
                          else f"{self._labels[key]} ({total})")
            mode = self.grouping.currentData() or "severity"
            group.setHidden((mode == "severity" and not self.severity_boxes[key].isChecked())
                            or (mode != "severity" and shown == 0))
        current = self.tree.currentItem()
        if current is not None and (current.isHidden() or (current.parent() is not None and current.parent().isHidden())):
            self.tree.setCurrentItem(None)
            self.detail.clear()

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        finding = current.data(0, FindingRole) if current is not None else None
        if finding is None:
            self.detail.clear()
            return
        self.detail.setHtml(finding_html(finding))
