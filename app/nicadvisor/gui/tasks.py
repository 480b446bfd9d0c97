"""Task runner: run a blocking ``fn(progress, cancel)`` on a QThreadPool, report back by queued signals.

The pattern follows Orange3's ``TaskState`` and Picard's ``run_task`` (see
``shared/design/research/architecture-anchors.md`` §3.3): the work is a plain function that takes a
``progress(fraction: float, status: str)`` callback and a :class:`threading.Event` for cooperative
cancellation; the :class:`TaskHandle` lives in the GUI thread and its signals are emitted from the
worker thread, so slots of GUI-thread objects run queued in the GUI thread. Nothing here calls
``processEvents``.
"""
from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

ProgressFn = Callable[[float, str], None]
TaskFn = Callable[[ProgressFn, threading.Event], Any]


def is_cancellation(exc: BaseException) -> bool:
    """True for any exception class named ``Cancelled`` (``nicadvisor.cancel.Cancelled``,
    ``nicadvisor.bench.Cancelled``, ...), looking through the class's bases as well."""
    return any(cls.__name__ == "Cancelled" for cls in type(exc).__mro__)


def error_sentence(exc: BaseException) -> str:
    """What the user reads when a task raised ``exc``: the message alone for what the user can act on (an OSError:
    ``"<file>: <system's reason>"``; a ValueError or an error NIC Advisor raises on purpose, whose message is written
    for the user), and ``"<ExceptionType>: <message>"`` only for an unexpected error (a bug: its name helps a report).
    The task's traceback stays in ``TaskHandle.last_traceback``."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    text = str(exc).strip()
    ours = type(exc).__module__.split(".")[0] == "nicadvisor"
    if text and (ours or isinstance(exc, (ValueError, OSError))):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class TaskHandle(QObject):
    """Handle of one background task; lives in the GUI thread.

    Attributes:
        name: short task name for messages (``"audit"``, ``"bench"``, ``"export"``).
        cancel_event: set by :meth:`cancel`; the task function polls it.
        done: True once the task has ended, set in the worker thread just before exactly one of the three end
            signals is emitted; slots in the GUI thread get that signal queued, so they may not have run yet.

    Signals:
        sig_progress(float, str): fraction 0..1 and a short status text; throttled (≥1 % change,
            a new status text, or ≥100 ms since the last emission).
        sig_finished(object): the task's return value.
        sig_failed(str): the error as a sentence (:func:`error_sentence`; the traceback is in ``last_traceback``).
        sig_cancelled(): the task stopped because cancel was requested.
    """

    sig_progress = Signal(float, str)
    sig_finished = Signal(object)
    sig_failed = Signal(str)
    sig_cancelled = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.cancel_event = threading.Event()
        self.done = False
        self.last_traceback = ""
        self._last_fraction = -1.0
        self._last_status = ""
        self._last_time = 0.0
        self._lock = threading.Lock()

    def cancel(self) -> None:
        """Ask the task to stop (cooperative: it raises ``Cancelled`` at its next check)."""
        self.cancel_event.set()

    def report_progress(self, fraction: float, status: str) -> None:
        """Progress callback handed to the task function (called from the worker thread)."""
        fraction = min(1.0, max(0.0, float(fraction)))
        now = time.monotonic()
        with self._lock:
            if (abs(fraction - self._last_fraction) < 0.01 and status == self._last_status
                    and now - self._last_time < 0.1):
                return
            self._last_fraction, self._last_status, self._last_time = fraction, status, now
        self.sig_progress.emit(fraction, status)


class _Runnable(QRunnable):
    """Runs ``fn(handle.report_progress, handle.cancel_event)`` and emits exactly one end signal."""

    def __init__(self, fn: TaskFn, handle: TaskHandle, on_exit: Callable[[TaskHandle], None]) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self._fn = fn
        self._handle = handle
        self._on_exit = on_exit

    def run(self) -> None:  # Qt override, worker thread
        handle = self._handle
        try:
            result = self._fn(handle.report_progress, handle.cancel_event)
        except Exception as exc:  # noqa: BLE001 - any task error is reported to the page
            handle.last_traceback = traceback.format_exc()
            if is_cancellation(exc):
                handle.done = True
                handle.sig_cancelled.emit()
            else:
                handle.done = True
                handle.sig_failed.emit(error_sentence(exc))
        else:
            handle.done = True
            if handle.cancel_event.is_set() and result is None:
                handle.sig_cancelled.emit()
            else:
                handle.sig_finished.emit(result)
        finally:
            self._on_exit(handle)


class TaskRunner(QObject):
    """Starts tasks on its own QThreadPool and keeps them alive until they end.

    Two steps, so that no end signal can be emitted before its slots are connected:
    ``handle = runner.prepare(name, fn)``, connect ``handle``'s signals to slots of GUI-thread objects,
    then ``runner.start(handle)``. :meth:`submit` does both for a caller that connects nothing first.
    :meth:`shutdown` cancels every running task and waits up to ``deadline_ms`` for them.
    Between :meth:`hold` and :meth:`release`, started tasks wait in a queue (the wizard holds its start-up tasks until
    its first page is painted); :meth:`running` counts them, :meth:`shutdown` drops them unstarted.
    """

    def __init__(self, parent: QObject | None = None, max_threads: int = 4) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._running: dict[int, tuple[TaskHandle, _Runnable]] = {}
        self._pending: dict[int, _Runnable] = {}
        self._held: list[TaskHandle] | None = None
        self._lock = threading.Lock()

    def prepare(self, name: str, fn: TaskFn) -> TaskHandle:
        """A handle for ``fn(progress, cancel)``, not started yet (GUI thread)."""
        handle = TaskHandle(name, self)
        self._pending[id(handle)] = _Runnable(fn, handle, self._forget)
        return handle

    def start(self, handle: TaskHandle) -> None:
        """Start a prepared task in a worker thread. Raises KeyError if ``handle`` was not prepared
        by this runner or was already started."""
        if self._held is not None:
            if id(handle) not in self._pending:
                raise KeyError(handle.name)
            self._held.append(handle)
            return
        runnable = self._pending.pop(id(handle))
        with self._lock:
            self._running[id(handle)] = (handle, runnable)
        self._pool.start(runnable)

    def submit(self, name: str, fn: TaskFn) -> TaskHandle:
        """Prepare and start ``fn(progress, cancel)`` at once; signals emitted before the caller
        connects are lost, so prefer :meth:`prepare` + :meth:`start`."""
        handle = self.prepare(name, fn)
        self.start(handle)
        return handle

    def hold(self) -> None:
        """Queue the tasks started from now on instead of starting them, until :meth:`release`."""
        if self._held is None:
            self._held = []

    def release(self) -> None:
        """Start the queued tasks, in the order they were started, and stop queueing. Does nothing when not held."""
        held, self._held = self._held, None
        for handle in held or []:
            self.start(handle)

    def _forget(self, handle: TaskHandle) -> None:
        # Called from the worker thread at the very end of run(); the handle stays alive through
        # its Qt parent (this runner), so queued signals still reach their slots.
        with self._lock:
            self._running.pop(id(handle), None)

    def running(self) -> list[TaskHandle]:
        """Handles of tasks that have not ended yet."""
        with self._lock:
            return [h for h, _ in self._running.values()] + list(self._held or [])

    def shutdown(self, deadline_ms: int = 5000) -> bool:
        """Cancel all tasks and wait up to ``deadline_ms``; returns True if every worker ended."""
        for handle in self.running():
            handle.cancel()
        for handle in self._held or []:  # never started: nothing to wait for
            self._pending.pop(id(handle), None)
        if self._held is not None:
            self._held = []
        return self._pool.waitForDone(deadline_ms)
