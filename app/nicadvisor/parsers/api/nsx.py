"""NSX Manager REST responses (JSON) → an :class:`NsxInventory` → per-host parser facts.

Pure functions: no I/O, no ``requests`` (the client is :mod:`nicadvisor.collect.nsx`). Every ``parse_*``
function takes the response **text** (or the already decoded JSON value), never raises, and returns
the objects it could read plus notes about what it could not. Shapes and field paths follow
``shared/design/research/nsx-api.md`` (§ numbers below) and the example responses in
``shared/fixtures/nsx-api/``:

* ``GET /api/v1/transport-nodes[/<id>]`` (§2.1-2.6) → :class:`TransportNode` with its
  :class:`HostSwitch` list (``host_switch_spec.host_switches[]``: name, type NVDS|VDS, configured
  ``host_switch_mode`` STANDARD|ENS|ENS_INTERRUPT|LEGACY, uplink-profile id, ``pnics[].device_name`` →
  uplink, VDS uplinks, TEP IP assignment, transport zones);
* ``GET /api/v1/transport-nodes/<id>/state`` (§2.7) → :class:`TransportNodeState` (realized TEPs =
  ``host_switch_states[].endpoints[]``; the key is absent on failed nodes: TEPs unknown, not 0);
* ``GET /api/v1/host-switch-profiles[/<id>]`` (§2.4) → :class:`UplinkProfile` (``mtu`` None when absent =
  inherits the global ``physical_uplink_mtu``; teaming; ``transport_vlan``; active uplinks);
* ``GET /api/v1/global-configs[/SwitchingGlobalConfig]`` (§2.8) → :class:`SwitchingGlobalConfig`;
* ``GET /api/v1/transport-zones`` (§2.6) → :class:`TransportZone`;
* ``GET /api/v1/node/version`` (§2.9) → :class:`NodeVersion` (``product_version`` preferred).

Truncated JSON (the ``*.PARTIAL.txt`` fixtures: a list cut mid-key, an object fragment pasted from a
GitHub comment inside a Markdown fence) is read up to its last complete member and noted, see
:func:`load_json`.

:func:`host_results` turns the inventory into :class:`~nicadvisor.parsers.base.ParseResult` facts per
host: one ``Switch`` per host switch — ``kind`` ``"opaque"`` (N-VDS) or ``"distributed"`` (VDS),
``ens_mode`` (``"standard"``/``"ens"``/``"ens_interrupt"``), ``uplinks`` (N-VDS pNIC device names),
``nsx_host_switch`` (whether it carries the overlay: True in an OVERLAY transport zone or with a realized TEP,
False in VLAN transport zones only, unset when its zones were not read; :func:`carries_overlay`),
``mtu`` (N-VDS only: the uplink profile's ``mtu``, else the global ``physical_uplink_mtu``; a VDS MTU is
owned by vCenter, §2.3, so NSX's value is only noted) — and the realized TEP vmknics.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from nicadvisor.parsers.base import ParseResult, outside_quotes

FAMILY = "nsx-api"

# host_switch_mode → Switch.ens_mode (nsx-api.md §2.2). LEGACY has no documented meaning: kept raw.
_MODE_MAP = {"STANDARD": "standard", "ENS": "ens", "ENS_INTERRUPT": "ens_interrupt"}
# From NSX 4.2 a configured STANDARD may be realized as Enhanced Datapath by the data plane (§2.2).
_AUTO_MODE_SINCE = (4, 2)
_KVM_OS = ("UBUNTU", "RHEL", "CENTOS", "SLES", "OEL", "LINUX")


# --- JSON ----------------------------------------------------------------------------------------

def load_json(data: Any) -> tuple[Any, list[str]]:
    """Decode a response: returns (value or None, notes). Never raises.

    ``data`` may already be decoded (dict/list: returned as is). Text is decoded as JSON; Markdown
    fence lines (```` ```json ````) are dropped first. Text that is not valid JSON because it was cut
    off (``…PARTIAL.txt`` fixtures) is read up to its last complete member: the text is cut at its last
    comma outside a string and the open objects/arrays are closed; a fragment that starts with a
    ``"key":`` is read as the inside of an object. A note then says the response was incomplete.
    """
    if not isinstance(data, (str, bytes)):
        return data, []
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    text = "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith("```")).strip()
    if not text:
        return None, ["empty response"]
    try:
        return json.loads(text), []
    except ValueError as exc:
        first_error = str(exc)
    repaired = _close_truncated(text)
    if repaired is not None:
        try:
            value = json.loads(repaired)
        except ValueError:
            value = None
        if value is not None:
            return value, [f"response is not complete JSON ({first_error}); read up to its last complete member"]
    return None, [f"response is not JSON: {first_error}"]


def _close_truncated(text: str) -> str | None:
    """``text`` cut at its last comma outside a string, with the still-open brackets closed."""
    if text.startswith('"'):
        text = "{" + text
    if not text.startswith(("{", "[")):
        return None
    stack: list[str] = []
    cut: tuple[int, list[str]] | None = None
    for i, ch in outside_quotes(text):
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                return None
            stack.pop()
            if not stack:
                return text[: i + 1]
        elif ch == ",":
            cut = (i, list(stack))
    if cut is None:
        return None
    pos, open_ = cut
    return text[:pos] + "".join(reversed(open_))


def _results(value: Any) -> list[dict]:
    """The objects of a list response (``{"results": [...]}``), or ``[value]`` for a single object."""
    if isinstance(value, dict):
        res = value.get("results")
        if isinstance(res, list):
            return [r for r in res if isinstance(r, dict)]
        return [value]
    if isinstance(value, list):
        return [r for r in value if isinstance(r, dict)]
    return []


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v != "" else None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().isdigit():
        return int(v.strip())
    return None


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []


def _dict(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def _line(path: str, value: Any) -> str:
    """The evidence "line" of a JSON fact: ``path: value`` as JSON (``host_switch_mode: "ENS"``)."""
    return f"{path}: {json.dumps(value)}"


# --- model of what was read ----------------------------------------------------------------------

@dataclass
class HostSwitch:
    """One ``host_switch_spec.host_switches[]`` element (StandardHostSwitch, nsx-api.md §2.2-2.6).

    ``type`` is ``"NVDS"`` or ``"VDS"`` (``type_stated`` False when the key is absent: NSX-T 2.x, where
    every host switch is an N-VDS, the schema default). ``mode`` is the configured
    ``host_switch_mode`` as printed (STANDARD, ENS, ENS_INTERRUPT, LEGACY) or None when absent;
    ``pnics`` are (pNIC device name, NSX uplink name) pairs (N-VDS only); ``vds_uplinks`` are
    (VDS uplink name, NSX uplink name) pairs (VDS only); ``profile_ids`` maps profile type (key) to id
    (an MP UUID, or a Policy path ``/infra/host-switch-profiles/…``); ``lcores`` counts the
    ``cpu_config`` entries (dedicated ENS lcores per NUMA node). ``path`` locates it in the response.
    """

    name: str
    id: str | None = None
    type: str = "NVDS"
    type_stated: bool = False
    mode: str | None = None
    profile_ids: dict[str, str] = field(default_factory=dict)
    pnics: list[tuple[str, str]] = field(default_factory=list)
    vds_uplinks: list[tuple[str, str]] = field(default_factory=list)
    ip_assignment: str | None = None
    ip_pool_id: str | None = None
    transport_zone_ids: list[str] = field(default_factory=list)
    lcores: int | None = None
    path: str = ""

    @property
    def uplink_profile_id(self) -> str | None:
        """The ``UplinkHostSwitchProfile`` reference, or None."""
        return self.profile_ids.get("UplinkHostSwitchProfile")

    @property
    def is_vds(self) -> bool:
        return self.type == "VDS"


@dataclass
class TransportNode:
    """One transport node (``GET /api/v1/transport-nodes``, nsx-api.md §2.1).

    ``node_type`` is ``node_deployment_info.resource_type`` (``HostNode``/``EdgeNode``); when that key is
    absent (NSX-T 2.x) it is inferred ``EdgeNode`` only from ``fp-ethN`` data ports (NSX Edge DPDK
    ports, nic-data-sources.md §14 pitfall 16) and ``node_type_inferred`` is True, else None.
    ``os_type``/``os_version`` are the hypervisor's (``ESXI``, ``7.0.0``). ``transport_zone_ids`` are the
    2.x top-level ones (3.x+ keeps them per host switch). ``raw`` is the object as read.
    """

    id: str
    display_name: str | None = None
    node_type: str | None = None
    node_type_inferred: bool = False
    os_type: str | None = None
    os_version: str | None = None
    fqdn: str | None = None
    node_name: str | None = None
    ip_addresses: list[str] = field(default_factory=list)
    host_switches: list[HostSwitch] = field(default_factory=list)
    transport_zone_ids: list[str] = field(default_factory=list)
    maintenance_mode: str | None = None
    is_overridden: bool | None = None
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def host_name(self) -> str:
        """The host's name: the vCenter inventory name NSX discovered (``node_deployment_info.display_name``),
        else its FQDN, else the transport node's display name, else its id."""
        return self.node_name or self.fqdn or self.display_name or self.id

    @property
    def aliases(self) -> list[str]:
        """Every name this host is known by in NSX, for joining with other sources: inventory name,
        FQDN and its short form, the transport node's display name, management IP addresses."""
        names = [self.node_name, self.fqdn, self.fqdn.split(".")[0] if self.fqdn else None,
                 self.display_name, *self.ip_addresses]
        return list(dict.fromkeys(n for n in names if n))

    @property
    def is_host(self) -> bool:
        """True unless the node is (or looks like) an NSX Edge."""
        return self.node_type != "EdgeNode"

    @property
    def kind(self) -> str | None:
        """``"esxi"`` (ESXi), ``"linux"`` (KVM / bare-metal server hosts), or None when unknown."""
        if self.os_type:
            if self.os_type.upper() == "ESXI":
                return "esxi"
            if self.os_type.upper().startswith(_KVM_OS):
                return "linux"
            return None
        if any(d.startswith("vmnic") for hs in self.host_switches for d, _ in hs.pnics):
            return "esxi"
        return None


@dataclass
class TepEndpoint:
    """A realized TEP (``host_switch_states[].endpoints[]``): vmknic ``device_name`` (vmk10), ``ip``,
    ``subnet_mask``, ``default_gateway`` (None when ``""``), ``label``."""

    device_name: str
    ip: str | None = None
    subnet_mask: str | None = None
    default_gateway: str | None = None
    label: int | None = None


@dataclass
class HostSwitchState:
    """One ``host_switch_states[]`` element: the realized host switch, its TEPs and transport zones."""

    name: str | None
    id: str | None = None
    type: str | None = None
    endpoints: list[TepEndpoint] = field(default_factory=list)
    transport_zone_ids: list[str] = field(default_factory=list)


@dataclass
class TransportNodeState:
    """``GET /api/v1/transport-nodes/<id>/state`` (nsx-api.md §2.7).

    ``state`` (``success``, ``failed``, ``in_progress``, …), ``failure_code``/``failure_message``,
    ``details`` as (sub_system_type, state, failure_message) triples. ``host_switch_states`` is None
    when the key is absent (failed nodes): the TEPs are then unknown, not zero.
    """

    transport_node_id: str | None
    state: str | None = None
    failure_code: int | None = None
    failure_message: str | None = None
    maintenance_mode_state: str | None = None
    deployment_state: str | None = None
    details: list[tuple[str | None, str | None, str | None]] = field(default_factory=list)
    host_switch_states: list[HostSwitchState] | None = None
    raw: dict = field(default_factory=dict, repr=False)


@dataclass
class UplinkProfile:
    """An uplink profile (``UplinkHostSwitchProfile`` / ``PolicyUplinkHostSwitchProfile``, nsx-api.md §2.4).

    ``mtu`` in bytes, None when the profile does not set one (then the global ``physical_uplink_mtu``
    applies). ``teaming_policy`` FAILOVER_ORDER | LOADBALANCE_SRCID | LOADBALANCE_SRC_MAC;
    ``active_uplinks``/``standby_uplinks`` are uplink names (``standby_uplinks`` None when the key is
    absent); ``lags`` are (name, number_of_uplinks) pairs; ``transport_vlan`` is the TEP VLAN.
    ``realization_id`` joins a Policy profile to the MP UUID a Manager transport node references.
    """

    id: str
    display_name: str | None = None
    resource_type: str | None = None
    mtu: int | None = None
    transport_vlan: int | None = None
    overlay_encap: str | None = None
    teaming_policy: str | None = None
    active_uplinks: list[str] = field(default_factory=list)
    active_uplink_types: list[str] = field(default_factory=list)
    standby_uplinks: list[str] | None = None
    lags: list[tuple[str, int | None]] = field(default_factory=list)
    named_teamings: list[str] = field(default_factory=list)
    realization_id: str | None = None
    path: str | None = None
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def active_uplink_count(self) -> int:
        """Active uplinks of the default teaming (a LAG counts as one)."""
        return len(self.active_uplinks)

    @property
    def expected_teps(self) -> int | None:
        """TEPs NSX creates per host switch with this teaming (§2.5): one per active uplink with a
        load-balancing policy, one with FAILOVER_ORDER; None when the policy is unknown."""
        if self.teaming_policy == "FAILOVER_ORDER":
            return 1
        if self.teaming_policy in ("LOADBALANCE_SRCID", "LOADBALANCE_SRC_MAC"):
            return self.active_uplink_count or None
        return None

    def matches(self, ref: str) -> bool:
        """True when the reference ``ref`` (MP UUID or Policy path) names this profile."""
        keys = {self.id, self.realization_id, self.path}
        return ref in keys or ref.rsplit("/", 1)[-1] == self.id


@dataclass
class TransportZone:
    """A transport zone (``GET /api/v1/transport-zones``): ``transport_type`` OVERLAY|VLAN,
    ``host_switch_mode`` (the 2.x place where ENS was chosen, §2.2), ``host_switch_name``."""

    id: str
    display_name: str | None = None
    transport_type: str | None = None
    host_switch_name: str | None = None
    host_switch_mode: str | None = None
    tz_type: str | None = None


@dataclass
class SwitchingGlobalConfig:
    """``SwitchingGlobalConfig`` (§2.8): ``physical_uplink_mtu`` (bytes; default TEP/uplink MTU when a
    profile has none), ``uplink_mtu_threshold``, ``remote_tunnel_physical_mtu`` (RTEP, not host TEPs).
    None = not in the response (the schema defaults are not assumed)."""

    physical_uplink_mtu: int | None = None
    uplink_mtu_threshold: int | None = None
    remote_tunnel_physical_mtu: int | None = None
    raw: dict = field(default_factory=dict, repr=False)


@dataclass
class NodeVersion:
    """``GET /api/v1/node/version``: ``product_version`` (the NSX release; preferred, §2.9) and
    ``node_version`` (this appliance's build, ahead during upgrades)."""

    node_version: str | None = None
    product_version: str | None = None

    @property
    def version(self) -> str | None:
        return self.product_version or self.node_version

    @property
    def numbers(self) -> tuple[int, ...] | None:
        """``"3.1.3.3.0.18844959"`` → (3, 1, 3, 3, 0, 18844959); None when unknown or unreadable."""
        v = self.version
        if not v:
            return None
        parts = []
        for p in v.split("."):
            if not p.isdigit():
                break
            parts.append(int(p))
        return tuple(parts) or None


@dataclass
class NsxInventory:
    """Everything read from one NSX Manager.

    ``manager`` is ``host[:port]``; ``responses`` maps an API path (``/api/v1/transport-nodes``) to the
    response text read there (``…/state`` and profile paths included), so facts can cite their
    source; ``states`` is keyed by transport-node id; ``uplink_profiles`` and ``transport_zones`` by id.
    ``notes`` are what could not be read.
    """

    manager: str = ""
    version: NodeVersion | None = None
    transport_nodes: list[TransportNode] = field(default_factory=list)
    states: dict[str, TransportNodeState] = field(default_factory=dict)
    uplink_profiles: dict[str, UplinkProfile] = field(default_factory=dict)
    transport_zones: dict[str, TransportZone] = field(default_factory=dict)
    switching_config: SwitchingGlobalConfig | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def hosts(self) -> list[TransportNode]:
        """Transport nodes that are hosts (edges left out, §2.1)."""
        return [tn for tn in self.transport_nodes if tn.is_host]

    def uplink_profile(self, ref: str | None) -> UplinkProfile | None:
        """The uplink profile named by ``ref`` (MP UUID or Policy path), or None when not read."""
        if not ref:
            return None
        hit = self.uplink_profiles.get(ref)
        return hit or next((p for p in self.uplink_profiles.values() if p.matches(ref)), None)

    def zone(self, ref: str) -> TransportZone | None:
        return self.transport_zones.get(ref) or self.transport_zones.get(ref.rsplit("/", 1)[-1])


# --- parsers -------------------------------------------------------------------------------------

def _host_switch(hs: dict, path: str, notes: list[str]) -> HostSwitch | None:
    name = _str(hs.get("host_switch_name"))
    if not name:
        notes.append(f"{path}: host switch without host_switch_name skipped")
        return None
    out = HostSwitch(name=name, id=_str(hs.get("host_switch_id")), path=path)
    if _str(hs.get("host_switch_type")):
        out.type, out.type_stated = hs["host_switch_type"].upper(), True
    out.mode = _str(hs.get("host_switch_mode"))
    for ref in _list(hs.get("host_switch_profile_ids")):
        if isinstance(ref, dict) and _str(ref.get("key")) and _str(ref.get("value")):
            out.profile_ids.setdefault(ref["key"], ref["value"])
    for p in _list(hs.get("pnics")):
        if isinstance(p, dict) and _str(p.get("device_name")):
            out.pnics.append((p["device_name"], _str(p.get("uplink_name")) or ""))
    for u in _list(hs.get("uplinks")):
        if isinstance(u, dict) and _str(u.get("vds_uplink_name")):
            out.vds_uplinks.append((u["vds_uplink_name"], _str(u.get("uplink_name")) or ""))
    ips = _dict(hs.get("ip_assignment_spec"))
    out.ip_assignment = _str(ips.get("resource_type"))
    out.ip_pool_id = _str(ips.get("ip_pool_id")) or _str(hs.get("static_ip_pool_id"))
    if out.ip_assignment is None and out.ip_pool_id:
        out.ip_assignment = "StaticIpPoolSpec"
    for tz in _list(hs.get("transport_zone_endpoints")):
        if isinstance(tz, dict) and _str(tz.get("transport_zone_id")):
            out.transport_zone_ids.append(tz["transport_zone_id"])
    if isinstance(hs.get("cpu_config"), list):
        out.lcores = len(hs["cpu_config"])
    return out


def _transport_node(obj: dict, index: int, notes: list[str]) -> TransportNode | None:
    ndi = _dict(obj.get("node_deployment_info"))
    tn_id = _str(obj.get("id")) or _str(obj.get("node_id")) or _str(ndi.get("id")) or _str(obj.get("unique_id"))
    name = _str(obj.get("display_name"))
    if not tn_id and not name:
        notes.append(f"results[{index}]: not a transport node (no id, no display_name)")
        return None
    if not tn_id:
        notes.append(f"transport node {name!r}: no id in the response")
    spec = _dict(obj.get("host_switch_spec"))
    switches_raw = spec.get("host_switches")
    base = "host_switch_spec.host_switches"
    if not isinstance(switches_raw, list):
        switches_raw, base = obj.get("host_switches"), "host_switches"  # deprecated 2.x form
    tn = TransportNode(id=tn_id or name or "", display_name=name, raw=obj)
    for i, hs in enumerate(_list(switches_raw)):
        if isinstance(hs, dict):
            sw = _host_switch(hs, f"{base}[{i}]", notes)
            if sw:
                tn.host_switches.append(sw)
    if not tn.host_switches:
        notes.append(f"transport node {tn.display_name or tn.id}: no host switch in the response")
    tn.node_type = _str(ndi.get("resource_type"))
    if tn.node_type is None:
        ports = [d for hs in tn.host_switches for d, _ in hs.pnics]
        if ports and all(d.startswith("fp-eth") for d in ports):
            tn.node_type, tn.node_type_inferred = "EdgeNode", True
    tn.os_type = _str(ndi.get("os_type"))
    tn.os_version = _str(ndi.get("os_version"))
    tn.fqdn = _str(ndi.get("fqdn"))
    tn.node_name = _str(ndi.get("display_name")) if tn.node_type == "HostNode" else None
    tn.ip_addresses = [a for a in _list(ndi.get("ip_addresses")) if isinstance(a, str)]
    tn.transport_zone_ids = [t["transport_zone_id"] for t in _list(obj.get("transport_zone_endpoints"))
                             if isinstance(t, dict) and _str(t.get("transport_zone_id"))]
    tn.maintenance_mode = _str(obj.get("maintenance_mode"))
    tn.is_overridden = obj.get("is_overridden") if isinstance(obj.get("is_overridden"), bool) else None
    return tn


def parse_transport_nodes(data: Any) -> tuple[list[TransportNode], list[str]]:
    """Transport nodes from a ``GET /api/v1/transport-nodes`` list, a single ``…/transport-nodes/<id>``
    object, or a Policy host-transport-node (same host-switch schema). Edges are returned too
    (:attr:`TransportNode.is_host` tells them apart). Returns (nodes, notes); never raises."""
    value, notes = load_json(data)
    if value is None:
        return [], notes
    nodes = []
    for i, obj in enumerate(_results(value)):
        tn = _transport_node(obj, i, notes)
        if tn:
            nodes.append(tn)
    if not nodes:
        notes.append("no transport node in the response")
    return nodes, notes


def parse_host_switch_spec(data: Any) -> tuple[list[HostSwitch], list[str]]:
    """The host switches of any object carrying a ``host_switch_spec`` — a transport node, or a
    transport-node profile (Policy ``PolicyHostTransportNodeProfile``, whose profile references are
    Policy paths ``/infra/host-switch-profiles/<id>``). Returns (host switches, notes); never raises."""
    value, notes = load_json(data)
    out: list[HostSwitch] = []
    for obj in _results(value):
        for i, hs in enumerate(_list(_dict(obj.get("host_switch_spec")).get("host_switches"))):
            if isinstance(hs, dict):
                sw = _host_switch(hs, f"host_switch_spec.host_switches[{i}]", notes)
                if sw:
                    out.append(sw)
    if not out:
        notes.append("no host_switch_spec.host_switches in the response")
    return out, notes


def parse_transport_node_state(data: Any) -> tuple[TransportNodeState | None, list[str]]:
    """A ``GET …/transport-nodes/<id>/state`` response (Manager or Policy form). Returns (state, notes)."""
    value, notes = load_json(data)
    if not isinstance(value, dict) or not ("state" in value or "host_switch_states" in value):
        notes.append("not a transport-node state response")
        return None, notes
    st = TransportNodeState(
        transport_node_id=_str(value.get("transport_node_id")), state=_str(value.get("state")),
        failure_code=_int(value.get("failure_code")), failure_message=_str(value.get("failure_message")),
        maintenance_mode_state=_str(value.get("maintenance_mode_state")),
        deployment_state=_str(_dict(value.get("node_deployment_state")).get("state")), raw=value)
    for d in _list(value.get("details")):
        if isinstance(d, dict):
            st.details.append((_str(d.get("sub_system_type")), _str(d.get("state")),
                               (_str(d.get("failure_message")) or "").strip() or None))
    if isinstance(value.get("host_switch_states"), list):
        st.host_switch_states = []
        for hs in value["host_switch_states"]:
            if not isinstance(hs, dict):
                continue
            hss = HostSwitchState(name=_str(hs.get("host_switch_name")), id=_str(hs.get("host_switch_id")),
                                  type=_str(hs.get("host_switch_type")))
            for ep in _list(hs.get("endpoints")):
                if isinstance(ep, dict) and _str(ep.get("device_name")):
                    hss.endpoints.append(TepEndpoint(
                        device_name=ep["device_name"], ip=_str(ep.get("ip")), subnet_mask=_str(ep.get("subnet_mask")),
                        default_gateway=_str(ep.get("default_gateway")), label=_int(ep.get("label"))))
            hss.transport_zone_ids = [t for t in _list(hs.get("transport_zone_ids")) if isinstance(t, str)]
            st.host_switch_states.append(hss)
    else:
        notes.append(f"transport node {st.transport_node_id}: no host_switch_states in the state "
                     f"(state {st.state}): realized TEPs unknown")
    return st, notes


def parse_uplink_profiles(data: Any) -> tuple[list[UplinkProfile], list[str]]:
    """Uplink profiles from ``GET /api/v1/host-switch-profiles`` (list) or ``…/<id>`` (one object),
    Manager or Policy form; other profile types (LLDP, NIOC, VTEP HA…) are skipped. Returns (profiles, notes)."""
    value, notes = load_json(data)
    if value is None:
        return [], notes
    out = []
    for i, obj in enumerate(_results(value)):
        rtype = _str(obj.get("resource_type")) or ""
        if rtype and "UplinkHostSwitchProfile" not in rtype:
            continue
        pid = _str(obj.get("id"))
        if not pid:
            notes.append(f"results[{i}]: uplink profile without id skipped")
            continue
        teaming = _dict(obj.get("teaming"))
        prof = UplinkProfile(
            id=pid, display_name=_str(obj.get("display_name")), resource_type=rtype or None,
            mtu=_int(obj.get("mtu")), transport_vlan=_int(obj.get("transport_vlan")),
            overlay_encap=_str(obj.get("overlay_encap")), teaming_policy=_str(teaming.get("policy")),
            realization_id=_str(obj.get("realization_id")) or _str(obj.get("unique_id")),
            path=_str(obj.get("path")), raw=obj)
        for u in _list(teaming.get("active_list")):
            if isinstance(u, dict) and _str(u.get("uplink_name")):
                prof.active_uplinks.append(u["uplink_name"])
                prof.active_uplink_types.append(_str(u.get("uplink_type")) or "")
        if isinstance(teaming.get("standby_list"), list):
            prof.standby_uplinks = [u["uplink_name"] for u in teaming["standby_list"]
                                    if isinstance(u, dict) and _str(u.get("uplink_name"))]
        for lag in _list(obj.get("lags")):
            if isinstance(lag, dict) and _str(lag.get("name")):
                prof.lags.append((lag["name"], _int(lag.get("number_of_uplinks"))))
        prof.named_teamings = [t["name"] for t in _list(obj.get("named_teamings"))
                               if isinstance(t, dict) and _str(t.get("name"))]
        out.append(prof)
    return out, notes


def parse_transport_zones(data: Any) -> tuple[list[TransportZone], list[str]]:
    """Transport zones from ``GET /api/v1/transport-zones`` (list or one object). Returns (zones, notes)."""
    value, notes = load_json(data)
    if value is None:
        return [], notes
    out = []
    for obj in _results(value):
        tid = _str(obj.get("id"))
        if not tid:
            continue
        out.append(TransportZone(
            id=tid, display_name=_str(obj.get("display_name")), transport_type=_str(obj.get("transport_type")),
            host_switch_name=_str(obj.get("host_switch_name")), host_switch_mode=_str(obj.get("host_switch_mode")),
            tz_type=_str(obj.get("tz_type"))))
    return out, notes


def parse_switching_global_config(data: Any) -> tuple[SwitchingGlobalConfig | None, list[str]]:
    """``SwitchingGlobalConfig`` from ``GET /api/v1/global-configs/SwitchingGlobalConfig`` or from the
    ``GET /api/v1/global-configs`` list (the element whose ``resource_type`` is SwitchingGlobalConfig).
    Truncated text is read as far as it goes (the API-reference example is cut mid-key). Returns
    (config or None, notes)."""
    value, notes = load_json(data)
    if value is None:
        return None, notes
    for obj in _results(value):
        if obj.get("resource_type") in ("SwitchingGlobalConfig", None) and (
                "physical_uplink_mtu" in obj or obj.get("resource_type") == "SwitchingGlobalConfig"):
            cfg = SwitchingGlobalConfig(
                physical_uplink_mtu=_int(obj.get("physical_uplink_mtu")),
                uplink_mtu_threshold=_int(obj.get("uplink_mtu_threshold")),
                remote_tunnel_physical_mtu=_int(obj.get("remote_tunnel_physical_mtu")), raw=obj)
            if cfg.physical_uplink_mtu is None:
                notes.append("SwitchingGlobalConfig without physical_uplink_mtu")
            return cfg, notes
    notes.append("no SwitchingGlobalConfig in the response")
    return None, notes


def parse_node_version(data: Any) -> tuple[NodeVersion | None, list[str]]:
    """``GET /api/v1/node/version`` → NodeVersion (``node_version``, ``product_version``)."""
    value, notes = load_json(data)
    if not isinstance(value, dict) or not (_str(value.get("node_version")) or _str(value.get("product_version"))):
        notes.append("no node_version/product_version in the response")
        return None, notes
    return NodeVersion(_str(value.get("node_version")), _str(value.get("product_version"))), notes


# --- inventory → per-host facts --------------------------------------------------------------------

@dataclass(frozen=True)
class ResponseFacts:
    """Facts read for one host from one API response: ``path`` (``/api/v1/transport-nodes/<id>``),
    ``command`` (``NSX API GET /api/v1/transport-nodes``), ``text`` (the JSON object the facts were read
    from) and the :class:`ParseResult`."""

    path: str
    command: str
    text: str
    result: ParseResult


@dataclass
class HostFacts:
    """What NSX says about one host: its name (:attr:`TransportNode.host_name`), the names to join it
    with other sources (``aliases``), ``kind`` (esxi/linux/None), the transport-node id, the facts per
    response, and ``problems`` worth showing the user (failed state, unresolved uplink profile)."""

    name: str
    aliases: list[str]
    kind: str | None
    transport_node_id: str
    responses: list[ResponseFacts] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=False)


def effective_mtu(profile: UplinkProfile | None, global_cfg: SwitchingGlobalConfig | None) -> tuple[int | None, str]:
    """The MTU (bytes) NSX applies to an N-VDS's uplinks and TEPs, and where it came from.

    The uplink profile's ``mtu`` when set; else, when the profile was read and sets none, the global
    ``physical_uplink_mtu`` (nsx-api.md §2.4, §2.8); else None (profile not read, or global value not
    read — the schema defaults, 1600 or 1700 depending on the version, are not assumed).
    Returns (mtu or None, ``"profile"``/``"global"``/reason it is unknown).
    """
    if profile is None:
        return None, "uplink profile not read"
    if profile.mtu is not None:
        return profile.mtu, "profile"
    if global_cfg is not None and global_cfg.physical_uplink_mtu is not None:
        return global_cfg.physical_uplink_mtu, "global"
    return None, "profile sets no mtu and the global physical_uplink_mtu was not read"


def _ens_mode(inv: NsxInventory, tn: TransportNode, hs: HostSwitch) -> tuple[str | None, str, str]:
    """(Switch.ens_mode or None, evidence line, note or "") for one host switch (nsx-api.md §2.2)."""
    if hs.mode is not None:
        line = _line(f"{hs.path}.host_switch_mode", hs.mode)
        mode = hs.mode.upper()
        if mode == "STANDARD":
            nums = inv.version.numbers if inv.version else None
            if nums is None:
                return None, line, (f"{hs.name}: configured host_switch_mode STANDARD, but the NSX version is unknown; "
                                    "from NSX 4.2 the data plane may realize STANDARD as Enhanced Datapath, so the mode "
                                    "is not recorded")
            if nums[:2] >= _AUTO_MODE_SINCE:
                return None, line, (f"{hs.name}: configured host_switch_mode STANDARD on NSX {inv.version.version}: "
                                    "the data plane chooses the realized mode (Standard or Enhanced Datapath), so the "
                                    "mode is not recorded; read the pNICs (esxcfg-nics -e) for the realized one")
            return "standard", line + f" (NSX {inv.version.version})", ""
        if mode in _MODE_MAP:
            return _MODE_MAP[mode], line, ""
        return None, line, f"{hs.name}: host_switch_mode {hs.mode!r} has no ENS meaning known here; reported as is"
    tz_ids = hs.transport_zone_ids or tn.transport_zone_ids
    zones = [z for z in (inv.zone(t) for t in tz_ids) if z is not None]
    zones = [z for z in zones if not z.host_switch_name or z.host_switch_name == hs.name]
    modes = {z.host_switch_mode.upper() for z in zones if z.host_switch_mode}
    if len(modes) == 1 and next(iter(modes)) in _MODE_MAP:
        mode = next(iter(modes))
        z = next(z for z in zones if z.host_switch_mode)
        return _MODE_MAP[mode], _line(f"transport zone {z.display_name or z.id} host_switch_mode", z.host_switch_mode) + \
            f" ({hs.name} has no host_switch_mode: NSX-T 2.x sets it on the transport zone)", ""
    return None, "", (f"{hs.name}: no host_switch_mode on the host switch (NSX-T 2.x) and the mode of its transport "
                      f"zones was not read ({', '.join(tz_ids) or 'none named'}): mode unknown")


def _zone_kind(z: TransportZone) -> str | None:
    """``"overlay"`` or ``"vlan"`` from a zone's ``transport_type`` (Manager OVERLAY|VLAN; Policy OVERLAY_STANDARD,
    OVERLAY_ENS, OVERLAY_BACKED, VLAN_BACKED), None when absent or not one of those."""
    t = (z.transport_type or "").upper()
    return "overlay" if t.startswith("OVERLAY") else "vlan" if t.startswith("VLAN") else None


def carries_overlay(inv: NsxInventory, tn: TransportNode, hs: HostSwitch) -> tuple[bool | None, str]:
    """Whether host switch ``hs`` of ``tn`` carries the Geneve overlay, and why: the value of
    ``Switch.nsx_host_switch`` (the model's :meth:`~nicadvisor.model.Host.overlay_switches` decides on it).

    True when it holds a realized TEP (``/state`` ``host_switch_states[].endpoints``) or is attached to an OVERLAY
    transport zone; False when every one of its transport zones was read and is a VLAN zone (an NSX host switch for
    VLAN segments only: no Geneve crosses it); None when that is not known (a zone not read, or none named), so its
    overlay role stays unknown rather than assumed. The zones are the host switch's own
    ``transport_zone_endpoints`` (NSX-T 3.x+), else its realized ``transport_zone_ids`` in ``/state``, else the
    transport node's (NSX-T 2.x), of which a zone bound to another host switch by ``host_switch_name`` is left out.
    """
    st = inv.states.get(tn.id)
    hss = next((x for x in (st.host_switch_states or []) if x.name == hs.name or (x.id and x.id == hs.id)), None) \
        if st is not None else None
    if hss is not None and hss.endpoints:
        return True, (f"host switch {hs.name!r} holds {len(hss.endpoints)} realized TEP(s) "
                      f"({', '.join(e.device_name for e in hss.endpoints)}) in transport node {tn.id}/state")
    node_level = False  # NSX-T 2.x: the zones are named on the transport node, bound to a host switch by name
    if hs.transport_zone_ids:
        ids, where = hs.transport_zone_ids, f"{hs.path}.transport_zone_endpoints"
    elif hss is not None and hss.transport_zone_ids:
        ids, where = hss.transport_zone_ids, f"transport node {tn.id}/state host_switch_states {hs.name!r}"
    else:
        ids, where = tn.transport_zone_ids, "transport_zone_endpoints (transport node, NSX-T 2.x)"
        node_level = True
    if not ids:
        return None, (f"no transport zone is named for host switch {hs.name!r} of transport node {tn.id}: whether it "
                      "carries the overlay is unknown")
    shown, unknown, kinds = [], [], set()
    for t in ids:
        z = inv.zone(t)
        if z is not None and node_level and z.host_switch_name and z.host_switch_name != hs.name:
            continue  # the zone belongs to another host switch of the node
        kind = _zone_kind(z) if z is not None else None
        if z is None or kind is None or (node_level and not z.host_switch_name and len(tn.host_switches) > 1):
            unknown.append(t)
            continue
        kinds.add(kind)
        shown.append(f"{z.display_name or z.id}: {z.transport_type}")
    line = f"{where}: {', '.join(shown) or 'none of them read'}"
    if "overlay" in kinds:
        return True, f"{line} (host switch {hs.name!r} is in an overlay transport zone)"
    if unknown:
        return None, (f"transport zone(s) {', '.join(unknown)} of host switch {hs.name!r} not read or of unknown type: "
                      "whether it carries the overlay is unknown")
    if not kinds:
        return None, f"no transport zone of host switch {hs.name!r} is its own: whether it carries the overlay is unknown"
    return False, f"{line} (host switch {hs.name!r} is in VLAN transport zones only: it carries no overlay)"


def _tn_result(inv: NsxInventory, tn: TransportNode) -> tuple[ParseResult, list[str]]:
    r = ParseResult(family=FAMILY)
    problems: list[str] = []
    if tn.kind:
        r.host_fact("kind", tn.kind, _line("node_deployment_info.os_type", tn.os_type) if tn.os_type
                    else "pNIC device names vmnicN")
    if tn.os_version:
        r.host_fact("product_version", tn.os_version, _line("node_deployment_info.os_version", tn.os_version))
    for hs in tn.host_switches:
        kind = "distributed" if hs.is_vds else "opaque"
        kline = (_line(f"{hs.path}.host_switch_type", hs.type) if hs.type_stated
                 else f"{hs.path}: no host_switch_type (NSX-T 2.x: N-VDS, the schema default)")
        r.switch(hs.name, "kind", kind, kline)
        overlay, oline = carries_overlay(inv, tn, hs)
        if overlay is None:
            r.notes.append(f"{hs.name}: {oline}")
        r.switch(hs.name, "nsx_host_switch", overlay, oline)
        mode, mline, mnote = _ens_mode(inv, tn, hs)
        r.switch(hs.name, "ens_mode", mode, mline)
        if mnote:
            r.notes.append(mnote)
        if hs.pnics:
            r.switch(hs.name, "uplinks", [d for d, _ in hs.pnics],
                     _line(f"{hs.path}.pnics", [{"device_name": d, "uplink_name": u} for d, u in hs.pnics]))
        elif not hs.is_vds:
            r.notes.append(f"{hs.name}: N-VDS with no pNIC in its configuration")
        else:
            r.notes.append(f"{hs.name}: VDS host switch — its pNICs are attached to the VDS uplinks "
                           f"{', '.join(v for v, _ in hs.vds_uplinks) or '(none listed)'} in vCenter, not named by NSX")
        zones = []
        for t in hs.transport_zone_ids or tn.transport_zone_ids:
            z = inv.zone(t)
            zones.append({"id": t, "name": z.display_name if z else None, "transport_type": z.transport_type if z else None})
        r.records.append({
            "kind": "nsx host switch", "transport_node": tn.id, "host": tn.host_name, "host_switch": hs.name,
            "host_switch_id": hs.id, "host_switch_type": hs.type, "host_switch_type_stated": hs.type_stated,
            "host_switch_mode_configured": hs.mode, "ens_mode": mode,
            "uplink_profile_id": hs.uplink_profile_id, "profile_ids": dict(hs.profile_ids),
            "pnics": [{"device_name": d, "uplink_name": u} for d, u in hs.pnics],
            "vds_uplinks": [{"vds_uplink_name": v, "uplink_name": u} for v, u in hs.vds_uplinks],
            "tep_ip_assignment": hs.ip_assignment, "tep_ip_pool_id": hs.ip_pool_id,
            "transport_zones": zones, "ens_lcores": hs.lcores,
            "is_overridden": tn.is_overridden, "maintenance_mode": tn.maintenance_mode,
        })
        if hs.uplink_profile_id and inv.uplink_profile(hs.uplink_profile_id) is None:
            problems.append(f"{hs.name}: uplink profile {hs.uplink_profile_id} was not read: MTU, teaming and "
                            "transport VLAN unknown")
    return r, problems


def _profile_result(inv: NsxInventory, tn: TransportNode, hs: HostSwitch, prof: UplinkProfile) -> ParseResult:
    r = ParseResult(family=FAMILY)
    mtu, origin = effective_mtu(prof, inv.switching_config)
    rec = {
        "kind": "nsx uplink profile", "host": tn.host_name, "host_switch": hs.name, "profile_id": prof.id,
        "profile_name": prof.display_name, "mtu": prof.mtu, "mtu_inherited": prof.mtu is None,
        "effective_mtu": mtu, "effective_mtu_from": origin, "transport_vlan": prof.transport_vlan,
        "overlay_encap": prof.overlay_encap, "teaming_policy": prof.teaming_policy,
        "active_uplinks": list(prof.active_uplinks), "standby_uplinks": prof.standby_uplinks,
        "active_uplink_count": prof.active_uplink_count, "expected_teps": prof.expected_teps,
        "lags": [{"name": n, "number_of_uplinks": k} for n, k in prof.lags], "named_teamings": list(prof.named_teamings),
    }
    r.records.append(rec)
    if hs.is_vds:
        shown = f"{mtu} bytes" if mtu is not None else "no value"
        r.notes.append(f"{hs.name}: VDS host switch — its MTU is owned by vCenter (VDS maxMtu); the NSX uplink profile "
                       f"{prof.display_name or prof.id} ({shown}) is not applied to it and is not recorded as the switch MTU")
    elif origin == "profile":
        r.switch(hs.name, "mtu", mtu, _line("mtu", prof.mtu) + f" (uplink profile {prof.display_name or prof.id})")
    return r


def _state_result(tn: TransportNode, st: TransportNodeState) -> tuple[ParseResult, list[str]]:
    r = ParseResult(family=FAMILY)
    problems: list[str] = []
    if st.state and st.state not in ("success", "in_sync"):
        why = "; ".join(m for _, _, m in st.details if m) or st.failure_message or ""
        problems.append(f"NSX reports transport node {tn.host_name} in state {st.state!r}"
                        + (f" (failure_code {st.failure_code})" if st.failure_code is not None else "")
                        + (f": {st.failure_message}" if st.failure_message else "")
                        + (f" — {why}" if why and why != st.failure_message else ""))
    rec: dict[str, Any] = {"kind": "nsx transport node state", "host": tn.host_name, "transport_node": tn.id,
                           "state": st.state, "failure_code": st.failure_code, "failure_message": st.failure_message,
                           "maintenance_mode_state": st.maintenance_mode_state,
                           "deployment_state": st.deployment_state, "host_switches": None}
    if st.host_switch_states is not None:
        rec["host_switches"] = []
        for i, hss in enumerate(st.host_switch_states):
            rec["host_switches"].append({
                "host_switch": hss.name, "host_switch_type": hss.type, "tep_count": len(hss.endpoints),
                "teps": [{"device_name": e.device_name, "ip": e.ip, "subnet_mask": e.subnet_mask,
                          "default_gateway": e.default_gateway, "label": e.label} for e in hss.endpoints],
                "transport_zone_ids": list(hss.transport_zone_ids)})
            for j, ep in enumerate(hss.endpoints):
                line = _line(f"host_switch_states[{i}].endpoints[{j}]",
                             {"device_name": ep.device_name, "ip": ep.ip, "subnet_mask": ep.subnet_mask})
                r.vmknic(ep.device_name, "is_tep", True, line)
                r.vmknic(ep.device_name, "addresses", [ep.ip] if ep.ip else None, line)
                r.vmknic(ep.device_name, "switch", hss.name, line)
    r.records.append(rec)
    return r, problems


def state_facts(st: TransportNodeState, host: str = "") -> ParseResult:
    """Facts of one ``/state`` response on its own: each realized TEP endpoint as a vmknic
    (``is_tep`` True, ``addresses`` [ip], ``switch`` = host switch name) plus a record with the state,
    failure and TEP count per host switch. ``host`` only labels the record."""
    tn = TransportNode(id=st.transport_node_id or "", display_name=host or None)
    r, problems = _state_result(tn, st)
    r.notes.extend(problems)
    return r


def host_results(inv: NsxInventory) -> list[HostFacts]:
    """Per host transport node (edges left out), the facts NSX gives, one :class:`ResponseFacts` per
    response read: the transport node itself (switch kind, ENS mode, N-VDS uplinks, host kind and
    version), its uplink profile per host switch (N-VDS MTU), the global switching config when the
    N-VDS MTU is inherited from it, and its ``/state`` (realized TEP vmknics). Configured and
    realized views are kept apart: the configured mode is the switch's ``ens_mode``; the realized
    state and TEPs come only from ``/state``. Never raises."""
    out: list[HostFacts] = []
    for tn in inv.hosts:
        hf = HostFacts(name=tn.host_name, aliases=tn.aliases, kind=tn.kind, transport_node_id=tn.id)
        tn_r, problems = _tn_result(inv, tn)
        hf.problems.extend(problems)
        hf.responses.append(ResponseFacts(f"/api/v1/transport-nodes/{tn.id}", "NSX API GET /api/v1/transport-nodes",
                                          _dump(tn.raw), tn_r))
        global_r = ParseResult(family=FAMILY)
        for hs in tn.host_switches:
            prof = inv.uplink_profile(hs.uplink_profile_id)
            if prof is None:
                continue
            pr = _profile_result(inv, tn, hs, prof)
            hf.responses.append(ResponseFacts(f"/api/v1/host-switch-profiles/{prof.id}",
                                              "NSX API GET /api/v1/host-switch-profiles", _dump(prof.raw), pr))
            mtu, origin = effective_mtu(prof, inv.switching_config)
            if origin == "global" and not hs.is_vds and inv.switching_config is not None:
                global_r.switch(hs.name, "mtu", mtu,
                                _line("physical_uplink_mtu", mtu) + f" (uplink profile {prof.display_name or prof.id} "
                                "sets no mtu: the global value applies)")
            elif mtu is None and not hs.is_vds:
                hf.problems.append(f"{hs.name}: MTU unknown: {origin}")
        if global_r.switches and inv.switching_config is not None:
            hf.responses.append(ResponseFacts("/api/v1/global-configs/SwitchingGlobalConfig",
                                              "NSX API GET /api/v1/global-configs/SwitchingGlobalConfig",
                                              _dump(inv.switching_config.raw), global_r))
        st = inv.states.get(tn.id)
        if st is not None:
            sr, sp = _state_result(tn, st)
            hf.problems.extend(sp)
            hf.responses.append(ResponseFacts(f"/api/v1/transport-nodes/{tn.id}/state",
                                              "NSX API GET /api/v1/transport-nodes/<id>/state", _dump(st.raw), sr))
            _tep_count_note(inv, tn, st, hf)
        out.append(hf)
    return out


def _tep_count_note(inv: NsxInventory, tn: TransportNode, st: TransportNodeState, hf: HostFacts) -> None:
    """A problem when fewer TEPs are realized than the uplink profile's teaming creates (§2.5)."""
    if st.host_switch_states is None:
        return
    for hs in tn.host_switches:
        prof = inv.uplink_profile(hs.uplink_profile_id)
        expected = prof.expected_teps if prof else None
        hss = next((s for s in st.host_switch_states if s.name == hs.name or (s.id and s.id == hs.id)), None)
        if expected is not None and hss is not None and len(hss.endpoints) < expected:
            hf.problems.append(f"{hs.name}: {len(hss.endpoints)} TEP(s) realized, {expected} expected with teaming "
                               f"{prof.teaming_policy} over {prof.active_uplink_count} active uplinks")


def build_inventory(manager: str = "", *, transport_nodes: Any = None, states: dict[str, Any] | None = None,
                    uplink_profiles: Any = None, transport_zones: Any = None, switching_config: Any = None,
                    version: Any = None) -> NsxInventory:
    """Assemble an :class:`NsxInventory` from responses (text or decoded JSON), all optional.

    ``transport_nodes`` and ``uplink_profiles``/``transport_zones`` may each be one response or a list
    of responses (pages, single objects); ``states`` maps the transport-node id that was requested to
    its ``/state`` response — a state that names another transport node is dropped with a note.
    Never raises; everything not understood is in ``notes``.
    """
    inv = NsxInventory(manager=manager)

    def many(x: Any) -> list:
        # one response, or a list/tuple of responses (pages, single objects); a decoded list of
        # objects reads the same either way
        if x is None:
            return []
        return list(x) if isinstance(x, (list, tuple)) else [x]

    if version is not None:
        inv.version, notes = parse_node_version(version)
        inv.notes.extend(f"node/version: {n}" for n in notes)
    for resp in many(transport_zones):
        zones, notes = parse_transport_zones(resp)
        inv.notes.extend(f"transport-zones: {n}" for n in notes)
        for z in zones:
            inv.transport_zones.setdefault(z.id, z)
    for resp in many(uplink_profiles):
        profs, notes = parse_uplink_profiles(resp)
        inv.notes.extend(f"host-switch-profiles: {n}" for n in notes)
        for p in profs:
            inv.uplink_profiles.setdefault(p.id, p)
    if switching_config is not None:
        inv.switching_config, notes = parse_switching_global_config(switching_config)
        inv.notes.extend(f"global-configs: {n}" for n in notes)
    seen: set[str] = set()
    for resp in many(transport_nodes):
        nodes, notes = parse_transport_nodes(resp)
        inv.notes.extend(f"transport-nodes: {n}" for n in notes)
        for tn in nodes:
            if tn.id not in seen:
                seen.add(tn.id)
                inv.transport_nodes.append(tn)
    for tn_id, resp in (states or {}).items():
        st, notes = parse_transport_node_state(resp)
        inv.notes.extend(f"transport-nodes/{tn_id}/state: {n}" for n in notes)
        if st is None:
            continue
        if st.transport_node_id and st.transport_node_id != tn_id:
            inv.notes.append(f"transport-nodes/{tn_id}/state: the response describes transport node "
                             f"{st.transport_node_id}, not {tn_id}: ignored")
            continue
        inv.states[tn_id] = st
    return inv
