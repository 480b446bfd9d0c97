"""The Linux kernel log (``dmesg``, ``journalctl -k``, ``/var/log/kern.log`` …): what NIC drivers print about their
devices.

Facts are keyed ``"pci:0000:bb:dd.f"`` or by the interface name the log gives the device (see
:func:`parse_dmesg`). Speeds are GT/s per lane (float), widths lanes (int). Sources: nic-data-sources.md §10 (Linux)
and §14 item 13; capture ``linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt``.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, norm_pci, to_int
from nicadvisor.parsers.linux.pci import gts
from nicadvisor.parsers.registry import register

# --- dmesg: pcie_print_link_status() --------------------------------------------------------------

_SPEED = r"(?P<{n}>[0-9.]+)\s*GT/s(?:\s+PCIe)?"
_BW_RE = re.compile(
    r"(?P<addr>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]):\s+(?P<bw>[0-9.]+)\s+Gb/s\s+available\s+PCIe\s+bandwidth"
    r"(?:"
    r",\s+limited\s+by\s+" + _SPEED.format(n="lspeed") + r"\s+x(?P<lwidth>\d+)\s+link\s+at\s+(?P<at>\S+)\s+"
    r"\(capable\s+of\s+[0-9.]+\s+Gb/s\s+with\s+" + _SPEED.format(n="cspeed") + r"\s+x(?P<cwidth>\d+)\s+link\)"
    r"|"
    r"\s+\(" + _SPEED.format(n="speed") + r"\s+x(?P<width>\d+)\s+link\)"
    r")"
)
_DDP_RE = re.compile(
    r"(?P<addr>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]):\s+The\s+DDP\s+package\s+was\s+successfully\s+"
    r"loaded:\s+(?P<pkg>[^\n]*?)\s*(?:\n|$)"
)


def _flat(s: str) -> str:
    return " ".join(s.split())


#: Kernel logs read like ``dmesg``: ``journalctl`` (``-k``/``--dmesg``, or the whole journal, whose ``kernel:`` lines
#: are the same), and ``kern.log``/``messages``/``syslog`` files
#: (``cat``, ``grep``, ``tail``, ``less``, ``zcat`` of ``/var/log/...``).
KERNEL_LOG_COMMANDS = r"^(?:dmesg\b|journalctl\b|(?:cat|z?grep|e?grep|tail|head|less|zcat)\b.*" \
                      r"/var/log/(?:kern\.log|messages|syslog)\S*)"


_ADDR = r"(?P<addr>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"
#: A Linux interface name as the kernel log prints it after the device (lower case, with a digit: eth0, eno1,
#: enp0s31f6, ens1f0np0): ``MAC:``, ``PCI`` or ``(uninitialized)`` are not names.
_IFNAME = r"(?=[a-z_.-]{0,14}\d)[a-z][a-z0-9_.-]{0,14}"
#: Any driver message about a named interface: ``ixgbe 0000:21:00.0: eth3: MAC: 2 …``, ``e1000e 0000:00:1f.6 eno1:
#: NIC Link is Up …`` (``dev_info`` of a net device: ``<driver> <address> <ifname>: …``, with a colon after the
#: address in older kernels).
_NAMED_RE = re.compile(_ADDR + r":?\s+(?P<name>" + _IFNAME + r"):\s")
#: ixgbe's probe message (ixgbe_main.c ``ixgbe_check_minimum_link``/older ``ixgbe_probe``):
#: ``ixgbe 0000:04:00.0: (Speed:5.0GT/s, Width: x8, Encoding Loss:20%)`` after ``PCI Express bandwidth of 32GT/s
#: available``: the current link.
_IXGBE_LINK_RE = re.compile(
    _ADDR + r"(?::\s+|\s+" + _IFNAME + r":\s+)\(Speed:(?P<speed>[0-9.]+)\s*GT/s,\s*Width:\s*x(?P<width>\d+)"
    r"(?:,\s*Encoding Loss:\s*(?P<loss>\d+)%)?\)")
#: e1000e/igb/ixgbe probe message (``e1000e 0000:00:19.0: eth0: (PCI Express:2.5GT/s:Width x1) <MAC>``, and since
#: Linux 3.x without the colon after the address; igb ``(PCIe:5.0Gb/s:Width x4)`` in its older wording, where "Gb/s"
#: is the per-lane GT/s, and ``(PCIe:5.0GT/s:Width x4)`` later): the current link, and the interface the driver named.
_PCIE_PROBE_RE = re.compile(
    _ADDR + r":?\s+(?P<name>" + _IFNAME + r"):\s+\(PCI(?:e| Express):(?P<speed>[0-9.]+)\s*(?:GT|Gb)/s:Width\s*"
    r"x(?P<width>\d+)\)")
#: udev's temporary name while it renames (``igb 0000:02:00.0 rename3: renamed from eth1``): no lasting name.
_TEMPORARY_NAME_RE = re.compile(r"^rename\d+$")


@register(KERNEL_LOG_COMMANDS, "dmesg")
def parse_dmesg(text: str, cmd: CommandLine) -> ParseResult:
    """Parse the kernel's PCIe link lines in ``dmesg`` and the kernel log files (``journalctl -k``,
    ``/var/log/kern.log``, ``messages``, ``syslog``; also mail-wrapped over two lines).

    ``<drv> 0000:41:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)`` is printed
    when the device gets its full bandwidth, with the device's capable speed/width, which are then
    also its current link: both ``pcie_speed_gts``/``pcie_width`` and the ``*_capable`` fields are set.
    ``…, limited by 8.0 GT/s PCIe x1 link at <bdf> (capable of … with 8.0 GT/s PCIe x16 link)`` gives
    the limiting link as current and the ``capable of`` link as capable (kernel
    ``pcie_print_link_status()``, nic-data-sources.md §10). Older drivers print their own wording, read as the
    current link only: ixgbe ``(Speed:5.0GT/s, Width: x8, Encoding Loss:20%)``, e1000e/igb/ixgbe
    ``<ifname>: (PCI Express:2.5GT/s:Width x1)`` and igb ``(PCIe:5.0Gb/s:Width x4)`` (Gb/s there is the per-lane
    GT/s). The latest line per device wins. An ice
    ``DDP package was successfully loaded: …`` line is kept as a record (``ddp_package``).

    Facts are keyed ``pci:<address>``, or by the interface name when the log names it: the name in the device's
    latest ``<driver> <address>[:] <ifname>: …`` message (so ``eno1: renamed from eth0`` wins over the probe's
    ``eth0``), with ``pci_address`` then set; not by udev's temporary ``renameN``, nor by a name the log gives to
    several devices (a driver reloaded under other names), which keep ``pci:<address>`` with a note.
    Captures: ``linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt`` (shared fixtures);
    ``linux_dmesg_ixgbe_82599_speed_width_encoding_loss.txt`` and ``linux_dmesg_e1000e_i219_renamed_eno1.txt``
    (tests/parsers/captures). Never raises.
    """
    result = ParseResult(family="dmesg")
    links: dict[str, tuple[int, dict[str, object], str]] = {}  # address → (position, facts, raw line)
    names: dict[str, tuple[int, str]] = {}  # address → (position, interface name)

    def link(pos: int, addr: str | None, facts: dict[str, object], raw: str) -> None:
        if addr and (addr not in links or links[addr][0] < pos):
            links[addr] = (pos, facts, raw)

    for m in _BW_RE.finditer(text):
        if m.group("speed") is not None:
            speed, width = gts(m.group("speed")), to_int(m.group("width")) or None
            facts = {"pcie_speed_gts": speed, "pcie_width": width, "pcie_speed_capable_gts": speed,
                     "pcie_width_capable": width}
        else:
            facts = {"pcie_speed_gts": gts(m.group("lspeed")), "pcie_width": to_int(m.group("lwidth")) or None,
                     "pcie_speed_capable_gts": gts(m.group("cspeed")),
                     "pcie_width_capable": to_int(m.group("cwidth")) or None}
        link(m.start(), norm_pci(m.group("addr")), facts, _flat(m.group(0)))
    for pattern in (_IXGBE_LINK_RE, _PCIE_PROBE_RE):
        for m in pattern.finditer(text):
            addr = norm_pci(m.group("addr"))
            link(m.start(), addr, {"pcie_speed_gts": gts(m.group("speed")),
                                   "pcie_width": to_int(m.group("width")) or None}, _flat(m.group(0)))
            if addr and "name" in m.groupdict() and (addr not in names or names[addr][0] < m.start()):
                names[addr] = (m.start(), m.group("name"))
    for m in _NAMED_RE.finditer(text):  # the name of each device's latest message (after any rename)
        addr = norm_pci(m.group("addr"))
        if addr and (addr not in names or names[addr][0] < m.start()):
            names[addr] = (m.start(), m.group("name"))
    claimed: dict[str, set[str]] = {}
    for addr, (_pos, name) in names.items():
        claimed.setdefault(name, set()).add(addr)
    for name, addrs in sorted(claimed.items()):
        if len(addrs) > 1:
            result.notes.append(f"the log names {name} for {len(addrs)} devices ({', '.join(sorted(addrs))}): their "
                                "facts are kept under their PCI addresses")
    for addr, (_pos, facts, raw) in links.items():
        name = names[addr][1] if addr in names else None
        if name and _TEMPORARY_NAME_RE.match(name):
            result.notes.append(f"{addr}: its last name in the log, {name}, is udev's temporary name: the facts are "
                                f"kept under the PCI address")
            name = None
        elif name and len(claimed[name]) > 1:
            name = None
        key = name or f"pci:{addr}"
        if name:
            result.pnic(key, "pci_address", addr, raw)
        for name, value in facts.items():
            result.pnic(key, name, value, raw)
    for m in _DDP_RE.finditer(text):
        addr = norm_pci(m.group("addr"))
        pkg = _flat(m.group("pkg"))
        if addr and pkg:
            result.records.append({"pci_address": addr, "ddp_package": pkg, "line": _flat(m.group(0))})
    return result
