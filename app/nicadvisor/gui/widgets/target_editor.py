"""Editable lists of live targets for the Connect page: vCenters, SSH hosts (ESXi / Linux), NSX Managers.

Each editor is a form (Add / Update selected / Remove / Clear) above a table with one row per target, its
last status and a "Test connection" button. The editors edit the spec lists of
:class:`nicadvisor.gui.state.WizardState` in place (GUI thread); testing is done by the page (worker
threads). Passwords typed here stay in memory (the spec) and are shown nowhere; "Remember in OS keyring"
saves them in the keyring only, and is disabled — with a visible note — when the keyring is not a
secure store (:func:`nicadvisor.secrets.backend_problem`).
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QGridLayout, QHBoxLayout, QHeaderView, QLabel,
    QLineEdit, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from nicadvisor.gui.state import NsxSpec, SshSpec, VcenterSpec, split_https_url
from nicadvisor.gui.widgets.formatting import esc

KEYRING_NOTE = ("⚠ The OS keyring is not usable here ({why}): passwords will be asked every time — type them "
                "in this session; they are kept in memory only and never written to disk.")
STATUS_COLOURS = {"ok": "#1b5e20", "warn": "#8a5a00", "fail": "#b00020", "busy": "#1d4f91", "idle": "#444444"}


def status_kind(status: str) -> str:
    """``ok``, ``warn``, ``fail``, ``busy`` or ``idle`` from a status text's leading symbol (✔ ▲ ✖ ⏳)."""
    if status.startswith("✔"):
        return "ok"
    if status.startswith("▲"):
        return "warn"
    if status.startswith("✖"):
        return "fail"
    if status.startswith("⏳"):
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
        remember: the "Remember in OS keyring" check box (disabled when the keyring is not secure).
        keyring_note: visible note when the keyring is not secure.

    Signals:
        sig_changed(): the list changed (added, updated, removed).
        sig_test_requested(object): Test connection clicked for a spec.
    """

    sig_changed = Signal()
    sig_test_requested = Signal(object)

    COLUMNS: tuple[str, ...] = ()
    ADD_TEXT = "Add"

    def __init__(self, specs: list, keyring_problem: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.specs = specs
        self.keyring_problem = keyring_problem
        self.test_buttons: list[QPushButton] = []
        self._busy: set[int] = set()

        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("empty: use the password saved in the OS keyring")
        self.remember = QCheckBox("Remember in OS keyring")
        self.keyring_note = QLabel("")
        self.keyring_note.setWordWrap(True)
        self.keyring_note.setStyleSheet("QLabel { color: #8a5a00; }")
        if keyring_problem:
            self.remember.setEnabled(False)
            self.remember.setToolTip(f"Not available: {keyring_problem}")
            self.keyring_note.setText(KEYRING_NOTE.format(why=keyring_problem))
        else:
            self.remember.setToolTip("Save the password in the operating system's keyring (nowhere else)")
            self.keyring_note.hide()

        form = QGridLayout()
        form.setHorizontalSpacing(8)
        self._build_form(form)
        form.setColumnStretch(1, 3)
        form.setColumnStretch(3, 2)

        self.add_button = QPushButton(self.ADD_TEXT)
        self.update_button = QPushButton("Update selected")
        self.remove_button = QPushButton("Remove selected")
        self.clear_button = QPushButton("Clear form")
        for b in (self.add_button, self.update_button, self.remove_button, self.clear_button):
            b.setAutoDefault(False)
        buttons = QHBoxLayout()
        for b in (self.add_button, self.update_button, self.remove_button, self.clear_button):
            buttons.addWidget(b)
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("QLabel { color: #b00020; }")
        buttons.addWidget(self.error, 1)

        columns = (*self.COLUMNS, "Status", "")
        self.table = QTableWidget(0, len(columns))
        self.table.setHorizontalHeaderLabels(list(columns))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for col in range(len(self.COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(self.COLUMNS), QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(len(columns) - 1, QHeaderView.ResizeMode.ResizeToContents)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(form)
        layout.addWidget(self.keyring_note)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.detail)

        self.add_button.clicked.connect(self.add_from_form)
        self.update_button.clicked.connect(self.update_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.clear_button.clicked.connect(self.clear_form)
        self.table.itemSelectionChanged.connect(self._on_selection)
        self.refresh()

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

    # --- helpers for subclasses --------------------------------------------------------------------
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
            return "entered, saved in keyring" if spec.remember else "entered (this session only)"
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
                                             "empty: use the password saved in the OS keyring")
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
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, col, item)
            self._set_status_item(row, spec.status)
            button = QPushButton("Test connection")
            button.setAutoDefault(False)
            button.setEnabled(id(spec) not in self._busy)
            button.clicked.connect(lambda _=False, s=spec: self.sig_test_requested.emit(s))
            self.table.setCellWidget(row, len(values) + 1, button)
            self.test_buttons.append(button)
        self.table.resizeRowsToContents()
        row = self.selected_row()
        if 0 <= row < len(self.specs):
            self._show_detail(self.specs[row])
        elif not self.specs:
            self.detail.setText("")

    def _set_status_item(self, row: int, status: str) -> None:
        item = QTableWidgetItem(status)
        item.setToolTip(status)
        item.setForeground(QBrush(QColor(STATUS_COLOURS[status_kind(status)])))
        self.table.setItem(row, len(self.COLUMNS), item)

    def set_status(self, spec: Any, status: str, busy: bool = False) -> None:
        """Show ``status`` for ``spec`` (✔ ok, ✖ failed, ⏳ running); ``busy`` disables its Test button."""
        spec.status = status
        if busy:
            self._busy.add(id(spec))
        else:
            self._busy.discard(id(spec))
        for row, s in enumerate(self.specs):
            if s is spec:
                values = self._row(s)
                for col, text in enumerate(values):
                    self.table.item(row, col).setText(text)
                self._set_status_item(row, status)
                self.test_buttons[row].setEnabled(not busy)
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


class VcenterEditor(TargetEditor):
    """vCenter (or ESXi SDK) targets: URL, user, password, remember, datacenter / cluster scope, pinned
    thumbprint."""

    COLUMNS = ("vCenter", "User", "Scope", "Password", "Certificate")
    ADD_TEXT = "Add vCenter"

    def _build_form(self, grid: QGridLayout) -> None:
        self.url = self._edit("https://vcenter.example.com")
        self.user = self._edit("administrator@vsphere.local")
        self.datacenter = self._edit("optional: all datacenters")
        self.cluster = self._edit("optional: all clusters")
        self.thumbprint = self._edit("optional: set when you accept a self-signed certificate on Test connection")
        grid.addWidget(QLabel("URL:"), 0, 0)
        grid.addWidget(self.url, 0, 1)
        grid.addWidget(QLabel("User:"), 0, 2)
        grid.addWidget(self.user, 0, 3)
        grid.addWidget(QLabel("Password:"), 1, 0)
        grid.addWidget(self.password, 1, 1)
        grid.addWidget(self.remember, 1, 2, 1, 2)
        grid.addWidget(QLabel("Datacenter:"), 2, 0)
        grid.addWidget(self.datacenter, 2, 1)
        grid.addWidget(QLabel("Cluster:"), 2, 2)
        grid.addWidget(self.cluster, 2, 3)
        grid.addWidget(QLabel("SHA-256 pin:"), 3, 0)
        grid.addWidget(self.thumbprint, 3, 1, 1, 3)

    def _spec_from_form(self, old: VcenterSpec | None) -> VcenterSpec:
        url, user = self.url.text().strip(), self.user.text().strip()
        if not url:
            raise ValueError("Enter the vCenter URL (https://vcenter.example.com).")
        split_https_url(url)
        if not user:
            raise ValueError("Enter the vCenter user (e.g. administrator@vsphere.local).")
        thumb = _keep_pin(_norm_thumbprint(self.thumbprint.text()), old, url)
        return VcenterSpec(url=url, user=user, password=self.password.text() or (old.password if old else ""),
                           remember=self.remember.isChecked(), datacenter=self.datacenter.text().strip(),
                           cluster=self.cluster.text().strip(), thumbprint=thumb)

    def _fill_form(self, spec: VcenterSpec) -> None:
        self.url.setText(spec.url)
        self.user.setText(spec.user)
        self.remember.setChecked(spec.remember)
        self.datacenter.setText(spec.datacenter)
        self.cluster.setText(spec.cluster)
        self.thumbprint.setText(spec.thumbprint)

    def _row(self, spec: VcenterSpec) -> list[str]:
        scope = " / ".join(p for p in (spec.datacenter, spec.cluster) if p) or "all hosts"
        return [spec.url, spec.user, scope, self._password_text(spec), _pin_text(spec.thumbprint)]


class SshEditor(TargetEditor):
    """ESXi / Linux hosts over SSH: ``user@host[:port]``, kind, password or key file, remember, optional
    trusted host-key fingerprint."""

    COLUMNS = ("SSH host", "Kind", "Authentication", "Host key")
    ADD_TEXT = "Add SSH host"

    def _build_form(self, grid: QGridLayout) -> None:
        self.target_edit = self._edit("root@esxi-01.example.com   or   user@host:2222")
        self.kind = QComboBox()
        self.kind.addItem("ESXi", "esxi")
        self.kind.addItem("Linux", "linux")
        self.key_file = self._edit("optional: private key file (unencrypted) instead of a password")
        self.key_button = QPushButton("Browse…")
        self.key_button.setAutoDefault(False)
        self.fingerprint = self._edit("optional: SHA256:… — otherwise you are asked on first contact")
        grid.addWidget(QLabel("Host:"), 0, 0)
        grid.addWidget(self.target_edit, 0, 1)
        grid.addWidget(QLabel("Kind:"), 0, 2)
        grid.addWidget(self.kind, 0, 3)
        grid.addWidget(QLabel("Password:"), 1, 0)
        grid.addWidget(self.password, 1, 1)
        grid.addWidget(self.remember, 1, 2, 1, 2)
        grid.addWidget(QLabel("Key file:"), 2, 0)
        keys = QHBoxLayout()
        keys.addWidget(self.key_file, 1)
        keys.addWidget(self.key_button)
        grid.addLayout(keys, 2, 1)
        grid.addWidget(QLabel("Host key:"), 2, 2)
        grid.addWidget(self.fingerprint, 2, 3)
        self.key_button.clicked.connect(self._on_browse_key)

    def _spec_from_form(self, old: SshSpec | None) -> SshSpec:
        text = self.target_edit.text().strip()
        if not text:
            raise ValueError("Enter the host as user@host[:port].")
        from nicadvisor.collect.ssh import parse_ssh_spec

        parse_ssh_spec(text)
        fp = self.fingerprint.text().strip()
        if fp:
            from nicadvisor.collect.known_hosts import normalise_fingerprint

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
            auth = f"password ({self._password_text(spec)})"
        key = spec.trusted_fingerprint or "asked on first contact"
        return [spec.spec, {"esxi": "ESXi", "linux": "Linux"}.get(spec.kind, spec.kind), auth, key]

    @Slot()
    def _on_browse_key(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "SSH private key", "", "All files (*)")
        if path:
            self.key_file.setText(path)


class NsxEditor(TargetEditor):
    """NSX Managers: URL, user, password, remember, pinned thumbprint."""

    COLUMNS = ("NSX Manager", "User", "Password", "Certificate")
    ADD_TEXT = "Add NSX Manager"

    def _build_form(self, grid: QGridLayout) -> None:
        self.url = self._edit("https://nsx.example.com")
        self.user = self._edit("admin (read-only role is enough)")
        self.thumbprint = self._edit("optional: set when you accept a self-signed certificate on Test connection")
        grid.addWidget(QLabel("URL:"), 0, 0)
        grid.addWidget(self.url, 0, 1)
        grid.addWidget(QLabel("User:"), 0, 2)
        grid.addWidget(self.user, 0, 3)
        grid.addWidget(QLabel("Password:"), 1, 0)
        grid.addWidget(self.password, 1, 1)
        grid.addWidget(self.remember, 1, 2, 1, 2)
        grid.addWidget(QLabel("SHA-256 pin:"), 2, 0)
        grid.addWidget(self.thumbprint, 2, 1, 1, 3)

    def _spec_from_form(self, old: NsxSpec | None) -> NsxSpec:
        url, user = self.url.text().strip(), self.user.text().strip()
        if not url:
            raise ValueError("Enter the NSX Manager URL (https://nsx.example.com).")
        split_https_url(url)
        if not user:
            raise ValueError("Enter the NSX Manager user.")
        return NsxSpec(url=url, user=user, password=self.password.text() or (old.password if old else ""),
                       remember=self.remember.isChecked(),
                       thumbprint=_keep_pin(_norm_thumbprint(self.thumbprint.text()), old, url))

    def _fill_form(self, spec: NsxSpec) -> None:
        self.url.setText(spec.url)
        self.user.setText(spec.user)
        self.remember.setChecked(spec.remember)
        self.thumbprint.setText(spec.thumbprint)

    def _row(self, spec: NsxSpec) -> list[str]:
        return [spec.url, spec.user, self._password_text(spec), _pin_text(spec.thumbprint)]


def _norm_thumbprint(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    from nicadvisor.collect.tls_pinning import normalize_thumbprint

    return normalize_thumbprint(text)


def _keep_pin(typed: str, old: Any | None, url: str) -> str:
    """The pin of an updated target: the typed one, else the old one while the URL is the same (a pin
    accepted in the trust dialog is not lost by editing another field)."""
    if typed or old is None or old.url != url:
        return typed
    return old.thumbprint
