"""The PCIe link read from a hex dump of a PCI function's configuration space: one pure decoder for ESXi's
``lspci -d`` (``--dump``) and Linux's ``lspci -x`` / ``-xxx`` / ``-xxxx``.

What is decoded (PCI Express Base Specification, §7.5.3 "PCI Express Capability Structure"; the same offsets
as pciutils ``lib/header.h`` and Linux ``include/uapi/linux/pci_regs.h``):

* the standard header: Vendor ID (0x00), Device ID (0x02), Status (0x06, bit 4 "Capabilities List"), the base
  class of the Class Code (0x0B; 0x02 = network controller), Header Type (0x0E, bits 6:0), and for a type-0
  header the Subsystem Vendor ID (0x2C) and Subsystem ID (0x2E);
* the capability list, walked from the Capabilities Pointer at 0x34 (each entry: ID byte, next-pointer byte;
  pointers are dword aligned, ``& 0xFC`` as pciutils does), up to the PCI Express capability (ID ``0x10``);
* there, Link Capabilities (cap + 0x0C, 32 bits: Max Link Speed bits 3:0, Maximum Link Width bits 9:4) and
  Link Status (cap + 0x12, 16 bits: Current Link Speed bits 3:0, Negotiated Link Width bits 9:4). A speed
  code is 1 = 2.5, 2 = 5.0, 3 = 8.0, 4 = 16.0, 5 = 32.0, 6 = 64.0 GT/s per lane (pciutils ``ls-caps.c``
  ``link_speed()``); any other code, and a width of 0, is unknown (None).

These are the very facts ``lspci -vv`` prints as ``LnkCap: … Speed 8GT/s, Width x8`` and ``LnkSta: Speed 8GT/s,
Width x8`` (:mod:`nicadvisor.parsers.linux.pci`) and sysfs as ``max_link_*`` / ``current_link_*``: the same four
pNIC fields (``pcie_speed_capable_gts``, ``pcie_width_capable``, ``pcie_speed_gts``, ``pcie_width``).

The dump layout read (:func:`read_dumps`) is pciutils' (``lspci -x``): one header line per function starting with
its address (``0000:04:00.0 Ethernet controller: …``; the domain may be left out), then rows ``00: 86 80 …`` of an
offset (hex) and up to 16 bytes. **Verified** on pciutils' own test dumps (``tests/parsers/captures/pciutils_*``,
each with ``lspci -vv``'s decoding beside the hex: the decoded link equals its LnkCap/LnkSta lines) and on public
Linux ``lspci -xxx`` pastes. **Not verified**: ESXi's own ``lspci -d`` (vmkvsitools). ESXi's ``lspci -h`` documents
``-d --dump  Print hex dump of the standard config space`` (virtualguido.blogspot.com, 2016/10, "VMware ESXi -
vmkvsitools lspci"), but no public output of it was found: the reader takes the pciutils layout, with the ESXi
address form (always 4 domain digits) and an ESXi name suffix (``[vmnic0]``) on the header line, a ``0x`` or
3-digit offset, and rows of fewer than 16 bytes. A dump that stops before the PCI Express capability (``lspci -x``
prints only the first 64 bytes) gives no link, and says so.

Pure, linear in the text, never raises.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from nicadvisor.parsers.base import ParseResult, hex4, norm_pci

#: Link speed codes of Link Capabilities / Link Status bits 3:0 → GT/s per lane (PCIe Base Specification §7.5.3.6,
#: §7.5.3.8; pciutils ``ls-caps.c`` ``link_speed()``).
SPEED_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
#: The capability ID of the PCI Express capability (PCI Code and ID Assignment Specification; ``PCI_CAP_ID_EXP``).
CAP_ID_EXP = 0x10
#: Capabilities walked at most: 48 entries fit in the 192 bytes after the header (pciutils stops likewise), so a
#: looping list costs bounded time.
MAX_CAPS = 48
#: Bytes of one function's configuration space a dump may hold (PCIe extended space: 4 KiB); rows past it are
#: ignored.
CONFIG_SIZE = 4096
#: Bytes of a dump kept: what the decoder reads ends with the Link Status of a PCI Express capability in the
#: standard space (a capability starts at most at 0xFC; Link Status is at +0x12, 2 bytes). Rows of the extended
#: space (``lspci -xxxx``) are read past, not kept: a hostile dump costs memory by what is decoded, not by its size.
KEPT_SIZE = 0x100 + 0x14
#: Network functions read from one output, at most (a host with every port's SR-IOV functions listed has hundreds);
#: the rest are counted in a note.
MAX_FUNCTIONS = 4096

_HEADER_RE = re.compile(
    r"^\s*(?P<addr>(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])(?=\s|$)(?P<rest>[^\n]{0,400})$")
_ROW_RE = re.compile(r"^\s*(?:0x)?(?P<off>[0-9a-fA-F]{1,3}):\s+(?P<bytes>[0-9a-fA-F]{2}(?:[ \t]+[0-9a-fA-F]{2}){0,15})"
                     r"[ \t]*$")
_NAME_RE = re.compile(r"\[(?P<name>vmnic\d{1,9})\]\s*$")


@dataclass(frozen=True)
class PcieLink:
    """The PCIe link of one function: ``speed_gts``/``width`` from Link Status (negotiated; GT/s per lane,
    lanes), ``capable_speed_gts``/``capable_width`` from Link Capabilities (what the device supports); each None
    when its code is unknown or 0. ``cap_offset`` is where the PCI Express capability sits."""

    speed_gts: float | None
    width: int | None
    capable_speed_gts: float | None
    capable_width: int | None
    cap_offset: int


@dataclass
class ConfigDump:
    """One function's dump: ``address`` (``dddd:bb:dd.f``), ``name`` (an ESXi ``vmnicN`` named on its header
    line, else None), ``header`` (that line), ``data`` offset → byte value, ``rows`` offset → the row's line."""

    address: str
    name: str | None
    header: str
    data: dict[int, int] = field(default_factory=dict)
    rows: dict[int, str] = field(default_factory=dict)
    seen: bool = False  # a row was read (possibly past KEPT_SIZE only)

    def byte(self, offset: int) -> int | None:
        """The byte at ``offset``, None when the dump does not hold it."""
        return self.data.get(offset)

    def word(self, offset: int) -> int | None:
        """The little-endian 16-bit value at ``offset``, None when a byte is missing."""
        lo, hi = self.data.get(offset), self.data.get(offset + 1)
        return None if lo is None or hi is None else lo | hi << 8

    def dword(self, offset: int) -> int | None:
        """The little-endian 32-bit value at ``offset``, None when a byte is missing."""
        lo, hi = self.word(offset), self.word(offset + 2)
        return None if lo is None or hi is None else lo | hi << 16

    def row(self, offset: int) -> str:
        """The dump row that holds ``offset`` (for a fact's evidence), ``""`` when none."""
        return self.rows.get(offset & ~0xF) or next((line for start, line in self.rows.items()
                                                     if start <= offset < start + 16), "")


def read_dumps(text: str) -> list[ConfigDump]:
    """Every function's dump in ``text``, in order (see the module docstring for the layout; :func:`iter_dumps`)."""
    return list(iter_dumps(text))


def iter_dumps(text: str) -> Iterator[ConfigDump]:
    """Each function's dump in ``text`` as soon as its rows end, in order: one dump in memory at a time. Rows before
    any header line are ignored, and so are rows past :data:`CONFIG_SIZE`; the first value read for an offset is
    kept, and only offsets below :data:`KEPT_SIZE`. A header line without rows gives no dump."""
    current: ConfigDump | None = None
    for line in text.splitlines():
        row = _ROW_RE.match(line)
        if row and current is not None:
            offset = int(row.group("off"), 16)
            values = row.group("bytes").split()
            if offset + len(values) <= CONFIG_SIZE:
                current.seen = True
                if offset < KEPT_SIZE:
                    for i, value in enumerate(values[:KEPT_SIZE - offset]):
                        current.data.setdefault(offset + i, int(value, 16))
                    current.rows.setdefault(offset, line.strip())
            continue
        head = _HEADER_RE.match(line)
        if head:
            if current is not None and current.seen:
                yield current
            addr = norm_pci(head.group("addr"))
            name = _NAME_RE.search(head.group("rest")) if addr is not None else None
            current = ConfigDump(addr, name.group("name") if name else None, line.strip()) if addr else None
    if current is not None and current.seen:
        yield current


def pcie_link(dump: ConfigDump) -> tuple[PcieLink | None, str]:
    """Walk ``dump``'s capability list to the PCI Express capability and decode its link registers.

    Returns ``(link, "")``, or ``(None, why)`` when there is no link to read: the Capabilities List bit is clear,
    the list has no PCI Express capability (a conventional PCI function), the list loops, or the dump stops before
    the registers (``lspci -x`` holds 64 bytes)."""
    status = dump.word(0x06)
    if status is None:
        return None, "the dump does not hold the Status register"
    if not status & 0x10:
        return None, "no capability list (Status bit 4 clear): not a PCI Express function"
    pointer = dump.byte(0x34)
    seen: set[int] = set()
    while pointer is not None and len(seen) < MAX_CAPS:
        pointer &= 0xFC
        if pointer < 0x40 or pointer in seen:
            return None, ("the capability list ends without a PCI Express capability" if pointer == 0
                          else f"the capability list is broken at 0x{pointer:02x}")
        seen.add(pointer)
        cap_id = dump.byte(pointer)
        if cap_id is None:
            break
        if cap_id == CAP_ID_EXP:
            lnkcap, lnksta = dump.dword(pointer + 0x0C), dump.word(pointer + 0x12)
            if lnkcap is None or lnksta is None:
                return None, (f"the dump stops before the link registers of the PCI Express capability at "
                              f"0x{pointer:02x} (lspci -x shows 64 bytes: dump the whole standard space)")
            return PcieLink(SPEED_GTS.get(lnksta & 0xF), (lnksta >> 4 & 0x3F) or None,
                            SPEED_GTS.get(lnkcap & 0xF), (lnkcap >> 4 & 0x3F) or None, pointer), ""
        pointer = dump.byte(pointer + 1)
    return None, ("the dump stops inside the capability list (lspci -x shows 64 bytes: dump the whole standard "
                  "space)")


def is_network(dump: ConfigDump) -> bool:
    """Whether the function is a network controller (Class Code base class 0x02 at offset 0x0B) or is named as an
    ESXi uplink."""
    return dump.byte(0x0B) == 0x02 or dump.name is not None


def record_dumps(text: str, result: ParseResult) -> None:
    """Read every network function's dump in ``text`` into ``result``: keyed by its ``vmnicN`` name when the header
    line names one, else ``pci:<address>`` (joined to the pNIC of that address); ``pci_address``, ``is_physical``,
    ``vid``/``did`` and, for a type-0 header, ``svid``/``ssid``; and from :func:`pcie_link` the four PCIe link
    facts, each with the dump row it was read from. Other functions are counted in a record; a network function
    without a link gets a note saying why."""
    skipped = read = over = 0
    for dump in iter_dumps(text):
        if not is_network(dump):
            skipped += 1
            continue
        if read >= MAX_FUNCTIONS:
            over += 1
            continue
        read += 1
        key = dump.name or f"pci:{dump.address}"
        result.pnic(key, "pci_address", dump.address, dump.header)
        result.pnic(key, "is_physical", True, dump.header)
        vid, did = dump.word(0x00), dump.word(0x02)
        if vid is not None and vid != 0xFFFF:
            result.pnic(key, "vid", hex4(vid), dump.row(0x00))
            result.pnic(key, "did", hex4(did), dump.row(0x00))
        header_type = dump.byte(0x0E)
        if header_type is not None and header_type & 0x7F == 0:
            svid, ssid = dump.word(0x2C), dump.word(0x2E)
            if svid not in (None, 0, 0xFFFF):
                result.pnic(key, "svid", hex4(svid), dump.row(0x2C))
                result.pnic(key, "ssid", hex4(ssid), dump.row(0x2C))
        link, why = pcie_link(dump)
        if link is None:
            result.notes.append(f"{dump.address}: no PCIe link read: {why}")
            continue
        cap_line = f"{dump.row(link.cap_offset + 0x0C)} (Link Capabilities at 0x{link.cap_offset + 0x0C:02x})"
        sta_line = f"{dump.row(link.cap_offset + 0x12)} (Link Status at 0x{link.cap_offset + 0x12:02x})"
        result.pnic(key, "pcie_speed_capable_gts", link.capable_speed_gts, cap_line)
        result.pnic(key, "pcie_width_capable", link.capable_width, cap_line)
        result.pnic(key, "pcie_speed_gts", link.speed_gts, sta_line)
        result.pnic(key, "pcie_width", link.width, sta_line)
    if over:
        result.notes.append(f"{result.family}: {over} more network functions past the first {MAX_FUNCTIONS} not read")
    if skipped:
        result.records.append({"family": result.family, "functions_skipped": skipped,
                               "reason": "not network controllers"})
    elif not result.pnics:
        result.notes.append(f"{result.family}: no configuration-space dump rows (00: xx xx …) found")
