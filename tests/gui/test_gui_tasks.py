"""TaskRunner: results, failures and cancellation come back to the GUI thread by queued signals."""
from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QThread, Slot

from nicadvisor.cancel import Cancelled
from nicadvisor.gui.tasks import TaskRunner, is_cancellation


class Receiver(QObject):
    """Records what arrives and in which thread."""

    def __init__(self):
        super().__init__()
        self.got = []
        self.threads = set()

    @Slot(object)
    def on_finished(self, value):
        self.got.append(("finished", value))
        self.threads.add(QThread.currentThread())

    @Slot(float, str)
    def on_progress(self, fraction, status):
        self.got.append(("progress", fraction, status))
        self.threads.add(QThread.currentThread())


def test_result_and_progress_arrive_in_gui_thread(qtbot):
    runner = TaskRunner()
    receiver = Receiver()
    worker_threads = []

    def task(progress, cancel):
        worker_threads.append(threading.get_ident())
        progress(0.5, "half way")
        return 42

    handle = runner.prepare("t", task)
    handle.sig_progress.connect(receiver.on_progress)
    handle.sig_finished.connect(receiver.on_finished)
    with qtbot.waitSignal(handle.sig_finished, timeout=5000):
        runner.start(handle)
    qtbot.waitUntil(lambda: ("finished", 42) in receiver.got)
    assert ("progress", 0.5, "half way") in receiver.got
    assert worker_threads and worker_threads[0] != threading.get_ident()
    assert receiver.threads == {QThread.currentThread()}
    assert runner.shutdown(120_000)


def test_failure_and_cancellation(qtbot):
    runner = TaskRunner()

    def boom(progress, cancel):
        raise ValueError("bad input x.txt")

    handle = runner.prepare("boom", boom)
    with qtbot.waitSignal(handle.sig_failed, timeout=5000) as blocker:
        runner.start(handle)
    assert blocker.args == ["bad input x.txt"]  # a sentence for the user, no exception name

    started = threading.Event()

    def slow(progress, cancel):
        started.set()
        cancel.wait(600)  # the test cancels it: a deadline, not a duration
        if cancel.is_set():
            raise Cancelled("cancelled by the user")
        return "not cancelled"

    handle = runner.submit("slow", slow)
    assert started.wait(120)
    with qtbot.waitSignal(handle.sig_cancelled, timeout=5000):
        handle.cancel()
    assert handle.done
    assert runner.shutdown(120_000)


def test_is_cancellation_by_class_name():
    class Cancelled(RuntimeError):  # e.g. nicadvisor.bench.Cancelled
        pass

    class Sub(Cancelled):
        pass

    assert is_cancellation(Cancelled()) and is_cancellation(Sub())
    assert not is_cancellation(ValueError("x"))
