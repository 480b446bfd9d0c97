"""Per-host progress of a running audit: a row per live target (vCenter, SSH host, NSX Manager) and per
host found, with its current step and status.

The audit reports one stream of ``progress(fraction, message)``; the collectors prefix their messages
with the target's name (``nicadvisor.collect.vsphere``: ``"<host>:<port>: logging in as …"``, and
``"<host>:<port>: <ESXi host> (i/n)"`` per host read; ``nicadvisor.collect.ssh``: ``"<name>: <command>"``;
``nicadvisor.collect.nsx``: ``"connecting to <netloc>"`` then unprefixed steps), and
``nicadvisor.services.audit`` says ``"Inspecting <host> (<n> outputs)"`` per host assembled.
:func:`route_message` maps a message to a row; :class:`HostProgressTree` shows the rows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from nicadvisor.model.verdict import SYMBOL
from nicadvisor.gui.widgets.formatting import pnic_count_text
from nicadvisor.gui.widgets.target_editor import STATUS_COLOURS, status_kind
from nicadvisor.gui import audit_cache

COLUMNS = ("Target / host", "Current step", "Status")
_INSPECTING = re.compile(r"^Inspecting (?P<name>.+) \((?P<n>\d+) outputs?\)$")
_VC_HOST = re.compile(r"^(?P<name>.+) \((?P<i>\d+)/(?P<n>\d+)\)$")
#: The SSH collector's "command DONE of PLANNED: <command>" (collect/ssh.py ``_HostAudit.execute``).
_SSH_COMMAND = re.compile(r"^command (?P<i>\d+) of (?P<n>\d+): (?P<command>.+)$")
_SSH_READ = re.compile(r"^\d+ output\(s\) read$")
_NSX_CONNECT = re.compile(r"^connecting to (?P<netloc>\S+)$")
_NSX_DONE = re.compile(r"^read (?P<n>\d+) host\(s\) from NSX Manager (?P<netloc>\S+)$")


def route_message(message: str, names: Iterable[str]) -> tuple[str | None, str]:
    """(row name, step) of a progress ``message``: ``"Inspecting esx-01 (12 outputs)"`` →
    ``("esx-01", "inspecting 12 outputs")``; ``"vc1:443: logging in as u"`` with ``"vc1:443"`` in ``names`` →
    ``("vc1:443", "logging in as u")`` (the longest matching name wins); otherwise ``(None, message)``."""
    m = _INSPECTING.match(message)
    if m:
        n = int(m.group("n"))
        return m.group("name"), f"inspecting {n} output{'s' if n != 1 else ''}"
    for name in sorted(set(names), key=len, reverse=True):
        if message.startswith(name + ": "):
            return name, message[len(name) + 2:]
    return None, message


@dataclass(frozen=True)
class TargetRow:
    """A live target shown before the audit starts: ``label`` (the progress prefix), ``kind``
    (``vcenter``, ``ssh``, ``nsx``), ``source`` (its input problems' source), ``title`` (shown)."""

    label: str
    kind: str
    source: str
    title: str


class HostProgressTree(QTreeWidget):
    """Rows: live targets first (ESXi hosts read from a vCenter as its children), then hosts found in
    files / this machine. Columns: name, current step, status (``◷`` running, ``✔`` done, ``✖`` failed)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(len(COLUMNS))
        self.setHeaderLabels(list(COLUMNS))
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setRootIsDecorated(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.header()
        # the status (a host's verdict and why) takes the room left: it was cut with "…" while the step column, "done"
        # once the audit ended, stretched over half the width
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(0, 300)
        header.resizeSection(1, 300)
        header.setStretchLastSection(False)
        self._targets: dict[str, TargetRow] = {}
        self._items: dict[str, QTreeWidgetItem] = {}
        self._current_nsx: str | None = None
        self._nsx_done: set[str] = set()
        self._steps: dict[str, int] = {}  # steps reported per live target label
        self._shares: dict[str, float] = {}  # a vCenter's "(i/n)" share of its hosts read

    # --- rows --------------------------------------------------------------------------------------
    def start(self, targets: Iterable[TargetRow] = ()) -> None:
        """Clear, then one ``waiting`` row per live target."""
        self.clear()
        targets = list(targets)
        self.setRootIsDecorated(any(t.kind == "vcenter" for t in targets))  # only vCenters have children
        self._targets, self._items = {}, {}
        self._current_nsx, self._nsx_done = None, set()
        self._steps, self._shares = {}, {}
        bold = QFont(self.font())
        bold.setBold(True)
        for t in targets:
            item = QTreeWidgetItem([t.title, "waiting", ""])
            item.setFont(0, bold)
            item.setToolTip(0, t.source)
            self.addTopLevelItem(item)
            self._targets[t.label] = t
            self._items[t.label] = item

    def row_item(self, name: str) -> QTreeWidgetItem | None:
        """The row of a target label or host name, or None."""
        return self._items.get(name)

    def rows(self) -> list[tuple[str, str, str, int]]:
        """(name, step, status, depth) of every row, in display order (for tests and messages)."""
        out = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            out.append((item.text(0), item.text(1), item.text(2), depth))
            for i in range(item.childCount()):
                walk(item.child(i), depth + 1)

        for i in range(self.topLevelItemCount()):
            walk(self.topLevelItem(i), 0)
        return out

    def _host_row(self, name: str, parent: QTreeWidgetItem | None = None) -> QTreeWidgetItem:
        item = self._items.get(name)
        if item is None and "@" in name:  # hosts of two vCenters with one name: "name@vc:port"
            base, _, vc = name.rpartition("@")
            parent_item = self._items.get(vc)
            if parent_item is not None:
                for i in range(parent_item.childCount()):
                    if parent_item.child(i).text(0) == base:
                        item = parent_item.child(i)
                        self._items[name] = item
        if item is None:
            item = QTreeWidgetItem([name, "", ""])
            if parent is not None:
                parent.addChild(item)
                parent.setExpanded(True)
            else:
                self.addTopLevelItem(item)
            self._items[name] = item
        return item

    #: Steps after which a target's share of the reading is shown half done (an SSH host runs some 10-40 commands,
    #: their number unknown beforehand): the share grows with every step and never claims the end before it.
    HALF_STEPS = 12

    def read_fraction(self) -> float:
        """How far the live targets are read, 0..1, moving with every step reported: per target its ``i/n`` hosts
        (vCenter), its commands sent of those planned (SSH hosts, once their NICs are listed), or
        ``steps / (steps + HALF_STEPS)`` (before that, and NSX Managers, whose collectors report a fixed
        fraction), 1 once its read ended; the mean over the targets (0 without live targets)."""
        if not self._targets:
            return 0.0
        shares = []
        for label, t in self._targets.items():
            if label in self._nsx_done:
                shares.append(1.0)
            elif label in self._shares:
                shares.append(self._shares[label])
            else:
                steps = self._steps.get(label, 0)
                shares.append(steps / (steps + self.HALF_STEPS))
        return sum(shares) / len(shares)

    def _count_step(self, label: str) -> None:
        if label in self._targets:
            self._steps[label] = self._steps.get(label, 0) + 1

    def _set(self, item: QTreeWidgetItem, step: str | None = None, status: str | None = None) -> None:
        if step is not None:
            item.setText(1, step)
            item.setToolTip(1, step)
        if status is not None:
            item.setText(2, status)
            item.setToolTip(2, status)
            item.setForeground(2, QBrush(QColor(STATUS_COLOURS[status_kind(status)])))

    # --- progress ----------------------------------------------------------------------------------
    def on_progress(self, message: str) -> None:
        """Route one progress message to its row (unknown messages are ignored here)."""
        m = _NSX_CONNECT.match(message)
        if m and m.group("netloc") in self._targets:
            self._current_nsx = m.group("netloc")
            self._count_step(self._current_nsx)
            self._set(self._items[self._current_nsx], message, "◷ running")
            return
        m = _NSX_DONE.match(message)
        if m and m.group("netloc") in self._targets:
            self._set(self._items[m.group("netloc")], message, "◷ read, inspecting")
            self._nsx_done.add(m.group("netloc"))
            self._current_nsx = None
            return
        name, step = route_message(message, list(self._items))
        if name is None:
            if self._current_nsx is not None and not message.startswith(("Inspecting ", "Checking rules", "Audited ")):
                self._count_step(self._current_nsx)
                self._set(self._items[self._current_nsx], message, "◷ running")
            return
        if _INSPECTING.match(message):
            self._current_nsx = None
            self._set(self._host_row(name), step, "◷ inspecting")
            return
        target = self._targets.get(name)
        item = self._items[name]
        if target is not None and target.kind == "vcenter":
            vm = _VC_HOST.match(step)
            if vm:
                child = self._host_row(vm.group("name"), item)
                self._set(child, f"read from {target.label}", "◷ read")
                step = f"read {vm.group('i')} of {vm.group('n')} hosts"
                self._shares[name] = int(vm.group("i")) / max(1, int(vm.group("n")))
        status = "◷ running"
        if target is not None and target.kind == "ssh":
            sm = _SSH_COMMAND.match(step)
            if sm:  # the share of the host's planned commands sent, and the command it is on
                done, planned = int(sm.group("i")), max(1, int(sm.group("n")))
                self._shares[name] = min(1.0, (done - 1) / planned)
                step, status = sm.group("command"), f"◷ command {done} of {planned}"
            elif _SSH_READ.match(step):
                self._shares[name] = 1.0
        self._count_step(name)
        self._set(item, step, status)

    # --- end ---------------------------------------------------------------------------------------
    def finish(self, audit: Any) -> dict[str, str]:
        """Final statuses from ``audit`` (hosts, ``inputs_not_understood``); returns ``{target label: status}``
        for the live targets."""
        verdicts = {v.host: v for v in audit_cache.verdict(audit).hosts}
        # per host: its own verdict, as every view shows it (a green tick only for READY), then the physical pNICs read
        said = {}
        for host in audit.hosts:
            v = verdicts.get(host.name)
            verdict = f"{SYMBOL[v.status]} {v.label}: {v.reason}" if v is not None else "? NOT RATED"
            said[host.name] = f"{verdict} · {pnic_count_text(host, ' read')}"
            self._set(self._host_row(host.name), "done", said[host.name])
        out: dict[str, str] = {}
        for label, t in self._targets.items():
            mine = [p for p in audit.inputs_not_understood
                    if p.source == t.source or p.source.startswith(t.source + "/")]
            item = self._items[label]
            problems = f" · {len(mine)} problem{'s' if len(mine) != 1 else ''}" if mine else ""
            mark = "▲" if mine else "✔"  # read, but with inputs not understood: see the problems list
            if t.kind == "vcenter":
                n = item.childCount()
                ok = n > 0
                status = f"{mark} {n} host{'s' if n != 1 else ''} read{problems}" if ok else \
                    f"✖ {mine[0].message if mine else 'no host read'}"
            elif t.kind == "ssh":  # the target is its host: the row says the host's verdict (not a tick for "read")
                ok = label in said
                status = f"{said[label]}{problems}" if ok else f"✖ {mine[0].message if mine else 'not read'}"
            else:
                ok = label in self._nsx_done  # "read N host(s) from NSX Manager …" is said only on success
                status = f"{mark} read{problems}" if ok else f"✖ {mine[0].message if mine else 'not read'}"
            self._set(item, "done" if ok else "stopped", status)
            out[label] = status
        return out

    def stop(self, status: str) -> None:
        """The audit ended without a result (cancelled / failed): every row not done gets ``status``."""
        for i in range(self.topLevelItemCount()):
            top = self.topLevelItem(i)
            for item in [top, *(top.child(j) for j in range(top.childCount()))]:
                if not item.text(2).startswith(("✔", "▲")):
                    self._set(item, None, status)

    def resize_name_column(self) -> None:
        """Fit the name column to its contents (at least 220 px)."""
        self.resizeColumnToContents(0)
        if self.columnWidth(0) < 220:
            self.setColumnWidth(0, 220)
        self.setColumnWidth(0, min(self.columnWidth(0) + 12, 420))

