"""Read-only audit of ESXi and Linux hosts over SSH (paramiko), many hosts at once, safely.

* One :class:`paramiko.SSHClient` per host, created, used and closed by one worker thread (never shared,
  paramiko #709/#1904, architecture-anchors.md §3.3); a bounded :class:`ThreadPoolExecutor` runs hosts in
  parallel (``max_workers``).
* Host keys: the app's own store, :class:`~nicadvisor.collect.known_hosts.KnownHosts` (trust on first
  use only with a fingerprint given by the caller or a yes from ``ask``; a changed key is refused).
* Authentication: a private key (``key_filename``), and/or a password sent through
  keyboard-interactive — the only password method ESXi offers; rounds with zero prompts are answered
  with zero responses — falling back to the ``password`` method only when the server does not offer
  keyboard-interactive (a refused password is not tried twice: ESXi locks accounts after failures).
  No agent, no ``~/.ssh`` keys are used.
* Timeouts: TCP connect, SSH banner and authentication (``connect_timeout_s``); each command has a
  deadline (``command_timeout_s``): channel open timeout, a timer closing the channel when the server
  never acknowledges the exec request, then the receive loop (``select`` on the channel, deadline check).
  A command past its deadline is a problem of that command; the host's other commands still run.
  Setting ``cancel`` closes every open transport, so a blocked read returns.
* Only commands of :mod:`nicadvisor.collect.ssh_commands` are sent (checked again just before sending).
  ESXi: the NIC names and driver modules come from ``esxcli network nic list`` (run first), then the
  host, per-NIC and per-module commands run. Linux: the same read-only queries as the local collector
  (:mod:`nicadvisor.collect.local_linux`: sysfs, ``ip -d -j link show``, ``ethtool``) per interface of
  ``/sys/class/net`` except ``lo``, then once the LLDP neighbours (``lldpctl -f json``, ``networkctl --no-pager
  --full lldp``: a host without them skips them).
* Each command's output becomes a :class:`~nicadvisor.parsers.capture_file.Capture` (``command`` = the
  exact command line sent, ``host`` = the target's name, ``source``/``origin`` = ``ssh://user@host:port``),
  so :func:`save_captures` writes capture files that replay through :func:`nicadvisor.collect.sources.gather`.
  Passwords are never stored in a capture, a problem message, a log line or a ``repr``.

Errors of one host (unreachable, refused, timeout, host key unknown or changed, wrong password or key,
connection closed mid-command, binary output, a command refused or partly refused to an account without
the privilege: ``Permission denied`` / ``Operation not permitted``) become
:class:`~nicadvisor.model.InputProblem` entries with a clear message; the other hosts continue.
"""
from __future__ import annotations

import errno
import hashlib
import logging
import re
import select
import shlex
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import paramiko
from paramiko.auth_strategy import AuthFailure, AuthSource, AuthStrategy, InMemoryPrivateKey
from paramiko.ssh_exception import NoValidConnectionsError

from nicadvisor.atomic_file import check_no_planted_link, write_text
from nicadvisor.collect import local_linux
from nicadvisor.parsers.assemble import HostInputs
from nicadvisor.parsers.capture_file import DENIED_RE, MAX_CAPTURE_BYTES, TIMEOUT_NOTE, Capture, exit_note, one_line
from nicadvisor.collect.known_hosts import AskFn, HostKeyError, KnownHosts, KnownHostsError, fingerprint
from nicadvisor.collect.ssh_commands import (
    ESXI_NIC_LIST, ESXI_NIC_RE, HOST_KINDS, LINUX_IF_RE, LINUX_TOOL_PATHS, MODULE_RE, CommandRefused, Template,
    check, esxi_command, esxi_templates, pci_numbers,
)
from nicadvisor.model import InputProblem
from nicadvisor.parsers.base import natural_key
from nicadvisor.parsers.registry import parse_output

ProgressFn = Callable[[str], None]

log = logging.getLogger(__name__)
# paramiko's transport thread logs a failed handshake (a banner timeout, a reset) with its traceback at ERROR; with
# no handler configured, Python's last-resort handler printed those tracebacks on stderr of the CLI and the wizard.
# The failure reaches the caller as an exception and becomes one sentence (_connect_problem).
logging.getLogger("paramiko").addHandler(logging.NullHandler())

_HOST_RE = re.compile(r"^[A-Za-z0-9_.:%-]{1,253}\Z")
_USER_RE = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.@-]{0,63}\Z")


@dataclass(frozen=True, kw_only=True)
class SshTarget:
    """One host to audit over SSH.

    ``kind`` is ``esxi`` or ``linux``; ``password`` (never shown in ``repr``) and/or ``key_filename``
    (an unencrypted OpenSSH/PEM private key) authenticate ``user``; ``trusted_fingerprint``
    (``SHA256:...``) trusts the host key on first contact. Timeouts in seconds. Raises ValueError for
    an invalid host, user, port, kind, timeout, or when neither password nor key is given.
    """

    host: str
    port: int = 22
    user: str
    kind: str
    password: str | None = field(default=None, repr=False, compare=False)
    key_filename: str | None = None
    trusted_fingerprint: str | None = None
    connect_timeout_s: float = 10.0
    command_timeout_s: float = 30.0

    def __post_init__(self) -> None:
        if self.kind not in HOST_KINDS:
            raise ValueError(f"--kind must be one of {', '.join(HOST_KINDS)}, not {self.kind!r}")
        if not _HOST_RE.match(self.host or ""):
            raise ValueError(f"invalid host name or address: {self.host!r}")
        if not _USER_RE.match(self.user or ""):
            raise ValueError(f"invalid user name: {self.user!r}")
        if not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise ValueError(f"invalid port: {self.port!r}")
        if self.connect_timeout_s <= 0 or self.command_timeout_s <= 0:
            raise ValueError("timeouts must be positive")
        if self.password is None and not self.key_filename:
            raise ValueError(f"{self.user}@{self.host}: give a password or a key file")

    @property
    def name(self) -> str:
        """The host's name in the audit: ``host``, or ``host:port`` for a port other than 22."""
        return self.host if self.port == 22 else f"{self.host}:{self.port}"

    @property
    def source(self) -> str:
        """``ssh://user@host:port`` (IPv6 addresses in brackets); never holds a secret."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ssh://{self.user}@{host}:{self.port}"

    @classmethod
    def parse(cls, spec: str, kind: str, **kwargs) -> "SshTarget":
        """``user@host[:port]`` (``user@[v6addr]:port`` for IPv6) plus the other fields as keywords.
        Raises ValueError for a malformed ``spec``."""
        user, host, port = parse_ssh_spec(spec)
        return cls(host=host, port=port, user=user, kind=kind, **kwargs)


def parse_ssh_spec(spec: str) -> tuple[str, str, int]:
    """``"root@esxi-a:2222"`` → ``("root", "esxi-a", 2222)``; port 22 when absent. Raises ValueError."""
    m = re.fullmatch(r"(?P<user>[^@\s]+)@(?:\[(?P<v6>[0-9A-Fa-f:.%]+)\]|(?P<host>[^:\s\[\]]+))(?::(?P<port>\d{1,5}))?",
                     spec.strip())
    if not m:
        raise ValueError(f"expected user@host[:port], not {spec!r}")
    port = int(m.group("port") or 22)
    if m.group("host"):
        check_host_name(m.group("host"))
    return m.group("user"), m.group("v6") or m.group("host"), port


_LABEL_RE = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?")


def check_host_name(host: str) -> None:
    """Raise ValueError, in a sentence, unless ``host`` is an IPv4 address or a DNS name: dot-separated labels of 1 to
    63 letters, digits, ``-`` or ``_`` (not starting or ending with ``-``), 253 characters in all (RFC 1035 §2.3.4,
    RFC 1123 §2.1). ``user@bad/host`` was accepted and failed only in the audit, and a 70-character label failed
    there as "encoding with 'idna' codec failed (UnicodeError: label too long)"."""
    name = host[:-1] if host.endswith(".") else host
    if len(name) > 253:
        raise ValueError(f"the host name {host[:40]}… has {len(name)} characters; a DNS name has at most 253")
    for label in name.split("."):
        if len(label) > 63:
            raise ValueError(f"the host name {host!r} has a part of {len(label)} characters ({label[:20]}…); each "
                             "dot-separated part of a DNS name has at most 63")
        if not _LABEL_RE.fullmatch(label):
            raise ValueError(f"{host!r} is not a host name: use letters, digits, '-' and '.' (no empty part, no "
                             "'/' or other sign), or an IP address")


@dataclass
class SshCollection:
    """What :func:`collect_ssh` read.

    ``hosts``: one :class:`HostInputs` per host that could be audited (``kind`` set; its ``problems``
    hold that host's command-level problems: timeouts, connection lost mid-audit, binary output, failed
    required commands). ``problems``: hosts that gave nothing (unreachable, host key, authentication,
    cancelled before start). ``skipped``: optional commands the host does not have or that gave no output
    (``esxcfg-nics -e`` without NSX) — informational.
    """

    hosts: list[HostInputs] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def all_problems(self) -> list[InputProblem]:
        """``problems`` plus every host's own problems."""
        return self.problems + [p for h in self.hosts for p in h.problems]


# --- authentication ------------------------------------------------------------------------------

class _PasswordAuth(AuthSource):
    """Password through keyboard-interactive (answering every prompt with the password, zero prompts
    with zero responses), or through the ``password`` method when keyboard-interactive is not offered."""

    def __init__(self, username: str, password: str) -> None:
        super().__init__(username=username)
        self._password = password
        self.method = "keyboard-interactive"

    def __repr__(self) -> str:
        return self._repr(user=self.username)

    def authenticate(self, transport: paramiko.Transport) -> list[str]:
        def answer(_title: str, _instructions: str, prompts: list[tuple[str, bool]]) -> list[str]:
            return [self._password for _ in prompts]

        try:
            return transport.auth_interactive(self.username, answer)
        except paramiko.BadAuthenticationType as exc:
            if "password" not in (exc.allowed_types or []):
                raise
        self.method = "password"
        return transport.auth_password(self.username, self._password, fallback=False)


class _Strategy(AuthStrategy):
    def __init__(self, user: str, pkey: paramiko.PKey | None, password: str | None) -> None:
        super().__init__(ssh_config=paramiko.SSHConfig())
        self.user = user
        self.pkey = pkey
        self.password = password

    def get_sources(self):
        if self.pkey is not None:
            yield InMemoryPrivateKey(self.user, self.pkey)
        if self.password is not None:
            yield _PasswordAuth(self.user, self.password)


def _auth_message(target: SshTarget, exc: AuthFailure) -> str:
    parts = []
    for source, result in exc.result:
        what = "the key" if isinstance(source, InMemoryPrivateKey) else "the password"
        if isinstance(result, paramiko.BadAuthenticationType):
            offered = ", ".join(result.allowed_types or []) or "none"
            parts.append(f"{what} cannot be used (the server offers: {offered})")
        elif isinstance(result, paramiko.AuthenticationException):
            parts.append(f"{what} was refused")
        elif isinstance(result, Exception):
            parts.append(f"{what}: {type(result).__name__}: {result}")
    return f"authentication of {target.user}@{target.name} failed: " + ("; ".join(parts) or "refused")


# --- one session ---------------------------------------------------------------------------------

class _KeyFileError(Exception):
    """The private key file cannot be used (missing, unreadable, encrypted, unknown format)."""


class _SessionLost(Exception):
    """The SSH connection ended (sshd stopped, network dropped) while a command ran."""


class _CommandTimeout(Exception):
    """A command did not finish within its deadline (its channel was closed)."""


class _Cancelled(Exception):
    """The audit was cancelled while a command ran."""


def exec_within(chan: paramiko.Channel, command: str, timeout_s: float, *, pty: bool = False,
                expired: threading.Event | None = None) -> bool:
    """Request a pseudo-terminal (``pty``) and the execution of ``command`` on ``chan``, waiting at most
    ``timeout_s`` seconds in total for the server's acknowledgements. paramiko waits for them with no timeout
    (``Channel._wait_for_event``): a server that never answers would block here forever. At the deadline a timer
    closes the channel, which wakes that wait (SSHException "Channel closed.").

    Returns True when the deadline closed the channel (``expired`` is then set too: a later error of the closed
    channel is that timeout), False once the command started. Raises paramiko's SSHException, OSError or EOFError
    when the server refused or the session broke before the deadline."""
    expired = expired if expired is not None else threading.Event()

    def expire() -> None:
        expired.set()
        try:  # sends the channel's EOF/close: fails when the worker closed the session meanwhile
            chan.close()
        except (paramiko.SSHException, OSError, EOFError) as exc:
            log.debug("closing the timed-out channel of %r failed: %r", command, exc)

    timer = threading.Timer(max(timeout_s, 0.0), expire)
    timer.daemon = True
    timer.start()
    try:
        if pty:
            chan.get_pty(term="dumb", width=200, height=24)
        chan.exec_command(command)
    except (paramiko.SSHException, OSError, EOFError):
        if not expired.is_set():
            raise
    finally:
        timer.cancel()
    return expired.is_set()


@dataclass
class _Result:
    rc: int | None
    stdout: bytes
    stderr: bytes
    truncated: bool = False


class _OpenSessions:
    """The sessions of running workers, so a cancel can abort them from the watcher thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: set[_Session] = set()

    def add(self, session: "_Session") -> None:
        with self._lock:
            self._sessions.add(session)

    def discard(self, session: "_Session") -> None:
        with self._lock:
            self._sessions.discard(session)

    def abort_all(self) -> None:
        with self._lock:
            sessions = list(self._sessions)
        for s in sessions:
            s.abort()


class _Session:
    """One host's SSH connection, owned by one worker thread."""

    def __init__(self, target: SshTarget, cancel: threading.Event, opened: _OpenSessions) -> None:
        self.target = target
        self.cancel = cancel
        self.opened = opened
        self.client = paramiko.SSHClient()
        self.sock: socket.socket | None = None

    def connect(self, known_hosts: KnownHosts, ask: AskFn | None) -> None:
        """Connect and authenticate. Raises OSError, paramiko.SSHException (HostKeyError,
        BadHostKeyException, AuthFailure), ValueError for a malformed trusted fingerprint."""
        t = self.target
        pkey = None
        if t.key_filename:
            try:
                pkey = paramiko.PKey.from_path(t.key_filename)
            except paramiko.PasswordRequiredException:
                raise _KeyFileError(f"the key file {t.key_filename} is encrypted with a passphrase; "
                                    "use an unencrypted key dedicated to auditing") from None
            except (OSError, ValueError, paramiko.SSHException) as exc:
                raise _KeyFileError(f"cannot read the key file {t.key_filename}: "
                                    f"{getattr(exc, 'strerror', None) or exc}") from None
        known_hosts.load_into(self.client, t.host, t.port)
        self.client.set_missing_host_key_policy(known_hosts.policy(t.host, t.port, t.trusted_fingerprint, ask))
        self.opened.add(self)
        # Our own socket: TCP_NODELAY (without it every channel open waits ~40 ms for a delayed ACK).
        self.sock = socket.create_connection((t.host, t.port), timeout=t.connect_timeout_s)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.cancel.is_set():
            raise _Cancelled()
        self.client.connect(
            # with our socket, ``timeout`` bounds the key exchange only; it must outlast the banner timeout,
            # else paramiko gives up silently first and reports "No existing session"
            t.host, port=t.port, username=t.user, sock=self.sock, timeout=2 * t.connect_timeout_s,
            banner_timeout=t.connect_timeout_s,
            auth_timeout=t.connect_timeout_s, channel_timeout=t.command_timeout_s, allow_agent=False,
            look_for_keys=False, auth_strategy=_Strategy(t.user, pkey, t.password),
        )

    def abort(self) -> None:
        """Close the transport and socket (from any thread): blocked reads of the worker return."""
        self.client.close()
        sock = self.sock
        if sock is not None:
            sock.close()

    def close(self) -> None:
        self.opened.discard(self)
        self.abort()

    def run(self, command: str) -> _Result:
        """Run one command (already checked against the allowlist) with the target's deadline.

        Raises _SessionLost, _CommandTimeout, _Cancelled.
        """
        timeout = self.target.command_timeout_s
        deadline = time.monotonic() + timeout
        transport = self.client.get_transport()
        if transport is None or not transport.is_active():
            raise _Cancelled() if self.cancel.is_set() else _SessionLost()
        try:
            chan = transport.open_session(timeout=timeout)
        except (paramiko.SSHException, OSError, EOFError) as exc:
            if self.cancel.is_set():
                raise _Cancelled() from None
            if not transport.is_active():
                raise _SessionLost() from None
            raise _SessionLost(f"the server refused a new channel: {exc}") from None
        out, err = bytearray(), bytearray()
        truncated = False
        expired = threading.Event()
        try:
            if exec_within(chan, command, deadline - time.monotonic(), expired=expired):
                raise _CommandTimeout()
            while True:
                got = False
                while chan.recv_ready():
                    data = chan.recv(65536)
                    if not data:
                        break
                    out += data
                    got = True
                while chan.recv_stderr_ready():
                    data = chan.recv_stderr(65536)
                    if not data:
                        break
                    err += data
                    got = True
                if len(out) + len(err) > MAX_CAPTURE_BYTES:
                    truncated = True
                    break
                # the exit status can arrive before the last of stdout (sshd reports the child's exit as
                # soon as it is reaped, while its pipe may still hold output): done only at EOF or close,
                # with both buffers drained and the status in
                if ((chan.eof_received or chan.closed) and chan.exit_status_ready()
                        and not chan.recv_ready() and not chan.recv_stderr_ready()):
                    break
                if self.cancel.is_set():
                    raise _Cancelled()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _CommandTimeout()
                if not got:
                    if chan.eof_received:
                        chan.status_event.wait(min(0.2, remaining))
                    else:
                        select.select([chan], [], [], min(0.2, remaining))
        except (paramiko.SSHException, OSError, EOFError) as exc:
            if self.cancel.is_set():
                raise _Cancelled() from None
            if expired.is_set():
                raise _CommandTimeout() from None
            raise _SessionLost(str(exc)) from None
        finally:
            chan.close()
        if self.cancel.is_set() and chan.exit_status == -1:
            raise _Cancelled()
        if chan.exit_status == -1 and not truncated and not transport.is_active():
            raise _SessionLost()
        rc = None if chan.exit_status == -1 else chan.exit_status
        return _Result(rc, bytes(out), bytes(err), truncated)


# --- what is run on one host ---------------------------------------------------------------------

class _HostAudit:
    def __init__(self, target: SshTarget, session: _Session, say: ProgressFn, skipped: list[str]) -> None:
        self.t = target
        self.session = session
        self.say = say
        self.skipped = skipped
        self.inputs = HostInputs(name=target.name, kind=target.kind)
        self.tools: dict[str, str] = {}
        #: Commands sent, and planned once the host's NICs are listed (0: not known yet). Each progress message of a
        #: command then says "command DONE of PLANNED: <command>": the wizard's bar and the host's row move with it.
        self.done = 0
        self.planned = 0

    def problem(self, message: str, command: str = "") -> None:
        self.inputs.problems.append(InputProblem(self.t.source, message, command))

    def skip(self, message: str) -> None:
        self.skipped.append(f"{self.t.name}: {message}")

    def execute(self, argv: tuple[str, ...] | list[str]) -> tuple[str, _Result] | None:
        """Check ``argv`` against the allowlist and run it; None after recording a problem (timeout,
        refused command). Raises _SessionLost / _Cancelled."""
        try:
            command = check(self.t.kind, argv)
        except CommandRefused as exc:
            self.problem(str(exc))
            return None
        self.done += 1
        count = f"command {self.done} of {max(self.planned, self.done)}: " if self.planned else ""
        self.say(f"{self.t.name}: {count}{command}")
        try:
            return command, self.session.run(command)
        except _CommandTimeout:
            self.problem(f"'{command}' did not finish within {self.t.command_timeout_s:g} s; its output is missing",
                         command)
            self.failed(command, "", TIMEOUT_NOTE.format(seconds=self.t.command_timeout_s))
            return None
        except _SessionLost as exc:
            raise _SessionLost(command, str(exc)) from None

    def failed(self, command: str, stdout: str, note: str) -> None:
        """Record a command that did not run to an answer as a capture whose note says how it ended
        (:func:`~nicadvisor.parsers.capture_file.exit_note`, :data:`~nicadvisor.parsers.capture_file.TIMEOUT_NOTE`),
        as the collector script records it: the host's "could not run" list is read from it
        (:func:`~nicadvisor.parsers.capture_file.not_run_of`), and a saved audit replays it."""
        self.inputs.captures.append(Capture(source=self.t.source, command=command, text=stdout, host=self.t.name,
                                            notes=(note,), origin=self.t.source))

    def record(self, command: str, res: _Result, optional: bool, refusal_is_problem: bool = True) -> str | None:
        """Turn a command's result into a Capture; returns the output text when one was recorded.

        A command that failed (an exit status other than 0 and at most one line printed) is recorded as a failed
        capture (:meth:`failed`) and None is returned. A command the account is not allowed to run (``Permission
        denied`` / ``Operation not permitted``, :data:`~nicadvisor.parsers.capture_file.DENIED_RE`) is a problem even
        when optional, with the real error text, unless ``refusal_is_problem`` is False (a read the account is not
        expected to be allowed, such as the LLDP daemon's socket: only listed as not run); output printed despite such an error on stderr (non-root ``ethtool
        IF``: ``netlink error: Operation not permitted`` for the Wake-on-LAN query, exit status 0) is kept, noted,
        and reported as partly refused.
        """
        if b"\x00" in res.stdout:
            self.problem(f"'{command}' returned binary data, not command output; ignored", command)
            return None
        stdout = res.stdout.decode("utf-8", errors="replace")
        stderr = res.stderr.decode("utf-8", errors="replace").strip()
        lines = [ln for ln in stdout.splitlines() if ln.strip()]
        rc_text = "no exit status" if res.rc is None else f"exit status {res.rc}"
        if res.rc != 0 and len(lines) <= 1:
            why = " ".join(lines + [stderr]).strip() or rc_text
            self.failed(command, stdout, exit_note(res.rc, stderr))
            if DENIED_RE.search(why) and refusal_is_problem:
                self.problem(f"'{command}' was refused to user {self.t.user!r} on {self.t.name} ({rc_text}): "
                             f"{one_line(why)}; the account lacks the privilege to read this (audit with root, "
                             "or an account allowed to run it)", command)
            elif optional:
                self.skip(f"{command}: {why}")
            else:
                self.problem(f"'{command}' failed ({rc_text}): {one_line(why)}", command)
            return None
        if not lines:
            self.skip(f"{command}: no output" + (f" ({one_line(stderr)})" if stderr else ""))
            return None
        notes: list[str] = []
        if res.rc != 0:
            notes.append(exit_note(res.rc, stderr))
        elif stderr and DENIED_RE.search(stderr):
            notes.append(f"stderr: {one_line(stderr)}")
        if stderr and DENIED_RE.search(stderr):
            who = ": root on Linux" if self.t.kind == "linux" else ""
            self.problem(f"'{command}' was partly refused to user {self.t.user!r} on {self.t.name}: "
                         f"{one_line(stderr)}; the rest of its output was read (part of this query needs more "
                         f"privileges than the account has{who})", command)
        if res.truncated:
            notes.append(f"output truncated at {MAX_CAPTURE_BYTES} bytes")
            self.problem(f"'{command}' printed more than {MAX_CAPTURE_BYTES} bytes; the rest was not read", command)
        self.inputs.captures.append(Capture(source=self.t.source, command=command, text=stdout, host=self.t.name,
                                            notes=tuple(notes), origin=self.t.source))
        return stdout

    def run(self, argv: tuple[str, ...] | list[str], optional: bool = False) -> str | None:
        got = self.execute(argv)
        return None if got is None else self.record(got[0], got[1], optional)

    # --- ESXi ------------------------------------------------------------------------------------
    def esxi(self) -> None:
        got = self.execute(esxi_command(ESXI_NIC_LIST))
        if got is None:
            return
        command, res = got
        if res.rc == 127:
            if self._is_linux():
                self.skip(f"'{command}' was not found, and /sys/class/net was listed: audited as a Linux host")
                self.linux()
                return
            self.problem(f"'{command}' was not found on {self.t.name}, and it lists no /sys/class/net either: it is "
                         "neither an ESXi nor a Linux host NIC Advisor can read", command)
            return
        text = self.record(command, res, optional=False)
        nics, modules = _esxi_discover(text or "")
        if text is not None and not nics:
            self.problem(f"'{command}' listed no NIC that could be read; per-NIC commands were not run", command)
        bad = _esxi_bad_names(text or "")
        if bad:
            self.problem("NIC or driver names that are not safe to pass on a command line were skipped: "
                         + ", ".join(bad), command)
        functions = _esxi_functions(text or "")
        self.planned = self.done + len(esxi_templates("host")) + len(nics) * len(esxi_templates("nic")) \
            + len(modules) * len(esxi_templates("module")) + len(functions) * len(esxi_templates("function"))
        for tpl in esxi_templates("host"):
            self._esxi(tpl)
        for nic in nics:
            for tpl in esxi_templates("nic"):
                self._esxi(tpl, nic=nic)
        for module in modules:
            for tpl in esxi_templates("module"):
                self._esxi(tpl, module=module)
        for function in functions:
            for tpl in esxi_templates("function"):
                self._esxi(tpl, function=function)

    def _is_linux(self) -> bool:
        """The host given as ESXi has no ``esxcfg-nics``: when it lists ``/sys/class/net`` (the Linux audit's first,
        read-only command), it is a Linux host and is audited as one from here on (a Linux host left at kind ESXi
        got "try --kind linux" and ESXi commands in its "Finish this audit")."""
        self.t = replace(self.t, kind="linux")
        got = self.execute(["ls", "/sys/class/net"])
        if got is not None and got[1].rc == 0:
            self.inputs.kind = "linux"
            return True
        self.t = replace(self.t, kind="esxi")
        return False

    def _esxi(self, tpl: Template, nic: str | None = None, module: str | None = None,
              function: str | None = None) -> None:
        try:
            argv = esxi_command(tpl, nic=nic, module=module, function=function)
        except CommandRefused as exc:
            self.problem(str(exc))
            return
        self.run(argv, optional=tpl.optional)

    # --- Linux -----------------------------------------------------------------------------------
    def tool(self, name: str, args: list[str]) -> tuple[str, _Result] | None:
        """Run ``ethtool``/``ip`` with ``args``, retrying absolute paths when not in the login PATH."""
        paths = (self.tools[name],) if name in self.tools else LINUX_TOOL_PATHS[name]
        got = None
        for path in paths:
            got = self.execute([path, *args])
            if got is None or got[1].rc != 127:
                self.tools[name] = path
                return got
        self.tools[name] = paths[-1]
        return got

    def linux(self) -> None:
        got = self.execute(["ls", "/sys/class/net"])
        if got is None:
            return
        command, res = got
        if res.rc != 0:
            err = res.stderr.decode("utf-8", errors="replace").strip()
            self.problem(f"'{command}' failed on {self.t.name} ({one_line(err) or f'exit status {res.rc}'}): "
                         "is it a Linux host?", command)
            return
        listed = res.stdout.decode("utf-8", errors="replace").split()
        names = sorted(n for n in listed if n != "lo" and LINUX_IF_RE.match(n))
        odd = [n for n in listed if n != "lo" and not LINUX_IF_RE.match(n)]
        if odd:
            self.problem(f"interface names that are not safe to pass on a command line were skipped: {', '.join(odd)}",
                         command)
        self.say(f"{self.t.name}: {len(names)} interface(s): {', '.join(names) or 'none'}")
        per_name = 1 + len(local_linux.NET_ATTRS) + len(local_linux.PCI_ATTRS) + len(local_linux.ETHTOOL_OPTIONS)
        self.planned = self.done + 1 + len(local_linux.NEIGHBOR_COMMANDS) + len(names) * per_name
        got = self.tool("ip", ["-d", "-j", "link", "show"])
        if got is not None:
            self.record(*got, optional=True)
        # the switch port of each interface, where LLDP is listened to: host commands of the catalogue, run before
        # the per-interface ones as the collector script runs them. No daemon listening, or (Debian's lldpctl is
        # 0750 root:_lldpd) an account that may not read it: a command not run, with the host's words, not a problem
        for argv in local_linux.NEIGHBOR_COMMANDS:
            got = self.tool(argv[0], list(argv[1:]))
            if got is not None:
                self.record(*got, optional=True, refusal_is_problem=False)
        for name in names:
            base = f"/sys/class/net/{name}"
            link = self.run(["readlink", base], optional=True)
            for attr in local_linux.NET_ATTRS:
                self.run(["cat", f"{base}/{attr}"], optional=True)
            bdf = local_linux.pci_dir(link.strip() if link else None)  # the same sysfs rule as local audits
            if not bdf:  # no PCI device (a veth, a bridge): its PCIe reads are not planned after all
                self.planned -= len(local_linux.PCI_ATTRS)
            if bdf:
                parts = [p for p in (link or "").strip().split("/") if p and p != ".."]
                pci_base = f"{base}/device" if parts[-3] == bdf else f"/sys/bus/pci/devices/{bdf}"
                for attr in local_linux.PCI_ATTRS:
                    self.run(["cat", f"{pci_base}/{attr}"], optional=True)
            for opt in local_linux.ETHTOOL_OPTIONS:
                got = self.tool("ethtool", [opt, name] if opt else [name])
                if got is not None:
                    self.record(*got, optional=True)


def _esxi_discover(text: str) -> tuple[list[str], list[str]]:
    """NIC names and driver modules read by the registry's ``esxcli network nic list`` parser."""
    nics: set[str] = set()
    modules: set[str] = set()
    for r in parse_output(ESXI_NIC_LIST_TEXT, text):
        for key, facts in r.pnics.items():
            if not ESXI_NIC_RE.match(key):
                continue
            nics.add(key)
            drv = facts.get("driver")
            if drv is not None and isinstance(drv.value, str) and MODULE_RE.match(drv.value):
                modules.add(drv.value)
    return sorted(nics, key=natural_key), sorted(modules)


def _esxi_functions(text: str) -> list[str]:
    """The PCI addresses of the vmnics the ``esxcli network nic list`` parser read (``0000:5e:00.0``), in order."""
    found: set[str] = set()
    for r in parse_output(ESXI_NIC_LIST_TEXT, text):
        for key, facts in r.pnics.items():
            pci = facts.get("pci_address")
            if ESXI_NIC_RE.match(key) and pci is not None and pci_numbers(pci.value) is not None:
                found.add(pci.value)
    return sorted(found)


def _esxi_bad_names(text: str) -> list[str]:
    bad = []
    for r in parse_output(ESXI_NIC_LIST_TEXT, text):
        for key, facts in r.pnics.items():
            if not key.startswith("pci:") and not ESXI_NIC_RE.match(key):
                bad.append(repr(key))
            drv = facts.get("driver")
            if drv is not None and isinstance(drv.value, str) and not MODULE_RE.match(drv.value):
                bad.append(repr(drv.value))
    return bad


ESXI_NIC_LIST_TEXT = shlex.join(ESXI_NIC_LIST.words)


# --- one host, many hosts ------------------------------------------------------------------------

def _connect_problem(target: SshTarget, exc: BaseException) -> str:
    where = f"{target.user}@{target.name}"
    hp = f"{target.host}:{target.port}"
    if isinstance(exc, (HostKeyError, KnownHostsError)):
        return str(exc)
    if isinstance(exc, paramiko.BadHostKeyException):
        return (f"host key of {hp} has CHANGED: stored {fingerprint(exc.expected_key)}, presented "
                f"{exc.key.get_name()} {fingerprint(exc.key)}. The connection was refused (this can be a "
                "man-in-the-middle, or a reinstalled host). If the change is expected, remove the old key from "
                "NIC Advisor's known_hosts and trust the new one.")
    if isinstance(exc, AuthFailure):
        return _auth_message(target, exc)
    if isinstance(exc, paramiko.AuthenticationException):
        return f"authentication of {where} failed: {exc}"
    refused = f"cannot connect to {hp}: connection refused (no SSH server listening there; is SSH enabled on the host?)"
    if isinstance(exc, NoValidConnectionsError):
        if any(getattr(e, "errno", None) == errno.EHOSTUNREACH for e in exc.errors.values()):
            return f"cannot connect to {hp}: no route to host"
        return refused
    if isinstance(exc, ConnectionRefusedError):
        return refused
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host name {target.host!r}: {exc.strerror or exc}"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return f"cannot connect to {hp}: no answer within {target.connect_timeout_s:g} s (host down or filtered)"
    if isinstance(exc, paramiko.SSHException):
        msg = str(exc)
        if "no existing session" in msg.lower() or "negotiation failed" in msg.lower():
            return f"the SSH handshake with {hp} did not complete within {2 * target.connect_timeout_s:g} s"
        if "banner" in msg.lower():
            return (f"{hp} did not send an SSH banner within {target.connect_timeout_s:g} s: it is not an SSH server, "
                    "or it is overloaded")
        return f"SSH connection to {hp} failed: {msg}"
    if isinstance(exc, _KeyFileError):
        return f"{where}: {exc}"
    if isinstance(exc, OSError):
        return f"cannot connect to {hp}: {exc.strerror or exc}"
    if isinstance(exc, UnicodeError):  # the idna codec refused the name (a part empty or over 63 characters)
        return (f"cannot resolve the host name {target.host!r}: a part of it between dots is empty or longer than "
                "63 characters, which no DNS name has")
    if isinstance(exc, ValueError):
        return f"{hp}: {exc}"
    return f"{hp}: {type(exc).__name__}: {exc}"


def _audit_host(target: SshTarget, known_hosts: KnownHosts, ask: AskFn | None, cancel: threading.Event,
                opened: _OpenSessions, say: ProgressFn, skipped: list[str]) -> HostInputs | InputProblem:
    if cancel.is_set():
        return InputProblem(target.source, f"{target.name}: cancelled before connecting")
    session = _Session(target, cancel, opened)
    say(f"{target.name}: connecting to {target.source}")
    try:
        try:
            session.connect(known_hosts, ask)
        except _Cancelled:
            return InputProblem(target.source, f"{target.name}: cancelled while connecting")
        except (OSError, EOFError, ValueError, paramiko.SSHException, _KeyFileError) as exc:
            if cancel.is_set():
                return InputProblem(target.source, f"{target.name}: cancelled while connecting")
            return InputProblem(target.source, _connect_problem(target, exc))
        audit = _HostAudit(target, session, say, skipped)
        try:
            if target.kind == "esxi":
                audit.esxi()
            else:
                audit.linux()
        except _Cancelled:
            audit.problem(f"cancelled before the audit of {target.name} finished; "
                          f"{len(audit.inputs.captures)} output(s) were read")
        except _SessionLost as exc:
            command = exc.args[0] if exc.args else ""
            detail = exc.args[1] if len(exc.args) > 1 and exc.args[1] else ""
            if cancel.is_set():
                audit.problem(f"cancelled before the audit of {target.name} finished; "
                              f"{len(audit.inputs.captures)} output(s) were read")
            else:
                audit.problem(f"the SSH connection to {target.name} closed while running '{command}' (sshd stopped, "
                              f"host rebooted or network lost{': ' + detail if detail else ''}); "
                              f"{len(audit.inputs.captures)} output(s) were read before", command)
        say(f"{target.name}: {len(audit.inputs.captures)} output(s) read")
        return audit.inputs
    finally:
        session.close()


DEFAULT_SSH_WORKERS = 16
"""Hosts audited at once by :func:`collect_ssh` by default: a host's audit waits on the network almost all
the time (I/O bound), so 16 connections in flight keep one client CPU busy without flooding the network;
``benchmarks/fanout.py`` measures it (≥ 8x faster than one at a time)."""


def collect_ssh(targets: list[SshTarget], progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                known_hosts: KnownHosts | None = None, max_workers: int = DEFAULT_SSH_WORKERS,
                ask: AskFn | None = None,
                on_host: Callable[[HostInputs], None] | None = None) -> SshCollection:
    """Audit ``targets`` over SSH, ``max_workers`` hosts at a time (default :data:`DEFAULT_SSH_WORKERS`);
    see the module docstring.

    ``progress`` receives short messages (``"esxi-a: esxcli network nic list"``, then ``"esxi-a: command 5 of 40:
    esxcli network vswitch standard list"`` once the host's commands are planned) from worker threads;
    ``cancel`` (set from any thread) closes open connections and skips hosts not started yet;
    ``known_hosts`` defaults to the app's store; ``ask(host, port, key_type, fingerprint) -> bool``
    decides first-contact keys that no ``trusted_fingerprint`` covers (called one at a time). Returns
    hosts in the order of ``targets``. Never raises for a host's failure (see :class:`SshCollection`);
    raises ValueError for ``max_workers`` < 1.

    ``on_host(host_inputs)``, when given, receives each host as soon as its audit finishes (in completion
    order, from the calling thread), including a host cut short by a lost session or a cancel (with the
    outputs read so far), so a caller can store it at once. An exception from ``on_host`` propagates
    (the other hosts' audits are stopped first).
    """
    if max_workers < 1:
        raise ValueError("max_workers must be at least 1")
    store = known_hosts if known_hosts is not None else KnownHosts()
    stop = cancel if cancel is not None else threading.Event()
    say = progress or (lambda _msg: None)
    out = SshCollection()
    if not targets:
        return out
    opened = _OpenSessions()
    finished = threading.Event()

    def watch() -> None:
        while not finished.is_set():
            if stop.wait(0.1):
                opened.abort_all()
                return

    watcher = threading.Thread(target=watch, name="ssh-cancel-watch", daemon=True)
    watcher.start()
    skipped: list[str] = []
    try:
        with ThreadPoolExecutor(max_workers=min(max_workers, len(targets)), thread_name_prefix="ssh-audit") as pool:
            futures = [pool.submit(_audit_host, t, store, ask, stop, opened, say, skipped) for t in targets]
            done: dict[int, HostInputs | InputProblem] = {}
            index = {fut: i for i, fut in enumerate(futures)}
            try:
                for fut in as_completed(futures):
                    t = targets[index[fut]]
                    try:
                        res = fut.result()
                    except Exception as exc:  # noqa: BLE001 - a bug on one host must not lose the others
                        res = InputProblem(t.source, f"{t.name}: internal error during the SSH audit: "
                                                     f"{type(exc).__name__}: {exc}")
                    done[index[fut]] = res
                    if on_host is not None and isinstance(res, HostInputs):
                        on_host(res)
            except BaseException:
                for fut in futures:  # on_host failed: end the other hosts' audits before the pool is joined
                    fut.cancel()
                opened.abort_all()
                raise
            for i in range(len(targets)):
                res = done[i]
                if isinstance(res, HostInputs):
                    out.hosts.append(res)
                else:
                    out.problems.append(res)
    finally:
        finished.set()
        watcher.join()
    out.skipped = skipped
    return out


# --- saving a live audit as capture files ---------------------------------------------------------

def _safe(text: str, limit: int = 80) -> str:
    return (re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_.") or "x")[:limit]


def host_folder_name(name: str) -> str:
    """A folder name for host ``name`` that is safe (letters, digits, ``._-``) and distinct for distinct names:
    when making it safe changed the name, a short hash of the exact name is appended, so ``esx 01`` and ``esx/01``
    get two folders (``esx_01-1a2b3c4d``, ``esx_01-5e6f7a8b``) instead of one overwriting the other."""
    safe = _safe(name)
    if safe == name:
        return safe
    return f"{safe[:70]}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def save_captures(host_inputs: list[HostInputs], folder: Path | str) -> list[Path]:
    """Write every capture of ``host_inputs`` as a capture file under ``folder/<host>/``.

    Each file is ``NNN_<command>.txt`` with ``# source:``, ``# command:``, ``# host:`` (and ``# note:``)
    header lines, then the verbatim output — the format :func:`nicadvisor.collect.sources.gather`
    reads, grouping the files back by their ``# host:`` header. No secret is written (captures hold
    none). Returns the paths written; raises OSError when the folder cannot be written.
    """
    root = Path(folder)
    written: list[Path] = []
    for hi in host_inputs:
        sub = root / host_folder_name(hi.name)
        check_no_planted_link(sub)
        sub.mkdir(parents=True, exist_ok=True)
        for i, cap in enumerate(hi.captures, 1):
            head = [f"# source: {one_line(cap.origin or cap.source, 1000)}",
                    f"# command: {one_line(cap.command, 4000)}",
                    f"# host: {one_line(cap.host or hi.name, 300)}"]
            head += [f"# note: {one_line(n, 1000)}" for n in cap.notes]
            path = sub / f"{i:03d}_{_safe(cap.command, 60)}.txt"
            write_text(path, "\n".join(head) + "\n" + cap.text)  # never through a planted link (issue 29 §1)
            written.append(path)
    return written


def check_connection(target: SshTarget, known_hosts: KnownHosts, ask: AskFn | None = None,
                     cancel: threading.Event | None = None) -> None:
    """Connect, verify the host key (first contact decided by ``ask`` or ``target.trusted_fingerprint``)
    and authenticate, then close without running a command ("Test connection").

    Raises :class:`nicadvisor.collect.ConnectionCheckError` with a message naming the host.
    """
    from nicadvisor.collect import ConnectionCheckError

    stop = cancel if cancel is not None else threading.Event()
    session = _Session(target, stop, _OpenSessions())
    try:
        session.connect(known_hosts, ask)
    except (OSError, EOFError, ValueError, paramiko.SSHException, _KeyFileError) as exc:
        raise ConnectionCheckError(_connect_problem(target, exc)) from exc
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message for the user
        why = "cancelled while connecting" if stop.is_set() else f"{type(exc).__name__}: {exc}"
        raise ConnectionCheckError(f"{target.name}: {why}") from exc
    finally:
        session.close()
