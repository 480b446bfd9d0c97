"""Hostile review (the configuration-space decoder of ESXi ``lspci -d`` / Linux ``lspci -xxx``): every byte of every
dump was kept as a dict entry until the whole output was read, about 45 bytes of memory a byte of text — a 15 MB
capture of 300,000 one-row network functions took 770 MB to parse, over the hostile bound with the rest of the
audit (a child limited to 1 GiB and 60 s of CPU, conftest.py). Now each dump is decoded as soon as its rows end, only
the bytes the decoder reads are kept (the standard space), and at most 4,096 network functions are read, the rest
counted in a note. ``smbiosDump`` kept a record per slot header: 16 MB of them were 670,000 records; at most 1,024
now."""
from __future__ import annotations

import json
from pathlib import Path


def _tiny_dumps(size: int) -> str:
    """One-row dumps of network functions (class code 0x02 at offset 0x0B), each at its own PCI address."""
    parts, total, i = [], 0, 0
    while total < size:
        part = (f"{i >> 13 & 0xffff:04x}:{i >> 5 & 0xff:02x}:{i & 0x1f:02x}.0\n"
                "00: 86 80 72 15 00 00 10 00 00 00 00 02\n")
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)


def test_a_capture_of_300000_network_functions_is_audited_in_bounded_memory(cli, tmp_path):
    capture = tmp_path / "host" / "lspci-d.txt"
    capture.parent.mkdir()
    capture.write_text("# command: lspci -d\n# host: esx-hostile\n" + _tiny_dumps(15 * 1024 * 1024))
    out = tmp_path / "audit.json"
    run = cli("audit", "--capture", capture.parent, "--no-history", "--json", out)
    assert run.code != 3 and out.exists(), run.err[-3000:]
    doc = json.loads(out.read_text())
    notes = [p["message"] for p in doc["inputs_not_understood"]]
    assert any("network functions past the first 4096 not read" in n for n in notes), notes[:5]


def test_extended_space_rows_are_read_past_and_the_link_still_decoded():
    """``lspci -xxxx`` (4 KiB a function): the rows past the standard space are not kept, and the link is decoded as
    lspci itself decodes it, on pciutils' own regression dump of an Intel 82576 (LnkCap and LnkSta 2.5 GT/s x4)."""
    from capturetools import local_capture
    from nicadvisor.parsers.pcie_config import KEPT_SIZE, iter_dumps, pcie_link

    cap = local_capture("pciutils_lspci-vvxxxx_cap-pcie-2_intel_82576_gen1_x4.txt")
    assert sum(1 for line in cap.text.splitlines() if line[:4] == "100:")  # the dump holds the extended space
    (dump,) = list(iter_dumps(cap.text))
    assert max(dump.data) < KEPT_SIZE and max(dump.rows) < KEPT_SIZE
    link, why = pcie_link(dump)
    assert why == "" and (link.speed_gts, link.width, link.capable_speed_gts, link.capable_width) == (2.5, 4, 2.5, 4)


def test_an_smbios_dump_of_100000_slots_keeps_a_bounded_number():
    from nicadvisor.parsers.esxi.smbios import MAX_SLOTS
    from nicadvisor.parsers.registry import parse_output

    (result,) = parse_output("smbiosDump", "System Slot (Type 9): #1\nDesignation: \"Slot 1\"\n" * 100_000)
    assert len(result.records) == MAX_SLOTS == 1024
    assert result.notes == [f"smbiosDump: {100_000 - 1024} more System Slot records past the first 1024 not read"]
