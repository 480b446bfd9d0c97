"""ESXi VMkernel interfaces (vmknics): ``esxcfg-vmknic -l``, ``esxcli network ip interface list`` and
``esxcli network ip interface ipv4 get``.

Facts recorded per vmknic (keys ``vmk0``, ``vmk1``…, fields of
:class:`nicadvisor.model.VmkernelNic`): ``mtu`` (bytes), ``tso_mss`` (bytes), ``netstack``,
``portgroup``, ``switch``, ``addresses`` (IPv4 and IPv6 rows of one vmknic merged, as printed, no
prefix length) and ``is_tep`` (recorded True only when the netstack is ``vxlan`` or an
``nsx-overlay``-like stack — the netstack NSX puts its TEPs on, nic-data-sources.md §5; otherwise left
unknown). Sources: nic-data-sources.md §5, captures ``esxi_esxcfg-vmknic-l_*``,
``esxi_g_esxcfg-vmknic_-l_netstack_esxi60_sio4.txt``, ``esxi_esxcli_ip_interface_list_esxi9_urpf.txt``.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, kv_lines, to_int
from nicadvisor.parsers.framing import is_command_echo
from nicadvisor.parsers.registration import register
from nicadvisor.parsers.table import ColumnSpec, failed_notes, read_tables

_TEP_NETSTACK_RE = re.compile(r"vxlan|overlay", re.I)
_UNSET = {"", "N/A", "n/a", "-", "None"}


def is_tep_netstack(netstack: str | None) -> bool | None:
    """True for a TEP netstack (``vxlan``, ``nsx-overlay``…), None when it says nothing about TEPs."""
    if netstack and _TEP_NETSTACK_RE.search(netstack):
        return True
    return None


# --- esxcfg-vmknic -l -----------------------------------------------------------------------------

_IP_TEXT_RE = re.compile(r"[0-9A-Fa-f:.%]{2,64}")
_DOTTED_RE = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_MAC_TEXT_RE = re.compile(r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}")
_NA = "N/A"

VMKNIC_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("iface", ("Interface",), lambda v: bool(re.fullmatch(r"vmk\d{1,5}", v))),
    ColumnSpec("pg", ("Port Group/DVPort/Opaque Network", "Port Group/DVPort", "Port Group")),
    ColumnSpec("family", ("IP Family",), lambda v: v in ("IPv4", "IPv6")),
    ColumnSpec("addr", ("IP Address",), lambda v: v == _NA or ("." in v or ":" in v) and bool(_IP_TEXT_RE.fullmatch(v))),
    ColumnSpec("mask", ("Netmask",), lambda v: v == _NA or bool(_DOTTED_RE.fullmatch(v)) or (v.isdigit() and len(v) <= 3)),
    ColumnSpec("bcast", ("Broadcast",), lambda v: v == _NA or bool(_DOTTED_RE.fullmatch(v))),
    ColumnSpec("mac", ("MAC Address",), lambda v: bool(_MAC_TEXT_RE.fullmatch(v))),
    ColumnSpec("mtu", ("MTU",), lambda v: v.isdigit() and len(v) <= 6),
    ColumnSpec("mss", ("TSO MSS",), lambda v: v.isdigit() and len(v) <= 6),
    ColumnSpec("enabled", ("Enabled",), lambda v: v.lower() in ("true", "false")),
    ColumnSpec("type", ("Type",)),
    ColumnSpec("netstack", ("NetStack",), lambda v: bool(re.fullmatch(r"[A-Za-z][\w.-]{0,63}", v)), strong=False),
)
"""``esxcfg-vmknic -l`` columns (nic-data-sources.md §5; captures ``esxi_esxcfg-vmknic-l_*``): Interface, Port
Group/DVPort/Opaque Network (free text), IP Family, IP Address, Netmask (dotted or an IPv6 prefix length),
Broadcast (empty on IPv6 rows), MAC Address, MTU, TSO MSS, Enabled, Type (``STATIC``, ``STATIC, PREFERRED``:
free text), NetStack (since ESXi 6.0)."""


def _vmknic_row_ok(v) -> bool:
    return {"iface", "family", "mac", "mtu", "mss"} <= v.keys()


def _stop(line: str) -> bool:
    return is_command_echo(line) is not None


@register(r"^esxcfg-vmknic\s+-l\b", "esxcfg-vmknic -l")
def parse_esxcfg_vmknic(text: str, cmd: CommandLine) -> ParseResult:
    """Parse the ``esxcfg-vmknic -l`` table (one row per vmknic and IP family) with the shared table reader
    (:data:`VMKNIC_COLUMNS`): rows aligned with the header are cut at its offsets; misaligned ones
    (``esxi_esxcfg-vmknic-l_mtu_9000.txt``, vmk1) are split by the shapes of their values (the IPv6 rows' empty
    Broadcast and the two-word ``STATIC, PREFERRED`` Type included). Records ``mtu``, ``tso_mss``, ``netstack``,
    ``addresses`` (all rows of the vmknic, ``N/A`` skipped), ``portgroup`` (a purely numeric value is a DVPort ID:
    kept out of ``portgroup`` and put in ``records`` as ``{"kind": "vmknic_dvport", "vmknic", "dvport"}``) and
    ``is_tep``. A row that is not read is noted with its line number. Never raises.
    """
    result = ParseResult(family="esxcfg-vmknic -l")
    tables = read_tables(text, VMKNIC_COLUMNS, ("iface", "pg", "family"), row_ok=_vmknic_row_ok, stop=_stop)[:1]
    if not tables:
        result.notes.append("esxcfg-vmknic -l: no 'Interface  Port Group…' header line found")
        return result
    (table,) = tables
    has_netstack = "netstack" in table.layout.keys
    result.notes.extend(failed_notes(result.family, [table]))
    rows: dict[str, list[tuple[dict[str, str], str]]] = {}
    for row in table.rows:
        rows.setdefault(row.values["iface"], []).append((row.values, row.line))
    for name, items in rows.items():
        raw = "\n".join(line.rstrip() for _, line in items)
        first, first_line = items[0]
        addresses = [v["addr"] for v, _ in items if v.get("addr", "") not in _UNSET]
        result.vmknic(name, "addresses", addresses, raw)
        result.vmknic(name, "mtu", to_int(first.get("mtu")), first_line)
        result.vmknic(name, "tso_mss", to_int(first.get("mss")), first_line)
        pg = first.get("pg", "").strip()
        if pg.isdigit():
            result.records.append({"kind": "vmknic_dvport", "vmknic": name, "dvport": pg})
        elif pg and pg not in _UNSET:
            result.vmknic(name, "portgroup", pg, first_line)
        if has_netstack:
            netstack = first.get("netstack")
            if netstack is None:
                result.notes.append(f"esxcfg-vmknic -l: Type/NetStack of {name} not understood")
            if netstack and netstack not in _UNSET:
                result.vmknic(name, "netstack", netstack, first_line)
                result.vmknic(name, "is_tep", is_tep_netstack(netstack), first_line)
    return result


# --- esxcli network ip interface list -------------------------------------------------------------

_VMK_RE = re.compile(r"^vmk\d+$")


@register(r"^esxcli network ip interface list\b", "esxcli network ip interface list")
def parse_ip_interface_list(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``esxcli network ip interface list`` key/value blocks (one per vmknic).

    Keys read by name (unknown keys such as ESXi 9's ``URPF:`` are ignored, §14 item 4): ``Name``
    (only ``vmkN`` names start a block, so other outputs in the text are not mistaken for vmknics),
    ``MTU`` → ``mtu``, ``TSO MSS`` → ``tso_mss``, ``Netstack Instance`` → ``netstack`` (+ ``is_tep``),
    ``Portgroup`` → ``portgroup``, ``VDS Name`` (when not ``N/A``) else ``Portset`` (unless it is an
    internal ``DvsPortset-N``) → ``switch``. Never raises.
    """
    result = ParseResult(family="esxcli network ip interface list")
    current: str | None = None
    portsets: dict[str, tuple[str, str]] = {}
    for _indent, key, value, raw in kv_lines(text):
        if key == "Name":
            current = value if _VMK_RE.match(value) else None
            continue
        if current is None or value in _UNSET:
            continue
        if key == "MTU":
            result.vmknic(current, "mtu", to_int(value), raw)
        elif key == "TSO MSS":
            result.vmknic(current, "tso_mss", to_int(value), raw)
        elif key == "Netstack Instance":
            result.vmknic(current, "netstack", value, raw)
            result.vmknic(current, "is_tep", is_tep_netstack(value), raw)
        elif key == "Portgroup":
            result.vmknic(current, "portgroup", value, raw)
        elif key == "VDS Name":
            result.vmknic(current, "switch", value, raw)
        elif key == "Portset" and not value.startswith("DvsPortset"):
            portsets.setdefault(current, (value, raw))
    # Portset (printed before VDS Name) names the standard vSwitch; a VDS Name wins when present.
    for vmk, (portset, raw) in portsets.items():
        result.vmknic(vmk, "switch", portset, raw)
    if not result.vmknics:
        result.notes.append("esxcli network ip interface list: no 'Name: vmkN' block found")
    return result


# --- esxcli network ip interface ipv4 get ---------------------------------------------------------------------

IPV4_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("name", ("Name",), lambda v: bool(_VMK_RE.match(v))),
    ColumnSpec("address", ("IPv4 Address",), lambda v: bool(_DOTTED_RE.fullmatch(v))),
    ColumnSpec("netmask", ("IPv4 Netmask",), lambda v: bool(_DOTTED_RE.fullmatch(v))),
    ColumnSpec("broadcast", ("IPv4 Broadcast",), lambda v: bool(_DOTTED_RE.fullmatch(v))),
    ColumnSpec("type", ("Address Type",), lambda v: v.upper() in ("STATIC", "DHCP", "NONE")),
    ColumnSpec("gateway", ("Gateway",), lambda v: bool(_DOTTED_RE.fullmatch(v))),
    ColumnSpec("dhcp_dns", ("DHCP DNS",), lambda v: v.lower() in ("true", "false")),
)
"""``esxcli network ip interface ipv4 get`` columns: Name, IPv4 Address, IPv4 Netmask, IPv4 Broadcast, Address Type,
Gateway (ESXi 6.0 and later; absent in 5.x), DHCP DNS."""


@register(r"^esxcli network ip interface ipv4 get\b", "esxcli network ip interface ipv4 get")
def parse_ip_interface_ipv4_get(text: str, cmd: CommandLine) -> ParseResult:
    """Parse the ``esxcli network ip interface ipv4 get [-i vmkN]`` table with the shared table reader
    (:data:`IPV4_COLUMNS`): columns are found by the header's words, so the 5.x layout without ``Gateway``
    (captures ``esxi5_vcap5_…_old_layout_single_spaced_elatov.txt``, ``esxi55u3_…_no_gateway_…_jiyiyun.txt``), a
    table indented as a block (``esxi_nsxt2_…_navinrio.txt``) and rows whose values are not under their header
    (``esxi_vsan_doc_…_misaligned_columns_broadcom_techdocs.txt``, split by the values' shapes) are all read.
    Records ``addresses`` (the IPv4 address, as printed) per vmknic; a row that is not read is noted with its line
    number. Never raises."""
    result = ParseResult(family="esxcli network ip interface ipv4 get")
    tables = read_tables(text, IPV4_COLUMNS, ("name", "address"), row_ok=lambda v: {"name", "address"} <= v.keys())
    for table in tables:
        for row in table.rows:
            result.vmknic(row.values["name"], "addresses", [row.values["address"]], row.line)
    result.notes.extend(failed_notes(result.family, tables))
    if not result.vmknics:
        result.notes.append("esxcli network ip interface ipv4 get: no 'Name  IPv4 Address …' table found")
    return result
