"""ESXi ``net-dvs -l``: the host's view of each distributed or NSX switch (VDS, N-VDS / opaque switch).

Each switch is a ``switch <uuid> (etherswitch)`` block whose ``global properties:`` hold ``key = value ,
propType = …`` lines (vm-support-bundles.md §1.3, ``commands/net-dvs_-l.txt``): ``com.vmware.common.alias`` (the
switch's name), ``com.vmware.common.opaqueDvs`` (an N-VDS, the NSX-T opaque switch) and its MTU: a VDS's in
``com.vmware.etherswitch.mtu``, an N-VDS's in ``com.vmware.common.portset.mtu`` (a ``switch … (vswitch)`` block; the
only place an N-VDS MTU shows on the host: ``esxcfg-vswitch -l`` lists it without an MTU column). Captures
``esxi_net-dvs-l_vds_compute_vds_global_properties_mtu1500_opaquedvs_false_sneaku.txt`` (VDS),
``esxi_net-dvs-l_nvds_overlay_opaquedvs_portset_mtu1600_nsxt251_author_arrow_blog.txt`` (N-VDS, NSX-T 2.5.1) and
``esxi_net-dvs-l_opaquedvs_true_no_mtu_nsx_qe_parser_doctest.txt`` (an opaque switch of NSX's own parser tests).
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, to_bool, to_int
from nicadvisor.parsers.registration import register

FAMILY = "net-dvs -l"
_SWITCH_RE = re.compile(r"^\s*switch (?P<uuid>[0-9a-fA-F]{2}(?: [0-9a-fA-F]{2}){7}-[0-9a-fA-F]{2}(?: [0-9a-fA-F]{2}){7})"
                        r" \((?P<type>[\w.-]{1,40})\)\s*$")
_SECTION_RE = re.compile(r"^\s*(?P<section>global properties|host properties|port [^:\s]{1,40}):\s*$")
_PROP_RE = re.compile(r"^\s*(?P<key>com\.vmware\.[\w.]{1,120})\s*=\s*(?P<value>.*?)\s*(?:,\s*propType\s*=.*)?$")


@register(r"^net-dvs\s+-l\b", FAMILY)
def parse_net_dvs_list(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``net-dvs -l``: per ``switch <uuid>`` block, from its global and host properties, a switch keyed by its
    alias (else its uuid) with ``kind`` ``opaque`` (``com.vmware.common.opaqueDvs = true`` or
    ``com.vmware.common.portset.opaque = true``: an N-VDS) or ``distributed``, and ``mtu`` (bytes) from
    ``com.vmware.etherswitch.mtu`` (a VDS) or ``com.vmware.common.portset.mtu`` (an N-VDS). Port blocks are not read (a record counts them). A switch block with no MTU gets a
    note (a cut listing). Never raises."""
    result = ParseResult(family=FAMILY)
    switches: list[dict] = []
    current: dict | None = None
    section = ""
    for line in text.splitlines():
        m = _SWITCH_RE.match(line)
        if m:
            current = {"uuid": m.group("uuid"), "line": line, "props": {}, "ports": 0}
            switches.append(current)
            section = ""
            continue
        if current is None:
            continue
        s = _SECTION_RE.match(line)
        if s:
            section = s.group("section")
            current["ports"] += section.startswith("port ")
            continue
        p = _PROP_RE.match(line)
        if p and section in ("global properties", "host properties"):
            current["props"].setdefault(p.group("key"), (p.group("value"), line))
    for sw in switches:
        props = sw["props"]
        alias = props.get("com.vmware.common.alias")
        key = alias[0] if alias and alias[0] else sw["uuid"]
        opaque = [to_bool(props[k][0]) for k in ("com.vmware.common.opaqueDvs", "com.vmware.common.portset.opaque")
                  if k in props]
        if opaque:
            kind_line = next(props[k][1] for k in ("com.vmware.common.opaqueDvs", "com.vmware.common.portset.opaque")
                             if k in props)
            result.switch(key, "kind", "opaque" if any(opaque) else "distributed", kind_line)
        mtu = props.get("com.vmware.etherswitch.mtu") or props.get("com.vmware.common.portset.mtu")
        if mtu and to_int(mtu[0].split()[0] if mtu[0] else None):
            result.switch(key, "mtu", to_int(mtu[0].split()[0]), mtu[1])
        else:
            result.notes.append(f"{FAMILY}: switch {key} ({sw['line'].strip()!r}) shows no "
                                "'com.vmware.etherswitch.mtu' nor 'com.vmware.common.portset.mtu' in its global "
                                "properties: its MTU is left unknown")
        result.records.append({"family": FAMILY, "switch": key, "uuid": sw["uuid"], "ports_listed": sw["ports"]})
    if not switches:
        result.notes.append(f"{FAMILY}: no 'switch <uuid> (etherswitch)' block found")
    return result
