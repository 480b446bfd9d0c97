"""Connect page: choose what to audit (demo lab, capture files/folders/vm-support bundles, this machine)."""
from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QButtonGroup, QFileDialog, QFormLayout, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
    QPushButton, QRadioButton, QVBoxLayout, QWidget, QWizardPage,
)

from nicadvisor.gui.state import Source, WizardState

PATH_SEPARATOR = ";"

CHECKS_HTML = (
    "<table cellspacing='3'>"
    "<tr><td><b>Link</b></td><td>link state and speed (links below 10 Gbit/s are flagged)</td></tr>"
    "<tr><td><b>MTU</b></td><td>pNIC, switch and TEP vmknic MTU: Geneve needs at least 1600 bytes, 1700 "
    "leaves room for Geneve options, 9000 (jumbo) for throughput</td></tr>"
    "<tr><td><b>Geneve offload / Rx filter</b></td><td>TSO/checksum offload of Geneve and the Geneve Rx filter "
    "that spreads overlay traffic over NetQueue queues</td></tr>"
    "<tr><td><b>RSS / queues</b></td><td>receive-side scaling and the number of Rx queues</td></tr>"
    "<tr><td><b>ENS / EDP</b></td><td>Enhanced Network Stack (Enhanced Data Path) capability and mode</td></tr>"
    "<tr><td><b>PCIe link</b></td><td>negotiated vs capable PCIe speed (GT/s) and width</td></tr>"
    "<tr><td><b>Coalescing</b></td><td>interrupt coalescing settings (latency)</td></tr>"
    "<tr><td><b>Driver / VCG</b></td><td>driver and firmware versions against the compatibility data</td></tr>"
    "</table>")


def split_paths(text: str) -> tuple[str, ...]:
    """Split the capture line edit into paths: ``;``-separated, blanks dropped, order kept."""
    return tuple(p.strip() for p in text.split(PATH_SEPARATOR) if p.strip())


class ConnectPage(QWizardPage):
    """First page. Writes ``state.source`` and ``state.capture_paths`` in :meth:`validatePage`.

    The live sources (vCenter, ESXi over SSH, NSX Manager) are shown disabled: they come in a
    later release.
    """

    def __init__(self, state: WizardState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setTitle("Connect")
        self.setSubTitle("Choose what to audit. The demo lab needs nothing else; capture files are "
                         "saved command outputs (esxcli, esxcfg-*, vsish, ethtool, lspci ...).")

        self.demo_radio = QRadioButton("Demo lab — the bundled sample hosts (no connection needed)")
        self.capture_radio = QRadioButton("Capture files, a capture folder or a vm-support bundle")
        self.local_radio = QRadioButton("This machine — run ethtool, lspci and ip locally (Linux)")
        self.group = QButtonGroup(self)
        for i, radio in enumerate((self.demo_radio, self.capture_radio, self.local_radio)):
            self.group.addButton(radio, i)

        self.capture_edit = QLineEdit()
        self.capture_edit.setPlaceholderText("/path/to/capture.txt ; /path/to/folder ; /path/to/vm-support.tgz")
        self.capture_edit.setToolTip(f"One or more paths separated by '{PATH_SEPARATOR}'")
        self.file_button = QPushButton("Add files…")
        self.folder_button = QPushButton("Add folder…")
        self.bundle_button = QPushButton("Add vm-support bundle…")
        self.clear_button = QPushButton("Clear")

        source_box = QGroupBox("Input")
        grid = QGridLayout(source_box)
        grid.addWidget(self.demo_radio, 0, 0, 1, 2)
        grid.addWidget(self.capture_radio, 1, 0, 1, 2)
        grid.addWidget(self.capture_edit, 2, 1)
        buttons = QHBoxLayout()
        for b in (self.file_button, self.folder_button, self.bundle_button, self.clear_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        grid.addLayout(buttons, 3, 1)
        grid.addWidget(self.local_radio, 4, 0, 1, 2)
        grid.setColumnMinimumWidth(0, 24)
        grid.setColumnStretch(1, 1)

        live_box = QGroupBox("Live connections")
        live = QFormLayout(live_box)
        note = QLabel("<i>Coming in a later release:</i> reading hosts live from vCenter, from ESXi over "
                      "SSH and the host-switch configuration from NSX Manager. Until then, capture the "
                      "commands on the host and open the files above.")
        note.setWordWrap(True)
        live.addRow(note)
        self.live_fields: list[QLineEdit] = []
        for label, hint in (("vCenter", "vcenter.example.com — user@vsphere.local"),
                            ("ESXi over SSH", "esxi-01.example.com — root"),
                            ("NSX Manager", "nsx.example.com — admin")):
            edit = QLineEdit()
            edit.setPlaceholderText(hint)
            edit.setEnabled(False)
            edit.setToolTip("Coming in a later release")
            self.live_fields.append(edit)
            live.addRow(label + ":", edit)

        checks_box = QGroupBox("What the audit checks on every physical NIC (pNIC)")
        checks = QLabel(CHECKS_HTML)
        checks.setWordWrap(True)
        QVBoxLayout(checks_box).addWidget(checks)

        layout = QVBoxLayout(self)
        layout.addWidget(source_box)
        layout.addWidget(live_box)
        layout.addWidget(checks_box)
        layout.addStretch(1)

        {Source.DEMO: self.demo_radio, Source.CAPTURES: self.capture_radio,
         Source.LOCAL: self.local_radio}[state.source].setChecked(True)
        self.capture_edit.setText(f" {PATH_SEPARATOR} ".join(state.capture_paths))

        self.group.idToggled.connect(self._on_source_toggled)
        self.capture_edit.textChanged.connect(self._on_capture_text_changed)
        self.file_button.clicked.connect(self._on_add_files)
        self.folder_button.clicked.connect(self._on_add_folder)
        self.bundle_button.clicked.connect(self._on_add_bundle)
        self.clear_button.clicked.connect(self.capture_edit.clear)
        self._update_enabled()

    # --- state ---------------------------------------------------------------------------------
    def selected_source(self) -> Source:
        """The source the radio buttons select."""
        if self.capture_radio.isChecked():
            return Source.CAPTURES
        if self.local_radio.isChecked():
            return Source.LOCAL
        return Source.DEMO

    def isComplete(self) -> bool:  # Qt override
        if self.selected_source() is Source.CAPTURES:
            return bool(split_paths(self.capture_edit.text()))
        return True

    def validatePage(self) -> bool:  # Qt override: fast, no I/O (Discover reports unreadable paths)
        self.state.source = self.selected_source()
        self.state.capture_paths = split_paths(self.capture_edit.text())
        return True

    # --- slots ---------------------------------------------------------------------------------
    @Slot(int, bool)
    def _on_source_toggled(self, _id: int, _checked: bool) -> None:
        self._update_enabled()
        self.completeChanged.emit()

    @Slot(str)
    def _on_capture_text_changed(self, _text: str) -> None:
        self.completeChanged.emit()

    def _update_enabled(self) -> None:
        on = self.capture_radio.isChecked()
        for w in (self.capture_edit, self.file_button, self.folder_button, self.bundle_button, self.clear_button):
            w.setEnabled(on)

    def add_paths(self, paths: list[str]) -> None:
        """Append ``paths`` to the capture line edit (duplicates skipped) and select Capture."""
        current = list(split_paths(self.capture_edit.text()))
        current += [p for p in paths if p and p not in current]
        self.capture_edit.setText(f" {PATH_SEPARATOR} ".join(current))
        self.capture_radio.setChecked(True)

    @Slot()
    def _on_add_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Capture files", "", "Captures (*.txt *.log *.out);;All files (*)")
        self.add_paths(files)

    @Slot()
    def _on_add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Capture folder")
        self.add_paths([folder])

    @Slot()
    def _on_add_bundle(self) -> None:
        bundle, _ = QFileDialog.getOpenFileName(
            self, "vm-support bundle", "", "vm-support bundles (*.tgz *.tar.gz *.tar);;All files (*)")
        self.add_paths([bundle])
