"""Connect page: choose what to audit (demo lab, capture files/folders/vm-support bundles/sosreports, this machine, or
live targets: vCenters, ESXi/Linux hosts over SSH, NSX Managers), test live connections, reopen past audits."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QButtonGroup, QFileDialog, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPushButton,
    QRadioButton,
    QTabWidget, QVBoxLayout, QWidget, QWizardPage,
)

from nicadvisor.gui import probes
from nicadvisor.gui.backend import Backend
from nicadvisor.gui.state import Source, SshSpec, VcenterSpec, WizardState
from nicadvisor.gui.tasks import TaskHandle, TaskRunner
from nicadvisor.gui.trust import CertificateTrustDialog, HostKeyAsker
from nicadvisor.gui.widgets.common import ask_first
from nicadvisor.gui.widgets.formatting import esc
from nicadvisor.gui.widgets.out_of_band import OutOfBandPanel
from nicadvisor.gui.widgets.guide_panel import GuidePanel
from nicadvisor.gui.widgets.history_panel import PastAuditsPanel
from nicadvisor.gui.widgets.target_editor import KEYRING_PENDING, NsxEditor, SshEditor, TargetEditor, VcenterEditor

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

LIVE_NOTE = ("Live audits are read-only: vCenter through the vSphere API, ESXi and Linux hosts over SSH (only the "
             "read-only commands listed above), NSX Manager through GET requests. Certificates must be "
             "trusted or pinned, SSH host keys are confirmed on first contact.")


def ssh_commands_html() -> str:
    """HTML: the programs an SSH audit runs on ESXi and on Linux, taken from the command catalogue
    (``nicadvisor.commands.collected``: what the SSH collectors send; a hand-made list named fewer, without cat,
    readlink, ip or lldpctl). Each platform's full command list is in the returned text's ``title`` tooltips."""
    from nicadvisor.commands import collected

    rows = []
    for platform, title in (("esxi", "ESXi over SSH"), ("linux", "Linux over SSH")):
        run = collected(platform)
        programs = ", ".join(dict.fromkeys(c.words[0] for c in run))
        rows.append(f"<tr><td><b>{title}</b></td><td>{len(run)} commands, run by: {esc(programs)}</td></tr>")
    return "<table cellspacing='3'>" + "".join(rows) + "</table>"


def ssh_commands_tooltip() -> str:
    """Plain text: every command an SSH audit runs, per platform, as the catalogue writes them (placeholders such as
    ``{nic}`` stand for each pNIC, ``{module}`` for each driver module)."""
    from nicadvisor.commands import collected

    return "\n".join(f"{title}:\n" + "\n".join(f"  {c.text}" for c in collected(platform))
                     for platform, title in (("esxi", "ESXi over SSH"), ("linux", "Linux over SSH")))


def split_paths(text: str) -> tuple[str, ...]:
    """Split the capture line edit into paths: ``;``-separated, blanks dropped, order kept."""
    return tuple(p.strip() for p in text.split(PATH_SEPARATOR) if p.strip())


def _keyring_problem() -> str | None:
    """Why the OS keyring cannot hold passwords (``nicadvisor.secrets.backend_problem``), or None. Blocking
    (backend discovery may talk to D-Bus): worker thread only."""
    from nicadvisor.secrets import backend_problem

    return backend_problem()


def target_nsx_of(text: str) -> str:
    """The target NSX version typed on the Connect page, ``""`` when empty or not a version (the audit then checks
    no release against one)."""
    from nicadvisor.vcg.nsx_interop import valid_nsx_version

    try:
        return valid_nsx_version(text)
    except ValueError:
        return ""


class ConnectPage(QWizardPage):
    """First page. Writes ``state.source`` and ``state.capture_paths`` in :meth:`validatePage`; the live
    target editors edit ``state.vcenters`` / ``state.ssh_hosts`` / ``state.nsx_managers`` in place.

    Test connection runs ``backend.probe_*`` on a worker; an untrusted certificate opens a
    :class:`CertificateTrustDialog` (Accept pins its thumbprint on the target and tests again; Reject
    stops), a first-contact SSH host key opens the asker's host-key dialog. A vCenter that passed its test,
    or whose "Browse hosts" is clicked, has its datacenter → cluster → host tree read on a worker
    (``backend.browse_vcenter``) and shown with check boxes in the vCenter tab (:meth:`browse_hosts`).
    Opening a past audit loads it and goes straight to Inspect (:attr:`open_target_id`).

    Nothing blocks the GUI thread at start-up: the keyring backend is discovered on a worker
    (:meth:`check_keyring`; "Remember in OS keyring" stays disabled until it answers), and the audit history
    is opened by the wizard on a worker (the Past audits tab says "History loading…" until
    :meth:`store_ready`).

    Signals:
        sig_test_done(object, object): (spec, ProbeResult) of a finished Test connection.
        sig_hosts_listed(object, object): (VcenterSpec, InventoryResult) of a finished Browse hosts.
        sig_trust_dialog(object): a CertificateTrustDialog was opened.
        sig_history_opened(object): a past audit was loaded into ``state.audit``.
        sig_keyring_checked(object): the keyring check ended; carries the problem (str) or None.
    """

    sig_test_done = Signal(object, object)
    sig_hosts_listed = Signal(object, object)
    sig_trust_dialog = Signal(object)
    sig_history_opened = Signal(object)
    sig_keyring_checked = Signal(object)

    def __init__(self, state: WizardState, runner: TaskRunner | None = None, backend: Backend | None = None,
                 asker: HostKeyAsker | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = runner or TaskRunner(self)
        self.backend = backend or Backend.real()
        self.asker = asker or HostKeyAsker(self, self)
        self.open_target_id: int | None = None  # set by the wizard: the Inspect page id
        self._jump = False
        self._new_audit_confirmed = False
        #: The question asked when Next is pressed while a past audit is open (None: none open).
        self.new_audit_box: QMessageBox | None = None
        self._tests: dict[int, Any] = {}  # task handle id → spec, per kind of task
        self._browses: dict[int, Any] = {}
        self.trust_dialog: CertificateTrustDialog | None = None
        self.setTitle("Connect")
        self.setSubTitle("Choose what to audit: the demo lab, saved command outputs (esxcli, esxcfg-*, vsish, "
                         "ethtool, lspci …), this machine, or live vCenters, ESXi/Linux hosts and NSX Managers.")

        self.demo_radio = QRadioButton("Demo lab — the bundled sample hosts (no connection needed)")
        self.capture_radio = QRadioButton("Capture files, a capture folder, a vm-support bundle or a sosreport")
        self.local_radio = QRadioButton("This machine — run ethtool, lspci and ip locally (Linux)")
        self.live_radio = QRadioButton("Live targets — the vCenters, SSH hosts and NSX Managers of the tabs below")
        self.group = QButtonGroup(self)
        for i, radio in enumerate((self.demo_radio, self.capture_radio, self.local_radio, self.live_radio)):
            self.group.addButton(radio, i)

        self.capture_edit = QLineEdit()
        self.capture_edit.setPlaceholderText("/path/to/capture.txt ; /path/to/folder ; /path/to/vm-support.tgz ; "
                                             "/path/to/sosreport.tar.xz")
        self.capture_edit.setToolTip(f"One or more paths separated by '{PATH_SEPARATOR}'")
        self.file_button = QPushButton("Add files…")
        self.folder_button = QPushButton("Add folder…")
        self.bundle_button = QPushButton("Add vm-support bundle or sosreport…")
        self.clear_button = QPushButton("Clear")

        source_box = QGroupBox("Input")
        grid = QGridLayout(source_box)
        grid.setVerticalSpacing(4)
        grid.addWidget(self.demo_radio, 0, 0, 1, 2)
        grid.addWidget(self.capture_radio, 1, 0, 1, 2)
        capture_row = QHBoxLayout()
        capture_row.addWidget(self.capture_edit, 1)
        for b in (self.file_button, self.folder_button, self.bundle_button, self.clear_button):
            capture_row.addWidget(b)
        grid.addLayout(capture_row, 2, 1)
        grid.addWidget(self.local_radio, 3, 0, 1, 2)
        grid.addWidget(self.live_radio, 4, 0, 1, 2)
        # the scope's target NSX version (issue 25 §1): each host's ESXi release is checked against it
        self.target_nsx_edit = QLineEdit(state.target_nsx)
        self.target_nsx_edit.setPlaceholderText("4.2")
        self.target_nsx_edit.setToolTip("The NSX version the rollout targets (optional): kept in the audit and shown "
                                        "on page 1 of the report")
        target_row = QHBoxLayout()
        target_row.addWidget(QLabel("Target NSX version:"))
        target_row.addWidget(self.target_nsx_edit)
        target_row.addStretch(1)
        grid.addLayout(target_row, 5, 0, 1, 2)
        grid.setColumnMinimumWidth(0, 24)
        grid.setColumnStretch(1, 1)

        self.keyring_problem: str | None = KEYRING_PENDING
        self.vcenter_editor = VcenterEditor(state.vcenters, KEYRING_PENDING)
        self.ssh_editor = SshEditor(state.ssh_hosts, KEYRING_PENDING)
        self.nsx_editor = NsxEditor(state.nsx_managers, KEYRING_PENDING)
        self.editors: tuple[TargetEditor, ...] = (self.vcenter_editor, self.ssh_editor, self.nsx_editor)
        self.history = PastAuditsPanel(state, self.runner)

        checks = QLabel(CHECKS_HTML)
        checks.setWordWrap(True)
        checks_page = QWidget()
        checks_layout = QVBoxLayout(checks_page)
        checks_layout.addWidget(QLabel("<b>What the audit checks on every physical NIC (pNIC)</b>"))
        checks_layout.addWidget(checks)
        checks_layout.addWidget(QLabel("<b>The read-only commands an SSH audit runs</b> (hover for each one)"))
        self.ssh_commands = QLabel(ssh_commands_html())
        self.ssh_commands.setWordWrap(True)
        self.ssh_commands.setToolTip(ssh_commands_tooltip())
        checks_layout.addWidget(self.ssh_commands)
        live_note = QLabel(f"<i>{LIVE_NOTE}</i>")
        live_note.setWordWrap(True)
        checks_layout.addWidget(live_note)
        checks_layout.addStretch(1)

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(False)
        self.tabs.addTab(self.vcenter_editor, "")
        self.tabs.addTab(self.ssh_editor, "")
        self.tabs.addTab(self.nsx_editor, "")
        self.tabs.addTab(self.history, "")
        self.tabs.addTab(checks_page, "What is checked")
        self.guide_panel = GuidePanel(self.runner)
        self.tabs.addTab(self.guide_panel, "Compatibility data")
        self.out_of_band = OutOfBandPanel(state)  # BMCs (Redfish) and attestations, for any input
        self.tabs.addTab(self.out_of_band, "Out of band")
        self.history_tab = self.tabs.indexOf(self.history)

        layout = QVBoxLayout(self)
        layout.addWidget(source_box)
        layout.addWidget(self.tabs, 1)

        {Source.DEMO: self.demo_radio, Source.CAPTURES: self.capture_radio, Source.LOCAL: self.local_radio,
         Source.LIVE: self.live_radio}[state.source].setChecked(True)
        self.capture_edit.setText(f" {PATH_SEPARATOR} ".join(state.capture_paths))

        self.group.idToggled.connect(self._on_source_toggled)
        self.capture_edit.textChanged.connect(self._on_capture_text_changed)
        self.file_button.clicked.connect(self._on_add_files)
        self.folder_button.clicked.connect(self._on_add_folder)
        self.bundle_button.clicked.connect(self._on_add_bundle)
        self.clear_button.clicked.connect(self.capture_edit.clear)
        for editor in self.editors:
            editor.sig_changed.connect(self._on_targets_changed)
            editor.sig_test_requested.connect(self.test_target)
        self.vcenter_editor.sig_browse_requested.connect(self.browse_hosts)
        self.history.sig_listed.connect(self._update_tab_titles)
        self.history.sig_loaded.connect(self._on_history_loaded)
        self._update_enabled()
        self._update_tab_titles()
        self.history.refresh()
        self.keyring_handle = self.check_keyring()

    # --- state ---------------------------------------------------------------------------------
    def selected_source(self) -> Source:
        """The source the radio buttons select."""
        if self.capture_radio.isChecked():
            return Source.CAPTURES
        if self.local_radio.isChecked():
            return Source.LOCAL
        if self.live_radio.isChecked():
            return Source.LIVE
        return Source.DEMO

    def first_field(self) -> QWidget:
        """The page's first field, where the keyboard focus starts: the checked Input radio button (Enter on it goes
        Next once the page is filled)."""
        return self.group.checkedButton() or self.demo_radio

    def isComplete(self) -> bool:  # Qt override
        source = self.selected_source()
        if source is Source.CAPTURES:
            return bool(split_paths(self.capture_edit.text()))
        if source is Source.LIVE:
            return bool(self.state.live_specs())
        return True

    def validatePage(self) -> bool:  # Qt override: fast, no I/O (Discover reports unreadable inputs)
        if not self._jump and self.state.audit is not None and self.state.opened_history_id is not None \
                and not self._new_audit_confirmed:
            self._ask_new_audit()  # Back then Next re-audited whatever the Input radio said, without a word
            return False
        self._new_audit_confirmed = False
        if not self._jump:
            self.state.source = self.selected_source()
            self.state.capture_paths = split_paths(self.capture_edit.text())
            self.state.target_nsx = target_nsx_of(self.target_nsx_edit.text())
        return True

    def _ask_new_audit(self) -> None:
        """A past audit is shown and Next was pressed: ask (window-modal, not blocking: :attr:`new_audit_box`) whether
        to run a new audit of the chosen input or show the past audit again (the default)."""
        if self.new_audit_box is not None:
            return
        from nicadvisor.model.text import local_time

        what = {Source.DEMO: "the demo lab", Source.CAPTURES: "the capture files above",
                Source.LOCAL: "this machine", Source.LIVE: "the live targets"}[self.selected_source()]

        def answered(new: bool) -> None:
            self.new_audit_box = None
            wizard = self.wizard()
            if wizard is None or wizard.currentPage() is not self:
                return
            if new:
                self._new_audit_confirmed = True
                wizard.next()
                return
            self._jump_to_audit(wizard)

        self.new_audit_box = ask_first(
            self, "Run a new audit?",
            f"The past audit of {local_time(self.state.audit.created_at)} is open (read only).\n\n"
            f"Run a new audit of {what} now, or show the past audit again?",
            f"Run a new audit of {what}", "Show the past audit again", answered)

    def nextId(self) -> int:  # Qt override: Open of a past audit goes straight to Inspect
        if self._jump and self.open_target_id is not None:
            return self.open_target_id
        return super().nextId()

    # --- slots ---------------------------------------------------------------------------------
    @Slot(int, bool)
    def _on_source_toggled(self, _id: int, _checked: bool) -> None:
        self._update_enabled()
        self.completeChanged.emit()

    @Slot(str)
    def _on_capture_text_changed(self, _text: str) -> None:
        self.completeChanged.emit()

    @Slot()
    def _on_targets_changed(self) -> None:
        if self.state.live_specs():
            self.live_radio.setChecked(True)
        self._update_tab_titles()
        self.completeChanged.emit()

    def _update_enabled(self) -> None:
        on = self.capture_radio.isChecked()
        for w in (self.capture_edit, self.file_button, self.folder_button, self.bundle_button, self.clear_button):
            w.setEnabled(on)

    def _update_tab_titles(self, *_args: Any) -> None:
        titles = (f"vCenter ({len(self.state.vcenters)})", f"ESXi / Linux over SSH ({len(self.state.ssh_hosts)})",
                  f"NSX Manager ({len(self.state.nsx_managers)})")
        for i, title in enumerate(titles):
            self.tabs.setTabText(i, title)
        if self.state.store_loading:
            self.tabs.setTabText(self.history_tab, "Past audits (loading…)")
        elif self.state.store is None:
            self.tabs.setTabText(self.history_tab, "Past audits (unavailable)")
        else:
            self.tabs.setTabText(self.history_tab, f"Past audits ({len(self.history.summaries)})")

    def store_ready(self) -> None:
        """The wizard finished opening the history (``state.store`` / ``store_problem`` set): list the past
        audits, or say why there is no history."""
        self.history.show_store_state()
        self._update_tab_titles()

    # --- keyring -------------------------------------------------------------------------------
    def check_keyring(self) -> TaskHandle:
        """Find out on a worker whether the OS keyring can hold passwords (``keyring.get_keyring()`` may
        talk to D-Bus); the editors' "Remember in OS keyring" box and note follow when it answers."""
        handle = self.runner.prepare("keyring", lambda _progress, _cancel: _keyring_problem())
        handle.sig_finished.connect(self._on_keyring_checked)
        handle.sig_failed.connect(self._on_keyring_failed)
        handle.sig_cancelled.connect(self._on_keyring_cancelled)
        self.runner.start(handle)
        return handle

    @Slot(object)
    def _on_keyring_checked(self, problem: Any) -> None:
        self.keyring_problem = problem if problem is None else str(problem)
        for editor in self.editors:
            editor.set_keyring_problem(self.keyring_problem)
        self.sig_keyring_checked.emit(self.keyring_problem)

    @Slot(str)
    def _on_keyring_failed(self, message: str) -> None:
        self._on_keyring_checked(f"the keyring check failed: {message}")

    @Slot()
    def _on_keyring_cancelled(self) -> None:
        self._on_keyring_checked("the keyring check was cancelled")

    def refresh_targets(self) -> None:
        """Redraw the target lists (statuses changed by an audit)."""
        for editor in self.editors:
            editor.refresh()

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
            self, "vm-support bundle or sosreport", "",
            "vm-support bundles and sosreports (*.tgz *.tar.gz *.tar *.tar.xz);;All files (*)")
        self.add_paths([bundle])

    # --- Test connection -----------------------------------------------------------------------
    def editor_for(self, spec: Any) -> TargetEditor:
        """The editor listing ``spec``."""
        if isinstance(spec, VcenterSpec):
            return self.vcenter_editor
        if isinstance(spec, SshSpec):
            return self.ssh_editor
        return self.nsx_editor

    @Slot(object)
    def test_target(self, spec: Any) -> TaskHandle | None:
        """Run Test connection for ``spec`` on a worker; returns the task handle (None if one runs already)."""
        if any(s is spec for s in self._tests.values()):
            return None
        snap = probes.snapshot(spec)
        backend, asker, known_hosts = self.backend, self.asker, self.state.known_hosts
        if isinstance(spec, VcenterSpec):
            def task(_progress, cancel):
                return backend.probe_vcenter(snap, cancel)
        elif isinstance(spec, SshSpec):
            def task(_progress, cancel):
                return backend.probe_ssh(snap, known_hosts, asker.bound(cancel), cancel)
        else:
            def task(_progress, cancel):
                return backend.probe_nsx(snap, cancel)
        handle = self.runner.prepare("test", task)
        self._tests[id(handle)] = spec
        handle.sig_finished.connect(self._on_test_finished)
        handle.sig_failed.connect(self._on_test_failed)
        handle.sig_cancelled.connect(self._on_test_cancelled)
        self.editor_for(spec).set_status(spec, "◷ testing the connection…", busy=True)
        self.runner.start(handle)
        return handle

    def _take(self, jobs: dict[int, Any]) -> Any:
        """The spec of the task that sent the current signal (removed from ``jobs``), None if unknown."""
        return jobs.pop(id(self.sender()), None)

    def _take_test(self) -> Any:
        return self._take(self._tests)

    @Slot(object)
    def _on_test_finished(self, result: Any) -> None:
        spec = self._take_test()
        if spec is None:
            return
        editor = self.editor_for(spec)
        notes = "".join(f" ({n})" for n in result.notes)
        if isinstance(spec, SshSpec) and result.host_keys:
            spec.stored_key = ", ".join(result.host_keys)
        if result.ok:
            editor.set_status(spec, f"✔ {result.message}{notes}")
            if isinstance(spec, VcenterSpec):
                self.browse_hosts(spec)
        elif result.untrusted_thumbprint:
            editor.set_status(spec, "▲ certificate not trusted by this system: check its thumbprint in the dialog")
            self._ask_trust(spec, result)
        else:
            editor.set_status(spec, f"✖ {result.message}{notes}")
        self.sig_test_done.emit(spec, result)

    @Slot(str)
    def _on_test_failed(self, message: str) -> None:
        spec = self._take_test()
        if spec is not None:
            self.editor_for(spec).set_status(spec, f"✖ test failed: {message}")

    @Slot()
    def _on_test_cancelled(self) -> None:
        spec = self._take_test()
        if spec is not None:
            self.editor_for(spec).set_status(spec, "✖ test cancelled")

    def _ask_trust(self, spec: Any, result: Any) -> None:
        host, port = spec.host_port
        dialog = CertificateTrustDialog(spec.kind_label, host, port, result.untrusted_thumbprint, result.reason, self)
        self.trust_dialog = dialog
        dialog.finished.connect(lambda code, s=spec, d=dialog: self._on_trust_answer(s, d, code))
        dialog.open()
        self.sig_trust_dialog.emit(dialog)

    def _on_trust_answer(self, spec: Any, dialog: CertificateTrustDialog, code: int) -> None:
        self.trust_dialog = None
        dialog.deleteLater()
        editor = self.editor_for(spec)
        if code != int(CertificateTrustDialog.DialogCode.Accepted):
            editor.set_status(spec, "✖ certificate rejected: not pinned, so this target cannot be audited")
            return
        spec.thumbprint = dialog.thumbprint
        editor.sync_form(spec)
        editor.set_status(spec, "◷ certificate pinned; testing again…")
        self._on_targets_changed()
        self.test_target(spec)

    # --- Browse hosts (vCenter host tree) ------------------------------------------------------
    @Slot(object)
    def browse_hosts(self, spec: VcenterSpec) -> TaskHandle | None:
        """Read the datacenter → cluster → host tree of ``spec`` on a worker and show it in the vCenter tab;
        returns the task handle (None if one runs already for ``spec``)."""
        if any(s is spec for s in self._browses.values()):
            return None
        snap, browse = probes.snapshot(spec), self.backend.browse_vcenter
        handle = self.runner.prepare("browse", lambda _progress, cancel: browse(snap, cancel))
        self._browses[id(handle)] = spec
        handle.sig_finished.connect(self._on_browse_finished)
        handle.sig_failed.connect(self._on_browse_failed)
        handle.sig_cancelled.connect(self._on_browse_cancelled)
        self.vcenter_editor.set_browsing(spec)
        self.runner.start(handle)
        return handle

    @Slot(object)
    def _on_browse_finished(self, result: Any) -> None:
        spec = self._take(self._browses)
        if spec is not None:
            self.vcenter_editor.set_inventory(spec, result.ok, result.message, result.tree)
            self.sig_hosts_listed.emit(spec, result)

    @Slot(str)
    def _on_browse_failed(self, message: str) -> None:
        spec = self._take(self._browses)
        if spec is not None:
            self.vcenter_editor.set_inventory(spec, False, message)

    @Slot()
    def _on_browse_cancelled(self) -> None:
        spec = self._take(self._browses)
        if spec is not None:
            self.vcenter_editor.set_inventory(spec, False, "cancelled")

    # --- past audits ---------------------------------------------------------------------------
    @Slot(object)
    def _on_history_loaded(self, audit: Any) -> None:
        """A past audit was loaded: show it (Inspect) without running Discover."""
        self.state.audit = audit
        self.state.opened_history_id = audit.history_id
        self.state.bench_report = None
        self.sig_history_opened.emit(audit)
        wizard = self.wizard()
        if wizard is None or wizard.currentPage() is not self or self.open_target_id is None:
            return
        self._jump_to_audit(wizard)

    def _jump_to_audit(self, wizard: Any) -> None:
        """Next straight to the audit shown (Inspect), past Discover: no new audit is run."""
        self._jump = True
        try:
            wizard.next()
        finally:
            self._jump = False
