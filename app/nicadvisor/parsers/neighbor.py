"""The physical switch port a pNIC is cabled to (its LLDP / CDP neighbour), recorded the same way by every reader.

The readers (vSphere API ``QueryNetworkHint`` and community.vmware ``vmware_host_vmnic_info`` in
:mod:`nicadvisor.parsers.api.network_hints` / :mod:`nicadvisor.parsers.api.dumps`, ESXi ``vim-cmd
hostsvc/net/query_networkhint`` in :mod:`nicadvisor.parsers.esxi.networkhint`, Linux ``lldpctl -f json`` and
``networkctl lldp`` in :mod:`nicadvisor.parsers.linux.lldpctl` / :mod:`nicadvisor.parsers.linux.networkctl`) turn
what they read into :class:`Neighbor` values; :func:`record_neighbors` writes them as the ``neighbor_*`` facts of
:class:`nicadvisor.model.PhysicalNic` (field meanings there). Pure; never raises.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from nicadvisor.parsers.base import ParseResult

#: The PhysicalNic fields a neighbour fills, in the order they are shown.
NEIGHBOR_FIELDS = ("neighbor_protocol", "neighbor_name", "neighbor_chassis_id", "neighbor_port",
                   "neighbor_port_description", "neighbor_mgmt_address", "neighbor_mtu", "neighbor_vlan")

_NOT_SENT = {"", "n/a", "<unset>", "none", "null"}


def text_value(value: Any) -> str | None:
    """A neighbour's text field: stripped, None when empty or a not-sent marker (``n/a``, ``<unset>``)."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    return None if value.lower() in _NOT_SENT else value


def positive_int(value: Any) -> int | None:
    """A count the switch advertises (MTU in bytes, VLAN ID) from an int or a decimal string; None for 0
    (CDP's ``mtu = 0``: not sent), negatives, booleans and anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 9:
        value = int(value.strip())
    return value if isinstance(value, int) and value > 0 else None


@dataclass
class Neighbor:
    """One LLDP/CDP neighbour of pNIC ``nic`` (``protocol`` ``"LLDP"``/``"CDP"``, other fields as the
    ``neighbor_*`` fields of PhysicalNic; MTU in bytes). ``line`` is the evidence line of every fact whose own line is
    not in ``lines`` (field name without the ``neighbor_`` prefix → raw line)."""

    nic: str
    protocol: str
    line: str
    name: str | None = None
    chassis_id: str | None = None
    port: str | None = None
    port_description: str | None = None
    mgmt_address: str | None = None
    mtu: int | None = None
    vlan: int | None = None
    lines: dict[str, str] = field(default_factory=dict)

    @property
    def known(self) -> bool:
        """True when the neighbour names a switch or a port (else it tells nothing about the cabling)."""
        return bool(self.name or self.chassis_id or self.port)


def record_neighbors(result: ParseResult, neighbors: Iterable[Neighbor]) -> None:
    """Record each pNIC's neighbour as ``neighbor_*`` facts in ``result``: one neighbour per pNIC (LLDP before CDP,
    else the first heard), so the facts of one pNIC never mix two switches. Neighbours that name neither a switch nor
    a port are skipped."""
    chosen: dict[str, Neighbor] = {}
    for n in neighbors:
        if not n.nic or not n.known:
            continue
        have = chosen.get(n.nic)
        if have is None or (have.protocol != "LLDP" and n.protocol == "LLDP"):
            chosen[n.nic] = n
    for nic, n in chosen.items():
        for fld in NEIGHBOR_FIELDS:
            key = fld.removeprefix("neighbor_")
            value = n.protocol if key == "protocol" else getattr(n, key)
            result.pnic(nic, fld, value, n.lines.get(key, n.line))
