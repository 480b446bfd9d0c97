"""LLDP / CDP of each pNIC as the vSphere API answers ``HostNetworkSystem.QueryNetworkHint()``
(``PhysicalNicHintInfo[]``; nic-data-sources.md §1.1, community.vmware ``vmware_host_vmnic_info``), and the
recording a live audit keeps of it. Pure: the call is :func:`nicadvisor.collect.vsphere_esxcli.query_network_hints`."""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from nicadvisor.parsers.base import ParseResult
from nicadvisor.parsers.rows import load_recording, norm_key, text as _s

FAMILY_HINTS = "vSphere API QueryNetworkHint"
HINTS_COMMAND = "vSphere API: HostNetworkSystem.QueryNetworkHint"


def _kv_params(params: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params if isinstance(params, list) else []:
        if isinstance(p, dict) and isinstance(p.get("key"), str):
            out[p["key"]] = p.get("value")
    return out


def hint_facts(hints: Iterable[Mapping[str, Any]]) -> ParseResult:
    """``QueryNetworkHint`` answers (``PhysicalNicHintInfo`` as plain dicts: ``device``,
    ``connectedSwitchPort`` = CDP, ``lldpInfo`` = LLDP) → records only (no model field holds them):

    * LLDP: ``{"kind": "lldp", "nic", "chassis_id", "port_id", "ttl_s", "system_name", "parameters"}``
      where ``system_name`` is the ``System Name`` parameter (LLDP TLV name) when present and ``parameters``
      all ``lldpInfo.parameter`` key/values (e.g. ``Aggregated Port ID``, ``Aggregation Status``:
      ``esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt``);
    * CDP: ``{"kind": "cdp", "nic", "device_id" (devId), "port_id", "mgmt_address" (mgmtAddr, else address),
      "system_name", "vlan", "mtu" (bytes, the switch port's), "hardware_platform", "software_version"}``.

    A pNIC with neither gives no record. Never raises."""
    result = ParseResult(family=FAMILY_HINTS)
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
    return result


def hints_recording(host_ref: str, network_system: str | None, hints: list[dict], vcenter: str | None = None) -> str:
    """The Capture text of one QueryNetworkHint: ``{"kind": "network_hints", "vcenter", "obj",
    "networkSystem", "hints": [PhysicalNicHintInfo as plain dicts]}``."""
    doc = {"kind": "network_hints", "vcenter": vcenter, "obj": host_ref, "networkSystem": network_system,
           "hints": hints}
    return json.dumps(doc, sort_keys=True, default=str, separators=(",", ":")) + "\n"


def facts_from_recording(text: str) -> ParseResult:
    """Replay a :func:`hints_recording` text into its ParseResult (the records the live call produced). Never
    raises: anything else gives an empty result with a note."""
    doc, failed = load_recording(text, FAMILY_HINTS, "a QueryNetworkHint recording")
    if failed is not None:
        return failed
    if doc.get("kind") != "network_hints":
        r = ParseResult(family=FAMILY_HINTS)
        r.notes.append("not a QueryNetworkHint recording (no kind network_hints)")
        return r
    hints = doc.get("hints")
    return hint_facts(hints if isinstance(hints, list) else [])
