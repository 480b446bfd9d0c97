"""Classic Linux interface listings: ``netstat -i`` (net-tools' kernel interface table), ``netstat -ie`` (the same
interfaces in ifconfig's layout, also read for ``ifconfig``) and ``nmcli device show`` (NetworkManager's per-device
properties).

``netstat -i``: ``Iface MTU RX-OK … Flg``, one row per interface (net-tools netstat(8); the flags are ifconfig's:
``B`` broadcast, ``L`` loopback, ``M`` multicast, ``R`` running, ``U`` up, ``O`` no ARP, ``P`` point-to-point, ``m``
a bond's master, ``s`` a bond's slave);
capture ``linux_netstat-i_centos77_ens33_docker0_bmu_jc.txt``. ``nmcli device show``: blocks of ``GENERAL.DEVICE:``
… lines (nmcli(1)); capture ``linux_nmcli_device_show_centos77_ens33_docker0_bridge_jc.txt``.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, to_bool, to_int
from nicadvisor.parsers.registration import register

NETSTAT_FAMILY = "netstat -i"
NMCLI_FAMILY = "nmcli device show"

_NETSTAT_HEADER_RE = re.compile(r"^\s*Iface\s+MTU\b(?:\s+Met)?\s+RX-OK\b.*\bFlg\s*$")
_NETSTAT_ROW_RE = re.compile(r"^\s*(?P<name>[^\s:]{1,64})\s+(?P<mtu>\d{1,6})\s+(?:\d+\s+){8,9}(?P<flags>[A-Za-z]{1,12})\s*$")


@register(r"^netstat\s+-(?=[A-Za-z]*i)(?![A-Za-z]*e)[A-Za-z]+", NETSTAT_FAMILY)
def parse_netstat_i(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``netstat -i``: per interface (the loopback, flag ``L``, skipped) ``mtu`` (bytes), ``admin_up``
    (``U``) and ``link_up`` (``R``, running: the carrier is there; an up interface without it is down), and
    ``is_physical`` False for a point-to-point one (``P``) or a bond (``m``, master; its slaves ``s`` are ports, whose
    bond the table does not name). Rows before a header or after a blank line are not
    read; a row of the table that does not fit is listed in a note. Never raises."""
    result = ParseResult(family=NETSTAT_FAMILY)
    in_table = False
    for line in text.splitlines():
        if _NETSTAT_HEADER_RE.match(line):
            in_table = True
            continue
        if not in_table:
            continue
        if not line.strip():
            in_table = False
            continue
        m = _NETSTAT_ROW_RE.match(line)
        if not m:
            result.notes.append(f"{NETSTAT_FAMILY}: row not understood: {line.strip()[:200]!r}")
            continue
        flags = m.group("flags")
        if "L" in flags:
            continue
        key = m.group("name")
        result.pnic(key, "mtu", to_int(m.group("mtu")), line)
        result.pnic(key, "admin_up", "U" in flags, line)
        if "U" in flags:
            result.pnic(key, "link_up", "R" in flags, line)
        if "P" in flags or "m" in flags:  # point-to-point, or a bond's master (IFF_MASTER)
            result.pnic(key, "is_physical", False, line)
    if not result.pnics:
        result.notes.append(f"{NETSTAT_FAMILY}: no 'Iface MTU … Flg' table found")
    return result


IFCONFIG_FAMILY = "netstat -ie"
#: The first line of an interface in ifconfig's layouts, as ``netstat -ie`` (and ``ifconfig``) print it: net-tools
#: 2.x ``ens33: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500``, and 1.60 ``eth1      Link encap:Ethernet
#: HWaddr 44:39:c4:8d:d9:64`` (its flags and ``MTU:1500`` on a later line).
_IFC_NEW_RE = re.compile(r"^(?P<name>[^\s:]{1,64}):\s+flags=\d+<(?P<flags>[A-Z0-9_,]{0,200})>(?:\s+mtu\s+(?P<mtu>\d+))?")
_IFC_OLD_RE = re.compile(r"^(?P<name>[^\s:]{1,64})\s+Link encap:(?P<encap>\S+(?: Loopback)?)(?:\s+HWaddr\s+(?P<mac>\S+))?")
_IFC_ETHER_RE = re.compile(r"^\s+ether\s+(?P<mac>[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5})\b")
_IFC_OLD_FLAGS_RE = re.compile(r"^\s+(?P<flags>(?:[A-Z]+ )*[A-Z]+)\s+MTU:(?P<mtu>\d+)\b")
_MAC_RE = re.compile(r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}")


@register(r"^(?:netstat\s+-(?=[A-Za-z]*i)(?=[A-Za-z]*e)[A-Za-z]+\b|ifconfig(?:\s+-a)?(?:\s+[^\s-]\S*)?$)", IFCONFIG_FAMILY)
def parse_netstat_ie(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``netstat -ie`` (and ``ifconfig``): per interface (the loopback skipped) ``mtu`` (bytes), ``mac``
    (``ether …`` / ``HWaddr …``), ``admin_up`` (``UP``), ``link_up`` (``RUNNING`` of an up interface) and
    ``is_physical`` False for a point-to-point one (``POINTOPOINT``) or a bond (``MASTER``), in both ifconfig layouts
    (net-tools 2.x and 1.60; captures ``linux_netstat-ie_new_ifconfig_layout_ens33_flags_ether_ubuntu_notes.txt``,
    ``linux_netstat-i_and_netstat-ie_old_ifconfig_layout_eth1_vboxnet0_crazygit.txt``). Never raises."""
    result = ParseResult(family=IFCONFIG_FAMILY)
    key: str | None = None

    def flags_of(name: str, flags: list[str], mtu: str | None, line: str) -> None:
        result.pnic(name, "mtu", to_int(mtu), line)
        result.pnic(name, "admin_up", "UP" in flags, line)
        if "UP" in flags:
            result.pnic(name, "link_up", "RUNNING" in flags, line)
        if "POINTOPOINT" in flags or "MASTER" in flags:
            result.pnic(name, "is_physical", False, line)

    for line in text.splitlines():
        m = _IFC_NEW_RE.match(line)
        if m:
            flags = m.group("flags").split(",")
            key = None if "LOOPBACK" in flags else m.group("name")
            if key:
                flags_of(key, flags, m.group("mtu"), line)
            continue
        m = _IFC_OLD_RE.match(line)
        if m:
            key = None if m.group("encap").startswith("Local") else m.group("name")
            if key and m.group("mac") and _MAC_RE.fullmatch(m.group("mac")):
                result.pnic(key, "mac", m.group("mac").lower(), line)
            continue
        if key is None:
            continue
        m = _IFC_ETHER_RE.match(line)
        if m:
            result.pnic(key, "mac", m.group("mac").lower(), line)
            continue
        m = _IFC_OLD_FLAGS_RE.match(line)
        if m:
            flags_of(key, m.group("flags").split(), m.group("mtu"), line)
    if not result.pnics:
        result.notes.append(f"{IFCONFIG_FAMILY}: no interface block ('<name>: flags=…' or '<name> Link encap:…') found")
    return result


_NMCLI_RE = re.compile(r"^(?P<key>[A-Z0-9-]{1,32}(?:\.[A-Z0-9-]{1,40})+(?:\[\d{1,4}\])?):\s*(?P<value>.*?)\s*$")
#: NetworkManager device types that are no physical port (nmcli(1) ``GENERAL.TYPE``).
_SOFTWARE_TYPES = frozenset({"bridge", "bond", "team", "vlan", "vxlan", "tun", "macvlan", "ip-tunnel", "dummy", "veth",
                             "ovs-bridge", "ovs-port", "ovs-interface", "wireguard", "loopback", "macsec", "vrf"})


@register(r"^nmcli\s+(?:-\S+\s+)*(?:-f\s+\S+\s+)?d(?:ev(?:ice)?)?\s+show\b", NMCLI_FAMILY)
def parse_nmcli_device_show(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``nmcli device show [IF]``: per ``GENERAL.DEVICE`` (the loopback skipped) ``mac``
    (``GENERAL.HWADDR``, lower case), ``mtu`` (``GENERAL.MTU``), ``link_up`` (``WIRED-PROPERTIES.CARRIER: on|off``),
    ``is_physical`` False for a software device type (``GENERAL.TYPE`` bridge, bond, vlan, vxlan, tun …), and with
    ``-f all`` or newer NetworkManager ``driver``, ``driver_version``, ``firmware_version`` (``GENERAL.DRIVER``,
    ``GENERAL.DRIVER-VERSION``, ``GENERAL.FIRMWARE-VERSION``; empty or ``--`` → unset). Never raises."""
    result = ParseResult(family=NMCLI_FAMILY)
    key: str | None = None
    for line in text.splitlines():
        m = _NMCLI_RE.match(line.strip())
        if not m:
            continue
        field, value = m.group("key"), m.group("value")
        if field == "GENERAL.DEVICE":
            key = value or None
            continue
        if key is None:
            continue
        known = value not in ("", "--")
        if field == "GENERAL.TYPE":
            if value == "loopback":
                result.pnics.pop(key, None)
                key = None
            elif value in _SOFTWARE_TYPES:
                result.pnic(key, "is_physical", False, line)
        elif field == "GENERAL.HWADDR" and re.fullmatch(r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}", value):
            result.pnic(key, "mac", value.lower(), line)
        elif field == "GENERAL.MTU":
            result.pnic(key, "mtu", to_int(value), line)
        elif field == "WIRED-PROPERTIES.CARRIER":
            result.pnic(key, "link_up", to_bool(value), line)
        elif field in ("GENERAL.DRIVER", "GENERAL.DRIVER-VERSION", "GENERAL.FIRMWARE-VERSION") and known:
            fact = {"GENERAL.DRIVER": "driver", "GENERAL.DRIVER-VERSION": "driver_version",
                    "GENERAL.FIRMWARE-VERSION": "firmware_version"}[field]
            result.pnic(key, fact, value, line)
    if not result.pnics:
        result.notes.append(f"{NMCLI_FAMILY}: no 'GENERAL.DEVICE:' block of a network device found")
    return result
