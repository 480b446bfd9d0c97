"""ESXi interrupt coalescing and Intel RSS views: ``esxcli network nic coalesce get`` and
``esxcli intnet rss get -n vmnicX``.

Sources: nic-data-sources.md §9 (coalescing; §14 item 14: drivers without coalesce support print
``N/A``, which stays unknown) and §7 (Intel ``intnet`` plugin RSS view); captures
``esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt`` and ``esxi_esxcli_intnet_rss_get_intel.txt``.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import (
    CommandLine,
    ParseResult,
    columns_from_header,
    cut,
    is_rule,
    kv_lines,
    to_bool,
    to_int,
)
from nicadvisor.parsers.registry import register

_COALESCE_HEADER_RE = re.compile(r"^\s*NIC\s+RX microseconds\b", re.I)
# column name (lower case) → (PhysicalNic field, converter)
_COALESCE_COLUMNS = {
    "rx microseconds": ("coalesce_rx_usecs", to_int),
    "rx maximum frames": ("coalesce_rx_frames", to_int),
    "tx microseconds": ("coalesce_tx_usecs", to_int),
    "tx maximum frames": ("coalesce_tx_frames", to_int),
    "adaptive rx": ("coalesce_adaptive_rx", to_bool),
}
_PROMPT_RE = re.compile(r"^\s*\[[^\]]*\]")


@register(r"^esxcli network nic coalesce get\b", "esxcli network nic coalesce get")
def parse_coalesce_get(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcli network nic coalesce get [-n vmnicX]``: one row per vmnic.

    Columns ``NIC | RX microseconds | RX maximum frames | TX microseconds | TX Maximum frames |
    Adaptive RX | Adaptive TX | Sample interval seconds`` → ``coalesce_rx_usecs`` (µs),
    ``coalesce_rx_frames``, ``coalesce_tx_usecs`` (µs), ``coalesce_tx_frames``,
    ``coalesce_adaptive_rx`` (``Off`` → False). ``N/A`` cells are not recorded. Column offsets come
    from the dashed rule; without one, a row with exactly as many words as columns is read by
    position. Adaptive TX and the sample interval go to ``records``
    (``{"kind": "coalesce", "nic", "adaptive_tx", "sample_interval_s"}``). Never raises.
    """
    result = ParseResult(family="esxcli network nic coalesce get")
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if _COALESCE_HEADER_RE.match(ln)), None)
    if start is None:
        result.notes.append("esxcli network nic coalesce get: no 'NIC  RX microseconds …' header found")
        return result
    header = lines[start]
    rule = lines[start + 1] if start + 1 < len(lines) and is_rule(lines[start + 1]) else None
    cols = columns_from_header(header, rule)
    names = [c[0].lower() for c in cols]
    for line in lines[start + (2 if rule else 1):]:
        if not line.strip():
            continue
        if _PROMPT_RE.match(line):
            break
        words = line.split()
        if rule:
            cells = [cut(line, s, e) for _, s, e in cols]
        elif len(words) == len(cols):
            cells = words
        else:
            result.notes.append(f"esxcli network nic coalesce get: row not understood: {line.strip()!r}")
            continue
        row = dict(zip(names, cells))
        nic = row.get("nic", "")
        if not nic or " " in nic:
            result.notes.append(f"esxcli network nic coalesce get: row not understood: {line.strip()!r}")
            continue
        for col, (fld, conv) in _COALESCE_COLUMNS.items():
            result.pnic(nic, fld, conv(row.get(col)), line)
        result.records.append({
            "kind": "coalesce", "nic": nic,
            "adaptive_tx": to_bool(row.get("adaptive tx")),
            "sample_interval_s": to_int(row.get("sample interval seconds")),
        })
    if not result.records:
        result.notes.append("esxcli network nic coalesce get: header found but no rows")
    return result


# --- esxcli intnet rss get ------------------------------------------------------------------------

_RSS_KEYS = {
    "Current support": "current_support",
    "RSS modes supported": "modes_supported",
    "Maximum supported RSS queues": "max_rss_queues",
    "Number of NetQ RSS Engines": "netq_rss_engines",
    "Active RSS modes": "active_modes",
}


@register(r"^esxcli intnet rss get\b", "esxcli intnet rss get")
def parse_intnet_rss_get(text: str, cmd: CommandLine) -> ParseResult:
    """Parse Intel's ``esxcli intnet rss get -n vmnicX`` (intnet esxcli plugin).

    ``Current support: Enabled`` → pNIC ``rss`` True (``Disabled`` → False) for the vmnic named by
    ``-n``. The other figures (``RSS modes supported``, ``Maximum supported RSS queues``, ``Number of
    NetQ RSS Engines``, ``Active RSS modes``, ``Number of active queues`` under ``DefQ RSS Info:`` /
    ``NetQ RSS Info:``) describe RSS queues, not the NIC's rx queue count, so they go to one record
    ``{"kind": "intnet_rss", "nic", "current_support", "modes_supported", "max_rss_queues",
    "netq_rss_engines", "active_modes", "defq_rss_active_queues", "netq_rss_active_queues"}``
    (counts as int; NetQ RSS engines appear only under traffic, §14 item 8). Never raises.
    """
    result = ParseResult(family="esxcli intnet rss get")
    nic = cmd.target
    record: dict[str, object] = {"kind": "intnet_rss", "nic": nic}
    section: str | None = None
    support_line: str | None = None
    for indent, key, value, raw in kv_lines(text):
        if indent == 0 and not value and key.endswith("RSS Info"):
            section = "defq" if key.startswith("DefQ") else "netq" if key.startswith("NetQ") else None
            continue
        if indent == 0:
            section = None
        if key == "Number of active queues" and section:
            record[f"{section}_rss_active_queues"] = to_int(value)
        elif key in _RSS_KEYS and indent == 0:
            field = _RSS_KEYS[key]
            if field in ("max_rss_queues", "netq_rss_engines"):
                record[field] = to_int(value)
            elif field == "current_support":
                record[field] = to_bool(value)
                support_line = raw
            else:
                record[field] = value
    if len(record) == 2:
        result.notes.append("esxcli intnet rss get: no RSS keys found")
        return result
    result.records.append(record)
    if not nic:
        result.notes.append("esxcli intnet rss get: no -n vmnicX on the command line, RSS facts not attached to a pNIC")
    elif support_line is not None:
        result.pnic(nic, "rss", record.get("current_support"), support_line)
    return result
