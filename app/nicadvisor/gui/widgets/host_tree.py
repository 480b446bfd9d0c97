"""The hosts of one vCenter as a tree with tri-state check boxes (datacenter → cluster → host): the checked
hosts are that vCenter's audit scope (:mod:`nicadvisor.gui.scope`)."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from nicadvisor.gui.scope import Scope, hosts_in_scope, host_state_text, scope_of_selection
from nicadvisor.gui.widgets.common import button, message_label

RefRole = Qt.ItemDataRole.UserRole + 1
KIND_TEXT = {"datacenter": "datacenter", "cluster": "cluster", "standalone": "standalone host"}
STATE_COLOURS = {"disconnected": "#b00020", "not responding": "#b00020", "maintenance": "#8a5a00"}
CHECK = Qt.CheckState


class HostScopePanel(QWidget):
    """A title line, a "Browse hosts" button, the host tree and a status line.

    :meth:`show_tree` fills the tree (hosts of the given scope checked). A datacenter or cluster box checks
    or unchecks all its hosts and shows partly checked when some are (Qt's auto-tristate). Check changes
    are gathered (one per event-loop turn) and reported by :attr:`sig_selection_changed`. The "State"
    column shows each host's connection state and maintenance mode (coloured when not plainly
    connected), and per datacenter / cluster how many of its hosts are checked.

    Signals:
        sig_browse_requested(): Browse hosts clicked.
        sig_selection_changed(object): the user changed the checked hosts; carries the
            :class:`~nicadvisor.gui.scope.Scope` they make, or None when no host is checked.
    """

    sig_browse_requested = Signal()
    sig_selection_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("<b>Hosts</b>")
        self.title.setWordWrap(True)
        self.browse_button = button("Browse hosts", "Read the datacenters, clusters and hosts of the selected vCenter "
                                                    "(read-only) to choose which hosts are audited")
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Datacenter / cluster / host", "State"])
        self.tree.setUniformRowHeights(True)
        self.tree.header().setStretchLastSection(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.status = message_label(selectable=True)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.browse_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.tree, 1)
        # until a tree is read: the placeholder in a wrapped label in the tree's place (as a tree row it was cut, at
        # 1920 px too: the panel is narrow)
        self.placeholder = QLabel()
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.placeholder.setStyleSheet("QLabel { font-style: italic; border: 1px solid palette(mid); padding: 6px; }")
        layout.addWidget(self.placeholder, 1)
        layout.addWidget(self.status)
        self._tree_nodes: list[Any] = []
        self._pending = False
        self.browse_button.clicked.connect(self.sig_browse_requested)
        self.tree.itemChanged.connect(self._on_item_changed)
        self.show_tree(None, Scope(), "")

    # --- filling -------------------------------------------------------------------------------------
    def show_tree(self, tree: list[Any] | None, scope: Scope, title: str, placeholder: str = "") -> None:
        """Show ``tree`` (datacenter nodes; None: not read yet, ``placeholder`` is shown) with the hosts of
        ``scope`` checked, under the bold ``title``."""
        self.title.setText(f"<b>{title or 'Hosts'}</b>")
        self.tree.blockSignals(True)
        try:
            self.tree.clear()
            self._tree_nodes = list(tree or [])
            self.tree.setVisible(tree is not None)
            self.placeholder.setVisible(tree is None)
            if tree is None:
                text = placeholder or ("Select a vCenter, then click Browse hosts (or Test connection) to choose the "
                                       "hosts to audit.")
                self.placeholder.setText(text)
                item = QTreeWidgetItem([text])  # the tree says it too (hidden until a tree is read)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.tree.addTopLevelItem(item)
                item.setFirstColumnSpanned(True)
                return
            checked = {h.ref for h in hosts_in_scope(tree, scope)}
            for dc in tree:
                dc_item = self._item(dc, None)
                for compute in dc.children:
                    parent = dc_item if compute.kind == "standalone" else self._item(compute, dc_item)
                    for host in compute.children:
                        self._host_item(host, parent, compute, host.ref in checked)
                dc_item.setExpanded(True)
                for i in range(dc_item.childCount()):
                    dc_item.child(i).setExpanded(True)
            self._update_counts()
        finally:
            self.tree.blockSignals(False)

    def _item(self, node: Any, parent: QTreeWidgetItem | None) -> QTreeWidgetItem:
        item = QTreeWidgetItem([node.name, ""])
        item.setData(0, RefRole, node.ref)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsAutoTristate)
        item.setToolTip(0, f"{KIND_TEXT.get(node.kind, node.kind)} {node.name} ({node.ref})")
        if parent is None:
            self.tree.addTopLevelItem(item)
        else:
            parent.addChild(item)
        return item

    def _host_item(self, host: Any, parent: QTreeWidgetItem, compute: Any, checked: bool) -> QTreeWidgetItem:
        state = host_state_text(host)
        item = QTreeWidgetItem([host.name, state])
        item.setData(0, RefRole, host.ref)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
        where = "standalone host" if compute.kind == "standalone" else f"host of cluster {compute.name}"
        item.setToolTip(0, f"{where} ({host.ref})")
        item.setToolTip(1, f"{host.name}: {state}; a host that is not connected is audited from what vCenter "
                           "last knew of it" if host.connection_state not in (None, "connected") else state)
        colour = next((c for key, c in STATE_COLOURS.items() if key in state), "")
        if colour:
            item.setForeground(1, QBrush(QColor(colour)))
        parent.addChild(item)
        item.setCheckState(0, CHECK.Checked if checked else CHECK.Unchecked)
        return item

    # --- reading ---------------------------------------------------------------------------------------
    def host_items(self) -> list[QTreeWidgetItem]:
        """The host rows, in tree order."""
        out: list[QTreeWidgetItem] = []

        def walk(item: QTreeWidgetItem) -> None:
            if not item.flags() & Qt.ItemFlag.ItemIsAutoTristate:
                if item.data(0, RefRole):
                    out.append(item)
                return
            for i in range(item.childCount()):
                walk(item.child(i))

        for i in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(i))
        return out

    def item_named(self, name: str) -> QTreeWidgetItem:
        """The first row (datacenter, cluster or host) showing ``name``; KeyError when there is none."""
        found = self.tree.findItems(name, Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive, 0)
        if not found:
            raise KeyError(name)
        return found[0]

    def checked_refs(self) -> set[str]:
        """The refs (``"HostSystem:host-21"``) of the checked hosts."""
        return {i.data(0, RefRole) for i in self.host_items() if i.checkState(0) == CHECK.Checked}

    def selection(self) -> Scope | None:
        """The scope the checked hosts make (None: no host checked)."""
        return scope_of_selection(self._tree_nodes, self.checked_refs())

    def rows(self) -> list[tuple[str, str, int, str]]:
        """``(name, state column, depth, check state "checked" / "partial" / "unchecked")`` per row, in
        display order (for tests and logs)."""
        names = {CHECK.Checked: "checked", CHECK.PartiallyChecked: "partial", CHECK.Unchecked: "unchecked"}
        out: list[tuple[str, str, int, str]] = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            out.append((item.text(0), item.text(1), depth, names.get(item.checkState(0), "unchecked")))
            for i in range(item.childCount()):
                walk(item.child(i), depth + 1)

        for i in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(i), 0)
        return out

    # --- changes ---------------------------------------------------------------------------------------
    @Slot(QTreeWidgetItem, int)
    def _on_item_changed(self, _item: QTreeWidgetItem, column: int) -> None:
        # One click on a datacenter changes every host below it: report once, after Qt propagated it.
        if column == 0 and not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self._report)  # dropped if the panel is gone by then

    @Slot()
    def _report(self) -> None:
        self._pending = False
        self._update_counts()
        self.sig_selection_changed.emit(self.selection())

    def _update_counts(self) -> None:
        """"k of n hosts" in the State column of every datacenter and cluster row."""
        self.tree.blockSignals(True)
        try:
            def count(item: QTreeWidgetItem) -> tuple[int, int]:
                if not item.flags() & Qt.ItemFlag.ItemIsAutoTristate:
                    return int(item.checkState(0) == CHECK.Checked), 1
                got = [count(item.child(i)) for i in range(item.childCount())]
                k, n = sum(g[0] for g in got), sum(g[1] for g in got)
                item.setText(1, f"{k} of {n} host{'s' if n != 1 else ''}")
                return k, n

            for i in range(self.tree.topLevelItemCount()):
                top = self.tree.topLevelItem(i)
                if top.data(0, RefRole):
                    count(top)
        finally:
            self.tree.blockSignals(False)
