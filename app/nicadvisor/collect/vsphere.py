"""Live audit of vCenter / ESXi through the vSphere API (pyVmomi): pNIC, switch and vmknic facts.

``collect_vsphere(targets, progress, cancel)`` audits one or more vCenters (or ESXi hosts) at once,
each on its own worker thread with its own session, and returns one
:class:`~nicadvisor.parsers.assemble.HostInputs` per HostSystem plus the problems met.

Per vCenter (nic-data-sources.md §1.1, performance-baselines.md §1):

1. TLS trust (:mod:`nicadvisor.collect.tls_pinning`): system CA store by default; a self-signed server
   only with a pinned SHA-256 thumbprint; ``insecure`` is an explicit opt-in that is logged and marked
   in the result (``VcenterSession.trust`` and every Capture's notes).
2. API version negotiated from ``/sdk/vimServiceVersions.xml``; login with ``SessionManager.Login``.
3. One PropertyCollector retrieval for the VDSs and portgroups of the scope (``config.maxMtu``,
   ``config.ipfixConfig``, ``summary.hostMember``, ``config.host``, portgroups'
   ``config.defaultPortConfig``), then one over a ContainerView of the HostSystems with the explicit
   :data:`HOST_PATHS` (``RetrievePropertiesEx`` + ``ContinueRetrievePropertiesEx`` paging; no lazy
   attribute walks: one host costs no extra round trip). ``hardware.pciDevice`` is kept for network-class
   devices and the pNICs' addresses only. These two bulk reads skip pyVmomi's deserializer by default
   (``raw_xml``): the answers are parsed with ElementTree by :mod:`nicadvisor.collect.vsphere_rawxml`
   straight into the :func:`to_plain` shapes (same data, about 8× less client CPU, §1.4). Every call of a
   session, pages included, is sent from the target's worker thread (no prefetch thread).
4. Per connected host (``modules=True``): ``HostKernelModuleSystem.QueryModules`` and
   ``QueryConfiguredModuleOptionString`` for the pNIC drivers.
5. Per connected host (:mod:`nicadvisor.collect.vsphere_esxcli`): LLDP/CDP with
   ``HostNetworkSystem.QueryNetworkHint`` (``network_hints=True``) and, opt-in (``esxcli=True``, for hosts
   whose SSH is off), allowlisted esxcli commands through ``RetrieveManagedMethodExecuter`` + ``ExecuteSoap``.

Every SOAP call has a socket timeout (``timeout_s``). Failures never raise out of
:func:`collect_vsphere`: a vCenter that cannot be reached, refuses the login or the certificate, or
dies mid-audit becomes an :class:`~nicadvisor.model.InputProblem` naming it (hosts read before it died
are kept), and the other vCenters' hosts are still returned. Disconnected / not responding hosts and
hosts in maintenance mode are reported as problems of that host. Only cancellation raises
(:class:`nicadvisor.cancel.Cancelled`, checked between pages and hosts; a watcher thread also shuts down the
session's sockets as soon as ``cancel`` is set, so a call blocked on a hung server fails at once, and
``DestroyView``/``Logout`` are skipped after a cancel or a connection error).
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import http.client
import logging
import socket
import ssl
import threading
import time
import urllib.parse
import weakref
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from pyVmomi import SoapStubAdapter, vim, vmodl
from pyVmomi.VmomiSupport import XMLNS_VMODL_BASE, GetServiceVersions, GetWsdlType, versionIdMap

from nicadvisor.cancel import Cancelled, check
from nicadvisor.parsers.assemble import HostInputs
from nicadvisor.parsers.capture_file import Capture
from nicadvisor.collect.deadline import bounded, deadline
from nicadvisor.collect.tls_pinning import TlsTrustError, TrustDecision, pin_broken, ssl_context_for
from nicadvisor.collect.tls_pins import TlsPins
from nicadvisor.collect import vsphere_esxcli as vx
from nicadvisor.parsers.api import vsphere_objects as vf
from nicadvisor.collect.vsphere_rawxml import RawObjectContent, RawPropertyCollector
from nicadvisor.collect.vsphere_values import ref_string, to_plain  # noqa: F401 (re-exported: the plain shapes)
from nicadvisor.model import InputProblem

log = logging.getLogger(__name__)

Progress = Callable[[float, str], None]

HOST_PATHS: tuple[str, ...] = (
    "name",
    "summary.config.product.version",
    "summary.config.product.build",
    "runtime.connectionState",
    "runtime.inMaintenanceMode",
    "config.network.pnic",
    "hardware.pciDevice",
    "config.network.vswitch",
    "config.network.proxySwitch",
    "config.network.opaqueSwitch",
    "config.network.vnic",
    "configManager.kernelModuleSystem",
    "configManager.networkSystem",
)
"""HostSystem property paths read in the one PropertyCollector retrieval (§1.1)."""

DVS_PATHS: tuple[str, ...] = ("name", "uuid", "summary.hostMember", "config.host")
VMWARE_DVS_PATHS: tuple[str, ...] = ("config.maxMtu", "config.ipfixConfig")
PORTGROUP_PATHS: tuple[str, ...] = ("name", "key", "config.distributedVirtualSwitch", "config.defaultPortConfig")

INVENTORY_COMMAND = ("vSphere API: PropertyCollector.RetrievePropertiesEx HostSystem " + " ".join(HOST_PATHS)
                     + " ; VmwareDistributedVirtualSwitch " + " ".join(DVS_PATHS + VMWARE_DVS_PATHS)
                     + " ; DistributedVirtualPortgroup " + " ".join(PORTGROUP_PATHS))
MODULES_COMMAND = "vSphere API: HostKernelModuleSystem.QueryModules ; QueryConfiguredModuleOptionString"

# Faults meaning "this server cannot answer that call at all" (vcsim has no HostKernelModuleSystem).
_UNSUPPORTED_FAULTS = (vmodl.fault.ManagedObjectNotFound, vmodl.fault.NotSupported,
                       vmodl.fault.MethodNotFound, vim.fault.NotFound)
_CONNECTION_ERRORS = (OSError, http.client.HTTPException)


@dataclass(frozen=True, kw_only=True)
class VsphereTarget:
    """One vCenter (or ESXi host) to audit.

    ``host``/``port`` of the SDK endpoint; ``user``/``password`` (the password is never logged nor
    shown in ``repr``); ``thumbprint``: pinned SHA-256 of the server certificate (``"AA:BB:…"``), needed
    for a self-signed server; ``insecure``: accept any certificate for this session (explicit, logged,
    marked in the result); ``timeout_s``: socket timeout of every call, seconds. Scope filters:
    ``datacenter`` / ``cluster`` names, ``host_names`` (HostSystem names as vCenter shows them).
    ``modules``: also query driver modules per host (2 calls per host); ``page_size``: objects per
    ``RetrievePropertiesEx`` page. ``network_hints``: LLDP/CDP per host (1 call per host); ``esxcli``: also
    run esxcli over the API per host (nic list, coalesce, nic get per pNIC, module parameters per driver).
    ``raw_xml``: parse the bulk PropertyCollector answers (VDSs, hosts) with ElementTree
    (:mod:`~nicadvisor.collect.vsphere_rawxml`) instead of pyVmomi's deserializer; same facts, faster.
    ``pins``: the TLS pin store (:class:`~nicadvisor.collect.tls_pins.TlsPins`): its pin for this server is
    used when ``thumbprint`` is not given, and an explicit ``thumbprint`` is saved in it after the login
    succeeded; None (default) reads and writes no store.
    """

    host: str
    port: int = 443
    user: str
    password: str = field(repr=False)
    thumbprint: str | None = None
    insecure: bool = False
    timeout_s: float = 30.0
    datacenter: str | None = None
    cluster: str | None = None
    host_names: tuple[str, ...] = ()
    modules: bool = True
    page_size: int = 100
    network_hints: bool = True
    esxcli: bool = False
    raw_xml: bool = True
    pins: TlsPins | None = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        """``host:port`` as shown in messages."""
        return f"{self.host}:{self.port}"

    @property
    def source(self) -> str:
        """``vcenter://host:port``: the source of this target's captures and problems."""
        return f"vcenter://{self.label}"

    @classmethod
    def from_url(cls, url: str, user: str, password: str, **kwargs: Any) -> "VsphereTarget":
        """Target from ``https://vc.example.com[:443][/sdk]``, ``vc.example.com:8443`` or ``vc.example.com``.

        Other keyword arguments are the fields above. Raises ValueError for a URL without a host or with
        a scheme other than https.
        """
        text = url.strip()
        parsed = urllib.parse.urlsplit(text if "://" in text else "https://" + text)
        if parsed.scheme != "https":
            raise ValueError(f"{url!r}: only https:// vCenter URLs are supported")
        if not parsed.hostname:
            raise ValueError(f"{url!r}: no host name in the vCenter URL")
        return cls(host=parsed.hostname, port=parsed.port or 443, user=user, password=password, **kwargs)


@dataclass
class VcenterSession:
    """What happened with one target: ``trust`` (how TLS was trusted; None when it failed before),
    ``about`` (``AboutInfo.fullName``), ``api_version`` (negotiated, e.g. ``"8.0.3.0"``), ``hosts``
    (number of HostInputs returned), ``elapsed_s`` (wall seconds), ``error`` (the vCenter-level
    problem message when the audit of this target failed or stopped early)."""

    target: str
    trust: TrustDecision | None = None
    about: str | None = None
    api_version: str | None = None
    hosts: int = 0
    elapsed_s: float = 0.0
    error: str | None = None


@dataclass
class VsphereCollection:
    """The result of :func:`collect_vsphere`: ``hosts`` (one HostInputs per HostSystem, kind ``esxi``,
    ``parsed`` holding (recorded API response, facts) pairs), ``problems`` (vCenter-level problems;
    host-level ones are in each HostInputs), ``sessions`` (one per target, in target order)."""

    hosts: list[HostInputs] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)
    sessions: list[VcenterSession] = field(default_factory=list)


class _HostCallbackError(RuntimeError):
    """The ``on_host`` callback of :func:`collect_vsphere` failed (e.g. the audit history could not be
    written); raised out of :func:`collect_vsphere` with the original exception as ``__cause__``."""


class _ScopeError(Exception):
    """A datacenter / cluster / host named in the target's scope does not exist."""


# --- pyVmomi values → plain values ---------------------------------------------------------------

def _moid(ref: Any) -> str:
    return ref.split(":", 1)[-1] if isinstance(ref, str) else ""


def _is_type(wsdl_name: str, cls: type) -> bool:
    """True when the vim type named ``wsdl_name`` (``"DistributedVirtualPortgroup"``) is ``cls`` or a subclass."""
    try:
        return issubclass(GetWsdlType(XMLNS_VMODL_BASE, wsdl_name), cls)
    except KeyError:
        return wsdl_name == getattr(cls, "_wsdlName", None)


def _network_pci(dev_id: Any, class_id: Any, addrs: set) -> bool:
    """Whether a ``hardware.pciDevice`` entry is kept: a pNIC's address or PCI class 0x02xx (network)."""
    return dev_id in addrs or ((class_id or 0) & 0xFFFF) >> 8 == 0x02


def _int_or_none(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


@dataclass
class _Content:
    """One ``ObjectContent`` as plain data, whichever reader produced it: ``type`` (wsdl name,
    ``"HostSystem"``), ``moid``, ``props`` (``{path: to_plain value}`` in answer order) and ``missing``
    (``[(path, pyVmomi fault or None)]`` of the ``missingSet``)."""

    type: str
    moid: str
    props: dict[str, Any]
    missing: list[tuple[str, Any]]

    @property
    def ref(self) -> str:
        """``"HostSystem:host-21"`` (:func:`ref_string` form)."""
        return f"{self.type}:{self.moid}"

    @classmethod
    def from_pyvmomi(cls, oc: Any, network_pci: bool) -> "_Content":
        """From a pyVmomi ObjectContent; ``network_pci``: keep only network ``hardware.pciDevice`` entries."""
        raw = {p.name: p.val for p in oc.propSet}
        if network_pci and "hardware.pciDevice" in raw:
            addrs = {getattr(p, "pci", None) for p in raw.get("config.network.pnic") or []}
            raw["hardware.pciDevice"] = [d for d in raw["hardware.pciDevice"] or []
                                         if _network_pci(d.id, d.classId, addrs)]
        return cls(oc.obj._wsdlName, oc.obj._moId, {k: to_plain(v) for k, v in raw.items()},
                   [(m.path, m.fault) for m in oc.missingSet or []])

    @classmethod
    def from_raw(cls, rc: RawObjectContent, network_pci: bool) -> "_Content":
        """From a raw-XML ObjectContent (same values as :meth:`from_pyvmomi`; unwanted PCI devices are not
        even converted)."""
        pci_path = "hardware.pciDevice"
        props = {path: (None if network_pci and path == pci_path else rc.plain(path)) for path in rc.vals}
        if network_pci and pci_path in props:
            addrs = {p.get("pci") for p in props.get("config.network.pnic") or [] if isinstance(p, dict)}
            props[pci_path] = rc.plain_items(
                pci_path, lambda get: _network_pci(get("id"), _int_or_none(get("classId")), addrs))
        return cls(rc.obj_type, rc.moid, props, list(rc.missing))


# --- connection ----------------------------------------------------------------------------------

def negotiate_version(host: str, port: int, ctx: ssl.SSLContext, timeout: float) -> str:
    """The newest pyVmomi ``vim.version.*`` the server supports, from ``/sdk/vimServiceVersions.xml``.

    Raises ConnectionError when the endpoint does not describe a vim25 API, OSError when unreachable.
    """
    conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=ctx)
    try:
        with deadline(timeout):  # the whole exchange, not each read (with a bounded() ctx)
            conn.request("GET", "/sdk/vimServiceVersions.xml")
            resp = conn.getresponse()
            body = resp.read(1 << 20)
            status = resp.status
    finally:
        conn.close()
    if status != 200:
        raise ConnectionError(f"not a vSphere API endpoint (GET /sdk/vimServiceVersions.xml answered {status})")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise ConnectionError(f"not a vSphere API endpoint (vimServiceVersions.xml unreadable: {exc})") from exc
    supported: set[str] = set()
    for ns in root.iter("namespace"):
        if (ns.findtext("name") or "").strip() == "urn:vim25":
            supported.add((ns.findtext("version") or "").strip())
            supported.update((v.text or "").strip() for v in ns.findall("priorVersions/version"))
    for version in GetServiceVersions("vim25"):
        if versionIdMap.get(version) in supported:
            return version
    raise ConnectionError(f"no API version in common with the server (server offers {sorted(supported)})")


def describe_error(exc: BaseException, target: VsphereTarget, trust: TrustDecision | None = None) -> str:
    """A one-line, user-facing reason for ``exc`` (never containing the password); ``trust``: how the session's
    certificate was trusted (a pinned certificate failing a later handshake has CHANGED)."""
    if isinstance(exc, ssl.SSLCertVerificationError) and trust is not None and trust.mode == "pinned":
        return str(pin_broken(target.host, target.port, trust, target.timeout_s, target.pins))
    if isinstance(exc, vim.fault.InvalidLogin):
        return f"login refused for user {target.user!r}: wrong user name or password"
    if isinstance(exc, TlsTrustError):
        return str(exc)
    if isinstance(exc, vim.fault.NoPermission):
        obj = getattr(exc, "object", None)
        what = _moid(obj) if obj is not None else "an object"
        return (f"no permission to read {what} (missing privilege {getattr(exc, 'privilegeId', '') or 'unknown'}) "
                f"as user {target.user!r}: the account needs the Read-only role on it")
    if isinstance(exc, vmodl.MethodFault):
        return f"{type(exc).__name__.rsplit('.', 1)[-1]}: {getattr(exc, 'msg', '') or exc.__class__.__name__}"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return f"no answer within {target.timeout_s:g} s ({exc or 'timed out'})"
    if isinstance(exc, (ssl.SSLEOFError, ssl.SSLZeroReturnError, ConnectionResetError, BrokenPipeError,
                        http.client.RemoteDisconnected, http.client.IncompleteRead)):
        return f"the server closed the connection: it stopped answering or restarted ({type(exc).__name__}: {exc})"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the vCenter up and the port right?)"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failure: {exc}"
    if isinstance(exc, ConnectionError) and type(exc) is ConnectionError:
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class _AbortableStub(SoapStubAdapter):
    """pyVmomi's ``SoapStubAdapter`` whose HTTP connections — pooled AND in use — can be shut down from another
    thread (:meth:`abort`). ``DropConnections`` alone closes only the idle pooled connections, not the one a
    blocked call is reading. Every connection :meth:`GetConnection` hands out (pyVmomi's calls and the raw-XML
    reader both take theirs there) is tracked weakly; after :meth:`abort`, :meth:`GetConnection` raises
    ConnectionAbortedError. ``call_timeout_s`` bounds each call as a whole — request and the complete answer
    (:func:`nicadvisor.collect.deadline.deadline`; its ``sslContext`` must be :func:`~nicadvisor.collect.deadline.
    bounded`): a server that sends one byte every few seconds answers every read within a socket timeout."""

    def __init__(self, *args: Any, call_timeout_s: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.call_timeout_s = call_timeout_s
        self._handed_out: weakref.WeakSet = weakref.WeakSet()
        self._handed_lock = threading.Lock()
        self.aborted = False

    def GetConnection(self) -> Any:  # noqa: N802 - pyVmomi's method name
        if self.aborted:
            raise ConnectionAbortedError("the vSphere session was closed (audit cancelled)")
        conn = super().GetConnection()
        with self._handed_lock:
            self._handed_out.add(conn)
        return conn

    def InvokeMethod(self, mo: Any, info: Any, args: Any, outerStub: Any = None) -> Any:  # noqa: N802, N803 - pyVmomi's
        with deadline(self.call_timeout_s):
            return super().InvokeMethod(mo, info, args, outerStub)

    def abort(self) -> None:
        """Shut down the socket of every connection (from any thread): a blocked send, receive or TLS handshake
        ends at once with an error (OSError / http.client.HTTPException); then drop the pool."""
        self.aborted = True
        with self._handed_lock:
            conns = list(self._handed_out)
        for conn in conns:
            sock = getattr(conn, "sock", None)
            if sock is None:
                continue
            try:  # the plain socket call: shuts the TCP connection under a TLS socket too, wakes a blocked read
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError as exc:
                log.debug("vSphere %s: socket already closed: %s", self.host, exc)
        self.DropConnections()


class _ProgressHub:
    """Aggregates per-target progress into one ``progress(fraction, message)`` stream; calls are
    serialized with a lock (they come from the worker threads)."""

    def __init__(self, progress: Progress | None, n: int) -> None:
        self._progress = progress
        self._fractions = [0.0] * max(n, 1)
        self._lock = threading.Lock()

    def report(self, index: int, fraction: float, message: str) -> None:
        if self._progress is None:
            return
        with self._lock:
            self._fractions[index] = max(0.0, min(1.0, fraction))
            total = sum(self._fractions) / len(self._fractions)
            self._progress(total, message)


# --- one vCenter ---------------------------------------------------------------------------------

class _VcenterAudit:
    """The audit of one target, run on its own worker thread (one session, one stub)."""

    def __init__(self, target: VsphereTarget, index: int, hub: _ProgressHub, cancel: threading.Event | None,
                 on_host: Callable[[HostInputs], None] | None = None) -> None:
        self.on_host = on_host
        self.inventory_read: Callable[[], None] | None = None  # set by collect_vsphere with on_host
        self.t = target
        self.index = index
        self.hub = hub
        self.cancel = cancel
        self.session = VcenterSession(target=target.label)
        self.hosts: list[HostInputs] = []
        self.problems: list[InputProblem] = []
        self.stage = "connecting"
        self.content: Any = None
        self.stub: Any = None
        self.pc: Any = None
        self.raw: RawPropertyCollector | None = None
        self.aborted = False  # the cancel watcher shut the session's connections down
        self.broken = False  # a connection error (timeout, reset, refused) ended the audit
        self.views: list[Any] = []
        self.extras: dict[str, tuple[Any, list[str]]] = {}  # host moid → (networkSystem ref, pNIC names)

    def say(self, fraction: float, message: str) -> None:
        self.hub.report(self.index, fraction, f"{self.t.label}: {message}")

    # -- driver ------------------------------------------------------------------------------------

    def run(self) -> None:
        start = time.monotonic()
        try:
            with self._cancel_watch():
                self._connect()
                self._audit()
        except (Cancelled, _HostCallbackError):
            raise
        except Exception as exc:  # noqa: BLE001 - one failing vCenter must never end the others' audit
            if self._cancelled():  # the call in flight failed because the cancel watcher closed its socket
                raise Cancelled("cancelled by the user") from None
            self.broken = isinstance(exc, _CONNECTION_ERRORS)
            reason = describe_error(exc, self.t, self.session.trust)
            kept = f"; {len(self.hosts)} host(s) read before that are kept" if self.hosts else ""
            msg = f"vCenter {self.t.label}: {self.stage} failed: {reason}{kept}"
            log.warning("%s", msg, exc_info=not isinstance(exc, (vmodl.MethodFault, *_CONNECTION_ERRORS)))
            self.problems.append(InputProblem(self.t.source, msg, "vSphere API"))
            self.session.error = msg
        finally:
            self._close()
            self.session.hosts = len(self.hosts)
            self.session.elapsed_s = round(time.monotonic() - start, 3)

    def _connect(self) -> None:
        t = self.t
        self.stage = "checking the TLS certificate"
        self.say(0.01, "checking the TLS certificate")
        ctx, trust = ssl_context_for(t.host, t.port, t.thumbprint, t.insecure, t.timeout_s, pins=t.pins)
        ctx = bounded(ctx)  # timeout_s bounds each call as a whole (a server sending one byte every 3 s)
        self.session.trust = trust
        if trust.mode == "insecure":
            log.warning("vSphere %s: %s", t.label, trust.describe())
        else:
            log.info("vSphere %s: %s", t.label, trust.describe())
        self.stage = "negotiating the API version"
        version = negotiate_version(t.host, t.port, ctx, t.timeout_s)
        self.session.api_version = versionIdMap.get(version)
        self.stage = "logging in"
        self.say(0.03, f"logging in as {t.user}")
        stub = _AbortableStub(host=t.host, port=t.port, version=version, sslContext=ctx,
                              httpConnectionTimeout=t.timeout_s, call_timeout_s=t.timeout_s)
        self.stub = stub
        si = vim.ServiceInstance("ServiceInstance", stub)
        self.content = si.RetrieveContent()
        self.session.about = self.content.about.fullName
        self.content.sessionManager.Login(t.user, t.password)
        if t.pins is not None:  # the explicit pin worked: stored for the next runs
            t.pins.remember(t.host, t.port, trust)
        self.pc = self.content.propertyCollector
        if t.raw_xml:
            self.raw = RawPropertyCollector(stub, self.pc)
        log.info("vSphere %s: logged in as %s (%s, API %s)", t.label, t.user, self.session.about,
                 self.session.api_version)

    def _close(self) -> None:
        """Destroy the views and log out, then drop the connections. After a cancel or a connection error
        only the connections are dropped: the server may hang, and each cleanup call would wait ``timeout_s``."""
        if self.content is None or self.stub is None or self.aborted or self.broken or self._cancelled():
            if self.stub is not None:
                self.stub.DropConnections()
            return
        try:
            for view in self.views:
                view.DestroyView()
            self.content.sessionManager.Logout()
        except (vmodl.MethodFault, *_CONNECTION_ERRORS) as exc:
            log.debug("vSphere %s: logout/cleanup failed: %s", self.t.label, exc)
        finally:
            self.stub.DropConnections()

    # -- PropertyCollector -------------------------------------------------------------------------

    def _view(self, root: Any, types: list[type]) -> Any:
        view = self.content.viewManager.CreateContainerView(root, types, True)
        self.views.append(view)
        return view

    def _pages(self, first: Callable[[], Any], follow: Callable[[str], Any], what: str) -> Iterator[Any]:
        """The pages (``.objects``, ``.token``) of one retrieval: ``first()`` then ``follow(token)`` while a
        token comes back, all on this thread (the session's own). Cancel is checked between pages (the
        server-side result is cancelled then, unless the cancel watcher already closed the connections);
        a page in flight is interrupted by the watcher.
        """
        page = 1
        self.stage = f"reading {what} (page {page})"
        result = first()
        while result is not None:
            token = result.token
            yield result
            if not token:
                return
            page += 1
            if self._cancelled():
                self._cancel_token(token)
                check(self.cancel)
            self.stage = f"reading {what} (page {page})"
            result = follow(token)

    def _cancel_token(self, token: str) -> None:
        """``CancelRetrievePropertiesEx(token)`` when the connection is still usable; failures are only logged."""
        if self.aborted or self.broken:
            return
        try:
            self.pc.CancelRetrievePropertiesEx(token)
        except (vmodl.MethodFault, *_CONNECTION_ERRORS) as exc:
            log.debug("vSphere %s: CancelRetrievePropertiesEx failed: %s", self.t.label, exc)

    def _cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def _abort(self) -> None:
        """Shut the session's connections down (cancel watcher thread): the call in flight fails at once."""
        self.aborted = True
        stub = self.stub
        if isinstance(stub, _AbortableStub):
            stub.abort()

    @contextlib.contextmanager
    def _cancel_watch(self) -> Iterator[None]:
        """While the block runs, a watcher thread calls :meth:`_abort` as soon as ``cancel`` is set, and again
        every 0.1 s (a stub or connection created meanwhile), so a call blocked on a hung server ends at once
        instead of after ``timeout_s``. The watcher only closes sockets: no call is sent from it. (The TLS
        probe and the API version request, before the stub exists, still end within ``timeout_s``.)"""
        cancel = self.cancel
        if cancel is None:
            yield
            return
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                if cancel.wait(0.1):
                    self._abort()
                    done.wait(0.1)

        watcher = threading.Thread(target=watch, name=f"vsphere-cancel-{self.t.label}", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()

    def _filter(self, object_specs: list[Any], prop_specs: list[Any]) -> tuple[Any, Any]:
        pcq = vmodl.query.PropertyCollector
        return (pcq.FilterSpec(objectSet=object_specs, propSet=prop_specs),
                pcq.RetrieveOptions(maxObjects=self.t.page_size))

    def _retrieve(self, object_specs: list[Any], prop_specs: list[Any], what: str) -> Iterator[Any]:
        """pyVmomi ObjectContents of one RetrievePropertiesEx, following ``token`` pages."""
        spec, options = self._filter(object_specs, prop_specs)
        for result in self._pages(lambda: self.pc.RetrievePropertiesEx([spec], options),
                                  self.pc.ContinueRetrievePropertiesEx, what):
            yield from result.objects

    def _retrieve_plain(self, object_specs: list[Any], prop_specs: list[Any], what: str,
                        network_pci: bool = False) -> Iterator[_Content]:
        """The same retrieval as plain :class:`_Content` (raw-XML reader unless ``raw_xml`` is off)."""
        if self.raw is None:
            for oc in self._retrieve(object_specs, prop_specs, what):
                yield _Content.from_pyvmomi(oc, network_pci)
            return
        raw = self.raw
        spec, options = self._filter(object_specs, prop_specs)
        for result in self._pages(lambda: raw.retrieve([spec], options), raw.continue_retrieve, what):
            for rc in result.objects:
                yield _Content.from_raw(rc, network_pci)
            if raw.converter.notes:
                log.warning("vSphere %s: %s: %d value(s) not converted: %s", self.t.label, what,
                            len(raw.converter.notes), "; ".join(raw.converter.notes[:5]))
                raw.converter.notes = []

    def _managed_object(self, ref: Any) -> Any:
        """A pyVmomi managed object on this session for a ``"Type:moid"`` ref (None when unreadable)."""
        if not isinstance(ref, str) or ":" not in ref:
            return None
        type_name, moid = ref.split(":", 1)
        try:
            return GetWsdlType(XMLNS_VMODL_BASE, type_name)(moid, self.stub)
        except (KeyError, TypeError):
            return None

    def _view_specs(self, roots: list[Any], types: list[type]) -> list[Any]:
        pcq = vmodl.query.PropertyCollector
        traverse = pcq.TraversalSpec(name="traverseView", type=vim.view.ContainerView, path="view", skip=False)
        return [pcq.ObjectSpec(obj=self._view(r, types), skip=True, selectSet=[traverse]) for r in roots]

    def _names(self, roots: list[Any], vimtype: type, what: str) -> list[tuple[Any, str]]:
        pcq = vmodl.query.PropertyCollector
        out = []
        for oc in self._retrieve(self._view_specs(roots, [vimtype]), [pcq.PropertySpec(type=vimtype, pathSet=["name"])], what):
            name = next((p.val for p in oc.propSet if p.name == "name"), None)
            out.append((oc.obj, str(name)))
        return out

    def _scope(self) -> tuple[list[Any], list[Any]]:
        """(datacenter roots, host roots) of the target's scope. Raises _ScopeError."""
        t = self.t
        dc_roots = [self.content.rootFolder]
        if t.datacenter:
            found = self._names(dc_roots, vim.Datacenter, "datacenters")
            dc_roots = [ref for ref, name in found if name == t.datacenter]
            if not dc_roots:
                raise _ScopeError(f"datacenter {t.datacenter!r} not found (there are: {sorted(n for _, n in found)})")
        host_roots = dc_roots
        if t.cluster:
            found = self._names(dc_roots, vim.ClusterComputeResource, "clusters")
            host_roots = [ref for ref, name in found if name == t.cluster]
            if not host_roots:
                raise _ScopeError(f"cluster {t.cluster!r} not found (there are: {sorted(n for _, n in found)})")
        return dc_roots, host_roots

    def _dvs_inventory(self, dc_roots: list[Any]) -> list[dict]:
        """VDSs of the scope as plain dicts (:mod:`nicadvisor.parsers.api.vsphere_objects` DVS shape) with their portgroups."""
        pcq = vmodl.query.PropertyCollector
        specs = [pcq.PropertySpec(type=vim.DistributedVirtualSwitch, pathSet=list(DVS_PATHS)),
                 pcq.PropertySpec(type=vim.dvs.VmwareDistributedVirtualSwitch, pathSet=list(VMWARE_DVS_PATHS)),
                 pcq.PropertySpec(type=vim.dvs.DistributedVirtualPortgroup, pathSet=list(PORTGROUP_PATHS))]
        types = [vim.DistributedVirtualSwitch, vim.dvs.DistributedVirtualPortgroup]
        switches: dict[str, dict] = {}
        portgroups: list[dict] = []
        for c in self._retrieve_plain(self._view_specs(dc_roots, types), specs, "distributed switches"):
            props = dict(c.props)
            if _is_type(c.type, vim.dvs.DistributedVirtualPortgroup):
                portgroups.append(props)
            else:
                props["obj"] = c.ref
                switches[c.moid] = props
        for pg in portgroups:
            dvs = switches.get(_moid(pg.get("config.distributedVirtualSwitch")))
            if dvs is not None:
                dvs.setdefault("portgroups", []).append(pg)
        return list(switches.values())

    def _host_contents(self, host_roots: list[Any]) -> list[_Content]:
        pcq = vmodl.query.PropertyCollector
        prop_specs = [pcq.PropertySpec(type=vim.HostSystem, pathSet=list(HOST_PATHS))]
        if self.t.host_names:
            wanted = {n.lower() for n in self.t.host_names}
            found = self._names(host_roots, vim.HostSystem, "host names")
            refs = [ref for ref, name in found if name.lower() in wanted]
            missing = wanted - {name.lower() for _, name in found}
            for name in sorted(missing):
                self.problems.append(InputProblem(self.t.source, f"vCenter {self.t.label}: host {name!r} not found in the scope"))
            if not refs:
                return []
            object_specs = [pcq.ObjectSpec(obj=ref, skip=False) for ref in refs]
        else:
            object_specs = self._view_specs(host_roots, [vim.HostSystem])
        out = []
        for c in self._retrieve_plain(object_specs, prop_specs, "the host inventory", network_pci=True):
            out.append(c)
            self.say(0.1 + 0.3 * min(len(out) / 512, 1.0), f"read {len(out)} hosts")
        return out

    # -- audit -------------------------------------------------------------------------------------

    def _audit(self) -> None:
        t = self.t
        self.stage = "resolving the scope"
        try:
            dc_roots, host_roots = self._scope()
        except _ScopeError as exc:
            msg = f"vCenter {t.label}: {exc}"
            self.problems.append(InputProblem(t.source, msg, "vSphere API"))
            self.session.error = msg
            return
        check(self.cancel)
        self.say(0.06, "reading distributed switches")
        dvs_list = self._dvs_inventory(dc_roots)
        check(self.cancel)
        self.say(0.1, "reading the host inventory")
        contents = self._host_contents(host_roots)
        if not contents and not (t.host_names or t.cluster or t.datacenter):
            self.problems.append(InputProblem(
                t.source, f"vCenter {t.label}: no host is visible to user {t.user!r}: the account needs the Read-only "
                          "role on the vCenter root (propagated), or the vCenter manages no host", INVENTORY_COMMAND))
        notes = (self.session.trust.describe(),) if self.session.trust else ()
        work: list[tuple[HostInputs, str, Any, list[str]]] = []
        for c in contents:
            hi, kms, drivers = self._host_inputs(c, dvs_list, notes)
            self.hosts.append(hi)
            work.append((hi, c.moid, kms, drivers))
        if self.inventory_read is not None:
            self.inventory_read()
        unsupported: dict[str, int] = {}
        esxcli_unsupported: dict[str, int] = {}
        n = len(work)
        for i, (hi, moid, kms, drivers) in enumerate(work, 1):
            check(self.cancel)
            if t.modules and kms is not None:
                self.stage = f"reading the driver modules of host {hi.name} ({i} of {n})"
                self._modules(hi, moid, kms, drivers, notes, unsupported)
            if (t.esxcli or t.network_hints) and moid in self.extras:
                self.stage = f"reading LLDP/CDP{' and esxcli' if t.esxcli else ''} of host {hi.name} ({i} of {n})"
                self._extras(hi, moid, drivers, notes, esxcli_unsupported)
            if self.on_host is not None:
                self._host_done(hi)
            self.say(0.4 + 0.6 * i / n, f"{hi.name} ({i}/{n})")
        for reason, count in unsupported.items():
            self.problems.append(InputProblem(
                t.source, f"vCenter {t.label}: driver modules could not be read on {count} host(s): {reason}",
                MODULES_COMMAND))
        self.problems.extend(vx.unsupported_problems(t.source, t.label, esxcli_unsupported))
        self.say(1.0, f"{n} hosts read")

    def _host_inputs(self, c: _Content, dvs_list: list[dict], notes: tuple[str, ...]) -> tuple[HostInputs, Any, list[str]]:
        t = self.t
        ref = c.ref
        props = dict(c.props)
        kms = props.pop("configManager.kernelModuleSystem", None)
        netsys = props.pop("configManager.networkSystem", None)
        pnics = [p for p in props.get("config.network.pnic") or [] if isinstance(p, dict)]
        missing = [{"path": path, "fault": describe_error(fault, t) if fault else ""} for path, fault in c.missing]
        name = str(props.get("name") or c.moid)
        source = f"{t.source}/{c.moid}"
        host_dvs = [self._trim_dvs(d, ref) for d in dvs_list if vf.dvs_has_host(d, ref)]
        text = vf.inventory_recording(ref, props, host_dvs, missing, t.label)
        cap = Capture(source=source, command=INVENTORY_COMMAND, text=text, host=name,
                      notes=notes, origin=t.source)
        hi = HostInputs(name=name, kind="esxi", parsed=[(cap, vf.host_facts(props, host_dvs, ref))])
        state = props.get("runtime.connectionState")
        if state is not None and state != "connected":
            hi.problems.append(InputProblem(source, f"host {name} is {state} in vCenter {t.label}: its configuration "
                                                    "could not be read or may be stale", INVENTORY_COMMAND))
        if props.get("runtime.inMaintenanceMode") is True:
            hi.problems.append(InputProblem(source, f"host {name} is in maintenance mode in vCenter {t.label}",
                                            INVENTORY_COMMAND))
        for m in missing:
            hi.problems.append(InputProblem(source, f"host {name}: property {m['path']} not returned: {m['fault']}",
                                            INVENTORY_COMMAND))
        drivers = sorted({p["driver"] for p in pnics if p.get("driver")})
        # what the SSH collector would run and the API cannot (per pNIC and driver): the host's "could not run" list
        hi.not_run.extend(vx.api_not_run(t.esxcli, [p["device"] for p in pnics if p.get("device")], drivers))
        if state in (None, "connected"):
            self.extras[c.moid] = (netsys, [p["device"] for p in pnics if p.get("device")])
        usable = kms is not None and state in (None, "connected") and bool(drivers)
        return hi, (self._managed_object(kms) if usable else None), drivers

    def _host_done(self, hi: HostInputs) -> None:
        """Hand a complete host to ``on_host`` (this vCenter's worker thread). A failure of the callback is
        not this vCenter's: it ends the collection (:class:`_HostCallbackError` wrapping it)."""
        try:
            self.on_host(hi)
        except Cancelled:
            raise
        except Exception as exc:
            raise _HostCallbackError(f"storing host {hi.name} failed: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _trim_dvs(dvs: dict, host_ref: str) -> dict:
        """The DVS dict with only this host's ``config.host`` member (the full list repeats per host)."""
        out = dict(dvs)
        out["config.host"] = [m for m in dvs.get("config.host") or []
                              if isinstance(m, dict) and (m.get("config") or {}).get("host") == host_ref]
        out["summary.hostMember"] = [h for h in dvs.get("summary.hostMember") or [] if h == host_ref]
        return out

    def _extras(self, hi: HostInputs, moid: str, drivers: list[str], notes: tuple[str, ...],
                unsupported: dict[str, int]) -> None:
        """LLDP/CDP and (opt-in) esxcli over the API for one host (:func:`vx.collect_host_extras`); esxcli being
        unavailable on the server is counted per reason (one problem per vCenter)."""
        netsys, devices = self.extras[moid]
        got = vx.collect_host_extras(self.stub, moid, hi.name, pnics=devices, drivers=drivers, network_system=netsys,
                                     esxcli=self.t.esxcli, hints=self.t.network_hints, timeout=self.t.timeout_s,
                                     source=f"{self.t.source}/{moid}", origin=self.t.source, notes=notes)
        hi.parsed.extend(got.parsed)
        hi.problems.extend(got.problems)
        hi.not_run.extend(got.not_run)
        if got.unsupported:
            unsupported[got.unsupported] = unsupported.get(got.unsupported, 0) + 1

    def _modules(self, hi: HostInputs, moid: str, kms: Any, drivers: list[str], notes: tuple[str, ...],
                 unsupported: dict[str, int]) -> None:
        """QueryModules + QueryConfiguredModuleOptionString of the pNIC drivers. A fault is counted per
        reason (one problem per vCenter); a connection error propagates (the vCenter is gone)."""
        wanted = set(drivers) | {d.removesuffix("_ens") for d in drivers}
        try:
            infos = [to_plain(m) for m in kms.QueryModules()]
            mods = [m for m in infos if m.get("name") in wanted]
            configured = {m["name"]: str(kms.QueryConfiguredModuleOptionString(m["name"])) for m in mods}
        except _UNSUPPORTED_FAULTS as exc:
            reason = describe_error(exc, self.t)
            unsupported[reason] = unsupported.get(reason, 0) + 1
            return
        except vmodl.MethodFault as exc:
            hi.problems.append(InputProblem(f"{self.t.source}/{moid}/kernelModuleSystem",
                                            f"host {hi.name}: driver modules not read: {describe_error(exc, self.t)}",
                                            MODULES_COMMAND))
            return
        text = vf.modules_recording(f"HostSystem:{moid}", mods, configured, self.t.label)
        cap = Capture(source=f"{self.t.source}/{moid}/kernelModuleSystem", command=MODULES_COMMAND, text=text,
                      host=hi.name, notes=notes, origin=self.t.source)
        result = vf.facts_from_recording(text)
        hi.parsed.append((cap, result))


def collect_vsphere(targets: list[VsphereTarget], progress: Progress | None = None,
                    cancel: threading.Event | None = None,
                    on_host: Callable[[HostInputs], None] | None = None) -> VsphereCollection:
    """Audit every target concurrently (one worker thread and session per target) and gather the results.

    ``progress(fraction 0..1, message)`` is called from the worker threads (serialized by a lock);
    ``cancel`` is checked between pages and hosts. Host names seen in more than one target are
    qualified as ``name@host:port``. Returns a :class:`VsphereCollection` (hosts in target order, then
    inventory order). Raises :class:`nicadvisor.cancel.Cancelled` when cancelled; nothing else: every
    failure is a problem naming its vCenter.

    ``on_host(host_inputs)``, when given, receives each host as soon as it is complete (inventory, driver
    modules, LLDP/CDP and esxcli extras), from that vCenter's worker thread (calls are serialized by a
    lock), so a caller can store hosts while the others are read (issue "Audit live estates" §5). A host
    read before its vCenter failed is handed over when the collection ends (calling thread); each returned
    host is handed over exactly once, cancelled collections hand over only the hosts completed before.
    Names are qualified by the same rule: with several targets, the first host is handed over once every
    target has read its host inventory (or failed), so the names seen twice are known.
    An exception raised by ``on_host`` ends the collection (RuntimeError naming the host, the original
    as ``__cause__``).
    """
    hub = _ProgressHub(progress, len(targets))
    ready = threading.Condition()
    inventories: set[int] = set()  # targets whose host inventory is read (or that ended)
    emitted: set[int] = set()
    counts: dict[str, int] = {}

    def inventory_read(index: int) -> None:
        with ready:
            inventories.add(index)
            ready.notify_all()

    def emitter(index: int, label: str) -> Callable[[HostInputs], None]:
        def emit(hi: HostInputs) -> None:
            with ready:
                while len(inventories) < len(audits):
                    check(cancel)
                    ready.wait(0.2)
                if id(hi) in emitted:
                    return
                if not counts:  # every inventory read, nothing renamed yet: the names as vCenter gave them
                    for h in (h for a in audits for h in a.hosts):
                        counts[h.name] = counts.get(h.name, 0) + 1
                emitted.add(id(hi))
                if counts.get(hi.name, 0) > 1:
                    hi.name = f"{hi.name}@{label}"
                on_host(hi)
        return emit

    def run(a: _VcenterAudit) -> None:
        try:
            a.run()
        finally:
            inventory_read(a.index)

    audits = [_VcenterAudit(t, i, hub, cancel, emitter(i, t.label) if on_host is not None else None)
              for i, t in enumerate(targets)]
    for a in audits:
        a.inventory_read = (lambda i=a.index: inventory_read(i)) if on_host is not None else None
    out = VsphereCollection()
    if not audits:
        return out
    cancelled = False
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(audits), thread_name_prefix="vsphere") as pool:
        futures = [pool.submit(run, a) for a in audits]
        for fut in futures:
            try:
                fut.result()
            except Cancelled:
                cancelled = True
    check(cancel)
    if cancelled:
        raise Cancelled("cancelled by the user")
    for a in audits:
        out.hosts.extend(a.hosts)
        out.problems.extend(a.problems)
        out.sessions.append(a.session)
        if a.on_host is not None:
            for hi in a.hosts:  # hosts read before their vCenter failed
                a._host_done(hi)
    if on_host is not None:
        return out
    for h in out.hosts:
        counts[h.name] = counts.get(h.name, 0) + 1
    for a in audits:
        for h in a.hosts:
            if counts[h.name] > 1:
                h.name = f"{h.name}@{a.t.label}"
    return out


def check_login(target: VsphereTarget, cancel: threading.Event | None = None) -> VcenterSession:
    """Log in to ``target`` and out again without reading the inventory ("Test connection").

    Returns the :class:`VcenterSession` (API version, product, how the certificate was trusted).
    Raises :class:`nicadvisor.collect.ConnectionCheckError` with a message naming the target and stage
    (``"… cancelled while logging in"`` when ``cancel`` was set: the call in flight is interrupted).
    """
    from nicadvisor.collect import ConnectionCheckError

    audit = _VcenterAudit(target, 0, _ProgressHub(None, 1), cancel)
    try:
        with audit._cancel_watch():
            audit._connect()
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message for the user
        if audit._cancelled():
            raise ConnectionCheckError(f"{target.label}: cancelled while {audit.stage}") from exc
        audit.broken = isinstance(exc, _CONNECTION_ERRORS)
        raise ConnectionCheckError(f"{target.label}: {audit.stage} failed: "
                                   f"{describe_error(exc, target, audit.session.trust)}") from exc
    finally:
        audit._close()
    return audit.session


# --- inventory tree (Connect page: host tree with cluster scoping) --------------------------------

INVENTORY_TREE_COMMAND = ("vSphere API: PropertyCollector.RetrievePropertiesEx ContainerView HostSystem name parent "
                          "runtime.connectionState runtime.inMaintenanceMode ; parent chain ComputeResource / "
                          "Folder / Datacenter name parent")


@dataclass
class InventoryNode:
    """One node of the tree :func:`list_inventory` returns: datacenter → cluster (or standalone compute
    resource) → host.

    Attributes:
        kind: ``"datacenter"``, ``"cluster"`` (a ClusterComputeResource), ``"standalone"`` (the
            ComputeResource of a host that is in no cluster; named like its host) or ``"host"``.
        name: the name vCenter shows (``"DC0"``, ``"DC0_C0"``, ``"DC0_C0_H0"``): what
            :class:`VsphereTarget`'s ``datacenter`` / ``cluster`` / ``host_names`` take.
        ref: ``"Datacenter:datacenter-2"`` (:func:`ref_string` form).
        children: clusters / standalone resources of a datacenter, hosts of a cluster; sorted by name.
        connection_state: hosts only: ``runtime.connectionState`` (``"connected"``, ``"disconnected"``,
            ``"notResponding"``); None when not returned.
        in_maintenance: hosts only: ``runtime.inMaintenanceMode``; None when not returned.
    """

    kind: str
    name: str
    ref: str
    children: list["InventoryNode"] = field(default_factory=list)
    connection_state: str | None = None
    in_maintenance: bool | None = None

    def hosts(self) -> list["InventoryNode"]:
        """The host nodes at or below this node, in tree order."""
        if self.kind == "host":
            return [self]
        return [h for c in self.children for h in c.hosts()]


def _inventory_specs(audit: "_VcenterAudit") -> tuple[list[Any], list[Any]]:
    """(object specs, property specs) of the one retrieval of :func:`list_inventory`: a ContainerView of
    every HostSystem, then each host's ``parent`` chain (compute resource → folders → datacenter)."""
    pcq = vmodl.query.PropertyCollector
    to_dc = pcq.TraversalSpec(name="folderParent", type=vim.Folder, path="parent", skip=False,
                              selectSet=[pcq.SelectionSpec(name="folderParent")])
    to_folder = pcq.TraversalSpec(name="computeParent", type=vim.ComputeResource, path="parent", skip=False,
                                  selectSet=[to_dc])
    to_compute = pcq.TraversalSpec(name="hostParent", type=vim.HostSystem, path="parent", skip=False,
                                   selectSet=[to_folder])
    view = pcq.TraversalSpec(name="traverseView", type=vim.view.ContainerView, path="view", skip=False,
                             selectSet=[to_compute])
    objects = [pcq.ObjectSpec(obj=audit._view(audit.content.rootFolder, [vim.HostSystem]), skip=True,
                              selectSet=[view])]
    props = [pcq.PropertySpec(type=vim.HostSystem,
                              pathSet=["name", "parent", "runtime.connectionState", "runtime.inMaintenanceMode"]),
             pcq.PropertySpec(type=vim.ComputeResource, pathSet=["name", "parent"]),
             pcq.PropertySpec(type=vim.Folder, pathSet=["name", "parent"]),
             pcq.PropertySpec(type=vim.Datacenter, pathSet=["name"])]
    return objects, props


def _inventory_tree(objects: dict[str, tuple[str, dict[str, Any]]]) -> list[InventoryNode]:
    """The tree from ``{ref: (wsdl type, {path: plain value})}`` of the retrieval. A host whose parent chain
    reaches no datacenter (not returned) is left out."""
    def name_of(ref: str) -> str:
        return str(objects[ref][1].get("name") or _moid(ref))

    def datacenter_of(ref: Any) -> str | None:
        seen: set[str] = set()
        while isinstance(ref, str) and ref in objects and ref not in seen:
            seen.add(ref)
            wsdl, props = objects[ref]
            if _is_type(wsdl, vim.Datacenter):
                return ref
            ref = props.get("parent")
        return None

    dcs: dict[str, InventoryNode] = {}
    computes: dict[str, InventoryNode] = {}
    for ref, (wsdl, props) in objects.items():
        if not _is_type(wsdl, vim.HostSystem):
            continue
        parent = props.get("parent")
        dc_ref = datacenter_of(parent)
        if dc_ref is None or not isinstance(parent, str) or parent not in objects:
            log.warning("vSphere inventory: host %s has no datacenter in the answer; left out", ref)
            continue
        dc = dcs.setdefault(dc_ref, InventoryNode("datacenter", name_of(dc_ref), dc_ref))
        compute = computes.get(parent)
        if compute is None:
            kind = "cluster" if _is_type(objects[parent][0], vim.ClusterComputeResource) else "standalone"
            compute = computes[parent] = InventoryNode(kind, name_of(parent), parent)
            dc.children.append(compute)
        state = props.get("runtime.connectionState")
        maint = props.get("runtime.inMaintenanceMode")
        compute.children.append(InventoryNode("host", name_of(ref), ref,
                                              connection_state=str(state) if state is not None else None,
                                              in_maintenance=maint if isinstance(maint, bool) else None))
    out = sorted(dcs.values(), key=lambda n: n.name.lower())
    for dc in out:
        dc.children.sort(key=lambda n: (n.kind != "cluster", n.name.lower()))
        for compute in dc.children:
            compute.children.sort(key=lambda n: n.name.lower())
    return out


def list_inventory(target: VsphereTarget, cancel: threading.Event | None = None) -> list[InventoryNode]:
    """The datacenter → cluster (or standalone compute resource) → host tree of ``target`` ("Browse hosts").

    Logs in as :func:`check_login` and :func:`collect_vsphere` do (TLS trust: system CA store, pinned
    ``thumbprint`` or explicit ``insecure``; negotiated API version; socket timeout ``timeout_s`` on every
    call), reads the tree with ONE PropertyCollector retrieval (a ContainerView over the HostSystems and
    each host's ``parent`` chain: ComputeResource / ClusterComputeResource, Folders, Datacenter; paged
    with ``page_size``), then logs out. The target's scope fields (``datacenter``, ``cluster``,
    ``host_names``) are ignored: the whole inventory is listed so that a scope can be chosen from it.
    Folders are not shown (a host folder's clusters appear under their datacenter). Datacenters, their
    children and hosts are sorted by name (clusters before standalone hosts).

    Returns the datacenter nodes (:class:`InventoryNode`). Raises
    :class:`nicadvisor.collect.ConnectionCheckError` (message naming the target and the failed stage, never
    the password) when the server cannot be reached, the certificate is not trusted, the login is refused
    or the retrieval fails; :class:`nicadvisor.cancel.Cancelled` when ``cancel`` is set.
    """
    from nicadvisor.collect import ConnectionCheckError

    audit = _VcenterAudit(target, 0, _ProgressHub(None, 1), cancel)
    try:
        with audit._cancel_watch():
            audit._connect()
            check(cancel)
            audit.stage = "reading the inventory tree"
            objects: dict[str, tuple[str, dict[str, Any]]] = {}
            for oc in audit._retrieve(*_inventory_specs(audit), "the inventory tree"):
                objects[ref_string(oc.obj)] = (oc.obj._wsdlName, {p.name: to_plain(p.val) for p in oc.propSet})
            check(cancel)
    except Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message for the user
        if audit._cancelled():  # the call in flight failed because the cancel watcher closed its socket
            raise Cancelled("cancelled by the user") from None
        audit.broken = isinstance(exc, _CONNECTION_ERRORS)
        raise ConnectionCheckError(f"{target.label}: {audit.stage} failed: "
                                   f"{describe_error(exc, target, audit.session.trust)}") from exc
    finally:
        audit._close()
    tree = _inventory_tree(objects)
    log.info("vSphere %s: inventory tree: %d datacenter(s), %d host(s)", target.label, len(tree),
             sum(len(dc.hosts()) for dc in tree))
    return tree
