"""Editable lists of live targets for the Connect page: vCenters, SSH hosts (ESXi / Linux), NSX Managers.

Each editor is a form (Add / Update selected / Remove / Clear) above a table with one row per target, its
last status and a "Test connection" button. The editors edit the spec lists of
:class:`nicadvisor.gui.state.WizardState` in place (GUI thread); testing is done by the page (worker
threads). Passwords typed here stay in memory (the spec) and are shown nowhere; "Remember in OS keyring"
saves them in the keyring only, and is disabled — with a visible note — when the keyring is not a
secure store (:func:`nicadvisor.secrets.backend_problem`).

The vCenter editor also shows the selected vCenter's hosts as a tree with check boxes
(:class:`~nicadvisor.gui.widgets.host_tree.HostScopePanel`): the checked hosts become its audit scope.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QFileDialog, QGridLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton,
    QStyledItemDelegate, QStyleOptionViewItem, QTableWidgetItem, QVBoxLayout, QWidget,
)

from nicadvisor.gui.scope import Scope, scope_text
from nicadvisor.gui.state import HttpsSpec, NsxSpec, SshSpec, VcenterSpec, split_https_url
from nicadvisor.gui.widgets.common import button, message_label, readonly_table, share_width, splitter
from nicadvisor.gui.widgets.formatting import esc
from nicadvisor.gui.widgets.host_tree import HostScopePanel

KEYRING_NOTE = ("⚠ The OS keyring is not usable here ({why}): passwords will be asked every time — type them "
                "in this session; they are kept in memory only and never written to disk.")
KEYRING_PENDING = "checking the OS keyring…"
"""``keyring_problem`` of an editor while the keyring backend is still being discovered on a worker: the
"Remember in OS keyring" box stays disabled until :meth:`TargetEditor.set_keyring_problem` says."""
ESXCLI_TEXT = "also run esxcli through the vSphere API (locked-down hosts)"
STATUS_COLOURS = {"ok": "#1b5e20", "warn": "#8a5a00", "fail": "#b00020", "busy": "#1d4f91", "idle": "#444444"}


def status_kind(status: str) -> str:
    """``ok``, ``warn``, ``fail``, ``busy`` or ``idle`` from a status text's leading symbol (✔ ▲ ✖ ◷)."""
    if status.startswith("✔"):
        return "ok"
    if status.startswith("▲"):
        return "warn"
    if status.startswith("✖"):
        return "fail"
    if status.startswith("◷"):
        return "busy"
    return "idle"


def _pin_text(thumbprint: str) -> str:
    if not thumbprint:
        return "system CA store"
    return f"pinned {thumbprint[:11]}…{thumbprint[-5:]}"


class TargetEditor(QWidget):
    """Base of the three editors (see the module docstring).

    Attributes:
        specs: the state's list of specs, edited in place.
        table: one row per spec; the last column holds the row's Test connection button.
        error: red line for a form that cannot be added (bad URL, missing user…).
        remember: the "Remember in OS keyring" check box (disabled when the keyring is not secure, and while
            it is being checked: ``keyring_problem`` is :data:`KEYRING_PENDING`).
        keyring_note: visible note when the keyring is not secure.
        keyring_problem: why the keyring cannot hold passwords, None when it can, :data:`KEYRING_PENDING` until
            :meth:`set_keyring_problem` is called.

    Signals:
        sig_changed(): the list changed (added, updated, removed).
        sig_test_requested(object): Test connection clicked for a spec.
    """

    #: Narrowest the Status column gets while the target columns are shown whole (px): only when the table is narrower
    #: than their texts are the widest of them elided (their full text is in the tooltip).
    MIN_STATUS_WIDTH = 180

    sig_changed = Signal()
    sig_test_requested = Signal(object)

    COLUMNS: tuple[str, ...] = ()
    ADD_TEXT = "Add"

    def __init__(self, specs: list, keyring_problem: str | None = KEYRING_PENDING,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.specs = specs
        self.test_buttons: list[QPushButton] = []
        self._busy: set[int] = set()

        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText(self._empty_password_hint())
        self.remember = QCheckBox("Remember in OS keyring")
        self.keyring_note = message_label(STATUS_COLOURS["warn"])
        self.set_keyring_problem(keyring_problem)

        form = QGridLayout()
        form.setHorizontalSpacing(8)
        self._build_form(form)
        form.setColumnStretch(1, 3)
        form.setColumnStretch(3, 2)

        self.add_button = button(self.ADD_TEXT)
        self.update_button = button("Update selected")
        self.remove_button = button("Remove selected")
        self.clear_button = button("Clear form")
        buttons = QHBoxLayout()
        for b in (self.add_button, self.update_button, self.remove_button, self.clear_button):
            buttons.addWidget(b)
        self.error = message_label(STATUS_COLOURS["fail"])
        buttons.addWidget(self.error, 1)

        columns = (*self.COLUMNS, "Status", "")
        self.table = readonly_table(columns)
        header = self.table.horizontalHeader()
        # Target columns are sized to their contents but capped (long values are elided, full text in the
        # tooltip), Status takes the rest, the Test connection button keeps its width: nothing is pushed out of
        # sight at the default window size.
        for col in range(len(self.COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(len(self.COLUMNS), QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(len(columns) - 1, QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(40)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        # a long status wraps between words (elided, it was cut mid-word); the target columns still elide
        self.table.setItemDelegateForColumn(len(self.COLUMNS), WrappingDelegate(self.table))
        self.table.viewport().installEventFilter(self)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(form)
        layout.addWidget(self.keyring_note)
        layout.addLayout(buttons)
        layout.addWidget(self._body(), 1)
        self.detail = message_label(selectable=True)
        layout.addWidget(self.detail)

        self.add_button.clicked.connect(self.add_from_form)
        self.update_button.clicked.connect(self.update_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.clear_button.clicked.connect(self.clear_form)
        self.table.itemSelectionChanged.connect(self._on_selection)
        # a click on the row already selected loads it again (its form may have been cleared meanwhile: "Update
        # selected" then failed on an empty form)
        self.table.cellClicked.connect(lambda _row, _col: self._on_selection())
        self.refresh()

    def _empty_password_hint(self) -> str:
        """What an empty password field means: the keyring's password, or (no usable keyring) nothing."""
        if getattr(self, "keyring_problem", None) in (None, KEYRING_PENDING):
            return "empty: use the password saved in the OS keyring"
        return "required: no usable OS keyring here, so nothing is saved (kept in memory only)"

    def set_keyring_problem(self, problem: str | None) -> None:
        """Show what the keyring check found: None enables "Remember in OS keyring"; a reason disables it and
        shows the note; :data:`KEYRING_PENDING` disables it until the check ends (no note). The empty password
        field's hint follows (it never promises a keyring that does not exist)."""
        self.keyring_problem = problem
        if not self.password.text():
            self.password.setPlaceholderText(self._empty_password_hint())
        if problem is None:
            self.remember.setEnabled(True)
            self.remember.setToolTip("Save the password in the operating system's keyring (nowhere else)")
            self.keyring_note.hide()
        elif problem == KEYRING_PENDING:
            self.remember.setEnabled(False)
            self.remember.setToolTip(f"Not available yet: {KEYRING_PENDING}")
            self.keyring_note.hide()
        else:
            self.remember.setChecked(False)
            self.remember.setEnabled(False)
            self.remember.setToolTip(f"Not available: {problem}")
            self.keyring_note.setText(KEYRING_NOTE.format(why=problem))
            self.keyring_note.show()

    # --- subclass hooks ----------------------------------------------------------------------------
    def _build_form(self, grid: QGridLayout) -> None:
        raise NotImplementedError

    def _spec_from_form(self, old: Any | None) -> Any:
        """A new spec from the form (``old``: the spec being updated). Raises ValueError."""
        raise NotImplementedError

    def _fill_form(self, spec: Any) -> None:
        raise NotImplementedError

    def _row(self, spec: Any) -> list[str]:
        raise NotImplementedError

    def _body(self) -> QWidget:
        """What stands between the buttons and the detail line: the table (the vCenter editor adds its
        host tree)."""
        return self.table

    # --- helpers for subclasses --------------------------------------------------------------------
    def _form_row(self, grid: QGridLayout, row: int, left: tuple[str, QWidget],
                  right: tuple[str, QWidget] | None = None) -> None:
        """``label: widget`` on the left of ``row`` and, when given, on its right; a single one spans the row."""
        grid.addWidget(QLabel(left[0]), row, 0)
        if right is None:
            grid.addWidget(left[1], row, 1, 1, 3)
            return
        grid.addWidget(left[1], row, 1)
        grid.addWidget(QLabel(right[0]), row, 2)
        grid.addWidget(right[1], row, 3)

    def _password_row(self, grid: QGridLayout, row: int = 1) -> None:
        """The password field and the "Remember in OS keyring" box on ``row``."""
        grid.addWidget(QLabel("Password:"), row, 0)
        grid.addWidget(self.password, row, 1)
        grid.addWidget(self.remember, row, 2, 1, 2)

    @staticmethod
    def _edit(placeholder: str) -> QLineEdit:
        edit = QLineEdit()
        edit.setPlaceholderText(placeholder)
        edit.setClearButtonEnabled(True)
        return edit

    def _password_text(self, spec: Any) -> str:
        if getattr(spec, "key_file", "") and not spec.password:
            return "key file"
        if spec.password:
            return "entered, saved in keyring" if spec.remember else "entered, this session only"
        return "from the OS keyring"

    # --- list operations ---------------------------------------------------------------------------
    def selected_row(self) -> int:
        """Index of the selected spec, or -1."""
        rows = {i.row() for i in self.table.selectedIndexes()}
        return min(rows) if rows else -1

    @Slot()
    def add_from_form(self) -> Any | None:
        """Add the form's target; returns the new spec, or None (reason in :attr:`error`)."""
        try:
            spec = self._spec_from_form(None)
        except ValueError as exc:
            self.error.setText(str(exc))
            return None
        if any(s.key()[:3] == spec.key()[:3] for s in self.specs):
            self.error.setText("This target is already in the list: select it to update it.")
            return None
        self.specs.append(spec)
        self.error.setText("")
        self.refresh()
        self.table.clearSelection()
        self.clear_form()
        self.sig_changed.emit()
        return spec

    @Slot()
    def update_selected(self) -> None:
        """Replace the selected target by the form's (an empty password keeps the one entered before)."""
        row = self.selected_row()
        if row < 0:
            self.error.setText("Select a target in the list to update it.")
            return
        try:
            spec = self._spec_from_form(self.specs[row])
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.specs[row] = spec
        self.error.setText("")
        self.refresh()
        self.sig_changed.emit()

    @Slot()
    def remove_selected(self) -> None:
        """Remove the selected target."""
        row = self.selected_row()
        if row < 0:
            self.error.setText("Select a target in the list to remove it.")
            return
        del self.specs[row]
        self.error.setText("")
        self.refresh()
        self.clear_form()
        self.sig_changed.emit()

    @Slot()
    def clear_form(self) -> None:
        """Empty the form fields."""
        for edit in self.findChildren(QLineEdit):
            edit.clear()
        self.remember.setChecked(False)

    @Slot()
    def _on_selection(self) -> None:
        row = self.selected_row()
        if 0 <= row < len(self.specs):
            self._fill_form(self.specs[row])
            self.password.clear()
            self.password.setPlaceholderText("unchanged" if self.specs[row].password else
                                             self._empty_password_hint())
            self.error.setText("")
            self._show_detail(self.specs[row])

    def _show_detail(self, spec: Any) -> None:
        """The full status of ``spec`` under the table (the Status column elides long texts)."""
        try:
            name = spec.label
        except ValueError:
            name = getattr(spec, "url", "") or getattr(spec, "spec", "")
        colour = STATUS_COLOURS[status_kind(spec.status)]
        self.detail.setText(f"<b>{esc(name)}</b>: <span style='color:{colour}'>{esc(spec.status)}</span>")

    # --- display -----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Rebuild the table from :attr:`specs`."""
        self.table.setRowCount(len(self.specs))
        self.test_buttons = []
        for row, spec in enumerate(self.specs):
            values = self._row(spec)
            for col, (text, tip) in enumerate(zip(values, self._tips(spec, values))):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                self.table.setItem(row, col, item)
            self._set_status_item(row, spec.status)
            button = QPushButton("Test connection")
            button.setAutoDefault(False)
            button.setEnabled(id(spec) not in self._busy)
            button.clicked.connect(lambda _=False, s=spec: self.sig_test_requested.emit(s))
            self.table.setCellWidget(row, len(values) + 1, button)
            self.test_buttons.append(button)
        self.fit_columns()
        row = self.selected_row()
        if 0 <= row < len(self.specs):
            self._show_detail(self.specs[row])
        elif not self.specs:
            self.detail.setText("")

    def fit_columns(self) -> None:
        """Show the target columns whole when the table is wide enough (a URL, "password (entered (this session
        only))" and a pin were cut with "…" while the Status column had room to spare); otherwise narrow the widest of
        them, all to one width, until Status keeps :data:`MIN_STATUS_WIDTH`."""
        n = len(self.COLUMNS)
        room = self.table.viewport().width() - self.table.columnWidth(n + 1) - self.MIN_STATUS_WIDTH
        share_width(self.table, n, room)
        # rows as tall as their wrapped text at these widths: a status wraps between words (it was cut mid-word when
        # the heights were taken before the widths changed)
        self.table.resizeRowsToContents()

    def _tips(self, spec: Any, values: list[str]) -> list[str]:
        """The tooltips of a row's target cells: the cells' own text unless a column shows it shortened."""
        return values

    def eventFilter(self, watched: Any, event: Any) -> bool:  # Qt override: refit when the table's width changes
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return super().eventFilter(watched, event)

    def _set_status_item(self, row: int, status: str) -> None:
        item = QTableWidgetItem(status)
        item.setToolTip(status)
        item.setForeground(QBrush(QColor(STATUS_COLOURS[status_kind(status)])))
        self.table.setItem(row, len(self.COLUMNS), item)

    def set_status(self, spec: Any, status: str, busy: bool = False) -> None:
        """Show ``status`` for ``spec`` (✔ ok, ✖ failed, ◷ running); ``busy`` disables its Test button."""
        spec.status = status
        if busy:
            self._busy.add(id(spec))
        else:
            self._busy.discard(id(spec))
        self.update_row(spec)

    def update_row(self, spec: Any) -> None:
        """Redraw ``spec``'s row (texts, status, Test button) and, when it is selected, the detail line."""
        for row, s in enumerate(self.specs):
            if s is spec:
                values = self._row(s)
                for col, (text, tip) in enumerate(zip(values, self._tips(s, values))):
                    self.table.item(row, col).setText(text)
                    self.table.item(row, col).setToolTip(tip)
                self._set_status_item(row, spec.status)
                self.table.resizeRowToContents(row)  # a longer status wraps onto more lines
                self.test_buttons[row].setEnabled(id(spec) not in self._busy)
        if self.selected_row() < 0 or self.specs[self.selected_row()] is spec:
            self._show_detail(spec)

    def sync_form(self, spec: Any) -> None:
        """Refill the form from ``spec`` when it is the selected target (after the page changed it)."""
        row = self.selected_row()
        if 0 <= row < len(self.specs) and self.specs[row] is spec:
            self._fill_form(spec)

    def button_for(self, spec: Any) -> QPushButton:
        """The Test connection button of ``spec``'s row (KeyError if it is not listed)."""
        for row, s in enumerate(self.specs):
            if s is spec:
                return self.test_buttons[row]
        raise KeyError(spec)


class HttpsTargetEditor(TargetEditor):
    """Base of the editors of https targets (:class:`~nicadvisor.gui.state.HttpsSpec`): URL, user, password,
    remember and SHA-256 pin rows; a pin accepted in the trust dialog is kept when the target is updated.

    Class attributes: ``URL_PLACEHOLDER``, ``USER_PLACEHOLDER`` (form hints), ``URL_MISSING``,
    ``USER_MISSING`` (the error of an empty field).
    """

    def pending_entry(self) -> str:
        """The URL typed in the form but not added to the list (``""`` when none)."""
        text = self.url.text().strip()
        return "" if not text or any(spec.url == text for spec in self.specs) else text

    URL_PLACEHOLDER = ""
    USER_PLACEHOLDER = ""
    URL_MISSING = ""
    USER_MISSING = ""

    def _https_form(self, grid: QGridLayout, pin_row: int) -> None:
        """URL and user (row 0), password and remember (row 1), the pin on ``pin_row``."""
        self.url = self._edit(self.URL_PLACEHOLDER)
        self.user = self._edit(self.USER_PLACEHOLDER)
        self.thumbprint = self._edit("optional: set when you accept a self-signed certificate on Test connection")
        self._form_row(grid, 0, ("URL:", self.url), ("User:", self.user))
        self._password_row(grid)
        self._form_row(grid, pin_row, ("SHA-256 pin:", self.thumbprint))

    def _https_fields(self, old: HttpsSpec | None) -> dict[str, Any]:
        """``url``, ``user``, ``password``, ``remember``, ``thumbprint`` of the form (an empty password keeps
        ``old``'s). Raises ValueError (empty URL or user, not https, malformed pin)."""
        url, user = self.url.text().strip(), self.user.text().strip()
        if not url:
            raise ValueError(self.URL_MISSING)
        split_https_url(url)
        if not user:
            raise ValueError(self.USER_MISSING)
        return dict(url=url, user=user, password=self.password.text() or (old.password if old else ""),
                    remember=self.remember.isChecked(),
                    thumbprint=_keep_pin(_norm_thumbprint(self.thumbprint.text()), old, url))

    def _fill_form(self, spec: HttpsSpec) -> None:
        self.url.setText(spec.url)
        self.user.setText(spec.user)
        self.remember.setChecked(spec.remember)
        self.thumbprint.setText(spec.thumbprint)


class VcenterEditor(HttpsTargetEditor):
    """vCenter (or ESXi SDK) targets: URL, user, password, remember, datacenter / cluster scope, pinned
    thumbprint; and :attr:`hosts`, the host tree of the vCenter shown (the selected one, else the only
    one, else the last one browsed).

    "Browse hosts" (or a successful Test connection, through the page) reads the tree; its check boxes set
    the vCenter's scope (:func:`nicadvisor.gui.scope.scope_of_selection`: no filter, a datacenter, a cluster or
    host names) and the Scope column counts the hosts ("3 of 10 hosts").

    Signals (besides :class:`TargetEditor`'s):
        sig_browse_requested(object): Browse hosts clicked for a VcenterSpec.
        sig_scope_changed(object): the host tree changed the scope of a VcenterSpec.
    """

    COLUMNS = ("vCenter", "User", "Scope", "esxcli", "Password", "Certificate")
    ADD_TEXT = "Add vCenter"
    URL_PLACEHOLDER = "https://vcenter.example.com"
    USER_PLACEHOLDER = "administrator@vsphere.local"
    URL_MISSING = "Enter the vCenter URL (https://vcenter.example.com)."
    USER_MISSING = "Enter the vCenter user (e.g. administrator@vsphere.local)."

    sig_browse_requested = Signal(object)
    sig_scope_changed = Signal(object)

    def _build_form(self, grid: QGridLayout) -> None:
        self._https_form(grid, pin_row=3)
        self.datacenter = self._edit("optional: all datacenters")
        self.cluster = self._edit("optional: all clusters")
        self._form_row(grid, 2, ("Datacenter:", self.datacenter), ("Cluster:", self.cluster))
        self.esxcli = QCheckBox(ESXCLI_TEXT)
        self.esxcli.setToolTip("VsphereTarget(esxcli=True): per host, esxcli network nic list / coalesce / nic get "
                               "and the driver module parameters through the vSphere API — for hosts in lockdown "
                               "mode or without SSH. Slower: several calls per host.")
        grid.addWidget(self.esxcli, 4, 1, 1, 3)

    def _body(self) -> QWidget:
        self._browsing: set[int] = set()
        self._messages: dict[int, str] = {}
        self._browsed: VcenterSpec | None = None
        self.hosts = HostScopePanel()
        self.hosts.sig_browse_requested.connect(self._on_browse_clicked)
        self.hosts.sig_selection_changed.connect(self._on_hosts_selection)
        split = splitter(Qt.Orientation.Horizontal, (self.table, 2), (self.hosts, 1))
        split.setSizes([860, 320])  # the table keeps room for its Status and Test connection columns
        return split

    def _spec_from_form(self, old: VcenterSpec | None) -> VcenterSpec:
        fields = self._https_fields(old)
        datacenter, cluster = self.datacenter.text().strip(), self.cluster.text().strip()
        same = old is not None and old.url == fields["url"]
        # the host tree's names stay while the datacenter / cluster typed above do not change
        keep_names = same and (old.datacenter, old.cluster) == (datacenter, cluster)
        return VcenterSpec(**fields, datacenter=datacenter, cluster=cluster, esxcli=self.esxcli.isChecked(),
                           host_names=old.host_names if keep_names else (), inventory=old.inventory if same else None)

    def _fill_form(self, spec: VcenterSpec) -> None:
        super()._fill_form(spec)
        self.datacenter.setText(spec.datacenter)
        self.cluster.setText(spec.cluster)
        self.esxcli.setChecked(spec.esxcli)

    @Slot()
    def clear_form(self) -> None:
        """Empty the form fields and untick esxcli."""
        super().clear_form()
        self.esxcli.setChecked(False)

    def _row(self, spec: VcenterSpec) -> list[str]:
        scope = scope_text(spec.datacenter, spec.cluster, spec.host_names, spec.inventory)
        return [spec.url, spec.user, scope, "via API" if spec.esxcli else "no", self._password_text(spec),
                _pin_text(spec.thumbprint)]

    # --- host tree -----------------------------------------------------------------------------------
    def refresh(self) -> None:
        super().refresh()
        self._show_hosts()

    @Slot()
    def _on_selection(self) -> None:
        super()._on_selection()
        self._show_hosts()

    def hosts_spec(self) -> VcenterSpec | None:
        """The vCenter whose hosts the tree shows: the selected one, else the only one, else the last one
        browsed (while listed); None when there is none."""
        row = self.selected_row()
        if 0 <= row < len(self.specs):
            return self.specs[row]
        if len(self.specs) == 1:
            return self.specs[0]
        return self._browsed if any(s is self._browsed for s in self.specs) else None

    def _show_hosts(self) -> None:
        spec = self.hosts_spec()
        self.hosts.browse_button.setEnabled(spec is not None and id(spec) not in self._browsing)
        if spec is None:
            self.hosts.show_tree(None, Scope(), "Hosts", "Add a vCenter, then click Browse hosts (or Test "
                                                         "connection) to choose the hosts to audit.")
            self.hosts.status.setText("")
            return
        try:
            name = spec.label
        except ValueError:
            name = spec.url
        scope = Scope(spec.datacenter, spec.cluster, tuple(spec.host_names))
        self.hosts.show_tree(spec.inventory, scope, self._hosts_title(spec, name),
                             f"Click Browse hosts (or Test connection) to list the hosts of {name} and choose "
                             "which are audited; until then the scope on the left applies.")
        self.hosts.status.setText(self._messages.get(id(spec), ""))

    @staticmethod
    def _hosts_title(spec: VcenterSpec, name: str) -> str:
        if spec.inventory is None:
            return f"Hosts of {esc(name)}"
        scope = scope_text(spec.datacenter, spec.cluster, spec.host_names, spec.inventory)
        return f"Hosts of {esc(name)} — audit scope: {esc(scope)}"

    @Slot()
    def _on_browse_clicked(self) -> None:
        spec = self.hosts_spec()
        if spec is not None:
            self.sig_browse_requested.emit(spec)

    def set_browsing(self, spec: VcenterSpec) -> None:
        """Reading ``spec``'s hosts has started (its Browse button is disabled meanwhile)."""
        self._browsing.add(id(spec))
        self._messages[id(spec)] = "◷ reading the datacenters, clusters and hosts…"
        self._browsed = spec
        self._show_hosts()

    def set_inventory(self, spec: VcenterSpec, ok: bool, message: str, tree: Any = None) -> None:
        """Reading ``spec``'s hosts ended: ``ok`` with ``tree`` (datacenter nodes; kept on the spec and shown,
        checked as its current scope) or failed with ``message``."""
        self._browsing.discard(id(spec))
        if ok:
            spec.inventory = list(tree or [])
            self._messages[id(spec)] = (f"✔ {message}. Uncheck the datacenters, clusters or hosts that are not to "
                                        "be audited.")
        else:
            self._messages[id(spec)] = f"✖ the hosts could not be listed: {message}"
        self._browsed = spec
        self.update_row(spec)
        self._show_hosts()

    @Slot(object)
    def _on_hosts_selection(self, scope: Scope | None) -> None:
        spec = self.hosts_spec()
        if spec is None or spec.inventory is None:
            return
        if scope is None:
            now = scope_text(spec.datacenter, spec.cluster, spec.host_names, spec.inventory)
            self.hosts.status.setText(f"▲ No host is checked: check at least one. The audit keeps the scope it had "
                                      f"({now}).")
            return
        self.hosts.status.setText(self._messages.get(id(spec), ""))
        if (spec.datacenter, spec.cluster, tuple(spec.host_names)) == (scope.datacenter, scope.cluster,
                                                                         scope.host_names):
            return
        spec.datacenter, spec.cluster, spec.host_names = scope.datacenter, scope.cluster, scope.host_names
        self.update_row(spec)
        self.sync_form(spec)
        self.hosts.title.setText(f"<b>{self._hosts_title(spec, spec.label)}</b>")
        self.sig_changed.emit()
        self.sig_scope_changed.emit(spec)


class WrappingDelegate(QStyledItemDelegate):
    """Draws its column's texts wrapped between words, and asks for the height they take at the column's width (the
    view's own word wrap is off: the other columns elide)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Any) -> None:  # Qt override
        super().initStyleOption(option, index)
        option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText

    def sizeHint(self, option: QStyleOptionViewItem, index: Any) -> QSize:  # Qt override
        hint = super().sizeHint(option, index)
        width = max(self.parent().columnWidth(index.column()) - 8, 1)
        text = str(index.data() or "")
        height = option.fontMetrics.boundingRect(QRect(0, 0, width, 1_000_000), Qt.TextFlag.TextWordWrap, text).height()
        return QSize(hint.width(), max(hint.height(), height + 6))


def short_key(stored: str) -> str:
    """``"ssh-ed25519 SHA256:Ab3dEf…"`` (and more keys, ``", "``-separated) → ``"SHA256:Ab3dEf…wx4Z"`` per key: the
    fingerprint's first 6 and last 4 characters after ``SHA256:``, which is how people compare them by eye."""
    out = []
    for key in stored.split(", "):
        fingerprint = key.split()[-1] if key.split() else key
        algo, _, digest = fingerprint.partition(":")
        out.append(f"{algo}:{digest[:6]}…{digest[-4:]}" if digest and len(digest) > 12 else fingerprint)
    return ", ".join(out)


class SshEditor(TargetEditor):
    """ESXi / Linux hosts over SSH: ``user@host[:port]``, kind, password or key file, remember, optional
    trusted host-key fingerprint."""

    COLUMNS = ("SSH host", "Kind", "Authentication", "Host key")
    ADD_TEXT = "Add SSH host"

    def pending_entry(self) -> str:
        """The host typed in the form but not added to the list (``""`` when none)."""
        text = self.target_edit.text().strip()
        return "" if not text or any(spec.spec == text for spec in self.specs) else text

    def _build_form(self, grid: QGridLayout) -> None:
        self.target_edit = self._edit("root@esxi-01.example.com   or   user@host:2222")
        self.kind = QComboBox()
        self.kind.addItem("ESXi", "esxi")
        self.kind.addItem("Linux", "linux")
        self.key_file = self._edit("optional: private key file (unencrypted) instead of a password")
        self.key_button = button("Browse…")
        self.fingerprint = self._edit("optional: SHA256:… — otherwise you are asked on first contact")
        keys = QWidget()
        keys_layout = QHBoxLayout(keys)
        keys_layout.setContentsMargins(0, 0, 0, 0)
        keys_layout.addWidget(self.key_file, 1)
        keys_layout.addWidget(self.key_button)
        self._form_row(grid, 0, ("Host:", self.target_edit), ("Kind:", self.kind))
        self._password_row(grid)
        self._form_row(grid, 2, ("Key file:", keys), ("Host key:", self.fingerprint))
        self.key_button.clicked.connect(self._on_browse_key)

    def _spec_from_form(self, old: SshSpec | None) -> SshSpec:
        text = self.target_edit.text().strip()
        if not text:
            raise ValueError("Enter the host as user@host[:port].")
        from nicadvisor.services.targets import parse_ssh_spec

        parse_ssh_spec(text)
        fp = self.fingerprint.text().strip()
        if fp:
            from nicadvisor.services.targets import normalise_fingerprint

            fp = normalise_fingerprint(fp)
        return SshSpec(spec=text, kind=self.kind.currentData(), password=self.password.text() or (old.password if old else ""),
                       key_file=self.key_file.text().strip(), remember=self.remember.isChecked(),
                       trusted_fingerprint=fp)

    def _fill_form(self, spec: SshSpec) -> None:
        self.target_edit.setText(spec.spec)
        self.kind.setCurrentIndex(max(0, self.kind.findData(spec.kind)))
        self.key_file.setText(spec.key_file)
        self.remember.setChecked(spec.remember)
        self.fingerprint.setText(spec.trusted_fingerprint)

    def _row(self, spec: SshSpec) -> list[str]:
        auth = f"key {spec.key_file}" if spec.key_file else "password"
        if spec.key_file and spec.password:
            auth += " + password"
        if not spec.key_file:
            auth = f"password {self._password_text(spec)}"
        # what decides the next contact: the key stored after it was accepted, the one typed, else a question
        key = (f"✔ trusted {short_key(spec.stored_key)}" if spec.stored_key else
               f"trust {spec.trusted_fingerprint} on first contact" if spec.trusted_fingerprint else
               "asked on first contact")
        return [spec.spec, {"esxi": "ESXi", "linux": "Linux"}.get(spec.kind, spec.kind), auth, key]

    def _tips(self, spec: SshSpec, values: list[str]) -> list[str]:
        tips = list(values)
        if spec.stored_key:  # the column shows the fingerprint short: the whole key in its tooltip
            tips[self.COLUMNS.index("Host key")] = f"stored in NIC Advisor's known hosts: {spec.stored_key}"
        return tips

    @Slot()
    def _on_browse_key(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "SSH private key", "", "All files (*)")
        if path:
            self.key_file.setText(path)


class NsxEditor(HttpsTargetEditor):
    """NSX Managers: URL, user, password, remember, pinned thumbprint."""

    COLUMNS = ("NSX Manager", "User", "Password", "Certificate")
    ADD_TEXT = "Add NSX Manager"
    URL_PLACEHOLDER = "https://nsx.example.com"
    USER_PLACEHOLDER = "admin (read-only role is enough)"
    URL_MISSING = "Enter the NSX Manager URL (https://nsx.example.com)."
    USER_MISSING = "Enter the NSX Manager user."

    def _build_form(self, grid: QGridLayout) -> None:
        self._https_form(grid, pin_row=2)

    def _spec_from_form(self, old: NsxSpec | None) -> NsxSpec:
        return NsxSpec(**self._https_fields(old))

    def _row(self, spec: NsxSpec) -> list[str]:
        return [spec.url, spec.user, self._password_text(spec), _pin_text(spec.thumbprint)]


def _norm_thumbprint(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    from nicadvisor.services.targets import normalize_thumbprint

    return normalize_thumbprint(text)


def _keep_pin(typed: str, old: Any | None, url: str) -> str:
    """The pin of an updated target: the typed one, else the old one while the URL is the same (a pin
    accepted in the trust dialog is not lost by editing another field)."""
    if typed or old is None or old.url != url:
        return typed
    return old.thumbprint
