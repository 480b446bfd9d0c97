"""The one PCI-address normaliser (issue 11 §2): every written form of an address normalised to ``dddd:bb:dd.f``
where unambiguous, kept as written with a note where not, never dropping the row that holds it."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.base import norm_pci
from nicadvisor.parsers.pci_address import PciAddress, looks_like_pci, normalise_pci
from nicadvisor.parsers.registry import parse_output

CANONICAL = re.compile(r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-1][0-9a-f]\.[0-7]$")


@pytest.mark.parametrize("written, expected", [
    ("0000:4b:00.0", "0000:4b:00.0"),      # esxcfg-nics -l, esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt
    ("0000:02:01:0", "0000:02:01.0"),      # nic get Bus Info, unattributed_esxi9_nested_nvmxnet3_nic_list_get.txt
    ("0000:002:00.5", "0000:02:00.5"),     # ESXi 5.x nicinfo.sh, bundle_commands_nicinfo.sh.txt_head11_be2net…
    ("0000:0c1:00.1", "0000:c1:00.1"),     # ESXi 5.x esxcli nic list (code-index file 48915758579): padded hex
    ("000:002:00.0", "0000:02:00.0"),      # ESXi 4.1 vmkchdev -l, esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_esxi41…
    ("b1:00.0", "0000:b1:00.0"),           # lspci without -D (domain 0 suppressed, lspci(8))
    ("0000.19:00.0", "0000:19:00.0"),      # a dot in place of the domain separator
    ("C0A4:00:02.0", "c0a4:00:02.0"),      # a non-zero domain keeps its value, lower-cased
    ("10000:e1:00.0", "10000:e1:00.0"),    # a domain wider than 16 bits keeps its width
    ("0000:03:00.01", "0000:03:00.1"),     # ESXi 5.x esxcfg-nics -l (code-index file 17065244368; = ethtool bus-info)
    ("02:00.00", "0000:02:00.0"),          # zero-padded 2-digit function without domain
])
def test_unambiguous_forms_are_normalised(written, expected):
    pci = normalise_pci(written)
    assert pci == PciAddress(expected, written, None)
    assert norm_pci(written) == expected and looks_like_pci(written)


@pytest.mark.parametrize("written", ["02:00", "0000:130:00.0", "19:00:0", "0000:19:00"])
def test_ambiguous_forms_are_kept_as_written_with_a_note(written):
    pci = normalise_pci(f"  {written} ")
    assert pci.normalised is None and pci.as_written == written
    assert pci.note and pci.note.startswith("ambiguous") and pci.is_address
    assert norm_pci(written) is None


@pytest.mark.parametrize("written", ["Pseudo", "N/A", "-", "", "00:17:a4:77:00:c6", "fe80::1", "0000:19:20.0",
                                     "0000:19:00.8", "vmnic0", "1500", "0000:19:00.0.1", "x" * 100])
def test_non_addresses_are_not_addresses(written):
    pci = normalise_pci(written)
    assert pci.normalised is None and not pci.is_address and pci.note
    assert not looks_like_pci(written)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(domain=st.integers(0, 0xFFFF), bus=st.integers(0, 0xFF), dev=st.integers(0, 0x1F), fn=st.integers(0, 7),
       upper=st.booleans(), fn_colon=st.booleans(), bus3=st.booleans(), dom_dot=st.booleans())
def test_every_written_variant_of_an_address_normalises_to_the_same_text(domain, bus, dev, fn, upper, fn_colon,
                                                                         bus3, dom_dot):
    canonical = f"{domain:04x}:{bus:02x}:{dev:02x}.{fn}"
    bus_text = f"{bus:03x}" if bus3 else f"{bus:02x}"
    text = f"{domain:04x}{'.' if dom_dot else ':'}{bus_text}:{dev:02x}{':' if fn_colon else '.'}{fn}"
    text = text.upper() if upper else text
    assert normalise_pci(text).normalised == canonical
    assert normalise_pci(canonical).normalised == canonical  # idempotent
    if domain == 0:
        assert normalise_pci(f"{bus:02x}:{dev:02x}.{fn}").normalised == canonical


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet="0123456789abcdefABCDEF:. -xPseudo/N", max_size=24) | st.text(max_size=24))
def test_any_text_yields_a_canonical_address_or_a_note(text):
    pci = normalise_pci(text)
    assert (pci.normalised is None) != (pci.note is None)
    assert pci.normalised is None or CANONICAL.match(pci.normalised)


def test_an_ambiguous_pci_column_keeps_the_row_and_the_text():
    """A real capture whose PCI column is rewritten to the short ``bus:slot`` form classic ESX prints (issue 11 §1):
    every other fact of the row stays, the address is kept as written in a record, with a note."""
    cap = read_capture(CAPTURES / "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt")
    (clean,) = parse_output(cap.command, cap.text)
    (short,) = parse_output(cap.command, cap.text.replace("0000:0f:00.0", "0f:00      "))
    assert clean.pnics["vmnic0"]["pci_address"].value == "0000:0f:00.0"
    assert "pci_address" not in short.pnics["vmnic0"]
    expected = {k: f.value for k, f in clean.pnics["vmnic0"].items() if k != "pci_address"}
    assert {k: f.value for k, f in short.pnics["vmnic0"].items()} == expected
    assert short.pnics["vmnic1"]["pci_address"].value == "0000:0f:00.1"
    assert {"family": "esxcfg-nics -l", "nic": "vmnic0",
            "fields": {"PCI address as written": "0f:00",
                       "PCI note": "ambiguous short bus:slot form (no domain, no function)"}} in short.records
    assert any("'0f:00' kept as written" in n for n in short.notes)
