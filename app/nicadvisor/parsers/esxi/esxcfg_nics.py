"""ESXi ``esxcfg-nics -l`` (uplink inventory) and ``esxcfg-nics -e`` (ENS / Enhanced Data Path capability).

Formats: ``shared/design/research/nic-data-sources.md`` §4 (``Name PCI Driver Link Speed Duplex MAC Address
MTU Description``, speed like ``25000Mbps``), §8a (``-e`` columns, older builds without the two ``INTR``
columns), §14 items 2, 9, 24 (stale speed of down ports; ``-e`` needs NSX VIBs; the Driver column can be empty).
Pure functions, never raise on malformed text.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, to_bool
from nicadvisor.parsers.esxi.esxcli_nic import (
    ESXCFG_L_COLUMNS, MACISH, NAME_RE, NIC_COLUMNS, NIC_HEADER_KEYS, clean, headerless_rows, nic_row_ok,
    note_failed_rows, record_nic_row, table_lines, valid_mac,
)
from nicadvisor.parsers.framing import is_command_echo
from nicadvisor.parsers.registration import register
from nicadvisor.parsers.table import layout_from_specs, read_row, read_tables

# --- esxcfg-nics -l ---------------------------------------------------------------------------------------

_CONTINUATION = layout_from_specs(tuple(c for c in NIC_COLUMNS if c.key in ("mac", "mtu", "description")))
_L_LAYOUT = layout_from_specs(ESXCFG_L_COLUMNS)
_ADDRESS_START_RE = re.compile(r"^\s*[0-9a-fA-F]{3,4}:")


def _l_row_ok(values) -> bool:
    """An ``-l`` row names an uplink and has its link state, speed and duplex (the columns every generation
    prints, nic-data-sources.md §4)."""
    return nic_row_ok(values) and {"link", "speed", "duplex"} <= values.keys()


def _is_l_row(line: str) -> bool:
    row = read_row(line, _L_LAYOUT)
    return row is not None and _l_row_ok(row.values)


def _join_wrapped(values: dict[str, str], lines: list[str], index: int) -> tuple[dict[str, str], list[int]]:
    """A row wrapped after its duplex (``esxi_esxcfg-nics-l_xl710_mtu9000_vmnic5_seed.txt``: ``… Up 40000Mbps
    Full`` / ``3c:fd:… 9000 Intel … XL710`` / ``for 40GbE QSFP+``): the values joined with the continuation
    lines after line ``index`` (0-based), and the 0-based indexes of the lines used."""
    if {"mac", "mtu", "description"} & values.keys() or index + 1 >= len(lines):
        return values, []
    cont = read_row(lines[index + 1], _CONTINUATION, index + 2)
    if cont is None or not {"mac", "mtu"} <= cont.values.keys():
        return values, []
    joined = {**values, **cont.values}
    used = [index + 1]
    j = index + 2
    while (j < len(lines) and lines[j].strip() and is_command_echo(lines[j]) is None
           and not _ADDRESS_START_RE.match(lines[j])
           and not _is_l_row(lines[j])):
        joined["description"] = f"{joined.get('description', '')} {lines[j].strip()}".strip()
        used.append(j)
        j += 1
    return joined, used


@register(r"^esxcfg-nics -l\b", "esxcfg-nics -l")
def parse_esxcfg_nics_l(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcfg-nics -l``: one row per uplink → pNIC facts (see :func:`esxcli_nic.record_nic_row`):
    ``pci_address``, ``driver`` (an empty Driver column stays unset, §14 item 24), ``link_up``,
    ``link_speed_mbps`` (``25000Mbps`` → 25000, only for link-up ports; ``Down 0Mbps`` is not a speed),
    ``duplex``, ``mac``, ``mtu`` (bytes), ``description``.

    The table is read by :func:`nicadvisor.parsers.table.read_tables` with the shared uplink columns
    (:data:`esxcli_nic.ESXCFG_L_COLUMNS`): rows aligned with the header are cut at its offsets (an empty Driver column
    does not shift later fields), others (the dedent artifact of
    ``esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt``, whitespace-flattened blog copies) are split by the
    shapes of their values. Header-less rows (``| grep vmnic5``; ``esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_
    esxi41_elatov.txt`` whose row lacks the PCI column) are split in the ``-l`` column order. A row wrapped after
    the duplex is joined with its continuation lines. With ``| grep vmnicN`` only that uplink is kept. A table
    row that is not read is noted with its line number, the others kept. Never raises.
    """
    result = ParseResult(family="esxcfg-nics -l")
    lines = text.splitlines()
    tables = read_tables(text, ESXCFG_L_COLUMNS, NIC_HEADER_KEYS, row_ok=_l_row_ok, exclude=("PCI Device",))
    rows: list[tuple[dict[str, str], int, list[int]]] = []  # (values, 0-based row index, continuation indexes)
    for table in tables:
        failed = dict(table.failed)
        for row in table.rows:
            values, used = _join_wrapped(row.values, lines, row.line_no - 1)
            for k in used:
                failed.pop(k + 1, None)
            rows.append((values, row.line_no - 1, used))
        table.failed = sorted(failed.items())
    note_failed_rows(result, tables)
    skip = table_lines(tables)
    consumed: set[int] = set()
    for line_no, values, _raw in headerless_rows(text, ESXCFG_L_COLUMNS, _l_row_ok, skip, result.notes):
        if line_no in consumed:
            continue
        values, used = _join_wrapped(values, lines, line_no - 1)
        consumed.update(k + 1 for k in used)
        rows.append((values, line_no - 1, used))
    for values, index, used in rows:
        evidence = "\n".join(lines[k].strip() for k in [index, *used]) if used else lines[index]
        if cmd.target is None or values.get("name") == cmd.target:
            record_nic_row(result, values, evidence)
    if not result.pnics:
        result.notes.append("esxcfg-nics -l: no uplink rows found")
    return result


# --- esxcfg-nics -e ---------------------------------------------------------------------------------------

_E_HEADER_RE = re.compile(r"^\s*Name\s+Driver\s+ENS Capable\s+ENS Driven\s+(?P<intr>INTR Capable\s+INTR Enabled\s+)?"
                          r"MAC Address\s+Description\s*$")
_BOOL = r"(True|False|true|false)"


@register(r"^esxcfg-nics -e\b", "esxcfg-nics -e")
def parse_esxcfg_nics_e(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcfg-nics -e`` (hosts with NSX VIBs; §8a): columns ``Name Driver ENS Capable ENS Driven [INTR
    Capable INTR Enabled] MAC Address Description`` (capture
    ``esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt``; older builds lack the two INTR columns).

    Recorded per uplink: ``driver`` (as printed), ``ens_capable`` (ENS Capable), ``ens_enabled`` (ENS Driven:
    the uplink is driven by the ENS/Enhanced Data Path stack), ``ens_interrupt_capable`` (INTR Capable) and
    ``ens_mode``: ``"standard"`` when ENS Driven is False, ``"ens_interrupt"`` when ENS Driven and INTR Enabled
    are True, ``"ens"`` when ENS Driven is True and INTR Enabled False; unset when the INTR columns are absent
    and ENS Driven is True (poll vs. interrupt mode not stated). ``INTR Enabled`` itself goes to ``records``.
    The Description column is truncated by the command, so it is not recorded. ``invalid option -- 'e'``
    (no NSX VIBs, §14 item 9) yields a note only. Never raises.
    """
    result = ParseResult(family="esxcfg-nics -e")
    lines = text.splitlines()
    for h, line in enumerate(lines):
        m = _E_HEADER_RE.match(line)
        if not m:
            continue
        has_intr = bool(m.group("intr"))
        n_bools = 4 if has_intr else 2
        row_re = re.compile(r"^\s*(?P<name>\S+)\s+(?:(?P<driver>\S+)\s+)?" + r"\s+".join([_BOOL] * n_bools)
                            + r"(?:\s+(?P<mac>" + MACISH + r"))?(?:\s+.*)?$")
        for raw in lines[h + 1:]:
            if not raw.strip() or is_command_echo(raw) is not None:
                break
            rm = row_re.match(raw)
            if not rm or not NAME_RE.match(rm.group("name")):
                result.notes.append(f"esxcfg-nics -e: row not understood: {raw.strip()!r}")
                continue
            name = rm.group("name")
            flags = [to_bool(rm.group(k)) for k in range(3, 3 + n_bools)]
            capable, driven = flags[0], flags[1]
            intr_capable, intr_enabled = (flags[2], flags[3]) if has_intr else (None, None)
            result.pnic(name, "driver", clean(rm.group("driver")), raw)
            result.pnic(name, "mac", valid_mac(rm.group("mac")), raw)
            result.pnic(name, "ens_capable", capable, raw)
            result.pnic(name, "ens_enabled", driven, raw)
            result.pnic(name, "ens_interrupt_capable", intr_capable, raw)
            mode = None
            if driven is False:
                mode = "standard"
            elif driven and intr_enabled is not None:
                mode = "ens_interrupt" if intr_enabled else "ens"
            result.pnic(name, "ens_mode", mode, raw)
            result.records.append({"family": result.family, "nic": name,
                                   "fields": {"ENS Capable": capable, "ENS Driven": driven,
                                              "INTR Capable": intr_capable, "INTR Enabled": intr_enabled}})
    if not result.pnics:
        if re.search(r"invalid option -- '?e'?", text):
            result.notes.append("esxcfg-nics -e: not supported on this host (no NSX VIBs installed)")
        else:
            result.notes.append("esxcfg-nics -e: no ENS capability table found")
    return result
