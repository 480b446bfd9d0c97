"""A benchmark program started on a remote host over SSH, below both ends of a run between hosts
(:mod:`nicadvisor.bench.remote`, the Linux end and the run; :mod:`nicadvisor.bench.remote_esxi`, the ESXi end), which
both use it and import nothing of each other upwards: one planned test (:class:`PlannedTest`), a channel read to its
end (:func:`wait_channel`), a journaled process that is always stopped (:class:`StartedProcess`), and the undo of
each journal row (:func:`undo_entry`, :func:`describe_entry`, :func:`undo_by_hand`).

A session is anything with the :class:`Session` methods (:class:`nicadvisor.bench.remote.HostSession`).
"""
from __future__ import annotations

import re
import select
import shlex
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

import paramiko

from . import BenchError, Cancelled
from .catalogue import TestSpec
from .esxi import undo_esxi_entry
from .journal import Entry, Journal


class Session(Protocol):
    """The SSH session of one host as this module uses it (:class:`nicadvisor.bench.remote.HostSession`)."""

    name: str
    target: Any

    def run(self, argv: tuple[str, ...]) -> "CmdOut": ...

    def open(self, argv: tuple[str, ...]) -> paramiko.Channel: ...


FOLDER_RE = re.compile(r"^/tmp/nicadv-bench-[0-9a-f]{16}\Z")
PIDFILE_RE = re.compile(r"^/tmp/nicadv-bench-[0-9a-f]{16}/p\d{1,4}\.pid\Z")
PID_RE = re.compile(r"^(?:[2-9]|[1-9][0-9]{1,9})\Z")
"""A pid NIC Advisor may signal or read: a number above 1 (never init)."""

START_SCRIPT = 'echo $$ >"$1" && shift && exec "$@"'
POLL_S = 0.1
READY_TIMEOUT_S = 10.0


class RemoteHostLost(BenchError):
    """The SSH session to a host ended (host down, sshd stopped, network lost) during the run."""


@dataclass(frozen=True)
class CmdOut:
    """A finished remote command: ``rc`` (None when the server sent no exit status), text output."""

    rc: int | None
    out: str
    err: str


def first_line(text: str) -> str:
    """The first line of ``text`` that is not blank, stripped (``""`` when none)."""
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def parse_proc_stat(text: str) -> tuple[str, int] | None:
    """``(state, start ticks)`` from ``/proc/PID/stat`` (proc(5): field 3 and field 22), or None. Pure."""
    tail = text.rsplit(")", 1)[-1].split()
    if len(tail) < 20:
        return None
    try:
        return tail[0], int(tail[19])
    except ValueError:
        return None


def wait_channel(chan: paramiko.Channel, timeout_s: float, cancel: threading.Event | None = None, *,
                 name: str = "", what: str = "", on_tick: Callable[[float], None] | None = None,
                 ) -> tuple[int | None, str, str]:
    """Read a channel until its command ended (EOF and exit status, or the channel closed) and return
    ``(rc or None, stdout, stderr)``. Calls ``on_tick(elapsed_s)`` about every 0.1 s. Raises
    :class:`Cancelled`, :class:`BenchError` after ``timeout_s``, :class:`RemoteHostLost` when the
    connection ends before the command."""
    out, err = bytearray(), bytearray()
    start = time.monotonic()
    while True:
        while chan.recv_ready():
            out += chan.recv(65536)
        while chan.recv_stderr_ready():
            err += chan.recv_stderr(65536)
        if ((chan.eof_received or chan.closed) and chan.exit_status_ready()
                and not chan.recv_ready() and not chan.recv_stderr_ready()):
            break
        if chan.closed:
            raise RemoteHostLost(f"the SSH connection to {name} closed while '{what}' ran")
        elapsed = time.monotonic() - start
        if on_tick is not None:
            on_tick(elapsed)
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if elapsed > timeout_s:
            raise BenchError(f"'{what}' on {name} did not finish within {timeout_s:.0f} s")
        if chan.eof_received:
            chan.status_event.wait(POLL_S)
        else:
            select.select([chan], [], [], POLL_S)
    rc = chan.exit_status if chan.exit_status != -1 else None
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


@dataclass(frozen=True)
class PlannedTest:
    """One test: ``client`` host → ``server`` host (names), the tool, the exact commands (argv) and
    the TCP ports the server listens on."""

    client: str
    server: str
    test: str
    tool: str
    client_addr: str
    server_addr: str
    server_argv: tuple[str, ...]
    client_argv: tuple[str, ...]
    ports: tuple[int, ...]
    spec: TestSpec | None = None

    @property
    def label(self) -> str:
        name = self.spec.name if self.spec is not None else self.test
        runs = f" × {self.spec.repetitions}" if self.spec is not None and self.spec.repetitions > 1 else ""
        return (f"{name}{runs} with {self.tool} from {self.client} ({self.client_addr}) to {self.server} "
                f"({self.server_addr})")

    @property
    def repetitions(self) -> int:
        """Runs of this test, averaged into one result."""
        return self.spec.repetitions if self.spec is not None else 1

    @property
    def duration_s(self) -> float | None:
        """Seconds per run of a catalogue test (None: the plan's)."""
        return self.spec.duration_s if self.spec is not None else None


def pidfile_path(folder: str, n: int) -> str:
    """The pid file of the ``n``-th process started in benchmark folder ``folder``."""
    return f"{folder}/p{n}.pid"


def describe_entry(entry: Entry) -> str:
    """One journal row in words (``process 4321 (netserver -D …)``, ``folder /tmp/nicadv-bench-…``, ``firewall ruleset
    remoteSerialPort (was disabled)``)."""
    if entry.kind == "esxi-ruleset":
        was = {True: "enabled", False: "disabled"}.get(entry.data.get("enabled"), "in a state not read")
        added = ", ".join(entry.data.get("added") or [])
        return f"firewall ruleset {entry.data.get('ruleset')} (was {was}" + (f"; {added} added" if added else "") + ")"
    if entry.kind == "esxi-file":
        return f"copy {entry.data.get('path')}"
    if entry.kind == "esxi-process":
        return f"process {shlex.join((entry.data.get('argv') or ['?'])[:1])} (found by what ps -c -J shows)"
    if entry.kind == "folder":
        return f"folder {entry.data.get('path')}"
    if entry.kind == "process":
        pid = entry.data.get("pid")
        return f"process {pid if pid else '(pid in ' + str(entry.data.get('pidfile')) + ')'} " \
               f"({shlex.join(entry.data.get('argv') or ['?'])})"
    return f"{entry.kind} {entry.id}"


def undo_by_hand(entry: Entry) -> str:
    """The exact command(s) an admin runs on the host to undo journal row ``entry`` by hand, as the tool's own undo
    runs them (:func:`nicadvisor.bench.esxi.restore_ruleset` and the rows' undo): ESXi's ``esxcli network firewall
    ruleset ...`` (the enabled state, the allowed-all flag, each address added), ``rm -f`` of a copy or folder,
    ``kill -TERM`` of a process; several joined with ``" && "``."""
    d = entry.data
    if entry.kind == "esxi-ruleset":
        name = str(d.get("ruleset", ""))
        fw = ["esxcli", "network", "firewall", "ruleset"]
        steps = [[*fw, "allowedip", "remove", "--ruleset-id", name, "--ip-address", str(ip)]
                 for ip in d.get("added") or [] if ip not in (d.get("ips") or [])]
        if d.get("allowed_all") is True:
            steps.append([*fw, "set", "--ruleset-id", name, "--allowed-all", "true"])
        if isinstance(d.get("enabled"), bool):
            steps.append([*fw, "set", "-r", name, "-e", "true" if d["enabled"] else "false"])
        return " && ".join(shlex.join(x) for x in steps) or f"esxcli network firewall ruleset list -r {name}"
    if entry.kind in ("esxi-file", "folder"):
        return shlex.join(["rm", "-rf" if entry.kind == "folder" else "-f", str(d.get("path", ""))])
    if entry.kind == "esxi-process":
        return (f"ps -c -J (find {shlex.join((d.get('argv') or ['?'])[:1])}), then kill -TERM with its cartel id")
    if entry.kind == "process":
        return f"kill -TERM {d.get('pid')}" if d.get("pid") else f"kill -TERM \"$(cat {d.get('pidfile')})\""
    return f"see the benchmark's undo journal row {entry.id}"


def _alive(conn: Session, pid: int, argv0: str, start: int | None) -> bool:
    stat = conn.run(("cat", f"/proc/{pid}/stat"))
    got = parse_proc_stat(stat.out) if stat.rc == 0 else None
    if got is None or got[0] == "Z" or (start is not None and got[1] != start):
        return False
    cmd = conn.run(("cat", f"/proc/{pid}/cmdline"))
    first = cmd.out.split("\x00", 1)[0] if cmd.rc == 0 else ""
    return Path(first).name == Path(argv0).name


def undo_entry(conn: Session, entry: Entry) -> tuple[bool, str]:
    """Undo one row on its host: stop the process (only if it is still the one started: pid, start
    time and program name) or remove the folder. Returns ``(done, sentence)``. Raises
    :class:`RemoteHostLost` when the session ends."""
    where = f"on {conn.name}"
    if entry.kind.startswith("esxi-"):
        return undo_esxi_entry(lambda argv: conn.run(argv), entry, conn.name)
    if entry.kind == "folder":
        path = str(entry.data.get("path", ""))
        if not FOLDER_RE.match(path):
            return False, f"refused to remove {path!r} {where}: not a NIC Advisor benchmark folder"
        res = conn.run(("rm", "-rf", "--", path))
        if res.rc == 0:
            return True, f"removed folder {path} {where}"
        return False, f"could not remove folder {path} {where}: {first_line(res.err) or f'exit status {res.rc}'}"
    if entry.kind == "process":
        argv = entry.data.get("argv") or ["?"]
        what = shlex.join(argv[:1])
        pid = entry.data.get("pid")
        if not isinstance(pid, int):
            pidfile = str(entry.data.get("pidfile", ""))
            got = conn.run(("cat", pidfile)) if PIDFILE_RE.match(pidfile) else CmdOut(1, "", "")
            text = got.out.strip()
            if got.rc != 0 or not PID_RE.match(text):
                return True, f"{what} {where} had not started"
            pid = int(text)
        start = entry.data.get("start") if isinstance(entry.data.get("start"), int) else None
        if not _alive(conn, pid, argv[0], start):
            return True, f"process {pid} ({what}) {where} had already ended"
        for sig in ("-TERM", "-KILL"):
            conn.run(("kill", sig, str(pid)))
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                if not _alive(conn, pid, argv[0], start):
                    return True, f"stopped process {pid} ({what}) {where}"
                time.sleep(0.05)
        return False, f"could not stop process {pid} ({what}) {where}"
    return False, f"unknown journal entry kind {entry.kind!r} {where}"


class StartedProcess:
    """A journaled remote process (context manager: always stopped and its row removed)."""

    def __init__(self, conn: Session, journal: Journal, argv: tuple[str, ...], pidfile: str) -> None:
        self.conn, self.journal, self.argv, self.pidfile = conn, journal, argv, pidfile
        self.chan: paramiko.Channel | None = None
        self.entry: str | None = None
        self.pid: int | None = None
        self.problems: list[str] = []

    def __enter__(self) -> "StartedProcess":
        self.entry = self.journal.record("process", host=self.conn.target.source, argv=list(self.argv),
                                         pidfile=self.pidfile, pid=None, start=None)
        try:
            self.chan = self.conn.open(("sh", "-c", START_SCRIPT, "nicadv-start", self.pidfile, *self.argv))
            deadline = time.monotonic() + READY_TIMEOUT_S
            while self.pid is None and time.monotonic() < deadline:
                got = self.conn.run(("cat", self.pidfile))
                if got.rc == 0 and PID_RE.match(got.out.strip()):
                    self.pid = int(got.out.strip())
                else:
                    time.sleep(0.02)
            if self.pid is not None:
                stat = self.conn.run(("cat", f"/proc/{self.pid}/stat"))
                got_stat = parse_proc_stat(stat.out) if stat.rc == 0 else None
                self.journal.update(self.entry, pid=self.pid, start=got_stat[1] if got_stat else None)
        except BaseException:
            self.__exit__()
            raise
        return self

    def exited(self) -> bool:
        return self.chan is not None and self.chan.exit_status_ready()

    def output(self) -> str:
        """What the process printed so far (stdout then stderr), without waiting."""
        if self.chan is None:
            return ""
        out = bytearray()
        while self.chan.recv_ready():
            out += self.chan.recv(65536)
        while self.chan.recv_stderr_ready():
            out += self.chan.recv_stderr(65536)
        return out.decode("utf-8", "replace")

    def __exit__(self, *exc: object) -> None:
        if self.entry is not None:
            entry = next((e for e in self.journal.entries() if e.id == self.entry), None)
            if entry is None:
                self.entry = None
            else:
                try:
                    ok, sentence = undo_entry(self.conn, entry)
                except (RemoteHostLost, BenchError) as err:
                    ok, sentence = False, f"could not stop {describe_entry(entry)} on {self.conn.name}: {err}"
                if ok:
                    self.journal.done(self.entry)
                    self.entry = None
                else:
                    self.problems.append(sentence)
        if self.chan is not None:
            self.chan.close()
