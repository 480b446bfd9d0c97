"""ESXi VMkernel interfaces (vmknics): ``esxcfg-vmknic -l`` and ``esxcli network ip interface list``.

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
from nicadvisor.parsers.registry import register

_TEP_NETSTACK_RE = re.compile(r"vxlan|overlay", re.I)
_UNSET = {"", "N/A", "n/a", "-", "None"}


def is_tep_netstack(netstack: str | None) -> bool | None:
    """True for a TEP netstack (``vxlan``, ``nsx-overlay``…), None when it says nothing about TEPs."""
    if netstack and _TEP_NETSTACK_RE.search(netstack):
        return True
    return None


# --- esxcfg-vmknic -l -----------------------------------------------------------------------------

_HEADER_RE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?Interface\s+Port Group", re.I)
_MAC = r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}"
# Columns are read from the right-hand anchors (family, MAC, numbers) rather than from header offsets:
# rows can be misaligned (esxi_esxcfg-vmknic-l_mtu_9000.txt, vmk1) and the IPv6 rows have an empty
# Broadcast column; ``Type`` may hold "STATIC, PREFERRED".
_ROW_RE = re.compile(
    r"^\s*(?P<iface>\S+)\s+(?:(?P<pg>.*?)\s+)?(?P<family>IPv4|IPv6)\s+(?P<addr>\S+)\s+(?P<mask>\S+)\s+"
    r"(?:(?P<bcast>\S+)\s+)?(?P<mac>" + _MAC + r")\s+(?P<mtu>\d+)\s+(?P<mss>\d+)\s+"
    r"(?P<enabled>true|false)\s+(?P<rest>.*?)\s*$",
    re.I,
)
_PROMPT_LINE_RE = re.compile(r"^\s*\[[^\]]*\]")
# "STATIC", "DHCP", "NONE", "STATIC, PREFERRED" (upper case) then the NetStack name.
_TYPE_NETSTACK_RE = re.compile(r"^(?P<type>[A-Z_]+(?:,\s*[A-Z_]+)*)(?:\s+(?P<netstack>\S+))?$")


@register(r"^esxcfg-vmknic\s+(?:-l|--list)\b", "esxcfg-vmknic -l")
def parse_esxcfg_vmknic(text: str, cmd: CommandLine) -> ParseResult:
    """Parse the ``esxcfg-vmknic -l`` table (one row per vmknic and IP family).

    Columns: Interface, Port Group/DVPort/Opaque Network, IP Family, IP Address, Netmask, Broadcast,
    MAC Address, MTU, TSO MSS, Enabled, Type, NetStack (NetStack since ESXi 6.0). Records ``mtu``,
    ``tso_mss``, ``netstack``, ``addresses`` (all rows of the vmknic, ``N/A`` skipped), ``portgroup``
    (a purely numeric value is a DVPort ID: kept out of ``portgroup`` and put in ``records`` as
    ``{"kind": "vmknic_dvport", "vmknic", "dvport"}``) and ``is_tep``. Never raises.
    """
    result = ParseResult(family="esxcfg-vmknic -l")
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if _HEADER_RE.match(ln)), None)
    if start is None:
        result.notes.append("esxcfg-vmknic -l: no 'Interface  Port Group…' header line found")
        return result
    has_netstack = "netstack" in lines[start].lower()
    rows: dict[str, list[tuple[re.Match[str], str]]] = {}
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        if _PROMPT_LINE_RE.match(line) or _HEADER_RE.match(line):
            break
        m = _ROW_RE.match(line)
        if not m:
            result.notes.append(f"esxcfg-vmknic -l: row not understood: {line.strip()!r}")
            continue
        rows.setdefault(m.group("iface"), []).append((m, line))
    for name, items in rows.items():
        raw = "\n".join(line.rstrip() for _, line in items)
        first, first_line = items[0]
        addresses = [m.group("addr") for m, _ in items if m.group("addr") not in _UNSET]
        result.vmknic(name, "addresses", addresses, raw)
        result.vmknic(name, "mtu", to_int(first.group("mtu")), first_line)
        result.vmknic(name, "tso_mss", to_int(first.group("mss")), first_line)
        pg = (first.group("pg") or "").strip()
        if pg.isdigit():
            result.records.append({"kind": "vmknic_dvport", "vmknic": name, "dvport": pg})
        elif pg and pg not in _UNSET:
            result.vmknic(name, "portgroup", pg, first_line)
        if has_netstack:
            tm = _TYPE_NETSTACK_RE.match(first.group("rest"))
            netstack = tm.group("netstack") if tm else None
            if tm is None:
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
