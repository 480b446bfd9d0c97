"""Linux bonding: ``cat /proc/net/bonding/<bond>`` (the bonding driver's status file).

It names the bond's members (``Slave Interface: eno1``) and, per member, its MII link state, speed and duplex as the
bond sees them: the one place a bond's member list shows without ``-d`` (Documentation/networking/bonding.rst,
"Querying Bonding Configuration"; captures ``linux_proc_net_bonding_bond0_round-robin_eno1_eno2_1000_full_insights-
core.txt``, ``linux_proc_net_bonding_bond0_802.3ad_enp0s9_up_enp0s8_down_unknown_speed_insights-core.txt``).
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, speed_mbps
from nicadvisor.parsers.registration import register

FAMILY = "cat /proc/net/bonding"
_PATH_RE = re.compile(r"/proc/net/bonding/(?P<bond>[A-Za-z0-9_.:-]{1,15})\b")
#: ``==> /proc/net/bonding/bond0 <==`` (``head``/``tail`` of several files) or ``/proc/net/bonding/bond0:…`` (``grep``
#: of several files): which bond the lines after it (or that line) are about.
_FILE_MARK_RE = re.compile(r"^==> /proc/net/bonding/(?P<bond>[A-Za-z0-9_.:-]{1,15}) <==\s*$")
_DRIVER_RE = re.compile(r"^Ethernet Channel Bonding Driver:")
_KV_RE = re.compile(r"^(?P<key>Slave Interface|MII Status|Speed|Duplex|Bonding Mode):\s*(?P<value>.*?)\s*$")


def _bond_of(cmd: CommandLine) -> str | None:
    """The bond named by the command (``cat /proc/net/bonding/bond0``), None for a wildcard or none."""
    m = _PATH_RE.search(" ".join(cmd.argv))
    return m.group("bond") if m and "*" not in m.group(0) else None


@register(r"^(?:cat|more|less|head|tail)\s+(?:-\S+\s+)*/proc/net/bonding/", FAMILY)
def parse_proc_net_bonding(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``/proc/net/bonding/<bond>``: the bond (``is_physical`` False) and each ``Slave Interface:`` member
    with ``master`` (the bond), ``link_up`` (``MII Status: up``/``down``), ``link_speed_mbps`` (``Speed: 1000 Mbps``;
    ``Unknown`` → unset) and ``duplex`` (``full``/``half``; ``Unknown`` → unset). The bond's own ``MII Status`` is not
    a member's. The bond's name comes from the command's path or from ``==> /proc/net/bonding/bond1 <==`` lines
    (several files at once); members of a bond whose name the text does not give keep no ``master`` (a note says so).
    The bonding mode goes to ``records``. Never raises."""
    result = ParseResult(family=FAMILY)
    bond = _bond_of(cmd)
    member: str | None = None
    unnamed = 0
    for line in text.splitlines():
        mark = _FILE_MARK_RE.match(line.strip())
        if mark:
            bond, member = mark.group("bond"), None
            continue
        if _DRIVER_RE.match(line.strip()):
            member = None
            continue
        m = _KV_RE.match(line.strip())
        if not m:
            continue
        key, value = m.group("key"), m.group("value")
        if key == "Bonding Mode":
            result.records.append({"bond": bond, "mode": value})
            if bond:
                result.pnic(bond, "is_physical", False, line)
            continue
        if key == "Slave Interface":
            member = value.split()[0] if value else None
            if member:
                if bond:
                    result.pnic(member, "master", bond, line)
                else:
                    unnamed += 1
            continue
        if member is None:
            continue  # the bond's own MII status
        if key == "MII Status":
            result.pnic(member, "link_up", {"up": True, "down": False}.get(value.lower()), line)
        elif key == "Speed":
            result.pnic(member, "link_speed_mbps", speed_mbps(value.replace(" ", "")), line)
        elif key == "Duplex" and value.lower() in ("full", "half"):
            result.pnic(member, "duplex", value.lower(), line)
    if unnamed:
        result.notes.append(f"{FAMILY}: {unnamed} member(s) of a bond whose name the output does not give (a "
                            "wildcard path without '==> file <==' lines): their master is left unknown")
    if not result.pnics and not result.records:
        result.notes.append(f"{FAMILY}: no 'Bonding Mode:' or 'Slave Interface:' line found")
    return result
