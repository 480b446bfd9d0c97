"""The "Compatibility data" tab of the Connect page: what compatibility guide is imported, and importing one.

The user picks guide files (vSAN HCL ``all.json``, saved Broadcom Compatibility Guide or VCG API answers, the
exchange CSV/JSON); a worker reads them and prepares the import (:func:`nicadvisor.vcg.guide_store.plan_import`),
the diff is shown, and only "Apply" writes it (:func:`apply_import`, atomic). Reading and writing run on the task
runner: the GUI thread never blocks on a large file.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPlainTextEdit,
                               QPushButton, QVBoxLayout, QWidget)

from nicadvisor.gui.tasks import TaskRunner

GUIDE_FILTER = "Compatibility guide files (*.json *.csv);;All files (*)"
#: The status until the first read on a worker returned.
READING = "Reading the imported compatibility guide…"


def status_text() -> str:
    """One paragraph on the imported guide (version, devices, files with dates, age) or how to import one."""
    from nicadvisor.vcg.guide_store import GuideStoreError, load_dataset, staleness

    try:
        data = load_dataset()
    except GuideStoreError as exc:
        return f"The imported compatibility guide cannot be read: {exc}"
    if data is None:
        return ("No compatibility guide imported. NIC Advisor ships cited public facts only; import the guide you "
                "have (vSAN HCL all.json, a saved Broadcom Compatibility Guide answer, an exchange CSV/JSON) so "
                "that each pNIC's device, driver and firmware are checked for the host's ESXi release.")
    devices = len({(g.vid, g.did, g.svid, g.ssid) for g in data.listings})
    lines = [f"Imported compatibility guide, version {data.version}: {devices} device(s), "
             f"{len(data.listings)} listing(s)."]
    lines += [f"• {f.name} — {f.format}, {f.date_text()}, imported {f.imported_at[:16].replace('T', ' ')}"
              for f in data.files]
    stale = staleness(data)
    if stale:
        lines.append(f"{stale[0].upper()}: {stale[1]}.")
    return "\n".join(lines)


class GuidePanel(QWidget):
    """Status of the imported guide, "Import guide files…", the diff of the prepared import, "Apply import"."""

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.plan: Any = None
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.pick_button = QPushButton("Import guide files…")
        self.apply_button = QPushButton("Apply import")
        self.apply_button.setEnabled(False)
        self.download_button = QPushButton("Download the vSAN HCL…")
        self.download_button.setToolTip("Downloads the public vSAN HCL JSON (no credentials are sent), then shows "
                                        "what importing it would change")
        self.proxy_edit = QLineEdit()
        self.proxy_edit.setPlaceholderText("proxy (optional): http://proxy.example:3128")
        self.diff = QPlainTextEdit()
        self.diff.setReadOnly(True)
        self.diff.setPlaceholderText("The changes an import makes are shown here before they are applied.")
        buttons = QHBoxLayout()
        buttons.addWidget(self.pick_button)
        buttons.addWidget(self.apply_button)
        buttons.addStretch(1)
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.proxy_edit)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        layout.addWidget(self.diff, 1)
        self.pick_button.clicked.connect(self._on_pick)
        self.apply_button.clicked.connect(self.apply)
        self.download_button.clicked.connect(lambda: self.download())
        self._first_read()

    def _first_read(self) -> None:
        """The first status, read on a worker: importing the guide store and reading its JSON took ~0.1 s of the
        wizard's cold start on the GUI thread, before the first page was painted."""
        self.status.setText(READING)
        handle = self.runner.prepare("guide-status", lambda _p, _c: status_text())
        handle.sig_finished.connect(self._on_first_read)
        handle.sig_failed.connect(lambda message: self._on_first_read(
            f"The imported compatibility guide cannot be read: {message}"))
        self.runner.start(handle)

    def _on_first_read(self, text: str) -> None:
        if self.status.text() == READING:  # not refreshed since (an import applied meanwhile said more)
            self.status.setText(text)

    def refresh(self) -> None:
        """Show the stored guide's status (a small JSON read; the file is capped)."""
        self.status.setText(status_text())

    def _on_pick(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Compatibility guide files", str(Path.home()), GUIDE_FILTER)
        if files:
            self.prepare(files)

    def download(self, url: str | None = None, ca_file: str | None = None, confirm: bool = True) -> bool:
        """After the user agreed (``confirm``: a question naming the URL), download ``url`` (default: the public
        vSAN HCL) on a worker with the proxy typed beside the button, then show the diff as for files. Returns
        False when the user declined."""
        from nicadvisor.services.guide import VSAN_HCL_URL, plan_download

        url = url or VSAN_HCL_URL
        proxy = self.proxy_edit.text().strip() or None
        if confirm and QMessageBox.question(
                self, "Download compatibility data",
                f"Download {url}{f' through {proxy}' if proxy else ''}?\n\nNo credentials are sent. Nothing is "
                "imported until you press Apply.") != QMessageBox.StandardButton.Yes:
            return False
        self._start(f"Downloading {url}…",
                    lambda _progress, _cancel: plan_download(url, proxy=proxy, ca_file=ca_file))
        return True

    def prepare(self, files: list[str]) -> None:
        """Read ``files`` on a worker and show the diff of the import they make (nothing is written)."""
        from nicadvisor.vcg.guide_store import plan_import

        self._start(f"Reading {len(files)} file(s)…", lambda _progress, _cancel: plan_import(files))

    def _start(self, what: str, task) -> None:
        self.apply_button.setEnabled(False)
        self.pick_button.setEnabled(False)
        self.download_button.setEnabled(False)
        self.plan = None
        self.diff.setPlainText(what)
        handle = self.runner.prepare("guide", task)
        handle.sig_finished.connect(self._on_planned)
        handle.sig_failed.connect(self._on_failed)
        handle.sig_cancelled.connect(lambda: self._on_failed("cancelled"))
        self.runner.start(handle)

    def _on_planned(self, plan: Any) -> None:
        self.plan = plan
        lines = [f"{Path(f.path).name}: {f.format}, {len(f.listings)} listing(s)" for f in plan.read]
        lines += [f"warning: {w}" for w in plan.warnings[:50]]
        lines += plan.diff.lines(50)
        unchanged = plan.unchanged
        lines.append("Nothing would change." if unchanged else
                     f"Apply to make this version {plan.new.version} of the imported guide.")
        self.diff.setPlainText("\n".join(lines))
        self.apply_button.setEnabled(not unchanged)
        self.pick_button.setEnabled(True)
        self.download_button.setEnabled(True)

    def _on_failed(self, message: str) -> None:
        self.diff.setPlainText(f"Not imported — nothing was changed: {message}")
        self.pick_button.setEnabled(True)
        self.download_button.setEnabled(True)

    def apply(self) -> None:
        """Write the prepared import on a worker, then show the new status."""
        from nicadvisor.vcg.guide_store import apply_import

        plan = self.plan
        if plan is None:
            return
        self.apply_button.setEnabled(False)
        handle = self.runner.prepare("guide", lambda _progress, _cancel: apply_import(plan))
        handle.sig_finished.connect(self._on_applied)
        handle.sig_failed.connect(self._on_failed)
        self.runner.start(handle)

    def _on_applied(self, path: Any) -> None:
        self.plan = None
        self.diff.appendPlainText(f"Imported: {path}\nAudits from now on are checked against it; an audit already run "
                                  "is not: run it again (Discover: Run again) to check its hosts.")
        self.refresh()
