"""Dataclasses of the audit model.

Units are part of the field names: ``*_mbps`` Mbit/s, ``mtu`` bytes, ``*_gts`` PCIe GT/s per lane,
``*_usecs`` microseconds. PCI IDs are 4 lower-case hex digits (``"8086"``); PCI addresses are normalised
to ``"0000:bb:dd.f"`` (hex, lower case).
"""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, Iterable

from nicadvisor.model.conflicts import Conflict


#: Longest evidence line kept (characters): a 16 MB line quoted by 14 facts made a 234 MB report. Longer text
#: keeps its start and ends with "… N more characters" (documented in docs/json-output.md).
MAX_EVIDENCE_CHARS = 4096
#: Longest command, source, message or text fact kept (characters), with the same ending.
MAX_TEXT_CHARS = 1024


def clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` cut to ``limit`` characters plus ``"… N more characters"`` when it is longer; else unchanged."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… {len(text) - limit} more characters"


@dataclass(frozen=True)
class Evidence:
    """Where a fact came from.

    ``command`` is the command line as recorded (``esxcli network nic list``), ``line`` the raw output
    line(s) the value was read from, ``source`` the file, bundle member or live target that held the
    output (``captures/esxi-a/nic_list.txt``, ``bundle.tgz:commands/nicinfo.sh.txt``, ``local``). ``line`` is
    kept to :data:`MAX_EVIDENCE_CHARS` characters, ``command`` and ``source`` to :data:`MAX_TEXT_CHARS` (:func:`clip`).
    """

    command: str
    line: str
    source: str = ""

    def __post_init__(self) -> None:
        # bound what one evidence costs in every output (JSON, CSV, PDF, history, stderr): see MAX_EVIDENCE_CHARS
        object.__setattr__(self, "command", clip(self.command))
        object.__setattr__(self, "line", clip(self.line, MAX_EVIDENCE_CHARS))
        object.__setattr__(self, "source", clip(self.source))

    def to_dict(self) -> dict[str, str]:
        """``{"command", "line", "source"}`` as in the JSON report."""
        return {"command": self.command, "line": self.line, "source": self.source}


class _WithEvidence:
    """Mixin: ``evidence`` maps a field name to its :class:`Evidence`."""

    evidence: dict[str, Evidence]

    def set_fact(self, name: str, value: Any, evidence: Evidence) -> bool:
        """Set field ``name`` to ``value`` unless it is already known; returns True if it was set.

        The first source that knows a fact wins (captures are read in a stable order); a later,
        different value is kept out of the model but stays visible in the raw inputs.
        Raises AttributeError for a field the class does not have.
        """
        if not any(f.name == name for f in dataclasses.fields(self)):  # type: ignore[arg-type]
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        if value is None or getattr(self, name) is not None:
            return False
        if isinstance(value, str):
            value = clip(value)
        setattr(self, name, value)
        self.evidence[name] = evidence
        return True

    def facts(self) -> dict[str, Any]:
        """All model fields except ``evidence`` (and nested collections), as a plain dict."""
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name == "evidence":
                continue
            out[f.name] = getattr(self, f.name)
        return out


@dataclass
class PhysicalNic(_WithEvidence):
    """One physical NIC port (ESXi ``vmnicN``, Linux ``enp2s0``) and what is known of it.

    Capability fields are tri-state: True, False, or None (unknown). ``is_physical`` is False for
    pseudo devices (Dell iDRAC ``vusb0``, bonds, VLAN devices, veth) and None when unknown.
    ``is_virtual_uplink`` marks vmxnet3 uplinks of nested hosts, whose "offloads" are virtual.
    ``receive_hashing`` is the NIC's receive hashing feature (Linux ``ethtool -k`` ``receive-hashing``: RSS hashing
    on, whatever the indirection table); ``rx_queues_max``/``tx_queues_max`` the most queues the driver offers
    (``ethtool -l`` pre-set maximums), beside the ``rx_queues``/``tx_queues`` in use; ``rx_ring_max``/``tx_ring_max``
    the largest ring (descriptors) the driver allows (``ethtool -g`` pre-set maximums, ESXi ``esxcli network nic ring
    preset get``), beside the ``rx_ring_size``/``tx_ring_size`` in use; ``coalesce_adaptive_tx`` adaptive TX
    interrupt moderation (``ethtool -c`` ``Adaptive … TX:``, esxcli ``Adaptive TX``). ``fixed_offloads``: the fields
    among ``tso``, ``lro``, ``geneve_offload``, ``vxlan_offload``, ``geneve_rx_filter`` and ``receive_hashing`` whose
    ``ethtool -k`` feature the driver marks ``[fixed]`` (it cannot be changed: advice never asks to turn it on);
    ``master`` the device a Linux interface is enslaved to: its bond or bridge (also a VRF or Open vSwitch's
    ``ovs-system``) as ``ip link`` prints it (``master bond0``) or ``/proc/net/bonding/<bond>`` lists it (``Slave
    Interface:``), None when none is known.

    ``neighbor_*``: the physical switch port the pNIC is cabled to, as that switch announces itself by LLDP or CDP
    (vSphere API ``QueryNetworkHint``, ESXi ``vim-cmd hostsvc/net/query_networkhint``, Linux ``lldpctl -f json`` /
    ``networkctl lldp``): ``neighbor_protocol`` ``"LLDP"`` or ``"CDP"``; ``neighbor_name`` its system name (LLDP
    System Name, CDP Device ID); ``neighbor_chassis_id`` its LLDP chassis ID (a MAC address, when it sends no name);
    ``neighbor_port`` the port ID as the switch names it (``Ethernet1/12``, ``GigabitEthernet0/27``, ``swp12``);
    ``neighbor_port_description`` the port's description; ``neighbor_mgmt_address`` its management address;
    ``neighbor_mtu`` the MTU (bytes) the switch port advertises (CDP ``mtu``, the ``MTU`` parameter ESXi reports from
    the LLDP frame, lldpd's ``mfs`` from the IEEE 802.3 Maximum Frame Size TLV; 0 = not sent, kept unknown); ``neighbor_vlan`` the port's
    VLAN (CDP native VLAN, LLDP Port VLAN ID). One protocol's answer per pNIC: LLDP when both were heard.
    """

    name: str
    pci_address: str | None = None
    vid: str | None = None
    did: str | None = None
    svid: str | None = None
    ssid: str | None = None
    description: str | None = None
    mac: str | None = None
    driver: str | None = None
    driver_version: str | None = None
    firmware_version: str | None = None
    admin_up: bool | None = None
    link_up: bool | None = None
    link_speed_mbps: int | None = None
    link_speed_max_mbps: int | None = None
    duplex: str | None = None
    mtu: int | None = None
    tso: bool | None = None
    lro: bool | None = None
    vxlan_offload: bool | None = None
    geneve_offload: bool | None = None
    geneve_rx_filter: bool | None = None
    rss: bool | None = None
    receive_hashing: bool | None = None
    rx_queues: int | None = None
    tx_queues: int | None = None
    rx_queues_max: int | None = None
    tx_queues_max: int | None = None
    rx_ring_size: int | None = None
    tx_ring_size: int | None = None
    rx_ring_max: int | None = None
    tx_ring_max: int | None = None
    ens_capable: bool | None = None
    ens_interrupt_capable: bool | None = None
    ens_enabled: bool | None = None
    ens_mode: str | None = None
    pcie_speed_gts: float | None = None
    pcie_width: int | None = None
    pcie_speed_capable_gts: float | None = None
    pcie_width_capable: int | None = None
    coalesce_adaptive_rx: bool | None = None
    coalesce_rx_usecs: int | None = None
    coalesce_tx_usecs: int | None = None
    coalesce_rx_frames: int | None = None
    coalesce_tx_frames: int | None = None
    coalesce_adaptive_tx: bool | None = None
    fixed_offloads: list[str] | None = None
    master: str | None = None
    numa_node: int | None = None
    is_physical: bool | None = None
    is_virtual_uplink: bool | None = None
    legacy_vmklinux: bool | None = None
    neighbor_protocol: str | None = None
    neighbor_name: str | None = None
    neighbor_chassis_id: str | None = None
    neighbor_port: str | None = None
    neighbor_port_description: str | None = None
    neighbor_mgmt_address: str | None = None
    neighbor_mtu: int | None = None
    neighbor_vlan: int | None = None
    evidence: dict[str, Evidence] = field(default_factory=dict)

    def switch_port_text(self) -> str | None:
        """Where this pNIC is cabled, as a sentence fragment: ``"switch leaf-01 port Ethernet1/12"`` (the switch by
        its name, else its chassis ID; ``"port …"`` alone when only the port is known), None when the neighbour is
        unknown."""
        switch = self.neighbor_name or self.neighbor_chassis_id
        if not switch and not self.neighbor_port:
            return None
        parts = [f"switch {switch}"] if switch else []
        if self.neighbor_port:
            parts.append(f"port {self.neighbor_port}")
        return " ".join(parts)


@dataclass
class VmkernelNic(_WithEvidence):
    """A VMkernel interface (``vmk0``) or, on Linux, an IP interface. ``is_tep`` marks NSX TEPs
    (netstack ``vxlan``/``nsx-overlay`` or an NSX-managed TEP)."""

    name: str
    mtu: int | None = None
    netstack: str | None = None
    addresses: list[str] | None = None
    portgroup: str | None = None
    switch: str | None = None
    tso_mss: int | None = None
    is_tep: bool | None = None
    evidence: dict[str, Evidence] = field(default_factory=dict)


#: What a don't-fragment ping of a path test found (:attr:`PathTest.cause`).
PATH_PASS, PATH_LOCAL_MTU, PATH_DROPS, PATH_NO_REPLY, PATH_UNREACHABLE, PATH_NOT_RUN = (
    "pass", "local-mtu", "path-drops", "no-reply", "unreachable", "not-run")
PATH_CAUSES = (PATH_PASS, PATH_LOCAL_MTU, PATH_DROPS, PATH_NO_REPLY, PATH_UNREACHABLE, PATH_NOT_RUN)


@dataclass(frozen=True)
class PathTest:
    """One don't-fragment ping between two audited hosts (the TEP mesh, ``bench --mtu-check``), as its sender ran it.

    ``client``/``server``: the host names (``server`` ``""`` when the peer is not an audited host);
    ``client_if``/``server_if``: the TEP vmknic (ESXi, ``vmk10``) or interface (Linux, ``d0``) at each end (``""``
    when not known); ``netstack``: the ESXi netstack pinged on (``vxlan``; ``""`` on Linux); ``source``/``destination``
    the addresses; ``payload_bytes`` the ping's ``-s`` and ``frame_bytes`` the IP packet (payload + 28 for IPv4, + 48
    for IPv6: IP header 20/40 + ICMP echo header 8, RFC 791/8200, RFC 792); ``ok`` True (replies came back), False
    (a local MTU error or no reply) or None (the ping did not run); ``cause`` one of :data:`PATH_CAUSES`; ``detail``
    the sentence; ``sent``/``received`` echoes; ``rtt_min_us``/``rtt_avg_us``/``rtt_max_us`` the round trips (µs,
    None without replies or when the ping printed none); ``command`` as run (with the host it ran on) and
    ``output`` its text, the evidence (kept to :data:`MAX_EVIDENCE_CHARS`)."""

    client: str
    server: str
    client_if: str
    server_if: str
    source: str
    destination: str
    payload_bytes: int
    frame_bytes: int
    ok: bool | None
    cause: str
    detail: str
    netstack: str = ""
    sent: int | None = None
    received: int | None = None
    rtt_min_us: float | None = None
    rtt_avg_us: float | None = None
    rtt_max_us: float | None = None
    command: str = ""
    output: str = ""

    def __post_init__(self) -> None:
        if self.cause not in PATH_CAUSES:
            raise ValueError(f"path test cause {self.cause!r} is not one of {PATH_CAUSES}")
        object.__setattr__(self, "detail", clip(self.detail))
        object.__setattr__(self, "command", clip(self.command))
        object.__setattr__(self, "output", clip(self.output, MAX_EVIDENCE_CHARS))

    def end(self, side: str) -> str:
        """``"esxi-a vmk10 (192.168.11.2)"``: the host, its vmknic or interface and the address of ``side``
        (``"client"`` or ``"server"``)."""
        host, iface, addr = ((self.client, self.client_if, self.source) if side == "client"
                             else (self.server, self.server_if, self.destination))
        return " ".join(w for w in (host or addr, iface, f"({addr})" if host else "") if w)

    def line(self) -> str:
        """``"esxi-a vmk10 (192.168.11.2) → lab-b d0 (192.168.11.1): 1700-byte frame with don't-fragment: <detail>"``."""
        return (f"{self.end('client')} → {self.end('server')}: {self.frame_bytes}-byte frame with don't-fragment: "
                f"{self.detail}")

    def rtt_text(self) -> str:
        """``"0.417/0.603/0.685 ms"`` (min/avg/max), or ``""`` without round trips."""
        if self.rtt_min_us is None or self.rtt_avg_us is None or self.rtt_max_us is None:
            return ""
        return f"{self.rtt_min_us / 1000:.3f}/{self.rtt_avg_us / 1000:.3f}/{self.rtt_max_us / 1000:.3f} ms"

    def to_dict(self) -> dict[str, Any]:
        """Every field, as in the JSON report (``hosts[].path_tests[]``)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> "PathTest":
        """The inverse of :meth:`to_dict` (unknown keys ignored). Raises TypeError/ValueError for a malformed one."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in doc.items() if k in names})


@dataclass
class Switch(_WithEvidence):
    """A virtual switch: ``kind`` is ``standard`` (vSwitch), ``distributed`` (VDS) or ``opaque``
    (N-VDS); ``mtu`` in bytes; ``uplinks`` are pNIC names; ``ipfix_enabled`` for VDS IPFIX;
    ``nsx_host_switch``: True when NSX names it as a host switch of the transport node that carries the overlay
    (in an OVERLAY transport zone, or holding a TEP), False when NSX names it but only in VLAN transport zones, None
    when unknown (:func:`nicadvisor.parsers.api.nsx.carries_overlay`)."""

    name: str
    kind: str | None = None
    mtu: int | None = None
    uplinks: list[str] | None = None
    ipfix_enabled: bool | None = None
    ens_mode: str | None = None
    nsx_host_switch: bool | None = None
    evidence: dict[str, Evidence] = field(default_factory=dict)


@dataclass
class KernelModule(_WithEvidence):
    """A driver module: ``parameters`` maps declared parameter name to its description/type,
    ``options`` maps configured option name to value (``{"RSS": "4,4"}``)."""

    name: str
    version: str | None = None
    parameters: dict[str, str] | None = None
    options: dict[str, str] | None = None
    evidence: dict[str, Evidence] = field(default_factory=dict)


#: Why a command of the catalogue could not run on a host (:attr:`CommandNotRun.reason`), as every view writes it.
NOT_RUN_REASONS: dict[str, str] = {
    "privilege": "needs more privilege (on Linux: root)",
    "absent": "not present on this host or release",
    "timeout": "timed out",
    "unsupported": "not supported by the driver or device",
    "api": "not runnable over the vSphere API",
    "failed": "failed",
}


@dataclass(frozen=True)
class CommandNotRun:
    """A read-only command of the command catalogue that a collector (the SSH collector, the collector script, the
    vSphere API path) could not run on a host, or that ran only partly.

    ``command`` as recorded (``vsish -e get /net/pNics/vmnic2/properties``); ``reason`` a key of
    :data:`NOT_RUN_REASONS` (``privilege``, ``absent``, ``timeout``, ``unsupported``, ``api``, ``failed``);
    ``detail`` what the host said (``exit status 127: sh: vsish: not found``, the fault, the time limit);
    ``partial`` True when it printed output that was read but part of its answer was refused (non-root
    ``ethtool IF``)."""

    command: str
    reason: str
    detail: str = ""
    partial: bool = False

    def __post_init__(self) -> None:
        if self.reason not in NOT_RUN_REASONS:
            raise ValueError(f"unknown reason {self.reason!r} (expected one of {', '.join(NOT_RUN_REASONS)})")
        for name in ("command", "detail"):  # device text: bounded like every other
            object.__setattr__(self, name, clip(getattr(self, name)))

    @property
    def label(self) -> str:
        """The reason as every view writes it (``"not present on this host or release"``; ``"ran partly: needs
        more privilege …"``)."""
        text = NOT_RUN_REASONS[self.reason]
        return f"ran partly: {text}" if self.partial else text

    def to_dict(self) -> dict[str, Any]:
        """``{"command", "reason", "detail", "partial"}`` as in the JSON report."""
        return {"command": self.command, "reason": self.reason, "detail": self.detail, "partial": self.partial}


def not_run_groups(items: list[CommandNotRun]) -> list[tuple[str, list[CommandNotRun]]]:
    """``items`` grouped by why they did not run, as every view lists them: ``(label, items)`` in the order of
    :data:`NOT_RUN_REASONS` (commands that ran partly after those that did not run at all), each group in the order
    the commands were run."""
    groups: dict[tuple[bool, int], list[CommandNotRun]] = {}
    order = list(NOT_RUN_REASONS)
    for n in items:
        groups.setdefault((n.partial, order.index(n.reason)), []).append(n)
    return [(group[0].label, group) for _key, group in sorted(groups.items())]


#: A pNIC's overlay role (:meth:`Host.overlay_role`): it uplinks a switch that carries the Geneve overlay; it may
#: (no role known); it does not (rules about overlay traffic do not apply to it).
OVERLAY_CARRIES, OVERLAY_POSSIBLE, OVERLAY_NONE = "carries", "possible", "none"


@dataclass
class Host(_WithEvidence):
    """An audited host. ``kind`` is ``esxi`` or ``linux``; ``inputs`` lists the sources read.
    ``product_version`` and ``build`` are the ESXi version and build number (``"6.7.0"``, ``"17700523"``: ``vmware
    -vl`` first line, vSphere API ``AboutInfo.version``/``build``). ``product_update`` is the release level ``vmware
    -vl`` prints on its second line, as printed (``"Update 3"`` from ``VMware ESXi 6.7.0 Update 3``, ``"GA"``), None
    when not read (the vSphere API reports no such field); it decides the update of a 6.x host whose build the build
    table does not hold (:func:`nicadvisor.vcg.builds.host_release`).
    ``mtu_path_ok`` is False when a ``vmkping -d`` MTU path test failed (its evidence is the error line),
    True when one passed, None when none was read. ``not_run`` lists the catalogue commands a collector could not
    run on the host, or ran only partly, and why (:class:`CommandNotRun`). ``path_tests``: the don't-fragment pings
    this host sent in the last TEP mesh / MTU check between hosts (:class:`PathTest`; their findings are scoped to the
    vmknic or interface at each end, :mod:`nicadvisor.model.path_tests`). ``conflicts``: facts two captures of this
    host state differently, each value with its file and capture date (:class:`~nicadvisor.model.conflicts.Conflict`;
    the newer is used, or neither is preferred when their order is unknown)."""

    name: str
    kind: str | None = None
    product_version: str | None = None
    build: str | None = None
    product_update: str | None = None
    pnics: list[PhysicalNic] = field(default_factory=list)
    vmknics: list[VmkernelNic] = field(default_factory=list)
    switches: list[Switch] = field(default_factory=list)
    modules: list[KernelModule] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    mtu_path_ok: bool | None = None
    not_run: list[CommandNotRun] = field(default_factory=list)
    path_tests: list[PathTest] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)

    def pnic(self, name: str) -> PhysicalNic | None:
        """The pNIC called ``name``, or None."""
        return next((p for p in self.pnics if p.name == name), None)

    def switch_of(self, pnic_name: str) -> Switch | None:
        """The switch that has ``pnic_name`` among its uplinks, or None."""
        return next((s for s in self.switches if s.uplinks and pnic_name in s.uplinks), None)

    def overlay_switches(self) -> tuple[set[str], bool]:
        """(names of the switches known to carry the overlay, whether that set is complete).

        A switch carries the overlay when a TEP vmknic is on it, or when NSX names it as a host switch of this
        transport node in an OVERLAY transport zone (``nsx_host_switch`` True). An N-VDS (``opaque``) alone is not
        enough: one in VLAN transport zones only carries none. The set is complete when it is not empty and every
        TEP vmknic's switch is known; with a TEP whose switch is unknown, other switches may carry it too."""
        teps = [v for v in self.vmknics if v.is_tep]
        known = {v.switch for v in teps if v.switch}
        known |= {s.name for s in self.switches if s.nsx_host_switch}
        return known, bool(known) and all(v.switch for v in teps)

    def overlay_role(self, pnic: PhysicalNic) -> str:
        """Whether ``pnic`` carries the Geneve overlay: :data:`OVERLAY_CARRIES`, :data:`OVERLAY_POSSIBLE` or
        :data:`OVERLAY_NONE`.

        * carries: it uplinks a switch that carries the overlay (:meth:`overlay_switches`);
        * none: the overlay switches are all known and it uplinks none of them, or no overlay switch is known,
          the host's switches and their uplinks were read, and it uplinks no switch at all;
        * possible: otherwise (no TEP yet, as before an NSX rollout; or the topology was not read).
        Pseudo devices (``is_physical`` False) are ``none``."""
        if pnic.is_physical is False:
            return OVERLAY_NONE
        overlay, complete = self.overlay_switches()
        sw = self.switch_of(pnic.name)
        if sw is not None and sw.name in overlay:
            return OVERLAY_CARRIES
        if complete:
            return OVERLAY_NONE
        if not overlay and sw is None and any(s.uplinks is not None for s in self.switches):
            return OVERLAY_NONE
        return OVERLAY_POSSIBLE

    def switch_overlay_role(self, switch: Switch) -> str:
        """Whether ``switch`` carries the overlay, as :meth:`overlay_role` says for pNICs: ``carries`` when it is
        one of :meth:`overlay_switches`, ``none`` when that set is complete and it is not in it, else ``possible``."""
        overlay, complete = self.overlay_switches()
        if switch.name in overlay:
            return OVERLAY_CARRIES
        return OVERLAY_NONE if complete else OVERLAY_POSSIBLE

    def overlay_candidates(self) -> list[PhysicalNic]:
        """The physical pNICs that may carry the overlay: those known to carry it (:meth:`overlay_role`) when
        any is; else those whose role is possible."""
        roles = [(p, self.overlay_role(p)) for p in self.pnics if p.is_physical is not False]
        carries = [p for p, r in roles if r == OVERLAY_CARRIES]
        return carries or [p for p, r in roles if r == OVERLAY_POSSIBLE]

    def module(self, name: str | None) -> KernelModule | None:
        """The kernel module of driver ``name`` (an ENS ``_ens`` suffix is ignored), or None."""
        if not name:
            return None
        base = name.removesuffix("_ens")
        return next((m for m in self.modules if m.name in (name, base)), None)


class Severity(str, enum.Enum):
    """Finding severity, most severe first. ``error`` findings make ``audit`` exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for error, 1 for warning, 2 for info (sort key, most severe first)."""
        return {"error": 0, "warning": 1, "info": 2}[self.value]


def join_target(host: str, obj: str = "") -> str:
    """How a finding's object is shown: ``"esxi-a/vmnic2"``, or ``"esxi-a"`` for the host itself. For display only:
    host, switch and pNIC names may hold ``/``, so nothing ever splits this text back."""
    return f"{host}/{obj}" if obj else host


@dataclass(frozen=True)
class Finding:
    """One rule hit (or a compatibility-database note) on one object.

    ``host`` and ``obj`` name the object structurally: the host's name and the name of the pNIC, switch or vmknic
    on it (``""`` for the host itself); ``target`` is the two joined for display (``esxi-a/vmnic2``), derived when
    not given, and never split again: names may hold ``/`` themselves (``rack1/esx01``). ``evidence`` the facts the
    rule read,
    ``references`` the source documents (``nsx-t-performance-on-intel.txt §3``), ``category`` the
    capability-matrix column it decides, ``facts`` the names of the known facts its condition read (a
    finding that read a pNIC's ``geneve_rx_filter == false`` also decides the Rx filter column).
    ``overlay_role`` is the pNIC's :meth:`Host.overlay_role` for a rule about overlay traffic (``""`` for other
    rules); ``full_severity`` is the rule's severity when the finding was lowered one step because that role is
    only ``possible`` (its message then starts "If <pNIC> will carry overlay traffic"); ``change`` the exact change
    to type (ESXi shell, PowerCLI, NSX API or UI path, with the host's own names; or "Manual: …" saying why no
    command can do it), ``verify`` how to check it took, ``rollback`` how to undo it (each empty when the rule
    gives none).
    """

    rule_id: str
    title: str
    severity: Severity
    host: str
    message: str
    recommendation: str
    obj: str = ""
    target: str = ""
    references: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    category: str = ""
    facts: tuple[str, ...] = ()
    overlay_role: str = ""
    full_severity: Severity | None = None
    rollback: str = ""
    change: str = ""
    verify: str = ""

    def __post_init__(self) -> None:
        if not self.target:
            object.__setattr__(self, "target", join_target(self.host, self.obj))
        elif not self.obj and self.target != self.host and self.target.startswith(self.host + "/"):
            # a finding stored before ``obj`` existed: its target was always "<host>/<object>" or "<host>"
            object.__setattr__(self, "obj", self.target[len(self.host) + 1:])

    @property
    def conditional(self) -> bool:
        """True when the finding holds only if its pNIC will carry the overlay (its role is not known yet), so
        it was lowered from :attr:`full_severity`."""
        return self.full_severity is not None

    def to_dict(self) -> dict[str, Any]:
        """The finding as in the JSON report (severity as its string, evidence as dicts)."""
        return {
            "rule_id": self.rule_id, "title": self.title, "severity": self.severity.value,
            "host": self.host, "object": self.obj, "target": self.target, "message": self.message,
            "recommendation": self.recommendation, "references": list(self.references),
            "evidence": [e.to_dict() for e in self.evidence], "category": self.category,
            "facts": list(self.facts), "overlay_role": self.overlay_role,
            "full_severity": self.full_severity.value if self.full_severity is not None else None,
            "rollback": self.rollback, "change": self.change, "verify": self.verify,
        }


@dataclass(frozen=True)
class InputProblem:
    """An input that was not understood or could not be read, with a message naming it."""

    source: str
    message: str
    command: str = ""

    def __post_init__(self) -> None:
        for name in ("source", "message", "command"):  # a quoted 16 MB line must not become a 16 MB message
            object.__setattr__(self, name, clip(getattr(self, name)))

    def to_dict(self) -> dict[str, str]:
        """``{"source", "message", "command"}`` as in the JSON report."""
        return {"source": self.source, "message": self.message, "command": self.command}


def findings_by_host(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Host name → its findings, in their order: one pass, so that code working host by host (the verdict, the
    capability matrix of every export) reads each host's findings instead of scanning all of them per host (5,000
    hosts took minutes)."""
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.host, []).append(f)
    return out
