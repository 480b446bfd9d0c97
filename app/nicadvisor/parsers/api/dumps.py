"""vSphere-API-derived dumps of ESXi NIC data.

* ``govc object.collect -s -dump HostSystem:<id> config|hardware``: Go-syntax dumps of
  ``vim.host.PhysicalNic`` (``Device``, ``Pci``, ``Driver``, ``LinkSpeed.SpeedMb``/``Duplex``, ``Mac``,
  ``DriverVersion``/``FirmwareVersion`` on API 8.0.0.1+, ``EnhancedNetworkingStackSupported``,
  ``EnsInterruptSupported``) and ``vim.host.PciDevice`` (``Id``, ``ClassId``, ``VendorId``/``DeviceId``/
  ``SubVendorId``/``SubDeviceId`` — signed int16, masked with ``& 0xFFFF``, §14 item 1). Captures
  ``esxi_api_govc_dump_physicalnic_nvmxnet3_esxi802.txt``, ``esxi_api_govc_dump_pcidevice_vmxnet3.txt``;
  nic-data-sources.md §1.1.
* community.vmware ``vmware_host_vmnic_info`` results (JSON, often cut off): ``vmnic_details[]`` with
  ``device``, ``adapter``, ``driver``, ``actual_speed`` (Mbit/s), ``actual_duplex``, ``location`` (PCI
  address), ``mac``; ``dvswitch``/``vswitch`` uplink maps. Captures
  ``esxi_api_ansible_vmnic_info_{x540_ixgbe_lldp,xxv710_i40en_25g}_partial.txt``; §1.1.

vmxnet3 uplinks (driver ``nvmxnet3``/``vmxnet3``, PCI ``15ad:07b0``) get ``is_virtual_uplink`` True (§14 item 20).
"""
from __future__ import annotations

import json
import re
from typing import Any

from nicadvisor.parsers.base import CommandLine, ParseResult, hex4, norm_pci, to_int
from nicadvisor.parsers.api.network_hints import cdp_neighbor, lldp_neighbor
from nicadvisor.parsers.neighbor import Neighbor, record_neighbors
from nicadvisor.parsers.registration import register
from nicadvisor.parsers.esxi.vsish import read_pyish_all, real_nic_name

_MAC_RE = re.compile(r"[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}")

# --- govc Go-syntax dumps ------------------------------------------------------------------------

_OPEN_RE = re.compile(r"^\s*(?:(?P<key>\w+):\s*)?(?P<type>&?(?:\[\])?[\w.]*)\{\s*$")
_EMPTY_RE = re.compile(r"^\s*(?:\w+:\s*)?&?(?:\[\])?[\w.]*\{\}\s*,?\s*$")
_CLOSE_RE = re.compile(r"^\s*\}\s*,?\s*$")
_FIELD_RE = re.compile(r"^\s*(?P<key>[A-Z]\w*):\s*(?P<val>.*?),?\s*$")


def _go_scalar(text: str) -> Any:
    t = text.strip()
    m = re.fullmatch(r"(?:types\.)?New\w*\((.*)\)", t)
    if m:
        return _go_scalar(m.group(1))
    if len(t) >= 2 and t[0] == t[-1] == '"':
        try:
            return json.loads(t)
        except ValueError:
            return t[1:-1]
    if t in ("true", "false"):
        return t == "true"
    if t == "nil":
        return None
    value = to_int(t)
    return value if value is not None else t


class _Frame:
    def __init__(self, name: str | None) -> None:
        self.name = name
        self.fields: dict[str, Any] = {}
        self.lines: dict[str, str] = {}
        self.items: list[dict[str, Any]] = []


def _walk_go_dump(text: str) -> tuple[list[tuple[dict[str, Any], dict[str, str]]], int]:
    """All closed (or, at the end of a cut-off dump, still open) struct literals as (fields, raw lines),
    innermost first; nested named structs appear in their parent's fields as dicts. Also returns the
    number of lines that could not be read."""
    stack = [_Frame(None)]
    done: list[tuple[dict[str, Any], dict[str, str]]] = []
    skipped = 0

    def close() -> None:
        frame = stack.pop()
        done.append((frame.fields, frame.lines))
        if not stack:  # the dump started inside a struct: drop what was before
            stack.append(_Frame(None))
            return
        parent = stack[-1]
        if frame.name:
            parent.fields[frame.name] = frame.fields
        else:
            parent.items.append(frame.fields)

    for raw in text.splitlines():
        if not raw.strip():
            continue
        m = _OPEN_RE.match(raw)
        if m:
            stack.append(_Frame(m.group("key")))
            continue
        if _EMPTY_RE.match(raw):
            continue
        if _CLOSE_RE.match(raw):
            close()
            continue
        m = _FIELD_RE.match(raw)
        if m:
            stack[-1].fields[m.group("key")] = _go_scalar(m.group("val"))
            stack[-1].lines[m.group("key")] = raw.strip()
            continue
        skipped += 1
    while len(stack) > 1:
        close()
    return done, skipped


def _record_physical_nic(result: ParseResult, f: dict[str, Any], lines: dict[str, str]) -> None:
    name = f.get("Device")
    if not isinstance(name, str) or not real_nic_name(name):
        return
    ev = lambda key: lines.get(key, f"{key}: {f.get(key)!r}")  # noqa: E731 - tiny local helper
    driver = f.get("Driver") if isinstance(f.get("Driver"), str) else None
    pci = norm_pci(f.get("Pci")) if isinstance(f.get("Pci"), str) else None
    result.pnic(name, "pci_address", pci, ev("Pci"))
    result.pnic(name, "driver", driver, ev("Driver"))
    virtual = bool(driver and "vmxnet3" in driver.lower())
    if virtual:
        result.pnic(name, "is_virtual_uplink", True, ev("Driver"))
    elif pci:
        result.pnic(name, "is_physical", True, ev("Pci"))
    link = f.get("LinkSpeed")
    if isinstance(link, dict):
        speed = link.get("SpeedMb")
        line = f"LinkSpeed: {{SpeedMb: {speed}, Duplex: {link.get('Duplex')}}}"
        if isinstance(speed, int) and speed > 0:
            result.pnic(name, "link_speed_mbps", speed, line)
            result.pnic(name, "link_up", True, line)
        if isinstance(link.get("Duplex"), bool):
            result.pnic(name, "duplex", "full" if link["Duplex"] else "half", line)
    mac = f.get("Mac")
    if isinstance(mac, str) and _MAC_RE.fullmatch(mac):
        result.pnic(name, "mac", mac.lower(), ev("Mac"))
    for key, field in (("DriverVersion", "driver_version"), ("FirmwareVersion", "firmware_version")):
        if isinstance(f.get(key), str) and f[key]:
            result.pnic(name, field, f[key], ev(key))
    for key, field in (("EnhancedNetworkingStackSupported", "ens_capable"),
                       ("EnsInterruptSupported", "ens_interrupt_capable")):
        if isinstance(f.get(key), bool):
            result.pnic(name, field, f[key], ev(key))
    spec = f.get("Spec")
    if isinstance(spec, dict) and isinstance(spec.get("EnableEnhancedNetworkingStack"), bool):
        enabled = spec["EnableEnhancedNetworkingStack"]
        line = f"Spec.EnableEnhancedNetworkingStack: {enabled}, EnsInterruptEnabled: {spec.get('EnsInterruptEnabled')}"
        result.pnic(name, "ens_enabled", enabled, line)
        if not enabled:
            result.pnic(name, "ens_mode", "standard", line)
        elif isinstance(spec.get("EnsInterruptEnabled"), bool):
            result.pnic(name, "ens_mode", "ens_interrupt" if spec["EnsInterruptEnabled"] else "ens", line)
    result.records.append({"kind": "vim.host.PhysicalNic", "device": name,
                           **{k: v for k, v in f.items() if not isinstance(v, (dict, list))}})


def _record_pci_device(result: ParseResult, f: dict[str, Any], lines: dict[str, str]) -> None:
    pci = norm_pci(f.get("Id")) if isinstance(f.get("Id"), str) else None
    class_id = f.get("ClassId")
    if not pci:
        return
    record = {"kind": "vim.host.PciDevice", **{k: v for k, v in f.items() if not isinstance(v, (dict, list))}}
    result.records.append(record)
    if not (isinstance(class_id, int) and (class_id & 0xFFFF) >> 8 == 0x02):
        return  # not a network controller (class 0x02xx)
    key = f"pci:{pci}"
    ev = lambda k: lines.get(k, f"{k}: {f.get(k)!r}")  # noqa: E731 - tiny local helper
    result.pnic(key, "pci_address", pci, ev("Id"))
    ids = {}
    for src, field in (("VendorId", "vid"), ("DeviceId", "did"), ("SubVendorId", "svid"), ("SubDeviceId", "ssid")):
        value = f.get(src)
        ids[field] = hex4(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
        result.pnic(key, field, ids[field], ev(src))
    vendor, device = f.get("VendorName"), f.get("DeviceName")
    desc = " ".join(x for x in (vendor, device) if isinstance(x, str) and x)
    if desc:
        result.pnic(key, "description", desc, f"{ev('VendorName')} {ev('DeviceName')}")
    if (ids["vid"], ids["did"]) == ("15ad", "07b0") or (isinstance(device, str) and "vmxnet3" in device.lower()):
        result.pnic(key, "is_virtual_uplink", True, f"{ev('VendorId')} {ev('DeviceId')}")


@register(r"^govc\s+object\.collect\b.*\s-dump\b", "govc object.collect dump")
def parse_govc_dump(text: str, cmd: CommandLine) -> ParseResult:
    """``govc object.collect -s -dump HostSystem:<id> config|hardware``: pNIC facts keyed by ``Device``
    (``vmnic0``) from ``PhysicalNic`` structs, and by ``"pci:<Id>"`` from network-class ``PciDevice``
    structs (``vid``/``did``/``svid``/``ssid`` as 4 lower-case hex digits, ``description`` = vendor name +
    device name). ``Product`` ``Version``/``Build`` become host facts. Every struct read is a record.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="govc object.collect dump")
    structs, skipped = _walk_go_dump(text)
    for fields, lines in structs:
        if "Device" in fields and ("Pci" in fields or "Driver" in fields):
            _record_physical_nic(result, fields, lines)
        elif "Id" in fields and "VendorId" in fields:
            _record_pci_device(result, fields, lines)
        elif {"Version", "Build"} <= fields.keys() and ("FullName" in fields or "ApiVersion" in fields):
            result.host_fact("product_version", fields.get("Version"), lines.get("Version", ""))
            result.host_fact("build", str(fields.get("Build")), lines.get("Build", ""))
    if skipped:
        result.notes.append(f"govc dump: {skipped} line(s) not in Go struct syntax were skipped")
    if not result.understood:
        result.notes.append(f"{cmd.text!r}: no PhysicalNic or PciDevice struct found")
    return result


# --- community.vmware vmware_host_vmnic_info -----------------------------------------------------

def _json_line(text: str, key: str, value: Any) -> str:
    """The raw output line holding ``"key": value`` (first match), or a rebuilt one."""
    rendered = json.dumps(value)
    pat = re.compile(r'^\s*"' + re.escape(key) + r'"\s*:\s*' + re.escape(rendered) + r"\s*,?\s*$", re.M)
    m = pat.search(text)
    return m.group(0).strip() if m else f'"{key}": {rendered}'


def _walk(obj: Any, path: tuple[str, ...] = ()):
    if isinstance(obj, dict):
        yield path, obj
        for k, v in obj.items():
            yield from _walk(v, path + (str(k),))
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v, path)


@register(r"^(?:ansible\b.*?)?(?:community\.vmware\.)?vmware_host_vmnic_info\b", "vmware_host_vmnic_info")
def parse_vmnic_info(text: str, cmd: CommandLine) -> ParseResult:
    """community.vmware ``vmware_host_vmnic_info`` result (possibly an ``ok: [localhost] => {...}`` debug
    print, possibly cut off, possibly an excerpt starting inside the ``vmnic_details`` list: every entry is read).
    Per ``vmnic_details`` entry: ``description`` (``adapter``), ``driver``,
    ``link_speed_mbps`` and ``link_up`` True (``actual_speed`` > 0, Mbit/s; the API leaves the speed unset
    when the link is down), ``duplex`` (``actual_duplex``), ``pci_address`` (``location``), ``mac`` (unless
    masked), the ``neighbor_*`` facts from ``lldp_info``/``cdp_info`` (:func:`vmnic_neighbors`).
    ``dvswitch``/``vswitch`` maps → switch ``uplinks`` and ``kind``. Each entry is also a record.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="vmware_host_vmnic_info")
    tops = read_pyish_all(text)  # an excerpt from inside the vmnic_details list holds several top-level entries
    if not tops:
        result.notes.append(f"{cmd.text!r}: no JSON object found")
        return result
    for path, obj in (walked for top in tops for walked in _walk(top)):
        device = obj.get("device")
        detail_keys = obj.keys() & {"adapter", "driver", "actual_speed", "location"}
        if isinstance(device, str) and real_nic_name(device) and detail_keys:
            _record_vmnic_detail(result, text, device, obj)
        for sw_key, kind in (("dvswitch", "distributed"), ("vswitch", "standard")):
            switches = obj.get(sw_key)
            if isinstance(switches, dict):
                for sw, uplinks in switches.items():
                    if isinstance(uplinks, list) and all(isinstance(u, str) for u in uplinks):
                        line = f'"{sw_key}": {{"{sw}": {json.dumps(uplinks)}}}'
                        result.switch(sw, "kind", kind, line)
                        result.switch(sw, "uplinks", list(uplinks), line)
    if not result.understood:
        result.notes.append(f"{cmd.text!r}: no vmnic_details entry found")
    return result


def _record_vmnic_detail(result: ParseResult, text: str, name: str, d: dict[str, Any]) -> None:
    result.records.append({"kind": "vmnic_details", **d})
    record_neighbors(result, vmnic_neighbors(text, name, d))
    if isinstance(d.get("adapter"), str) and d["adapter"]:
        result.pnic(name, "description", d["adapter"], _json_line(text, "adapter", d["adapter"]))
    driver = d.get("driver")
    if isinstance(driver, str) and driver:
        result.pnic(name, "driver", driver, _json_line(text, "driver", driver))
        if "vmxnet3" in driver.lower():
            result.pnic(name, "is_virtual_uplink", True, _json_line(text, "driver", driver))
    speed = d.get("actual_speed")
    if isinstance(speed, int) and not isinstance(speed, bool) and speed > 0:
        line = _json_line(text, "actual_speed", speed)
        result.pnic(name, "link_speed_mbps", speed, line)
        result.pnic(name, "link_up", True, line)
    duplex = d.get("actual_duplex")
    if isinstance(duplex, str):
        low = duplex.lower()
        value = "full" if low.startswith("full") else "half" if low.startswith("half") else None
        result.pnic(name, "duplex", value, _json_line(text, "actual_duplex", duplex))
    location = d.get("location")
    if isinstance(location, str):
        pci = norm_pci(location)
        result.pnic(name, "pci_address", pci, _json_line(text, "location", location))
        if pci and not (isinstance(driver, str) and "vmxnet3" in driver.lower()):
            result.pnic(name, "is_physical", True, _json_line(text, "location", location))
    mac = d.get("mac")
    if isinstance(mac, str) and _MAC_RE.fullmatch(mac):
        result.pnic(name, "mac", mac.lower(), _json_line(text, "mac", mac))


def vmnic_neighbors(text: str, name: str, d: dict[str, Any]) -> list[Neighbor]:
    """The LLDP/CDP neighbour of one ``vmnic_details`` entry: ``lldp_info`` is the module's map of
    ``lldpInfo.parameter`` (``System Name``, ``Port Description``, ``MTU``, ``Vlan ID``; the module keeps no port
    ID), ``cdp_info`` its ``connectedSwitchPort`` (``devId``, ``portId``, ``mtu``, ``vlan``); ``"N/A"`` = none
    heard. Evidence: the output line holding each value."""
    def line(_nic: str, path: str, value: Any) -> str:
        key = path.rsplit(".", 1)[-1]
        return _json_line(text, key, value) if key not in ("lldpInfo", "connectedSwitchPort") else f"{name} {path}"

    out = []
    if isinstance(d.get("lldp_info"), dict):
        out.append(lldp_neighbor(name, {"parameter": d["lldp_info"]}, line))
    if isinstance(d.get("cdp_info"), dict):
        out.append(cdp_neighbor(name, d["cdp_info"], line))
    return out
