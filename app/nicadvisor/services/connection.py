"""Use-case: check a live target before auditing it ("Test connection") and list a vCenter's hosts ("Browse hosts").

For https targets the certificate is checked first (:func:`check_tls`, against the pin when one is given, else the
system CA store): a certificate the system does not trust comes back with its SHA-256 thumbprint in
:attr:`ProbeResult.untrusted_thumbprint`, for the front end to show and pin; only then is a password asked
(:class:`~nicadvisor.services.targets.Passwords`) and the login tried. SSH: connects (host key checked against
NIC Advisor's known_hosts, first contact decided by ``ask``) and authenticates, then closes; no command is run.
Every check is read-only, never raises for a target that fails (the result says why, never with a password: what
the server answers is scrubbed of the password sent, :func:`nicadvisor.services.live.targets_scrubber`) and is
bounded by ``timeout`` seconds per network call, its whole answer included (:mod:`nicadvisor.collect.deadline`).
Blocking: worker threads only.
"""
from __future__ import annotations

import dataclasses
import ssl
import threading
from dataclasses import dataclass
from typing import Any, Callable

from nicadvisor.services.targets import (
    NsxEntry, Passwords, SshEntry, VcenterEntry, app_pins, host_port, nsx_target, password_of, ssh_target,
    vsphere_target,
)

AskFn = Callable[[str, int, str, str], bool]


@dataclass(frozen=True)
class ProbeResult:
    """Outcome of one connection check.

    Attributes:
        ok: the target answered, its certificate / host key is trusted and the login was accepted.
        message: one line for the user (never holds a password).
        untrusted_thumbprint: https only: SHA-256 thumbprint (``"AA:BB:…"``) of a certificate the system
            does not trust (the trust dialog shows it); None otherwise.
        reason: why the certificate is not trusted (``"self-signed certificate"``), else "".
        notes: extra lines (password saved in the keyring, or why it could not be).
        host_keys: SSH only: the host keys known_hosts holds for the host after the test (``"ssh-ed25519 SHA256:…"``).
    """

    ok: bool
    message: str
    untrusted_thumbprint: str | None = None
    reason: str = ""
    notes: tuple[str, ...] = ()
    host_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class InventoryResult:
    """Outcome of "Browse hosts" (:func:`browse_vcenter`).

    Attributes:
        ok: the tree was read.
        message: one line for the user: ``"3 hosts in 1 datacenter"`` or why it failed (never a password).
        tree: the datacenter nodes (``nicadvisor.collect.vsphere.InventoryNode``: ``name``, ``children``,
            ``hosts()``), () on failure.
    """

    ok: bool
    message: str
    tree: tuple = ()


def check_tls(host: str, port: int, thumbprint: str | None, timeout: float = 10.0) -> tuple[ProbeResult, Any]:
    """Check the certificate of ``host:port``: against the pin when ``thumbprint`` is given, else the app's stored
    pin, else the system CA store. Returns (result, TrustDecision or None); ``result.ok`` False with
    ``untrusted_thumbprint`` set when the system does not trust the certificate."""
    from nicadvisor.collect.tls_pinning import (ThumbprintMismatchError, UntrustedCertificateError, ssl_context_for,
                                                trust_store)

    where = f"{host}:{port}"
    try:
        _ctx, trust = ssl_context_for(host, port, thumbprint=thumbprint or None, timeout=timeout, pins=app_pins())
    except UntrustedCertificateError as exc:
        if exc.thumbprint is None:
            return ProbeResult(False, f"{where}: the certificate is not trusted ({exc.reason}) and could not be "
                                      "read"), None
        return ProbeResult(False, f"{where}: the certificate is not trusted by {trust_store()[1]} ({exc.reason})",
                           untrusted_thumbprint=exc.thumbprint, reason=exc.reason), None
    except ThumbprintMismatchError as exc:
        return ProbeResult(False, str(exc)), None
    except ValueError as exc:  # malformed pin
        return ProbeResult(False, f"{where}: {exc}"), None
    except ssl.SSLError as exc:
        return ProbeResult(False, f"{where}: TLS failure: {exc}"), None
    except OSError as exc:
        return ProbeResult(False, f"{where}: cannot connect: {exc.strerror or exc}"), None
    return ProbeResult(True, f"{where}: {trust.describe()}"), trust


def _scrubbed(message: str, target: Any, basic: bool = False) -> str:
    """``message`` (server text) without the password sent to ``target`` (and its Basic header with ``basic``)."""
    from nicadvisor.services.live import targets_scrubber

    return targets_scrubber([target], [target] if basic else ())(message)


@dataclass
class _Checked:
    """A https target whose certificate passed :func:`check_tls`: the collector ``target``, the ``tls`` result and
    ``trust`` decision."""

    target: Any
    tls: ProbeResult
    trust: Any


def _check_https(entry: VcenterEntry | NsxEntry, passwords: Passwords, build: Callable[[str], Any],
                 timeout: float) -> _Checked | ProbeResult:
    """The certificate check, then the target (``build(password)``) of a vCenter / NSX entry; the failing
    :class:`ProbeResult` when the URL is bad, the certificate not trusted or no password is known."""
    try:
        host, port = host_port(entry.url)
    except ValueError as exc:
        return ProbeResult(False, str(exc))
    tls, trust = check_tls(host, port, entry.thumbprint, timeout)
    if not tls.ok:
        return tls
    try:
        return _Checked(build(password_of(entry, passwords) or ""), tls, trust)
    except ValueError as exc:
        return ProbeResult(False, str(exc))


def _vsphere_check_target(entry: VcenterEntry, timeout: float) -> Callable[[str], Any]:
    return lambda password: dataclasses.replace(vsphere_target(entry, password, pins=app_pins()), timeout_s=timeout,
                                                modules=False)


def check_vcenter(entry: VcenterEntry, passwords: Passwords, cancel: threading.Event | None = None,
                  timeout: float = 15.0) -> ProbeResult:
    """Test connection of a vCenter: certificate, API version, login, logout. Never raises."""
    got = _check_https(entry, passwords, _vsphere_check_target(entry, timeout), timeout)
    if isinstance(got, ProbeResult):
        return got
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect.vsphere import check_login

    try:
        s = check_login(got.target, cancel)
    except ConnectionCheckError as exc:
        return ProbeResult(False, _scrubbed(str(exc), got.target))
    shown = s.trust.describe() if s.trust else (got.trust.describe() if got.trust else "")
    return ProbeResult(True, f"connected as {entry.user} to {s.about or 'the vSphere API'} (API {s.api_version}); "
                             f"{shown}")


def browse_vcenter(entry: VcenterEntry, passwords: Passwords, cancel: threading.Event | None = None,
                   timeout: float = 15.0) -> InventoryResult:
    """Read the datacenter → cluster → host tree of a vCenter (``nicadvisor.collect.vsphere.list_inventory``:
    certificate, login, one PropertyCollector retrieval, logout; socket timeout ``timeout`` seconds). The
    entry's scope is ignored (the whole inventory is listed). Never raises, except ``Cancelled`` when
    ``cancel`` is set."""
    got = _check_https(entry, passwords, _vsphere_check_target(entry, timeout), timeout)
    if isinstance(got, ProbeResult):
        return InventoryResult(False, got.message)
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect.vsphere import list_inventory

    try:
        tree = list_inventory(got.target, cancel)
    except ConnectionCheckError as exc:
        return InventoryResult(False, _scrubbed(str(exc), got.target))
    n_hosts = sum(len(dc.hosts()) for dc in tree)
    return InventoryResult(True, f"{n_hosts} host{'s' if n_hosts != 1 else ''} in {len(tree)} "
                                 f"datacenter{'s' if len(tree) != 1 else ''}", tuple(tree))


def check_ssh(entry: SshEntry, passwords: Passwords, known_hosts: Any, ask: AskFn | None,
              cancel: threading.Event | None = None, timeout: float = 10.0) -> ProbeResult:
    """Test connection of an SSH host: TCP, host key (``known_hosts``, None: NIC Advisor's own; first contact
    decided by ``ask``), authentication; then closes (no command is run). Never raises."""
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect import ssh as S
    from nicadvisor.collect.known_hosts import KnownHosts

    try:
        password = password_of(entry, passwords)
        target = dataclasses.replace(ssh_target(entry, password), connect_timeout_s=timeout)
    except ValueError as exc:
        return ProbeResult(False, str(exc))
    store = known_hosts if known_hosts is not None else KnownHosts()
    try:
        first = not store.keys_for(target.host, target.port)
    except OSError as exc:
        return ProbeResult(False, f"{target.name}: the known_hosts file cannot be read: {exc}")
    try:
        S.check_connection(target, store, ask, cancel)
    except ConnectionCheckError as exc:
        return ProbeResult(False, _scrubbed(str(exc), target))
    stored = tuple(f"{k.key_type} {k.fingerprint}" for k in store.keys_for(target.host, target.port))
    how = "trusted now and saved in NIC Advisor's known_hosts" if first else "already known"
    auth = "key file" if target.key_filename and not password else "password"
    return ProbeResult(True, f"connected as {target.user} ({auth}); host key {', '.join(stored)} {how}",
                       host_keys=stored)


def stored_host_keys(ssh_hosts: list[tuple[str, str, int]], known_hosts: Any) -> dict[str, str]:
    """``{source: "ssh-ed25519 SHA256:…"}`` for each ``(source, host, port)`` whose key NIC Advisor's known_hosts
    holds (after an audit accepted one); hosts without a stored key are left out. Reads the known_hosts file:
    worker thread only. Never raises (an unreadable file: no key is known)."""
    from nicadvisor.collect.known_hosts import KnownHosts

    store = known_hosts if known_hosts is not None else KnownHosts()
    out = {}
    for source, host, port in ssh_hosts:
        try:
            keys = store.keys_for(host, port)
        except (ValueError, OSError):
            continue
        if keys:
            out[source] = ", ".join(f"{k.key_type} {k.fingerprint}" for k in keys)
    return out


def check_nsx(entry: NsxEntry, passwords: Passwords, cancel: threading.Event | None = None,
              timeout: float = 15.0) -> ProbeResult:
    """Test connection of an NSX Manager: certificate, then a session login (read-only). Never raises."""
    got = _check_https(entry, passwords,
                       lambda password: dataclasses.replace(nsx_target(entry, password, pins=app_pins()),
                                                            timeout_s=timeout), timeout)
    if isinstance(got, ProbeResult):
        return got
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect.nsx import check_login

    try:
        check_login(got.target, cancel)
    except ConnectionCheckError as exc:
        return ProbeResult(False, _scrubbed(str(exc), got.target, basic=True))
    return ProbeResult(True, f"logged in as {entry.user}; {got.tls.message.split(': ', 1)[-1]}")
