"""The LLDP / CDP facts of ``QueryNetworkHint`` answers (``PhysicalNicHintInfo[]`` as plain dicts;
nic-data-sources.md §1.1, community.vmware ``vmware_host_vmnic_info``): the ``neighbor_*`` facts of each pNIC (the
switch port it is cabled to). One decision for every reader of them: the vSphere API's answer and its recording
(:mod:`nicadvisor.parsers.api.network_hints`), community.vmware's dump (:mod:`nicadvisor.parsers.api.dumps`) and
ESXi ``vim-cmd hostsvc/net/query_networkhint`` text (:mod:`nicadvisor.parsers.esxi.networkhint`). Pure; never
raises."""
from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Mapping

from nicadvisor.parsers.base import ParseResult
from nicadvisor.parsers.neighbor import Neighbor, positive_int, record_neighbors, text_value
from nicadvisor.parsers.rows import norm_key, text as _s

#: ``(nic, path, value) → evidence line`` for a neighbour fact: ``path`` is the member read, dotted
#: (``lldpInfo.portId``, ``lldpInfo.parameter.System Name``, ``connectedSwitchPort.devId``).
LineFn = Callable[[str, str, Any], str]


def api_line(nic: str, path: str, value: Any) -> str:
    """The evidence line of an API answer: ``vmnic0 lldpInfo.portId = "Ethernet1/12"``."""
    return f"{nic} {path} = {json.dumps(value, default=str)}"


def _param(params: Mapping[str, Any], *names: str) -> tuple[str | None, Any]:
    """The first LLDP parameter whose key is one of ``names`` (compared without case, spaces and punctuation)."""
    wanted = {norm_key(n) for n in names}
    for k, v in params.items():
        if norm_key(k) in wanted:
            return k, v
    return None, None


def lldp_neighbor(nic: str, lldp: Mapping[str, Any], line: LineFn = api_line) -> Neighbor:
    """The neighbour of ``nic`` from a ``PhysicalNicLldpInfo`` as a plain dict (``chassisId``, ``portId``,
    ``parameter`` as ``[{key, value}]`` or as the ``{key: value}`` map community.vmware prints): name from the
    ``System Name`` parameter, port from ``portId``, ``Port Description``, ``Management Address``, ``MTU`` (bytes) and
    ``Vlan ID`` from the parameters of those names (community.vmware PR #828 sample)."""
    params = lldp.get("parameter")
    params = _kv_params(params) if isinstance(params, list) else dict(params) if isinstance(params, Mapping) else {}
    n = Neighbor(nic, "LLDP", line(nic, "lldpInfo", "LLDP"))
    for attr, key in (("chassis_id", "chassisId"), ("port", "portId")):
        value = text_value(_s(lldp.get(key)))
        if value:
            setattr(n, attr, value)
            n.lines[attr] = line(nic, f"lldpInfo.{key}", lldp.get(key))
    for attr, names, conv in (("name", ("System Name",), text_value),
                              ("port_description", ("Port Description",), text_value),
                              ("mgmt_address", ("Management Address",), text_value),
                              ("mtu", ("MTU",), positive_int), ("vlan", ("Vlan ID", "Port VLAN ID"), positive_int)):
        key, raw = _param(params, *names)
        value = conv(raw)
        if key is not None and value is not None:
            setattr(n, attr, value)
            n.lines[attr] = line(nic, f"lldpInfo.parameter.{key}", raw)
    if n.lines:
        n.line = next(iter(n.lines.values()))
    return n


def cdp_neighbor(nic: str, cdp: Mapping[str, Any], line: LineFn = api_line) -> Neighbor:
    """The neighbour of ``nic`` from a ``PhysicalNicCdpInfo`` as a plain dict: ``devId`` (name), ``portId``,
    ``mgmtAddr`` (else ``address``), ``mtu`` (bytes; 0 = not sent) and ``vlan`` (the native VLAN)."""
    n = Neighbor(nic, "CDP", line(nic, "connectedSwitchPort", "CDP"))
    for attr, keys, conv in (("name", ("devId",), text_value), ("port", ("portId",), text_value),
                             ("mgmt_address", ("mgmtAddr", "address"), text_value),
                             ("mtu", ("mtu",), positive_int), ("vlan", ("vlan",), positive_int)):
        for key in keys:
            value = conv(cdp.get(key))
            if value is not None:
                setattr(n, attr, value)
                n.lines[attr] = line(nic, f"connectedSwitchPort.{key}", cdp.get(key))
                break
    if n.lines:
        n.line = next(iter(n.lines.values()))
    return n

FAMILY_HINTS = "vSphere API QueryNetworkHint"
HINTS_COMMAND = "vSphere API: HostNetworkSystem.QueryNetworkHint"


def _kv_params(params: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params if isinstance(params, list) else []:
        if isinstance(p, dict) and isinstance(p.get("key"), str):
            out[p["key"]] = p.get("value")
    return out


def hint_facts(hints: Iterable[Mapping[str, Any]], line: LineFn = api_line,
               family: str = FAMILY_HINTS) -> ParseResult:
    """``QueryNetworkHint`` answers (``PhysicalNicHintInfo`` as plain dicts: ``device``,
    ``connectedSwitchPort`` = CDP, ``lldpInfo`` = LLDP) → the ``neighbor_*`` facts of each pNIC
    (:func:`lldp_neighbor`, :func:`cdp_neighbor`, one protocol per pNIC: :func:`nicadvisor.parsers.neighbor.record_neighbors`;
    evidence lines from ``line``) and one record per protocol heard:

    * LLDP: ``{"kind": "lldp", "nic", "chassis_id", "port_id", "ttl_s", "system_name", "parameters"}``
      where ``system_name`` is the ``System Name`` parameter (LLDP TLV name) when present and ``parameters``
      all ``lldpInfo.parameter`` key/values (e.g. ``Aggregated Port ID``, ``Aggregation Status``:
      ``esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt``);
    * CDP: ``{"kind": "cdp", "nic", "device_id" (devId), "port_id", "mgmt_address" (mgmtAddr, else address),
      "system_name", "vlan", "mtu" (bytes, the switch port's), "hardware_platform", "software_version"}``.

    A pNIC with neither gives no record and no fact (its neighbour stays unknown). Never raises."""
    result = ParseResult(family=family)
    neighbors: list[Neighbor] = []
    for raw in hints:
        if not isinstance(raw, Mapping):
            continue
        nic = _s(raw.get("device"))
        if not nic:
            continue
        lldp = raw.get("lldpInfo")
        if isinstance(lldp, Mapping):
            params = _kv_params(lldp.get("parameter"))
            name = next((v for k, v in params.items() if norm_key(k) == "systemname" and isinstance(v, str)), None)
            result.records.append({
                "kind": "lldp", "nic": nic, "chassis_id": _s(lldp.get("chassisId")), "port_id": _s(lldp.get("portId")),
                "ttl_s": lldp.get("timeToLive") if isinstance(lldp.get("timeToLive"), int) else None,
                "system_name": name, "parameters": params})
            neighbors.append(lldp_neighbor(nic, lldp, line))
        cdp = raw.get("connectedSwitchPort")
        if isinstance(cdp, Mapping):
            def num(key: str) -> int | None:
                v = cdp.get(key)
                return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None

            result.records.append({
                "kind": "cdp", "nic": nic, "device_id": _s(cdp.get("devId")), "port_id": _s(cdp.get("portId")),
                "mgmt_address": _s(cdp.get("mgmtAddr")) or _s(cdp.get("address")),
                "system_name": _s(cdp.get("systemName")), "vlan": num("vlan"), "mtu": num("mtu"),
                "hardware_platform": _s(cdp.get("hardwarePlatform")),
                "software_version": _s(cdp.get("softwareVersion"))})
            neighbors.append(cdp_neighbor(nic, cdp, line))
    record_neighbors(result, neighbors)
    return result
