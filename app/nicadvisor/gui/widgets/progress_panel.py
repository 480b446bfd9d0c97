"""A progress bar, a status line and a Cancel button, bound to one :class:`TaskHandle` at a time."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QProgressBar, QPushButton, QSizePolicy, QWidget

from nicadvisor.gui.tasks import TaskHandle
from nicadvisor.gui.widgets.common import ask_first


class ProgressPanel(QWidget):
    """Shows the progress of the task it is bound to; its Cancel button cancels that task.

    Cancel is never pressed by Enter (it is no auto-default button, and only a click or Space presses it). With
    :attr:`confirm_cancel` set (a question, e.g. "Stop the running audit?"), a click first asks in
    :attr:`cancel_box` (window-modal, not blocking), whose default is to keep the task running.

    Signals:
        sig_cancel_requested(): the user clicked Cancel (the bound task has already been told).
    """

    sig_cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setValue(0)
        self.bar.setFormat("%p %")
        self.bar.setMinimumWidth(260)
        self.status = QLabel("Idle")
        self.status.setWordWrap(True)
        # a long status wraps inside its own share of the row: it never takes width from the bar
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAutoDefault(False)  # Enter never cancels
        self.cancel_button.setDefault(False)
        self.cancel_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.cancel_button.setEnabled(False)
        self.confirm_cancel = ""
        self.cancel_box: QMessageBox | None = None
        self.cancel_button.setToolTip("Stop the running task")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar, 2)
        layout.addWidget(self.status, 3)
        layout.addWidget(self.cancel_button)
        self._handle: TaskHandle | None = None
        self.failed = False
        self.cancel_button.clicked.connect(self._on_cancel_clicked)

    def bind(self, handle: TaskHandle, status: str, follow: bool = True) -> None:
        """Follow ``handle`` (a newly started task): reset the bar, enable Cancel. With ``follow`` False the
        owner shows the progress itself (:meth:`show_progress`)."""
        self._handle = handle
        self.set_failed(False)
        self.bar.setValue(0)
        self.status.setText(status)
        self.cancel_button.setEnabled(True)
        if follow:
            handle.sig_progress.connect(self._on_progress)

    def show_progress(self, fraction: float, status: str) -> None:
        """Set the bar (0..1) and, when not empty, the status line."""
        self.bar.setValue(int(min(1.0, max(0.0, fraction)) * 1000))
        if status:
            self.status.setText(status)

    def set_failed(self, failed: bool) -> None:
        """Show the bar whole in red with "failed" on it (the task failed or read nothing), or in the style's normal
        colour. A failed bar is full: its word sat half outside a red chunk that stopped where the task did."""
        self.failed = failed
        self.bar.setStyleSheet("QProgressBar { color: white; text-align: center; border: 1px solid #8e0000; } "
                               "QProgressBar::chunk { background-color: #c62828; }" if failed else "")
        self.bar.setFormat("failed" if failed else "%p %")
        if failed:
            self.bar.setValue(self.bar.maximum())

    def end(self, status: str, fraction: float | None = None) -> None:
        """The bound task ended: show ``status``, disable Cancel, optionally set the bar."""
        self._handle = None
        if self.cancel_box is not None:  # the task ended while the user was asked: nothing left to stop
            box, self.cancel_box = self.cancel_box, None
            box.close()
        if fraction is not None and not self.failed:
            self.bar.setValue(int(fraction * 1000))
        self.status.setText(status)
        self.cancel_button.setEnabled(False)

    @Slot(float, str)
    def _on_progress(self, fraction: float, status: str) -> None:
        if self.sender() is not self._handle:
            return
        self.bar.setValue(int(fraction * 1000))
        if status:
            self.status.setText(status)

    @Slot()
    def _on_cancel_clicked(self) -> None:
        if self._handle is None:
            return
        if self.confirm_cancel:
            self._ask_cancel()
        else:
            self._cancel_now()

    def _ask_cancel(self) -> None:
        if self.cancel_box is not None:
            return
        handle = self._handle

        def answered(stop: bool) -> None:
            self.cancel_box = None
            if stop and self._handle is handle:
                self._cancel_now()

        self.cancel_box = ask_first(self, "Stop?", self.confirm_cancel, "Stop it", "Keep running", answered)

    def _cancel_now(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self.status.setText("Cancelling…")
            self.cancel_button.setEnabled(False)
            self.sig_cancel_requested.emit()
