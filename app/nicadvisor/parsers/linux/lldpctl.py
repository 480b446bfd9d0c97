"""Linux ``lldpctl -f json`` (lldpd): the LLDP / CDP neighbour (switch and port) of each interface.

lldpd's JSON writer (``src/client/display.c``) prints ``{"lldp": {"interface": …}}`` where ``interface`` is an object
keyed by the interface name when one neighbour was heard, and a list of such one-key objects when several were (two
interfaces, or two neighbours on one). Per neighbour: ``via`` (``LLDP``, ``CDPv1``, ``CDPv2``, …); ``chassis`` is an
object keyed by the neighbour's system name, or, when it sent no name, the chassis object itself (``id``, ``descr``,
``mgmt-ip`` as a string or a list); ``port`` holds ``id`` (``type``/``value``), ``descr`` and, when the switch sends the
IEEE 802.3 Maximum Frame Size TLV, ``mfs`` (bytes); ``vlan`` (object or list) marks the port VLAN with ``pvid``.

Sources: ``linux_lldpctl-f_json_leaf01_swp12_and_cisco_sg200_g1_lldpd1.0.16.txt`` (list form, a neighbour without a
name: the Cisco SG 200-08P frame of lldpd's own tests) and ``linux_lldpctl-f_json_one_neighbour_leaf01_swp12_lldpd1.0.16.txt``
(object form), both recorded here with Debian 12's lldpd 1.0.16; lldpctl(8). Evidence lines are written as the path
lldpctl's keyvalue format gives the value (``lldp.ens1f0.port.id.value = swp12``).
"""
from __future__ import annotations

import json
from typing import Any, Iterator

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.neighbor import Neighbor, positive_int, record_neighbors, text_value
from nicadvisor.parsers.registration import register

FAMILY = "lldpctl -f json"


def _entries(interface: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    items = interface if isinstance(interface, list) else [interface] if isinstance(interface, dict) else []
    for item in items:
        if isinstance(item, dict):
            for name, body in item.items():
                if isinstance(name, str) and isinstance(body, dict):
                    yield name, body


def _chassis(body: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """(system name or None, the chassis object)."""
    ch = body.get("chassis")
    if not isinstance(ch, dict):
        return None, {}
    if "id" in ch or "descr" in ch or "mgmt-ip" in ch:
        return None, ch
    for name, inner in ch.items():
        if isinstance(inner, dict):
            return name, inner
    return None, {}


def _id_value(obj: Any) -> str | None:
    if isinstance(obj, dict):
        return text_value(obj.get("value"))
    return text_value(obj)


def _pvid(vlan: Any) -> int | None:
    for v in vlan if isinstance(vlan, list) else [vlan]:
        if isinstance(v, dict) and v.get("pvid") in (True, "yes"):
            return positive_int(v.get("vlan-id"))
    return None


def neighbor_of(ifname: str, body: dict[str, Any]) -> Neighbor:
    """The neighbour lldpctl shows on ``ifname`` (one entry of ``lldp.interface``)."""
    via = text_value(body.get("via")) or "LLDP"
    protocol = "CDP" if via.upper().startswith("CDP") else via.upper()
    name, chassis = _chassis(body)
    port = body.get("port") if isinstance(body.get("port"), dict) else {}
    p = f"lldp.{ifname}"
    n = Neighbor(ifname, protocol, f"{p}.via = {via}")
    mgmt = chassis.get("mgmt-ip")
    mgmt = mgmt[0] if isinstance(mgmt, list) and mgmt else mgmt
    found = (("name", text_value(name), f"{p}.chassis.name = {name}"),
             ("chassis_id", _id_value(chassis.get("id")), f"{p}.chassis.id = {_id_value(chassis.get('id'))}"),
             ("port", _id_value(port.get("id")), f"{p}.port.id = {_id_value(port.get('id'))}"),
             ("port_description", text_value(port.get("descr")), f"{p}.port.descr = {port.get('descr')}"),
             ("mgmt_address", text_value(mgmt), f"{p}.chassis.mgmt-ip = {mgmt}"),
             ("mtu", positive_int(port.get("mfs")), f"{p}.port.mfs = {port.get('mfs')}"),
             ("vlan", _pvid(body.get("vlan")), f"{p}.vlan.vlan-id = {_pvid(body.get('vlan'))} (pvid)"))
    for attr, value, line in found:
        if value is not None:
            setattr(n, attr, value)
            n.lines[attr] = line
    return n


@register(r"^lldpctl\b(?=.*\s-f\s*json\b)", FAMILY)
def parse_lldpctl_json(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``lldpctl -f json [IF…]`` into each interface's ``neighbor_*`` facts (switch name or chassis ID, port ID,
    port description, management address, MTU in bytes from ``mfs``, port VLAN) and one record per neighbour.
    Several neighbours on one interface: LLDP first (:func:`nicadvisor.parsers.neighbor.record_neighbors`). Text
    that is not lldpctl's JSON gives a note. Never raises."""
    result = ParseResult(family=FAMILY)
    start = text.find("{")
    try:
        doc = json.loads(text[start:]) if start >= 0 else None
    except ValueError as exc:
        result.notes.append(f"{cmd.text!r}: not lldpctl JSON ({exc})")
        return result
    lldp = doc.get("lldp") if isinstance(doc, dict) else None
    if not isinstance(lldp, dict):
        result.notes.append(f"{cmd.text!r}: no 'lldp' object")
        return result
    neighbors = []
    for ifname, body in _entries(lldp.get("interface")):
        n = neighbor_of(ifname, body)
        neighbors.append(n)
        result.records.append({"kind": "lldp neighbor", "interface": ifname, "protocol": n.protocol, "name": n.name,
                               "chassis_id": n.chassis_id, "port": n.port, "mtu": n.mtu})
    record_neighbors(result, neighbors)
    if not neighbors:
        result.records.append({"kind": "no lldp neighbor", "command": cmd.text})
    return result
