"""Replaying the recordings of a live audit saved with ``--save-captures`` (``nic-advisor audit --capture DIR``).

A live vSphere or NSX audit keeps each API response as a :class:`~nicadvisor.parsers.capture_file.Capture`
whose text is a recording (JSON) and whose command names the call; saved as capture files, they come back
here through the registry:

* ``vSphere API: PropertyCollector.RetrievePropertiesEx HostSystem …`` (one host's inventory) and
  ``vSphere API: HostKernelModuleSystem.QueryModules …`` (its pNIC drivers) →
  :func:`nicadvisor.parsers.api.vsphere_objects.facts_from_recording`: the same facts as the live audit;
* ``vSphere API: esxcli … (ExecuteSoap …)`` and ``vSphere API: HostNetworkSystem.QueryNetworkHint`` →
  :func:`nicadvisor.parsers.api.esxcli_soap.facts_from_recording` and
  :func:`nicadvisor.parsers.api.network_hints.facts_from_recording` (same facts as live);
* ``NSX API GET /api/v1/transport-nodes`` (one transport node) → switch kind, N-VDS uplinks, host kind and
  version as :func:`nicadvisor.parsers.api.nsx.host_results` reads them, but on its own: the NSX version
  and transport zones were other responses, so a configured ``STANDARD`` mode (and a 2.x mode set on the
  zone) is left unknown with a note, where the live audit could decide it;
* ``NSX API GET /api/v1/transport-nodes/<id>/state`` → realized TEP vmknics
  (:func:`nicadvisor.parsers.api.nsx.state_facts`), same as live;
* ``NSX API GET /api/v1/host-switch-profiles`` and ``…/global-configs/SwitchingGlobalConfig``: an uplink
  profile's MTU belongs to the host switches using it, which are named in the transport node response, so
  these are not replayed on their own: a note says so (the N-VDS MTU is missing from a replay).

Pure functions: no I/O, never raise (unreadable text gives a result with a note).
"""
from __future__ import annotations

import json

from nicadvisor.parsers.api import esxcli_soap, network_hints
from nicadvisor.parsers.api import nsx as nsx_api
from nicadvisor.parsers.api import vsphere_objects as vf
from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.registration import register

FAMILY_VSPHERE = "vSphere API recording"
FAMILY_NSX = "NSX API recording"


def _kind(text: str) -> str | None:
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc.get("kind") if isinstance(doc, dict) and isinstance(doc.get("kind"), str) else None


@register(r"^vSphere API:", FAMILY_VSPHERE)
def parse_vsphere_recording(text: str, cmd: CommandLine) -> ParseResult:
    """Facts of one saved vSphere API recording (inventory, driver modules, esxcli over the API, LLDP/CDP
    hints), the same the live audit read from it (nicadvisor.parsers.api.vsphere_objects /
    esxcli_soap / network_hints ``facts_from_recording``). ``text`` is the recording's JSON line."""
    kind = _kind(text)
    if kind == "esxcli":
        r = esxcli_soap.facts_from_recording(text)
    elif kind == "network_hints":
        r = network_hints.facts_from_recording(text)
    else:
        r = vf.facts_from_recording(text)
    if not r.understood and not r.notes:  # a valid recording of an empty answer (no LLDP/CDP hint, no module)
        r.records.append({"kind": "empty vSphere API answer", "command": cmd.text})
    return r


@register(r"^NSX API GET /api/v1/transport-nodes/\S+/state\b", FAMILY_NSX)
def parse_nsx_state_recording(text: str, cmd: CommandLine) -> ParseResult:
    """Realized TEP vmknics of one saved ``GET /api/v1/transport-nodes/<id>/state`` response
    (nicadvisor.parsers.api.nsx.state_facts), as in the live audit."""
    st, notes = nsx_api.parse_transport_node_state(text)
    if st is None:
        r = ParseResult(family=FAMILY_NSX)
        r.notes.extend(notes or ["not a transport-node state response"])
        return r
    r = nsx_api.state_facts(st)
    r.notes.extend(notes)
    return r


@register(r"^NSX API GET /api/v1/transport-nodes\s*$", FAMILY_NSX)
def parse_nsx_transport_node_recording(text: str, cmd: CommandLine) -> ParseResult:
    """Facts of one saved transport node object (host switches: kind, ENS mode when stated as ENS or
    ENS_INTERRUPT, N-VDS uplinks; host kind and version) read alone: see the module docstring for what
    needs the other responses."""
    inv = nsx_api.build_inventory("", transport_nodes=text)
    hosts = nsx_api.host_results(inv)
    r = ParseResult(family=FAMILY_NSX)
    if not hosts or not hosts[0].responses:
        r.notes.extend(inv.notes or ["not a host transport node"])
        return r
    r = hosts[0].responses[0].result
    r.notes.extend(hosts[0].problems)
    return r


@register(r"^NSX API GET /api/v1/(?:host-switch-profiles|global-configs)\b", FAMILY_NSX)
def parse_nsx_profile_recording(text: str, cmd: CommandLine) -> ParseResult:
    """A saved uplink profile or global switching config: not replayed alone (its MTU applies to the host
    switches that name it in the transport node response); returns a result with that note only."""
    r = ParseResult(family=FAMILY_NSX)
    r.notes.append(f"{cmd.text}: an uplink profile / global MTU is only meaningful with the transport node "
                   "that uses it, which a replay reads separately: N-VDS MTU not replayed")
    return r
