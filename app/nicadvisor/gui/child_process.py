"""Work that holds the interpreter lock for long stretches runs in a child process, so the wizard's GUI thread keeps
answering.

A worker *thread* shares the interpreter lock with the GUI thread: building the PDF (reportlab reading the TrueType
fonts, laying out tables) held it in stretches of up to ~320 ms, and the window froze meanwhile (measured with
``benchmarks/gui_stalls.py``). :class:`ChildProcess` keeps one ``spawn``-ed process (a clean interpreter: no copy of
the Qt state, as ``fork`` would make) and runs picklable top-level functions in it; the calling worker thread only
waits for the answer. The process is started on demand or ahead of time (:meth:`ChildProcess.warm`, when the Export
page is shown) and stopped by :meth:`ChildProcess.close`. Frozen builds call ``multiprocessing.freeze_support()`` in
their entry point.
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle
import threading
from pathlib import Path
from typing import Any, Callable

#: How often (s) a waiting worker looks at its cancel event.
POLL_S = 0.1


class Cancelled(Exception):
    """The caller's cancel event was set while the child worked (a task ending so is cancelled, not failed)."""


def _warm() -> bool:
    """Import what the export needs (in the child), so that the first export does not wait for it."""
    import nicadvisor.services.export  # noqa: F401
    import nicadvisor.report.pdf  # noqa: F401

    return True


def _export_in_child(export: Callable[..., list[Path]], audit: Any, store_path: str | None,
                     paths: dict[str, Path]) -> list[Path]:
    """In the child: open the audit history at ``store_path`` (read for earlier benchmark runs; None: no history) and
    call ``export(audit, store=store, **paths)``."""
    store = None
    if store_path is not None:
        from nicadvisor.store import AuditStore

        store = AuditStore(store_path)
    try:
        return [Path(p) for p in export(audit, store=store, **paths)]
    finally:
        if store is not None:
            store.close()


def picklable(fn: Any) -> bool:
    """True when ``fn`` can be sent to a child process (a module-level function; not a lambda or a closure)."""
    try:
        pickle.dumps(fn)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


class ChildProcess:
    """One spawned child process for the wizard (see the module docstring). Thread-safe; every method may block for
    the process start and is called from worker threads (:meth:`close` also from the GUI thread at shutdown: it does
    not wait)."""

    def __init__(self) -> None:
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the wizard is closing: no child process is started")
            if self._pool is None:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            return self._pool

    def warm(self) -> None:
        """Start the process and import the export's modules in it, without waiting for them."""
        self._submit(_warm)

    def call(self, fn: Callable[..., Any], *args: Any, cancel: threading.Event | None = None, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in the child (``fn`` and its arguments picklable); its exception is raised here.
        Raises :class:`Cancelled` when ``cancel`` is set meanwhile (the child finishes that call on its own), and
        OSError when the child process died (the next call starts a new one)."""
        future = self._submit(fn, *args, **kwargs)
        while True:
            try:
                return future.result(timeout=POLL_S)
            except concurrent.futures.TimeoutError:
                if cancel is not None and cancel.is_set():
                    future.cancel()
                    raise Cancelled("cancelled while the child process worked") from None
            except concurrent.futures.process.BrokenProcessPool:
                self._forget_broken()
                raise OSError("the process that writes the reports ended unexpectedly; try again") from None

    def _submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        """Submit to the process; when it died while idle (the pool is broken: ``submit`` raises BrokenProcessPool, and
        every later export failed until the wizard was restarted), start a new one and submit there — nothing of the
        call had run."""
        try:
            return self._executor().submit(fn, *args, **kwargs)
        except concurrent.futures.process.BrokenProcessPool:
            self._forget_broken()
            return self._executor().submit(fn, *args, **kwargs)

    def _forget_broken(self) -> None:
        """Drop the broken pool, so that the next call starts a new process."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def export(self, export: Callable[..., list[Path]], audit: Any, store: Any, paths: dict[str, Path],
               cancel: threading.Event | None = None) -> list[Path]:
        """``export(audit, store=store, **paths)`` in the child when ``export`` can be sent there (the history is
        reopened there from ``store.path``); in this thread otherwise (an export function a test injected)."""
        if not picklable(export):
            return [Path(p) for p in export(audit, store=store, **paths)]
        store_path = str(store.path) if store is not None and getattr(store, "path", None) else None
        return self.call(_export_in_child, export, audit, store_path, dict(paths), cancel=cancel)

    def close(self) -> None:
        """Stop the process (a running call is abandoned); later calls raise RuntimeError."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
