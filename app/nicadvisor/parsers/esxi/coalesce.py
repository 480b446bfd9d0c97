"""ESXi interrupt coalescing and Intel RSS views: ``esxcli network nic coalesce get`` (its text, and its rows
answered over the vSphere API) and ``esxcli intnet rss get -n vmnicX``.

Sources: nic-data-sources.md §9 (coalescing; §14 item 14: drivers without coalesce support print
``N/A``, which stays unknown) and §7 (Intel ``intnet`` plugin RSS view); captures
``esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt`` and ``esxi_esxcli_intnet_rss_get_intel.txt``.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from nicadvisor.parsers.base import CommandLine, ParseResult, kv_lines, to_bool, to_int
from nicadvisor.parsers.esxi.esxcli_nic import clean
from nicadvisor.parsers.registration import register, register_rows
from nicadvisor.parsers.rows import esxcli_api_family, norm_key, norm_row, row_line
from nicadvisor.parsers.table import ColumnSpec, failed_notes, read_tables

_NA = "N/A"


def _int_or_na(v: str) -> bool:
    return v == _NA or (v.isdigit() and len(v) <= 9)


def _switch_or_na(v: str) -> bool:
    return v.lower() in ("on", "off", "true", "false", "n/a")


#: The columns of ``esxcli network nic coalesce get`` (headers as ESXi prints them; each value's shape: a vmnic name,
#: a count or ``N/A``, ``On``/``Off``/``N/A``): read by the one table reader (:mod:`nicadvisor.parsers.table`).
COALESCE_COLUMNS = (
    ColumnSpec("nic", ("NIC",), lambda v: bool(re.fullmatch(r"vmnic\d{1,9}", v))),
    ColumnSpec("rx_usecs", ("RX microseconds",), _int_or_na, strong=False),
    ColumnSpec("rx_frames", ("RX maximum frames",), _int_or_na, strong=False),
    ColumnSpec("tx_usecs", ("TX microseconds",), _int_or_na, strong=False),
    ColumnSpec("tx_frames", ("TX Maximum frames",), _int_or_na, strong=False),
    ColumnSpec("adaptive_rx", ("Adaptive RX",), _switch_or_na, strong=False),
    ColumnSpec("adaptive_tx", ("Adaptive TX",), _switch_or_na, strong=False),
    ColumnSpec("sample_s", ("Sample interval seconds",), _int_or_na, strong=False),
)
# table key → (PhysicalNic field, converter)
_COALESCE_FACTS = {
    "rx_usecs": ("coalesce_rx_usecs", to_int),
    "rx_frames": ("coalesce_rx_frames", to_int),
    "tx_usecs": ("coalesce_tx_usecs", to_int),
    "tx_frames": ("coalesce_tx_frames", to_int),
    "adaptive_rx": ("coalesce_adaptive_rx", to_bool),
    "adaptive_tx": ("coalesce_adaptive_tx", to_bool),
}


@register(r"^esxcli network nic coalesce get\b", "esxcli network nic coalesce get")
def parse_coalesce_get(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcli network nic coalesce get [-n vmnicX]``: one row per vmnic.

    Columns ``NIC | RX microseconds | RX maximum frames | TX microseconds | TX Maximum frames |
    Adaptive RX | Adaptive TX | Sample interval seconds`` → ``coalesce_rx_usecs`` (µs),
    ``coalesce_rx_frames``, ``coalesce_tx_usecs`` (µs), ``coalesce_tx_frames``,
    ``coalesce_adaptive_rx``/``coalesce_adaptive_tx`` (``Off`` → False). ``N/A`` cells are not recorded. The header is found by its labels
    and rows are cut at its columns (the dashed rule's, when there is one) or, flattened by pasting, split by the
    shapes of their values (:func:`nicadvisor.parsers.table.read_tables`); a row that fits neither is listed with
    its line number and the others are kept. Adaptive TX and the sample interval go to ``records``
    (``{"kind": "coalesce", "nic", "adaptive_tx", "sample_interval_s"}``).
    Capture: ``esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt``. Never raises.
    """
    result = ParseResult(family="esxcli network nic coalesce get")
    tables = read_tables(text, COALESCE_COLUMNS, ("nic", "rx_usecs"))
    if not tables:
        result.notes.append("esxcli network nic coalesce get: no 'NIC  RX microseconds …' header found")
        return result
    for table in tables:
        for row in table.rows:
            nic = row.values.get("nic", "")
            if not nic:
                result.notes.append(f"esxcli network nic coalesce get: line {row.line_no}: no vmnic in the row")
                continue
            _record_row(result, nic, row.values, row.line)
        result.notes.extend(failed_notes(result.family, [table]))
    if not result.records:
        result.notes.append("esxcli network nic coalesce get: header found but no rows")
    return result


def _record_row(result: ParseResult, nic: str, values: Mapping[str, str], line: str) -> None:
    """The facts and the record of one ``coalesce get`` row (``values`` by :data:`COALESCE_COLUMNS` key), whether
    it was read from the text or answered over the vSphere API."""
    for key, (fld, conv) in _COALESCE_FACTS.items():
        result.pnic(nic, fld, conv(values.get(key)), line)
    result.records.append({
        "kind": "coalesce", "nic": nic,
        "adaptive_tx": to_bool(values.get("adaptive_tx")),
        "sample_interval_s": to_int(values.get("sample_s")),
    })


#: An API row's field (an esxcli column label without spaces, :func:`~nicadvisor.parsers.rows.norm_key`) → the
#: column key the text is read by: ``RXmicroseconds`` → ``rx_usecs``.
_API_KEYS = {norm_key(label): c.key for c in COALESCE_COLUMNS for label in c.labels}


@register_rows(("network", "nic", "coalesce", "get"))
def coalesce_facts(rows: Iterable[Mapping[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """``network nic coalesce get`` rows answered over the vSphere API (``NIC``, ``RXmicroseconds`` µs,
    ``RXmaximumframes``, ``TXmicroseconds`` µs, ``TXMaximumframes``, ``AdaptiveRX``/``TX``,
    ``Sampleintervalseconds``: the column labels without spaces) → the same facts and records as
    :func:`parse_coalesce_get` reads from the text; ``N/A`` (no coalesce support, §14 item 14) is not recorded, a
    row naming no uplink is a note. Never raises."""
    result = ParseResult(family=esxcli_api_family(("network", "nic", "coalesce", "get")))
    for row in rows:
        values = {_API_KEYS[k]: v for k, v in norm_row(row).items() if k in _API_KEYS and isinstance(v, str)}
        nic = clean(values.get("nic"))
        line = row_line(row)
        if not nic or " " in nic:
            result.notes.append(f"esxcli network nic coalesce get (API): row not understood: {line!r}")
            continue
        _record_row(result, nic, values, line)
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
    (counts as int; NetQ RSS engines appear only under traffic, §14 item 8). Two outputs in one text (a second
    ``Current support`` line) are ambiguous: nothing is recorded, a note says why. Never raises.
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
                if support_line is not None:  # a second output in the same text (captures appended)
                    result.notes.append("esxcli intnet rss get: 'Current support' appears more than once: the text "
                                        f"holds several outputs, so none is read as {nic or 'this pNIC'}'s")
                    return result
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
