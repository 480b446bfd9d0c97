"""Discover page: runs the audit on a worker thread and shows per-host progress, then hosts, pNICs and the
inputs not understood (grouped by source)."""
from __future__ import annotations

import dataclasses

import textwrap
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from nicadvisor.gui import probes
from nicadvisor.gui import audit_cache
from nicadvisor.gui.backend import Backend
from nicadvisor.gui.state import Source, SshSpec, VcenterSpec, WizardState
from nicadvisor.gui.pages.task_page import TaskPage
from nicadvisor.gui.tasks import TaskRunner
from nicadvisor.gui.trust import HostKeyAsker
from nicadvisor.gui.widgets.out_of_band import audit_extras
from nicadvisor.gui.widgets.common import splitter
from nicadvisor.gui.widgets.finish_audit import FinishAuditPanel
from nicadvisor.gui.widgets.formatting import (
    driver_text, esc, pci_ids_text, physical_pnics, pnic_count_text, speed_text,
)
from nicadvisor.gui.widgets.host_progress import HostProgressTree, TargetRow
from nicadvisor.gui.widgets.verdict_banner import VerdictBanner
from nicadvisor.vcg.builds import release_text

TREE_COLUMNS = ("Host / pNIC", "Driver", "Link speed", "MTU", "PCI address", "PCI IDs (ven:dev  subven:subdev)",
                "Description")


def audit_summary(audit: Any) -> str:
    """One line: hosts, pNICs, findings by severity, inputs not understood."""
    hosts = len(audit.hosts)
    pnics = sum(len(physical_pnics(h)) for h in audit.hosts)
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in audit.findings:
        sev = getattr(f.severity, "value", str(f.severity))
        counts[sev] = counts.get(sev, 0) + 1
    parts = [f"{hosts} host{'s' if hosts != 1 else ''}", f"{pnics} pNIC{'s' if pnics != 1 else ''}",
             f"{len(audit.findings)} findings ({counts['error']} errors, {counts['warning']} warnings, "
             f"{counts['info']} info)"]
    from nicadvisor.model.verdict import unread_inputs

    top, inner = unread_inputs(audit)  # counted as the verdict counts them (the count said every problem line)
    failed = top + inner
    if failed:
        parts.append(f"{len(failed)} input{'s' if len(failed) != 1 else ''} could not be read ({', '.join(failed)})")
    others = [p for p in audit.inputs_not_understood
              if not any(p.source == f or p.source.startswith((f.rstrip("/") + "/", f + ":")) for f in failed)]
    if others:
        parts.append(f"{len(others)} problem{'s' if len(others) != 1 else ''} in the inputs read")
    return " · ".join(parts)


#: The heading of the problems that are permission refusals (:func:`is_refusal`), apart from the inputs not understood.
REFUSED_HEADING = "Refused: the account may not read these (audit with one that may)"


def is_refusal(problem: Any) -> bool:
    """Whether an input problem is a permission refusal — a command the SSH account may not run (``Permission denied`` /
    ``Operation not permitted``, ``nicadvisor.parsers.capture_file.DENIED_RE``), a vSphere privilege or an NSX HTTP 403
    missing — rather than an input that was not understood."""
    from nicadvisor.parsers.capture_file import DENIED_RE

    message = problem.message
    return "no permission to read" in message or " was refused to user " in message or bool(DENIED_RE.search(message))


def group_problems(problems: list[Any]) -> list[tuple[str, list[Any]]]:
    """``audit.inputs_not_understood`` grouped by ``source``, sources in first-seen order."""
    groups: dict[str, list[Any]] = {}
    for p in problems:
        groups.setdefault(p.source or "(source not recorded)", []).append(p)
    return list(groups.items())


def target_rows(state: WizardState) -> list[TargetRow]:
    """The progress rows of the live targets of ``state`` (none unless the source is LIVE)."""
    if state.source is not Source.LIVE:
        return []
    rows = []
    for spec in state.live_specs():
        try:
            label, source = spec.label, spec.source
        except ValueError:
            continue
        kind = "vcenter" if isinstance(spec, VcenterSpec) else "ssh" if isinstance(spec, SshSpec) else "nsx"
        title = {"vcenter": f"vCenter {label}", "ssh": f"{'ESXi' if getattr(spec, 'kind', '') == 'esxi' else 'Linux'} "
                 f"{label} (SSH)", "nsx": f"NSX Manager {label}"}[kind]
        rows.append(TargetRow(label, kind, source, title))
    return rows


class DiscoverPage(TaskPage):
    """Runs ``backend.audit`` for the input chosen on Connect; complete once the audit finished.

    The audit starts when the page is entered (and again when the input changed, after a past audit was
    opened, or on Run again). Live targets are built on the worker (passwords from the keyring when none
    was typed); first-contact SSH host keys are asked through :class:`HostKeyAsker`; with a history store
    the audit is saved as it runs. Cancel sets the task's ``threading.Event``; the page then says so and
    offers Run again.

    Widgets: :attr:`progress` (overall bar, status, Cancel), :attr:`hosts_progress` (a row per live target
    and per host: current step and status), :attr:`tree` (hosts and pNICs), :attr:`problems` (inputs not
    understood, grouped by source).

    Signals:
        sig_audit_done(object): the audit finished; carries the ``nicadvisor.model.Audit``.
        sig_audit_cancelled(): the audit was cancelled.
        sig_audit_failed(str): the audit raised; carries the error message.
    """

    sig_audit_done = Signal(object)
    sig_audit_cancelled = Signal()
    sig_audit_failed = Signal(str)

    TASK_NAME = "audit"
    TASK_TITLE = "Audit"

    def __init__(self, state: WizardState, runner: TaskRunner, backend: Backend,
                 asker: HostKeyAsker | None = None, parent: QWidget | None = None) -> None:
        super().__init__(state, runner, backend, parent)
        self.asker = asker
        self.setTitle("Discover")
        self.setSubTitle("Reading the hosts and their physical NICs (pNICs) and running the NSX readiness rules.")
        self._audit_key: tuple | None = None
        self._stored_keys: dict[str, str] = {}
        self._live = False
        self._shown_fraction = 0.0
        self._phase2 = False
        self.end_signals = (self.sig_audit_done, self.sig_audit_cancelled, self.sig_audit_failed)
        self.progress.confirm_cancel = ("Stop the running audit? The hosts not read yet are not audited; you can "
                                        "Run again later.")

        self.rerun_button = QPushButton("Run again")
        self.rerun_button.setEnabled(False)
        self.action_button = self.rerun_button
        top = QHBoxLayout()
        top.addWidget(self.progress, 1)
        top.addWidget(self.rerun_button)

        self.banner = VerdictBanner()
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.hosts_progress = HostProgressTree()
        self.hosts_box = QGroupBox("Progress per target and host")
        hb = QVBoxLayout(self.hosts_box)
        hb.setContentsMargins(4, 4, 4, 4)
        hb.addWidget(self.hosts_progress)

        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(TREE_COLUMNS))
        self.tree.setHeaderLabels(list(TREE_COLUMNS))
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setStretchLastSection(True)

        self.problems = QTreeWidget()
        self.problems.setHeaderLabels(["Source / message", "Command"])
        self.problems.setUniformRowHeights(False)
        self.problems.setAlternatingRowColors(True)
        self.problems.header().setStretchLastSection(False)
        self.problems.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.problems.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self.problems.header().resizeSection(1, 260)
        self.problems_box = QGroupBox("Inputs not understood")
        pb = QVBoxLayout(self.problems_box)
        pb.setContentsMargins(4, 4, 4, 4)
        pb.addWidget(self.problems)

        self.finish = FinishAuditPanel()  # the read-only commands each host still needs, to copy
        self.splitter = splitter(Qt.Orientation.Vertical, (self.hosts_box, 2), (self.tree, 4), (self.finish, 2),
                                 (self.problems_box, 2))

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.banner)
        layout.addWidget(self.summary)
        layout.addWidget(self.splitter, 1)

        self.rerun_button.clicked.connect(self.start_audit)

    # --- wizard hooks ----------------------------------------------------------------------------
    def initializePage(self) -> None:  # Qt override
        if (self.state.audit is None or self.state.opened_history_id is not None
                or self._audit_key != self.state.input_key()):
            self.start_audit()

    def audited_key(self) -> tuple | None:
        """The input key (``WizardState.input_key()``) of the last audit started here, or None."""
        return self._audit_key

    def isComplete(self) -> bool:  # Qt override
        return self.outcome == "done" and self.state.audit is not None

    # --- the audit task --------------------------------------------------------------------------
    @Slot()
    def start_audit(self) -> None:
        """Start (or restart) the audit for the current input; the previous task is cancelled."""
        self.cancel_task()
        self.state.audit = None
        self.state.opened_history_id = None
        self._audit_key = self.state.input_key()
        self.tree.clear()
        self._placeholder("Reading the inputs… hosts and pNICs appear here when the audit has finished.")
        self.problems.clear()
        self.problems_box.setTitle("Inputs not understood")
        self.summary.setText("")
        self.banner.show_verdict(None)
        self.finish.show_audit(None)

        state = self.state
        source = state.source
        self._live = live = source is Source.LIVE
        self._shown_fraction, self._phase2 = 0.0, False
        paths = state.capture_paths if source is Source.CAPTURES else ()
        vcenters = [probes.snapshot(s) for s in state.vcenters] if live else []
        ssh_hosts = [probes.snapshot(s) for s in state.ssh_hosts] if live else []
        nsx = [probes.snapshot(s) for s in state.nsx_managers] if live else []
        rows = target_rows(state)
        self.hosts_progress.start(rows)
        self._fit_progress_box()
        for spec in state.live_specs() if live else []:
            spec.status = "◷ auditing…"
        audit_fn, store, known_hosts, asker = self.backend.audit, state.store, state.known_hosts, self.asker
        target = state.target_nsx
        stored_keys: dict[str, str] = {}  # filled on the worker: the SSH host keys known after the audit
        self._stored_keys = stored_keys

        bmcs, attested_file = [dataclasses.replace(b) for b in state.bmcs], state.attestations_file

        def task(progress, cancel):
            built = probes.build_targets(vcenters, ssh_hosts, nsx) if live else probes.LiveTargets()
            extras, oob_problems = audit_extras(bmcs, attested_file)  # BMCs and attestations, for any input
            audit = audit_fn(demo=source is Source.DEMO, capture_paths=paths, local=source is Source.LOCAL,
                             progress=progress, cancel=cancel, vsphere=built.vsphere, ssh=built.ssh, nsx=built.nsx,
                             known_hosts=known_hosts, ask_host_key=asker.bound(cancel) if asker else None,
                             store=store, **extras, **({"target_nsx": target} if target else {}))
            problems = [*built.problems, *oob_problems]
            if problems:
                audit.inputs_not_understood[:0] = problems
                if store is not None and audit.history_id is not None:
                    store.add_problems(audit.history_id, problems)
            if ssh_hosts:  # a key accepted during the audit shows in the target list as stored
                stored_keys.update(probes.stored_host_keys(ssh_hosts, known_hosts))
            return audit_cache.warm(audit)  # the verdict every view shows, made here rather than on the GUI thread

        n = len(rows)
        what = {Source.DEMO: "the demo lab", Source.LOCAL: "this machine",
                Source.CAPTURES: f"{len(paths)} capture path(s)",
                Source.LIVE: f"{n} live target{'s' if n != 1 else ''}"}[source]
        self.run_task(task, f"Auditing {what}…", follow=False)

    def task_progress(self, fraction: float, status: str) -> None:  # TaskPage hook
        self.hosts_progress.on_progress(status)
        # Live collectors report their own 0..1 (vSphere) or a fixed fraction (SSH, NSX: the bar sat at 2 % for the
        # whole read) before the hosts are inspected: the first half of the bar moves with the steps each target
        # reports (HostProgressTree.read_fraction), the inspection fills the second half.
        if self._live:
            if status.startswith(("Inspecting ", "Checking rules", "Audited ")):
                self._phase2 = True
            shown = (0.5 + 0.5 * fraction if self._phase2
                     else 0.5 * max(fraction, self.hosts_progress.read_fraction()))
        else:
            shown = fraction
        self._shown_fraction = max(self._shown_fraction, shown)
        self.progress.show_progress(self._shown_fraction, status)

    def task_finished(self, audit: Any) -> Any:  # TaskPage hook
        if self.state.bench_report is not None and not audit.benchmarks:
            audit.benchmarks = list(self.state.bench_report.results)  # the benchmark is of this machine
            self._save_benchmarks(audit)
        self.state.audit = audit
        statuses = self.hosts_progress.finish(audit)
        for spec in self.state.live_specs() if self._live else []:
            try:
                spec.status = statuses.get(spec.label, spec.status)
            except ValueError:
                continue
            if isinstance(spec, SshSpec) and spec.source in self._stored_keys:
                spec.stored_key = self._stored_keys[spec.source]
            if isinstance(spec, SshSpec):  # a Linux host given as ESXi was detected on contact: its row says Linux
                kind = next((h.kind for h in audit.hosts if spec.source in h.inputs and h.kind), spec.kind)
                spec.kind = kind if kind in ("esxi", "linux") else spec.kind
        verdict = audit_cache.verdict(audit)
        if audit.rated:
            self.progress.end("Audit finished.", 1.0)
        else:  # nothing could be read: a failed audit, whatever ran to its end
            self.progress.end(f"Audit failed: {verdict.reason}. The causes are listed below; go Back to choose "
                              "other inputs, or Run again.", 1.0)
            self.progress.set_failed(True)
        self.banner.show_verdict(verdict)
        self._show(audit)
        self.finish.show_audit(audit)
        return audit

    def _save_benchmarks(self, audit: Any) -> None:
        store = self.state.store
        if store is None or audit.history_id is None:
            return
        history_id, results = audit.history_id, list(audit.benchmarks)
        self.runner.submit("history-bench", lambda _p, _c: store.set_benchmarks(history_id, results))

    def task_cancelled(self) -> None:  # TaskPage hook
        kept = (" (the hosts read before the cancel are kept in Past audits as a cancelled audit)"
                if self.state.store is not None else " — nothing was kept")
        self.progress.end(f"Audit cancelled{kept}. Click Run again to restart it, or Back to choose another "
                          "input.")
        self.hosts_progress.stop("■ cancelled")
        self._reset_live_status("■ audit cancelled")
        self.summary.setText("<b>Cancelled.</b>")
        self.tree.clear()
        self._placeholder("The audit was cancelled. Click Run again to restart it.")

    def task_failed(self, message: str) -> None:  # TaskPage hook
        super().task_failed(message)
        self.progress.set_failed(True)
        self.hosts_progress.stop("✖ audit failed")
        self._reset_live_status(f"✖ audit failed: {message}")
        self.summary.setText(f"<b style='color:#b00020'>The audit failed:</b> {esc(message)}")
        self.tree.clear()
        self._placeholder("The audit failed (see above). Click Run again, or Back to choose another input.")

    def _reset_live_status(self, status: str) -> None:
        for spec in self.state.live_specs() if self._live else []:
            if spec.status.startswith("◷"):
                spec.status = status

    # --- display ---------------------------------------------------------------------------------
    def _placeholder(self, text: str) -> None:
        item = QTreeWidgetItem([text])
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # readable, not selectable
        font = QFont(self.tree.font())
        font.setItalic(True)
        item.setFont(0, font)
        self.tree.addTopLevelItem(item)
        item.setFirstColumnSpanned(True)

    def _fit_progress_box(self) -> None:
        """Give the per-host progress rows the height they need (at most a third of the splitter)."""
        rows = max(3, len(self.hosts_progress.rows()) + 1)
        line = self.hosts_progress.fontMetrics().height() + 6
        wanted = rows * line + self.hosts_progress.header().height() + 36
        total = sum(self.splitter.sizes()) or self.splitter.height()
        if total <= 0:
            return
        top = min(wanted, total // 3)
        rest = total - top
        tree, finish = rest * 9 // 20, rest * 5 // 20
        self.splitter.setSizes([top, tree, finish, rest - tree - finish])

    def problem_texts(self) -> list[str]:
        """Every problem line shown (``"<source>: <message>"``), in display order."""
        out = []
        for i in range(self.problems.topLevelItemCount()):
            group = self.problems.topLevelItem(i)
            for j in range(group.childCount()):
                out.append(f"{group.data(0, Qt.ItemDataRole.UserRole)}: "
                           f"{group.child(j).data(0, Qt.ItemDataRole.UserRole)}")
        return out

    def _show(self, audit: Any) -> None:
        self.tree.clear()
        saved = ""
        if audit.history_id is not None:
            saved = f" · saved in the history as audit #{audit.history_id}"
        elif self.state.store is None:
            saved = " · not saved (the audit history is not available)"
        else:
            saved = " · not saved (the audit history was still loading when the audit started)"
        self.summary.setText(esc(audit_summary(audit) + saved))
        self.hosts_progress.resize_name_column()
        self._fit_progress_box()
        bold = QFont(self.tree.font())
        bold.setBold(True)
        grey = QBrush(QColor("#777777"))
        for host in audit.hosts:
            kind = {"esxi": "ESXi", "linux": "Linux"}.get(host.kind or "", host.kind or "")
            release = release_text(host)
            version = " ".join(p for p in (kind, f"release {release}" if release else None) if p)
            # counted as the summary above counts them: physical pNICs; pseudo devices are listed greyed, not counted
            item = QTreeWidgetItem([host.name, "", "", "", "", "", f"{version or 'host'} · {pnic_count_text(host)}"])
            item.setFont(0, bold)
            item.setToolTip(0, "\n".join(host.inputs) if host.inputs else host.name)
            for pnic in host.pnics:
                pseudo = pnic.is_physical is False
                child = QTreeWidgetItem([
                    pnic.name + ("  (pseudo device)" if pseudo else ""),
                    driver_text(pnic),
                    speed_text(pnic),
                    str(pnic.mtu) if pnic.mtu else "",
                    pnic.pci_address or "",
                    pci_ids_text(pnic),
                    pnic.description or "",
                ])
                child.setToolTip(6, pnic.description or "")
                if pseudo:
                    for col in range(len(TREE_COLUMNS)):
                        child.setForeground(col, grey)
                item.addChild(child)
            self.tree.addTopLevelItem(item)
            item.setExpanded(True)
        if not audit.hosts:
            self._placeholder("No host was found in the inputs: see the inputs not understood below, "
                              "then go Back to choose other inputs.")
        header = self.tree.header()
        for col in range(len(TREE_COLUMNS) - 1):
            self.tree.resizeColumnToContents(col)
        header.setSectionResizeMode(len(TREE_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)

        self.problems.clear()
        bold_font = QFont(self.problems.font())
        bold_font.setBold(True)
        red = QBrush(QColor("#8a5a00"))
        # Messages are wrapped by hand (QTreeView does not re-wrap rows to the column width).
        avail = max(self.problems.viewport().width(), self.width() - 60) - self.problems.header().sectionSize(1) - 60
        width = max(60, avail // max(1, self.problems.fontMetrics().averageCharWidth()))
        refused = [p for p in audit.inputs_not_understood if is_refusal(p)]
        not_understood = [p for p in audit.inputs_not_understood if not is_refusal(p)]
        # refusals under their own heading: the input was understood, the account may not read it
        sections = ([(REFUSED_HEADING, refused, QColor("#b00020"), True)] if refused else []) + [
            (source, items, red.color(), False) for source, items in group_problems(not_understood)]
        groups: list[QTreeWidgetItem] = []
        for title, items, ink, named in sections:
            group = QTreeWidgetItem([f"{title}  ({len(items)})", ""])
            group.setData(0, Qt.ItemDataRole.UserRole, title)
            group.setFont(0, bold_font)
            group.setForeground(0, QBrush(ink))
            group.setToolTip(0, title)
            for problem in items:
                text = f"{problem.source}: {problem.message}" if named else problem.message
                # a short one-line message is its own wrapping (textwrap.fill cost ~0.5 ms a message: 114 of them)
                short = len(text) <= width and text.isprintable() and text == text.strip()
                shown = text if short else textwrap.fill(text, width, break_long_words=False)
                child = QTreeWidgetItem([shown, problem.command or ""])
                child.setData(0, Qt.ItemDataRole.UserRole, text)
                child.setToolTip(0, text)
                child.setToolTip(1, problem.command or "")
                group.addChild(child)
            self.problems.addTopLevelItem(group)
            group.setExpanded(True)
            groups.append(group)
        # spanned once every group is in: each call lays out the whole tree again when items were added since the
        # last one (QTreeView::setFirstColumnSpanned runs the pending layout), 128 ms for the 46 sources of 87 files
        for group in groups:
            group.setFirstColumnSpanned(True)
        if not audit.inputs_not_understood:
            entry = QTreeWidgetItem(["Every input was understood."])
            entry.setFlags(Qt.ItemFlag.NoItemFlags)
            self.problems.addTopLevelItem(entry)
        n_sources = len(group_problems(not_understood))
        self.problems_box.setTitle(f"Inputs not understood ({len(not_understood)}"
                                   + (f" from {n_sources} source{'s' if n_sources != 1 else ''})" if n_sources else ")")
                                   + (f" · refused for lack of privilege ({len(refused)})" if refused else ""))
