"""ESXi ``esxcli network nic …`` parsers: ``list``, ``get``, ``tso get``, ``ring current|preset get``,
``stats get`` and ``pauseParams list`` (also ``localcli`` and the PowerCLI ``$esxcli.network.nic.list.Invoke()``
record output, which the registry normalises to the same command text), and the rows of ``list`` and ``get``
answered over the vSphere API (:func:`nic_list_facts`, :func:`nic_get_facts`: the same facts as their text).

Formats and traps are those of ``shared/design/research/nic-data-sources.md`` §2 (``nic get`` ``Driver Info:``
block), §4 (``nic list`` columns, Speed in Mbit/s, pseudo uplinks), §14 items 2, 4, 18, 20. Every parser is a
pure function ``fn(text, cmd) -> ParseResult`` that never raises on malformed text.

:func:`record_nic_row` is shared with :mod:`nicadvisor.parsers.esxi.esxcfg_nics` (same facts, other layout).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping

from nicadvisor.parsers.base import (
    CommandLine,
    ParseResult,
    columns_from_header,
    cut,
    is_rule,
    norm_pci,
    speed_mbps,
    to_bool,
    to_int,
)
from nicadvisor.parsers.framing import is_command_echo
from nicadvisor.parsers.pci_address import looks_like_pci, normalise_pci
from nicadvisor.parsers.registration import register, register_rows
from nicadvisor.parsers.rows import esxcli_api_family, norm_key, norm_row, row_line, text as text_of
from nicadvisor.parsers.table import ColumnSpec, Table, failed_notes, layout_from_specs, read_row, read_tables

# --- shared helpers (also used by esxcfg_nics) -------------------------------------------------------

NAME_RE = re.compile(r"^(?:vmnic\d+|vusb\d+|[A-Za-z][\w.-]*\d)$")
"""An ESXi uplink name (``vmnic0``, ``vmnic1000202``, Dell iDRAC ``vusb0``)."""

MAC_RE = re.compile(r"^(?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$")
MACISH = r"(?:[0-9A-Fa-fXx]{2}:){5}[0-9A-Fa-fXx]{2}"
"""A MAC as printed, also with author-masked octets (``70:5a:0f:XX:XX:XX``)."""


_UNKNOWN = {"", "n/a", "na", "-", "none", "unknown"}
_VIRTUAL_DRIVERS = {"nvmxnet3", "vmxnet3"}


def clean(value: str | None) -> str | None:
    """``value`` stripped, or None for empty/``N/A``/``-``/``None``/``Unknown`` (never a value, §14)."""
    if value is None:
        return None
    v = value.strip()
    return None if v.lower() in _UNKNOWN else v


def valid_mac(value: str | None) -> str | None:
    """A MAC in lower case, or None for masked (``XX``), all-zero (anonymised) or malformed text."""
    v = clean(value)
    if not v or not MAC_RE.match(v) or set(v.replace(":", "")) == {"0"}:
        return None
    return v.lower()


def record_nic_row(result: ParseResult, row: Mapping[str, str | None], line: str) -> str | None:
    """Record the facts of one uplink row as pNIC facts; returns the uplink name or None if unusable.

    ``row`` maps ``name``, ``pci``, ``driver``, ``admin``, ``link``, ``speed``, ``duplex``, ``mac``, ``mtu``,
    ``description`` (any may be missing) to the text as printed. Recorded fields: ``pci_address``
    (``0000:bb:dd.f``, :func:`~nicadvisor.parsers.pci_address.normalise_pci`; an ambiguous address such as a
    short ``bus:slot`` is kept as written in ``records`` with a note), ``is_physical`` (True with a PCI address,
    False for ``Pseudo``/``vusbN``),
    ``driver`` (as printed, ``_ens`` kept), ``admin_up``, ``link_up``, ``link_speed_mbps`` (int Mbit/s,
    only when the link is up: a down port's speed column is stale, §14 item 2), ``duplex`` (``"full"`` /
    ``"half"``, only when the link is up), ``mac`` (lower case; masked/all-zero MACs skipped), ``mtu``
    (bytes), ``description`` and ``is_virtual_uplink`` (True for vmxnet3 uplinks of nested hosts, §14 item 20).
    """
    name = clean(row.get("name"))
    if not name or not NAME_RE.match(name):
        return None
    pci_text = (row.get("pci") or "").strip()
    pci = normalise_pci(pci_text)
    if pci.normalised:
        result.pnic(name, "pci_address", pci.normalised, line)
        result.pnic(name, "is_physical", True, line)
    elif pci_text.lower() == "pseudo" or name.startswith("vusb"):
        result.pnic(name, "is_physical", False, line)
    elif pci.is_address:  # kept as written, never dropped with the row
        result.pnic(name, "is_physical", True, line)
        result.notes.append(f"{result.family}: {name}: PCI address {pci.as_written!r} kept as written ({pci.note})")
        result.records.append({"family": result.family, "nic": name,
                               "fields": {"PCI address as written": pci.as_written, "PCI note": pci.note}})
    driver = clean(row.get("driver"))
    result.pnic(name, "driver", driver, line)
    result.pnic(name, "admin_up", to_bool(row.get("admin")), line)
    link = to_bool(row.get("link"))
    result.pnic(name, "link_up", link, line)
    if link:
        speed = speed_mbps(row.get("speed"))
        if speed:
            result.pnic(name, "link_speed_mbps", speed, line)
        duplex = (clean(row.get("duplex")) or "").lower()
        if duplex in ("full", "half"):
            result.pnic(name, "duplex", duplex, line)
    result.pnic(name, "mac", valid_mac(row.get("mac")), line)
    mtu = to_int(row.get("mtu"))
    if mtu and mtu > 0:
        result.pnic(name, "mtu", mtu, line)
    desc = clean(row.get("description"))
    if desc and set(desc.lower().split()) != {"unknown"}:
        result.pnic(name, "description", desc, line)
    if (driver and driver.removesuffix("_ens") in _VIRTUAL_DRIVERS) or "vmxnet3" in (desc or "").lower():
        result.pnic(name, "is_virtual_uplink", True, line)
    return name


def table_after(lines: list[str], header_index: int) -> list[tuple[int, str]]:
    """The (index, line) rows of a table whose header is ``lines[header_index]``: dashed rules skipped,
    ending at the first blank or prompt line (the next command's output starts there)."""
    rows = []
    for i in range(header_index + 1, len(lines)):
        line = lines[i]
        if is_rule(line):
            continue
        if not line.strip() or is_command_echo(line) is not None:
            break
        rows.append((i, line))
    return rows


def rule_after(lines: list[str], header_index: int) -> str | None:
    """The dashed rule line right under a header, or None."""
    if header_index + 1 < len(lines) and is_rule(lines[header_index + 1]):
        return lines[header_index + 1]
    return None


def _esxcli_error(text: str, result: ParseResult) -> bool:
    """Add a note for an esxcli ``ERROR:`` answer (``Vmnic specified doesn't exist``); True if one was seen."""
    for line in text.splitlines():
        if re.match(r"^\s*(?:ERROR|Error):", line):
            result.notes.append(f"esxcli reported an error: {line.strip()}")
            return True
    return False


# --- the uplink table of esxcli network nic list / esxcfg-nics -l / nicinfo.sh -------------------------------

_MAC_TEXT_RE = re.compile(MACISH)
_SPEED_TEXT_RE = re.compile(r"\d{1,7}(?:Mbps)?")
_WORD_TEXT_RE = re.compile(r"[A-Za-z][\w.-]{0,63}")


def _one_of(*words: str):
    allowed = {w.lower() for w in words}
    return lambda v: v.lower() in allowed


NIC_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("name", ("Name",), lambda v: bool(NAME_RE.match(v))),
    ColumnSpec("pci", ("PCI Device", "PCI"), lambda v: v.lower() in ("pseudo", "n/a") or looks_like_pci(v)),
    ColumnSpec("driver", ("Driver",), lambda v: bool(_WORD_TEXT_RE.fullmatch(v)), strong=False),
    ColumnSpec("admin", ("Admin Status",), _one_of("Up", "Down")),
    ColumnSpec("link", ("Link Status", "Link"), _one_of("Up", "Down")),
    ColumnSpec("speed", ("Speed",), lambda v: v.upper() == "N/A" or bool(_SPEED_TEXT_RE.fullmatch(v))),
    ColumnSpec("duplex", ("Duplex",), _one_of("Full", "Half", "N/A")),
    ColumnSpec("mac", ("MAC Address",), lambda v: v.upper() == "N/A" or bool(_MAC_TEXT_RE.fullmatch(v))),
    ColumnSpec("mtu", ("MTU",), lambda v: v.isdigit() and len(v) <= 6),
    ColumnSpec("description", ("Description",)),
)
"""The columns of every generation of the uplink table, by header label: ``esxcfg-nics -l`` (``Name PCI Driver
Link Speed Duplex MAC Address MTU Description``, speed ``25000Mbps``, nic-data-sources.md §4), ESXi 5.x
``esxcli network nic list`` / nicinfo.sh (``Link``, no ``Admin Status``: fixture
``vm-support/bundle_commands_nicinfo.sh.txt_head11_be2net_esxi5x_elatov.txt``) and 6.x–9.x (``Admin Status
Link Status``, speed in Mbit/s without unit: ``esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt``)."""

NIC_HEADER_KEYS = ("name", "pci", "driver", "link", "mac")
"""Keys a header must hold to be an uplink table (``esxcfg-nics -e`` has Name/Driver/MAC but no Link or PCI)."""


def _with_pci_label(label: str, drop: tuple[str, ...] = ()) -> tuple[ColumnSpec, ...]:
    return tuple(ColumnSpec(c.key, (label,), c.shape, c.strong) if c.key == "pci" else c
                 for c in NIC_COLUMNS if c.key not in drop)


ESXCLI_COLUMNS = _with_pci_label("PCI Device")
"""``esxcli network nic list`` / nicinfo.sh: the PCI column is headed ``PCI Device`` (so that another command's
table in the same text, headed ``PCI``, is not read as this one's)."""
ESXCFG_L_COLUMNS = _with_pci_label("PCI", drop=("admin",))
"""``esxcfg-nics -l``: the PCI column is headed ``PCI``; no Admin Status column (§4)."""

def nic_row_ok(values: Mapping[str, str]) -> bool:
    """A table row is an uplink row when it names an uplink and has a link state or a PCI address."""
    return bool(NAME_RE.match(values.get("name", ""))) and ("link" in values or "pci" in values)


_UPLINK_WORD_RE = re.compile(r"^(vmnic\d{1,4})\b")


def note_failed_rows(result: ParseResult, tables: list[Table]) -> None:
    """One note per table row that was not read: ``"<family>: line N: row not understood: '<row>'"``. An uplink the
    row names (``vmnic1  0000:4b:00.1 icen  Up  25000M``, cut off) is still listed, with no facts: the host then
    has a pNIC whose link and MTU are unknown instead of one pNIC fewer (a lost row never makes a host look
    complete)."""
    result.notes.extend(failed_notes(result.family, tables))
    for table in tables:
        for _line_no, raw in table.failed:
            named = _UPLINK_WORD_RE.match(raw.strip())
            if named:
                result.pnics.setdefault(named.group(1), {})


#: At most this many lines are tried as header-less uplink rows (a host has a few dozen uplinks at most): past it a
#: hostile text of millions of name-like lines would cost minutes, as each try splits the line by value shapes.
MAX_HEADERLESS_TRIES = 4096


def headerless_rows(text: str, order: tuple[ColumnSpec, ...], ok, skip: set[int],
                    notes: list[str] | None = None) -> list[tuple[int, dict[str, str], str]]:
    """``(line_no, values, line)`` of the lines (other than those in ``skip``) that read as rows of a table
    without its header (``| grep vmnic5``), split by shapes in the command's column ``order`` and kept when
    ``ok(values)``. Only lines whose first word is an uplink name (:data:`NAME_RE`) are tried, at most
    :data:`MAX_HEADERLESS_TRIES` of them (then a note goes to ``notes``)."""
    layout = layout_from_specs(order)
    out = []
    tries = 0
    for i, raw in enumerate(text.splitlines(), start=1):
        if i in skip or not raw.strip() or not NAME_RE.match(raw.split(None, 1)[0]):
            continue
        tries += 1
        if tries > MAX_HEADERLESS_TRIES:
            if notes is not None:
                notes.append(f"more than {MAX_HEADERLESS_TRIES} lines look like uplink rows: the rest were not read")
            break
        row = read_row(raw, layout, i)
        if row is not None and ok(row.values):
            out.append((i, row.values, raw))
    return out


def table_lines(tables: list[Table]) -> set[int]:
    """Line numbers of the headers, rows and failed rows of ``tables``."""
    used: set[int] = set()
    for t in tables:
        used.add(t.layout.line_no)
        used.update(r.line_no for r in t.rows)
        used.update(n for n, _raw in t.failed)
    return used


def _list_headerless_ok(v: Mapping[str, str]) -> bool:
    pci = v.get("pci", "")
    return (nic_row_ok(v) and (normalise_pci(pci).normalised is not None or pci.lower() == "pseudo")
            and {"link", "mac", "mtu"} <= v.keys())


_POWERCLI_KEY_RE = re.compile(r"^\s*(AdminStatus|Description|Driver|Duplex|Link|LinkStatus|MACAddress|MTU|Name|"
                              r"PCIDevice|Speed)\s+:\s?(.*?)\s*$")  # PowerCLI pads keys: "Name        : vmnic0"
_POWERCLI_FIELDS = {
    "Name": "name", "PCIDevice": "pci", "Driver": "driver", "AdminStatus": "admin", "LinkStatus": "link",
    "Speed": "speed", "Duplex": "duplex", "MACAddress": "mac", "MTU": "mtu", "Description": "description",
}


@register(r"^esxcli network nic list\b", "esxcli network nic list")
def parse_nic_list(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli network nic list`` (ESXi 5.x-9.0, ``localcli``) and PowerCLI ``$esxcli.network.nic.list.Invoke()``.

    The table is read by :func:`nicadvisor.parsers.table.read_tables` with :data:`NIC_COLUMNS`: columns are found
    from the header (5.x ``Link`` without ``Admin Status``, 6.x+ ``Admin Status  Link Status``; missing columns
    stay unknown, extra ones are ignored), rows are cut at the per-column dashed rule's offsets when aligned, else
    split by the shapes of their values (re-spaced single-space columns, ``unattributed_smtx_…_respaced.txt``;
    flattened copies); a single long rule (6.7 ``localcli``, §4) and leading TABs are fine. A row that is not
    read is noted with its line number and the rest kept. Header-less rows (``| grep vmnic``) are read in the
    command's column order when they hold a PCI address, link state, MAC and MTU. PowerCLI prints ``Key : Value``
    records (``esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt``). Facts per row: see
    :func:`record_nic_row`. Never raises.
    """
    result = ParseResult(family="esxcli network nic list")
    tables = read_tables(text, ESXCLI_COLUMNS, NIC_HEADER_KEYS, row_ok=nic_row_ok)
    for table in tables:
        for row in table.rows:
            if record_nic_row(result, row.values, row.line) is None:
                table.failed.append((row.line_no, row.line))
    note_failed_rows(result, tables)
    if not tables:
        for _n, values, raw in headerless_rows(text, ESXCLI_COLUMNS, _list_headerless_ok, set(), result.notes):
            record_nic_row(result, values, raw)
        if not result.pnics:
            _parse_powercli_records(text.splitlines(), result)
    if not result.pnics:
        _esxcli_error(text, result)
        result.notes.append("esxcli network nic list: no uplink table or records found")
    return result


def _parse_powercli_records(lines: list[str], result: ParseResult) -> None:
    """PowerCLI/esxcli-over-API records: ``Key : Value`` lines, one block per uplink, blank-line separated."""
    block: dict[str, str] = {}
    block_lines: list[str] = []

    def flush() -> None:
        if "PCIDevice" in block or "AdminStatus" in block:  # a nic list record, not some other object
            record_nic_row(result, _record_fields(block), "\n".join(block_lines))
        block.clear()
        block_lines.clear()

    for raw in lines:
        m = _POWERCLI_KEY_RE.match(raw)
        if not m:
            if not raw.strip():
                flush()
            continue
        if m.group(1) in block:
            flush()
        block[m.group(1)] = m.group(2)
        block_lines.append(raw.rstrip())
    flush()


#: A record's field (PowerCLI key or API field name, :func:`~nicadvisor.parsers.rows.norm_key`) → the
#: :data:`NIC_COLUMNS` key the table is read by.
_RECORD_FIELDS = {norm_key(k): v for k, v in _POWERCLI_FIELDS.items()}


def _record_fields(record: Mapping[str, Any]) -> dict[str, str]:
    """A PowerCLI record or an API row of ``nic list`` as the values of a table row (``{"name": "vmnic0", "pci":
    …}``): text values only; ``Link`` (ESXi 5.x) when there is no ``LinkStatus``."""
    n = norm_row(record)
    row = {field: v for key, field in _RECORD_FIELDS.items() if isinstance(v := n.get(key), str)}
    if not row.get("link") and isinstance(n.get("link"), str):
        row["link"] = n["link"]
    return row


@register_rows(("network", "nic", "list"))
def nic_list_facts(rows: Iterable[Mapping[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """``network nic list`` rows answered over the vSphere API (``Name``, ``PCIDevice``, ``Driver``,
    ``AdminStatus``, ``LinkStatus`` or ``Link``, ``Speed`` Mbit/s, ``Duplex``, ``MACAddress``, ``MTU`` bytes,
    ``Description``: the field names of the PowerCLI records :func:`parse_nic_list` reads, capture
    ``esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt``) → the facts of :func:`record_nic_row`. A row that is
    not an uplink row is a note. Never raises."""
    result = ParseResult(family=esxcli_api_family(("network", "nic", "list")))
    for row in rows:
        if record_nic_row(result, _record_fields(row), row_line(row)) is None:
            result.notes.append(f"esxcli network nic list (API): row not understood: {row_line(row)!r}")
    return result


# --- esxcli network nic get -n vmnicX --------------------------------------------------------------------

_GET_KEYS = (
    "Advertised Auto Negotiation", "Advertised Link Modes", "Auto Negotiation", "Backing DPUId", "Cable Type",
    "Current Message Level", "Driver Info", "Bus Info", "Driver", "Firmware Version", "Version",
    "Link Detected", "Link Status", "Name", "PHYAddress", "Pause Autonegotiate", "Pause RX", "Pause TX",
    "Supported Ports", "Supports Auto Negotiation", "Supports Pause", "Supports Wakeon", "Transceiver",
    "Virtual Address", "Wakeon", "Speed", "Duplex", "MTU",
)
_GET_SPECIFIC = frozenset(_GET_KEYS) - {"Name", "Driver", "Version", "Speed", "Duplex", "MTU", "Firmware Version"}
"""Keys only ``nic get`` prints; a block needs two of them (other outputs also have ``Name:``/``Version:``)."""
_GET_KEY_RE = re.compile(r"^\s*(" + "|".join(re.escape(k) for k in sorted(_GET_KEYS, key=len, reverse=True))
                         + r")\s*:(.*)$")


@register(r"^esxcli network nic get\b", "esxcli network nic get")
def parse_nic_get(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli network nic get -n vmnicX``: indented ``Key: Value`` lines (§2).

    Read by key name, so flattened indentation (``esxi_esxcli_nic_get_bnx2x_qlogic57810_flattened.txt``),
    TAB-indented blog copies, trailing spaces and the 8.0+ ``Backing DPUId:`` line are all fine. From the
    ``Driver Info:`` block: ``Bus Info`` (``0000:19:00:0``) → ``pci_address`` ``0000:19:00.0``, ``Driver`` →
    ``driver``, ``Version`` → ``driver_version``, ``Firmware Version`` → ``firmware_version`` (vendor format,
    e.g. ``7.10 0x800075e5 19.5.12``; for nvmxnet3 the vmxnet3 device revision). ``Link Status`` (else
    ``Link Detected``) → ``link_up``; ``Speed``/``Duplex``/``MTU`` when printed; the fastest of the ``Advertised
    Link Modes`` (``25000BaseTwinax/Full``) → ``link_speed_max_mbps``, the speed the port is rated for. ``Virtual Address`` is the
    VMkernel's virtual MAC, not the port MAC, so it goes to ``records`` with the other keys (pause,
    auto-negotiation, cable, transceiver, wake-on). The uplink is named by ``Name:`` (else ``-n``). An
    ``ERROR: …`` answer yields a note only. Never raises.
    """
    result = ParseResult(family="esxcli network nic get")
    blocks: list[dict[str, tuple[str, str]]] = [{}]
    for raw in re.split(r"\r?\n", text):
        m = _GET_KEY_RE.match(raw)
        if not m:
            continue
        key, value = m.group(1), m.group(2).strip()
        if key in blocks[-1]:  # a second ``nic get`` output in the same text
            blocks.append({})
        blocks[-1][key] = (value, raw.rstrip())
    for block in blocks:
        if len(_GET_SPECIFIC.intersection(block)) >= 2:
            _record_get_block(block, cmd, result)
    if not result.pnics:
        if not _esxcli_error(text, result):
            result.notes.append("esxcli network nic get: no 'Name:'/'Driver Info:' key/value block found")
    return result


def _record_get_block(block: dict[str, tuple[str, str]], cmd: CommandLine, result: ParseResult) -> None:
    name = clean(block.get("Name", ("", ""))[0]) or cmd.target
    if name and cmd.target and name != cmd.target and not NAME_RE.match(name):
        # "Name: vmn" under -n vmnic4: the output was cut mid-name; the command says whose it is
        result.notes.append(f"esxcli network nic get: 'Name: {name}' is no uplink name (output cut?): read as "
                            f"{cmd.target}, named by -n")
        name = cmd.target
    if not name:
        result.notes.append("esxcli network nic get: output names no uplink (no 'Name:' line, no -n)")
        return

    def val(key: str) -> tuple[str | None, str]:
        value, line = block.get(key, ("", ""))
        return clean(value), line

    _record_get_facts(result, name, val)
    used = {"Name", "Bus Info", "Driver", "Version", "Firmware Version", "Driver Info", "Speed", "Duplex", "MTU"}
    extra = {k: (v.strip() or None) for k, (v, _line) in block.items() if k not in used}
    result.records.append({"family": result.family, "nic": name, "fields": extra})


def _record_get_facts(result: ParseResult, name: str, val: Callable[[str], tuple[str | None, str]]) -> None:
    """The facts of one ``nic get`` answer about uplink ``name``, whether read from its text or answered over the
    vSphere API: ``val(key)`` gives the cleaned value of the key as esxcli prints it (``Bus Info``, ``Link Status``)
    and the line it was read from."""
    v, line = val("Bus Info")
    pci = norm_pci(v)
    result.pnic(name, "pci_address", pci, line)
    if pci:
        result.pnic(name, "is_physical", True, line)
    for key, fld in (("Driver", "driver"), ("Version", "driver_version"), ("Firmware Version", "firmware_version")):
        v, line = val(key)
        result.pnic(name, fld, v, line)
    for key in ("Link Status", "Link Detected"):
        v, line = val(key)
        result.pnic(name, "link_up", to_bool(v), line)
    link = to_bool(val("Link Status")[0])
    if link is None:
        link = to_bool(val("Link Detected")[0])
    if link:
        v, line = val("Speed")
        speed = speed_mbps(v)
        if speed:
            result.pnic(name, "link_speed_mbps", speed, line)
        v, line = val("Duplex")
        if (v or "").lower() in ("full", "half"):
            result.pnic(name, "duplex", (v or "").lower(), line)
    v, line = val("MTU")
    mtu = to_int(v)
    if mtu and mtu > 0:
        result.pnic(name, "mtu", mtu, line)
    v, line = val("Advertised Link Modes")  # "Auto, 1000BaseCX-SGMII/Full, 10000BaseKR/Full, 25000BaseTwinax/Full"
    rated = [int(m) for m in re.findall(r"(?<![\d.])(\d{3,6})Base", v or "")]
    if rated:
        result.pnic(name, "link_speed_max_mbps", max(rated), line)
    v, line = val("Driver")
    if v and v.removesuffix("_ens") in _VIRTUAL_DRIVERS:
        result.pnic(name, "is_virtual_uplink", True, line)


#: Fields of an API ``nic get`` row read as facts (the others go to the record as answered).
_GET_API_USED = {"name", "driverinfo", "linkstatus", "linkdetected", "speed", "duplex", "mtu"}


@register_rows(("network", "nic", "get"))
def nic_get_facts(rows: Iterable[Mapping[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """``network nic get`` row(s) answered over the vSphere API: ``Name`` (else ``args["nic-name"]``, the
    ``--nic-name`` asked), nested ``DriverInfo`` (``BusInfo``, ``Driver``, ``Version``, ``FirmwareVersion``),
    ``LinkStatus``/``LinkDetected``, ``Speed`` (Mbit/s), ``Duplex``, ``MTU`` (bytes): the keys :func:`parse_nic_get`
    reads from the text without their spaces, read into the same facts; every fact's evidence is the row. The other
    fields (pause, auto-negotiation, ``VirtualAddress`` …) go to one record ``{"family", "nic", "fields"}`` as
    answered. Never raises."""
    result = ParseResult(family=esxcli_api_family(("network", "nic", "get")))
    asked = text_of((args or {}).get("nic-name"))
    for row in rows:
        n = norm_row(row)
        name = clean(text_of(n.get("name"))) or asked
        line = row_line(row)
        if not name:
            result.notes.append("esxcli network nic get (API): the answer names no uplink")
            continue
        fields = {**n, **(norm_row(n["driverinfo"]) if isinstance(n.get("driverinfo"), dict) else {})}
        _record_get_facts(result, name, lambda key, fields=fields, line=line: (
            clean(text_of(fields.get(norm_key(key)))), line))
        extra = {k: v for k, v in row.items() if norm_key(k) not in _GET_API_USED}
        result.records.append({"family": result.family, "nic": name, "fields": extra})
    if not result.pnics and not result.notes:
        result.notes.append("esxcli network nic get (API): no uplink in the answer")
    return result


# --- esxcli network nic tso get ---------------------------------------------------------------------------

_NIC_VALUE_HEADER_RE = re.compile(r"^\s*NIC\s+Value\s*$")


@register(r"^esxcli network nic tso get\b", "esxcli network nic tso get")
def parse_nic_tso_get(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli network nic tso get [-n vmnicX]``: table ``NIC  Value`` with ``on``/``off`` per uplink →
    ``tso`` (bool). Captures ``esxi_g_esxcli_network_nic_tso_get_-n_vmnic1_esxi60_sio4.txt`` (trailing
    spaces, prompts around) and ``…_tso_get_ne1000_r8152_esxi65u1_elatov.txt``. ``N/A`` stays unknown."""
    result = ParseResult(family="esxcli network nic tso get")
    lines = text.splitlines()
    for h, line in enumerate(lines):
        if not _NIC_VALUE_HEADER_RE.match(line):
            continue
        for _i, raw in table_after(lines, h):
            parts = raw.split()
            if len(parts) == 2 and NAME_RE.match(parts[0]):
                result.pnic(parts[0], "tso", to_bool(parts[1]), raw)
            else:
                result.notes.append(f"esxcli network nic tso get: row not understood: {raw.strip()!r}")
    if not result.pnics:
        _esxcli_error(text, result)
        result.notes.append("esxcli network nic tso get: no 'NIC  Value' table found")
    return result


# --- esxcli network nic ring current|preset get -----------------------------------------------------------

_RING_RE = re.compile(
    r"(?:^|\")\s*(Max RX Mini|Max RX Jumbo|Max RX|Max TX|RX Mini|RX Jumbo|RX|TX)\s*:\s*(\d+)\s*\"?\s*$")


def _ring_values(text: str, preset: bool) -> dict[str, tuple[int, str]]:
    """``{"RX": (1024, line), …}`` (``preset``: the ``Max …`` keys, else the others) from ``Key: value``
    lines; a literal ``\\n`` (output pasted into a Python string, as in the intel-mfd captures) counts as
    a line break. Linux ``ethtool -g``/``-l`` text (``Pre-set maximums:``) is not this output: empty."""
    out: dict[str, tuple[int, str]] = {}
    if re.search(r"Pre-set maximums|Current hardware settings|Channel parameters", text):
        return out
    for seg in re.split(r"\r?\n|\\n", text):
        m = _RING_RE.search(seg)
        if m and m.group(1).startswith("Max ") == preset and m.group(1) not in out:
            out[m.group(1)] = (int(m.group(2)), seg.strip())
    return out


@register(r"^esxcli network nic ring current get\b", "esxcli network nic ring current get")
def parse_nic_ring_current(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli network nic ring current get -n vmnicX``: ``RX: 1024`` / ``RX Mini`` / ``RX Jumbo`` / ``TX``
    (descriptors) → ``rx_ring_size``, ``tx_ring_size`` for the ``-n`` uplink
    (``esxi_g_esxcli_network_nic_ring_current_get_i40en_intel-mfd.txt``). Without ``-n`` the sizes cannot
    be attributed: a note and a record only."""
    result = ParseResult(family="esxcli network nic ring current get")
    values = _ring_values(text, preset=False)
    if not values:
        _esxcli_error(text, result)
        result.notes.append("esxcli network nic ring current get: no 'RX:'/'TX:' lines found")
        return result
    nic = cmd.target
    result.records.append({"family": result.family, "nic": nic, "fields": {k: v for k, (v, _l) in values.items()}})
    if not nic:
        result.notes.append("esxcli network nic ring current get: no -n uplink on the command line; "
                            "sizes not attributed")
        return result
    for key, fld in (("RX", "rx_ring_size"), ("TX", "tx_ring_size")):
        if key in values and values[key][0] > 0:
            result.pnic(nic, fld, values[key][0], values[key][1])
    return result


@register(r"^esxcli network nic ring preset get\b", "esxcli network nic ring preset get")
def parse_nic_ring_preset(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli network nic ring preset get -n vmnicX``: the driver's maxima ``Max RX``/``Max RX Mini``/
    ``Max RX Jumbo``/``Max TX`` (descriptors). They are limits, not the configured sizes, so they go to
    ``records`` only (``{"family", "nic", "fields": {"Max RX": 4096, …}}``); capture
    ``esxi_g_esxcli_network_nic_ring_preset_get_i40en_intel-mfd.txt``."""
    result = ParseResult(family="esxcli network nic ring preset get")
    values = _ring_values(text, preset=True)
    if not values:
        _esxcli_error(text, result)
        result.notes.append("esxcli network nic ring preset get: no 'Max RX:'/'Max TX:' lines found")
        return result
    result.records.append({"family": result.family, "nic": cmd.target,
                           "fields": {k: v for k, (v, _l) in values.items()}})
    return result


# --- esxcli network nic stats get -n vmnicX ----------------------------------------------------------------

_STATS_HEAD_RE = re.compile(r"^\s*NIC statistics for (\S+)\s*$")
_STATS_LINE_RE = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(-?\d+)\s*$")


@register(r"^esxcli network nic stats get\b", "esxcli network nic stats get")
def parse_nic_stats_get(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli network nic stats get -n vmnicX``: ``NIC statistics for vmnicX`` then counters
    (``Packets received: 0``, ``Bytes sent: 39259722``, ``Receive packets dropped``, error counters).
    No model field holds counters, so each output becomes one record
    ``{"family", "nic", "fields": {"Bytes received": 5271156, …}}`` (ints; packets, bytes or error counts as
    the key says). The counters are read from the header line to the first line that is not a counter.
    Capture ``esxi_esxcli_nic_stats_get.txt``."""
    result = ParseResult(family="esxcli network nic stats get")
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        m = _STATS_HEAD_RE.match(raw)
        if m:
            current = {"family": result.family, "nic": m.group(1), "fields": {}}
            result.records.append(current)
            continue
        m = _STATS_LINE_RE.match(raw)
        if m and current is not None:
            current["fields"].setdefault(m.group(1), int(m.group(2)))
        elif raw.strip():
            current = None
    result.records = [r for r in result.records if r["fields"]]
    if not result.records:
        _esxcli_error(text, result)
        result.notes.append("esxcli network nic stats get: no 'NIC statistics for <nic>' block found")
    return result


# --- esxcli network nic pauseParams list ------------------------------------------------------------------

@register(r"^esxcli network nic pauseParams list\b", "esxcli network nic pauseParams list")
def parse_nic_pause_params(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli network nic pauseParams list``: table ``NIC  Pause Params Supported  Pause RX  Pause TX  Auto
    Negotiation  Auto Negotiation Resolution Avail  RX/TX Auto Negotiation Resolution`` with right-aligned
    ``true``/``false`` (capture ``unattributed_smtx_esxi_esxcli_nic_pauseParams_list.txt``). Flow control has
    no model field (it matters for RoCE/vSAN, §4), so each row becomes a record
    ``{"family", "nic", "fields": {"Pause RX": True, …}}``. Columns come from the dashed rule; a row whose
    token count matches the columns is also read by tokens."""
    result = ParseResult(family="esxcli network nic pauseParams list")
    lines = text.splitlines()
    for h, line in enumerate(lines):
        if not re.match(r"^\s*NIC\s+Pause Params Supported\b", line):
            continue
        cols = columns_from_header(line, rule_after(lines, h))
        for _i, raw in table_after(lines, h):
            parts = raw.split()
            if len(parts) == len(cols):
                values = dict(zip((c[0] for c in cols), parts))
            else:
                values = {n: cut(raw, s, e) for n, s, e in cols}
            nic = values.pop(cols[0][0], "")
            if not NAME_RE.match(nic or ""):
                result.notes.append(f"esxcli network nic pauseParams list: row not understood: {raw.strip()!r}")
                continue
            fields = {k: to_bool(v) for k, v in values.items()}
            result.records.append({"family": result.family, "nic": nic, "fields": fields})
    if not result.records:
        _esxcli_error(text, result)
        result.notes.append("esxcli network nic pauseParams list: no table found")
    return result
