"""ESXi PCI inventory: ``lspci -p`` / ``-n`` / ``-v`` (ESXi's own lspci, also as ``vmkvsitools lspci``),
``vmkchdev -l`` and ``esxcli hardware pci list``.

They give the PCI identity of each uplink (§3 of ``shared/design/research/nic-data-sources.md``):
``pci_address`` (``0000:bb:dd.f``), ``vid``/``did``/``svid``/``ssid`` (4 lower-case hex digits), the driver
module and the vmnic name. Only network functions become pNICs: a ``vmnicN`` name, PCI class ``0200``
(Ethernet) or, for ``lspci -v``, the class text ``Ethernet controller``. A network function without a vmnic name
(driverless, or ESXi 8.0 where ``hardware pci list`` leaves ``VMkernel Name`` empty) is keyed
``"pci:0000:bb:dd.f"``. SR-IOV virtual functions (``[PF_0.202.0_VF_0]``) are not uplinks: records only.
ESXi's ``lspci -v`` prints no PCIe capabilities (no link speed/width). Pure functions, never raise.
"""
from __future__ import annotations

import re
from typing import Any

from nicadvisor.parsers.base import CommandLine, ParseResult, hex4, norm_pci, to_bool, to_int
from nicadvisor.parsers.esxi.esxcli_nic import clean
from nicadvisor.parsers.registration import register

_VMNIC_RE = re.compile(r"^vmnic\d+$")
_ADDR = r"[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]"
_ADDR_OLD = r"\d{3}:\d{3}:\d{2}\.[0-7]"  # ESX(i) 4.x form ``000:002:00.0``
_ID = r"[0-9A-Fa-f]{4}"


def _key(name: str | None, pci: str | None) -> str | None:
    """The pNIC key: the vmnic name when there is one, else ``pci:<address>``."""
    if name and _VMNIC_RE.match(name):
        return name
    return f"pci:{pci}" if pci else None


def _pci(text: str, result: ParseResult) -> str | None:
    """Normalise an address; the ESX(i) 4.x three-digit form ``000:002:00.0`` is accepted only where its radix
    does not matter (segment 0, bus and slot below 10), since it is not documented whether it is decimal."""
    pci = norm_pci(text)
    if pci:
        return pci
    m = re.fullmatch(r"(\d{3}):(\d{3}):(\d{2})\.([0-7])", text.strip())
    if m:
        seg, bus, dev, fn = (int(g) for g in m.groups())
        if seg == 0 and bus < 10 and dev < 10:
            return f"0000:{bus:02x}:{dev:02x}.{fn}"
        result.notes.append(f"PCI address {text!r}: three-digit ESX 4.x form with an uncertain radix; not recorded")
    return None


def _ids(result: ParseResult, key: str, line: str, vid: str | None, did: str | None,
         svid: str | None = None, ssid: str | None = None) -> None:
    for fld, value in (("vid", vid), ("did", did), ("svid", svid), ("ssid", ssid)):
        result.pnic(key, fld, hex4(value), line)


# --- lspci -p ---------------------------------------------------------------------------------------------

_P_ROW_RE = re.compile(
    r"^\s*(?P<addr>" + _ADDR + r")\s+(?P<vid>" + _ID + r"):(?P<did>" + _ID + r")\s+(?P<svid>" + _ID + r"):(?P<ssid>"
    + _ID + r")\s+(?P<irq>.*?)\s+(?P<p>[A-Z])\s+(?P<m>[A-Z])(?P<rest>(?:\s+\S+){0,2})\s*$"
)


@register(r"^lspci -p\b", "lspci -p")
def parse_lspci_p(text: str, cmd: CommandLine) -> ParseResult:
    """ESXi ``lspci -p`` (``vmkvsitools lspci -p``): header ``Segm:Bu:De.F Vend:Dvid Subv:Subd ISA/irq/Vect P M
    Module Name`` then ``0000:04:00.0 8086:1533 1043:8557 255/   /     A V igbn         vmnic0`` (§3;
    capture ``esxi_g_lspci_-p_vmkvsitools_header_igbn_atlantic-nodriver_esxi702_skyao.txt``).

    Rows named ``vmnicN`` become pNICs with ``pci_address``, ``vid``, ``did``, ``svid``, ``ssid``,
    ``driver`` (Module column; EMPTY when no driver claimed the device, then unset) and ``is_physical``.
    With a single trailing word its column is decided by its shape (``vmnicN`` is the Name: no module is
    named so), else by the header's offsets. The ``M`` flag (``V`` VMkernel, ``P`` passthrough) goes to ``records``."""
    result = ParseResult(family="lspci -p")
    name_col: int | None = None
    for raw in text.splitlines():
        line = raw.expandtabs()
        if re.match(r"^\s*Segm:Bu:De\.F\s", line):
            name_col = line.find(" Name") + 1 if " Name" in line else None
            continue
        m = _P_ROW_RE.match(line)
        if not m:
            continue
        words = m.group("rest").split()
        module = name = None
        if len(words) == 2:
            module, name = words
        elif len(words) == 1:
            at = line.rfind(words[0])
            if _VMNIC_RE.match(words[0]):
                is_name = True  # a module is never named vmnicN: the value's shape decides before any offset
            else:
                is_name = name_col is not None and at >= name_col - 1
            module, name = (None, words[0]) if is_name else (words[0], None)
        if not name or not _VMNIC_RE.match(name):
            continue
        pci = norm_pci(m.group("addr"))
        result.pnic(name, "pci_address", pci, raw)
        result.pnic(name, "is_physical", True, raw)
        _ids(result, name, raw, m.group("vid"), m.group("did"), m.group("svid"), m.group("ssid"))
        result.pnic(name, "driver", clean(module), raw)
        result.records.append({"family": result.family, "nic": name, "pci": pci,
                               "fields": {"P": m.group("p"), "M": m.group("m"), "Module": module}})
    if not result.pnics:
        result.notes.append("lspci -p: no vmnic rows found")
    return result


# --- lspci -n ---------------------------------------------------------------------------------------------

_N_ROW_RE = re.compile(r"^\s*(?P<addr>" + _ADDR + r")\s+Class\s+(?P<cls>[0-9A-Fa-f]{4}):\s+(?P<vid>" + _ID
                       + r"):(?P<did>" + _ID + r")(?:\s+\[(?P<name>[^\]]*)\])?\s*$")


@register(r"^lspci -n$", "lspci -n")
def parse_lspci_n(text: str, cmd: CommandLine) -> ParseResult:
    """ESXi ``lspci -n``: ``0000:4b:00.0 Class 0200: 8086:1593 [vmnic0]`` (§3; capture
    ``esxi_lspci-n_class0200_mixed_i350_e810_bcm57416_82599_x710.txt``, grep'd on ``Class 0200:``).

    Network functions (class ``0200`` or a ``vmnicN`` name) become pNICs with ``pci_address``, ``vid``,
    ``did``, ``is_physical``; SR-IOV VFs (``[PF_0.202.0_VF_0]``) become records ``{"family", "vf", "pci",
    "vid", "did"}`` only. Linux ``lspci -n`` lines (``00:19.0 0200: 8086:1502``) do not match: note only."""
    result = ParseResult(family="lspci -n")
    for raw in text.splitlines():
        m = _N_ROW_RE.match(raw)
        if not m:
            continue
        name = (m.group("name") or "").strip() or None
        if m.group("cls") != "0200" and not (name and _VMNIC_RE.match(name)):
            continue
        pci = norm_pci(m.group("addr"))
        if name and not _VMNIC_RE.match(name):
            result.records.append({"family": result.family, "vf": name, "pci": pci,
                                   "vid": hex4(m.group("vid")), "did": hex4(m.group("did"))})
            continue
        key = _key(name, pci)
        if key is None:
            continue
        result.pnic(key, "pci_address", pci, raw)
        result.pnic(key, "is_physical", True, raw)
        _ids(result, key, raw, m.group("vid"), m.group("did"))
    if not result.pnics and not result.records:
        result.notes.append("lspci -n: no ESXi 'Class 0200:' rows found")
    return result


# --- lspci -v (ESXi form) ---------------------------------------------------------------------------------

_V_ROW_RE = re.compile(r"^\s*(?P<addr>" + _ADDR + r")\s+(?P<cls>[^:]*?):\s+(?P<desc>.*?)\s*$")
_V_CLASS_RE = re.compile(r"^\s*Class\s+(?P<cls>[0-9A-Fa-f]{4}):\s+(?P<vid>" + _ID + r"):(?P<did>" + _ID + r")\b")


@register(r"^lspci -v$", "lspci -v")
def parse_lspci_v(text: str, cmd: CommandLine) -> ParseResult:
    """ESXi ``lspci -v``: ``0000:04:00.0 Network controller Ethernet controller: <vendor device> [vmnicN]``,
    optionally followed by ``Class 0200: 1d6a:d108`` (captures ``esxi_g_lspci_-v_grep_vmnic_esxi702_skyao.txt``,
    ``esxi_lspci-v_aquantia_aqc108_shows_no_pcie_caps.txt``). ESXi prints no PCIe capabilities here, so only
    ``pci_address``, ``description`` (without the ``[vmnicN]`` suffix), ``vid``/``did`` (from the Class line)
    and ``is_physical`` are recorded, for Ethernet-class functions. Lines without the 4-digit PCI segment
    (Linux pciutils) are not this format: a note says so."""
    result = ParseResult(family="lspci -v")
    current: str | None = None
    for raw in text.splitlines():
        cm = _V_CLASS_RE.match(raw)
        if cm and current:
            _ids(result, current, raw, cm.group("vid"), cm.group("did"))
            continue
        m = _V_ROW_RE.match(raw)
        if not m:
            if raw.strip() and not raw.startswith((" ", "\t")):
                current = None
            continue
        current = None
        if m.group("cls").startswith("Class "):  # an ``lspci -n`` line
            continue
        desc = m.group("desc")
        name = None
        nm = re.search(r"\s*\[(vmnic\d+)\]$", desc)
        if nm:
            name = nm.group(1)
            desc = desc[: nm.start()].rstrip()
        if "ethernet controller" not in m.group("cls").lower() and not name:
            continue
        pci = norm_pci(m.group("addr"))
        key = _key(name, pci)
        if key is None:
            continue
        current = key
        result.pnic(key, "pci_address", pci, raw)
        result.pnic(key, "is_physical", True, raw)
        result.pnic(key, "description", clean(desc), raw)
    if not result.pnics:
        result.notes.append("lspci -v: no ESXi-format network device lines (0000:bb:dd.f … [vmnicN]) found")
    return result


# --- vmkchdev -l ------------------------------------------------------------------------------------------

_K_ROW_RE = re.compile(r"^\s*(?P<addr>" + _ADDR + "|" + _ADDR_OLD + r")\s+(?P<vid>" + _ID + r"):(?P<did>" + _ID
                       + r")\s+(?P<svid>" + _ID + r"):(?P<ssid>" + _ID + r")\s+(?P<owner>\S+)(?:\s+(?P<name>\S+))?\s*$")


@register(r"^vmkchdev -l\b", "vmkchdev -l")
def parse_vmkchdev_l(text: str, cmd: CommandLine) -> ParseResult:
    """``vmkchdev -l``: ``0000:5e:00.0 15b3:1015 15b3:0003 vmkernel vmnic2`` (address, vendor:device,
    subvendor:subdevice, owner ``vmkernel``/``passthru``, name; §3; captures
    ``unattributed_esxi703_nic_list_x722_connectx4lx_vmkchdev.txt`` and the ESX 4.1 form ``000:002:00.0`` in
    ``esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_esxi41_elatov.txt``). Rows named ``vmnicN`` become pNICs with
    ``pci_address``, ``vid``, ``did``, ``svid``, ``ssid``, ``is_physical``; the owner goes to ``records``."""
    result = ParseResult(family="vmkchdev -l")
    for raw in text.splitlines():
        m = _K_ROW_RE.match(raw)
        if not m or not _VMNIC_RE.match(m.group("name") or ""):
            continue
        name = m.group("name")
        pci = _pci(m.group("addr"), result)
        result.pnic(name, "pci_address", pci, raw)
        result.pnic(name, "is_physical", True, raw)
        _ids(result, name, raw, m.group("vid"), m.group("did"), m.group("svid"), m.group("ssid"))
        result.records.append({"family": result.family, "nic": name, "pci": pci, "fields": {"owner": m.group("owner")}})
    if not result.pnics:
        result.notes.append("vmkchdev -l: no vmnic rows found")
    return result


# --- esxcli hardware pci list -----------------------------------------------------------------------------

_HW_KEY_RE = re.compile(r"^\s*([A-Za-z][A-Za-z ./]*?)\s*:\s?(.*?)\s*$")


@register(r"^esxcli hardware pci list\b", "esxcli hardware pci list")
def parse_hardware_pci_list(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli hardware pci list``: one ``Key: Value`` block per PCI function, starting at ``Address:``
    (§3; capture ``esxi_g_esxcfg-nics_-l_and_esxcli_hardware_pci_list_ionic_en_esxi67_pensando-guide.txt``).

    Network functions (``Device Class: 0x0200`` or a ``vmnicN`` ``VMkernel Name``) become pNICs keyed by the
    VMkernel Name, or ``pci:<address>`` when it is empty (ESXi 8.0): ``pci_address``, ``vid``, ``did``,
    ``svid``, ``ssid`` (``0x1dd8`` → ``1dd8``), ``driver`` (``Module Name``, unless ``None``),
    ``description`` (``Vendor Name`` + ``Device Name``, as esxcfg-nics prints it), ``numa_node`` (``NUMA
    Node``, newer builds only) and ``is_physical``. Slot, owner and passthrough keys go to ``records``."""
    result = ParseResult(family="esxcli hardware pci list")
    blocks: list[dict[str, tuple[str, str]]] = []
    for raw in text.splitlines():
        m = _HW_KEY_RE.match(raw)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key == "Address":
            blocks.append({})
        if blocks and key not in blocks[-1]:
            blocks[-1][key] = (value, raw.rstrip())
    for block in blocks:
        _record_hw_block(block, result)
    if not result.pnics:
        result.notes.append("esxcli hardware pci list: no network-class device blocks found")
    return result


def _record_hw_block(block: dict[str, tuple[str, str]], result: ParseResult) -> None:
    def val(k: str) -> str | None:
        return clean(block.get(k, ("", ""))[0])

    def line(k: str) -> str:
        return block.get(k, ("", ""))[1]

    pci = norm_pci(val("Address"))
    name = val("VMkernel Name")
    cls = hex4(val("Device Class"))
    if pci is None or not (cls == "0200" or (name and _VMNIC_RE.match(name))):
        return
    key = _key(name, pci)
    if key is None:
        return
    result.pnic(key, "pci_address", pci, line("Address"))
    result.pnic(key, "is_physical", True, line("Address"))
    for k, fld in (("Vendor ID", "vid"), ("Device ID", "did"), ("SubVendor ID", "svid"), ("SubDevice ID", "ssid")):
        result.pnic(key, fld, hex4(val(k)), line(k))
    result.pnic(key, "driver", val("Module Name"), line("Module Name"))
    vendor, device = val("Vendor Name"), val("Device Name")
    if vendor and device:
        result.pnic(key, "description", f"{vendor} {device}", f"{line('Vendor Name')}\n{line('Device Name')}")
    numa = to_int(val("NUMA Node"))
    if numa is not None and numa >= 0:
        result.pnic(key, "numa_node", numa, line("NUMA Node"))
    extra: dict[str, Any] = {}
    for k in ("Current Owner", "Configured Owner", "Physical Slot", "Slot Description", "Parent Device",
              "Passthru Capable", "Reset Method", "Device Class Name"):
        if k in block:
            v = val(k)
            extra[k] = to_bool(v) if k == "Passthru Capable" else v
    result.records.append({"family": result.family, "nic": key, "pci": pci, "fields": extra})

