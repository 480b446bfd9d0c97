""""Finish this audit": per host, the read-only commands still needed to decide every decisive check, as a copyable
block (issue 16 §2). The commands are the host verdict's :attr:`nicadvisor.model.verdict.HostVerdict.finish`, the same
list the CLI summary, the PDF, the HTML and the JSON show. Below them, the commands a collector could not run on the
host and why (:attr:`nicadvisor.model.Host.not_run`), as the other views list them."""
from __future__ import annotations

from typing import Any

from nicadvisor.gui.widgets.common import add_name_item, name_chooser
from nicadvisor.gui.widgets.formatting import plural
from nicadvisor.gui import audit_cache
from nicadvisor.model.entities import not_run_groups
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout

#: Shown only when an audit finished, rated, and every decisive check applicable to every host was made.
NOTHING_MISSING = "Every decisive check was made on every host: nothing left to run."
#: Shown while no finished audit is shown (fresh start, running, cancelled, failed): the panel claims nothing.
NO_AUDIT_YET = "The commands still needed on each host are listed here once an audit has finished."
#: Shown after an audit that read no host: no check was made, so there is nothing to finish but the inputs.
NO_HOST_READ = ("No host was read, so no decisive check was made: see the inputs not understood below, then go Back "
                "to choose other inputs or Run again.")


def all_checks_made(audit: Any) -> bool:
    """True only for a finished, rated audit in which every host made every decisive check applicable to it
    (``HostVerdict.checks`` decided == applicable, nothing missing, no command left to run)."""
    if audit is None or not getattr(audit, "rated", False):
        return False
    verdicts = list(audit_cache.verdict(audit).hosts)
    return bool(verdicts) and all(not hv.finish and not hv.missing and hv.checks[0] == hv.checks[1]
                                  for hv in verdicts)


class FinishAuditPanel(QGroupBox):
    """A host chooser (hosts that still lack a decisive check first), the host's verdict and missing checks, and a
    read-only monospace block of its commands with a Copy button. :meth:`show_audit` fills it; no I/O."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__("Finish this audit", parent)
        self.host = name_chooser()
        self.what = QLabel("")
        self.what.setWordWrap(True)
        self.commands = QPlainTextEdit()
        self.commands.setReadOnly(True)
        self.commands.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.commands.setPlaceholderText(NO_AUDIT_YET)
        self.not_run_title = QLabel("")
        self.not_run = QPlainTextEdit()  # what a collector could not run on the host, and why
        self.not_run.setReadOnly(True)
        self.not_run.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.copy = QPushButton("Copy")
        self.copy.setToolTip("Copy these read-only commands: run them on the host, then audit again with their outputs")
        row = QHBoxLayout()
        row.addWidget(QLabel("Host:"))
        row.addWidget(self.host, 1)
        row.addWidget(self.copy)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.what)
        layout.addWidget(self.commands, 1)
        layout.addWidget(self.not_run_title)
        layout.addWidget(self.not_run, 1)
        self._verdicts: dict[str, Any] = {}
        self._hosts: dict[str, Any] = {}
        self._note = NO_AUDIT_YET  # what the panel says for the whole audit (empty: per host)
        self.host.currentIndexChanged.connect(self._show_host)
        self.copy.clicked.connect(self.copy_commands)

    def show_audit(self, audit: Any) -> None:
        """Fill the panel from ``audit.verdict`` of a finished audit (None: no finished audit is shown — the fresh
        start, a running, cancelled or failed audit — and the panel claims nothing). It says that nothing is left
        to run only when :func:`all_checks_made`."""
        verdicts = list(audit_cache.verdict(audit).hosts) if audit is not None else []
        self._verdicts = {hv.host: hv for hv in verdicts}
        self._hosts = {h.name: h for h in audit.hosts} if audit is not None else {}
        lacking = [hv for hv in verdicts if hv.finish]
        self.host.blockSignals(True)
        self.host.clear()
        for hv in lacking + [hv for hv in verdicts if not hv.finish]:
            add_name_item(self.host, hv.host, hv.host,
                          f" — {hv.label}" + (f" ({plural(len(hv.finish), 'command')})" if hv.finish else ""))
        self.host.blockSignals(False)
        self.setTitle(f"Finish this audit ({len(lacking)} of {len(verdicts)} hosts lack a decisive check)"
                      if verdicts else "Finish this audit")
        self._note = (NO_AUDIT_YET if audit is None else NOTHING_MISSING if all_checks_made(audit)
                      else NO_HOST_READ if not verdicts else "")
        self._show_host()

    def _show_host(self) -> None:
        hv = self._verdicts.get(self.host.currentData() or "")
        self._show_not_run(self._hosts.get(self.host.currentData() or ""))
        if hv is None:
            self.commands.setPlaceholderText(self._note or NO_AUDIT_YET)
            self.what.setText("")
            self.commands.setPlainText("")
            self.copy.setEnabled(False)
            return
        missing = list(dict.fromkeys(m.missing.rstrip(".") for m in hv.missing))  # joined with "; "
        self.commands.setPlaceholderText(self._note or (
            "Every decisive check was made on this host." if not missing and hv.checks[0] == hv.checks[1]
            else "No read-only command decides what is still missing on this host (see above)."))
        self.what.setText(f"{hv.label}: {hv.reason}" + (f"\nNot decided: {'; '.join(missing)}" if missing else ""))
        self.commands.setPlainText("\n".join(hv.finish))
        self.copy.setEnabled(bool(hv.finish))

    def _show_not_run(self, host: Any) -> None:
        """The host's commands that could not run, by reason, with what the host said; hidden when all ran."""
        items = list(getattr(host, "not_run", None) or [])
        self.not_run_title.setText(f"Commands that could not run on this host ({len(items)}):" if items else "")
        lines = [f"{label}:\n" + "\n".join(f"  {n.command}" + (f"   [{n.detail}]" if n.detail else "") for n in group)
                 for label, group in not_run_groups(items)]
        self.not_run.setPlainText("\n".join(lines))
        self.not_run_title.setVisible(bool(items))
        self.not_run.setVisible(bool(items))

    def not_run_text(self) -> str:
        """The commands that could not run, as shown."""
        return self.not_run.toPlainText()

    def text(self) -> str:
        """The commands shown (what Copy puts on the clipboard)."""
        return self.commands.toPlainText()

    def copy_commands(self) -> None:
        """Put the shown commands on the clipboard."""
        QGuiApplication.clipboard().setText(self.text())
