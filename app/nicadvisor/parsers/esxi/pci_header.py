"""ESXi ``vsish -e get /hardware/pci/seg/S/bus/B/slot/D/func/F/pciConfigHeader``: the vmkernel's view of one PCI
function's configuration header.

No public output of this node was found (esxi-public/8_pcie_link_on_esxi.md): the collectors record it, and this
reader takes only what a public script documents: its ``Numa node:N`` line (``pci2numa.sh`` of
github.com/vbondzio/sowasvonunsupported reads it with ``sed -n 's/   Numa node:\\([0-9]\\+\\)$/\\1/p'`` and treats
``4294967295`` as no node). The function is the one the command names: the decimal node names converted back to
``dddd:bb:dd.f`` (the script's ``printf "%02x"``), keyed ``pci:<address>`` and joined to the vmnic of that address.
The rest of the text is kept as a record. **Unverified** on a real output. Pure, never raises.
"""
from __future__ import annotations

import itertools
import re

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.registration import register

_PATH_RE = re.compile(r"/hardware/pci/seg/(?P<seg>\d{1,5})/bus/(?P<bus>\d{1,3})/slot/(?P<slot>\d{1,2})/func/"
                      r"(?P<func>[0-7])/pciConfigHeader\b")
#: Blanks, not ``\s``: with ``re.M`` a ``^\s*`` runs over every following newline from each line start (quadratic in a
#: run of blank lines).
_NUMA_RE = re.compile(r"^[ \t]*Numa node:[ \t]*(?P<n>\d{1,10})[ \t\r]*$", re.M)
#: Lines of the header kept in the record, and characters of each (a real header line is short).
MAX_LINES, MAX_LINE_CHARS = 64, 400
#: ``(u32)-1``: the vmkernel's "no NUMA node" (pci2numa.sh skips it).
NO_NODE = 4294967295


@register(r"^vsish\b.*?/hardware/pci/seg/\d+/bus/\d+/slot/\d+/func/\d+/pciConfigHeader\b", "vsish pciConfigHeader")
def parse_pci_config_header(text: str, cmd: CommandLine) -> ParseResult:
    """The function's ``numa_node`` (``Numa node:`` line; none for 4294967295) and a record of the header's lines
    ``{"family", "pci", "lines"}`` (at most :data:`MAX_LINES`, each cut to :data:`MAX_LINE_CHARS`)."""
    result = ParseResult(family="vsish pciConfigHeader")
    m = _PATH_RE.search(cmd.raw)
    seg, bus, slot, func = (int(m.group(g)) for g in ("seg", "bus", "slot", "func")) if m else (None,) * 4
    if m is None or bus > 0xFF or slot > 0x1F or seg > 0xFFFF:
        result.notes.append("vsish pciConfigHeader: the command names no PCI function")
        return result
    pci = f"{seg:04x}:{bus:02x}:{slot:02x}.{func}"
    numa = _NUMA_RE.search(text)
    if numa and int(numa.group("n")) != NO_NODE:
        result.pnic(f"pci:{pci}", "numa_node", int(numa.group("n")), numa.group(0).strip())
    lines = list(itertools.islice((line.rstrip()[:MAX_LINE_CHARS] for line in text.splitlines() if line.strip()),
                                  MAX_LINES))
    if lines:
        result.records.append({"family": result.family, "pci": pci, "lines": lines})
    return result
