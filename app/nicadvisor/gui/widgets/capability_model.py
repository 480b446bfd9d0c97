"""Table model of the capability matrix (``nicadvisor.model.capabilities``): a row per pNIC."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor

from nicadvisor.model.capabilities import (
    SWITCH_PORT_CATEGORIES,
    CAPABILITIES, FAIL, STATUS_ORDER, STATUS_SYMBOL, STATUS_TEXT, UNKNOWN, WARN, Capability, Cell, Row,
)
from nicadvisor.model.capabilities import BMC_ORIGIN, CATALOGUE_ORIGIN, origin_of
from nicadvisor.parsers.base import natural_key
from nicadvisor.gui import audit_cache

FIXED_COLUMNS = ("Host / pNIC",)

# Colour is an extra: the symbol and the word carry the status on their own.
STATUS_BACKGROUND = {"pass": "#e3f4e1", "warn": "#fff1cc", "fail": "#fbdcdc", "unknown": "#eeeeee",
                     "n/a": "#f7f7f7"}
STATUS_FOREGROUND = {"pass": "#1b5e20", "warn": "#6d4c00", "fail": "#8e0000", "unknown": "#444444",
                     "n/a": "#555555"}

CellRole = Qt.ItemDataRole.UserRole + 1
SortRole = Qt.ItemDataRole.UserRole + 2
#: The roles :meth:`CapabilityTableModel.data` answers; the view asks for a dozen more per cell at every paint
#: (font, alignment, decoration, check state…), answered None before any other work.
_ANSWERED = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.BackgroundRole,
                       Qt.ItemDataRole.ForegroundRole, CellRole, SortRole})

#: Row filters of :class:`CapabilityFilterProxy`: (key, label).
ROW_FILTERS = (("all", "All pNICs"), ("problems", "pNICs with a warning or error"),
               ("unknown", "pNICs with unknown cells"))


_BOOL_WORDS = {
    "link_up": ("up", "down"), "geneve_offload": ("yes", "no"), "geneve_rx_filter": ("yes", "no"),
    "rss": ("RSS on", "RSS off"), "ens_capable": ("capable", "not capable"),
    "ens_enabled": ("enabled", "not enabled"), "coalesce_adaptive_rx": ("adaptive", "fixed"),
}


def _short_fact(name: str, value: Any) -> str:
    if isinstance(value, bool) and name in _BOOL_WORDS:
        return _BOOL_WORDS[name][0 if value else 1]
    if name == "link_speed_mbps" and isinstance(value, int):
        return f"{value / 1000:g} Gbit/s" if value >= 1000 else f"{value} Mbit/s"
    if name == "rx_queues":
        return f"{value} queue{'' if value == 1 else 's'}"
    if name == "coalesce_rx_usecs":
        return f"rx {value} µs"
    if name == "firmware_version":
        return f"fw {value}"
    if name == "mtu" or name in ("driver", "driver_version", "ens_mode"):
        return str(value)
    if isinstance(value, bool):
        return f"{name.replace('_', ' ')} {'yes' if value else 'no'}"
    return f"{name.replace('_', ' ')} {value}"


def compact_text(pnic: Any, cap: Capability) -> str:
    """Short value text for a matrix cell, without the fact names the column title already says
    (``"25 Gbit/s, up"``, ``"8 GT/s x8 (max 8 GT/s x16)"``); ``"not reported"`` when nothing is known.
    The full text (``Cell.text``) is in the tooltip and the detail pane."""
    if pnic is None:
        return ""
    if cap.key == "pcie":
        now = " ".join(t for t in (f"{pnic.pcie_speed_gts:g} GT/s" if pnic.pcie_speed_gts else "",
                                   f"x{pnic.pcie_width}" if pnic.pcie_width else "") if t)
        cap_text = " ".join(t for t in (
            f"{pnic.pcie_speed_capable_gts:g} GT/s" if pnic.pcie_speed_capable_gts else "",
            f"x{pnic.pcie_width_capable}" if pnic.pcie_width_capable else "") if t)
        if now and cap_text:
            return f"{now} (max {cap_text})"
        return now or (f"max {cap_text}" if cap_text else "not reported")
    facts = list(cap.facts)
    if cap.key == "link":
        facts = ["link_speed_mbps", "link_up"]
    parts = [_short_fact(n, getattr(pnic, n)) for n in facts if getattr(pnic, n, None) is not None]
    return ", ".join(parts) or "not reported"


#: How a matrix cell marks a value not read on the host (the tooltip and detail pane say it in full).
_ORIGIN_SHORT = {BMC_ORIGIN: "from the BMC"}


def _origins(pnic: Any, cap: Capability) -> list[str]:
    if pnic is None:
        return []
    return list(dict.fromkeys(o for n in cap.facts if getattr(pnic, n, None) is not None
                              and (o := origin_of(pnic.evidence.get(n))) and o != CATALOGUE_ORIGIN))


def origin_suffix(pnic: Any, cap: Capability) -> str:
    """``" · from the BMC"`` / ``" · attested by alice on 2026-11-30"`` when a value of the column was not read on
    the host (:func:`nicadvisor.model.capabilities.origin_of`; the driver catalogue keeps its own wording in the
    cell text); ``""`` otherwise."""
    return "".join(f" · {_ORIGIN_SHORT.get(o, o)}" for o in _origins(pnic, cap))


def origin_tag(pnic: Any, cap: Capability) -> str:
    """A short word for the status line of a cell whose values were not all read on the host, so that a narrow
    column still shows it: ``" · attested"``, ``" · BMC"``; ``""`` otherwise."""
    words = dict.fromkeys("BMC" if o == BMC_ORIGIN else "attested" for o in _origins(pnic, cap))
    return "".join(f" · {w}" for w in words)


def cell_display(cell: Cell, short: str | None = None) -> str:
    """Two lines: ``"✔ pass"`` then the value text (``short`` if given, else ``cell.text``)."""
    return f"{STATUS_SYMBOL[cell.status]} {STATUS_TEXT[cell.status]}\n{cell.text if short is None else short}"


class CapabilityTableModel(QAbstractTableModel):
    """Read-only model: column 0 "Host / pNIC" (two lines: host, then pNIC), then one column per
    ``CAPABILITIES`` entry.

    ``data(index, CellRole)`` returns the :class:`~nicadvisor.model.capabilities.Cell` of a capability
    column (None for column 0).
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        self.pnics: list[Any] = []
        self.switch_ports: list[str] = []
        #: (row, column) -> the cell's two display lines, made once: Qt asks for them again at every sizing and paint
        #: (the columns sized to their contents read every cell), and each is built from the pNIC's facts
        self._display: dict[tuple[int, int], str] = {}

    def set_audit(self, audit: Any) -> None:
        """Rebuild from an ``Audit`` (None clears): rows of every host's physical pNICs."""
        self.beginResetModel()
        self.rows, self.pnics, self.switch_ports = [], [], []
        self._display = {}
        if audit is not None:  # made on the audit's worker (audit_cache.warm), not here on the GUI thread
            for row, pnic, switch_port in audit_cache.capability_rows(audit):
                self.rows.append(row)
                self.pnics.append(pnic)
                self.switch_ports.append(switch_port)  # LLDP/CDP, for the tooltips
        self.endResetModel()

    def cell(self, index: QModelIndex) -> Cell | None:
        """The Cell at ``index``, or None for the Host/pNIC columns or an invalid index."""
        if not index.isValid() or index.column() < len(FIXED_COLUMNS):
            return None
        row = self.rows[index.row()]
        return row.cells.get(CAPABILITIES[index.column() - len(FIXED_COLUMNS)].key)

    # --- Qt overrides ------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(FIXED_COLUMNS) + len(CAPABILITIES)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1)
        if section < len(FIXED_COLUMNS):
            return FIXED_COLUMNS[section]
        return CAPABILITIES[section - len(FIXED_COLUMNS)].title

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ANSWERED or not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        if col < len(FIXED_COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return f"{row.host}\n{row.pnic}"
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"{row.host}/{row.pnic}\nSwitch port: {self.switch_ports[index.row()]}"
            if role == SortRole:
                return (natural_key(row.host), natural_key(row.pnic))
            return None
        cell = self.cell(QModelIndex(index) if isinstance(index, QPersistentModelIndex) else index)
        if cell is None:
            return None
        cap = CAPABILITIES[col - len(FIXED_COLUMNS)]
        if role == Qt.ItemDataRole.DisplayRole:
            key = (index.row(), col)
            text = self._display.get(key)
            if text is None:
                pnic = self.pnics[index.row()]
                short = compact_text(pnic, cap) + origin_suffix(pnic, cap)
                status, _, values = cell_display(cell, short).partition("\n")
                text = self._display[key] = f"{status}{origin_tag(pnic, cap)}\n{values}"
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [f"{cap.title}: {STATUS_TEXT[cell.status]}", cell.text, cell.reason]
            lines += [f"{f.severity.value}: {f.title} ({f.target})" for f in cell.findings]
            if cap.key in SWITCH_PORT_CATEGORIES:  # its fix is also on the physical switch port
                lines.append(f"Switch port: {self.switch_ports[index.row()]}")
            return "\n".join(lines)
        if role == SortRole:
            return STATUS_ORDER.index(cell.status)
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(QColor(STATUS_BACKGROUND[cell.status]))
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(STATUS_FOREGROUND[cell.status]))
        if role == CellRole:
            return cell
        return None


class CapabilityFilterProxy(QSortFilterProxyModel):
    """Sorting and filtering of a :class:`CapabilityTableModel`.

    Sorting: the Host / pNIC column by host then pNIC (natural order: vmnic2 before vmnic10), a capability
    column by status, worst first (fail, warn, unknown, n/a, pass; ``STATUS_ORDER``). With :attr:`group_by_host`
    the host stays the first key, so rows stay grouped by host whatever column is sorted.
    Filtering: :meth:`set_row_filter` (``all``, ``problems``: a warn or fail cell, ``unknown``: an unknown cell)
    and :meth:`set_host` (a host name, or ``""`` for all hosts).
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.row_filter = "all"
        self.host = ""
        self.group_by_host = True

    def set_row_filter(self, key: str) -> None:
        """Show ``all`` rows, only rows with a warn/fail cell (``problems``) or with an unknown cell (``unknown``)."""
        self.beginFilterChange()
        self.row_filter = key
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_host(self, host: str) -> None:
        """Show only the pNICs of ``host`` (``""``: every host)."""
        self.beginFilterChange()
        self.host = host
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_group_by_host(self, on: bool) -> None:
        """Keep rows grouped by host whatever column is sorted (on), or sort by the column alone (off)."""
        self.group_by_host = on
        self.invalidate()
        self.sort(self.sortColumn(), self.sortOrder())

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:  # Qt
        model = self.sourceModel()
        row = model.rows[source_row]
        if self.host and row.host != self.host:
            return False
        statuses = {c.status for c in row.cells.values()}
        if self.row_filter == "problems":
            return bool(statuses & {WARN, FAIL})
        if self.row_filter == "unknown":
            return UNKNOWN in statuses
        return True

    def lessThan(self, left: QModelIndex | QPersistentModelIndex,
                 right: QModelIndex | QPersistentModelIndex) -> bool:  # Qt override
        model = self.sourceModel()
        lrow, rrow = model.rows[left.row()], model.rows[right.row()]
        lname = (natural_key(lrow.host), natural_key(lrow.pnic))
        rname = (natural_key(rrow.host), natural_key(rrow.pnic))
        if left.column() < len(FIXED_COLUMNS):
            return lname < rname
        lkey, rkey = (model.data(left, SortRole), lname), (model.data(right, SortRole), rname)
        if self.group_by_host and lname[0] != rname[0]:
            # the host order stays ascending whichever way the column is sorted
            ascending = self.sortOrder() == Qt.SortOrder.AscendingOrder
            return (lname[0] < rname[0]) == ascending
        return lkey < rkey
