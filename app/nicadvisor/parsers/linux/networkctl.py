"""Linux ``networkctl lldp`` (systemd-networkd): the LLDP neighbour (switch and port) of each link.

The table ``LINK | CHASSIS ID | SYSTEM NAME | CAPS | PORT ID | PORT DESCRIPTION`` (systemd ≥ 253 writes the titles
with hyphens: ``CHASSIS-ID``), then ``Capability Flags:`` and ``N neighbors listed.``. Rows are cut at the titles'
columns; a row that does not line up under them (an edited paste) is split around its CAPS cell (11 characters of
``.`` and capability letters): link, chassis ID, system name before it; the port ID (one word) and the description
after it. networkctl cuts long cells with ``…`` (systemd < 252 even with ``--full``): such a name is kept as printed,
with its ``…``. ``n/a`` is not sent.

Sources: ``linux_networkctl_lldp_systemd250_rsw069_eth1-27-1_ellipsized.txt`` (systemd issue #24627),
``linux_networkctl_lldp_systemd253_junos_xe-0-0-4_masked.txt`` (#28354),
``linux_networkctl_lldp_full_systemd249_two_links_gi1-46_partial.txt`` (#30207); networkctl(1).
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.neighbor import Neighbor, record_neighbors, text_value
from nicadvisor.parsers.registration import register

FAMILY = "networkctl lldp"

_TITLES = (("link", r"LINK"), ("chassis_id", r"CHASSIS[ -]ID"), ("name", r"SYSTEM[ -]NAME"), ("caps", r"CAPS"),
           ("port", r"PORT[ -]ID"), ("port_description", r"PORT[ -]DESCRIPTION"))
_HEADER_RE = re.compile(r"^\s*" + r"\s+".join(f"(?P<{k}>{t})" for k, t in _TITLES) + r"\s*$")
_CAPS_RE = re.compile(r"(?<!\S)[.a-zA-Z]{11}(?!\S)")
_IFNAME_RE = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")


def _cut(line: str, starts: list[tuple[str, int]]) -> dict[str, str]:
    cells = {}
    for i, (key, start) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else len(line)
        cells[key] = line[start:end].strip()
    return cells


def _aligned(line: str, starts: list[tuple[str, int]]) -> bool:
    """True when every cell starts right at its title's column (the character before it is a space)."""
    return all(start == 0 or (len(line) > start and line[start - 1] == " " and line[start] != " ")
               for _key, start in starts[:5])


def _split_on_caps(line: str) -> dict[str, str] | None:
    m = None
    for m in _CAPS_RE.finditer(line):
        pass
    if m is None:
        return None
    before, after = line[:m.start()].split(), line[m.end():].split(None, 1)
    if len(before) < 2:
        return None
    return {"link": before[0], "chassis_id": before[1], "name": " ".join(before[2:]), "caps": m.group(0),
            "port": after[0] if after else "", "port_description": after[1] if len(after) > 1 else ""}


@register(r"^networkctl\b.*\blldp\b", FAMILY)
def parse_networkctl_lldp(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``networkctl [--no-pager] [--full] lldp`` into each link's ``neighbor_*`` facts (protocol LLDP, chassis
    ID, system name, port ID, port description; the row is the evidence) and one record per row. Never raises."""
    result = ParseResult(family=FAMILY)
    starts: list[tuple[str, int]] | None = None
    neighbors = []
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _HEADER_RE.match(line)
        if m:
            starts = [(k, m.start(k)) for k, _t in _TITLES]
            continue
        if starts is None or not line.strip():
            if starts is not None:
                starts = None  # the table ends at its first blank line (then "Capability Flags:")
            continue
        cells = _cut(line, starts) if _aligned(line, starts) else _split_on_caps(line)
        if not cells or not _IFNAME_RE.match(cells["link"]) or not _CAPS_RE.fullmatch(cells["caps"]):
            cells = _split_on_caps(line)
        if not cells or not _IFNAME_RE.match(cells["link"]):
            result.notes.append(f"{cmd.text!r}: row not understood: {line.strip()[:200]!r}")
            continue
        n = Neighbor(cells["link"], "LLDP", raw, name=text_value(cells["name"]),
                     chassis_id=text_value(cells["chassis_id"]), port=text_value(cells["port"]),
                     port_description=text_value(cells["port_description"]))
        neighbors.append(n)
        result.records.append({"kind": "lldp neighbor", "interface": n.nic, "name": n.name,
                               "chassis_id": n.chassis_id, "port": n.port, "port_description": n.port_description})
    record_neighbors(result, neighbors)
    if not neighbors and not result.notes:
        result.records.append({"kind": "no lldp neighbor", "command": cmd.text})
    return result
