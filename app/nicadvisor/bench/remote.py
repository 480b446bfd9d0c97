"""Benchmark between audited hosts over SSH: netperf/netserver, else iperf3, else the built-in agent
(one file copied to a temporary folder and run with the host's ``python3``), with every change
journaled (:mod:`nicadvisor.bench.journal`) before it is made and undone after the
test, after a cancel, and at the next start after a crash or ``kill -9``.

Flow (:class:`RemoteBench`): ``prepare()`` connects to every host (host keys verified by
:class:`~nicadvisor.collect.known_hosts.KnownHosts`, authentication as the SSH audit), probes it
read-only (tools and versions, netperf omni support, the data address of the chosen interface, the
listening ports) and returns a :class:`RemotePlan`: exactly what will change on which host (folder
created, file copied, processes started, ports listened on), shown to the user before anything
changes. ``run(plan)`` then undoes what an earlier run left on these hosts, runs every planned test
and undoes its own changes, also when a test fails or the run is cancelled.

Which hosts talk: every pair of the hosts given, in order (``A B C`` → A→B, A→C, B→C; the first of
a pair runs the client). A client only ever connects to the data address of its peer, read on the
peer itself; the server binds only that address. Traffic goes only between the hosts the user chose.

Commands: only those :func:`check_remote` accepts are sent, quoted with :func:`shlex.join` (a separate
allowlist from the audit's read-only one, :mod:`nicadvisor.collect.ssh_commands`). A process is
started as ``sh -c 'echo $$ >"$1" && shift && exec "$@"' nicadv-start PIDFILE TOOL ARGS...``: the pid
file inside the run's folder names it even when this program dies before reading it; it is stopped
with ``kill`` only after ``/proc/PID/cmdline`` and ``/proc/PID/stat`` (start time) show it is still
the process that was started.

Scope: Linux hosts and VMs, and ESXi hosts (:mod:`nicadvisor.bench.remote_esxi`: ESXi's own iperf3, a copy of it
as the server, the firewall rulesets opened for the run and put back exactly; the TEP mesh, :meth:`RemoteBench
.check_mtu_paths`).
"""
from __future__ import annotations

import ast
import hashlib
import inspect
import ipaddress
import re
import secrets
import shlex
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import paramiko

from nicadvisor.collect.known_hosts import AskFn, KnownHosts
from nicadvisor.model.entities import PathTest
from nicadvisor.collect.ssh import (  # the audit's connection and its messages (see the report to the lead)
    SshTarget, _connect_problem, _KeyFileError, _OpenSessions, _Session, exec_within,
)
from nicadvisor.collect.ssh_commands import LINUX_IF_RE, LINUX_TOOL_PATHS, CommandRefused, check_path_ping

from . import BenchError, Cancelled, check_run_options
from . import agent, iperf3, mtu_path, netperf, path_rtt
from .catalogue import TestSpec, combine_repetitions, why_not
from .esxi import IPERF3, FirewallRead, check_esxi, read_firewall
from .journal import Entry, Journal, RestoreOutcome, orphaned_entries, undo_rows
from .remote_process import (FOLDER_RE, PID_RE, PIDFILE_RE, READY_TIMEOUT_S, START_SCRIPT, CmdOut, PlannedTest,
                             RemoteHostLost, StartedProcess, describe_entry, first_line, pidfile_path,
                             undo_by_hand, undo_entry, wait_channel)
from .results import BenchReport, BenchResult

if TYPE_CHECKING:
    from .remote_esxi import EsxiHostPlan

Progress = Callable[[float, str], None]

#: iperf3's own default port (iperf3(1) 3.12: "-p, --port n ... (default 5201)"). netperf's data
#: connection uses the next port (test-specific ``-P ,PORT+1``; netperf 2.7.0 ``netperf -t omni -- -h``:
#: "-P local[,remote] Set the local/remote port for the data socket").
DEFAULT_PORT = 5201
PATH = "remote"
"""``BenchResult.path`` of a result measured between two audited hosts."""

AGENT_NAME = "nicadv_agent.py"
_AGENT_RE = re.compile(r"^/tmp/nicadv-bench-[0-9a-f]{16}/nicadv_agent\.py\Z")
_VALUE_RE = re.compile(r"^[A-Za-z0-9_.,:/][A-Za-z0-9_.,:/-]{0,999}\Z")

COPY_SCRIPT = 'umask 077 && cat >"$1"'
PROBE_TOOLS = ("netperf", "netserver", "iperf3", "python3")
#: The options each benchmark program may be given; every other word must be a plain value (no leading ``-``).
#: Left out on purpose: options that read or write files or detach (netperf ``-F``; iperf3 ``--logfile``,
#: ``-F``/``--file``, ``-I``/``--pidfile``, ``-D``), so a started program only measures.
TOOL_OPTIONS: dict[str, frozenset[str]] = {
    "netserver": frozenset({"-D", "-f", "-4", "-6", "-L", "-p", "-N"}),
    "netperf": frozenset({"-4", "-6", "-c", "-C", "-f", "-H", "-j", "-l", "-L", "-p", "-P", "-t", "-T", "--",
                          "-o", "-O", "-k", "-m", "-M", "-r", "-s", "-S", "-b", "-D"}),
    "iperf3": frozenset({"-s", "-c", "-1", "-B", "-p", "-t", "-J", "-u", "-b", "-l", "-i", "-f", "-O", "-P", "-R",
                         "-w", "-N", "-Z", "--forceflush", "--get-server-output"}),
    "python3": frozenset({"serve", "client", "--bind", "--port", "--once", "--test", "--host", "--duration",
                          "--request", "--response"}),
}
#: ``netperf -t omni -- -h`` prints this heading only when the omni tests are compiled in (netperf 2.7.0
#: on this machine; the usage text of src/nettest_omni.c).
OMNI_HELP = "OMNI and Migrated BSD Sockets Test Options"
#: The agent file uses ``from __future__ import annotations`` (PEP 563: Python 3.7 and later).
MIN_PYTHON = (3, 7)


class RemoteCommandRefused(ValueError):
    """A command outside the benchmark allowlist; raised before anything is sent."""


# --- the allowlist ---------------------------------------------------------------------------------

def _tool_argv_ok(argv: tuple[str, ...]) -> bool:
    if not argv or argv[0] not in TOOL_OPTIONS:
        return False
    words = argv[1:]
    if argv[0] == "python3":
        if not words or not _AGENT_RE.match(words[0]):
            return False
        words = words[1:]
    options = TOOL_OPTIONS[argv[0]]
    return all(w in options or _VALUE_RE.match(w) for w in words)


def _is_ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def check_remote(argv: tuple[str, ...] | list[str]) -> str:
    """The command line to send for ``argv`` (``shlex.join``), or :class:`RemoteCommandRefused`.

    Accepted (``FOLDER`` = ``/tmp/nicadv-bench-<16 hex>``, ``PID`` a number > 0, ``IF`` a Linux
    interface name): ``command -v TOOL`` and ``netperf -V``, ``netperf -t omni -- -h``,
    ``iperf3 --version``, ``python3 -V`` (probes); ``ip -4 -o addr show [dev IF]``, ``ip -o link show dev IF``,
    ``tc qdisc show dev IF`` and ``tc filter show dev IF ingress`` (the interface of the test address, its link
    state and MTU, a tbf rate on what it sends, and an ingress redirect to an ifb device shaping what it receives);
    the path-test pings of the command catalogue (``vmkping ++netstack=N -I vmkN -d -s N -c 3 ADDR``, ``ping -M do -c 3
    -i 0.2 -W 1 -s N -I ADDR ADDR``: :func:`nicadvisor.collect.ssh_commands.check_path_ping`) and ``esxcfg-vmknic -l``
    (the TEPs of an ESXi host, :mod:`nicadvisor.bench.mtu_path`);
    ``ping -c 50 -A -W 1 -s 56 -I ADDR ADDR`` (:mod:`nicadvisor.bench.path_rtt`); ``cat /proc/net/tcp``,
    ``cat /proc/net/tcp6``; ``mkdir -m 700 FOLDER``; ``rm -rf -- FOLDER``; the agent copy
    ``sh -c 'umask 077 && cat >"$1"' nicadv-copy FOLDER/nicadv_agent.py`` and ``sha256sum`` of it;
    ``cat FOLDER/pN.pid``, ``cat /proc/PID/stat``, ``cat /proc/PID/cmdline``; ``kill -TERM|-KILL PID``;
    and the start wrapper (module docstring) around ``netserver``, ``netperf``, ``iperf3`` or
    ``python3 FOLDER/nicadv_agent.py`` with only the options of :data:`TOOL_OPTIONS`.
    """
    argv = tuple(argv)
    if not argv or any(not isinstance(w, str) or "\x00" in w or "\n" in w for w in argv):
        raise RemoteCommandRefused(f"command refused (empty, or a word holds a NUL or a newline): {argv!r}")
    ok = False
    n = len(argv)
    head = argv[0]
    if n == 3 and argv[:2] == ("command", "-v"):
        ok = argv[2] in PROBE_TOOLS
    elif argv in (("netperf", "-V"), ("netperf", "-t", "omni", "--", "-h"), ("iperf3", "--version"),
                  ("python3", "-V"), ("cat", "/proc/net/tcp"), ("cat", "/proc/net/tcp6")):
        ok = True
    elif head in LINUX_TOOL_PATHS["ip"] and n == 7 and argv[1:6] == ("-4", "-o", "addr", "show", "dev"):
        ok = bool(LINUX_IF_RE.match(argv[6]))
    elif head in LINUX_TOOL_PATHS["ip"] and argv[1:] == ("-4", "-o", "addr", "show"):
        ok = True
    elif head in LINUX_TOOL_PATHS["ip"] and n == 6 and argv[1:5] == ("-o", "link", "show", "dev"):
        ok = bool(LINUX_IF_RE.match(argv[5]))
    elif head in LINUX_TOOL_PATHS["tc"] and n == 5 and argv[1:4] == ("qdisc", "show", "dev"):
        ok = bool(LINUX_IF_RE.match(argv[4]))
    elif head in LINUX_TOOL_PATHS["tc"] and n == 6 and argv[1:4] == ("filter", "show", "dev") and argv[5] == "ingress":
        ok = bool(LINUX_IF_RE.match(argv[4]))
    elif head in ("vmkping", "ping") and "-s" in argv and ("-M" in argv or "-d" in argv):
        try:
            check_path_ping(argv)  # the catalogue's TEP-mesh pings, every value checked
            ok = True
        except CommandRefused:
            ok = False
    elif argv == ("esxcfg-vmknic", "-l"):
        ok = True  # the audit's read-only listing of the vmknics: the TEPs of an ESXi host
    elif check_esxi(argv):
        ok = True  # an ESXi endpoint's command (nicadvisor.bench.esxi), every value checked
    elif n == len(path_rtt.ping_argv("", "")) and argv[:-2] == path_rtt.ping_argv("", "")[:-2]:
        ok = all(_is_ipv4(a) for a in argv[-2:])
    elif n == 4 and argv[:3] == ("mkdir", "-m", "700"):
        ok = bool(FOLDER_RE.match(argv[3]))
    elif n == 4 and argv[:3] == ("rm", "-rf", "--"):
        ok = bool(FOLDER_RE.match(argv[3]))
    elif n == 5 and argv[:4] == ("sh", "-c", COPY_SCRIPT, "nicadv-copy"):
        ok = bool(_AGENT_RE.match(argv[4]))
    elif n == 2 and head == "sha256sum":
        ok = bool(_AGENT_RE.match(argv[1]))
    elif n == 2 and head == "cat":
        m = re.fullmatch(r"/proc/(\d+)/(stat|cmdline)", argv[1])
        ok = bool(PIDFILE_RE.match(argv[1]) or (m and PID_RE.match(m.group(1))))
    elif n == 3 and head == "kill" and argv[1] in ("-TERM", "-KILL"):
        ok = bool(PID_RE.match(argv[2]))
    elif n >= 6 and argv[:4] == ("sh", "-c", START_SCRIPT, "nicadv-start"):
        ok = bool(PIDFILE_RE.match(argv[4])) and _tool_argv_ok(argv[5:])
    if not ok:
        raise RemoteCommandRefused(f"command not in the benchmark allowlist, not sent: {shlex.join(argv)!r}")
    return shlex.join(argv)


# --- the agent as one file -------------------------------------------------------------------------

def agent_script() -> str:
    """The built-in agent (:mod:`nicadvisor.bench.agent`) as one standalone Python file for a remote
    ``python3``: its source with the package-relative imports replaced by placeholder classes (the
    names they bound are used only by the local runner, never by ``serve``/``client``).

    Raises :class:`BenchError` when the agent's source is not available (a frozen build) or imports
    anything outside the Python standard library (it could not run alone on a host).
    """
    try:
        source = inspect.getsource(agent)
    except (OSError, TypeError) as exc:
        raise BenchError(f"the built-in agent's source is not available to copy ({exc})") from None
    tree = ast.parse(source)
    stubs: list[str] = []
    body: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            stubs += [a.asname or a.name for a in node.names]
            continue
        body.append(node)
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        mods: list[str] = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level > 0:
                raise BenchError("the built-in agent imports from the package inside a function: it cannot run alone")
            mods = [node.module or ""]
        bad = [m for m in mods if m.split(".")[0] not in sys.stdlib_module_names and m != "__future__"]
        if bad:
            raise BenchError(f"the built-in agent imports {', '.join(bad)}: it cannot run alone on a host")
    head = 0
    while head < len(body) and (
            (isinstance(body[head], ast.Expr) and isinstance(getattr(body[head], "value", None), ast.Constant))
            or (isinstance(body[head], ast.ImportFrom) and body[head].module == "__future__")):
        head += 1
    stub_src = "".join(f"class {name}(Exception):\n    'not used by the copied agent'\n" for name in sorted(set(stubs)))
    tree.body = body[:head] + ast.parse(stub_src).body + body[head:]
    text = "# NIC Advisor built-in benchmark agent, copied for one benchmark run and removed afterwards.\n"
    text += ast.unparse(tree) + "\n"
    compile(text, AGENT_NAME, "exec")
    return text


# --- one host's SSH session ------------------------------------------------------------------------

@dataclass(frozen=True)
class RemoteHost:
    """A host to benchmark: its SSH ``target`` (``kind`` ``linux``) and the ``interface`` whose IPv4
    address the tests use (None: the SSH address itself)."""

    target: SshTarget
    interface: str | None = None

    def __post_init__(self) -> None:
        if self.interface is not None and not LINUX_IF_RE.match(self.interface):
            raise ValueError(f"{self.target.name}: not an interface name: {self.interface!r}")


class HostSession:
    """The SSH connection to one host, used by one thread at a time (the run's)."""

    def __init__(self, host: RemoteHost) -> None:
        self.host = host
        self.target = host.target
        self._session: _Session | None = None
        self.ip_path = "ip"

    @property
    def name(self) -> str:
        return self.target.name

    def connect(self, known_hosts: KnownHosts, ask: AskFn | None, cancel: threading.Event) -> None:
        """Connect and authenticate (host key checked). Raises :class:`BenchError` with the audit's
        message for the failure (unreachable, unknown or changed host key, refused login)."""
        session = _Session(self.target, cancel, _OpenSessions())
        try:
            session.connect(known_hosts, ask)
        except (OSError, EOFError, ValueError, paramiko.SSHException, _KeyFileError) as exc:
            session.close()
            raise BenchError(_connect_problem(self.target, exc)) from None
        except BaseException:
            session.close()
            raise
        self._session = session

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def _transport(self) -> paramiko.Transport:
        t = self._session.client.get_transport() if self._session else None
        if t is None or not t.is_active():
            raise RemoteHostLost(f"the SSH connection to {self.name} is closed")
        return t

    def open(self, argv: tuple[str, ...] | list[str], pty: bool = False) -> paramiko.Channel:
        """Start ``argv`` (allowlisted) on a new channel and return it without waiting; ``pty``: through a
        pseudo-terminal (the program ends when the session does: an ESXi endpoint's iperf3). Opening and starting
        take at most the target's command timeout (a server that never acknowledges the request:
        :func:`~nicadvisor.collect.ssh.exec_within`). Raises :class:`RemoteCommandRefused`,
        :class:`RemoteHostLost`, :class:`BenchError` at that timeout."""
        command = check_remote(argv)
        timeout = self.target.command_timeout_s
        try:
            chan = self._transport().open_session(timeout=timeout)
            expired = exec_within(chan, command, timeout, pty=pty)
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise RemoteHostLost(f"the SSH connection to {self.name} failed while starting '{command}': {exc}") from None
        if expired:
            raise BenchError(f"'{command}' on {self.name} did not start within {timeout:.0f} s (the server did not "
                             "acknowledge it)")
        return chan

    def run(self, argv: tuple[str, ...] | list[str], stdin: bytes | None = None,
            cancel: threading.Event | None = None, timeout_s: float | None = None) -> CmdOut:
        """Run ``argv`` to completion (allowlisted, quoted) and return its output. ``stdin`` is sent then
        closed. Raises :class:`RemoteCommandRefused`, :class:`RemoteHostLost`, :class:`BenchError` after
        ``timeout_s`` (default the target's command timeout), :class:`Cancelled` when ``cancel`` is set."""
        timeout = timeout_s or self.target.command_timeout_s
        chan = self.open(argv)
        try:
            if stdin is not None:
                chan.sendall(stdin)
                chan.shutdown_write()
            rc, out, err = wait_channel(chan, timeout, cancel, name=self.name, what=shlex.join(argv))
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise RemoteHostLost(f"the SSH connection to {self.name} failed during '{shlex.join(argv)}': {exc}") from None
        finally:
            chan.close()
        return CmdOut(rc, out, err)


# --- probing ---------------------------------------------------------------------------------------

def listening_ports(proc_net_tcp: str) -> set[int]:
    """TCP ports in LISTEN state (``0A``) in the text of ``/proc/net/tcp`` or ``tcp6`` (proc(5):
    ``local_address`` is ``HEXADDR:HEXPORT``, ``st`` the state). Pure; never raises."""
    ports: set[int] = set()
    for line in proc_net_tcp.splitlines()[1:]:
        parts = line.split()
        if len(parts) > 3 and parts[3] == "0A":
            try:
                ports.add(int(parts[1].rsplit(":", 1)[1], 16))
            except (IndexError, ValueError):
                continue
    return ports


def parse_ipv4_addr(text: str) -> str | None:
    """The first IPv4 address of ``ip -4 -o addr show dev IF`` (``2: d0    inet 10.0.0.1/30 brd …``),
    or None. Pure."""
    m = re.search(r"\binet\s+(\d{1,3}(?:\.\d{1,3}){3})/\d{1,2}\b", text)
    return m.group(1) if m else None


def interface_of(ip_addr_show: str, address: str) -> str | None:
    """The interface holding IPv4 ``address`` in the text of ``ip -4 -o addr show`` (one line per address:
    ``3: d0    inet 10.216.0.1/30 brd … scope global d0``; a VLAN's ``eth0.10@eth0`` is named ``eth0.10``), or None.
    Pure."""
    for line in ip_addr_show.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] == "inet" and parts[3].split("/", 1)[0] == address:
            return parts[1].split("@", 1)[0]
    return None


def parse_link_mtu(ip_link_show: str) -> int | None:
    """The ``mtu N`` of ``ip -o link show dev IF`` (bytes), or None. Pure."""
    m = re.search(r"\bmtu (\d{2,5})\b", ip_link_show)
    return int(m.group(1)) if m else None


_TC_RATE_UNITS = {"": 1e-6, "K": 1e-3, "M": 1.0, "G": 1e3, "T": 1e6}


def parse_tbf_rate_mbit(tc_qdisc_show: str) -> float | None:
    """The rate in Mbit/s of a root ``tbf`` qdisc in ``tc qdisc show dev IF`` (``qdisc tbf 8001: root refcnt 2 rate
    50Mbit burst 6250b lat 50ms``; tc(8) prints bit/s with a K/M/G/T prefix, 1000-based), or None when the root
    qdisc is not tbf. Pure."""
    for line in tc_qdisc_show.splitlines():
        m = re.match(r"\s*qdisc tbf \S+ root\b.*?\brate (\d+(?:\.\d+)?)([KMGT]?)bit\b", line)
        if m:
            return float(m.group(1)) * _TC_RATE_UNITS[m.group(2)]
    return None


def parse_link_state(ip_link_show: str) -> tuple[bool | None, str]:
    """``(up, why)`` from ``ip -o link show dev IF`` (``3: d0@if2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 …
    state UP …``): True when the interface is up with a carrier (flags ``UP`` and ``LOWER_UP``, ip-link(8)), False
    with the reason in words (set down: no ``UP`` flag; no carrier: ``NO-CARRIER`` or no ``LOWER_UP``, the cable, the
    peer or the switch port is down), None when the text shows no flags. Pure."""
    m = re.search(r"<([A-Z0-9_,-]{0,200})>", ip_link_show)
    if m is None:
        return None, ""
    flags = set(m.group(1).split(","))
    st = re.search(r"\bstate (\S{1,20})", ip_link_show)
    shown = f"<{m.group(1)}>" + (f", state {st.group(1)}" if st else "")
    if "UP" not in flags:
        return False, f"is set down ({shown})"
    if "NO-CARRIER" in flags or "LOWER_UP" not in flags:
        return False, f"has no carrier: the cable, the peer or the switch port is down ({shown})"
    return True, ""


@dataclass(frozen=True)
class IngressRedirect:
    """An ingress filter of an interface that sends what it receives to another device (``tc filter show dev IF
    ingress``: ``action order 1: mirred (Egress Redirect to device ifb0) stolen``, Linux net/sched/act_mirred.c):
    ``device`` the target (an ifb); ``matches_all`` True only when the filter surely takes the IPv4 test traffic:
    protocol ``all`` or ``ip`` and a ``matchall`` classifier or a ``u32`` one whose every match has a zero mask
    (``match 00000000/00000000``); any other match (ports, addresses, flower, bpf) is not evaluated."""

    device: str
    matches_all: bool


def parse_ingress_redirects(tc_filter_show: str) -> list[IngressRedirect]:
    """The mirred *redirects* (not mirrors: a mirror copies and the original goes on) in ``tc filter show dev IF
    ingress``, one per filter rule, in order. Reads at most 64 KiB. Pure; never raises."""
    out: list[IngressRedirect] = []
    kind, protocol, matches = "", "", []
    for line in tc_filter_show[:65536].splitlines():
        text = line.strip()
        head = re.match(r"filter (?:parent \S+ )?protocol (\S+) pref \d+ (\S+)", text)
        if head:  # every line of a rule repeats this head; its matches and actions follow the last one
            protocol, kind, matches = head.group(1), head.group(2), []
            continue
        if text.startswith("match "):
            matches.append(text)
            continue
        m = re.search(r"\bmirred \(Egress Redirect to device ([A-Za-z0-9_.:-]{1,15})\)", text)
        if m:
            zero = all(re.match(r"match 0{8}/0{8} ", t + " ") for t in matches)
            everything = protocol in ("all", "ip") and (kind == "matchall" or (kind == "u32" and zero))
            out.append(IngressRedirect(m.group(1), everything))
    return out


def _python_version(text: str) -> tuple[int, int] | None:
    m = re.search(r"Python (\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


@dataclass(frozen=True)
class HostProbe:
    """What a host offers, read-only: ``tools`` maps each of :data:`PROBE_TOOLS` found to its version
    line ('' when none was printed); ``omni``: netperf has the omni tests; ``address``: the IPv4
    address tests use on this host (None: not usable, see ``problems``); ``interface``: the interface holding it
    (named by the user, else found with ``ip -4 -o addr show``; None when not found); ``mtu`` its MTU in bytes;
    ``tbf_rate_mbit`` the rate (Mbit/s) of a tbf qdisc shaping what it sends, None when none; ``link_up`` the
    interface's link state (:func:`parse_link_state`; None: not read) and ``link_problem`` the sentence naming the
    interface and host when it is down; ``ingress_rate_mbit`` the rate (Mbit/s) of a tbf on the ifb device that
    every packet the interface receives is redirected to (:func:`parse_ingress_redirects`), None when none, and
    ``ingress_at`` where it shapes, in words (``"on ifb0, where lab-b redirects what d0 receives"``);
    ``ingress_notes`` redirects whose filter may not take the test traffic or whose device has no tbf (named, not
    counted). ``kind``: ``linux`` or ``esxi``; ``teps``: an ESXi host's
    TEP vmknics as ``esxcfg-vmknic -l`` lists them (the ends of the TEP mesh); ``firewall``: an ESXi host's firewall
    as read (:func:`nicadvisor.bench.esxi.read_firewall`)."""

    name: str
    source: str
    tools: dict[str, str]
    omni: bool
    address: str | None
    interface: str | None
    listening: frozenset[int] = frozenset()
    problems: tuple[str, ...] = ()
    mtu: int | None = None
    tbf_rate_mbit: float | None = None
    link_up: bool | None = None
    link_problem: str = ""
    ingress_rate_mbit: float | None = None
    ingress_at: str = ""
    ingress_notes: tuple[str, ...] = ()
    kind: str = "linux"
    teps: tuple[mtu_path.Endpoint, ...] = ()
    firewall: FirewallRead | None = None

    def python_ok(self) -> bool:
        v = _python_version(self.tools.get("python3", ""))
        return v is not None and v >= MIN_PYTHON


def probe_host(conn: HostSession, cancel: threading.Event | None = None) -> HostProbe:
    """Probe one host (read-only commands only). Raises :class:`RemoteHostLost`, :class:`Cancelled`."""
    problems: list[str] = []
    tools: dict[str, str] = {}
    for tool in PROBE_TOOLS:
        if conn.run(("command", "-v", tool), cancel=cancel).rc == 0:
            tools[tool] = ""
    omni = False
    if "netperf" in tools:
        v = conn.run(("netperf", "-V"), cancel=cancel)
        tools["netperf"] = first_line(v.out + v.err)
        h = conn.run(("netperf", "-t", "omni", "--", "-h"), cancel=cancel)
        omni = OMNI_HELP in h.out + h.err
        if not omni:
            problems.append(f"netperf on {conn.name} has no omni tests ({tools['netperf'] or 'version unknown'}); "
                            "it is not used")
    if "netserver" in tools:
        tools["netserver"] = tools.get("netperf", "")
    if "iperf3" in tools:
        v = conn.run(("iperf3", "--version"), cancel=cancel)
        tools["iperf3"] = first_line(v.out + v.err)
    if "python3" in tools:
        v = conn.run(("python3", "-V"), cancel=cancel)
        tools["python3"] = first_line(v.out + v.err)
    address = None
    iface = conn.host.interface
    if iface:
        got = None
        for path in LINUX_TOOL_PATHS["ip"]:
            got = conn.run((path, "-4", "-o", "addr", "show", "dev", iface), cancel=cancel)
            if got.rc != 127:
                conn.ip_path = path
                break
        address = parse_ipv4_addr(got.out) if got is not None and got.rc == 0 else None
        if address is None:
            why = first_line(got.err) if got is not None else ""
            problems.append(f"interface {iface} on {conn.name} has no IPv4 address" + (f" ({why})" if why else ""))
    else:
        try:
            ipaddress.IPv4Address(conn.target.host)
            address = conn.target.host
        except ValueError:
            problems.append(f"{conn.name}: name the interface to test from (--interface {conn.target.host}=IF): "
                            "its SSH address is not an IPv4 address")
        if address is not None:
            for path in LINUX_TOOL_PATHS["ip"]:
                got = conn.run((path, "-4", "-o", "addr", "show"), cancel=cancel)
                if got.rc != 127:
                    conn.ip_path = path
                    iface = interface_of(got.out, address) if got.rc == 0 else None
                    break
    mtu = tbf = link_up = None
    link_problem = ""
    ingress: tuple[float | None, str, tuple[str, ...]] = (None, "", ())
    if iface and address:
        got = conn.run((conn.ip_path, "-o", "link", "show", "dev", iface), cancel=cancel)
        mtu = parse_link_mtu(got.out) if got.rc == 0 else None
        link_up, why = parse_link_state(got.out) if got.rc == 0 else (None, "")
        if link_up is False:
            link_problem = f"the link of {iface} on {conn.name} {why}"
            problems.append(link_problem)
        for path in LINUX_TOOL_PATHS["tc"]:
            got = conn.run((path, "qdisc", "show", "dev", iface), cancel=cancel)
            if got.rc != 127:
                tbf = parse_tbf_rate_mbit(got.out) if got.rc == 0 else None
                if got.rc == 0 and re.search(r"^qdisc (?:ingress|clsact) ", got.out, re.M):
                    ingress = _ingress_shaping(conn, path, iface, cancel)
                break
    listening: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        got = conn.run(("cat", table), cancel=cancel)
        if got.rc == 0:
            listening |= listening_ports(got.out)
    return HostProbe(name=conn.name, source=conn.target.source, tools=tools, omni=omni, address=address,
                     interface=iface, listening=frozenset(listening), problems=tuple(problems), mtu=mtu,
                     tbf_rate_mbit=tbf, link_up=link_up, link_problem=link_problem, ingress_rate_mbit=ingress[0],
                     ingress_at=ingress[1], ingress_notes=ingress[2])


def _ingress_shaping(conn: HostSession, tc: str, iface: str, cancel: threading.Event | None
                     ) -> tuple[float | None, str, tuple[str, ...]]:
    """``(rate Mbit/s or None, where in words, notes)`` of what ``iface`` receives: its ingress filters' redirects
    (``tc filter show dev IF ingress``) and the tbf of each target device (``tc qdisc show dev IFB``), read-only. The
    slowest tbf behind a filter that takes every packet bounds what the host receives; the others are notes."""
    got = conn.run((tc, "filter", "show", "dev", iface, "ingress"), cancel=cancel)
    redirects = parse_ingress_redirects(got.out) if got.rc == 0 else []
    best: tuple[float | None, str] = (None, "")
    notes: list[str] = []
    for red in redirects[:8]:
        if not LINUX_IF_RE.match(red.device):
            continue
        shown = conn.run((tc, "qdisc", "show", "dev", red.device), cancel=cancel)
        rate = parse_tbf_rate_mbit(shown.out) if shown.rc == 0 else None
        where = f"on {red.device}, where {conn.name} redirects what {iface} receives"
        if rate is None:
            notes.append(f"{conn.name} redirects what {iface} receives to {red.device}, which has no tbf: its "
                         "shaping is not read")
        elif not red.matches_all:
            notes.append(f"{conn.name} redirects some of what {iface} receives to {red.device} (tc tbf {rate:g} "
                         "Mbit/s); whether the test traffic matches that filter is not evaluated")
        elif best[0] is None or rate < best[0]:
            best = (rate, where)
    return best[0], best[1], tuple(notes)


def probe_esxi(conn: HostSession, cancel: threading.Event | None = None, tests: bool = True) -> HostProbe:
    """Probe an ESXi host read-only: its TEP vmknics from ``esxcfg-vmknic -l`` (the audit's own listing); the vmknic
    named for the host (``--interface HOST=vmk10``) is its test address, else its first TEP; whether its iperf3 is
    there (``test -f``); its firewall (:func:`nicadvisor.bench.esxi.read_firewall`; not when no ``tests`` will run).
    Raises :class:`RemoteHostLost`, :class:`Cancelled`."""
    problems: list[str] = []
    got = conn.run(("esxcfg-vmknic", "-l"), cancel=cancel)
    teps = tuple(mtu_path.tep_endpoints(conn.name, got.out)) if got.rc == 0 else ()
    if got.rc != 0:
        problems.append(f"esxcfg-vmknic -l failed on {conn.name} ({first_line(got.err) or f'exit status {got.rc}'}):"
                        " its TEPs are taken from its audit")
    elif not teps:
        problems.append(f"esxcfg-vmknic -l on {conn.name} lists no TEP vmknic with an address (netstack vxlan or an "
                        "NSX overlay stack): it has no end in the TEP mesh")
    tools = {"iperf3": ""} if conn.run(("test", "-f", IPERF3), cancel=cancel).rc == 0 else {}
    firewall = read_firewall(lambda argv: conn.run(argv, cancel=cancel), conn.name) if tests else None
    chosen = next((t for t in teps if t.interface == conn.host.interface), None) if conn.host.interface else None
    if conn.host.interface and chosen is None:
        problems.append(f"{conn.host.interface} is not a TEP vmknic with an address on {conn.name}")
    first = chosen or (teps[0] if teps else None)
    return HostProbe(name=conn.name, source=conn.target.source, tools=tools, omni=False,
                     address=first.address if first else None, interface=first.interface if first else None,
                     problems=tuple(problems), mtu=first.mtu if first else None, kind="esxi", teps=teps,
                     firewall=firewall)


# --- the plan --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RemoteRequest:
    """What to measure between ``hosts`` (at least two, distinct): ``tests`` (netperf names, in
    order), ``duration_s`` per test, ``tool`` (one of :data:`nicadvisor.bench.TOOL_CHOICES`), ``port`` (the server's TCP
    port; netperf also uses ``port + 1`` for its data connection); ``run_tests`` False: only the TEP mesh will run (an
    ESXi host's firewall is not read then). ``specs``: catalogue tests
    (:func:`nicadvisor.bench.catalogue.quick_profile` / ``full_profile``: payload, streams, direction, repetitions and
    seconds of their own) run instead of ``tests`` when given. Journal in ``journal_dir``."""

    hosts: tuple[RemoteHost, ...]
    tests: tuple[str, ...] = ("TCP_STREAM", "TCP_RR")
    duration_s: float = 2.0
    tool: str = "auto"
    port: int = DEFAULT_PORT
    specs: tuple[TestSpec, ...] = ()
    run_tests: bool = True

    def validate(self) -> None:
        """Raises ValueError naming the first bad field."""
        if len(self.hosts) < 2:
            raise ValueError("a benchmark between hosts needs at least two hosts")
        names = [h.target.source for h in self.hosts]
        if len(set(names)) != len(names):
            raise ValueError("the same host is named twice")
        check_run_options(tuple(s.test for s in self.specs) or self.tests, self.duration_s, self.tool)
        for spec in self.specs:
            spec.validate()
        if not 1024 <= self.port <= 65534:
            raise ValueError(f"port {self.port} is outside 1024..65534")


@dataclass(frozen=True)
class RemotePlan:
    """What a run will do and change, for the user to confirm. ``tests`` in run order; ``folders``
    maps each host name that runs a process to its temporary folder; ``agent_hosts`` get the agent
    file; ``leftovers`` maps host names to sentences of an earlier run's changes undone first;
    ``problems``: sentences (tests that cannot run, hosts left out); ``esxi``: each ESXi host's changes (its iperf3
    copy, its firewall openings: :class:`nicadvisor.bench.remote_esxi.EsxiHostPlan`)."""

    tests: tuple[PlannedTest, ...]
    folders: dict[str, str]
    agent_hosts: frozenset[str]
    agent_sha256: str | None
    agent_bytes: int
    leftovers: dict[str, tuple[str, ...]]
    problems: tuple[str, ...]
    duration_s: float
    esxi: dict[str, "EsxiHostPlan"] = field(default_factory=dict)

    def changes(self) -> dict[str, list[str]]:
        """Per host name, every change the run makes there, in words (the commands are exact)."""
        from .remote_esxi import test_lines

        out: dict[str, list[str]] = {}
        for host, lines in self.leftovers.items():
            out.setdefault(host, []).extend(f"undo first (left by an earlier run): {s}" for s in lines)
        for host, hp in self.esxi.items():
            out.setdefault(host, []).extend(hp.lines())
        for host, folder in self.folders.items():
            out.setdefault(host, []).append(f"create folder {folder} (mode 700); removed with its contents afterwards")
            if host in self.agent_hosts:
                out[host].append(f"copy {AGENT_NAME} into it ({self.agent_bytes} bytes, sha256 {self.agent_sha256}), "
                                 "run with the host's python3")
        for t in self.tests:
            if t.server in self.esxi or t.client in self.esxi:
                for host, lines in test_lines(t, set(self.esxi), self.duration_s).items():
                    out.setdefault(host, []).extend(lines)
                continue
            ports = " and ".join(f"TCP {p}" for p in t.ports)
            name = t.spec.name if t.spec is not None else t.test
            runs = f", {t.repetitions} times" if t.repetitions > 1 else ""
            out[t.server].append(f"start `{shlex.join(t.server_argv)}` listening on {t.server_addr} {ports} "
                                 f"for {name}{runs}; stopped after the test (no firewall rule is changed)")
            out[t.client].append(f"start `{shlex.join(t.client_argv)}` for about {t.duration_s or self.duration_s:g} s"
                                 f"{runs} (traffic only to {t.server_addr} on {t.server})")
        return out

    def estimated_seconds(self) -> float:
        """Planned wall time of every test in seconds: per run its whole seconds plus 1 s to start the server
        (:data:`nicadvisor.bench.catalogue.RUN_OVERHEAD_S`), times its runs, plus 2 s of ping before each one-way
        TCP_RR (:meth:`RemoteBench.measure_path_rtt`)."""
        from .catalogue import RUN_OVERHEAD_S

        total = 0.0
        for t in self.tests:
            total += t.repetitions * (max(1, round(t.duration_s or self.duration_s)) + RUN_OVERHEAD_S)
            if t.test == "TCP_RR" and (t.spec is None or t.spec.direction == "send"):
                total += path_rtt.COUNT * path_rtt.USER_INTERVAL_S
        return total

    def lines(self) -> list[str]:
        """The plan as text lines for the terminal or a dialog."""
        lines = ["Benchmark plan:"]
        lines += [f"  {t.label}" for t in self.tests] or ["  no test can run"]
        if self.tests:
            secs = self.estimated_seconds()
            lines.append(f"  about {secs / 60:.0f} min in all" if secs >= 120 else f"  about {secs:.0f} s in all")
        if any(t.test == "TCP_RR" for t in self.tests):
            lines.append(f"  read-only, before each one-way TCP_RR: {shlex.join(path_rtt.ping_argv('CLIENT', 'SERVER'))}"
                         " from the client's test address to the server's (the round trip the test is judged with)")
        for host, changes in self.changes().items():
            lines.append(f"Changes on {host}:")
            lines += [f"  - {c}" for c in changes]
        lines += [f"Note: {p}" for p in self.problems]
        return lines


def _can(tool: str, test: str, c: HostProbe, s: HostProbe, spec: TestSpec | None = None) -> str | None:
    """None when ``tool`` can run ``test`` (or the catalogue ``spec``) from ``c`` to ``s``, else why not."""
    if spec is not None:
        why = why_not(spec, tool)
        if why:
            return why.removeprefix(f"not measurable with {tool}: ")
        if tool == "netperf" and spec.streams > 1:
            return f"netperf runs one stream per process; {spec.streams} streams between hosts run with iperf3 -P"
        if tool != "netperf" and spec.direction == "bidirectional":
            return "between hosts the bidirectional test runs with netperf only (its burst TCP_RR)"
    if tool == "netperf":
        if test not in netperf.TESTS:
            return f"netperf cannot run {test}"
        if "netperf" not in c.tools or not c.omni:
            return f"netperf (with omni tests) is not installed on {c.name}"
        if "netserver" not in s.tools:
            return f"netserver is not installed on {s.name}"
        return None
    if tool == "iperf3":
        if test not in iperf3.TESTS:
            return f"iperf3 cannot run {test}"
        missing = [h.name for h in (c, s) if "iperf3" not in h.tools]
        return f"iperf3 is not installed on {', '.join(missing)}" if missing else None
    if test not in agent.TESTS:
        return f"the agent cannot run {test}"
    missing = [h.name for h in (c, s) if not h.python_ok()]
    return (f"python3 {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or later is not available on {', '.join(missing)}"
            if missing else None)


def choose_tool(test: str, wanted: str, c: HostProbe, s: HostProbe,
                spec: TestSpec | None = None) -> tuple[str | None, list[str]]:
    """``(tool or None, sentences)`` for ``test`` (or the catalogue ``spec``) from ``c`` to ``s``: netperf, else
    iperf3, else the agent (``auto``), or the ``wanted`` tool when it can run (else the automatic choice, said why)."""
    notes: list[str] = []
    label = spec.name if spec is not None else test
    if wanted != "auto":
        why = _can(wanted, test, c, s, spec)
        if why is None:
            return wanted, notes
        notes.append(f"{label} {c.name}→{s.name}: {why}")
    reasons = []
    for tool in ("netperf", "iperf3", "agent"):
        why = _can(tool, test, c, s, spec)
        if why is None:
            if wanted != "auto":
                notes[-1] += f"; it runs with {tool}"
            elif reasons:
                notes.append(f"{label} {c.name}→{s.name}: {reasons[0]}; it runs with {tool}")
            return tool, notes
        reasons.append(why)
    notes.append(f"{label} {c.name}→{s.name} cannot run: {'; '.join(reasons)}")
    return None, notes


def _agent_path(folder: str) -> str:
    return f"{folder}/{AGENT_NAME}"


def build_plan(request: RemoteRequest, probes: list[HostProbe], folders: dict[str, str],
               agent_text: str | None = None, leftovers: dict[str, tuple[str, ...]] | None = None,
               problems: list[str] | None = None) -> RemotePlan:
    """The plan for ``request`` on the probed hosts (in the request's order; a host without a usable
    address takes part in no test). ``folders``: the temporary folder name for each host name.
    ``agent_text``: the agent file (:func:`agent_script`), needed only when a test uses the agent.
    Pure apart from hashing."""
    notes = list(problems or [])
    for p in probes:
        notes.extend(p.problems)
    tests: list[PlannedTest] = []
    d = request.duration_s
    from .remote_esxi import plan_pair

    tokens = {h: f.rsplit("-", 1)[-1] for h, f in folders.items()}  # an ESXi host's copy is named by its run token
    esxi_plans: dict[str, EsxiHostPlan] = {}
    for i, c in enumerate(probes):
        for s in probes[i + 1:]:
            if c.address is None or s.address is None:
                continue
            down = [p.link_problem for p in (c, s) if p.link_up is False]
            if down:  # netperf would only say it could not connect: say which interface on which host is down
                notes.append(f"no test from {c.name} to {s.name}: {'; '.join(down)}")
                continue
            if "esxi" in (c.kind, s.kind):
                for item in request.specs or request.tests:
                    got = plan_pair(request, c, s, item, tokens, esxi_plans, notes)
                    if got is not None:
                        tests.append(got)
                continue
            for item in request.specs or request.tests:
                spec = item if isinstance(item, TestSpec) else None
                test = spec.test if spec is not None else str(item)
                secs = spec.duration_s if spec is not None else d
                payload = spec.payload if spec is not None else None
                tool, why = choose_tool(test, request.tool, c, s, spec)
                if tool == "agent" and agent_text is None:
                    why.append(f"{test} {c.name}→{s.name}: the agent file cannot be built; skipped")
                    tool = None
                notes.extend(why)
                if tool is None:
                    continue
                port = request.port
                bind = c.address if c.interface else None
                if tool == "netperf":
                    server = netperf.netserver_argv(s.address, port)
                    client = netperf.netperf_argv(test, s.address, port, secs, payload=payload,
                                                  extra=spec.options if spec is not None else ()) + ["-P", f",{port + 1}"]
                    if bind:
                        client = client[:1] + ["-L", bind] + client[1:]
                    ports: tuple[int, ...] = (port, port + 1)
                elif tool == "iperf3":
                    server = iperf3.server_argv(s.address, port)
                    client = iperf3.client_argv(test, s.address, port, secs,
                                                payload=payload if spec is not None and test.endswith("_STREAM") else None,
                                                streams=spec.streams if spec is not None else 1)
                    client += ["-B", bind] if bind else []
                    ports = (port,)
                else:
                    server = ["python3", _agent_path(folders[s.name]), "serve", "--bind", s.address, "--port", str(port)]
                    client = ["python3", _agent_path(folders[c.name]), "client", "--test", test, "--host", s.address,
                              "--port", str(port), "--duration", f"{secs:g}"]
                    if test == "TCP_RR" and payload and payload != 1:
                        client += ["--request", str(payload), "--response", str(payload)]
                    ports = (port,)
                busy = sorted(set(ports) & s.listening)
                if busy:
                    notes.append(f"{test} {c.name}→{s.name}: TCP port {', '.join(map(str, busy))} is already in use on "
                                 f"{s.name}; checked again before the test")
                tests.append(PlannedTest(client=c.name, server=s.name, test=test, tool=tool, client_addr=c.address,
                                         server_addr=s.address, server_argv=tuple(server), client_argv=tuple(client),
                                         ports=ports, spec=spec))
    checked = []
    kinds = {p.name: p.kind for p in probes}
    for t in tests:  # every command of the plan must pass the allowlist now, not halfway through the run
        pid = pidfile_path(folders.get(t.server) or folders.get(t.client) or "/tmp/nicadv-bench-0000000000000000", 0)
        try:
            for host, argv in ((t.server, t.server_argv), (t.client, t.client_argv)):
                check_remote(argv if kinds.get(host) == "esxi" else
                             ("sh", "-c", START_SCRIPT, "nicadv-start", pid, *argv))
        except RemoteCommandRefused as exc:
            notes.append(f"{t.test} {t.client}→{t.server} with {t.tool}: {exc}; skipped")
            continue
        checked.append(t)
    tests = checked
    used = {t.client for t in tests} | {t.server for t in tests}
    agent_hosts = frozenset({t.client for t in tests if t.tool == "agent"} | {t.server for t in tests if t.tool == "agent"})
    data = (agent_text or "").encode("utf-8")
    esxi_used = {h: p for h, p in esxi_plans.items() if h in used}
    return RemotePlan(tests=tuple(tests), folders={h: f for h, f in folders.items() if h in used and kinds.get(h) != "esxi"},
                      agent_hosts=agent_hosts, agent_sha256=hashlib.sha256(data).hexdigest() if agent_hosts else None,
                      agent_bytes=len(data) if agent_hosts else 0, leftovers=dict(leftovers or {}),
                      problems=tuple(dict.fromkeys(notes)), duration_s=d, esxi=esxi_used)


# --- undoing ---------------------------------------------------------------------------------------

# --- the run ---------------------------------------------------------------------------------------

class RemoteBench:
    """A benchmark between audited hosts (see the module docstring). Context manager: leaving it closes
    every SSH connection.

    ``known_hosts``: the host-key store (default the app's); ``ask(host, port, key_type, fingerprint)``
    decides first-contact keys no ``trusted_fingerprint`` covers; ``cancel``: set from any thread to
    stop the running test (its processes are stopped and every change undone, then
    :class:`~nicadvisor.bench.Cancelled` is raised); ``journal_dir``: where the undo journal lives.
    Raises ValueError for an invalid request.
    """

    def __init__(self, request: RemoteRequest, *, known_hosts: KnownHosts | None = None, ask: AskFn | None = None,
                 cancel: threading.Event | None = None, journal_dir: Path | str | None = None) -> None:
        request.validate()
        self.request = request
        self.known_hosts = known_hosts if known_hosts is not None else KnownHosts()
        self.ask = ask
        self.cancel = cancel if cancel is not None else threading.Event()
        self.journal_dir = journal_dir
        self.conns: dict[str, HostSession] = {}
        self.problems: list[str] = []
        """After :meth:`prepare`: the hosts that could not be reached or probed, as sentences (also in the plan)."""
        self.left_changed: list[str] = []
        """After :meth:`run` (also one cancelled): ``HOST left changed: …`` sentences of changes not put back."""
        self.probes: dict[str, HostProbe] = {}
        self.path_rtts: dict[tuple[str, str, str], path_rtt.PathRtt | str] = {}
        """After :meth:`run`: per ``(client, server, test name)`` of a one-way TCP_RR test, the path's ICMP echo round
        trip measured right before it, or why it is not known (:meth:`measure_path_rtt`)."""

    def __enter__(self) -> "RemoteBench":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every SSH connection (idempotent)."""
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()

    def connect(self, progress: Progress | None = None) -> list[str]:
        """Connect to every host not connected yet; returns the problems (one sentence per host that
        could not be reached). Raises :class:`Cancelled`."""
        say = progress or (lambda _f, _m: None)
        problems = []
        for host in self.request.hosts:
            if host.target.name in self.conns:
                continue
            if self.cancel.is_set():
                raise Cancelled()
            say(0.0, f"connecting to {host.target.source}")
            conn = HostSession(host)
            try:
                conn.connect(self.known_hosts, self.ask, self.cancel)
            except BenchError as exc:
                problems.append(str(exc))
                continue
            self.conns[host.target.name] = conn
        return problems

    def leftovers(self) -> dict[str, list[Entry]]:
        """Per connected host name, the journal rows an earlier run left there, newest first."""
        out: dict[str, list[Entry]] = {}
        for name, conn in self.conns.items():
            rows = orphaned_entries(self.journal_dir, conn.target.source)
            if rows:
                out[name] = list(reversed(rows))
        return out

    def pending_elsewhere(self) -> list[str]:
        """Sentences for rows of earlier runs on hosts that are not part of this run (left alone)."""
        mine = {c.target.source for c in self.conns.values()}
        by_host: dict[str, int] = {}
        for e in orphaned_entries(self.journal_dir):
            if e.host not in mine:
                by_host[e.host] = by_host.get(e.host, 0) + 1
        return [f"{n} change(s) an earlier benchmark made on {h} are still recorded; they are undone the next time "
                f"you benchmark with that host" for h, n in sorted(by_host.items())]

    def restore_leftovers(self) -> RestoreOutcome:
        """Undo (newest first) what crashed, killed or cancelled earlier runs left on the connected hosts.
        Never raises for a host's failure: rows that cannot be undone stay, listed in ``failed``."""
        outcome = RestoreOutcome()
        for name, rows in self.leftovers().items():
            done = undo_rows(self.journal_dir, rows, self._undoer(
                lambda entry, exc, name=name: f"{describe_entry(entry)} on {name}: {exc}"))
            outcome.undone += done.undone
            outcome.failed += done.failed
        return outcome

    def _undoer(self, lost_sentence: Callable[[Entry, Exception | None], str]) -> Callable[[Entry], tuple[bool, str]]:
        """The remote backend of :func:`nicadvisor.bench.journal.undo_rows`: each row undone over the SSH session to
        its host (:func:`undo_entry`); a row of a host not connected, or lost during the undo (then its later rows
        are not tried), is not done, with ``lost_sentence(entry, error or None)``."""
        by_source = {c.target.source: c for c in self.conns.values()}
        lost: set[str] = set()

        def undo(entry: Entry) -> tuple[bool, str]:
            conn = by_source.get(entry.host)
            if conn is None or entry.host in lost:
                return False, lost_sentence(entry, None)
            try:
                return undo_entry(conn, entry)
            except (RemoteHostLost, BenchError) as exc:
                lost.add(entry.host)
                return False, lost_sentence(entry, exc)
        return undo

    def prepare(self, progress: Progress | None = None) -> RemotePlan:
        """Connect, probe every host (read-only) and return the plan; changes nothing on any host.
        Raises :class:`Cancelled`; hosts that cannot be reached or probed are problems of the plan."""
        say = progress or (lambda _f, _m: None)
        problems = self.connect(progress)
        probes = []
        for host in self.request.hosts:
            conn = self.conns.get(host.target.name)
            if conn is None:
                continue
            say(0.0, f"probing {conn.name}")
            try:
                probes.append(probe_esxi(conn, self.cancel, self.request.run_tests) if conn.target.kind == "esxi"
                              else probe_host(conn, self.cancel))
            except (RemoteHostLost, BenchError) as exc:
                problems.append(f"{conn.name} could not be probed: {exc}")
        if len(probes) < 2:
            problems.append("fewer than two hosts could be reached: no test can run")
        self.problems = list(problems)  # who could not be reached or probed: what a read-only check reports too
        problems += self.pending_elsewhere()
        try:
            agent_text: str | None = agent_script()
        except BenchError as exc:
            agent_text = None
            problems.append(str(exc))
        self.probes = {p.name: p for p in probes}
        folders = {p.name: f"/tmp/nicadv-bench-{secrets_hex()}" for p in probes}
        leftovers = {name: tuple(describe_entry(e) for e in rows) for name, rows in self.leftovers().items()}
        self._agent_text = agent_text
        return build_plan(self.request, probes, folders, agent_text, leftovers, problems)

    def mesh_endpoints(self, audited_teps: dict[str, list[mtu_path.Endpoint]] | None = None
                       ) -> list[mtu_path.Endpoint]:
        """After :meth:`prepare`: the ends of the TEP mesh in host order: each ESXi host's TEP vmknics (from its live
        ``esxcfg-vmknic -l``, else from ``audited_teps[host name]``: its audited facts), each Linux host's test
        address with its interface and MTU."""
        out: list[mtu_path.Endpoint] = []
        for p in self.probes.values():
            if p.kind == "esxi":
                out += list(p.teps) or list((audited_teps or {}).get(p.name, []))
            elif p.address:
                out.append(mtu_path.Endpoint(p.name, "linux", p.interface or "", p.address, p.mtu))
        return out

    def check_mtu_paths(self, progress: Progress | None = None,
                        audited_teps: dict[str, list[mtu_path.Endpoint]] | None = None) -> list[PathTest]:
        """After :meth:`prepare`: the TEP mesh (:mod:`nicadvisor.bench.mtu_path`): from every end of
        :meth:`mesh_endpoints` to every end on another host, don't-fragment pings at the sender's MTU and at 1600
        bytes, and at 56 bytes after a size got no reply — ``vmkping ++netstack=vxlan -I vmkN`` from an ESXi TEP,
        ``ping -M do`` from a Linux host (read-only: nothing is started or changed but the ping). Rows in sender
        order. Raises :class:`Cancelled`; a host lost gives rows that did not run."""
        say = progress or (lambda _f, _m: None)
        ends = self.mesh_endpoints(audited_teps)
        pairs = [(a, b) for a in ends for b in ends if a.host != b.host]
        out: list[PathTest] = []
        for i, (a, b) in enumerate(pairs):
            if self.cancel.is_set():
                raise Cancelled()
            say(i / max(1, len(pairs)), f"TEP mesh {a.host} {a.interface} → {b.host} {b.interface or b.address}")
            down = [p for p in (self.probes.get(a.host), self.probes.get(b.host))
                    if p is not None and p.kind == "linux" and p.link_up is False]
            if down:  # no ping can cross it: say which interface on which host is down rather than "no reply"
                out.append(mtu_path.link_down_row(
                    a, b, "; ".join(p.link_problem for p in down),
                    "; ".join(f"ip -o link show dev {p.interface}   # on {p.name}" for p in down)))
                continue

            def run(argv: tuple[str, ...], host: str = a.host) -> tuple[int | None, str]:
                if self.cancel.is_set():
                    raise Cancelled()
                try:
                    got = self._conn(host).run(argv, cancel=self.cancel)
                except (RemoteHostLost, BenchError, RemoteCommandRefused) as exc:
                    return None, str(exc)
                return got.rc, got.out + got.err

            out += mtu_path.probe_pair(a, b, run)
        say(1.0, "done")
        return out

    def measure_path_rtt(self, pt: PlannedTest) -> path_rtt.PathRtt | str:
        """The ICMP echo round trip of ``pt``'s path right before it: ``ping -c 50 -A -W 1 -s 56`` from the
        client's test address to the server's (read-only, adaptive echoes: under a second), as :class:`~nicadvisor.bench.path_rtt.PathRtt`,
        or a sentence saying why it is not known (no reply, the ping failed or is not installed, host lost). Kept in
        :attr:`path_rtts` under ``(client, server, test name)``. Raises :class:`Cancelled`."""
        if self.cancel.is_set():
            raise Cancelled()
        argv = path_rtt.ping_argv(pt.client_addr, pt.server_addr)
        command = f"{shlex.join(argv)}   # on {pt.client}"
        got: path_rtt.PathRtt | str
        try:
            out = self._conn(pt.client).run(argv, cancel=self.cancel)
        except (RemoteHostLost, BenchError) as exc:
            got = f"{command} could not run: {exc}"
        else:
            if out.rc == 127:
                got = f"ping is not installed on {pt.client}"
            else:
                text = out.out + out.err
                got = path_rtt.parse_ping(text, pt.client, pt.server, command) or \
                    path_rtt.ping_problem(out.rc, text, command, pt.server_addr)
        self.path_rtts[(pt.client, pt.server, pt.spec.name if pt.spec is not None else pt.test)] = got
        return got

    def run(self, plan: RemotePlan, progress: Progress | None = None) -> BenchReport:
        """Run ``plan`` (from :meth:`prepare` of this object, after the user confirmed it) and return the
        report: results in plan order (``path`` ``"remote"``, ``expected`` None), problems as sentences
        (one per test that failed; the others still run). Every change is journaled before it is made and
        undone before returning or raising. Raises :class:`Cancelled`, OSError when the
        journal cannot be written (then nothing is changed)."""
        say = progress or (lambda _f, _m: None)
        problems = list(plan.problems)
        restored = self.restore_leftovers()
        problems += [f"cleaned up after an earlier run: {s}" for s in restored.undone]
        problems += [f"could not clean up after an earlier run: {s}" for s in restored.failed]
        results: list[BenchResult] = []
        from .remote_esxi import EsxiRunState

        journal = Journal(self.journal_dir)
        made: dict[str, str] = {}
        counter = [0]
        self._esxi_state = EsxiRunState()
        try:
            n = max(1, len(plan.tests))
            for i, pt in enumerate(plan.tests):
                if self.cancel.is_set():
                    raise Cancelled()
                say(i / n, pt.label)

                secs = pt.duration_s or plan.duration_s
                try:
                    self._check_links(pt)
                    for host in (pt.server, pt.client):
                        if host in plan.folders:  # an ESXi host gets no folder: its changes are of remote_esxi
                            self._folder(journal, plan, host, made)
                    rtt = None
                    if pt.test == "TCP_RR" and (pt.spec is None or pt.spec.direction == "send"):
                        say(i / n, f"round trip {pt.client} → {pt.server} (ping, read-only)")
                        rtt = self.measure_path_rtt(pt)  # right before the test it is judged with
                    runs = []
                    for k in range(pt.repetitions):
                        def on_tick(elapsed: float, i: int = i, label: str = pt.label, k: int = k) -> None:
                            done = (k * secs + elapsed) / (secs * pt.repetitions)
                            say(min(i + min(done, 0.99), n) / n, label)

                        runs.append(self._one(journal, plan, pt, counter, on_tick, problems))
                    result = combine_repetitions(pt.spec, runs) if pt.spec is not None else runs[0]
                    if rtt is not None:  # the echo's evidence stays with the result it judges
                        evidence = rtt.output if isinstance(rtt, path_rtt.PathRtt) else rtt
                        command = rtt.command if isinstance(rtt, path_rtt.PathRtt) else "the path round trip"
                        result = replace(result, raw=f"# {command}\n{evidence.rstrip()}\n# ---\n{result.raw}")
                    results.append(result)
                except (RemoteHostLost, BenchError, RemoteCommandRefused) as exc:
                    problems.append(f"{pt.label}: {exc}")
            say(1.0, "done")
        finally:
            problems += self._undo_run(journal)
            self.left_changed = self._left_changed(journal)  # also read after a Cancelled leaves this method
            journal.close()
        return BenchReport(results=results, problems=problems, left_changed=list(self.left_changed))

    # --- steps -----------------------------------------------------------------------------------
    def _check_links(self, pt: PlannedTest) -> None:
        """Read the link state of both ends' test interfaces right before ``pt`` (read-only, ``ip -o link show dev
        IF``). Raises :class:`BenchError` naming the interface and host whose link is down, so that the test is not
        started (netperf would only say that it could not establish its control connection)."""
        down = []
        for name in (pt.client, pt.server):
            probe = self.probes.get(name)
            if probe is None or not probe.interface:
                continue
            conn = self._conn(name)
            got = conn.run((conn.ip_path, "-o", "link", "show", "dev", probe.interface), cancel=self.cancel)
            up, why = parse_link_state(got.out) if got.rc == 0 else (None, "")
            if up is False:
                down.append(f"the link of {probe.interface} on {name} {why}")
        if down:
            raise BenchError("not started: " + "; ".join(down))

    def _conn(self, name: str) -> HostSession:
        conn = self.conns.get(name)
        if conn is None:
            raise RemoteHostLost(f"{name} is not connected")
        return conn

    def _folder(self, journal: Journal, plan: RemotePlan, host: str, made: dict[str, str]) -> None:
        if host in made:
            return
        conn, folder = self._conn(host), plan.folders[host]
        entry = journal.record("folder", host=conn.target.source, path=folder)
        res = conn.run(("mkdir", "-m", "700", folder))
        if res.rc != 0:
            journal.done(entry)  # nothing was made: the folder is not ours to remove
            raise BenchError(f"cannot create {folder} on {host}: {first_line(res.err) or f'exit status {res.rc}'}")
        made[host] = folder
        if host in plan.agent_hosts:
            data = (self._agent_text or "").encode("utf-8")
            path = _agent_path(folder)
            res = conn.run(("sh", "-c", COPY_SCRIPT, "nicadv-copy", path), stdin=data)
            check = conn.run(("sha256sum", path))
            digest = check.out.split()[0] if check.rc == 0 and check.out.split() else ""
            if res.rc != 0 or digest != plan.agent_sha256:
                raise BenchError(f"copying {AGENT_NAME} to {host} failed "
                                 f"({first_line(res.err) or 'the copy differs from the original'})")

    def _one(self, journal: Journal, plan: RemotePlan, pt: PlannedTest, counter: list[int],
             on_tick: Callable[[float], None], problems: list[str]) -> BenchResult:
        if pt.server in plan.esxi or pt.client in plan.esxi:
            from .remote_esxi import run_one

            return run_one(self, journal, plan, pt, counter, on_tick, problems, self._esxi_state)
        server, client = self._conn(pt.server), self._conn(pt.client)
        listening: set[int] = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            got = server.run(("cat", table), cancel=self.cancel)
            if got.rc == 0:
                listening |= listening_ports(got.out)
        busy = sorted(set(pt.ports) & listening)
        if busy:
            raise BenchError(f"TCP port {', '.join(map(str, busy))} is already in use on {pt.server} (another program "
                             "listens there); the test was not started")
        counter[0] += 1
        srv = StartedProcess(server, journal, pt.server_argv, pidfile_path(plan.folders[pt.server], counter[0]))
        counter[0] += 1
        cli_pidfile = pidfile_path(plan.folders[pt.client], counter[0])
        try:
            with srv:
                self._wait_listening(server, srv, pt)
                cli = StartedProcess(client, journal, pt.client_argv, cli_pidfile)
                try:
                    with cli:
                        rc, out, err = wait_channel(cli.chan, (pt.duration_s or plan.duration_s) + 20, self.cancel,
                                                    name=pt.client,
                                                    what=shlex.join(pt.client_argv), on_tick=on_tick)
                        server_out = srv.output() if srv.exited() else ""
                finally:
                    problems.extend(cli.problems)
        finally:
            problems.extend(srv.problems)
        return self._result(pt, rc, out, err, server_out)

    def _wait_listening(self, conn: HostSession, srv: StartedProcess, pt: PlannedTest) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        what = shlex.join(pt.server_argv[:1])
        while True:
            if srv.exited():
                text = first_line("\n".join(reversed(srv.output().strip().splitlines())))
                raise BenchError(f"{what} on {pt.server} exited (status {srv.chan.exit_status}) before listening on "
                                 f"TCP {pt.ports[0]}" + (f": {text}" if text else ""))
            ports: set[int] = set()
            for table in ("/proc/net/tcp", "/proc/net/tcp6"):
                got = conn.run(("cat", table), cancel=self.cancel)
                if got.rc == 0:
                    ports |= listening_ports(got.out)
            if pt.ports[0] in ports:
                return
            if self.cancel.is_set():
                raise Cancelled()
            if time.monotonic() > deadline:
                raise BenchError(f"{what} on {pt.server} did not listen on TCP {pt.ports[0]} within "
                                 f"{READY_TIMEOUT_S:g} s")
            time.sleep(0.05)

    def _result(self, pt: PlannedTest, rc: int | None, out: str, err: str, server_out: str) -> BenchResult:
        where = (f"{pt.client} ({pt.client_addr}) → {pt.server} ({pt.server_addr}) over their own network, run over "
                 "SSH")
        command = f"{shlex.join(pt.client_argv)}   # on {pt.client}"
        last = first_line("\n".join(reversed((err.strip() or out.strip() or server_out.strip()).splitlines())))
        detail = f": {last}" if last else ""
        raw = out if not err.strip() else out + "\n# stderr:\n" + err
        if pt.tool == "netperf":
            values = netperf.parse_omni(out)
            bidir = pt.spec is not None and pt.spec.direction == "bidirectional"
            measures = netperf.omni_measures(values, pt.test, bidirectional=bidir)  # as the local run reads them
            if rc != 0 or (measures["throughput_gbps"] is None and measures["transactions_per_s"] is None):
                raise BenchError(f"netperf printed no result line (exit status {rc}){detail}")
            if measures["duration_s"] is None:
                measures["duration_s"] = float(max(1, round(pt.duration_s or self.request.duration_s)))
            return BenchResult(test=pt.test, tool="netperf", path=PATH, expected=None, raw=raw, command=command,
                               endpoints=where, client=pt.client, server=pt.server, **measures)
        if pt.tool == "iperf3":
            parsed = iperf3.parse_iperf3(out)
            if rc != 0 or parsed["gbps"] is None:
                raise BenchError(f"iperf3 gave no result (exit status {rc}): {parsed['error'] or last or 'no output'}")
            seconds = parsed["seconds"] if isinstance(parsed["seconds"], (int, float)) else (pt.duration_s or self.request.duration_s)
            return BenchResult(test=pt.test, tool="iperf3", path=PATH, throughput_gbps=parsed["gbps"],
                               transactions_per_s=None, latency_us=None, duration_s=float(seconds), expected=None,
                               raw=raw, command=command, endpoints=where, client=pt.client, server=pt.server,
                               loss_pct=parsed["lost_percent"] if pt.test == "UDP_STREAM" else None,
                               local_cpu_pct=parsed["local_cpu_pct"], remote_cpu_pct=parsed["remote_cpu_pct"])
        data = agent.parse_client_output(out)
        if rc != 0 or data is None:
            raise BenchError(f"the agent printed no result line (exit status {rc}){detail}")
        elapsed = float(data.get("elapsed_s") or pt.duration_s or self.request.duration_s)
        if pt.test == "TCP_STREAM" and isinstance(data.get("gbps"), (int, float)):
            return BenchResult(test=pt.test, tool="agent", path=PATH, throughput_gbps=float(data["gbps"]),
                               transactions_per_s=None, latency_us=None, duration_s=elapsed, expected=None, raw=raw,
                               command=command, endpoints=where, client=pt.client, server=pt.server)
        tps = data.get("transactions_per_s")
        if pt.test == "TCP_RR" and isinstance(tps, (int, float)) and tps > 0:
            return BenchResult(test=pt.test, tool="agent", path=PATH, throughput_gbps=None,
                               transactions_per_s=float(tps), latency_us=1e6 / float(tps), duration_s=elapsed,
                               expected=None, raw=raw, command=command, endpoints=where, client=pt.client,
                               server=pt.server)
        raise BenchError(f"the agent gave no {pt.test} figure: {out.strip()[-200:]}")

    def _undo_run(self, journal: Journal) -> list[str]:
        def lost(entry: Entry, exc: Exception | None) -> str:
            if exc is None:
                return (f"could not undo {describe_entry(entry)} on {entry.host}: not connected; it is undone the "
                        "next time you benchmark with that host")
            return (f"could not undo {describe_entry(entry)} on {self._host_name(entry.host)}: {exc}; it is undone "
                    "the next time you benchmark with that host")

        outcome = journal.undo_all(self._undoer(lost), host=None)
        return [s if s.startswith("could not undo ") else f"could not undo: {s}" for s in outcome.failed]

    def _left_changed(self, journal: Journal) -> list[str]:
        """One ``HOST left changed: …`` sentence per row of this run that could not be undone (a restore that failed
        or hung): the host, the change, the exact command to undo it by hand; the row stays in the journal, so the
        next benchmark with that host undoes it first (issue 29 §4)."""
        return [f"HOST left changed: {self._host_name(e.host)}: {describe_entry(e)}; undo it by hand there with: "
                f"{undo_by_hand(e)} (the next benchmark with that host tries again first)"
                for e in journal.entries(None)]

    def _host_name(self, source: str) -> str:
        return next((c.name for c in self.conns.values() if c.target.source == source), source)


def secrets_hex() -> str:
    """16 random hex digits naming a run's folder on a host."""
    return secrets.token_hex(8)

