"""Small system helpers shared by the bench modules: run a short command with a timeout, read a
process's identity from ``/proc``, stop a process by pid, and find listening TCP sockets.

Linux only (``/proc``). No shell is ever used: every command is an argv list.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from nicadvisor.procinfo import process_start_ticks

IP = "ip"
TC = "tc"


@dataclass(frozen=True)
class CmdResult:
    """Outcome of :func:`run_cmd`: ``rc`` (-1 when the command could not start or timed out),
    ``stdout``/``stderr`` text, and ``argv``."""

    argv: tuple[str, ...]
    rc: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def describe(self) -> str:
        """``"ip netns add x: rc=1: <stderr>"`` for problem messages."""
        err = (self.stderr or self.stdout).strip().splitlines()
        return f"{' '.join(self.argv)}: rc={self.rc}" + (f": {err[-1]}" if err else "")


def run_cmd(argv: list[str], timeout_s: float = 10.0) -> CmdResult:
    """Run a short administrative command (``ip``, ``tc``) and return its result; never raises for a
    failing, missing or hung command (``rc=-1`` and the reason in ``stderr``)."""
    try:
        cp = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except FileNotFoundError as exc:
        return CmdResult(tuple(argv), -1, "", f"not found: {exc}")
    except subprocess.TimeoutExpired:
        return CmdResult(tuple(argv), -1, "", f"timed out after {timeout_s} s")
    return CmdResult(tuple(argv), cp.returncode, cp.stdout, cp.stderr)



def same_process_alive(pid: int, start_ticks: int | None) -> bool:
    """True when ``pid`` is alive (not a zombie) and, if ``start_ticks`` is given, is still the same
    process that was recorded (its start time matches)."""
    ticks = process_start_ticks(pid)
    if ticks is None:
        return False
    return start_ticks is None or ticks == start_ticks


def stop_pid(pid: int, start_ticks: int | None, grace_s: float = 1.0) -> bool:
    """Send SIGTERM to ``pid`` (only if it is still the recorded process), then SIGKILL after
    ``grace_s`` seconds. Returns True when the process is gone (or was already gone)."""
    if not same_process_alive(pid, start_ticks):
        return True
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            if not same_process_alive(pid, start_ticks):
                return True
            time.sleep(0.02)
    return False


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        names = list(fd_dir.iterdir())
    except OSError:
        return inodes
    for p in names:
        try:
            target = os.readlink(p)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def listening_tcp_ports(pid: int) -> set[int]:
    """TCP ports on which process ``pid`` itself holds a listening socket, read from
    ``/proc/<pid>/net/tcp`` and ``tcp6`` (which show the network namespace of that process) and
    matched on socket inode against ``/proc/<pid>/fd``. Empty when unreadable."""
    inodes = _socket_inodes(pid)
    ports: set[int] = set()
    if not inodes:
        return ports
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text(encoding="ascii", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines[1:]:
            parts = line.split()
            if len(parts) < 10 or parts[3] != "0A":  # 0A = TCP_LISTEN
                continue
            if parts[9] in inodes:
                try:
                    ports.add(int(parts[1].rsplit(":", 1)[1], 16))
                except (IndexError, ValueError):
                    continue
    return ports


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A TCP port the kernel reports free on ``host`` right now (bind to port 0, read, close).
    There is a small race before the server binds it; callers check the server really listens."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])
