"""NSX data path outputs: ESXi ``nsxdp-cli ens ...`` (Enhanced Data Path / ENS) and the NSX Edge CLI
``get physical-ports``.

Sources (nic-data-sources.md §6 "NSX bare-metal Edge", §7 "ENS/EDP path", §14 item 16) and captures:
``esxi_nsxdp-cli_ens_uplink_rss_list_icen.txt``, ``esxi_g_nsxdp-cli_ens_uplink_ring_get_icen_ens_intel-mfd.txt``,
``esxi_nsxdp-cli_ens_uplink_stats_get.txt``, ``esxi_nsxdp-cli_ens_port_list.txt``,
``esxi_nsxdp-cli_ens_flow-table_dump_geneve.txt``, ``nsx_edge_cli_get_physical-ports_vmxnet3_pmd_flattened.txt``.

``nsxdp-cli ens uplink ... -n vmnicX`` answers only for an uplink attached to the ENS data path, so a
successful per-uplink answer (ring sizes, an RSS engine row, uplink counters) records ``ens_enabled``
True on that vmnic, with the answering line as evidence. Tables without interface names (port list,
flow table) go to ``records`` only.
"""
from __future__ import annotations

import re
from typing import Any

from nicadvisor.parsers.base import CommandLine, ParseResult, is_rule, norm_pci, speed_mbps, to_bool, to_int
from nicadvisor.parsers.registration import register
from nicadvisor.parsers.table import ColumnSpec, failed_notes, read_tables
from nicadvisor.parsers.esxi.vsish import queue_lines, queue_stats, real_nic_name, record_queues

_NOT_SUPPORTED_RE = re.compile(r"not supported|invalid|unknown command|error|no such", re.I)


def _table(text: str, header_re: str) -> tuple[str | None, list[str]]:
    """The header line matching ``header_re`` and the data lines after its dashed rule (until a blank line)."""
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        if re.search(header_re, raw):
            rows = []
            j = i + 1
            if j < len(lines) and (is_rule(lines[j]) or re.fullmatch(r"\s*-{5,}\s*", lines[j])):
                j += 1
            for row in lines[j:]:
                if not row.strip():
                    break
                rows.append(row)
            return raw, rows
    return None, []


def _missing_nic_note(result: ParseResult, cmd: CommandLine) -> None:
    result.notes.append(f"{cmd.text!r} names no uplink (-n vmnicX): values kept in records only")


def _failed(text: str) -> bool:
    """True when the whole answer is an error message (no data line at all)."""
    body = [ln for ln in text.splitlines() if ln.strip()]
    return bool(body) and all(_NOT_SUPPORTED_RE.search(ln) for ln in body)


@register(r"^nsxdp-cli\s+ens\s+uplink\s+ring\s+get\b", "nsxdp-cli ens uplink ring get")
def parse_ens_ring_get(text: str, cmd: CommandLine) -> ParseResult:
    """``nsxdp-cli ens uplink ring get -n vmnicX``: ``Tx Ring Size: 2048`` / ``Rx Ring Size: 1024`` →
    ``tx_ring_size``/``rx_ring_size`` (descriptors) and ``ens_enabled`` True on vmnicX.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="nsxdp-cli ens uplink ring get")
    nic = real_nic_name(cmd.target)
    sizes: dict[str, tuple[int, str]] = {}
    for raw in text.splitlines():
        # A pasted string literal may carry escaped newlines ("Tx Ring Size: 2048\nRx Ring Size: 1024\n").
        for part in raw.split("\\n"):
            m = re.search(r"\b(Tx|Rx) Ring Size:\s*(\d+)", part, re.I)
            if m:
                sizes.setdefault(m.group(1).lower(), (int(m.group(2)), m.group(0)))
    if not sizes:
        result.notes.append(f"{cmd.text!r}: no 'Rx/Tx Ring Size:' line found")
        return result
    result.records.append({"kind": "ens uplink ring", "nic": nic,
                           **{f"{d}_ring_size": v for d, (v, _) in sizes.items()}})
    if not nic:
        _missing_nic_note(result, cmd)
        return result
    for d, (value, line) in sizes.items():
        result.pnic(nic, f"{d}_ring_size", value, line)
    result.pnic(nic, "ens_enabled", True, next(iter(sizes.values()))[1])
    return result


@register(r"^nsxdp-cli\s+ens\s+uplink\s+rss\s+list\b", "nsxdp-cli ens uplink rss list")
def parse_ens_rss_list(text: str, cmd: CommandLine) -> ParseResult:
    """``nsxdp-cli ens uplink rss list -n vmnicX``: one record per RSS engine (``ID Type PriQ NumQ h-Func
    h-Type keySz IndSz memAff SecQs``); at least one engine → ``rss`` True and ``ens_enabled`` True on vmnicX.
    Rows are split on whitespace (the header's indentation does not match the rows in the capture).
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="nsxdp-cli ens uplink rss list")
    nic = real_nic_name(cmd.target)
    header, rows = _table(text, r"\bID\s+Type\s+PriQ\s+NumQ\b")
    if header is None:
        note = "answer is an error message" if _failed(text) else "no RSS engine table header found"
        result.notes.append(f"{cmd.text!r}: {note}")
        return result
    engines = []
    for row in rows:
        parts = row.split()
        if len(parts) < 9 or to_int(parts[0]) is None:
            result.notes.append(f"rss list: skipped unreadable row {row.strip()!r}")
            continue
        engine = {"kind": "ens rss engine", "nic": nic, "id": to_int(parts[0]), "type": parts[1],
                  "primary_queue": to_int(parts[2]), "num_queues": to_int(parts[3]), "hash_func": to_int(parts[4]),
                  "hash_type": to_int(parts[5]), "key_size": to_int(parts[6]), "indirection_size": to_int(parts[7]),
                  "mem_affinity": to_int(parts[8]), "secondary_queues": [to_int(p) for p in parts[9:]],
                  "line": row.strip()}
        engines.append(engine)
    result.records.extend(engines)
    if engines and nic:
        result.pnic(nic, "rss", True, engines[0]["line"])
        result.pnic(nic, "ens_enabled", True, engines[0]["line"])
    elif engines:
        _missing_nic_note(result, cmd)
    return result


@register(r"^nsxdp-cli\s+ens\s+uplink\s+stats\s+get\b", "nsxdp-cli ens uplink stats get")
def parse_ens_uplink_stats(text: str, cmd: CommandLine) -> ParseResult:
    """``nsxdp-cli ens uplink stats get -n vmnicX``: ``Uplink Stats:`` counters (``rxPkts:``, ``txDrops:`` ...)
    and the driver-private per-queue lines into one record; the number of ``rxqN``/``txqN`` lines →
    ``rx_queues``/``tx_queues``; any counter read → ``ens_enabled`` True on vmnicX.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="nsxdp-cli ens uplink stats get")
    nic = real_nic_name(cmd.target)
    counters: dict[str, int] = {}
    first_line = ""
    for raw in text.splitlines():
        m = re.match(r"^\s*([A-Za-z][\w]*)\s*:\s+(-?\d+)\s*$", raw)
        if m:
            counters.setdefault(m.group(1), int(m.group(2)))
            first_line = first_line or raw.strip()
    queues = queue_stats(text)
    if not counters and not queues["rx"] and not queues["tx"]:
        result.notes.append(f"{cmd.text!r}: no uplink counter found")
        return result
    record_queues(result, "ens uplink stats", nic, counters, text)
    if not nic:
        _missing_nic_note(result, cmd)
        return result
    result.pnic(nic, "ens_enabled", True, first_line or queue_lines(text).get("rx", ""))
    return result


_FPO_NAME = re.compile(r"[A-Za-z][\w .-]*")
_FPO_VALUE = re.compile(r"-?\d+")


def _count(value: str) -> bool:
    return value.isdigit() and len(value) <= 20


#: ``nsxdp-cli ens fpo stats get [-l LCORE]`` table columns (capture
#: ``tests/parsers/captures/esxi_nsxdp-cli_ens_fpo_stats_get_-l_table_one_lcore_intel-mfd.txt``): one row per lcore.
FPO_COLUMNS: tuple[ColumnSpec, ...] = tuple(
    ColumnSpec(key, (key,), _count) for key in ("lcoreID", "hits", "markMismatched", "pnicMismatched",
                                                "delayMatching", "ephemeralFlows", "transientFlows"))


@register(r"^nsxdp-cli\s+ens\s+fpo\s+stats\s+get\b", "nsxdp-cli ens fpo stats get")
def parse_ens_fpo_stats(text: str, cmd: CommandLine) -> ParseResult:
    """``nsxdp-cli ens fpo stats get [-l LCORE] [--uplink vmnicX]``: the Flow Processing Offload counters, kept as
    records (no capability is read from them: what each counter proves is not documented publicly). Two layouts:
    the table ``lcoreID  hits  markMismatched  pnicMismatched  delayMatching  ephemeralFlows  transientFlows``, a
    dashed rule and one row per lcore (read with the shared table reader, columns found by the header's words:
    one record per lcore, ``{"kind": "ens fpo stats", "lcore", "counters"}``), or ``name: number`` lines (one record
    for the uplink the command names). The table names no uplink. Never raises."""
    result = ParseResult(family="nsxdp-cli ens fpo stats get")
    tables = read_tables(text, FPO_COLUMNS, ("lcoreID", "hits"))
    for table in tables:
        for row in table.rows:
            counters = {k: int(v) for k, v in row.values.items() if k != "lcoreID"}
            result.records.append({"kind": "ens fpo stats", "lcore": to_int(row.values.get("lcoreID")),
                                   "counters": counters, "line": row.line.strip()})
    result.notes.extend(failed_notes(result.family, tables))
    if result.records:
        return result
    counters: dict[str, int] = {}
    for raw in text.splitlines():
        # ``name: number`` split at its one colon (a regex whose name could end anywhere in the spaces before the
        # colon took minutes on a name followed by a megabyte of spaces)
        name, colon, value = raw.partition(":")
        name = name.strip()
        if (colon and ":" not in value and value[:1].isspace() and _FPO_NAME.fullmatch(name)
                and _FPO_VALUE.fullmatch(value.strip())):
            counters.setdefault(name, int(value.strip()))
    if not counters:
        result.notes.append(f"{cmd.text!r}: no FPO counter found")
        return result
    result.records.append({"kind": "ens fpo stats", "nic": real_nic_name(cmd.target), "counters": counters})
    return result


@register(r"^nsxdp-cli\s+ens\s+port\s+list\b", "nsxdp-cli ens port list")
def parse_ens_port_list(text: str, cmd: CommandLine) -> ParseResult:
    """``nsxdp-cli ens port list``: one record per ENS port (``portID ensPID TxQ RxQ hwMAC numMACs type
    Queue Placement(tx|rx)``). The rows name no vmnic, so no pNIC fact is recorded.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="nsxdp-cli ens port list")
    header, rows = _table(text, r"\bportID\s+ensPID\s+TxQ\s+RxQ\b")
    if header is None:
        result.notes.append(f"{cmd.text!r}: no ENS port table header found")
        return result
    for row in rows:
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\S+)\s*(.*)$", row)
        if not m:
            result.notes.append(f"port list: skipped unreadable row {row.strip()!r}")
            continue
        tx_place, _, rx_place = m.group(8).partition("|")
        result.records.append({
            "kind": "ens port", "port_id": int(m.group(1)), "ens_pid": int(m.group(2)), "tx_queues": int(m.group(3)),
            "rx_queues": int(m.group(4)), "hw_mac": m.group(5), "num_macs": int(m.group(6)), "type": m.group(7),
            "tx_placement": tx_place.split(), "rx_placement": rx_place.split(), "line": row.strip(),
        })
    if any(r["type"].upper() == "UPLINK" for r in result.records):
        result.notes.append("ENS uplink port(s) listed (ENS data path active on this host), but no vmnic is named")
    return result


_FLOW_COLS = ("ft", "dst_mac", "src_mac", "vlan", "src_port", "src_ip", "dst_ip", "proto", "vni",
              "l4_src_port_or_type", "l4_dst_port_or_code")


@register(r"^nsxdp-cli\s+ens\s+flow-table\s+dump\b", "nsxdp-cli ens flow-table dump")
def parse_ens_flow_table(text: str, cmd: CommandLine) -> ParseResult:
    """``nsxdp-cli ens flow-table dump [<lcore>]``: one record per flow-cache entry (``FT dstMAC srcMAC VLAN
    srcPort srcIP dstIP proto VNI srcPort/type dstPort/code Actions``); ``vni`` is the Geneve VNI.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="nsxdp-cli ens flow-table dump")
    header, rows = _table(text, r"^\s*FT\s+dstMAC\s+srcMAC\b")
    if header is None:
        result.notes.append(f"{cmd.text!r}: no flow table header found")
        return result
    for row in rows:
        parts = row.split(None, len(_FLOW_COLS))
        if len(parts) < len(_FLOW_COLS):
            result.notes.append(f"flow-table: skipped unreadable row {row.strip()!r}")
            continue
        rec: dict[str, Any] = {"kind": "ens flow", "line": row.strip()}
        for col, value in zip(_FLOW_COLS, parts):
            rec[col] = to_int(value) if col in ("vlan", "src_port", "proto", "vni") else value
        rec["actions"] = parts[len(_FLOW_COLS)].strip() if len(parts) > len(_FLOW_COLS) else ""
        result.records.append(rec)
    return result


# --- NSX Edge ------------------------------------------------------------------------------------

_EDGE_KEY_RE = re.compile(r"(?:^|(?<=\s))([A-Z][A-Z_]+)\s+:\s*")


def _edge_pci(text: str) -> str | None:
    """``0000:0b:00:00`` (Edge CLI, 2-digit function) → ``0000:0b:00.0``."""
    m = re.fullmatch(r"([0-9a-fA-F]{4}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})[:.]0*([0-7])", text.strip())
    return norm_pci(f"{m.group(1)}:{m.group(2)}:{m.group(3)}.{m.group(4)}") if m else norm_pci(text)


@register(r"^get\s+physical-ports?\b", "nsx edge get physical-ports")
def parse_edge_physical_ports(text: str, cmd: CommandLine) -> ParseResult:
    """NSX Edge ``get physical-ports``: ``Physical Port`` blocks of ``KEY : value`` (one per line, or all on
    one line in the flattened web copy). Per port (keyed by ``NAME``, e.g. ``fp-eth0``): ``driver``
    (DPDK PMD, e.g. ``rte_vmxnet3_pmd``), ``mac``, ``mtu``, ``link_up``, ``link_speed_mbps`` (Mbit/s, link up
    only), ``duplex``, ``rx_queues``/``tx_queues``, ``pci_address``, ``numa_node`` (``SOCKET``, -1 = unknown),
    ``tso``/``geneve_offload``/``vxlan_offload`` from ``OFFLOAD_CAPABILITIES``; a vmxnet3 PMD →
    ``is_virtual_uplink`` True.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="nsx edge get physical-ports")
    chunks = [c for c in re.split(r"Physical Port\b", text) if _EDGE_KEY_RE.search(c)]
    if not chunks:
        result.notes.append(f"{cmd.text!r}: no 'Physical Port' block found")
        return result
    for chunk in chunks:
        keys = list(_EDGE_KEY_RE.finditer(chunk))
        port: dict[str, str] = {}
        for i, m in enumerate(keys):
            end = keys[i + 1].start() if i + 1 < len(keys) else len(chunk)
            port.setdefault(m.group(1), " ".join(chunk[m.end():end].split()))
        name = port.get("NAME")
        result.records.append({"kind": "edge physical port", **port})
        if not name:
            result.notes.append("get physical-ports: a port block without NAME was skipped")
            continue

        def ev(key: str) -> str:
            return f"{key} : {port.get(key, '')}"

        driver = port.get("DRIVER") or None
        result.pnic(name, "driver", driver, ev("DRIVER"))
        if driver and "vmxnet3" in driver.lower():
            result.pnic(name, "is_virtual_uplink", True, ev("DRIVER"))
        mac = port.get("MAC", "")
        if re.fullmatch(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}", mac):
            result.pnic(name, "mac", mac.lower(), ev("MAC"))
        result.pnic(name, "mtu", to_int(port.get("MTU")), ev("MTU"))
        link = to_bool(port.get("LINK"))
        result.pnic(name, "link_up", link, ev("LINK"))
        if link:
            result.pnic(name, "link_speed_mbps", speed_mbps(port.get("SPEED")), ev("SPEED"))
            duplex = (port.get("DUPLEX") or "").lower()
            if duplex in ("full", "half"):
                result.pnic(name, "duplex", duplex, ev("DUPLEX"))
        result.pnic(name, "rx_queues", to_int(port.get("RX_QUEUE")), ev("RX_QUEUE"))
        result.pnic(name, "tx_queues", to_int(port.get("TX_QUEUE")), ev("TX_QUEUE"))
        if port.get("PCI"):
            result.pnic(name, "pci_address", _edge_pci(port["PCI"]), ev("PCI"))
        socket = to_int(port.get("SOCKET"))
        if socket is not None and socket >= 0:
            result.pnic(name, "numa_node", socket, ev("SOCKET"))
        if "OFFLOAD_CAPABILITIES" in port:
            caps = port["OFFLOAD_CAPABILITIES"].upper().split()
            line = ev("OFFLOAD_CAPABILITIES")
            result.pnic(name, "tso", "TX_TCP_TSO" in caps, line)
            result.pnic(name, "geneve_offload", any("GENEVE" in c for c in caps), line)
            result.pnic(name, "vxlan_offload", any("VXLAN" in c for c in caps), line)
    return result
