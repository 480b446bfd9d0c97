"""vm-support ``commands/nicinfo.sh.txt`` — the only per-pNIC data in older (ESXi 5.x/6.x) support bundles.

Format (``shared/design/research/vm-support-bundles.md`` §1 item 4; excerpt
``fixtures/vm-support/bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt``): a first line
``Network Interface Cards Information.``, a blank line, the ``esxcli network nic list`` table (ESXi 5.x:
``Name PCI Device Driver Link Speed Duplex MAC Address MTU Description``; 6.x adds ``Admin Status`` and
``Link Status``) with a dashed rule, then per NIC a ``NIC:  vmnicN`` section holding the ``nic get``
key/values (``Driver:``, ``Version:``, ``Firmware Version:``, ``Bus Info:``) or, in older scripts,
ethtool-style ``driver:``/``version:``/``firmware-version:``/``bus-info:`` lines, optionally ``Ring
parameters for vmnicN:`` (legacy drivers only), and ``NIC Private statistics:`` (``rxqN:`` lines).

Copies of the file may have collapsed column whitespace (the excerpt does), so table rows are split on
whitespace and validated (MAC and MTU columns), with the header's column offsets as a fallback.
ESXi 5.x prints the PCI bus with 3 digits (``0000:002:00.0``); whether those are decimal or hex is not
established, so only buses below 10 (same in both) are normalised, others are left unset with a note.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import (
    CommandLine, ParseResult, columns_from_header, cut, is_rule, norm_pci, to_bool, to_int,
)
from nicadvisor.parsers.registry import register
from nicadvisor.parsers.vsish import queue_lines, queue_stats

_KNOWN_COLS = ("PCI Device", "Admin Status", "Link Status", "MAC Address", "Name", "Driver", "Link", "Speed",
               "Duplex", "MTU", "Description")
_MAC_RE = re.compile(r"[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}")
_HEADER_RE = re.compile(r"\bName\s+PCI Device\s+Driver\b")


def _header_columns(header: str) -> list[str]:
    cols: list[str] = []
    rest = header.strip()
    while rest:
        for name in _KNOWN_COLS:
            if rest.startswith(name) and (len(rest) == len(name) or rest[len(name)].isspace()):
                cols.append(name)
                rest = rest[len(name):].lstrip()
                break
        else:
            word, _, rest = rest.partition(" ")
            cols.append(word)
            rest = rest.lstrip()
    return cols


def _pci(text: str, notes: list[str]) -> str | None:
    t = text.strip()
    m = re.fullmatch(r"([0-9a-fA-F]{4}):([0-9]{3}):([0-9a-fA-F]{2})\.([0-7])", t)
    if m:
        bus = int(m.group(2))
        if bus < 10:
            return norm_pci(f"{m.group(1)}:{bus:02x}:{m.group(3)}.{m.group(4)}")
        notes.append(f"PCI address {t!r}: 3-digit bus of unknown base, not normalised")
        return None
    return norm_pci(t)


def _row_values(row: str, cols: list[str], header: str, rule: str | None) -> dict[str, str] | None:
    tokens = row.split()
    n = len(cols) - 1 if cols and cols[-1] == "Description" else len(cols)
    if len(tokens) >= n:
        values = dict(zip(cols[:n], tokens[:n]))
        if n < len(cols):
            values[cols[-1]] = " ".join(tokens[n:])
        if _MAC_RE.fullmatch(values.get("MAC Address", "")) and to_int(values.get("MTU")) is not None:
            return values
    # Fallback: fixed-width columns (an empty Driver column shifts whitespace-split fields).
    offsets = columns_from_header(header, rule)
    values = {name: cut(row, start, end) for name, start, end in offsets}
    if _MAC_RE.fullmatch(values.get("MAC Address", "")):
        return values
    return None


def _parse_table(text: str, result: ParseResult) -> None:
    lines = text.splitlines()
    for i, header in enumerate(lines):
        if not _HEADER_RE.search(header):
            continue
        cols = _header_columns(header)
        j = i + 1
        rule = None
        if j < len(lines) and (is_rule(lines[j]) or re.fullmatch(r"\s*-{5,}[-\s]*", lines[j])):
            rule = lines[j]
            j += 1
        for row in lines[j:]:
            if not row.strip() or re.match(r"^\s*NIC:", row):
                break
            values = _row_values(row, cols, header, rule)
            name = (values or {}).get("Name") or (row.split() or [""])[0]
            if not values or not re.fullmatch(r"vmnic\d+|vusb\d+|[a-z][\w.-]*", name):
                result.notes.append(f"nicinfo table: skipped unreadable row {row.strip()!r}")
                continue
            _record_row(result, name, values, row.strip())
        return


def _record_row(result: ParseResult, name: str, v: dict[str, str], line: str) -> None:
    pci_text = v.get("PCI Device", "")
    if pci_text.lower() == "pseudo":
        result.pnic(name, "is_physical", False, line)
    else:
        pci = _pci(pci_text, result.notes)
        result.pnic(name, "pci_address", pci, line)
        if pci:
            result.pnic(name, "is_physical", True, line)
    driver = v.get("Driver") or None
    result.pnic(name, "driver", driver, line)
    result.pnic(name, "admin_up", to_bool(v.get("Admin Status")), line)
    link = to_bool(v.get("Link Status", v.get("Link")))
    result.pnic(name, "link_up", link, line)
    if link:
        speed = to_int(v.get("Speed"))
        if speed and speed > 0:
            result.pnic(name, "link_speed_mbps", speed, line)
        duplex = (v.get("Duplex") or "").lower()
        if duplex in ("full", "half"):
            result.pnic(name, "duplex", duplex, line)
    mac = v.get("MAC Address", "")
    if _MAC_RE.fullmatch(mac):
        result.pnic(name, "mac", mac.lower(), line)
    mtu = to_int(v.get("MTU"))
    if mtu and mtu > 0:
        result.pnic(name, "mtu", mtu, line)
    if v.get("Description"):
        result.pnic(name, "description", v["Description"], line)


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
                result.pnic(name, field, _pci(value, result.notes), line)
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
