"""esxcli over the vSphere API and LLDP/CDP hints: the pure half — allowlist and argument validation,
response XML → rows → facts, recordings and their replay. No pyVmomi, no I/O (the calls themselves are in
:mod:`nicadvisor.collect.vsphere_esxcli`, whose docstring gives the sources of the formats)."""
from __future__ import annotations

import ipaddress
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Iterable, Mapping
from xml.sax.saxutils import escape

from nicadvisor.parsers.base import ParseResult, norm_pci, speed_mbps, to_bool, to_int
from nicadvisor.parsers.esxi.esxcli_nic import clean, record_nic_row

SOAP_VERSION = "urn:vim25/5.0"
"""The ``version`` argument of ExecuteSoap: the only one govmomi sends; the esxcli dynamic types live there."""

FAMILY_PREFIX = "vSphere API esxcli"
FAMILY_HINTS = "vSphere API QueryNetworkHint"
HINTS_COMMAND = "vSphere API: HostNetworkSystem.QueryNetworkHint"

# --- the allowlist ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EsxcliOption:
    """One allowed option: ``key`` is the long option without dashes as used in ``args`` (``"nic-name"``),
    ``param`` the esxcli parameter name sent to ExecuteSoap (``"nicname"``), ``kind`` its validator
    (``nic``, ``module``, ``host``, ``vmk``, ``netstack``, ``size``, ``count``, ``flag``)."""

    key: str
    param: str
    kind: str
    required: bool = False


@dataclass(frozen=True)
class EsxcliSpec:
    """An allowlisted esxcli command: ``words`` (``("network", "nic", "get")``) and its options."""

    words: tuple[str, ...]
    options: tuple[EsxcliOption, ...] = ()

    @property
    def namespace(self) -> tuple[str, ...]:
        return self.words[:-1]

    @property
    def moid(self) -> str:
        """``ha-cli-handler-network-nic`` (govmomi ``Command.Moid``)."""
        return "ha-cli-handler-" + "-".join(self.namespace)

    @property
    def method(self) -> str:
        """``vim.EsxCLI.network.nic.list`` (govmomi ``Command.Method``)."""
        return "vim.EsxCLI." + ".".join(self.words)

    @property
    def text(self) -> str:
        """``esxcli network nic list``."""
        return "esxcli " + " ".join(self.words)


_NIC = EsxcliOption("nic-name", "nicname", "nic", required=True)
ALLOWED: dict[tuple[str, ...], EsxcliSpec] = {
    s.words: s for s in (
        EsxcliSpec(("network", "nic", "list")),
        EsxcliSpec(("network", "nic", "get"), (_NIC,)),
        EsxcliSpec(("network", "nic", "coalesce", "get")),
        EsxcliSpec(("system", "module", "parameters", "list"), (EsxcliOption("module", "module", "module", True),)),
        EsxcliSpec(("network", "diag", "ping"), (
            EsxcliOption("host", "host", "host", True),
            EsxcliOption("size", "size", "size"),
            EsxcliOption("df", "df", "flag"),
            EsxcliOption("interface", "interface", "vmk"),
            EsxcliOption("netstack", "netstack", "netstack"),
            EsxcliOption("count", "count", "count"),
        )),
    )
}
"""The read-only esxcli commands that may be run over the API, by command words."""

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
_VMK_RE = re.compile(r"^vmk\d{1,4}$")
_NETSTACK_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_HOSTNAME_RE = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.?$")
MAX_PING_SIZE = 65507  # largest ICMPv4 payload, bytes
MAX_PING_COUNT = 10


def _check(opt: EsxcliOption, value: Any) -> str:
    """The text of ``value`` for option ``opt``; raises ValueError when it is not acceptable."""
    kind = opt.kind
    if kind == "flag":
        if not isinstance(value, bool):
            raise ValueError(f"--{opt.key} must be True or False, not {value!r}")
        return "true" if value else "false"
    if kind in ("size", "count"):
        top = MAX_PING_SIZE if kind == "size" else MAX_PING_COUNT
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise ValueError(f"--{opt.key} must be an integer from 1 to {top}, not {value!r}")
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f"--{opt.key} must be a string, not {value!r}")
    if kind == "host":
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            if _HOSTNAME_RE.match(value) and not value.replace(".", "").isdigit():
                return value
        raise ValueError(f"--host must be an IP address or a host name, not {value!r}")
    pattern = {"nic": _NAME_RE, "module": _MODULE_RE, "vmk": _VMK_RE, "netstack": _NETSTACK_RE}[kind]
    if not pattern.match(value):
        what = {"nic": "an uplink name such as vmnic0", "module": "a driver module name such as ixgben",
                "vmk": "a VMkernel interface such as vmk10", "netstack": "a netstack name such as vxlan"}[kind]
        raise ValueError(f"--{opt.key} must be {what}, not {value!r}")
    return value


def validate(command: Iterable[str], args: Mapping[str, Any] | None = None) -> tuple[EsxcliSpec, list[tuple[EsxcliOption, str]]]:
    """Check ``command`` (``("network", "nic", "get")``) against :data:`ALLOWED` and ``args``
    (``{"nic-name": "vmnic0"}``) against its options; returns the spec and the (option, text value) pairs in
    option order (a ``df=False`` flag is left out: it is the default).

    Raises ValueError naming the command or option for a command not in the allowlist, an unknown option,
    a missing required option or a value that fails validation (names, IP/host name, 1-65507 bytes, 1-10 pings).
    """
    words = tuple(command)
    spec = ALLOWED.get(words)
    if spec is None:
        allowed = ", ".join(s.text for s in ALLOWED.values())
        raise ValueError(f"'esxcli {' '.join(words)}' is not allowed over the vSphere API (allowed: {allowed})")
    args = dict(args or {})
    known = {o.key for o in spec.options}
    unknown = sorted(set(args) - known)
    if unknown:
        raise ValueError(f"{spec.text}: unknown option(s) {', '.join('--' + u for u in unknown)}"
                         + (f" (allowed: {', '.join('--' + k for k in sorted(known))})" if known else " (it takes none)"))
    out: list[tuple[EsxcliOption, str]] = []
    for opt in spec.options:
        if opt.key not in args or args[opt.key] is None:
            if opt.required:
                raise ValueError(f"{spec.text}: --{opt.key} is required")
            continue
        text = _check(opt, args[opt.key])
        if opt.kind == "flag" and text == "false":
            continue
        out.append((opt, text))
    return spec, out


def command_text(spec: EsxcliSpec, values: list[tuple[EsxcliOption, str]]) -> str:
    """The esxcli command line the request stands for (``esxcli network nic get --nic-name vmnic0``)."""
    parts = [spec.text]
    for opt, text in values:
        parts.append(f"--{opt.key}" if opt.kind == "flag" else f"--{opt.key} {text}")
    return " ".join(parts)


def soap_arguments(values: list[tuple[EsxcliOption, str]]) -> list[dict[str, str]]:
    """ExecuteSoap arguments ``[{"name": "nicname", "val": "<nicname>vmnic0</nicname>"}]`` (values XML-escaped)."""
    return [{"name": o.param, "val": f"<{o.param}>{escape(t)}</{o.param}>"} for o, t in values]


# --- response XML → rows (pure) -------------------------------------------------------------------------

def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _xsi_type(elem: ET.Element) -> str | None:
    for k, v in elem.attrib.items():
        if _local(k) == "type":
            return v
    return None


def _value(elem: ET.Element) -> Any:
    children = list(elem)
    if not children:
        return (elem.text or "").strip()
    out: dict[str, Any] = {}
    for child in children:
        key, val = _local(child.tag), _value(child)
        if key in out:
            prev = out[key]
            out[key] = (prev if isinstance(prev, list) else [prev]) + [val]
        else:
            out[key] = val
    return out


def response_rows(xml_text: str | None) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """An ExecuteSoap ``response`` document as rows: ``(rows, xsi type, error)``.

    ``ArrayOfDataObject`` → one dict per ``DataObject``; a single data object → one row; a scalar
    (``xsd:string``, ``xsd:boolean``) → ``[{"value": text}]``. Keys are the element names as sent
    (``PCIDevice``, ``DriverInfo``), leaf values the text as sent (strings), nested objects dicts, repeated
    elements lists. The type is the document's ``xsi:type`` (``ArrayOfDataObject``) or, for an array, the first
    item's (``VimEsxCLInetworkvmportlistPort``). Never raises: unreadable XML (or a DOCTYPE, refused) gives
    ``([], None, reason)``.
    """
    if not xml_text or not xml_text.strip():
        return [], None, "empty response"
    if "<!DOCTYPE" in xml_text or "<!ENTITY" in xml_text:
        return [], None, "response refused: it declares a DOCTYPE/ENTITY"
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        return [], None, f"response is not XML: {exc}"
    kind = _xsi_type(root)
    children = list(root)
    if kind and kind.startswith("ArrayOf"):
        rows = []
        for child in children:
            v = _value(child)
            rows.append(v if isinstance(v, dict) else {"value": v})
        first = _xsi_type(children[0]) if children else None
        return rows, first or kind, None
    if not children:
        return [{"value": (root.text or "").strip()}], kind, None
    v = _value(root)
    return [v if isinstance(v, dict) else {"value": v}], kind, None


def fault_text(fault_msg: str | None, fault_detail: str | None) -> str:
    """A one-line reason from an ExecuteSoap ``fault``: the ``errMsg`` lines of a ``VimEsxCLICLIFault``
    detail when readable, else the ``faultMsg`` (``EsxCLI.CLIFault.summary``)."""
    msgs: list[str] = []
    if fault_detail and "<!DOCTYPE" not in fault_detail and "<!ENTITY" not in fault_detail:
        try:
            root = ET.fromstring(fault_detail)
            msgs = [(e.text or "").strip() for e in root.iter() if _local(e.tag) == "errMsg" and (e.text or "").strip()]
            kind = _xsi_type(root)
            if not msgs and kind:
                msgs = [kind]
        except ET.ParseError:
            msgs = [fault_detail.strip()[:300]]
    text = "; ".join(msgs)
    if fault_msg and fault_msg not in text:
        text = f"{fault_msg}: {text}" if text else fault_msg
    return text or "esxcli fault without a message"


# --- rows → facts (pure) -------------------------------------------------------------------------------

def _norm(key: str) -> str:
    """Field name → lookup key: ``"RX microseconds"``, ``"RXmicroseconds"`` → ``"rxmicroseconds"``."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


def _nrow(row: Mapping[str, Any]) -> dict[str, Any]:
    return {_norm(k): v for k, v in row.items()}


def _s(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def row_line(row: Mapping[str, Any], prefix: str = "") -> str:
    """The evidence line of a row: ``Name=vmnic0; PCIDevice=0000:04:00.0; …`` (nested keys dotted)."""
    parts = []
    for k, v in row.items():
        if isinstance(v, dict):
            inner = row_line(v, f"{prefix}{k}.")
            if inner:
                parts.append(inner)
        elif isinstance(v, list):
            parts.append(f"{prefix}{k}=[{', '.join(str(x) for x in v if not isinstance(x, dict))}]")
        else:
            parts.append(f"{prefix}{k}={v}")
    return "; ".join(parts)


def _family(spec_words: Iterable[str]) -> str:
    return f"{FAMILY_PREFIX} {' '.join(spec_words)}"


def nic_list_facts(rows: Iterable[Mapping[str, Any]]) -> ParseResult:
    """``network nic list`` rows (``Name``, ``PCIDevice``, ``Driver``, ``AdminStatus``, ``LinkStatus`` or
    ``Link``, ``Speed`` Mbit/s, ``Duplex``, ``MACAddress``, ``MTU`` bytes, ``Description``; field names as in
    the PowerCLI capture ``esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt``) → the facts of
    :func:`nicadvisor.parsers.esxi.esxcli_nic.record_nic_row` (speed/duplex only with the link up, pseudo uplinks
    ``is_physical=False``, vmxnet3 ``is_virtual_uplink``). Unusable rows become notes."""
    result = ParseResult(family=_family(("network", "nic", "list")))
    for row in rows:
        n = _nrow(row)
        mapped = {"name": n.get("name"), "pci": n.get("pcidevice"), "driver": n.get("driver"),
                  "admin": n.get("adminstatus"), "link": n.get("linkstatus") or n.get("link"),
                  "speed": n.get("speed"), "duplex": n.get("duplex"), "mac": n.get("macaddress"),
                  "mtu": n.get("mtu"), "description": n.get("description")}
        mapped = {k: v for k, v in mapped.items() if isinstance(v, str)}
        if record_nic_row(result, mapped, row_line(row)) is None:
            result.notes.append(f"esxcli network nic list (API): row not understood: {row_line(row)!r}")
    return result


_GET_USED = {"name", "driverinfo", "linkstatus", "linkdetected", "speed", "duplex", "mtu"}


def nic_get_facts(rows: Iterable[Mapping[str, Any]], nic: str | None = None) -> ParseResult:
    """``network nic get`` row(s): ``Name`` (else ``nic``, the ``--nic-name`` asked), nested ``DriverInfo``
    (``BusInfo`` ``0000:19:00:0`` → ``pci_address`` + ``is_physical``, ``Driver`` → ``driver``, ``Version`` →
    ``driver_version``, ``FirmwareVersion`` → ``firmware_version``), ``LinkStatus`` (else ``LinkDetected``) →
    ``link_up``; ``Speed`` (Mbit/s) and ``Duplex`` only with the link up; ``MTU`` bytes. The other fields
    (pause, auto-negotiation, ``VirtualAddress`` …) go to one record ``{"family", "nic", "fields"}`` (same
    semantics as :func:`nicadvisor.parsers.esxi.esxcli_nic.parse_nic_get`, §2)."""
    result = ParseResult(family=_family(("network", "nic", "get")))
    for row in rows:
        n = _nrow(row)
        name = clean(_s(n.get("name"))) or nic
        line = row_line(row)
        if not name:
            result.notes.append("esxcli network nic get (API): the answer names no uplink")
            continue
        info = _nrow(n["driverinfo"]) if isinstance(n.get("driverinfo"), dict) else {}
        pci = norm_pci(clean(_s(info.get("businfo"))))
        result.pnic(name, "pci_address", pci, line)
        if pci:
            result.pnic(name, "is_physical", True, line)
        driver = clean(_s(info.get("driver")))
        result.pnic(name, "driver", driver, line)
        result.pnic(name, "driver_version", clean(_s(info.get("version"))), line)
        result.pnic(name, "firmware_version", clean(_s(info.get("firmwareversion"))), line)
        link = to_bool(_s(n.get("linkstatus")))
        if link is None:
            link = to_bool(_s(n.get("linkdetected")))
        result.pnic(name, "link_up", link, line)
        if link:
            speed = speed_mbps(_s(n.get("speed")))
            if speed:
                result.pnic(name, "link_speed_mbps", speed, line)
            duplex = (clean(_s(n.get("duplex"))) or "").lower()
            if duplex in ("full", "half"):
                result.pnic(name, "duplex", duplex, line)
        mtu = to_int(_s(n.get("mtu")))
        if mtu and mtu > 0:
            result.pnic(name, "mtu", mtu, line)
        if driver and driver.removesuffix("_ens") in ("nvmxnet3", "vmxnet3"):
            result.pnic(name, "is_virtual_uplink", True, line)
        extra = {k: v for k, v in row.items() if _norm(k) not in _GET_USED}
        result.records.append({"family": result.family, "nic": name, "fields": extra})
    if not result.pnics and not result.notes:
        result.notes.append("esxcli network nic get (API): no uplink in the answer")
    return result


_COALESCE = {
    "rxmicroseconds": ("coalesce_rx_usecs", to_int),
    "rxmaximumframes": ("coalesce_rx_frames", to_int),
    "txmicroseconds": ("coalesce_tx_usecs", to_int),
    "txmaximumframes": ("coalesce_tx_frames", to_int),
    "adaptiverx": ("coalesce_adaptive_rx", to_bool),
}


def coalesce_facts(rows: Iterable[Mapping[str, Any]]) -> ParseResult:
    """``network nic coalesce get`` rows (``NIC``, ``RX microseconds`` µs, ``RX maximum frames``,
    ``TX microseconds`` µs, ``TX Maximum frames``, ``Adaptive RX``/``TX``, ``Sample interval seconds``,
    spaces removed) → ``coalesce_rx_usecs``, ``coalesce_rx_frames``, ``coalesce_tx_usecs``,
    ``coalesce_tx_frames``, ``coalesce_adaptive_rx``; ``N/A`` (no coalesce support, §14 item 14) is not
    recorded. Record per row ``{"kind": "coalesce", "nic", "adaptive_tx", "sample_interval_s"}`` as the text
    parser :func:`nicadvisor.parsers.esxi.coalesce.parse_coalesce_get` does."""
    result = ParseResult(family=_family(("network", "nic", "coalesce", "get")))
    for row in rows:
        n = _nrow(row)
        nic = clean(_s(n.get("nic")))
        line = row_line(row)
        if not nic or " " in nic:
            result.notes.append(f"esxcli network nic coalesce get (API): row not understood: {line!r}")
            continue
        for key, (fld, conv) in _COALESCE.items():
            result.pnic(nic, fld, conv(_s(n.get(key))), line)
        result.records.append({"kind": "coalesce", "nic": nic, "adaptive_tx": to_bool(_s(n.get("adaptivetx"))),
                               "sample_interval_s": to_int(_s(n.get("sampleintervalseconds")))})
    return result


def module_parameters_facts(rows: Iterable[Mapping[str, Any]], module: str | None) -> ParseResult:
    """``system module parameters list --module X`` rows (``Name``, ``Type``, ``Value``, ``Description``) →
    module ``parameters`` (name → description, else type) and ``options`` (name → value for every non-empty
    ``Value``; ``{}`` when none is set: the API answer is the complete, unfiltered table) plus one
    ``{"kind": "module_parameter", "module", "name", "type", "value", "description"}`` record per row
    (same shapes as :mod:`nicadvisor.parsers.esxi.module`)."""
    result = ParseResult(family=_family(("system", "module", "parameters", "list")))
    if not module:
        result.notes.append("esxcli system module parameters list (API): module name unknown")
        return result
    params: dict[str, str] = {}
    options: dict[str, str] = {}
    lines = []
    for row in rows:
        n = _nrow(row)
        name, ptype = clean(_s(n.get("name"))), clean(_s(n.get("type")))
        value, desc = clean(_s(n.get("value"))), clean(_s(n.get("description")))
        if not name:
            result.notes.append(f"esxcli system module parameters list (API): row without a name: {row_line(row)!r}")
            continue
        params[name] = desc or ptype or ""
        if value is not None:
            options[name] = value
        lines.append(row_line(row))
        result.records.append({"kind": "module_parameter", "module": module, "name": name, "type": ptype,
                               "value": value, "description": desc})
    if params:
        raw = "\n".join(lines)
        result.module(module, "parameters", params, raw)
        result.module(module, "options", options, raw)
    else:
        result.notes.append(f"esxcli system module parameters list (API): module {module} answered no parameter")
    return result


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def ping_facts(rows: Iterable[Mapping[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """``network diag ping`` answer (one object with ``Summary`` and ``Trace`` entries; PowerCLI scripts read
    ``Summary.Transmitted``, ``Summary.Recieved`` — spelled so by the API —, ``Summary.PacketLost`` %,
    ``Summary.RoundtripAvg``/``Min``/``Max`` µs) → one record in the shape of the ``vmkping`` parser
    (:mod:`nicadvisor.parsers.esxi.ping`): ``{"kind": "vmkping", "via": "vSphere API", "size": bytes,
    "df": bool, "target", "sent", "received", "loss_pct", "error": None, "interface", "netstack",
    "rtt_avg_us", "rtt_min_us", "rtt_max_us"}`` (None when absent). No pNIC/vmknic fact is recorded."""
    result = ParseResult(family=_family(("network", "diag", "ping")))
    args = dict(args or {})
    rows = list(rows)
    if not rows:
        result.notes.append("esxcli network diag ping (API): empty answer")
        return result
    n = _nrow(rows[0])
    summary = _nrow(_first(n.get("summary"))) if isinstance(_first(n.get("summary")), dict) else {}
    if not summary:
        result.notes.append("esxcli network diag ping (API): no Summary in the answer")
    loss = _s(summary.get("packetlost"))
    try:
        loss_pct = float(loss) if loss is not None else None
    except ValueError:
        loss_pct = None
    size = args.get("size") if isinstance(args.get("size"), int) else None
    result.records.append({
        "kind": "vmkping", "via": "vSphere API",
        "size": size, "df": bool(args.get("df")),
        "target": args.get("host") or _s(summary.get("hostaddr")),
        "sent": to_int(_s(summary.get("transmitted"))),
        "received": to_int(_s(summary.get("recieved")) or _s(summary.get("received"))),
        "loss_pct": loss_pct, "error": None,
        "interface": args.get("interface"), "netstack": args.get("netstack"),
        "rtt_avg_us": to_int(_s(summary.get("roundtripavg"))),
        "rtt_min_us": to_int(_s(summary.get("roundtripmin"))),
        "rtt_max_us": to_int(_s(summary.get("roundtripmax"))),
    })
    return result


def facts_for(command: Iterable[str], rows: list[dict[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """Dispatch ``rows`` of an allowlisted ``command`` to its converter; an unknown command gives an empty
    result with a note. Never raises."""
    words = tuple(command)
    args = dict(args or {})
    if words == ("network", "nic", "list"):
        return nic_list_facts(rows)
    if words == ("network", "nic", "get"):
        return nic_get_facts(rows, _s(args.get("nic-name")))
    if words == ("network", "nic", "coalesce", "get"):
        return coalesce_facts(rows)
    if words == ("system", "module", "parameters", "list"):
        return module_parameters_facts(rows, _s(args.get("module")))
    if words == ("network", "diag", "ping"):
        return ping_facts(rows, args)
    result = ParseResult(family=_family(words))
    result.notes.append(f"no converter for 'esxcli {' '.join(words)}'")
    return result


# --- LLDP / CDP (pure) ----------------------------------------------------------------------------------

def _kv_params(params: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params if isinstance(params, list) else []:
        if isinstance(p, dict) and isinstance(p.get("key"), str):
            out[p["key"]] = p.get("value")
    return out


def hint_facts(hints: Iterable[Mapping[str, Any]]) -> ParseResult:
    """``QueryNetworkHint`` answers (``PhysicalNicHintInfo`` as plain dicts: ``device``,
    ``connectedSwitchPort`` = CDP, ``lldpInfo`` = LLDP) → records only (no model field holds them):

    * LLDP: ``{"kind": "lldp", "nic", "chassis_id", "port_id", "ttl_s", "system_name", "parameters"}``
      where ``system_name`` is the ``System Name`` parameter (LLDP TLV name) when present and ``parameters``
      all ``lldpInfo.parameter`` key/values (e.g. ``Aggregated Port ID``, ``Aggregation Status``:
      ``esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt``);
    * CDP: ``{"kind": "cdp", "nic", "device_id" (devId), "port_id", "mgmt_address" (mgmtAddr, else address),
      "system_name", "vlan", "mtu" (bytes, the switch port's), "hardware_platform", "software_version"}``.

    A pNIC with neither gives no record. Never raises."""
    result = ParseResult(family=FAMILY_HINTS)
    for raw in hints:
        if not isinstance(raw, Mapping):
            continue
        nic = _s(raw.get("device"))
        if not nic:
            continue
        lldp = raw.get("lldpInfo")
        if isinstance(lldp, Mapping):
            params = _kv_params(lldp.get("parameter"))
            name = next((v for k, v in params.items() if _norm(k) == "systemname" and isinstance(v, str)), None)
            result.records.append({
                "kind": "lldp", "nic": nic, "chassis_id": _s(lldp.get("chassisId")), "port_id": _s(lldp.get("portId")),
                "ttl_s": lldp.get("timeToLive") if isinstance(lldp.get("timeToLive"), int) else None,
                "system_name": name, "parameters": params})
        cdp = raw.get("connectedSwitchPort")
        if isinstance(cdp, Mapping):
            def num(key: str) -> int | None:
                v = cdp.get(key)
                return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None

            result.records.append({
                "kind": "cdp", "nic": nic, "device_id": _s(cdp.get("devId")), "port_id": _s(cdp.get("portId")),
                "mgmt_address": _s(cdp.get("mgmtAddr")) or _s(cdp.get("address")),
                "system_name": _s(cdp.get("systemName")), "vlan": num("vlan"), "mtu": num("mtu"),
                "hardware_platform": _s(cdp.get("hardwarePlatform")),
                "software_version": _s(cdp.get("softwareVersion"))})
    return result


# --- recordings ---------------------------------------------------------------------------------------

def esxcli_recording(host_ref: str, command: Iterable[str], args: Mapping[str, Any], moid: str, method: str,
                     arguments: list[dict[str, str]], response: str | None, fault: dict[str, Any] | None,
                     error: str | None, vcenter: str | None = None) -> str:
    """The Capture text of one ExecuteSoap: one JSON line ``{"kind": "esxcli", "vcenter", "obj":
    "HostSystem:host-21", "command": [...], "args": {...}, "moid", "method", "version", "arguments":
    [{"name", "val"}], "response": XML text or null, "fault": {"faultMsg", "faultDetail"} or null,
    "error": text or null}``."""
    doc = {"kind": "esxcli", "vcenter": vcenter, "obj": host_ref, "command": list(command), "args": dict(args),
           "moid": moid, "method": method, "version": SOAP_VERSION, "arguments": arguments,
           "response": response, "fault": fault, "error": error}
    return json.dumps(doc, sort_keys=True, default=str, separators=(",", ":")) + "\n"


def hints_recording(host_ref: str, network_system: str | None, hints: list[dict], vcenter: str | None = None) -> str:
    """The Capture text of one QueryNetworkHint: ``{"kind": "network_hints", "vcenter", "obj",
    "networkSystem", "hints": [PhysicalNicHintInfo as plain dicts]}``."""
    doc = {"kind": "network_hints", "vcenter": vcenter, "obj": host_ref, "networkSystem": network_system,
           "hints": hints}
    return json.dumps(doc, sort_keys=True, default=str, separators=(",", ":")) + "\n"


def facts_from_recording(text: str) -> ParseResult:
    """Replay an :func:`esxcli_recording` or :func:`hints_recording` text into its ParseResult (the same facts
    the live call produced). Never raises: anything else gives an empty result with a note."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        r = ParseResult(family=FAMILY_PREFIX)
        r.notes.append(f"not an esxcli-over-API recording (JSON error: {exc})")
        return r
    if not isinstance(doc, dict):
        doc = {}
    if doc.get("kind") == "network_hints":
        hints = doc.get("hints")
        return hint_facts(hints if isinstance(hints, list) else [])
    command = doc.get("command")
    if doc.get("kind") != "esxcli" or not isinstance(command, list):
        r = ParseResult(family=FAMILY_PREFIX)
        r.notes.append("not an esxcli-over-API recording (no kind/command)")
        return r
    words = tuple(str(w) for w in command)
    args = doc.get("args") if isinstance(doc.get("args"), dict) else {}
    if not isinstance(doc.get("response"), str):
        r = ParseResult(family=_family(words))
        r.notes.append(f"esxcli {' '.join(words)}: no response recorded ({doc.get('error') or 'fault'})")
        return r
    rows, _kind, err = response_rows(doc["response"])
    if err:
        r = ParseResult(family=_family(words))
        r.notes.append(f"esxcli {' '.join(words)}: {err}")
        return r
    return facts_for(words, rows, args)


# --- live calls ----------------------------------------------------------------------------------------
