"""The Linux kernel log (``dmesg``, ``journalctl -k``, ``/var/log/kern.log`` …): what NIC drivers print about their
devices.

Facts are keyed ``"pci:0000:bb:dd.f"`` or by the interface name the log gives the device (see
:func:`parse_dmesg`). Speeds are GT/s per lane (float) and Mbit/s (link), widths lanes (int). Sources:
nic-data-sources.md §10 (Linux) and §14 item 13; the kernel's ``dev_info()`` prefix ``<driver> <PCI address>:``
(``dev_printk``: ``"%s %s: "`` of ``dev_driver_string()`` and ``dev_name()``) and ``netdev_info()`` prefix
``<driver> <PCI address> <ifname>:``; captures ``linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt`` and the
kernel logs of ``tests/parsers/captures`` (bnxt_en, i40e, ice, igb, bnx2, mlx5_core).
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, norm_pci, to_int
from nicadvisor.parsers.linux.pci import gts
from nicadvisor.parsers.registration import register

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
#: A Linux interface name as the kernel log prints it after the device (starting lower case, with a digit: eth0,
#: eno1, enp0s31f6, ens1f0np0, enP4p1s0f0 with a PCI domain): ``MAC:``, ``PCI`` or ``(uninitialized)`` are not
#: names, and neither is a word with an
#: underscore: that is a driver's C function (``i40e_ptp_stop:``, ``mlx5_pcie_event:294:``), which drivers print
#: right after the address (udev and the kernel never put ``_`` in a port's name).
_IFNAME = r"(?=[a-zA-Z.-]{0,14}\d)[a-z][a-zA-Z0-9.-]{0,14}(?![\w])"
#: Where a kernel message starts: the line start, after the ``[ 12.345678] `` timestamp, syslog's ``kernel: `` or
#: logwatch's `` 1 Time(s): `` (also mid-line, where two console streams were interleaved).
_MSG_START = r"(?:^[ \t]*|(?<=\] )|(?<=kernel: )|(?<=Time\(s\): )|(?<=<[0-7]>))"
#: The ``dev_printk`` prefix of a device's message: ``<driver> <PCI address>`` (``ixgbe 0000:21:00.0:``,
#: ``mlx5_core 0004:01:00.0:``, ``i40e 04:00.0 Core and Global modules ready``, ``bnx2 0000:03:00.1 eth1:``).
_DRIVER_PREFIX_RE = re.compile(_MSG_START + r"(?P<drv>[a-z][a-z0-9_]{1,31}) " + _ADDR + r"(?=[: ])", re.M)
#: The PCI core and bridges print under their own names: never a NIC's driver.
_NOT_DRIVERS = frozenset({"pci", "pcieport", "pci_bus"})
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
#: i40e's own wording before ``pcie_print_link_status()`` (i40e_main.c ``i40e_probe``: ``"PCI-Express: %s %s"`` of
#: ``Speed 8.0GT/s`` and ``Width x8``, read from the PCIe Link Status register): the current link.
_I40E_PCIE_RE = re.compile(
    _ADDR + r":\s+PCI-Express:\s+Speed\s+(?P<speed>[0-9.]+GT/s|Unknown)\s+Width\s+(?:x(?P<width>\d+)|Unknown)", re.I)
#: A driver's link message (``netdev_info``): ``NIC Link is Up, 25000 Mbps full duplex`` (bnxt_en, bnx2x),
#: ``NIC Link is up 25 Gbps Full Duplex`` (ice), ``NIC Link is Up 1000 Mbps Full Duplex`` (igb, e1000e),
#: ``NIC Link is Up 10 Gbps, Flow Control: RX`` (ixgbe), ``NIC Copper Link is Up, 1000 Mbps full duplex`` (bnx2),
#: ``NIC Link is Up Speed is 25 Gbps Full Duplex`` (iavf), ``Link up`` (mlx5e), ``NIC Link is Down``; igb repeats
#: its name (``eth0: igb: eth0 NIC Link is Up``).
_LINK_RE = re.compile(
    _ADDR + r":?\s+(?:(?P<name>" + _IFNAME + r"):\s+)?(?:[a-z][a-z0-9_]{1,31}:\s+(?:" + _IFNAME + r"\s+)?)?"
    r"(?i:(?:NIC\s+)?(?:Copper\s+|Fiber\s+)?Link\s+(?:is\s+)?(?P<state>up|down)\b)(?P<tail>[^\n]{0,160})")
#: Old kernels' drivers printed ``<driver>: <ifname>: [<function>: ]…`` with no PCI address (e1000 before 2.6.3x:
#: ``e1000: eth1: e1000_watchdog: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX``; capture
#: ``linux_dmesg_grep_eth_old_e1000_driver_ifname_function_prefix_no_pci_ubuntuforums.txt``): the link of that
#: interface, keyed by its name.
_OLD_LINK_RE = re.compile(
    _MSG_START + r"(?P<drv>[a-z][a-z0-9_]{1,31}):\s+(?P<name>" + _IFNAME + r"):\s+(?:[a-z][a-z0-9_]{1,40}:\s+)?"
    r"(?i:(?:NIC\s+)?(?:Copper\s+|Fiber\s+)?Link\s+(?:is\s+)?(?P<state>up|down)\b)(?P<tail>[^\n]{0,160})", re.M)
_LINK_SPEED_RE = re.compile(r"(?P<n>\d{1,6}(?:\.\d{1,3})?)\s*(?P<unit>[MG])b(?:ps|/s)\b", re.I)
_DUPLEX_RE = re.compile(r"\b(?P<d>full|half)[ -]duplex\b", re.I)
#: ``mlx5_core 0004:01:00.0: firmware version: 16.27.2048`` (mlx5 ``mlx5_function_setup``: ``"firmware version:
#: %d.%d.%d"``, the version ethtool -i prints first).
_FIRMWARE_RE = re.compile(_ADDR + r":\s+firmware version:\s*(?P<fw>\d[\w.-]{0,40})")
#: ``i40e 0000:04:00.0: fw 6.0.48442 api 1.7 nvm 6.01 0x800034a4 1.1747.0`` (i40e_main.c ``i40e_probe``): the ``nvm``
#: part is ``i40e_nvm_version_str()``, the very string ethtool -i prints as ``firmware-version``.
_I40E_FW_RE = re.compile(_ADDR + r":\s+fw\s+\S+\s+api\s+\S+\s+nvm\s+(?P<nvm>[0-9a-f]+\.[0-9a-f]+\s+0x[0-9a-f]+\s+"
                         r"\d+\.\d+\.\d+)", re.I)
#: A module's load banner: ``i40e: Intel(R) Ethernet Connection XL710 Network Driver - version 2.8.20-k``,
#: ``ice: … Linux Driver - version 1.12.7_dirty``, ``bnx2: Broadcom NetXtreme II Gigabit Ethernet Driver bnx2 v2.2.3
#: (June 27, 2012)`` (printed by ``module_init`` with ``pr_info``: the module's name, then its description).
_BANNER_RE = re.compile(
    _MSG_START + r"(?P<drv>[a-z][a-z0-9_]{1,31}):\s+(?P<desc>[^\n]{0,160}?\b[Dd]river)\b"
    r"(?:\s+-\s+[Vv]ersion\s+|\s+(?:[a-z][a-z0-9_]{1,31}\s+)?v)(?P<ver>\d[\w.~+-]{0,40})", re.M)
#: udev's temporary name while it renames (``igb 0000:02:00.0 rename3: renamed from eth1``): no lasting name.
_TEMPORARY_NAME_RE = re.compile(r"^rename\d+$")


def _mbps(tail: str) -> int | None:
    m = _LINK_SPEED_RE.search(tail)
    if not m:
        return None
    value = float(m.group("n")) * (1000 if m.group("unit").upper() == "G" else 1)
    return int(value) if value > 0 else None


@register(KERNEL_LOG_COMMANDS, "dmesg")
def parse_dmesg(text: str, cmd: CommandLine) -> ParseResult:
    """Parse what NIC drivers print in ``dmesg`` and the kernel log files (``journalctl -k``,
    ``/var/log/kern.log``, ``messages``, ``syslog``; also mail-wrapped over two lines).

    PCIe link: ``<drv> 0000:41:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)`` is printed
    when the device gets its full bandwidth, with the device's capable speed/width, which are then
    also its current link: both ``pcie_speed_gts``/``pcie_width`` and the ``*_capable`` fields are set.
    ``…, limited by 8.0 GT/s PCIe x1 link at <bdf> (capable of … with 8.0 GT/s PCIe x16 link)`` gives
    the limiting link as current and the ``capable of`` link as capable (kernel
    ``pcie_print_link_status()``, nic-data-sources.md §10). Older drivers print their own wording, read as the
    current link only: ixgbe ``(Speed:5.0GT/s, Width: x8, Encoding Loss:20%)``, e1000e/igb/ixgbe
    ``<ifname>: (PCI Express:2.5GT/s:Width x1)`` and igb ``(PCIe:5.0Gb/s:Width x4)`` (Gb/s there is the per-lane
    GT/s), i40e ``PCI-Express: Speed 8.0GT/s Width x8``. The latest line per device wins.

    The device's driver: ``driver`` from the ``<driver> <PCI address>`` prefix of its messages (not ``pci`` or
    ``pcieport``), recorded for a device the log says something else about (a link, a name, a firmware); its
    module's load banner (``i40e: … Driver - version 2.8.20-k``, ``bnx2: … Driver bnx2 v2.2.3``) gives the module's
    ``version`` and the ``driver_version`` of its devices (the latest banner wins); ``firmware_version`` from
    mlx5's ``firmware version: 16.27.2048`` and i40e's ``fw … api … nvm 6.01 0x800034a4 1.1747.0`` (the ``nvm``
    part). The link: ``link_up``, ``link_speed_mbps`` (Mbit/s) and ``duplex`` from the driver's link message
    (``NIC Link is Up, 25000 Mbps full duplex``, ``NIC Link is up 25 Gbps``, ``Link is Down`` …), also in old
    kernels' ``<driver>: <ifname>: <function>: NIC Link is Up …`` form without a PCI address (keyed by the interface,
    with that ``driver``); the latest
    event of a device wins (a ``Down`` after an ``Up`` leaves its speed unknown). An ice
    ``DDP package was successfully loaded: …`` line is kept as a record (``ddp_package``).

    Facts are keyed ``pci:<address>``, or by the interface name when the log names it: the name in the device's
    latest ``<driver> <address>[:] <ifname>: …`` message (so ``eno1: renamed from eth0`` wins over the probe's
    ``eth0``), with ``pci_address`` then set; not by udev's temporary ``renameN``, nor by a name the log gives to
    several devices (a driver reloaded under other names), nor by a driver function printed after the address
    (``i40e_ptp_stop:``), which keep ``pci:<address>`` with a note.
    Captures: ``linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt`` (shared fixtures);
    ``linux_dmesg_ixgbe_82599_speed_width_encoding_loss.txt``, ``linux_dmesg_e1000e_i219_renamed_eno1.txt`` and the
    kernel logs of issue 16 §5 (tests/parsers/captures). Never raises.
    """
    result = ParseResult(family="dmesg")
    links: dict[str, tuple[int, dict[str, object], str]] = {}  # address → (position, facts, raw line)
    names: dict[str, tuple[int, str]] = {}  # address → (position, interface name)
    events: dict[str, dict[str, tuple[int, object, str]]] = {}  # address → field → (position, value, raw line)
    drivers: dict[str, tuple[int, str, str]] = {}  # address → (position, driver, raw line)

    def link(pos: int, addr: str | None, facts: dict[str, object], raw: str) -> None:
        if addr and (addr not in links or links[addr][0] < pos):
            links[addr] = (pos, facts, raw)

    def event(pos: int, addr: str | None, field: str, value: object, raw: str) -> None:
        slot = events.setdefault(addr, {}) if addr else None
        if slot is not None and (field not in slot or slot[field][0] <= pos):
            slot[field] = (pos, value, raw)

    def named(pos: int, addr: str | None, name: str | None) -> None:
        if addr and name and (addr not in names or names[addr][0] < pos):
            names[addr] = (pos, name)

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
    for pattern in (_IXGBE_LINK_RE, _PCIE_PROBE_RE, _I40E_PCIE_RE):
        for m in pattern.finditer(text):
            addr = norm_pci(m.group("addr"))
            link(m.start(), addr, {"pcie_speed_gts": gts(m.group("speed")),
                                   "pcie_width": to_int(m.group("width")) or None}, _flat(m.group(0)))
            named(m.start(), addr, m.groupdict().get("name"))
    for m in _NAMED_RE.finditer(text):  # the name of each device's latest message (after any rename)
        named(m.start(), norm_pci(m.group("addr")), m.group("name"))
    for m in _LINK_RE.finditer(text):
        addr, raw = norm_pci(m.group("addr")), _flat(m.group(0))
        up = m.group("state").lower() == "up"
        event(m.start(), addr, "link_up", up, raw)
        event(m.start(), addr, "link_speed_mbps", _mbps(m.group("tail")) if up else None, raw)
        duplex = _DUPLEX_RE.search(m.group("tail")) if up else None
        event(m.start(), addr, "duplex", duplex.group("d").lower() if duplex else None, raw)
        named(m.start(), addr, m.group("name"))
    for pattern, group in ((_FIRMWARE_RE, "fw"), (_I40E_FW_RE, "nvm")):
        for m in pattern.finditer(text):
            event(m.start(), norm_pci(m.group("addr")), "firmware_version", _flat(m.group(group)), _flat(m.group(0)))
    for m in _DRIVER_PREFIX_RE.finditer(text):
        addr = norm_pci(m.group("addr"))
        if addr and m.group("drv") not in _NOT_DRIVERS and (addr not in drivers or drivers[addr][0] < m.start()):
            line_end = text.find("\n", m.start())
            drivers[addr] = (m.start(), m.group("drv"), _flat(text[m.start():line_end if line_end != -1 else None]))
    banners: dict[str, tuple[str, str]] = {}
    for m in _BANNER_RE.finditer(text):  # the latest banner of each module wins
        banners[m.group("drv")] = (m.group("ver"), _flat(m.group(0)))
    for drv, (version, raw) in banners.items():
        result.module(drv, "version", version, raw)

    claimed: dict[str, set[str]] = {}
    for addr, (_pos, name) in names.items():
        claimed.setdefault(name, set()).add(addr)
    for name, addrs in sorted(claimed.items()):
        if len(addrs) > 1:
            result.notes.append(f"the log names {name} for {len(addrs)} devices ({', '.join(sorted(addrs))}): their "
                                "facts are kept under their PCI addresses")
    for addr in sorted(set(links) | set(events) | {a for a in names if a in drivers}):
        name = names[addr][1] if addr in names else None
        if name and _TEMPORARY_NAME_RE.match(name):
            result.notes.append(f"{addr}: its last name in the log, {name}, is udev's temporary name: the facts are "
                                f"kept under the PCI address")
            name = None
        elif name and len(claimed[name]) > 1:
            name = None
        key = name or f"pci:{addr}"
        facts: list[tuple[str, object, str]] = []
        if addr in links:
            _pos, pcie, raw = links[addr]
            facts += [(field, value, raw) for field, value in pcie.items()]
        facts += [(field, value, raw) for field, (_pos, value, raw) in events.get(addr, {}).items()]
        if addr in drivers:
            _pos, drv, raw = drivers[addr]
            facts.append(("driver", drv, raw))
            if drv in banners:
                facts.append(("driver_version", banners[drv][0], banners[drv][1]))
        if name:
            result.pnic(key, "pci_address", addr, next(raw for _f, _v, raw in facts))
        for field, value, raw in facts:
            result.pnic(key, field, value, raw)
    old: dict[str, dict[str, tuple[object, str]]] = {}  # interface → field → (value, raw): the latest event wins
    for m in _OLD_LINK_RE.finditer(text):
        if m.group("drv") in _NOT_DRIVERS:
            continue
        raw, up = _flat(m.group(0)), m.group("state").lower() == "up"
        duplex = _DUPLEX_RE.search(m.group("tail")) if up else None
        old[m.group("name")] = {"link_up": (up, raw), "link_speed_mbps": (_mbps(m.group("tail")) if up else None, raw),
                                "duplex": (duplex.group("d").lower() if duplex else None, raw),
                                "driver": (m.group("drv"), raw)}
    for name, facts in old.items():
        if name in result.pnics:
            continue  # the device's own messages (with its PCI address) already say it
        for field, (value, raw) in facts.items():
            result.pnic(name, field, value, raw)
    for m in _DDP_RE.finditer(text):
        addr = norm_pci(m.group("addr"))
        pkg = _flat(m.group("pkg"))
        if addr and pkg:
            result.records.append({"pci_address": addr, "ddp_package": pkg, "line": _flat(m.group(0))})
    return result
