"""The PCIe link decoded from configuration-space hex dumps (ESXi ``lspci -d``, Linux ``lspci -xxx``), tested on real
dumps: pciutils' own regression dumps (each function's ``lspci -vv`` decoding beside its hex, so the decoder's result
is checked against lspci's own LnkCap/LnkSta lines) and a public Linux ``lspci -xxx`` paste."""
from __future__ import annotations

import re

from capturetools import TEST_CAPTURES, local_capture, merged, parse_capture
from nicadvisor.parsers.base import norm_pci
from nicadvisor.parsers.linux.pci import link_fields
from nicadvisor.parsers.pcie_config import pcie_link, read_dumps
from nicadvisor.parsers.registry import parse_output

_DEVICE = re.compile(r"^(?P<addr>(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) \S")


def _lspci_decoding(text: str) -> dict[str, dict[str, tuple]]:
    """address → {"LnkCap"/"LnkSta": (GT/s, lanes)} as lspci -vv's own text in the dump states them."""
    out: dict[str, dict[str, tuple]] = {}
    current = None
    for line in text.splitlines():
        m = _DEVICE.match(line)
        if m:
            current = out.setdefault(norm_pci(m.group("addr")), {})
            continue
        lf = link_fields(line) if current is not None and "Lnk" in line else None
        if lf:
            current[lf[0]] = (lf[1], lf[2])
    return out


def test_the_decoded_link_equals_lspcis_own_decoding_on_every_pciutils_dump():
    compared = 0
    for path in sorted(TEST_CAPTURES.glob("pciutils_lspci-vv*.txt")):
        cap = local_capture(path.name)
        assert cap.origin.startswith("github.com/pciutils/pciutils @ "), path.name
        decoded = _lspci_decoding(cap.text)
        for dump in read_dumps(cap.text):
            expected = decoded.get(dump.address, {})
            if not expected:
                continue
            link, why = pcie_link(dump)
            assert link is not None, (path.name, dump.address, why)
            got = {"LnkCap": (link.capable_speed_gts, link.capable_width), "LnkSta": (link.speed_gts, link.width)}
            for register, value in expected.items():
                assert got[register] == value, (path.name, dump.address, register)
                compared += 1
    # 5 dumps: ConnectX-3 Pro, 82576, Myri-10G, root ports (one below its capability: 5 GT/s capable, at 2.5)
    assert compared >= 18


def test_a_link_below_its_capability_is_decoded_as_such():
    cap = local_capture("pciutils_lspci-vvxxxx_cap-pcie-1_root_port_5gts_x4_at_2.5gts.txt")
    (dump,) = [d for d in read_dumps(cap.text) if d.address == "0000:00:01.0"]
    link, _ = pcie_link(dump)
    assert (link.capable_speed_gts, link.capable_width, link.speed_gts, link.width) == (5.0, 4, 2.5, 4)


def test_linux_lspci_xxx_of_an_x710_gives_its_link_and_ids_per_function():
    pnics, *_ = merged(parse_capture("linux_lspci-xxx-s_x710_bypass_04.00.0_04.00.1_header_wrapped_vpp_notes.txt"))
    expected = {"pci_address": None, "is_physical": True, "vid": "8086", "did": "1572", "svid": "15bb", "ssid": "0000",
                "pcie_speed_gts": 8.0, "pcie_width": 4, "pcie_speed_capable_gts": 8.0, "pcie_width_capable": 4}
    for addr in ("0000:04:00.0", "0000:04:00.1"):
        assert pnics[f"pci:{addr}"] == {**expected, "pci_address": addr}


def test_an_lspci_xxxx_dump_without_decoding_is_read_from_the_hex():
    pnics, *_ = merged(parse_capture("pciutils_lspci-xxxx_tree-asus-p6t6_realtek_rtl8111_07.00.0.txt"))
    assert pnics["pci:0000:07:00.0"]["pcie_width"] == 1 and pnics["pci:0000:07:00.0"]["pcie_speed_gts"] == 2.5
    assert (pnics["pci:0000:07:00.0"]["vid"], pnics["pci:0000:07:00.0"]["did"]) == ("10ec", "8168")


def test_with_vv_in_the_same_command_the_decoded_text_is_read_first():
    results = parse_capture("pciutils_lspci-vvxxxx_cap-aer-root_connectx3pro_gen3_x8_and_root_port.txt")
    assert [r.family for r in results] == ["lspci -vv"]
    pnics, *_ = merged(results)
    assert pnics["pci:0000:03:00.0"]["pcie_width"] == 8


def test_esxi_lspci_d_reads_the_pciutils_dump_layout_and_each_fact_cites_its_row():
    """No public output of ESXi's lspci -d exists: its reader takes pciutils' layout (the module docstring says what
    was verified). Read as ``lspci -d``, a real pciutils dump gives the ConnectX-3 Pro's Gen3 x8 link."""
    cap = local_capture("pciutils_lspci-vvxxxx_cap-aer-root_connectx3pro_gen3_x8_and_root_port.txt")
    (result,) = parse_output("lspci -d", cap.text)
    assert result.family == "lspci -d"
    facts = result.pnics["pci:0000:03:00.0"]
    assert {k: f.value for k, f in facts.items() if k.startswith("pcie")} == {
        "pcie_speed_gts": 8.0, "pcie_width": 8, "pcie_speed_capable_gts": 8.0, "pcie_width_capable": 8}
    assert (facts["vid"].value, facts["did"].value) == ("15b3", "1007")
    assert facts["pcie_width"].line.startswith("70: ") and "Link Status at 0x72" in facts["pcie_width"].line
    # the root port is not a network function: not a pNIC
    assert set(result.pnics) == {"pci:0000:03:00.0"}


def test_a_dump_that_stops_before_the_express_capability_says_so():
    cap = local_capture("pciutils_lspci-xxxx_tree-asus-p6t6_realtek_rtl8111_07.00.0.txt")
    lines = cap.text.splitlines()
    first_64_bytes = "\n".join(lines[:5])  # the header line and rows 00..30: what lspci -x prints
    (result,) = parse_output("lspci -x -s 07:00.0", first_64_bytes)
    assert "pcie_width" not in result.pnics["pci:0000:07:00.0"]
    assert any("64 bytes" in n for n in result.notes)


def test_smbiosdump_slots_are_records_of_what_each_slot_offers_never_a_link():
    (result,) = parse_capture("esxi_smbiosDump_egrep_slot_bus_width_pmdaddy_partial.txt")
    assert result.family == "smbiosDump" and not result.pnics
    slots = [(r["designation"], r["bus_width"], r["slot_id"]) for r in result.records]
    assert slots == [("Slot 5", 16, 5), ("Slot 6", 16, 6), ("Slot 4", 8, 4), ("Slot 7 RAID", None, None)]


def test_a_capability_list_that_loops_ends_with_a_sentence_not_a_hang():
    """A damaged copy of the real X710 dump (its MSI capability at 0x50 pointing back to 0x40): the walk stops at the
    first pointer it has seen and says so; nothing is invented."""
    cap = local_capture("linux_lspci-xxx-s_x710_bypass_04.00.0_04.00.1_header_wrapped_vpp_notes.txt")
    damaged = cap.text.replace("50: 05 70 80 01", "50: 05 40 80 01")
    (result,) = parse_output("lspci -xxx -s 04:00.0", damaged)
    facts = result.pnics["pci:0000:04:00.0"]
    assert "pcie_width" not in facts and facts["did"].value == "1572"
    assert any("broken at 0x40" in n for n in result.notes)
