"""LLDP / CDP of each pNIC as the vSphere API answers ``HostNetworkSystem.QueryNetworkHint()``
(``PhysicalNicHintInfo[]``; nic-data-sources.md §1.1, community.vmware ``vmware_host_vmnic_info``), and the
recording a live audit keeps of it: the ``neighbor_*`` facts of each pNIC (the switch port it is cabled to).
Pure: the call is :func:`nicadvisor.collect.vsphere_esxcli.query_network_hints`."""
from __future__ import annotations

import json

from nicadvisor.parsers.base import ParseResult
# the decision lives below the readers (esxi/networkhint reads vim-cmd's text with it too); its names stay importable
# from here
from nicadvisor.parsers.network_hint_facts import (  # noqa: F401
    FAMILY_HINTS, HINTS_COMMAND, LineFn, api_line, cdp_neighbor, hint_facts, lldp_neighbor)
from nicadvisor.parsers.rows import load_recording


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
