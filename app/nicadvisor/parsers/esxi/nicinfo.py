"""vm-support ``commands/nicinfo.sh.txt`` — the only per-pNIC data in older (ESXi 5.x/6.x) support bundles.

Format (``shared/design/research/vm-support-bundles.md`` §1 item 4; excerpt
``fixtures/vm-support/bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt``): a first line
``Network Interface Cards Information.``, a blank line, the ``esxcli network nic list`` table (ESXi 5.x:
``Name PCI Device Driver Link Speed Duplex MAC Address MTU Description``; 6.x adds ``Admin Status`` and
``Link Status``) with a dashed rule, then per NIC a ``NIC:  vmnicN`` section holding the ``nic get``
key/values (``Driver:``, ``Version:``, ``Firmware Version:``, ``Bus Info:``) or, in older scripts,
ethtool-style ``driver:``/``version:``/``firmware-version:``/``bus-info:`` lines, optionally ``Ring
parameters for vmnicN:`` (legacy drivers only), and ``NIC Private statistics:`` (``rxqN:`` lines).

Copies of the file may have collapsed column whitespace (the excerpt does): the table is read by the shared
table reader (:mod:`nicadvisor.parsers.table`), which cuts aligned rows at the header's offsets and splits
flattened ones by the shapes of their values. ESXi 5.x prints the PCI bus with 3 digits (``0000:002:00.0``):
zero-padded hex, normalised by :func:`nicadvisor.parsers.pci_address.normalise_pci` (sources there).
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, to_int
from nicadvisor.parsers.esxi.esxcli_nic import ESXCLI_COLUMNS, NIC_HEADER_KEYS, nic_row_ok, note_failed_rows, record_nic_row
from nicadvisor.parsers.framing import is_command_echo
from nicadvisor.parsers.pci_address import normalise_pci
from nicadvisor.parsers.registration import register
from nicadvisor.parsers.table import read_tables
from nicadvisor.parsers.esxi.vsish import queue_lines, queue_stats

def _pci(text: str, result: ParseResult) -> str | None:
    """A ``Bus Info`` / PCI Device value normalised by :func:`normalise_pci` (3-digit ESXi 5.x buses included);
    an ambiguous one is noted and left unset."""
    pci = normalise_pci(text)
    if pci.normalised is None and pci.is_address:
        result.notes.append(f"nicinfo.sh: PCI address {pci.as_written!r} kept as written ({pci.note})")
    return pci.normalised


def _nicinfo_stop(line: str) -> bool:
    return not line.strip() or bool(re.match(r"^\s*NIC:", line)) or is_command_echo(line) is not None


def _parse_table(text: str, result: ParseResult) -> None:
    """The first uplink table (``esxcli network nic list`` layout of the bundle's ESXi version), read by the
    shared table reader (:data:`esxcli_nic.ESXCLI_COLUMNS`); rows noted with their line number when not read."""
    tables = read_tables(text, ESXCLI_COLUMNS, NIC_HEADER_KEYS, row_ok=nic_row_ok, stop=_nicinfo_stop)[:1]
    for table in tables:
        for row in table.rows:
            if record_nic_row(result, row.values, row.line.strip()) is None:
                table.failed.append((row.line_no, row.line))
    note_failed_rows(result, tables)


_SECTION_KEYS = {
    "driver": "driver", "version": "driver_version", "firmware version": "firmware_version",
    "bus info": "pci_address",
}


def _parse_sections(text: str, result: ParseResult) -> None:
    sections = re.split(r"^\s*NIC:\s+", text, flags=re.M)
    for body in sections[1:]:
        m = re.match(r"(\S+)", body)
        if not m:
            continue
        name = m.group(1)
        private = re.split(r"^\s*NIC Private statistics:\s*$", body, maxsplit=1, flags=re.M)
        main = private[0]
        ring_current = False
        for raw in main.splitlines()[1:]:
            line = raw.strip()
            if re.match(r"^Current hardware settings:", line, re.I):
                ring_current = True
                continue
            if re.match(r"^(Pre-set maximums:|Ring parameters for)", line, re.I):
                ring_current = False
                continue
            km = re.match(r"^([A-Za-z][\w -]*?)\s*:\s*(.*)$", line)
            if not km:
                continue
            key, value = km.group(1).lower().replace("-", " "), km.group(2).strip()
            if ring_current and key in ("rx", "tx") and to_int(value) is not None:
                result.pnic(name, f"{key}_ring_size", to_int(value), line)
                continue
            field = _SECTION_KEYS.get(key)
            if not field or not value:
                continue
            if field == "pci_address":
                result.pnic(name, field, _pci(value, result), line)
            else:
                result.pnic(name, field, value, line)
        if len(private) > 1:
            queues = queue_stats(private[1])
            qlines = queue_lines(private[1])
            if queues["rx"]:
                result.pnic(name, "rx_queues", len(queues["rx"]), qlines["rx"])
            if queues["tx"]:
                result.pnic(name, "tx_queues", len(queues["tx"]), qlines["tx"])


@register(r"^(?:bundle file\s+)?(?:\S*/)?nicinfo\.sh\b", "nicinfo.sh")
def parse_nicinfo(text: str, cmd: CommandLine) -> ParseResult:
    """vm-support ``commands/nicinfo.sh.txt``: pNIC facts keyed by vmnic — from the NIC table
    ``pci_address``, ``is_physical`` (False for ``Pseudo``), ``driver``, ``admin_up``, ``link_up``,
    ``link_speed_mbps`` (Mbit/s, link up only), ``duplex``, ``mac``, ``mtu`` (bytes), ``description``; from
    the per-NIC sections ``driver``, ``driver_version``, ``firmware_version``, ``pci_address``, current
    ``rx_ring_size``/``tx_ring_size`` and ``rx_queues``/``tx_queues`` (private statistics).
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="nicinfo.sh")
    _parse_table(text, result)
    _parse_sections(text, result)
    if not result.understood:
        result.notes.append(f"{cmd.text!r}: neither the NIC table nor a 'NIC:' section was found")
    return result
