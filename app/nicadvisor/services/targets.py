"""Use-case: the live targets of an audit or a benchmark, built once for both front ends.

What the user entered (:class:`TargetsRequest`: vCenter/ESXi SDK URLs, ``user@host[:port]`` SSH hosts, NSX Manager
URLs, pins, scope) becomes the collector targets of :class:`~nicadvisor.services.audit.AuditRequest` and of a
benchmark between hosts (:class:`LiveTargets`). Each front end only translates its input and says where passwords
come from (:class:`Passwords`: the CLI's ``--password-stdin``/``--password-file``, environment, keyring or prompt;
the wizard's typed password or keyring). TLS pins: a target's own ``thumbprint`` is used and, after the login
succeeded, saved in the pin store (default the app's, :func:`app_pins`); without one the stored pin is used;
without either the system CA store decides.

The target syntax both front ends check while the user types is the one the collectors accept:
:func:`parse_ssh_spec` (``user@host[:port]``), :func:`normalize_thumbprint` (a certificate's SHA-256 thumbprint)
and :func:`normalise_fingerprint` (an SSH host key's ``SHA256:`` fingerprint), each raising ValueError with the
sentence to show.
"""
from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from nicadvisor.collect.known_hosts import normalise_fingerprint
from nicadvisor.collect.ssh import parse_ssh_spec
from nicadvisor.collect.tls_pinning import normalize_thumbprint
from nicadvisor.model import InputProblem

__all__ = ["LiveTargets", "NsxEntry", "Passwords", "SshEntry", "TargetsRequest", "VcenterEntry", "app_pins",
           "build_targets", "host_port", "normalise_fingerprint", "normalize_thumbprint", "nsx_target",
           "parse_ssh_spec", "ssh_target", "vsphere_target"]

#: The longest an NSX Manager request may wait (seconds), whatever the per-call timeout asked for.
NSX_MAX_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class VcenterEntry:
    """A vCenter (or ESXi SDK endpoint): ``url`` (``https://host[:port][/sdk]``, ``host[:port]``), ``user``,
    ``thumbprint`` (SHA-256 pin of a self-signed certificate, any case/separator; None: stored pin or CA), scope
    ``datacenter``/``cluster``/``host_names`` (names as vCenter shows them; empty: all), ``esxcli``: also run the
    allowlisted esxcli commands through the vSphere API."""

    url: str
    user: str
    thumbprint: str | None = None
    datacenter: str | None = None
    cluster: str | None = None
    host_names: tuple[str, ...] = ()
    esxcli: bool = False


@dataclass(frozen=True)
class SshEntry:
    """An ESXi or Linux host over SSH: ``spec`` ``user@host[:port]`` (``user@[v6addr]:port``), ``kind``
    ``"esxi"``/``"linux"``, ``key_file`` (then a password is asked only when one is at hand),
    ``trusted_fingerprint`` (``SHA256:…`` host key trusted on first contact; None: asked)."""

    spec: str
    kind: str = "esxi"
    key_file: str | None = None
    trusted_fingerprint: str | None = None


@dataclass(frozen=True)
class NsxEntry:
    """An NSX Manager: ``url`` (``https://host[:port]``), ``user``, ``thumbprint`` as for :class:`VcenterEntry`."""

    url: str
    user: str
    thumbprint: str | None = None


@dataclass(frozen=True)
class TargetsRequest:
    """The live targets to build, in this order: ``vcenter``, ``ssh``, ``nsx``; ``timeout_s``: seconds per call
    (vSphere socket, SSH command, NSX request, the latter at most :data:`NSX_MAX_TIMEOUT_S`); None: each
    collector's own default."""

    vcenter: tuple[VcenterEntry, ...] = ()
    ssh: tuple[SshEntry, ...] = ()
    nsx: tuple[NsxEntry, ...] = ()
    timeout_s: float | None = None


class Passwords(Protocol):
    """Where a front end finds a password: ``(service_id, user, label, required=...) -> password``.

    ``service_id`` is the keyring id (``vcenter:<host>:<port>``, ``ssh:<host>:<port>``, ``nsx:<host>:<port>``),
    ``label`` names the target for a prompt (``"vCenter vc1:443"``); ``required`` is False for an SSH host with a
    key file (return a password only when one is at hand, else None). Raises ValueError (its message is shown)
    when a required password cannot be found."""

    def __call__(self, service_id: str, user: str, label: str, *, required: bool) -> str | None: ...


@dataclass
class LiveTargets:
    """The collector targets built (:func:`build_targets`): ``vsphere``, ``ssh``, ``nsx`` tuples for
    :class:`~nicadvisor.services.audit.AuditRequest` (:meth:`audit_fields`) or a benchmark between hosts;
    ``problems``: one :class:`~nicadvisor.model.InputProblem` per target that could not be built (no password,
    bad URL or spec), named by the target as entered."""

    vsphere: tuple = ()
    ssh: tuple = ()
    nsx: tuple = ()
    problems: list[InputProblem] = field(default_factory=list)

    def audit_fields(self) -> dict[str, tuple]:
        """``{"vsphere": …, "ssh": …, "nsx": …}``: the keyword arguments of ``AuditRequest``."""
        return {"vsphere": self.vsphere, "ssh": self.ssh, "nsx": self.nsx}


def host_port(url: str, default_port: int = 443) -> tuple[str, int]:
    """``"https://vc1.example.com:8443/sdk"`` → ``("vc1.example.com", 8443)``; no scheme means https. Raises
    ValueError for another scheme (a password would travel in clear text), a URL without a host or with a port
    that is not a number."""
    text = url.strip()
    p = urllib.parse.urlsplit(text if "://" in text else "https://" + text)
    if p.scheme.lower() != "https":
        raise ValueError(f"{url!r}: only https:// URLs are supported (the password would travel in clear text)")
    try:
        port = p.port or default_port
    except ValueError:
        raise ValueError(f"{url!r}: the port is not a number between 1 and 65535") from None
    if not p.hostname:
        raise ValueError(f"{url!r}: no host name")
    return p.hostname, port


def app_pins() -> Any:
    """The app's TLS pin store (:class:`nicadvisor.collect.tls_pins.TlsPins` under the user config folder)."""
    from nicadvisor.collect.tls_pins import TlsPins

    return TlsPins()


def vsphere_target(entry: VcenterEntry, password: str, *, pins: Any = None, timeout_s: float | None = None) -> Any:
    """The collector target (``nicadvisor.collect.vsphere.VsphereTarget``) of ``entry``, with the pin store
    ``pins`` (None: none is read or written). Raises ValueError for a bad URL."""
    from nicadvisor.collect.vsphere import VsphereTarget

    timing = {"timeout_s": timeout_s} if timeout_s is not None else {}
    return VsphereTarget.from_url(entry.url, entry.user, password, thumbprint=entry.thumbprint or None,
                                  datacenter=entry.datacenter or None, cluster=entry.cluster or None,
                                  host_names=tuple(entry.host_names), esxcli=bool(entry.esxcli), pins=pins, **timing)


def ssh_target(entry: SshEntry, password: str | None, *, timeout_s: float | None = None) -> Any:
    """The collector target (``nicadvisor.collect.ssh.SshTarget``) of ``entry``. Raises ValueError (bad
    ``user@host[:port]``, neither a password nor a key file)."""
    from nicadvisor.collect.ssh import SshTarget

    timing = {"command_timeout_s": timeout_s} if timeout_s is not None else {}
    return SshTarget.parse(entry.spec, kind=entry.kind, password=password, key_filename=entry.key_file or None,
                           trusted_fingerprint=entry.trusted_fingerprint or None, **timing)


def nsx_target(entry: NsxEntry, password: str, *, pins: Any = None, timeout_s: float | None = None) -> Any:
    """The collector target (``nicadvisor.collect.nsx.NsxTarget``) of ``entry``, requests bounded by ``timeout_s``
    (at most :data:`NSX_MAX_TIMEOUT_S`)."""
    from nicadvisor.collect.nsx import NsxTarget

    timing = {"timeout_s": min(timeout_s, NSX_MAX_TIMEOUT_S)} if timeout_s is not None else {}
    return NsxTarget(url=entry.url, user=entry.user, password=password, thumbprint=entry.thumbprint or None,
                     pins=pins, **timing)


def password_of(entry: VcenterEntry | SshEntry | NsxEntry, passwords: Passwords) -> str | None:
    """The password ``passwords`` gives for ``entry`` (under its keyring service id). Raises ValueError (no password,
    a bad URL or spec)."""
    if isinstance(entry, SshEntry):
        user, host, port = parse_ssh_spec(entry.spec)
        return passwords(f"ssh:{host}:{port}", user, f"{host}:{port}", required=not entry.key_file)
    host, port = host_port(entry.url)
    scheme, label = ("vcenter", "vCenter") if isinstance(entry, VcenterEntry) else ("nsx", "NSX Manager")
    return passwords(f"{scheme}:{host}:{port}", entry.user, f"{label} {host}:{port}", required=True)


def _source(entry: VcenterEntry | SshEntry | NsxEntry) -> str:
    """How a problem names a target that could not be built: as the collector would (``ssh://user@host:22``)
    where the text allows, else as entered."""
    try:
        if isinstance(entry, SshEntry):
            user, host, port = parse_ssh_spec(entry.spec)
            return f"ssh://{user}@{f'[{host}]' if ':' in host else host}:{port}"
        host, port = host_port(entry.url)
    except ValueError:
        what = {SshEntry: "SSH host", VcenterEntry: "vCenter", NsxEntry: "NSX Manager"}[type(entry)]
        return f"{what}: {getattr(entry, 'spec', None) or getattr(entry, 'url', '')}"
    if isinstance(entry, VcenterEntry):
        return f"vcenter://{host}:{port}"
    return f"nsx://{host if port == 443 else f'{host}:{port}'}"


def build_targets(request: TargetsRequest, passwords: Passwords, *, pins: Any = None,
                  stop_at_first_problem: bool = False) -> LiveTargets:
    """The collector targets of ``request``, passwords from ``passwords`` (asked in target order: vCenters, SSH
    hosts, NSX Managers; blocking: a keyring or a prompt may wait), TLS pins read from and saved in ``pins``
    (default :func:`app_pins`). Never raises for a target: one that cannot be built is a problem of the result;
    with ``stop_at_first_problem`` nothing more is built (nor a password asked) after the first."""
    out = LiveTargets()
    store = pins if pins is not None else (app_pins() if request.vcenter or request.nsx else None)
    makers: list[tuple[str, tuple, Callable[[Any, Any], Any]]] = [
        ("vsphere", request.vcenter, lambda e, pw: vsphere_target(e, pw, pins=store, timeout_s=request.timeout_s)),
        ("ssh", request.ssh, lambda e, pw: ssh_target(e, pw, timeout_s=request.timeout_s)),
        ("nsx", request.nsx, lambda e, pw: nsx_target(e, pw, pins=store, timeout_s=request.timeout_s)),
    ]
    for name, entries, make in makers:
        built = []
        for entry in entries:
            if stop_at_first_problem and out.problems:
                break
            try:
                built.append(make(entry, password_of(entry, passwords)))
            except ValueError as exc:
                out.problems.append(InputProblem(_source(entry), str(exc)))
        setattr(out, name, tuple(built))
    return out

