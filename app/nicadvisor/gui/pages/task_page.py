"""Base of the wizard pages that run one task at a time on the shared :class:`TaskRunner` (Discover,
Benchmark, Export): the handle, its end signals, the progress panel, Cancel, the outcome."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QApplication, QPushButton, QWidget, QWizard, QWizardPage

from nicadvisor.gui.backend import Backend
from nicadvisor.gui.state import WizardState
from nicadvisor.gui.tasks import TaskFn, TaskHandle, TaskRunner
from nicadvisor.gui.widgets.progress_panel import ProgressPanel


class TaskPage(QWizardPage):
    """A wizard page running one task (``fn(progress, cancel)``) at a time through :meth:`run_task`.

    Only the current task's signals are heeded (a task replaced by a newer one is ignored). When it ends,
    :attr:`outcome` is set, the subclass hook runs (:meth:`task_finished`, :meth:`task_cancelled`,
    :meth:`task_failed`), :attr:`action_button` is enabled again, ``completeChanged`` is emitted, then the
    page's own signal of that end from :attr:`end_signals`.

    Class attributes: ``TASK_NAME`` (the TaskRunner name: ``"audit"``), ``TASK_TITLE`` (the default end
    lines: ``"Audit cancelled."``, ``"Audit failed: <message>"``), ``CANCEL_ON_BACK`` (Back cancels a running
    task).

    Attributes:
        state, runner, backend: shared with the wizard.
        progress: the progress bar, status line and Cancel button of the current task.
        outcome: ``"idle"``, ``"running"``, ``"done"``, ``"cancelled"`` or ``"failed"``.
        action_button: the button that starts the task (disabled while it runs), set by the subclass.
        end_signals: (done, cancelled, failed) bound signals emitted at the end (None: no signal); done
            carries what :meth:`task_finished` returns, failed the message.
    """

    TASK_NAME = "task"
    TASK_TITLE = "Task"
    CANCEL_ON_BACK = True

    def __init__(self, state: WizardState, runner: TaskRunner, backend: Backend,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = runner
        self.backend = backend
        self._handle: TaskHandle | None = None
        self.outcome = "idle"
        self.progress = ProgressPanel()
        self.action_button: QPushButton | None = None
        self._refocus = False  # the action button had the focus when the task started
        self.end_signals: tuple[Any, Any, Any] = (None, None, None)

    # --- wizard hook -----------------------------------------------------------------------------
    def cleanupPage(self) -> None:  # Qt override: Back pressed
        if self.CANCEL_ON_BACK:
            self.cancel_task()

    # --- task ------------------------------------------------------------------------------------
    def task_running(self) -> bool:
        """True while the current task has not ended."""
        return self._handle is not None and not self._handle.done

    def cancel_task(self) -> None:
        """Ask the current task to stop (it ends cancelled)."""
        if self.task_running():
            self._handle.cancel()

    def run_task(self, fn: TaskFn, status: str, follow: bool = True) -> TaskHandle:
        """Start ``fn(progress, cancel)`` as the current task (a running one is cancelled first) and bind the
        progress panel to it with ``status``. With ``follow`` False the page shows the progress itself
        (:meth:`task_progress`). Returns the handle."""
        self.cancel_task()
        handle = self.runner.prepare(self.TASK_NAME, fn)
        self._handle = handle
        self.outcome = "running"
        handle.sig_finished.connect(self._on_task_finished)
        handle.sig_cancelled.connect(self._on_task_cancelled)
        handle.sig_failed.connect(self._on_task_failed)
        if not follow:
            handle.sig_progress.connect(self._on_task_progress)
        if self.action_button is not None:
            # the focus leaves the button before it is disabled, for the page, not for the next button in the chain
            # (it landed on "< Back", and Enter then went back a page)
            self._refocus = self.action_button.hasFocus()
            if self._refocus:
                self.setFocus(Qt.FocusReason.OtherFocusReason)
            self.action_button.setEnabled(False)
        self.progress.bind(handle, status, follow=follow)
        self.runner.start(handle)
        self.completeChanged.emit()
        return handle

    # --- subclass hooks (GUI thread, current task only) -------------------------------------------
    def task_finished(self, result: Any) -> Any:
        """The task returned ``result``; returns what the done signal carries (default: ``result``)."""
        self.progress.end(f"{self.TASK_TITLE} finished.", 1.0)
        return result

    def task_cancelled(self) -> None:
        """The task stopped on Cancel."""
        self.progress.end(f"{self.TASK_TITLE} cancelled.")

    def task_failed(self, message: str) -> None:
        """The task raised; ``message`` is ``"<ExceptionType>: <text>"``."""
        self.progress.end(f"{self.TASK_TITLE} failed: {message}")

    def task_progress(self, fraction: float, status: str) -> None:
        """Progress (0..1, status) of a task started with ``follow=False``."""
        self.progress.show_progress(fraction, status)

    # --- slots -----------------------------------------------------------------------------------
    def _after_end(self, which: int, *args: Any) -> None:
        """Enable the action button, tell the wizard, emit ``end_signals[which]`` with ``args`` (none for
        ``which`` < 0: a stage of a longer job ended)."""
        if self.action_button is not None:
            self.action_button.setEnabled(True)
        self.completeChanged.emit()
        if which >= 0:
            self._give_back_focus()
        if which < 0:  # a stage of a longer job ended, not the job: no end signal
            return
        signal = self.end_signals[which]
        if signal is not None:
            signal.emit(*args)

    def _give_back_focus(self) -> None:
        """The task was started from the keyboard focus on the action button: the focus goes to Next when the page lets
        the user go on, else back to the action button — unless the user put it elsewhere meanwhile."""
        if not getattr(self, "_refocus", False):
            return
        focus = QApplication.focusWidget()
        if focus is not None and focus is not self and not isinstance(focus, QPushButton):
            return  # the user is typing in a field
        self._refocus = False
        wizard = self.wizard()
        next_button = wizard.button(QWizard.WizardButton.NextButton) if wizard is not None else None
        if next_button is not None and next_button.isVisible() and next_button.isEnabled() and self.outcome == "done":
            next_button.setFocus(Qt.FocusReason.OtherFocusReason)
        elif self.action_button is not None:
            self.action_button.setFocus(Qt.FocusReason.OtherFocusReason)

    @Slot(object)
    def _on_task_finished(self, result: Any) -> None:
        if self.sender() is self._handle:
            self.outcome = "done"
            self._after_end(0, self.task_finished(result))

    @Slot()
    def _on_task_cancelled(self) -> None:
        if self.sender() is self._handle:
            self.outcome = "cancelled"
            self.task_cancelled()
            self._after_end(1)

    @Slot(str)
    def _on_task_failed(self, message: str) -> None:
        if self.sender() is self._handle:
            self.outcome = "failed"
            self.task_failed(message)
            self._after_end(2, message)

    @Slot(float, str)
    def _on_task_progress(self, fraction: float, status: str) -> None:
        if self.sender() is self._handle:
            self.task_progress(fraction, status)
