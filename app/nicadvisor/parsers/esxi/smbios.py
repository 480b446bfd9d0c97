"""ESXi ``smbiosDump``: the server's PCI slots (SMBIOS type 9, "System Slot"), as records.

Each slot's ``Designation`` and ``Bus Width`` (``0x0d (x16)``: the SMBIOS Data Bus Width code and its lanes) say what
the slot offers, not the PCIe link a card negotiated in it: they never decide the PCIe cell (that is ``lspci -d``),
so they are kept as records ``{"family", "slot", "designation", "bus_width", "slot_id"}`` for the reader. Layout from
the public capture ``esxi_smbiosDump_egrep_slot_bus_width_pmdaddy_partial.txt`` (``smbiosDump | egrep -i "slot|Bus
Width"``: the record header ``System Slot (Type 9): #226``, then ``Designation: "Slot 5"``, ``Bus Width: 0x0d (x16)``,
``Slot ID: 5``); the unfiltered dump holds the same lines among others. Pure, never raises.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, to_int
from nicadvisor.parsers.registration import register

_SLOT_RE = re.compile(r"^\s*System Slot \(Type 9\):\s*(?P<handle>#\d{1,6})")
_DESIGNATION_RE = re.compile(r'^\s*Designation:\s*"?(?P<name>[^"\n]{0,120}?)"?\s*$')
_WIDTH_RE = re.compile(r"^\s*(?:Data )?Bus Width:\s*(?:0x[0-9a-fA-F]{1,2}\s*)?\(x(?P<lanes>\d{1,2})\)")
_SLOT_ID_RE = re.compile(r"^\s*Slot ID:\s*(?P<id>\d{1,5})\s*$")
#: Slot records kept, at most (a server has tens of slots): the rest of a hostile dump is counted in a note.
MAX_SLOTS = 1024
#: Another SMBIOS record header (``Processor Info (Type 4): #30``): a slot's lines end there.
_OTHER_RE = re.compile(r"^\s*[A-Z][\w ]{0,60}\(Type \d{1,3}\):")


@register(r"^smbiosDump\b", "smbiosDump")
def parse_smbios_dump(text: str, cmd: CommandLine) -> ParseResult:
    """``smbiosDump`` (also grep-filtered): one record per System Slot with its designation, bus width (lanes the
    slot offers) and slot ID; other SMBIOS records are skipped; at most :data:`MAX_SLOTS` slots are kept. No pNIC fact: a slot is not matched to a pNIC here."""
    result = ParseResult(family="smbiosDump")
    slot: dict | None = None
    over = 0
    for line in text.splitlines():
        m = _SLOT_RE.match(line)
        if m:
            if len(result.records) >= MAX_SLOTS:
                over += 1
                slot = None
                continue
            slot = {"family": result.family, "slot": m.group("handle"), "designation": None, "bus_width": None,
                    "slot_id": None}
            result.records.append(slot)
            continue
        if _OTHER_RE.match(line):
            slot = None
            continue
        if slot is None:
            continue
        if (m := _DESIGNATION_RE.match(line)) and slot["designation"] is None:
            slot["designation"] = m.group("name")
        elif (m := _WIDTH_RE.match(line)) and slot["bus_width"] is None:
            slot["bus_width"] = to_int(m.group("lanes"))
        elif (m := _SLOT_ID_RE.match(line)) and slot["slot_id"] is None:
            slot["slot_id"] = to_int(m.group("id"))
    if over:
        result.notes.append(f"smbiosDump: {over} more System Slot records past the first {MAX_SLOTS} not read")
    if not result.records:
        result.notes.append("smbiosDump: no System Slot (Type 9) record found")
    return result
