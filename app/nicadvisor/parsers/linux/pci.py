"""Linux PCIe link facts: ``lspci -vv`` (LnkCap/LnkSta); the kernel log's PCIe lines are read by
:mod:`nicadvisor.parsers.linux.kernel_log`.

Facts are keyed ``"pci:0000:bb:dd.f"`` (the outputs name only the device address; ``b3:00.0`` is
normalised to ``0000:b3:00.0``); the assembler joins them to the interface with that address.
Speeds are GT/s per lane (float), widths lanes (int). Sources: nic-data-sources.md §10 (Linux) and
§14 item 13; capture ``linux_lspci-vv_connectx6dx_lnkcap_partial.txt``.

The sysfs attributes (``current_link_speed`` …) are read by :mod:`nicadvisor.parsers.linux.sysfs`.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult, hex4, norm_pci, to_int
from nicadvisor.parsers.registration import register

# --- lspci -vv -------------------------------------------------------------------------------------

_DEVICE_RE = re.compile(
    r"^(?P<addr>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+"
    r"(?P<cls>[^:\[]+?)(?:\s+\[(?P<clsid>[0-9a-fA-F]{4})\])?:\s+(?P<desc>.*?)\s*$"
)
_NET_CLASS_RE = re.compile(r"(?i)\b(?:ethernet|network|infiniband|fabric) controller\b")
_LNK_RE = re.compile(
    r"(?P<reg>LnkCap|LnkSta):[^\n]{0,120}?\bSpeed\s+(?P<speed>[0-9.]+\s*GT/s|unknown)(?:\s*\((?:ok|downgraded)\))?\s*,"
    r"\s*Width\s+x(?P<width>\d+)",
    re.I,
)
#: The wording of lspci before pciutils 2.2.5 named the registers (LKML 2006, capture
#: ``tests/parsers/captures/linux_lspci-vv_old_link_wording_82571EB_2.6.19_lkml_wrapped.txt``): ``Link: Supported Speed
#: 2.5Gb/s, Width x4, ASPM L0s L1, Port 1`` is the Link Capabilities register, ``Link: Speed 2.5Gb/s, Width x4`` the
#: Link Status; "Gb/s" there is the per-lane transfer rate (2.5 = Gen1).
_OLD_LNK_RE = re.compile(
    r"^\s*Link:\s+(?P<sup>Supported\s+)?Speed\s+(?P<speed>[0-9.]+)\s*G[bT]/s\s*,\s*Width\s+x(?P<width>\d+)", re.I)
_IDS_RE = re.compile(r"\[(?P<v>[0-9a-fA-F]{4}):(?P<d>[0-9a-fA-F]{4})\]")
_NUMA_RE = re.compile(r"^\s*NUMA node:\s*(?P<n>-?\d+)\b")
# Keys that start a line of lspci -vv; a whitespace-flattened copy is split back before them.
_SPLIT_RE = re.compile(
    r"(?<!\s)\s+(?=(?:Subsystem|Control|Status|Latency|Interrupt|NUMA node|Region \d+|Expansion ROM|Capabilities|"
    r"DevCap|DevCtl|DevSta|LnkCap|LnkCtl|LnkSta|Kernel driver in use|Kernel modules)\b[^:]{0,20}:)"
)
_SUBSYS_RE = re.compile(r"^\s*Subsystem:\s*(?P<desc>.*?)\s*$")
_KDRIVER_RE = re.compile(r"^\s*Kernel driver in use:\s*(?P<drv>\S+)\s*$")


def gts(text: str | None) -> float | None:
    """``"16GT/s"``, ``"8.0 GT/s PCIe"``, ``"2.5"`` → GT/s per lane as float; ``unknown``/``Unknown`` → None."""
    if not text:
        return None
    m = re.match(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(?:GT/s)?", text)
    if not m:
        return None
    value = float(m.group(1))
    return value if value > 0 else None


def link_fields(line: str) -> tuple[str, float | None, int | None] | None:
    """Read one ``LnkCap:``/``LnkSta:`` line: (register, speed GT/s or None, width lanes or None).

    ``(ok)``/``(downgraded)`` suffixes (newer pciutils) are ignored; ``Speed unknown`` (old pciutils on
    Gen4, §14 item 13) gives None; width 0 gives None. The wording before LnkCap/LnkSta existed, ``Link: Supported
    Speed 2.5Gb/s, Width x4, …`` / ``Link: Speed 2.5Gb/s, Width x4``, is read as ``LnkCap`` / ``LnkSta``
    (:data:`_OLD_LNK_RE`). Returns None for any other line.
    """
    m = _LNK_RE.search(line)
    if not m:
        old = _OLD_LNK_RE.match(line)
        if not old:
            return None
        width = int(old.group("width"))
        return ("LnkCap" if old.group("sup") else "LnkSta"), gts(old.group("speed")), width or None
    width = int(m.group("width"))
    return m.group("reg"), gts(m.group("speed")), width or None


def _s_option(cmd: CommandLine) -> str | None:
    """The device address given with ``-s BDF`` (None when absent or not a full address)."""
    argv = list(cmd.argv)
    for i, word in enumerate(argv):
        if word == "-s" and i + 1 < len(argv):
            return norm_pci(argv[i + 1])
        if word.startswith("-s") and len(word) > 2:
            return norm_pci(word[2:])
    return None


def _d_option(cmd: CommandLine) -> tuple[str, str] | None:
    """(VID, DID) of ``-d vvvv:dddd`` (None when absent or a wildcard)."""
    argv = list(cmd.argv)
    for i, word in enumerate(argv):
        value = argv[i + 1] if word == "-d" and i + 1 < len(argv) else word[2:] if word.startswith("-d") else ""
        m = re.fullmatch(r"([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,4})(?::[0-9a-fA-F]{1,4})?", value)
        if m:
            return hex4(m.group(1)), hex4(m.group(2))
    return None


@register(r"^lspci\b(?!.*\s-[A-Za-z]*mm)(?:.*\s)?-[A-Za-z]*(?:vv|k)", "lspci -vv")
def parse_lspci_vv(text: str, cmd: CommandLine) -> ParseResult:
    """Parse Linux ``lspci -vv`` / ``-vvv`` / ``-nnvv`` (root needed for the Express capability), and the shorter
    ``lspci -k`` (device lines with ``Subsystem:`` and ``Kernel driver in use:``, no capabilities:
    captures ``linux_lspci-k_thinkpad_x240_i218lm_e1000e_insights-core.txt``,
    ``linux_lspci-k_hyperv_connectx4lx_vf_domain_1a06_insights-core.txt``). The flags as written apart or together
    (``lspci -v -v -s …``) are one spelling by then (:func:`nicadvisor.parsers.command_text.normalise`).

    For each network-class device (Ethernet/Network/Infiniband/Fabric controller, or class ``02xx``):
    ``pcie_speed_capable_gts``/``pcie_width_capable`` ← ``LnkCap: … Speed 16GT/s, Width x16`` (old pciutils:
    ``Link: Supported Speed 2.5Gb/s, Width x4``), ``pcie_speed_gts``/``pcie_width`` ← ``LnkSta`` (``Link: Speed …``), ``numa_node`` ← ``NUMA node:``, ``description``
    (device text without ``[vvvv:dddd]``/``(rev …)``), with ``-nn`` also ``vid``/``did``/``svid``/``ssid``,
    and ``driver`` ← ``Kernel driver in use:``. Keys are ``pci:<address>``; other device classes are
    skipped. A text without device header lines (a grep-filtered excerpt) is read as the device of ``-s BDF``, else
    of ``-d VID:DID`` (a pNIC named ``pci-id:<vid>:<did>``).
    Capture: ``linux_lspci-vv_connectx6dx_lnkcap_partial.txt`` (LnkCap only). Never raises.
    """
    result = ParseResult(family="lspci -vv")
    key: str | None = None
    skipped = 0
    fallback = _s_option(cmd)
    headless = not any(_DEVICE_RE.match(line) for line in text.splitlines())
    ids = _d_option(cmd)
    if fallback and headless:
        key = f"pci:{fallback}"
    elif ids and headless:  # "lspci -vv -d 15b3:101d | grep Lnk": one device, known by its IDs only
        key = f"pci-id:{ids[0]}:{ids[1]}"
        result.pnic(key, "vid", ids[0], cmd.raw)
        result.pnic(key, "did", ids[1], cmd.raw)
    lines = [part for line in text.splitlines() for part in _SPLIT_RE.split(line)]
    for line in lines:
        dev = _DEVICE_RE.match(line)
        if dev:
            addr = norm_pci(dev.group("addr"))
            is_net = bool(_NET_CLASS_RE.search(dev.group("cls"))) or (dev.group("clsid") or "").startswith("02")
            key = f"pci:{addr}" if addr and is_net else None
            if addr and not is_net:
                skipped += 1
            if key:
                desc = dev.group("desc")
                ids = list(_IDS_RE.finditer(desc))
                if ids:
                    result.pnic(key, "vid", hex4(ids[-1].group("v")), line)
                    result.pnic(key, "did", hex4(ids[-1].group("d")), line)
                clean = re.sub(r"\s*\(rev [0-9a-fA-F]+\)\s*$", "", desc)
                clean = _IDS_RE.sub("", clean).strip()
                result.pnic(key, "description", clean or None, line)
            continue
        if not key:
            continue
        lf = link_fields(line)
        if lf:
            reg, speed, width = lf
            if reg.lower() == "lnkcap":
                result.pnic(key, "pcie_speed_capable_gts", speed, line.strip())
                result.pnic(key, "pcie_width_capable", width, line.strip())
            else:
                result.pnic(key, "pcie_speed_gts", speed, line.strip())
                result.pnic(key, "pcie_width", width, line.strip())
            continue
        m = _NUMA_RE.match(line)
        if m:
            node = to_int(m.group("n"))
            result.pnic(key, "numa_node", node if node is not None and node >= 0 else None, line.strip())
            continue
        m = _SUBSYS_RE.match(line)
        if m:
            ids = list(_IDS_RE.finditer(m.group("desc")))
            if ids:
                result.pnic(key, "svid", hex4(ids[-1].group("v")), line.strip())
                result.pnic(key, "ssid", hex4(ids[-1].group("d")), line.strip())
            continue
        m = _KDRIVER_RE.match(line)
        if m:
            result.pnic(key, "driver", m.group("drv"), line.strip())
    if skipped and not result.pnics:
        result.records.append({"devices_skipped": skipped, "reason": "no network-class device in the output"})
    return result


# --- lspci -vmm / -vmmkn / -mm / -nnmm (machine-readable) ------------------------------------------------------

#: ``Tag:<TAB>value`` of ``lspci -vmm`` (lspci(8) "Machine readable output": one record per device, blank lines
#: between records); with ``-n`` the values are IDs (``Vendor: 8086``), with ``-nn`` names and IDs (``Vendor: Intel
#: Corporation [8086]``), without either names only.
_MM_TAG_RE = re.compile(r"^(?P<tag>Slot|Class|Vendor|Device|SVendor|SDevice|Driver|NUMANode|PhySlot|Rev|ProgIf|Module|"
                        r"IOMMUGroup):\s*(?P<value>.*?)\s*$")
#: One line per device of ``lspci -mm`` / ``-nnmm``: the slot, then quoted class, vendor, device, options
#: (``-rNN``, ``-pNN``), quoted subsystem vendor and subsystem device.
_MM_LINE_RE = re.compile(r'^(?P<slot>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(?P<rest>".*)$')
_MM_FIELD_RE = re.compile(r'"([^"]*)"|(-[rp]\S*)')
_TRAILING_ID_RE = re.compile(r"^(?P<name>.*?)\s*\[(?P<id>[0-9a-fA-F]{4})\]$")


def _name_and_id(value: str, numeric: bool) -> tuple[str | None, str | None]:
    """``"Intel Corporation [8086]"`` → (name, ``"8086"``); ``"8086"`` under ``-n`` → (None, ``"8086"``); a name
    alone → (name, None)."""
    m = _TRAILING_ID_RE.match(value)
    if m:
        return m.group("name") or None, hex4(m.group("id"))
    if numeric and re.fullmatch(r"[0-9a-fA-F]{4}", value):
        return None, hex4(value)
    return value or None, None


def _record_machine(result: ParseResult, fields: dict[str, tuple[str, str]], numeric: bool) -> None:
    """One device's ``{tag: (value, line)}`` into ``result`` when it is a network function (class ``02xx`` or a
    network class name): key ``pci:<slot>``."""
    slot = fields.get("Slot")
    cls = fields.get("Class")
    if not slot or not cls:
        return
    cls_name, cls_id = _name_and_id(cls[0], numeric)
    if not ((cls_id or "").startswith("02") or _NET_CLASS_RE.search(cls_name or "")):
        return
    addr = norm_pci(slot[0])
    if not addr:
        result.notes.append(f"lspci machine-readable: slot {slot[1].strip()!r} is no PCI address; device skipped")
        return
    key = f"pci:{addr}"
    result.pnic(key, "pci_address", addr, slot[1])
    names: list[str] = []
    for tag, fact in (("Vendor", "vid"), ("Device", "did"), ("SVendor", "svid"), ("SDevice", "ssid")):
        if tag in fields:
            name, ident = _name_and_id(fields[tag][0], numeric)
            result.pnic(key, fact, ident, fields[tag][1])
            if name and tag in ("Vendor", "Device"):
                names.append(name)
    if names:
        result.pnic(key, "description", " ".join(names), (fields.get("Device") or fields["Vendor"])[1])
    if "Driver" in fields:
        result.pnic(key, "driver", fields["Driver"][0] or None, fields["Driver"][1])
    if "NUMANode" in fields:
        node = to_int(fields["NUMANode"][0])
        result.pnic(key, "numa_node", node if node is not None and node >= 0 else None, fields["NUMANode"][1])


@register(r"^lspci\b.*\s-[A-Za-z]*mm", "lspci -vmm")
def parse_lspci_machine(text: str, cmd: CommandLine) -> ParseResult:
    """Parse lspci's machine-readable forms (lspci(8) "Machine readable output"): ``lspci -vmm`` / ``-vmmk`` /
    ``-vmmkn`` / ``-vmmnn`` (one ``Tag: value`` record per device: ``Slot``, ``Class``, ``Vendor``, ``Device``,
    ``SVendor``, ``SDevice``, ``Driver``, ``NUMANode``; blank lines between records) and ``lspci -mm`` / ``-nnmm``
    (one line per device: slot, then quoted class, vendor, device, ``-rNN``, quoted subsystem vendor and device).

    For each network function (class ``02xx`` or a network class name) keyed ``pci:<address>``: ``pci_address``,
    ``vid``/``did``/``svid``/``ssid`` (the IDs ``-n`` prints, or the ``[xxxx]`` of ``-nn``), ``description``
    (vendor and device names, when printed), ``driver``, ``numa_node`` (-1 = none: unknown). Captures
    ``linux_lspci-vmmkn_thinkpad_x240_i218lm_e1000e_insights-core.txt``,
    ``linux_lspci-vmmkn_hyperv_connectx4lx_vf_domain_1a06_numa0_insights-core.txt``. Never raises."""
    result = ParseResult(family="lspci -vmm")
    numeric = any(w.startswith("-") and not w.startswith("--") and "n" in w for w in cmd.argv[1:])
    fields: dict[str, tuple[str, str]] = {}
    for line in text.splitlines() + [""]:
        m = _MM_TAG_RE.match(line)
        if m:
            if m.group("tag") == "Slot" and fields:
                _record_machine(result, fields, numeric)
                fields = {}
            fields.setdefault(m.group("tag"), (m.group("value"), line))
            continue
        if not line.strip():
            if fields:
                _record_machine(result, fields, numeric)
            fields = {}
            continue
        m = _MM_LINE_RE.match(line.strip())
        if m:
            quoted = [q for q, _opt in _MM_FIELD_RE.findall(m.group("rest")) if not _opt]
            quoted += [""] * (5 - len(quoted))
            # the subsystem pair is optional: an empty "" pair when the device has none (lspci(8))
            one = {"Slot": (m.group("slot"), line), "Class": (quoted[0], line), "Vendor": (quoted[1], line),
                   "Device": (quoted[2], line)}
            if quoted[3]:
                one["SVendor"] = (quoted[3], line)
            if quoted[4]:
                one["SDevice"] = (quoted[4], line)
            _record_machine(result, {k: v for k, v in one.items() if v[0]}, numeric)
    if not result.pnics:
        result.notes.append("lspci machine-readable: no network-class device (Class 02xx) in the output")
    return result
