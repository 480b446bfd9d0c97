"""Linux interface facts from sysfs (``cat /sys/...``, ``readlink /sys/class/net/IF``) and iproute2
(``ip -d -j link show``).

These are the outputs the local collector (:mod:`nicadvisor.collect.local_linux`) records, one
attribute per ``cat``; a ``cat`` of several files (``current_link_{speed,width}`` brace form, or
several paths) maps its output lines to the files in order when the counts match.

Keys: ``/sys/class/net/IF/...`` → ``IF``; ``/sys/bus/pci/devices/BDF/...`` and ``/sys/devices/.../BDF/...``
→ ``"pci:BDF"``; any other ``/sys/<class>/<name>/...`` path (the fixture
``linux_sysfs_current_link_speed_width.txt`` reads ``/sys/block/nvme0n1/device/device/``) → ``name``.

Attributes (nic-data-sources.md §3, §4, §5, §10; kernel ABI ``sysfs-class-net`` / ``sysfs-bus-pci``):

* interface (``/sys/class/net/IF/<attr>``): ``mtu`` (bytes), ``operstate`` (``up`` → ``link_up``
  True, ``down``/``lowerlayerdown`` → False), ``carrier`` (1/0 → ``link_up``), ``speed`` (Mbit/s;
  ``-1``/``4294967295``/0 → unknown), ``duplex`` (``full``/``half``), ``address`` (→ ``mac``),
  ``flags`` (hex; bit 0 IFF_UP → ``admin_up``);
* PCI device (``…/device/<attr>`` or a PCI device directory): ``vendor``/``device``/
  ``subsystem_vendor``/``subsystem_device`` (``0x8086`` → ``vid``/``did``/``svid``/``ssid``),
  ``current_link_speed`` (``8.0 GT/s PCIe`` → ``pcie_speed_gts`` 8.0), ``current_link_width`` (``4``
  → ``pcie_width``), ``max_link_speed``/``max_link_width`` (→ ``*_capable``), ``numa_node`` (-1 →
  unknown).

A value that means "unknown" is kept as a record so the output still counts as read.
"""
from __future__ import annotations

import json
import re

from nicadvisor.parsers.base import CommandLine, ParseResult, hex4, norm_pci, to_int
from nicadvisor.parsers.framing import is_command_echo
from nicadvisor.parsers.linux.pci import gts
from nicadvisor.parsers.linux.pseudo import software_device
from nicadvisor.parsers.registration import register

_BDF = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_BDF_RE = re.compile(rf"^{_BDF}$")
def _is_prompt(line: str) -> bool:
    """An echoed ``cat``/``readlink`` command or any other prompt line (:func:`framing.is_command_echo`)."""
    return is_command_echo(line) is not None

_NET_ATTRS = {"mtu", "operstate", "carrier", "speed", "duplex", "address", "flags"}
_PCI_ATTRS = {
    "vendor": "vid", "device": "did", "subsystem_vendor": "svid", "subsystem_device": "ssid",
    "current_link_speed": "pcie_speed_gts", "current_link_width": "pcie_width",
    "max_link_speed": "pcie_speed_capable_gts", "max_link_width": "pcie_width_capable",
    "numa_node": "numa_node",
}


def expand_braces(path: str) -> list[str]:
    """``/a/current_link_{speed,width}`` → ``["/a/current_link_speed", "/a/current_link_width"]`` (one level,
    several groups allowed); a path without braces is returned alone."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(path[:m.start()] + alt + path[m.end():]))
    return out


def sysfs_target(path: str) -> tuple[str, str, str] | None:
    """Classify a sysfs file path: (key, kind, attribute) with kind ``"net"`` or ``"pci"``; None when the
    path is not one this module reads.

    ``/sys/class/net/eth0/mtu`` → ("eth0", "net", "mtu"); ``/sys/class/net/eth0/device/vendor`` →
    ("eth0", "pci", "vendor"); ``/sys/bus/pci/devices/0000:b3:00.0/current_link_speed`` →
    ("pci:0000:b3:00.0", "pci", "current_link_speed"); ``/sys/block/nvme0n1/device/device/current_link_width``
    → ("nvme0n1", "pci", "current_link_width") (:func:`parse_sysfs_cat` marks such a device ``is_physical`` False:
    it is no network interface).
    """
    parts = [p for p in path.split("/") if p]
    if len(parts) < 3 or parts[0] != "sys" or ".." in parts:
        return None
    attr = parts[-1]
    if parts[1:3] == ["class", "net"] and len(parts) >= 5:
        name, middle = parts[3], parts[4:-1]
        if not middle and attr in _NET_ATTRS:
            return name, "net", attr
        if middle and all(p == "device" for p in middle) and attr in _PCI_ATTRS:
            return name, "pci", attr
        return None
    if attr not in _PCI_ATTRS:
        return None
    bdfs = [p for p in parts[:-1] if _BDF_RE.match(p)]
    if parts[1:4] == ["bus", "pci", "devices"] or parts[1] == "devices":
        if bdfs and parts[-2] == bdfs[-1]:
            return f"pci:{norm_pci(bdfs[-1])}", "pci", attr
        return None
    # /sys/class/<cls>/<name>/device/.../attr or /sys/block/<name>/device/.../attr
    if parts[1] == "class" and len(parts) >= 6:
        name, middle = parts[3], parts[4:-1]
    elif parts[1] == "block" and len(parts) >= 5:
        name, middle = parts[2], parts[3:-1]
    else:
        return None
    if middle and all(p == "device" for p in middle):
        return name, "pci", attr
    return None


def _record_value(result: ParseResult, key: str, kind: str, attr: str, value: str, raw: str) -> None:
    """Record one attribute's value; an unknown value becomes a record."""
    before = len(result.pnics.get(key, {}))
    v = value.strip()
    if kind == "net":
        if attr == "mtu":
            result.pnic(key, "mtu", to_int(v) or None, raw)
        elif attr == "operstate":
            state = v.lower()
            result.pnic(key, "link_up", True if state == "up" else False if state in ("down", "lowerlayerdown") else None, raw)
        elif attr == "carrier":
            result.pnic(key, "link_up", {"1": True, "0": False}.get(v), raw)
        elif attr == "speed":
            n = to_int(v)
            result.pnic(key, "link_speed_mbps", n if n is not None and 0 < n < 4294967295 else None, raw)
        elif attr == "duplex":
            result.pnic(key, "duplex", v.lower() if v.lower() in ("full", "half") else None, raw)
        elif attr == "address":
            mac = v.lower()
            result.pnic(key, "mac", mac if re.fullmatch(r"[0-9a-f]{2}(?::[0-9a-f]{2}){5}", mac) else None, raw)
        elif attr == "flags":
            n = to_int(v)
            result.pnic(key, "admin_up", bool(n & 1) if n is not None else None, raw)
    else:
        field_name = _PCI_ATTRS[attr]
        if field_name in ("vid", "did", "svid", "ssid"):
            result.pnic(key, field_name, hex4(v), raw)
        elif field_name in ("pcie_speed_gts", "pcie_speed_capable_gts"):
            result.pnic(key, field_name, gts(v), raw)
        elif field_name in ("pcie_width", "pcie_width_capable"):
            result.pnic(key, field_name, to_int(v.lstrip("xX")) or None, raw)
        elif field_name == "numa_node":
            n = to_int(v)
            result.pnic(key, "numa_node", n if n is not None and n >= 0 else None, raw)
    if len(result.pnics.get(key, {})) == before:
        result.records.append({"key": key, "attribute": attr, "value": v, "meaning": "unknown or already known"})


@register(r"^cat\s+(?:\S+\s+)*/sys/", "cat /sys")
def parse_sysfs_cat(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``cat`` of sysfs attribute files (see the module docstring for paths and fields).

    Output lines are matched to the files named on the command line (braces expanded) in order; echoed
    prompt lines and blank lines are ignored. When the counts differ, nothing is guessed and a note
    says so. Captures: ``linux_sysfs_current_link_speed_width.txt`` (``8.0 GT/s PCIe`` / ``4``) and
    the local collector's per-attribute captures. Never raises.
    """
    result = ParseResult(family="cat /sys")
    paths: list[str] = []
    for word in cmd.argv[1:]:
        if not word.startswith("-"):
            paths.extend(expand_braces(word))
    targets = [sysfs_target(p) for p in paths]
    lines = [ln for ln in text.splitlines() if ln.strip() and not _is_prompt(ln)]
    if not any(targets):
        result.notes.append(f"no known sysfs attribute in {cmd.raw!r}")
        return result
    if len(lines) != len(paths):
        result.notes.append(f"{len(lines)} output line(s) for {len(paths)} file(s) in {cmd.raw!r}: values not matched to files")
        return result
    for path, target, line in zip(paths, targets, lines):
        if target:
            key, kind, attr = target
            _record_value(result, key, kind, attr, line, f"{path}: {line.strip()}")
            if not path.startswith(("/sys/class/net/", "/sys/bus/pci/", "/sys/devices/")) and key in result.pnics:
                # /sys/block/nvme0n1/device/…: the PCI link of a disk or another class's device, never a pNIC
                result.pnic(key, "is_physical", False, f"{path}: not under /sys/class/net (no network interface)")
    return result


@register(r"^readlink\s+(?:-\S+\s+)*/sys/class/net/", "readlink /sys/class/net")
def parse_sysfs_readlink(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``readlink [-f] /sys/class/net/IF`` (where the interface's device lives).

    ``…/devices/virtual/net/IF`` → ``is_physical`` False (veth, bond, VLAN, bridge, dummy…);
    ``…/0000:02:00.0/net/IF`` (a PCI function, possibly with a ``virtioN`` node between) →
    ``pci_address`` and ``is_physical`` True; other buses (USB…) are left unknown. Never raises.
    """
    result = ParseResult(family="readlink /sys/class/net")
    names = [w for w in cmd.argv[1:] if not w.startswith("-")]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not _is_prompt(ln)]
    if len(names) != len(lines):
        result.notes.append(f"{len(lines)} output line(s) for {len(names)} path(s) in {cmd.raw!r}")
        return result
    for path, target in zip(names, lines):
        parts = [p for p in path.split("/") if p]
        if len(parts) != 4 or parts[:3] != ["sys", "class", "net"]:
            continue
        key = parts[3]
        tparts = [p for p in target.split("/") if p and p != ".."]
        raw = f"{path} -> {target}"
        if "virtual" in tparts[:-1] and "devices" in tparts:
            result.pnic(key, "is_physical", False, raw)
            continue
        if len(tparts) >= 3 and tparts[-2] == "net":
            between: list[str] = []
            for p in reversed(tparts[:-2]):
                if _BDF_RE.match(p):
                    if all(re.fullmatch(r"virtio\d+", b) for b in between):
                        result.pnic(key, "pci_address", norm_pci(p), raw)
                        result.pnic(key, "is_physical", True, raw)
                    break
                between.append(p)
        if key not in result.pnics:
            result.records.append({"key": key, "device_path": target, "meaning": "not a PCI or virtual device"})
    return result


#: iproute2 prints an interface name's bytes as they are inside its JSON strings, control bytes included (a name may
#: hold ESC or BEL: only "/", ":" and white space are refused by the kernel's dev_valid_name): such JSON is read with
#: control characters allowed in strings (``strict=False``), so that one such name never costs the other interfaces.
_TOLERANT_JSON = json.JSONDecoder(strict=False)


@register(r"^ip\s+(?=(?:-\S+\s+)*-j)(?:-\S+\s+)*link\b", "ip -j link show")
def parse_ip_link_json(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``ip -d -j link show`` (JSON, iproute2).

    Per interface (``ifname``; loopback entries skipped): ``mtu`` (bytes), ``mac`` (``address`` of
    ``link_type`` ether), ``admin_up`` (``UP`` in ``flags``), ``link_up`` (``operstate`` UP/DOWN;
    UNKNOWN → unset), ``is_physical`` False when ``linkinfo.info_kind`` names a software device (veth,
    bond, vlan, bridge, …), and True with ``pci_address`` when ``parentbus`` is ``pci`` (newer
    iproute2 prints ``parentbus``/``parentdev``). Text before the JSON array (a prompt) is skipped; a
    text with no JSON array gets a note. Raw control bytes inside its strings (iproute2 prints a name's bytes as
    they are) are read, not refused: the other interfaces are kept. Never raises.
    """
    result = ParseResult(family="ip -j link show")
    start = text.find("[")
    data = None
    while start != -1:
        try:
            data, _ = _TOLERANT_JSON.raw_decode(text[start:])
            break
        except ValueError:
            start = text.find("[", start + 1)
    if not isinstance(data, list):
        result.notes.append("no JSON array found (only the JSON output of 'ip -j link show' is read)")
        return result
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("ifname"), str):
            continue
        if entry.get("link_type") == "loopback":
            continue
        key = entry["ifname"]
        raw_base = f'{{"ifname": "{key}", ...}}'
        flags = entry.get("flags") if isinstance(entry.get("flags"), list) else []
        if isinstance(entry.get("mtu"), int) and entry["mtu"] > 0:
            result.pnic(key, "mtu", entry["mtu"], f'{raw_base} "mtu": {entry["mtu"]}')
        addr = entry.get("address")
        if entry.get("link_type") == "ether" and isinstance(addr, str):
            result.pnic(key, "mac", addr.lower(), f'{raw_base} "address": "{addr}"')
        if flags:
            result.pnic(key, "admin_up", "UP" in flags, f'{raw_base} "flags": {json.dumps(flags)}')
        state = str(entry.get("operstate", "")).upper()
        link_up = True if state == "UP" else False if state in ("DOWN", "LOWERLAYERDOWN") else None
        result.pnic(key, "link_up", link_up, f'{raw_base} "operstate": "{entry.get("operstate")}"')
        info = entry.get("linkinfo") if isinstance(entry.get("linkinfo"), dict) else {}
        kind = info.get("info_kind")
        if isinstance(kind, str) and kind:
            result.pnic(key, "is_physical", False, f'{raw_base} "linkinfo": {{"info_kind": "{kind}"}}')
        elif software_device(key, [str(f) for f in flags]):
            result.pnic(key, "is_physical", False, f'{raw_base} "flags": {json.dumps(flags)}')
        elif _REPRESENTOR_RE.match(str(entry.get("phys_port_name", ""))):
            result.pnic(key, "is_physical", False, f'{raw_base} "phys_port_name": "{entry["phys_port_name"]}"')
        elif entry.get("parentbus") == "pci" and norm_pci(str(entry.get("parentdev", ""))):
            raw = f'{raw_base} "parentbus": "pci", "parentdev": "{entry["parentdev"]}"'
            result.pnic(key, "pci_address", norm_pci(str(entry["parentdev"])), raw)
            result.pnic(key, "is_physical", True, raw)
    return result


# --- ip link show / ip addr show (text) -----------------------------------------------------------------------

_IP_HEADER_RE = re.compile(r"^\s*\d{1,9}:\s+(?P<name>[^\s:@]{1,64})(?P<at>@\S{1,64})?:\s+<(?P<flags>[A-Z0-9_,-]{0,200})>"
                           r"(?P<rest>[^\n]{0,2000})$")
_IP_MTU_RE = re.compile(r"\bmtu (?P<mtu>\d{2,6})\b")
_IP_STATE_RE = re.compile(r"\bstate (?P<state>[A-Z]{2,20})\b")
_IP_ETHER_RE = re.compile(r"^\s*link/ether (?P<mac>[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5})\b")
#: ``master bond0`` / ``master virbr0`` in an interface's header line: the bond or bridge it is enslaved to.
_IP_MASTER_RE = re.compile(r"\bmaster (?P<master>[^\s:]{1,64})")
#: The link type line of a tunnel or point-to-point device (no Ethernet port whatever its name): ``link/ipip``,
#: ``link/gre``, ``link/sit``, ``link/tunnel6``, ``link/gre6``, ``link/ppp``, ``link/none`` (tun, WireGuard) and the
#: ``link/[65534]`` iproute2 prints for ARPHRD_NONE when it has no name for it (iproute2 lib/ll_types.c).
_IP_TUNNEL_LINK_RE = re.compile(r"^\s*link/(?P<type>ipip|gre|gre6|sit|tunnel6|ip6tnl|ip6gre|ppp|none|\[65534\])"
                                r"(?:\s|$)")
#: ``ip -d link`` prints the device kind first on the line after ``link/ether`` (``veth``, ``bridge``, ``bond``,
#: ``vlan protocol 802.1Q id 10`` …): a software device (iproute2 ip/iplink.c, the ``linkinfo`` kinds).
#: ``ip -d link``'s device of an interface (iproute2 since 5.x: ``parentbus pci parentdev 0000:37:00.0``, ip-link(8)),
#: and the switchdev port name that tells a VF or SF representor (``portname pf0vf0``, ``c1pf0vf3``, ``pf0sf1``) from
#: the physical port (``portname p0``): a representor shares its PF's parentdev but is no port of its own.
_IP_PARENT_RE = re.compile(r"\bparentbus (?P<bus>\S{1,32}) parentdev (?P<dev>\S{1,64})")
_IP_PORTNAME_RE = re.compile(r"\bportname (?P<port>\S{1,32})")
_REPRESENTOR_RE = re.compile(r"^(?:c\d+)?pf\d+(?:vf|sf)\d+$")
_IP_KIND_RE = re.compile(r"^\s*(?P<kind>veth|bridge|bond|vlan|macvlan|macvtap|ipvlan|vxlan|geneve|dummy|team|tun|"
                         r"tap|ifb|bridge_slave|bond_slave|team_slave)\b")


@register(r"^ip\s+(?!(?:-\S+\s+)*-j)(?:-\S+\s+)*(?:link|l|addr|address|a)(?:\s|$)", "ip link show")
def parse_ip_link_text(text: str, cmd: CommandLine) -> ParseResult:
    """Parse the text form of ``ip [-d] [-o] link show`` (and ``ip addr show``, whose per-interface header is the
    same), as admins paste it. Per interface (the loopback skipped): ``mtu`` (bytes), ``admin_up`` (``UP`` in the
    flags), ``link_up`` (True with ``LOWER_UP``; False with ``NO-CARRIER`` or ``state DOWN``/``LOWERLAYERDOWN``;
    else unset), ``mac`` (``link/ether``), ``is_physical`` False for a name with ``@peer`` (veth, VLAN, macvlan),
    a software kind under ``-d`` (veth, bridge, bond, vlan …) or a software device's name or flag
    (:func:`software_device`: ``bond0``, ``docker0``, ``virbr0``, a ``MASTER``); under ``-d``, ``parentbus pci
    parentdev 0000:37:00.0`` gives ``pci_address`` and ``is_physical`` True (a physical port), except for a switchdev
    representor (``portname pf0vf0``: ``is_physical`` False, its parentdev is its PF's); another parentbus
    (``virtio``) says nothing. A tunnel or point-to-point link type (``link/ipip``, ``link/gre``, ``link/none``,
    ``link/ppp`` …, whatever the device's name) gives ``is_physical`` False; ``master bond1`` in the header gives
    ``master`` (captures ``linux_ip_addr_eth7_master_bond1_ipip_tunl0_ip.tun2_insights-core.txt``,
    ``linux_ip-s_link_bridge_members_master_virbr0_tun0_link_none_ppp0_insights-core.txt``). The one-line form (``-o``, lines joined by ``\\``)
    is read too. Source: iproute2 ``ip link`` output (ip-link(8)); real outputs are made at test time in a network
    namespace. Never raises."""
    result = ParseResult(family="ip link show")
    key: str | None = None
    for raw in text.replace("\\", "\n").splitlines():
        h = _IP_HEADER_RE.match(raw)
        if h:
            flags = h.group("flags").split(",")
            key = None if "LOOPBACK" in flags else h.group("name")
            if key is None:
                continue
            line = raw.strip()
            rest = h.group("rest")
            mtu = _IP_MTU_RE.search(rest)
            if mtu:
                result.pnic(key, "mtu", int(mtu.group("mtu")), line)
            result.pnic(key, "admin_up", "UP" in flags, line)
            state = _IP_STATE_RE.search(rest)
            st = state.group("state") if state else ""
            link_up = True if "LOWER_UP" in flags else False if ("NO-CARRIER" in flags or st in ("DOWN",
                                                                                                 "LOWERLAYERDOWN")) else None
            result.pnic(key, "link_up", link_up, line)
            if h.group("at") or software_device(key, flags):
                result.pnic(key, "is_physical", False, line)
            master = _IP_MASTER_RE.search(rest)
            if master:
                result.pnic(key, "master", master.group("master"), line)
            continue
        if key is None:
            continue
        port = _IP_PORTNAME_RE.search(raw)
        if port and _REPRESENTOR_RE.match(port.group("port")):
            result.pnic(key, "is_physical", False, raw.strip()[:400])
        parent = _IP_PARENT_RE.search(raw)
        if parent and parent.group("bus") == "pci" and norm_pci(parent.group("dev")) \
                and not (port and _REPRESENTOR_RE.match(port.group("port"))):
            result.pnic(key, "pci_address", norm_pci(parent.group("dev")), raw.strip()[:400])
            result.pnic(key, "is_physical", True, raw.strip()[:400])
        m = _IP_ETHER_RE.match(raw)
        if m:
            result.pnic(key, "mac", m.group("mac").lower(), raw.strip())
            continue
        if _IP_TUNNEL_LINK_RE.match(raw):
            result.pnic(key, "is_physical", False, raw.strip()[:200])
            continue
        k = _IP_KIND_RE.match(raw)
        if k and not k.group("kind").endswith("_slave"):
            result.pnic(key, "is_physical", False, raw.strip()[:200])
    if not result.pnics:
        result.notes.append("ip link show: no interface header ('N: name: <FLAGS> mtu …') found")
    return result
