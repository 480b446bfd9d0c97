"""Read-only audit of THIS Linux machine's interfaces, recorded as captures.

For every interface in ``/sys/class/net`` except the loopback, :func:`collect_local` runs only
allow-listed read-only commands (the Linux commands of the command catalogue, :mod:`nicadvisor.commands`) (``ethtool -i/-k/-l/-x/-c/-g IF``, ``ethtool IF``, once
``ip -d -j link show``) through :func:`subprocess.run` with an argv list (no shell) and a timeout, and
reads sysfs attributes (``mtu``, ``operstate``, ``carrier``, ``speed``, ``duplex``, ``address``,
``flags``, the device link, and for a PCI device ``vendor``, ``device``, ``subsystem_vendor``,
``subsystem_device``, ``current_link_speed``/``width``, ``max_link_speed``/``width``, ``numa_node``).

Each output becomes a :class:`~nicadvisor.parsers.capture_file.Capture` whose ``command`` is the plain
command (``ethtool -k eth0``, ``cat /sys/class/net/eth0/mtu``, ``readlink /sys/class/net/eth0``), so the
same parsers read it as a saved capture (:mod:`nicadvisor.parsers.linux.ethtool`,
:mod:`nicadvisor.parsers.linux.sysfs`). Nothing is changed on the machine.

With ``netns="NS"`` every command, including the sysfs reads, runs as ``ip netns exec NS …`` (that
remounts ``/sys`` for the namespace), so the namespace's interfaces are audited; the captures then note
the namespace. Where ``lldpctl`` (lldpd) or ``networkctl`` (systemd-networkd) is installed, the LLDP neighbour of
every interface is read once (``lldpctl -f json``, ``networkctl --no-pager --full lldp``): the switch port it is
cabled to. Problems (missing ``ethtool``/``ip``, timeouts, cancellation) are returned, never raised.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from nicadvisor import commands
from nicadvisor.parsers.capture_file import Capture

ETHTOOL_OPTIONS = tuple(c.words[1] if len(c.words) == 3 else "" for c in commands.collected("linux")
                        if c.words[0] == "ethtool")
"""The ethtool queries run per interface, from the command catalogue in its order (``""`` = plain ``ethtool IF``);
all read-only."""

NET_ATTRS = next(c.attributes for c in commands.collected("linux") if c.text == "cat /sys/class/net/{nic}/{attribute}")
"""The ``/sys/class/net/IF`` attributes read (catalogue)."""
PCI_ATTRS = next(c.attributes for c in commands.collected("linux")
                 if c.text == "cat /sys/class/net/{nic}/device/{attribute}")
"""The attributes of an interface's PCI function read (catalogue)."""
NEIGHBOR_COMMANDS = tuple(c.words for c in commands.collected("linux")
                          if c.scope == "host" and c.words[0] in ("lldpctl", "networkctl"))
"""The LLDP neighbour reads run once per host when their program exists (``lldpctl -f json``, ``networkctl
--no-pager --full lldp``, catalogue order); read-only."""
DEFAULT_TIMEOUT_S = 10.0

_IFNAME_RE = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")
_NETNS_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
BDF_ERE = commands.NAME_ERE["linux"]["pci"]
"""A PCI function's address in sysfs (``0000:3b:00.1``), as the catalogue's POSIX ERE (the collector script checks the
same text with ``grep -E``)."""
_BDF_RE = commands.whole(BDF_ERE)
_SYSFS_PREFIXES = ("/sys/class/net/", "/sys/bus/pci/devices/")


@dataclass
class LocalCollection:
    """What :func:`collect_local` read: ``captures`` (one per command/attribute that gave output),
    ``problems`` (human-readable: missing tool, timeout, cancelled) and ``skipped`` (queries the
    interface does not support, e.g. ``ethtool -x veth0: Operation not supported`` — informational)."""

    captures: list[Capture] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def allowed(argv: list[str]) -> bool:
    """True when ``argv`` (without any ``ip netns exec NS`` prefix) is one of the read-only commands
    this collector may run: ``ethtool [-i|-k|-l|-x|-c|-g] IF``, ``ip -d -j link show``, ``ls /sys/class/net``,
    ``cat``/``readlink`` of a path under ``/sys/class/net/`` or ``/sys/bus/pci/devices/``, and the LLDP neighbour
    reads :data:`NEIGHBOR_COMMANDS` exactly."""
    if not argv:
        return False
    if argv[0] == "ethtool":
        if len(argv) == 2:
            return bool(_IFNAME_RE.match(argv[1]))
        return len(argv) == 3 and argv[1] in ETHTOOL_OPTIONS[:-1] and bool(_IFNAME_RE.match(argv[2]))
    if argv == ["ip", "-d", "-j", "link", "show"] or argv == ["ls", "/sys/class/net"] or tuple(argv) in NEIGHBOR_COMMANDS:
        return True
    if argv[0] in ("cat", "readlink") and len(argv) == 2:
        path = argv[1]
        return path.startswith(_SYSFS_PREFIXES) and ".." not in path.split("/")
    return False


class _Runner:
    """Runs allow-listed commands (optionally inside a network namespace) and reads sysfs."""

    def __init__(self, netns: str | None, timeout: float, out: LocalCollection) -> None:
        self.netns = netns
        self.timeout = timeout
        self.out = out
        self.host = socket.gethostname()
        self.source = f"local:netns={netns}" if netns else "local"
        self.notes: tuple[str, ...] = (f"run in network namespace {netns}",) if netns else ()

    def capture(self, command: str, text: str, extra_note: str | None = None) -> None:
        notes = self.notes + ((extra_note,) if extra_note else ())
        self.out.captures.append(Capture(source=self.source, command=command, text=text, host=self.host, notes=notes))

    def run(self, argv: list[str]) -> tuple[int, str, str] | None:
        """Run ``argv``; returns (exit status, stdout, stderr), or None after recording a problem.

        Raises ValueError for a command outside :func:`allowed` (a programming error).
        """
        if not allowed(argv):
            raise ValueError(f"command not allowed by the local collector: {argv!r}")
        full = ["ip", "netns", "exec", self.netns, *argv] if self.netns else argv
        env = {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "LC_ALL": "C"}
        try:
            proc = subprocess.run(full, capture_output=True, text=True, timeout=self.timeout, check=False,
                                  env=env, errors="replace")
        except subprocess.TimeoutExpired:
            self.out.problems.append(f"'{' '.join(full)}' did not finish within {self.timeout:g} s")
            return None
        except OSError as exc:
            self.out.problems.append(f"'{' '.join(full)}' could not be run: {exc}")
            return None
        return proc.returncode, proc.stdout, proc.stderr

    def read(self, path: str) -> str | None:
        """A sysfs file's text, or None when it cannot be read (absent, EINVAL on a down link …)."""
        if self.netns:
            res = self.run(["cat", path])
            if res is None or res[0] != 0:
                return None
            return res[1]
        try:
            return Path(path).read_text(errors="replace")
        except OSError:
            return None

    def readlink(self, path: str) -> str | None:
        if self.netns:
            res = self.run(["readlink", path])
            if res is None or res[0] != 0 or not res[1].strip():
                return None
            return res[1].strip()
        try:
            return os.readlink(path)
        except OSError:
            return None

    def interfaces(self) -> list[str]:
        if self.netns:
            res = self.run(["ls", "/sys/class/net"])
            if res is None:
                return []
            if res[0] != 0:
                self.out.problems.append(f"cannot list /sys/class/net in namespace {self.netns}: {res[2].strip()}")
                return []
            names = res[1].split()
        else:
            try:
                names = os.listdir("/sys/class/net")
            except OSError as exc:
                self.out.problems.append(f"cannot list /sys/class/net: {exc}")
                return []
        return sorted(n for n in names if n != "lo" and _IFNAME_RE.match(n))


def pci_dir(link: str | None) -> str | None:
    """The PCI function of an interface from its ``/sys/class/net/IF`` link target: the ``BDF`` just
    above ``net/IF`` (or above a ``virtioN`` node), else None (virtual, USB …)."""
    if not link:
        return None
    parts = [p for p in link.split("/") if p and p != ".."]
    if len(parts) < 3 or parts[-2] != "net":
        return None
    for i in range(len(parts) - 3, -1, -1):
        if _BDF_RE.match(parts[i]):
            between = parts[i + 1:-2]
            return parts[i] if all(re.fullmatch(r"virtio\d+", b) for b in between) else None
    return None


def collect_local(progress: Callable[[str], None] | None = None, cancel: threading.Event | None = None,
                  netns: str | None = None, timeout: float = DEFAULT_TIMEOUT_S) -> LocalCollection:
    """Audit this machine's interfaces (loopback excluded) read-only; see the module docstring.

    ``progress`` receives short messages (``"eth0: ethtool -k"``); setting ``cancel`` stops between
    commands and returns what was read with a "cancelled" problem. ``netns`` audits a named network
    namespace instead (needs root and ``ip``). A missing ``ethtool`` or ``ip`` is a problem, not an
    exception; the sysfs facts are still read. Raises ValueError only for an invalid ``netns`` name.
    """
    if netns is not None and not _NETNS_RE.match(netns):
        raise ValueError(f"invalid network namespace name: {netns!r}")
    out = LocalCollection()
    runner = _Runner(netns, timeout, out)
    say = progress or (lambda _msg: None)

    def cancelled() -> bool:
        if cancel is not None and cancel.is_set():
            if "cancelled before the audit finished" not in out.problems:
                out.problems.append("cancelled before the audit finished")
            return True
        return False

    has_ip = shutil.which("ip") is not None
    has_ethtool = shutil.which("ethtool") is not None
    if netns and not has_ip:
        out.problems.append("'ip' (iproute2) not found: cannot enter network namespace " + netns)
        return out
    if not has_ethtool:
        out.problems.append("'ethtool' not found: driver, firmware, offload, queue, ring and coalescing facts "
                            "are not read (install the ethtool package)")

    names = runner.interfaces()
    say(f"{len(names)} interface(s): {', '.join(names) or 'none'}")

    if has_ip and not cancelled():
        say("ip -d -j link show")
        res = runner.run(["ip", "-d", "-j", "link", "show"])
        if res is not None:
            rc, stdout, stderr = res
            if rc == 0 and stdout.strip():
                runner.capture("ip -d -j link show", stdout)
            else:
                out.skipped.append(f"ip -d -j link show: {stderr.strip() or f'exit status {rc}'}")
    elif not has_ip:
        out.problems.append("'ip' (iproute2) not found: link kinds (veth, bond, VLAN, bridge) are not read")

    for name in names:
        if cancelled():
            break
        base = f"/sys/class/net/{name}"
        say(f"{name}: sysfs")
        link = runner.readlink(base)
        if link:
            runner.capture(f"readlink {base}", link + "\n")
        for attr in NET_ATTRS:
            text = runner.read(f"{base}/{attr}")
            if text is not None and text.strip():
                runner.capture(f"cat {base}/{attr}", text)
            else:
                out.skipped.append(f"{name}: {base}/{attr} not readable")
        bdf = pci_dir(link)
        if bdf:
            # A PCI function directly under net/IF: read through the interface's device link (keyed by
            # name); behind a virtio node the device link is the virtio device, so read the PCI function.
            parts = [p for p in (link or "").split("/") if p and p != ".."]
            pci_base = f"{base}/device" if parts[-3] == bdf else f"/sys/bus/pci/devices/{bdf}"
            for attr in PCI_ATTRS:
                if cancelled():
                    break
                path = f"{pci_base}/{attr}"
                text = runner.read(path)
                if text is not None and text.strip():
                    runner.capture(f"cat {path}", text)
                else:
                    out.skipped.append(f"{name}: {path} not readable")
        if not has_ethtool:
            continue
        for opt in ETHTOOL_OPTIONS:
            if cancelled():
                break
            argv = ["ethtool", opt, name] if opt else ["ethtool", name]
            command = " ".join(argv)
            say(f"{name}: {command}")
            res = runner.run(argv)
            if res is None:
                continue
            rc, stdout, stderr = res
            lines = [ln for ln in stdout.splitlines() if ln.strip()]
            if rc != 0 and len(lines) <= 1:
                # e.g. "No data available" (plain ethtool on a down ifb/dummy device): an error, not an output
                out.skipped.append(f"{command}: {' '.join(lines + [stderr.strip()]).strip() or f'exit status {rc}'}")
            elif lines:
                note = f"exit status {rc}: {stderr.strip()}" if rc != 0 else None
                runner.capture(command, stdout, note)
            else:
                out.skipped.append(f"{command}: {stderr.strip() or f'exit status {rc}, no output'}")
    for argv in NEIGHBOR_COMMANDS:
        if cancelled():
            break
        if shutil.which(argv[0]) is None:
            out.skipped.append(f"{' '.join(argv)}: {argv[0]} not installed (the switch port of each interface is "
                               "not read)")
            continue
        _neighbors(runner, list(argv), say)
    say(f"{len(out.captures)} capture(s) read")
    return out


def _neighbors(runner: _Runner, argv: list[str], say: Callable[[str], None]) -> None:
    """Run one LLDP neighbour read; its output becomes a capture, a daemon that is not running a skipped line."""
    command = " ".join(argv)
    say(command)
    res = runner.run(argv)
    if res is None:
        return
    rc, stdout, stderr = res
    if rc == 0 and stdout.strip():
        runner.capture(command, stdout)
    else:
        runner.out.skipped.append(f"{command}: {(stderr or stdout).strip()[:300] or f'exit status {rc}'}")
