"""The one header-driven table reader (issue 11 §1): columns found from the header (names and positions), missing
columns unknown, extra columns ignored, flattened rows split by the shapes of their values, failed rows listed with
their line number while the rest of the table is kept. Every input is a real capture or a transformation of one."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capturetools import CAPTURES, FIXTURES
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers import framing, pci_address, table
from nicadvisor.parsers.esxi.esxcli_nic import ESXCFG_L_COLUMNS, ESXCLI_COLUMNS, NIC_HEADER_KEYS
from nicadvisor.parsers.registry import parse_output
from nicadvisor.parsers.table import MAX_LINE, MAX_WORDS, find_layout, layout_from_specs, read_row, read_tables, split_by_shapes

NICINFO = FIXTURES / "vm-support" / "bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt"
TABLE_CAPTURES = sorted(
    [p for p in CAPTURES.glob("*.txt")
     if re.search(r"nic list|esxcfg-nics -l|esxcfg-vmknic", read_capture(p).command)] + [NICINFO],
    key=lambda p: p.name)


TABLE_FAMILIES = {"esxcfg-nics -l", "esxcli network nic list", "nicinfo.sh", "esxcfg-vmknic -l"}


def _facts(command: str, text: str, respaced: bool = False) -> dict:
    """Facts by (family, kind, key, field); ``respaced``: free text compared with its spacing collapsed (re-spacing
    a row re-spaces its description)."""
    out = {}
    for r in parse_output(command, text):
        if r.family not in TABLE_FAMILIES:
            continue  # the key/value outputs of multi-command captures are not tables
        for kind, tab in (("pnic", r.pnics), ("vmknic", r.vmknics)):
            for key, facts in tab.items():
                for name, fact in facts.items():
                    value = fact.value
                    if respaced and isinstance(value, str):
                        value = " ".join(value.split())
                    out[(r.family, kind, key, name)] = value
    return out


def _header(name: str, start: str) -> str:
    return next(line for line in read_capture(CAPTURES / name).text.splitlines() if line.lstrip().startswith(start))


# --- header ----------------------------------------------------------------------------------------------

def test_esxcfg_nics_header_columns_by_name_and_position():
    header = _header("esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt", "Name")
    layout = find_layout(header, ESXCFG_L_COLUMNS, NIC_HEADER_KEYS, line_no=1)
    assert [c.key for c in layout.columns] == ["name", "pci", "driver", "link", "speed", "duplex", "mac", "mtu",
                                               "description"]
    assert [c.start for c in layout.columns] == [header.index(w) for w in
                                                 ("Name", "PCI", "Driver", "Link", "Speed", "Duplex", "MAC", "MTU",
                                                  "Description")]
    assert layout.columns[-1].end is None and layout.columns[0].end == header.index("PCI")


def test_esxi5_header_has_link_and_no_admin_status_6x_has_both():
    v5 = next(line for line in read_capture(NICINFO).text.splitlines() if line.lstrip().startswith("Name"))
    v6 = _header("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt", "Name")
    l5 = find_layout(v5, ESXCLI_COLUMNS, NIC_HEADER_KEYS)
    l6 = find_layout(v6, ESXCLI_COLUMNS, NIC_HEADER_KEYS)
    assert "admin" not in l5.keys and "link" in l5.keys
    assert [c.label for c in l6.columns if c.key in ("admin", "link")] == ["Admin Status", "Link Status"]


def test_unknown_columns_are_kept_as_unknown_and_required_keys_decide():
    header = _header("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt", "Name")
    assert find_layout(header, ESXCFG_L_COLUMNS, NIC_HEADER_KEYS) is None  # -e has no Link/PCI column
    layout = find_layout(header, ESXCFG_L_COLUMNS, ("name", "driver", "mac"))
    assert [c.label for c in layout.columns if c.key is None] == ["ENS Capable", "ENS Driven", "INTR Capable",
                                                                   "INTR Enabled"]
    assert layout.keys == {"name", "driver", "mac", "description"}


def test_another_commands_header_is_not_taken():
    esxcli = _header("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt", "Name")
    esxcfg = _header("esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt", "Name")
    assert find_layout(esxcfg, ESXCLI_COLUMNS, NIC_HEADER_KEYS) is None  # "PCI" is not "PCI Device"
    assert find_layout(esxcli, ESXCFG_L_COLUMNS, NIC_HEADER_KEYS, exclude=("PCI Device",)) is None


# --- rows ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", TABLE_CAPTURES, ids=lambda p: p.name)
def test_whitespace_flattened_tables_yield_the_same_facts(path):
    cap = read_capture(path)
    clean = _facts(cap.command, cap.text)
    flat = "\n".join(re.sub(r"[ \t]+", " ", line).strip() for line in cap.text.splitlines())
    assert clean and _facts(cap.command, flat) == clean


@pytest.mark.parametrize("path", TABLE_CAPTURES, ids=lambda p: p.name)
@settings(max_examples=8, deadline=None, derandomize=True)
@given(picks=st.lists(st.booleans(), min_size=40, max_size=40), width=st.integers(1, 3))
def test_any_mix_of_flattened_and_aligned_rows_yields_the_same_facts(path, picks, width):
    cap = read_capture(path)
    lines = cap.text.splitlines()
    mixed = [re.sub(r"[ \t]+", " " * width, line).strip() if picks[i % len(picks)] else line
             for i, line in enumerate(lines)]
    assert _facts(cap.command, "\n".join(mixed), respaced=True) == _facts(cap.command, cap.text, respaced=True)


def test_an_empty_driver_column_is_unknown_aligned_or_flattened():
    """§14 item 24: the Driver column can be empty. The real x550 capture with vmnic2's driver blanked."""
    name = "esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt"
    cap = read_capture(CAPTURES / name)
    row = next(line for line in cap.text.splitlines() if line.startswith("vmnic2 "))
    blank = row.replace("icen  ", "      ", 1)
    clean = _facts(cap.command, cap.text)
    expected = {k: v for k, v in clean.items() if not (k[2] == "vmnic2" and k[3] == "driver")}
    assert ("esxcli network nic list", "pnic", "vmnic2", "driver") in clean
    assert _facts(cap.command, cap.text.replace(row, blank)) == expected
    flat = "\n".join(re.sub(r" +", " ", line) for line in cap.text.replace(row, blank).splitlines())
    assert _facts(cap.command, flat) == expected


def test_split_by_shapes_places_values_by_shape_in_a_headerless_row():
    """The ESXi 4.1 grep'd row (esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_esxi41_elatov.txt) lacks the PCI, MAC and
    MTU columns: the shapes place driver, link, speed, duplex and leave the words after them to the description."""
    cap = read_capture(CAPTURES / "esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_esxi41_elatov.txt")
    row = next(line for line in cap.text.splitlines() if "vmnic7 ixgbe" in line)
    values = split_by_shapes(row.strip(), layout_from_specs(ESXCFG_L_COLUMNS).columns)
    assert values == {"name": "vmnic7", "driver": "ixgbe", "link": "Up", "speed": "10000Mbps", "duplex": "Full",
                      "description": "Intel Corporation Ethernet X520 10GbE Dual Port KX4-KR Mezz"}


def test_a_failed_row_is_listed_with_its_line_number_and_the_rest_kept():
    name = "unattributed_esxi_esxcli_nic_list_bcm5720_ntg3_bnxtnet_ocp3_25g.txt"
    cap = read_capture(CAPTURES / name)
    lines = cap.text.splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("vmnic3 "))
    broken = lines[:n] + [lines[n][:10]] + lines[n + 1:]  # the row cut mid-address, as a truncated paste
    (r,) = parse_output(cap.command, "\n".join(broken))
    # the uplink the cut row names is still listed, with no facts (a lost row never makes the list look whole)
    assert sorted(r.pnics) == ["vmnic0", "vmnic1", "vmnic2", "vmnic3", "vmnic4", "vmnic5"] and r.pnics["vmnic3"] == {}
    assert r.notes == [f"esxcli network nic list: line {n + 1}: row not understood: {lines[n][:10]!r}"]
    (clean,) = parse_output(cap.command, cap.text)
    assert {k: {f: x.value for f, x in v.items()} for k, v in r.pnics.items() if k != "vmnic3"} == \
        {k: {f: x.value for f, x in v.items()} for k, v in clean.pnics.items() if k != "vmnic3"}


def test_elision_lines_inside_a_table_are_skipped_even_without_the_pre_pass():
    cap = read_capture(CAPTURES / "unattributed_esxi_esxcli_nic_list_bcm5720_ntg3_bnxtnet_ocp3_25g.txt")
    lines = cap.text.splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("vmnic3 "))
    tables = read_tables("\n".join(lines[:n] + ["..."] + lines[n:]), ESXCLI_COLUMNS, NIC_HEADER_KEYS)
    assert len(tables) == 1 and not tables[0].failed
    assert [r.values["name"] for r in tables[0].rows] == [f"vmnic{i}" for i in range(6)]


def test_rows_aligned_with_the_header_are_cut_at_its_offsets_others_split_by_shapes():
    """esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt: rows indented by the source's dedent artifact are not
    aligned with the header, the HPE capture's rows are."""
    for name, mode in (("esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt", "aligned"),
                       ("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt", "shapes")):
        (tab,) = read_tables(read_capture(CAPTURES / name).text, ESXCFG_L_COLUMNS, NIC_HEADER_KEYS)
        assert tab.rows and {r.mode for r in tab.rows} == {mode}, name


# --- bounds ----------------------------------------------------------------------------------------------

def test_long_headers_and_wordy_rows_are_not_read_long_words_are():
    header = _header("esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt", "Name")
    row = next(line for line in read_capture(CAPTURES / "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt")
               .text.splitlines() if line.startswith("vmnic0"))
    layout = find_layout(header, ESXCFG_L_COLUMNS, NIC_HEADER_KEYS, line_no=1)
    assert find_layout(header + " " * MAX_LINE + "x", ESXCFG_L_COLUMNS, NIC_HEADER_KEYS) is None
    assert read_row(row + " x" * MAX_WORDS, layout_from_specs(ESXCFG_L_COLUMNS)) is None
    start = time.perf_counter()
    long_word = read_row(row.replace("Mellanox", "Mellanox" + "x" * 200_000), layout)
    wordy = split_by_shapes(" ".join(row.split()[:-1] + ["Up"] * (MAX_WORDS - 12)), layout.columns)
    assert time.perf_counter() - start < 2.0
    assert long_word.values["mtu"] == "1500" and len(long_word.values["description"]) > 200_000
    assert wordy["name"] == "vmnic0" and wordy["mac"] == "88:e9:a4:6b:b8:54"


_NESTED = re.compile(r"[+*}]\)[+*{]")


@pytest.mark.parametrize("module", [table, pci_address, framing], ids=lambda m: m.__name__)
def test_regexes_have_no_nested_quantifiers(module):
    """A quantified group whose body ends with a quantifier (``(a+)+``) can backtrack exponentially."""
    source = Path(module.__file__).read_text()
    patterns = re.findall(r're\.compile\(\s*((?:r"[^"]*"\s*)+)', source)
    assert patterns or module is pci_address
    for pattern in patterns:
        assert not _NESTED.search(pattern), pattern
