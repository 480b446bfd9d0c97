"""Evidence from outside the hosts, on the Connect page's "Out of band" tab (issue 24 §1): the servers' BMCs read over
Redfish for the PCIe links (:mod:`nicadvisor.services.redfish`), and an attestation file of what people checked by
hand, with a dialog to add one (:mod:`nicadvisor.services.attestations`).

The panel edits ``WizardState.bmcs`` (:class:`BmcSpec`) and ``WizardState.attestations_file`` in place; Discover
calls :func:`audit_extras` on its worker thread to turn them into the audit's ``redfish`` and ``attestations``
(passwords from what was typed, else the OS keyring, service ``redfish:<host>:<port>``). The GUI thread does no
network call: adding an attestation writes one small local file (at most 4 MB are read).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (
    QComboBox, QDateEdit, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout, QLabel,
    QLineEdit, QListWidget, QMessageBox, QPushButton, QVBoxLayout, QWidget,
)


@dataclass(eq=False)
class BmcSpec:
    """A server's BMC for one audited host (GUI thread only): ``host`` (as the audit names it), ``url``
    (``https://bmc``), ``user``, ``password`` (typed; hidden from ``repr``; empty: the OS keyring's), ``thumbprint``
    (SHA-256 pin of a self-signed certificate, optional)."""

    host: str
    url: str
    user: str
    password: str = field(default="", repr=False)
    thumbprint: str = ""

    @property
    def label(self) -> str:
        """``host ← https://bmc`` for the list."""
        return f"{self.host} ← {self.url}" + (" (pinned)" if self.thumbprint else "")

    def key(self) -> tuple:
        """Identity for the wizard's input key (no password)."""
        return ("redfish", self.host, self.url, self.user, self.thumbprint)


def audit_extras(bmcs: list[BmcSpec], attestations_file: str) -> tuple[dict[str, tuple], list[Any]]:
    """(the ``redfish``/``attestations`` keyword arguments of the audit, input problems) for snapshots of the
    panel's values; worker thread (the keyring may block). Never raises: a BMC or file that cannot be used is a
    problem (``InputProblem``), and the audit runs without it."""
    from nicadvisor.model import InputProblem
    from nicadvisor.secrets import SecretStoreUnavailable, get_password
    from nicadvisor.services.attestations import AttestationError, load_attestations
    from nicadvisor.services.redfish import RedfishEntry, redfish_target
    from nicadvisor.services.targets import app_pins, host_port

    extras: dict[str, tuple] = {}
    problems: list[Any] = []
    targets = []
    for b in bmcs:
        try:
            host, port = host_port(b.url)
            password = b.password
            if not password:
                try:
                    password = get_password(f"redfish:{host}:{port}", b.user) or ""
                except SecretStoreUnavailable:
                    password = ""
            if not password:
                raise ValueError(f"no password entered for {b.user} and none saved in the OS keyring")
            targets.append(redfish_target(RedfishEntry(b.url, b.host, b.user, b.thumbprint or None), password,
                                          pins=app_pins()))
        except ValueError as exc:
            problems.append(InputProblem(f"redfish BMC of {b.host}", str(exc)))
    if targets:
        extras["redfish"] = tuple(targets)
    if attestations_file.strip():
        try:
            extras["attestations"] = tuple(load_attestations(attestations_file.strip()))
        except AttestationError as exc:
            problems.append(InputProblem(attestations_file.strip(), f"attestations not used: {exc}"))
    return extras, problems


class AttestationDialog(QDialog):
    """Record one attestation: check, host, pNIC, the values seen (``FACT=VALUE; …``), who, when, how (a sentence or
    an evidence file). OK appends it to the file (validated first: a message says what is wrong, nothing is
    written)."""

    def __init__(self, path: str, host: str = "", pnic: str = "", parent: QWidget | None = None) -> None:
        from nicadvisor.model.attestations import CHECK_FACTS

        super().__init__(parent)
        self.setWindowTitle("Add an attestation — a value checked by hand")
        self.path = path
        self.written: str | None = None
        self.check = QComboBox()
        self.check.addItems(list(CHECK_FACTS))
        self.host = QLineEdit(host)
        self.pnic = QLineEdit(pnic)
        self.values = QLineEdit()
        self.who = QLineEdit()
        self.when = QDateEdit(QDate.currentDate())
        self.when.setCalendarPopup(True)
        self.when.setDisplayFormat("yyyy-MM-dd")
        self.how = QLineEdit()
        self.how.setPlaceholderText("how it was checked: a sentence, or an evidence file")
        self.facts = QLabel()
        browse = QPushButton("Evidence file…")
        browse.clicked.connect(self._browse)
        how_row = QHBoxLayout()
        how_row.addWidget(self.how, 1)
        how_row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Check", self.check)
        form.addRow("Host", self.host)
        form.addRow("pNIC", self.pnic)
        form.addRow("Values seen", self.values)
        form.addRow("", self.facts)
        form.addRow("Checked by", self.who)
        form.addRow("On", self.when)
        form.addRow("How", how_row)
        note = QLabel("An attestation is never a reading taken on the host: it decides a value only where the host "
                      "told none, every view marks it “attested by WHO on DATE”, and a reading on the host wins.")
        note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        self.check.currentTextChanged.connect(self._show_facts)
        self._show_facts(self.check.currentText())

    def _show_facts(self, check: str) -> None:
        from nicadvisor.model.attestations import CHECK_FACTS, HOST_CHECKS

        self.facts.setText("FACT=VALUE; … with FACT one of " + ", ".join(CHECK_FACTS.get(check, ())))
        self.pnic.setEnabled(check not in HOST_CHECKS)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Evidence file")
        if path:
            self.how.setText(path)

    def attestation(self) -> Any:
        """The :class:`~nicadvisor.model.attestations.Attestation` of the fields. Raises AttestationError."""
        from nicadvisor.model.attestations import HOST_CHECKS, Attestation
        from nicadvisor.services.attestations import AttestationError, parse_value

        check = self.check.currentText()
        parts = [p for p in self.values.text().split(";") if p.strip()]
        if not parts:
            raise AttestationError("give the values seen, e.g. pcie_speed_gts=8; pcie_width=8")
        return Attestation(check=check, host=self.host.text().strip(),
                           pnic="" if check in HOST_CHECKS else self.pnic.text().strip(),
                           value=dict(parse_value(check, p) for p in parts), who=self.who.text().strip(),
                           when=self.when.date().toString("yyyy-MM-dd"), how=self.how.text().strip())

    def save(self) -> None:
        """Validate and append to the file; accept the dialog, or show why not (nothing written)."""
        from nicadvisor.services.attestations import AttestationError, add_attestation

        try:
            self.written = str(add_attestation(self.path, self.attestation()))
        except (AttestationError, OSError) as exc:
            QMessageBox.warning(self, "Attestation not recorded", str(exc))
            return
        self.accept()


class OutOfBandPanel(QWidget):
    """The "Out of band" tab: BMCs (host, URL, user, password, optional pin) and the attestation file with "Add
    attestation…". Edits ``state.bmcs`` and ``state.attestations_file``; emits ``sig_changed`` on each change."""

    sig_changed = Signal()

    def __init__(self, state: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.dialog: AttestationDialog | None = None
        self.host, self.url, self.user = QLineEdit(), QLineEdit(), QLineEdit()
        self.password, self.thumbprint = QLineEdit(), QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.host.setPlaceholderText("esxi-01 (as the audit names the host)")
        self.url.setPlaceholderText("https://esxi-01-bmc.example.com")
        self.password.setPlaceholderText("empty: the one saved in the OS keyring")
        self.thumbprint.setPlaceholderText("SHA-256 of a self-signed BMC certificate (optional)")
        self.add_bmc = QPushButton("Add BMC")
        self.remove_bmc = QPushButton("Remove")
        self.bmc_list = QListWidget()
        form = QFormLayout()
        for label, edit in (("Host", self.host), ("BMC URL", self.url), ("User", self.user),
                            ("Password", self.password), ("Thumbprint", self.thumbprint)):
            form.addRow(label, edit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_bmc)
        buttons.addWidget(self.remove_bmc)
        buttons.addStretch(1)
        bmc_box = QGroupBox("Servers' BMCs (Redfish, read-only): the PCIe link of each pNIC, out of band")
        bl = QVBoxLayout(bmc_box)
        bl.addLayout(form)
        bl.addLayout(buttons)
        bl.addWidget(self.bmc_list)
        self.file_edit = QLineEdit(state.attestations_file)
        self.file_edit.setPlaceholderText("/path/to/attestations.yaml")
        self.browse = QPushButton("Choose…")
        self.add_attestation = QPushButton("Add attestation…")
        row = QHBoxLayout()
        row.addWidget(self.file_edit, 1)
        row.addWidget(self.browse)
        row.addWidget(self.add_attestation)
        att_box = QGroupBox("Checked by hand: an attestation file (never a reading taken on the host)")
        QVBoxLayout(att_box).addLayout(row)
        layout = QVBoxLayout(self)
        layout.addWidget(bmc_box)
        layout.addWidget(att_box)
        layout.addStretch(1)
        self.add_bmc.clicked.connect(self._on_add_bmc)
        self.remove_bmc.clicked.connect(self._on_remove_bmc)
        self.file_edit.textChanged.connect(self._on_file_changed)
        self.browse.clicked.connect(self._on_browse)
        self.add_attestation.clicked.connect(self.open_dialog)
        self._refresh()

    def _refresh(self) -> None:
        self.bmc_list.clear()
        self.bmc_list.addItems([b.label for b in self.state.bmcs])
        self.add_attestation.setEnabled(bool(self.file_edit.text().strip()))

    def _on_add_bmc(self) -> None:
        from nicadvisor.services.targets import host_port, normalize_thumbprint

        host, url, user = self.host.text().strip(), self.url.text().strip(), self.user.text().strip()
        try:
            if not host or not user:
                raise ValueError("give the host (as the audit names it) and the BMC user")
            host_port(url)
            thumb = normalize_thumbprint(self.thumbprint.text()) if self.thumbprint.text().strip() else ""
        except ValueError as exc:
            QMessageBox.warning(self, "BMC not added", str(exc))
            return
        self.state.bmcs.append(BmcSpec(host, url, user, self.password.text(), thumb))
        self.password.clear()
        self._refresh()
        self.sig_changed.emit()

    def _on_remove_bmc(self) -> None:
        row = self.bmc_list.currentRow()
        if 0 <= row < len(self.state.bmcs):
            del self.state.bmcs[row]
            self._refresh()
            self.sig_changed.emit()

    def _on_file_changed(self, text: str) -> None:
        self.state.attestations_file = text.strip()
        self._refresh()
        self.sig_changed.emit()

    def _on_browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Attestation file", "attestations.yaml",
                                              "YAML or JSON (*.yaml *.yml *.json)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.file_edit.setText(path)

    def _on_attested(self) -> None:
        self.state.attestations_edits += 1  # the same file now says more: Discover audits again
        self.sig_changed.emit()

    def open_dialog(self) -> AttestationDialog:
        """Open the attestation dialog (non-modal; :attr:`dialog`) for the chosen file."""
        self.dialog = AttestationDialog(self.file_edit.text().strip(), parent=self)
        self.dialog.accepted.connect(self._on_attested)
        self.dialog.open()
        return self.dialog

