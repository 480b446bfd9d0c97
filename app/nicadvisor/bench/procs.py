"""Running benchmark tools as subprocesses: argv lists only, always a timeout, always a cancel path.

* :class:`ServerProcess` starts a server (``netserver``, ``iperf3 -s``, the agent), journals its
  pid, waits until it really listens on its port (``/proc/<pid>/net/tcp``), and always stops it.
* :func:`run_client` runs a client to completion, polling every 0.1 s so that a cancel event stops
  it within about that time.
"""
from __future__ import annotations

import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Callable

from nicadvisor.procinfo import process_start_ticks

from . import BenchError, Cancelled
from .journal import Journal
from .sysutil import listening_tcp_ports

POLL_S = 0.1


def netns_argv(netns: str | None, argv: list[str]) -> list[str]:
    """``argv`` prefixed with ``ip netns exec <netns>`` when ``netns`` is given."""
    return ["ip", "netns", "exec", netns, *argv] if netns else list(argv)


def _stop_popen(proc: subprocess.Popen, grace_s: float = 1.0) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


class ServerProcess:
    """A benchmark server subprocess, journaled and always stopped.

    ``argv``: the full command (already prefixed for a namespace if needed); ``port``: the TCP port
    it must listen on; ``journal``: where its pid is recorded. Use as a context manager:
    ``__enter__`` starts it and waits up to ``ready_timeout_s`` for the listening socket (raises
    :class:`BenchError` if it exits or never listens, :class:`Cancelled` if cancelled);
    ``__exit__`` terminates it (SIGTERM, then SIGKILL after 1 s), reaps it and removes its journal
    entry. stdout/stderr go to a temporary file, readable with :meth:`output`.
    """

    def __init__(self, argv: list[str], port: int, journal: Journal, *, ready_timeout_s: float = 5.0,
                 cancel: threading.Event | None = None) -> None:
        self.argv = list(argv)
        self.port = port
        self.journal = journal
        self.ready_timeout_s = ready_timeout_s
        self.cancel = cancel
        self.proc: subprocess.Popen | None = None
        self._entry: str | None = None
        self._log = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def __enter__(self) -> "ServerProcess":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start, journal and wait until listening. See the class docstring for errors."""
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self._log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            raise BenchError(f"cannot start {' '.join(self.argv)}: {exc}") from exc
        self._entry = self.journal.record("process", pid=self.proc.pid,
                                          start_ticks=process_start_ticks(self.proc.pid), argv=self.argv)
        deadline = time.monotonic() + self.ready_timeout_s
        while True:
            if self.port in listening_tcp_ports(self.proc.pid):
                return
            if self.proc.poll() is not None:
                raise BenchError(f"{' '.join(self.argv)} exited with rc={self.proc.returncode} before listening: "
                                 f"{self.output().strip()[-300:]}")
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled()
            if time.monotonic() > deadline:
                raise BenchError(f"{' '.join(self.argv)} did not listen on port {self.port} "
                                 f"within {self.ready_timeout_s} s")
            time.sleep(0.01)

    def output(self) -> str:
        """What the server printed so far (stdout and stderr)."""
        try:
            self._log.flush()
            self._log.seek(0)
            return self._log.read()
        except (OSError, ValueError):
            return ""

    def stop(self) -> None:
        """Terminate and reap the server, drop its journal entry, close its log. Idempotent."""
        if self.proc is not None:
            _stop_popen(self.proc)
        if self._entry is not None:
            self.journal.done(self._entry)
            self._entry = None
        if not self._log.closed:
            self._log.close()


def run_client(argv: list[str], timeout_s: float, *, cancel: threading.Event | None = None,
               on_tick: Callable[[float], None] | None = None) -> tuple[int, str, str]:
    """Run a client command to completion and return ``(returncode, stdout, stderr)``.

    Polls every 0.1 s: ``on_tick(elapsed_s)`` is called at each poll; if ``cancel`` is set the
    client is terminated and :class:`Cancelled` raised; after ``timeout_s`` seconds it is killed
    and :class:`BenchError` raised. Raises :class:`BenchError` if the command cannot start.
    """
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace")
    except OSError as exc:
        raise BenchError(f"cannot start {' '.join(argv)}: {exc}") from exc
    start = time.monotonic()
    finished = False
    try:
        while True:
            try:
                out, err = proc.communicate(timeout=POLL_S)
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - start  # still running: tick, then check cancel and timeout
                if on_tick is not None:
                    on_tick(elapsed)
                if cancel is not None and cancel.is_set():
                    raise Cancelled() from None
                if elapsed > timeout_s:
                    raise BenchError(f"{' '.join(argv)} did not finish within {timeout_s:.0f} s") from None
                continue
            finished = True
            return proc.returncode, out, err
    finally:
        if not finished:
            _stop_popen(proc)
            # reap and close the pipes (no ResourceWarning)
            try:
                proc.communicate(timeout=5)
            except (subprocess.TimeoutExpired, ValueError, OSError):
                proc.kill()
                proc.wait(timeout=5)


@dataclass(frozen=True)
class Endpoints:
    """Where a test runs: ``path`` (``"loopback"`` or ``"netns"``), the server address the client
    connects to, and the namespaces of the server and of the client (None = this namespace)."""

    path: str
    server_addr: str
    server_ns: str | None = None
    client_ns: str | None = None


LOOPBACK = Endpoints("loopback", "127.0.0.1")
