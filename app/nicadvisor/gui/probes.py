"""Blocking work behind the Connect page's live targets: passwords from the OS keyring, the collector
targets, and "Test connection" probes. Worker threads only (no Qt here).

* Passwords (:func:`resolve_password`): the one typed on the Connect page (kept in memory), else the
  one saved in the OS keyring (:mod:`nicadvisor.secrets`, service ids as the CLI: ``vcenter:<host>:<port>``,
  ``ssh:<host>:<port>``, ``nsx:<host>:<port>``). A typed password with "remember" ticked is saved in the
  keyring; nowhere else. No password ever appears in a message.
* Probes (:func:`probe_vcenter`, :func:`probe_ssh`, :func:`probe_nsx`) return a :class:`ProbeResult`
  and never raise for a target that fails; "Browse hosts" (:func:`browse_vcenter`) returns an
  :class:`InventoryResult` likewise. For https targets the certificate is checked first
  (:func:`nicadvisor.collect.tls_pinning.ssl_context_for`): a certificate the system CA store does not
  trust comes back with its SHA-256 thumbprint in :attr:`ProbeResult.untrusted_thumbprint`, for the
  trust dialog. SSH: connects (host key checked against the app's known_hosts, first contact decided
  by ``ask``) and authenticates, then closes; no command is run.
"""
from __future__ import annotations

import dataclasses
import ssl
import threading
from dataclasses import dataclass
from typing import Any, Callable

from nicadvisor.gui.state import NsxSpec, SshSpec, VcenterSpec
from nicadvisor.model import InputProblem

AskFn = Callable[[str, int, str, str], bool]


@dataclass(frozen=True)
class ProbeResult:
    """Outcome of one Test connection.

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


class PasswordMissing(ValueError):
    """No password typed and none saved in the OS keyring (the message says which target)."""


def snapshot(spec: Any) -> Any:
    """A copy of a target spec for a worker (the GUI thread may edit the original meanwhile)."""
    return dataclasses.replace(spec)


def resolve_password(spec: VcenterSpec | SshSpec | NsxSpec, user: str) -> tuple[str, list[str]]:
    """(password, notes) for ``spec``: the typed one (saved in the keyring when ``spec.remember``), else the
    one saved in the keyring. Raises :class:`PasswordMissing` when there is neither."""
    from nicadvisor.secrets import SecretStoreUnavailable, get_password, store_password

    notes: list[str] = []
    if spec.password:
        if spec.remember:
            try:
                store_password(spec.service_id, user, spec.password)
                notes.append("password saved in the OS keyring")
            except SecretStoreUnavailable as exc:
                notes.append(f"password not saved: {exc}")
        return spec.password, notes
    why = ""
    try:
        saved = get_password(spec.service_id, user)
    except SecretStoreUnavailable as exc:
        saved, why = None, f" ({exc})"
    if saved is None:
        raise PasswordMissing(f"{spec.kind_label} {spec.label}: no password entered for {user} and none saved in "
                              f"the OS keyring{why}; enter it on the Connect page")
    notes.append("password read from the OS keyring")
    return saved, notes


# --- collector targets ---------------------------------------------------------------------------

def _pins() -> Any:
    """The app's TLS pin store: a pin accepted in the trust dialog is saved after its first successful login
    and used on later runs; a server whose certificate then differs is refused (collect.tls_pins)."""
    from nicadvisor.collect.tls_pins import TlsPins

    return TlsPins()


def vsphere_target(spec: VcenterSpec, password: str) -> Any:
    """The ``VsphereTarget`` of ``spec`` (``esxcli=spec.esxcli``: esxcli through the vSphere API too).
    Raises ValueError for a bad URL."""
    from nicadvisor.collect.vsphere import VsphereTarget

    return VsphereTarget.from_url(spec.url, spec.user, password, thumbprint=spec.thumbprint or None,
                                  datacenter=spec.datacenter or None, cluster=spec.cluster or None,
                                  host_names=tuple(spec.host_names), esxcli=bool(spec.esxcli), pins=_pins())


def ssh_target(spec: SshSpec, password: str | None) -> Any:
    """The ``SshTarget`` of ``spec``. Raises ValueError (bad ``user@host[:port]``, no password nor key)."""
    from nicadvisor.collect.ssh import SshTarget

    return SshTarget.parse(spec.spec, kind=spec.kind, password=password, key_filename=spec.key_file or None,
                           trusted_fingerprint=spec.trusted_fingerprint or None)


def nsx_target(spec: NsxSpec, password: str) -> Any:
    """The ``NsxTarget`` of ``spec``."""
    from nicadvisor.collect.nsx import NsxTarget

    return NsxTarget(url=spec.url, user=spec.user, password=password, thumbprint=spec.thumbprint or None,
                     pins=_pins())


@dataclass
class LiveTargets:
    """The collector targets built from the Connect page's specs (:func:`build_targets`): ``vsphere``,
    ``ssh``, ``nsx`` tuples for ``AuditRequest``; ``problems``: targets that could not be built (no
    password, bad URL), one InputProblem each, named by the target's source."""

    vsphere: tuple = ()
    ssh: tuple = ()
    nsx: tuple = ()
    problems: list[InputProblem] = dataclasses.field(default_factory=list)


def build_targets(vcenters: list[VcenterSpec], ssh_hosts: list[SshSpec], nsx_managers: list[NsxSpec]) -> LiveTargets:
    """Collector targets of spec snapshots, passwords resolved from the keyring where none was typed
    (worker thread: the keyring may block). Never raises: a target that cannot be built is a problem."""
    out = LiveTargets()

    def built(specs: list[Any], make: Callable[[Any], Any]) -> tuple:
        targets = []
        for spec in specs:
            try:
                targets.append(make(spec))
            except ValueError as exc:
                out.problems.append(InputProblem(_source(spec), str(exc)))
        return tuple(targets)

    out.vsphere = built(vcenters, lambda s: vsphere_target(s, resolve_password(s, s.user)[0]))
    out.ssh = built(ssh_hosts, lambda s: ssh_target(s, ssh_password(s)[0]))
    out.nsx = built(nsx_managers, lambda s: nsx_target(s, resolve_password(s, s.user)[0]))
    return out


def ssh_password(spec: SshSpec) -> tuple[str | None, list[str]]:
    """(password, notes) of an SSH host: None (no note) when a key file is given without a password, else
    :func:`resolve_password`'s. Raises :class:`PasswordMissing`."""
    if spec.key_file and not spec.password:
        return None, []
    return resolve_password(spec, spec.user)


def _source(spec: Any) -> str:
    try:
        return spec.source
    except ValueError:
        return f"{spec.kind_label}: {getattr(spec, 'url', None) or getattr(spec, 'spec', '')}"


# --- probes --------------------------------------------------------------------------------------

def probe_tls(host: str, port: int, thumbprint: str | None, timeout: float = 10.0) -> tuple[ProbeResult, Any]:
    """Check the certificate of ``host:port``: against the pin when ``thumbprint`` is given, else against the
    system CA store. Returns (result, TrustDecision or None); ``result.ok`` False with
    ``untrusted_thumbprint`` set when the system does not trust the certificate."""
    from nicadvisor.collect.tls_pinning import ThumbprintMismatchError, UntrustedCertificateError, ssl_context_for

    where = f"{host}:{port}"
    try:
        _ctx, trust = ssl_context_for(host, port, thumbprint=thumbprint or None, timeout=timeout, pins=_pins())
    except UntrustedCertificateError as exc:
        if exc.thumbprint is None:
            return ProbeResult(False, f"{where}: the certificate is not trusted ({exc.reason}) and could not be "
                                      "read"), None
        return ProbeResult(False, f"{where}: the certificate is not trusted by this system ({exc.reason})",
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


@dataclass
class _Checked:
    """A https target whose certificate passed :func:`probe_tls`: the collector ``target``, password
    ``notes``, the TLS ``tls`` result and ``trust`` decision."""

    target: Any
    notes: list[str]
    tls: ProbeResult
    trust: Any


def _check_https(spec: VcenterSpec | NsxSpec, build: Callable[[str], Any], timeout: float) -> _Checked | ProbeResult:
    """The certificate check then the target (``build(password)``) of a vCenter / NSX spec; the failing
    :class:`ProbeResult` when the URL is bad, the certificate not trusted or no password is known."""
    try:
        host, port = spec.host_port
    except ValueError as exc:
        return ProbeResult(False, str(exc))
    tls, trust = probe_tls(host, port, spec.thumbprint, timeout)
    if not tls.ok:
        return tls
    try:
        password, notes = resolve_password(spec, spec.user)
        return _Checked(build(password), notes, tls, trust)
    except ValueError as exc:
        return ProbeResult(False, str(exc))


def _vsphere_probe_target(spec: VcenterSpec, timeout: float) -> Callable[[str], Any]:
    return lambda password: dataclasses.replace(vsphere_target(spec, password), timeout_s=timeout, modules=False)


def probe_vcenter(spec: VcenterSpec, cancel: threading.Event | None = None, timeout: float = 15.0) -> ProbeResult:
    """Test connection of a vCenter: certificate, API version, login, logout. Never raises."""
    got = _check_https(spec, _vsphere_probe_target(spec, timeout), timeout)
    if isinstance(got, ProbeResult):
        return got
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect.vsphere import check_login

    try:
        s = check_login(got.target, cancel)
    except ConnectionCheckError as exc:
        return ProbeResult(False, str(exc), notes=tuple(got.notes))
    shown = s.trust.describe() if s.trust else (got.trust.describe() if got.trust else "")
    return ProbeResult(True, f"connected as {spec.user} to {s.about or 'the vSphere API'} (API {s.api_version}); "
                             f"{shown}", notes=tuple(got.notes))


@dataclass(frozen=True)
class InventoryResult:
    """Outcome of "Browse hosts" (:func:`browse_vcenter`).

    Attributes:
        ok: the tree was read.
        message: one line for the user: ``"3 hosts in 1 datacenter"`` or why it failed (never a password).
        tree: the datacenter nodes (``nicadvisor.collect.vsphere.InventoryNode``), () on failure.
    """

    ok: bool
    message: str
    tree: tuple = ()


def browse_vcenter(spec: VcenterSpec, cancel: threading.Event | None = None, timeout: float = 15.0) -> InventoryResult:
    """Read the datacenter → cluster → host tree of a vCenter (``nicadvisor.collect.vsphere.list_inventory``:
    certificate, login, one PropertyCollector retrieval, logout; socket timeout ``timeout`` seconds). The
    spec's scope is ignored (the whole inventory is listed). Never raises, except ``Cancelled`` when
    ``cancel`` is set."""
    got = _check_https(spec, _vsphere_probe_target(spec, timeout), timeout)
    if isinstance(got, ProbeResult):
        return InventoryResult(False, got.message)
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect.vsphere import list_inventory

    try:
        tree = list_inventory(got.target, cancel)
    except ConnectionCheckError as exc:
        return InventoryResult(False, str(exc))
    n_hosts = sum(len(dc.hosts()) for dc in tree)
    return InventoryResult(True, f"{n_hosts} host{'s' if n_hosts != 1 else ''} in {len(tree)} "
                                 f"datacenter{'s' if len(tree) != 1 else ''}", tuple(tree))


def probe_ssh(spec: SshSpec, known_hosts: Any, ask: AskFn | None, cancel: threading.Event | None = None,
              timeout: float = 10.0) -> ProbeResult:
    """Test connection of an SSH host: TCP, host key (known_hosts; first contact decided by ``ask``),
    authentication; then closes (no command is run). Never raises."""
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect import ssh as S
    from nicadvisor.collect.known_hosts import KnownHosts

    try:
        password, notes = ssh_password(spec)
        target = dataclasses.replace(ssh_target(spec, password), connect_timeout_s=timeout)
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
        return ProbeResult(False, str(exc), notes=tuple(notes))
    stored = tuple(f"{k.key_type} {k.fingerprint}" for k in store.keys_for(target.host, target.port))
    how = "trusted now and saved in NIC Advisor's known_hosts" if first else "already known"
    auth = "key file" if target.key_filename and not password else "password"
    return ProbeResult(True, f"connected as {target.user} ({auth}); host key {', '.join(stored)} {how}",
                       notes=tuple(notes), host_keys=stored)


def stored_host_keys(ssh_hosts: list[SshSpec], known_hosts: Any) -> dict[str, str]:
    """``{spec.source: "ssh-ed25519 SHA256:…"}`` of the hosts whose key NIC Advisor's known_hosts holds (after an
    audit accepted one); hosts without a stored key, or a spec that does not parse, are left out. Reads the
    known_hosts file: worker thread only. Never raises (an unreadable file: no key is known)."""
    from nicadvisor.collect.known_hosts import KnownHosts

    store = known_hosts if known_hosts is not None else KnownHosts()
    out = {}
    for spec in ssh_hosts:
        try:
            _user, host, port = spec.parts()
            keys = store.keys_for(host, port)
        except (ValueError, OSError):
            continue
        if keys:
            out[spec.source] = ", ".join(f"{k.key_type} {k.fingerprint}" for k in keys)
    return out


def probe_nsx(spec: NsxSpec, cancel: threading.Event | None = None, timeout: float = 15.0) -> ProbeResult:
    """Test connection of an NSX Manager: certificate, then a session login (read-only). Never raises."""
    got = _check_https(spec, lambda password: dataclasses.replace(nsx_target(spec, password), timeout_s=timeout),
                       timeout)
    if isinstance(got, ProbeResult):
        return got
    from nicadvisor.collect import ConnectionCheckError
    from nicadvisor.collect.nsx import check_login

    try:
        check_login(got.target, cancel)
    except ConnectionCheckError as exc:
        return ProbeResult(False, str(exc), notes=tuple(got.notes))
    return ProbeResult(True, f"logged in as {spec.user}; {got.tls.message.split(': ', 1)[-1]}", notes=tuple(got.notes))
