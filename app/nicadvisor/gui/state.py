"""What the wizard pages share: the chosen input, the live targets, the audit, the benchmark and the export
results, and the audit history store."""
from __future__ import annotations

import enum
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class Source(str, enum.Enum):
    """Where the audit reads its facts: the bundled demo lab, capture files/folders/vm-support
    bundles, this machine (local Linux commands), or live targets (vCenter, SSH hosts, NSX Manager)."""

    DEMO = "demo"
    CAPTURES = "captures"
    LOCAL = "local"
    LIVE = "live"


def split_https_url(url: str) -> tuple[str, int]:
    """``"https://vc.example.com:8443/sdk"`` → ``("vc.example.com", 8443)``; a URL without scheme is taken
    as https; the port defaults to 443. Raises ValueError for another scheme or a URL without a host
    (pure: no name resolution)."""
    text = url.strip()
    parts = urllib.parse.urlsplit(text if "://" in text else "https://" + text)
    if parts.scheme.lower() != "https":
        raise ValueError(f"{url!r}: only https:// URLs are supported (the credentials would travel in clear text)")
    try:
        port = parts.port or 443
    except ValueError:
        raise ValueError(f"{url!r}: the port is not a number between 1 and 65535") from None
    if not parts.hostname:
        raise ValueError(f"{url!r}: no host name in the URL")
    return parts.hostname, port


@dataclass(eq=False)
class HttpsSpec:
    """Base of the targets reached over https (vCenter, NSX Manager; GUI thread only).

    Attributes:
        url: ``https://host[:port][/path]`` as typed.
        user: the login user.
        password: kept in memory only (never logged, never in ``repr``); empty means "use the password
            saved in the OS keyring" (looked up on a worker thread).
        remember: save ``password`` in the OS keyring (service :attr:`service_id`).
        thumbprint: pinned SHA-256 thumbprint of a self-signed certificate (``"AA:BB:…"``), set when the
            user accepts the trust dialog of Test connection; empty: the system CA store must trust it.
        status: the last Test connection / audit outcome shown in the list.

    Class attributes of the subclasses: ``kind_label`` (``"vCenter"``), ``scheme`` (of :attr:`source` and
    :attr:`service_id`: ``"vcenter"``), ``port_in_label`` (False: :attr:`label` omits port 443).
    """

    url: str
    user: str
    password: str = field(default="", repr=False)
    remember: bool = False
    thumbprint: str = ""
    status: str = "not tested"

    kind_label = ""
    scheme = ""
    port_in_label = True

    @property
    def host_port(self) -> tuple[str, int]:
        """(host, port) of :attr:`url`; raises ValueError as :func:`split_https_url`."""
        return split_https_url(self.url)

    @property
    def label(self) -> str:
        """``host:port`` (or ``host`` for port 443 when ``port_in_label`` is False): how the collector's progress
        messages name this target (``nicadvisor.collect.vsphere`` / ``nicadvisor.collect.nsx``)."""
        host, port = self.host_port
        return host if port == 443 and not self.port_in_label else f"{host}:{port}"

    @property
    def source(self) -> str:
        """``<scheme>://<label>``: the ``source`` of this target's input problems."""
        return f"{self.scheme}://{self.label}"

    @property
    def service_id(self) -> str:
        """Keyring service id ``<scheme>:<host>:<port>`` (same as the CLI, ``nicadvisor.cli_live``)."""
        host, port = self.host_port
        return f"{self.scheme}:{host}:{port}"


@dataclass(eq=False)
class VcenterSpec(HttpsSpec):
    """A vCenter (or ESXi SDK endpoint) entered on the Connect page (fields of :class:`HttpsSpec`, keyring
    service ``vcenter:<host>:<port>``, source ``vcenter://host:port``), plus its audit scope.

    Attributes:
        datacenter, cluster: optional scope (names as vCenter shows them), empty for all.
        host_names: optional scope: HostSystem names (``VsphereTarget.host_names``), empty for all.
        esxcli: also run esxcli through the vSphere API on every host (``VsphereTarget.esxcli``: nic list,
            coalesce, nic get per pNIC, module parameters per driver), for locked-down hosts without SSH.
        inventory: the datacenter → cluster → host tree read by "Browse hosts"
            (``nicadvisor.collect.vsphere.InventoryNode`` list), None until read. Not part of :meth:`key`.
    """

    datacenter: str = ""
    cluster: str = ""
    host_names: tuple[str, ...] = ()
    esxcli: bool = False
    inventory: list | None = field(default=None, repr=False)

    kind_label = "vCenter"
    scheme = "vcenter"
    port_in_label = True

    def key(self) -> tuple:
        """Identity for "did the input change" (no secret)."""
        return ("vcenter", self.url, self.user, self.datacenter, self.cluster, self.thumbprint, self.host_names,
                self.esxcli)


@dataclass(eq=False)
class SshSpec:
    """An ESXi or Linux host reached over SSH (GUI thread only).

    Attributes:
        spec: ``user@host[:port]`` as typed (``user@[v6addr]:port`` for IPv6).
        kind: ``"esxi"`` or ``"linux"``.
        password: in memory only; empty with no key file means "use the password saved in the OS keyring".
        key_file: an unencrypted private key file (then no password is needed).
        remember: save ``password`` in the OS keyring (service ``ssh:<host>:<port>``).
        trusted_fingerprint: ``SHA256:…`` host key to trust on first contact (optional; otherwise the
            host-key dialog asks on first contact).
        stored_key: ``"ssh-ed25519 SHA256:…"``, the host key NIC Advisor's known_hosts holds for this host, as read
            after a Test connection or an audit (empty: none seen yet; never typed).
        status: last Test connection / audit outcome.
    """

    spec: str
    kind: str = "esxi"
    password: str = field(default="", repr=False)
    key_file: str = ""
    remember: bool = False
    trusted_fingerprint: str = ""
    stored_key: str = ""
    status: str = "not tested"

    kind_label = "SSH host"

    def parts(self) -> tuple[str, str, int]:
        """(user, host, port); raises ValueError for a malformed :attr:`spec`."""
        from nicadvisor.services.targets import parse_ssh_spec

        return parse_ssh_spec(self.spec)

    @property
    def label(self) -> str:
        """The host's name in the audit and its progress messages: ``host``, or ``host:port`` when the
        port is not 22 (``SshTarget.name``)."""
        _user, host, port = self.parts()
        return host if port == 22 else f"{host}:{port}"

    @property
    def source(self) -> str:
        """``ssh://user@host:port`` (``SshTarget.source``)."""
        user, host, port = self.parts()
        shown = f"[{host}]" if ":" in host else host
        return f"ssh://{user}@{shown}:{port}"

    @property
    def service_id(self) -> str:
        """Keyring service id ``ssh:<host>:<port>`` (``nicadvisor.secrets.ssh_service_id``)."""
        _user, host, port = self.parts()
        return f"ssh:{host}:{port}"

    @property
    def user(self) -> str:
        return self.parts()[0]

    def key(self) -> tuple:
        return ("ssh", self.spec, self.kind, self.key_file, self.trusted_fingerprint)


@dataclass(eq=False)
class NsxSpec(HttpsSpec):
    """An NSX Manager (GUI thread only): the fields of :class:`HttpsSpec`; :attr:`label` is ``host`` (port
    443) or ``host:port`` (how NSX progress messages name the manager), source ``nsx://<label>``, keyring
    service ``nsx:<host>:<port>``."""

    kind_label = "NSX Manager"
    scheme = "nsx"
    port_in_label = False

    def key(self) -> tuple:
        return ("nsx", self.url, self.user, self.thumbprint)


@dataclass
class WizardState:
    """Shared state of one wizard run (GUI thread only).

    Attributes:
        source: the input chosen on the Connect page.
        capture_paths: files, folders or vm-support bundles (used when ``source`` is CAPTURES).
        vcenters, ssh_hosts, nsx_managers: live targets (used when ``source`` is LIVE).
        audit: the ``nicadvisor.model.Audit`` once Discover finished (or a past audit was opened), else None.
        opened_history_id: id of the past audit shown (opened from the history), else None.
        bench_report: the ``BenchReport`` of the last benchmark run, else None.
        exported: paths written by the last export.
        store: the ``nicadvisor.store.AuditStore`` (audit history), None when it could not be opened.
        store_problem: why the history could not be opened (shown on the Connect page), else "".
        store_loading: True while the wizard opens the history on a worker (``store`` is None meanwhile).
        known_hosts: the ``KnownHosts`` SSH host-key store (None: the app's default file).
    """

    source: Source = Source.DEMO
    capture_paths: tuple[str, ...] = ()
    vcenters: list[VcenterSpec] = field(default_factory=list)
    ssh_hosts: list[SshSpec] = field(default_factory=list)
    nsx_managers: list[NsxSpec] = field(default_factory=list)
    audit: Any = None
    opened_history_id: int | None = None
    bench_report: Any = None
    exported: list[Path] = field(default_factory=list)
    store: Any = None
    store_problem: str = ""
    store_loading: bool = False
    known_hosts: Any = None
    # out of band (gui/widgets/out_of_band.py): BMCs read over Redfish, the attestation file and how often the
    # wizard added to it (a changed file audits again)
    bmcs: list[Any] = field(default_factory=list)
    attestations_file: str = ""
    attestations_edits: int = 0
    target_nsx: str = ""  # the NSX version the rollout targets (Connect page), "" when not given

    def live_specs(self) -> list[VcenterSpec | SshSpec | NsxSpec]:
        """Every live target, vCenters first, then SSH hosts, then NSX Managers."""
        return [*self.vcenters, *self.ssh_hosts, *self.nsx_managers]

    def input_key(self) -> tuple:
        """Identity of the chosen input: Discover re-runs the audit only when it changed."""
        paths = self.capture_paths if self.source is Source.CAPTURES else ()
        live = tuple(s.key() for s in self.live_specs()) if self.source is Source.LIVE else ()
        oob = (tuple(b.key() for b in self.bmcs), self.attestations_file, self.attestations_edits)
        return (self.source.value, paths, live, oob)
