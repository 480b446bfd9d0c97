"""Linux (and ESXi ≤ 6.x) ``ethtool`` outputs: ``-i``, ``-k``, ``-l``, ``-x``, ``-c``, ``-g`` and plain
``ethtool IF``.

Every parser finds its own block(s) by the block's first line (``Features for em1:``, ``driver: ice``,
…), so a text holding prompts (``[root@ESXi-04:~] ethtool -k vmnic1``, ``~ # ethtool -i vmnic7``),
other commands' outputs or prose is read safely. A block is keyed by the interface its header names
(``Features for em1:``), else by the interface of an echoed command line just above it, else by
``cmd.target`` (``ethtool -k enp2s0``). Both the original tab/space layout and the whitespace-flattened
copies found in mail archives (``Key: value`` with one space, lost indents, or a whole block on one
line) are read (nic-data-sources.md §14 item 21).

Facts (fields of :class:`nicadvisor.model.PhysicalNic`), sources in nic-data-sources.md §2, §4, §6,
§7, §9 and the captures named in each function:

* ``-i``: ``driver``, ``driver_version`` (``version:`` as printed — for in-tree drivers this is the
  kernel release, §14 item 22), ``firmware_version``, ``pci_address`` (``bus-info`` normalised to
  ``0000:bb:dd.f``) and ``is_physical`` True when ``bus-info`` is a PCI address, False for bonds,
  VLAN devices, bridges, veth & co. (§14 item 12); ``is_virtual_uplink`` True for the paravirtual drivers ``virtio_net``, ``vmxnet3``, ``hv_netvsc``.
* ``-k``: ``tso`` (tcp-segmentation-offload), ``lro`` (large-receive-offload), ``geneve_offload`` and
  ``vxlan_offload`` (tx-udp_tnl-segmentation, else tx-udp_tnl-csum-segmentation: UDP-tunnel TSO covers
  both encapsulations), ``geneve_rx_filter`` (rx-udp_tunnel-port-offload). The value is the feature's
  *current* state: ``off [fixed]`` (not supported) and ``off [requested on]`` are both False; the raw
  line with its suffix is kept as evidence. A missing key stays unknown.
* ``-l``: ``rx_queues``/``tx_queues`` = ``Combined`` + ``RX``/``TX`` of "Current hardware settings";
  ``n/a`` counts as absent and a total of 0 is unknown.
* ``-x``: ``rss`` True when the RX flow hash indirection table spreads over more than one ring,
  False for one ring; ``rx_queues`` from ``with N RX ring(s)``.
* ``-c``: ``coalesce_adaptive_rx`` (``Adaptive RX:``), ``coalesce_rx_usecs``/``tx_usecs`` (µs),
  ``coalesce_rx_frames``/``tx_frames``; ``n/a`` is unknown, ``0`` is a value.
* ``-g``: ``rx_ring_size``/``tx_ring_size`` (descriptors) from "Current hardware settings".
* plain ``ethtool IF``: ``link_up`` (``Link detected:``), ``link_speed_mbps`` (``Speed:``, Mbit/s;
  ``Unknown!`` and a link reported down leave it unset), ``duplex`` (``"full"``/``"half"``, lower case).
"""
from __future__ import annotations

import re
from typing import Callable

from nicadvisor.parsers.base import CommandLine, ParseResult, is_placeholder, norm_pci, speed_mbps, to_bool, to_int
from nicadvisor.parsers.command_text import normalise
from nicadvisor.parsers.framing import is_command_echo
from nicadvisor.parsers.registration import register

# First lines of every ethtool output type (a block of one type ends where another starts).
_ANY_HEADER_RE = re.compile(
    r"^\s*(?:Features for|Offload parameters for|Settings for|Channel parameters for|Coalesce parameters for|"
    r"Ring parameters for|RX flow hash indirection table for|Pause parameters for|Private flags for)\s+\S+?:"
    r"|^\s*driver:|^\s*NIC statistics:"
)
_ANY_HEADER_SEARCH_RE = re.compile(
    r"(?:Features for|Offload parameters for|Settings for|Channel parameters for|Coalesce parameters for|"
    r"Ring parameters for|RX flow hash indirection table for|Pause parameters for|Private flags for)\s+\S+?:"
    r"|(?<!\S)driver:"
)
# A shell prompt line, possibly echoing a command: "[root@ESXi-04:~] ethtool -k vmnic1", "~ # ethtool -i vmnic7".
_ECHO_ETHTOOL_RE = re.compile(r"(?:^|/)ethtool\s+(?P<args>.*)$")

_PARAVIRTUAL_DRIVERS = {"virtio_net", "vmxnet3", "hv_netvsc"}
# ``driver:`` of software (non-PCI) net devices in ``ethtool -i``: bonds, VLAN devices, bridges, veth, …
# Their offload flags are propagated from (or unrelated to) the member ports (nic-data-sources.md §14 item 12).
_SOFTWARE_DRIVERS = {"bonding", "802.1q vlan support", "bridge", "veth", "team", "macvlan", "ipvlan", "tun",
                     "dummy", "ifb", "vxlan", "geneve"}
# Devices stacked on physical ports: their features must be read on the member ports instead.
_STACKED_DRIVERS = {"bonding", "802.1q vlan support", "team", "macvlan", "ipvlan"}
SOFTWARE_DEVICE_NOTE = "features read on a bond/VLAN: audit its member ports"

Segment = tuple[str | None, str, list[str]]  # (key, header line, block lines incl. the rest of the header line)


def _echo_key(command: str | None) -> str | None:
    """The interface named by an echoed ``ethtool [-x] IF`` command line (wrappers such as ``sudo``, ``ssh HOST`` or
    ``ip netns exec NS`` removed by :func:`nicadvisor.parsers.command_text.normalise`), else None."""
    if not command:
        return None
    m = _ECHO_ETHTOOL_RE.search(normalise(command))
    if not m:
        return None
    words = [w for w in m.group("args").split("|", 1)[0].split() if not w.startswith("-")]
    return words[0] if words and not is_placeholder(words[0]) else None


def _segments(text: str, header_re: re.Pattern[str], cmd: CommandLine) -> list[Segment]:
    """Split ``text`` into the blocks that start with ``header_re``.

    ``header_re`` may define a ``name`` group (the interface named by the header). A block ends at a
    prompt line or at the header of another ethtool output. Lines after an echoed ``ethtool … IF`` command with
    no header of their own (a grep-filtered output) are a block keyed by that IF. A block whose header names no
    interface and follows no echoed command is keyed by ``cmd.target`` only when it is the only such block (two
    outputs appended under one header are never both that interface's: they get no key). With no header and no
    echoed command at all, the whole text is one block keyed by ``cmd.target``; a placeholder (``<dev>``) is no
    key.
    """
    segs: list[Segment] = []
    guessed: set[int] = set()  # ids of the blocks keyed only by the header's command (no name, no echoed command)
    current: list[str] | None = None
    echoed: str | None = None
    pending = text.splitlines()
    pending.reverse()
    while pending:
        line = pending.pop()
        prompt = is_command_echo(line)
        if prompt is not None and not header_re.match(line):
            inner = _ANY_HEADER_SEARCH_RE.search(line, line.rfind(prompt) + 1) if prompt else None
            if inner:  # "~ # ethtool -i vmnic7 driver: ixgbe …" on one line: the output starts mid-line
                pending.append(line[inner.start():])
                line = line[:inner.start()]
                prompt = is_command_echo(line)
                if prompt is None:
                    continue
            echoed = _echo_key(prompt)
            # output without its header (filtered by grep) belongs to the interface the echoed command names
            current = [] if echoed else None
            if current is not None:
                segs.append((echoed, "", current))
            continue
        h = header_re.match(line)
        if h:
            if segs and segs[-1][2] is current and not any(x.strip() for x in current or []):
                segs.pop()  # the echoed command's own header follows: that block is the one
            name = h.groupdict().get("name")
            name = name.split("@", 1)[0] if name else name  # 'bond0.102@bond0' as ip link names a VLAN: bond0.102
            key = name or echoed or cmd.target
            rest = line[h.end():] if name else line
            current = [rest]
            segs.append((key, line, current))
            if not (name or echoed):
                guessed.add(id(current))
            echoed = None
            continue
        if _ANY_HEADER_RE.match(line):
            current = None
            continue
        if current is not None:
            current.append(line)
    segs = [seg for seg in segs if seg[1] or any(x.strip() for x in seg[2])]
    if sum(1 for seg in segs if id(seg[2]) in guessed) > 1:
        # several outputs and only the header's command to name them (two captures appended): none is known to be
        # that interface's, so none is keyed by it (ethtool -i then keys each by its own bus-info address)
        segs = [(None, h, b) if id(b) in guessed else (k, h, b) for k, h, b in segs]
    if not segs and text.strip():
        segs.append((cmd.target, "", text.splitlines()))
    return segs


def _raw(block: list[str], pattern: re.Pattern[str]) -> str:
    """The raw line of ``block`` that ``pattern`` matches (for evidence)."""
    for line in block:
        if pattern.search(line):
            return line.strip()
    return ""


def _no_key(result: ParseResult, header: str) -> None:
    result.notes.append(f"no interface name for the block {header.strip()!r}: neither the output nor the command names one")


def _acknowledge(result: ParseResult, key: str, header: str, before: int) -> None:
    """Mark a block that was recognised but held no known value, so the output counts as read."""
    if len(result.pnics.get(key, {})) == before and header:
        result.records.append({"interface": key, "block": header.strip(), "facts": "none known"})


# --- ethtool -i --------------------------------------------------------------------------------------

_DRIVER_HEADER_RE = re.compile(r"^\s*driver:")
#: The keys of ``ethtool -i``; a PDF copy drops their hyphens (``firmwareversion:``, ``businfo:``, capture
#: ``rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_summit_pdf.txt``): read either way.
_DRIVER_KEYS = ("driver", "version", "firmware-version", "expansion-rom-version", "bus-info", "supports-statistics",
                "supports-test", "supports-eeprom-access", "supports-register-dump", "supports-priv-flags")
_DRIVER_KEYS_RE = re.compile(r"(?:^|(?<=\s))(" + "|".join(k.replace("-", "-?") for k in _DRIVER_KEYS) + r"):")
_DASHLESS_KEY = {k.replace("-", ""): k for k in _DRIVER_KEYS}


def _driver_info(block: list[str]) -> list[tuple[str, str, str]]:
    """(key, value, raw) of the known ``ethtool -i`` keys, one per line or several on a flattened line
    (a value runs up to the next known key, so ``firmware-version: 4.51 0x8001e501 23.0.8`` stays whole)."""
    out = []
    for line in block:
        keys = list(_DRIVER_KEYS_RE.finditer(line))
        for i, m in enumerate(keys):
            end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
            value = line[m.end():end].strip()
            raw = line.strip() if len(keys) == 1 else f"{m.group(1)}: {value}"
            out.append((_DASHLESS_KEY[m.group(1).replace("-", "")], value, raw))
    return out


@register(r"^ethtool\s+-i\b", "ethtool -i")
def parse_ethtool_i(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``ethtool -i IF`` (driver information).

    Records ``driver``, ``driver_version`` (the ``version:`` line as printed), ``firmware_version``
    (``N/A``/empty → unset), ``pci_address`` and ``is_physical`` True when ``bus-info`` is a PCI address
    (``0000:63:00.0``), and ``is_virtual_uplink`` True for virtio_net/vmxnet3/hv_netvsc.
    ``is_physical`` is False for software devices (driver ``bonding``, ``802.1Q VLAN Support``, bridge, veth,
    team, macvlan, ipvlan, tun, dummy, ifb, vxlan, geneve: nic-data-sources.md §14 item 12), with the note
    :data:`SOFTWARE_DEVICE_NOTE` for devices stacked on physical ports (bond, VLAN, team, macvlan, ipvlan); the
    driver line is the evidence.

    ``ethtool -i`` prints no interface name: a block is keyed by the interface of the command (echoed above it or
    in the header), else — when neither names one — by its ``bus-info`` address (``"pci:0000:01:00.0"``, the
    assembler joins it to the interface at that address). A grep-filtered block without its ``driver:`` line
    (``# ethtool -i enp2s0f0 |grep version``, capture ``tests/parsers/captures/linux_ethtool-i-x-l_sfc_zero_indirection_onload208.txt``)
    is read when an echoed command names the interface.
    Captures: ``linux_ethtool-i_ice_e810_fw4.51.txt``, ``linux_ethtool-i_igb_enp2s0.txt``,
    ``esxi_g_ethtool_-i_ixgbe_esxi41_elatov.txt`` (ESXi 4.1, indented, with prompt),
    ``tests/parsers/captures/esxi55_ethtool-i_vmnic0_bnx2x_sneaku.txt`` (ESXi 5.5 bnx2x). Never raises.
    """
    result = ParseResult(family="ethtool -i")
    for key, header, block in _segments(text, _DRIVER_HEADER_RE, cmd):
        info = _driver_info(block)
        if not header and not (key and info and any(line.strip() for line in block)):
            continue  # no "driver:" line and no echoed command naming the interface: not an ethtool -i output
        if not key:
            bus = next((norm_pci(v) for k, v, _ in info if k == "bus-info"), None)
            key = f"pci:{bus}" if bus else None
        if not key:
            _no_key(result, header)
            continue
        for k, v, raw in info:
            if not v or v.upper() in ("N/A", "NA"):
                continue
            if k == "driver":
                result.pnic(key, "driver", v, raw.strip())
                if v in _PARAVIRTUAL_DRIVERS:
                    result.pnic(key, "is_virtual_uplink", True, raw.strip())
                if v.lower() in _SOFTWARE_DRIVERS:
                    result.pnic(key, "is_physical", False, raw.strip())
                if v.lower() in _STACKED_DRIVERS:
                    result.notes.append(f"{key}: driver {v!r} is a software device, not a pNIC; {SOFTWARE_DEVICE_NOTE}")
            elif k == "version":
                result.pnic(key, "driver_version", v, raw.strip())
            elif k == "firmware-version":
                result.pnic(key, "firmware_version", v, raw.strip())
            elif k == "bus-info":
                addr = norm_pci(v)
                if addr:
                    result.pnic(key, "pci_address", addr, raw.strip())
                    result.pnic(key, "is_physical", True, raw.strip())
    return result


# --- ethtool -k --------------------------------------------------------------------------------------

_FEATURES_HEADER_RE = re.compile(r"^\s*(?:Features|Offload parameters) for (?P<name>\S+?):")
_FEATURE_RE = re.compile(
    # a key starts at a word's start and is at most 6 words of 48 characters ("tcp segmentation offload",
    # "tx-udp_tnl-csum-segmentation"): each start then costs bounded work, so a long line is read in linear time
    r"(?<![a-z0-9_-])(?P<key>[a-z][a-z0-9_-]{0,47}(?: [a-z][a-z0-9_-]{0,47}){0,5}):\s*(?P<val>on|off)"
    r"(?P<suffix>\s*\[(?:fixed|requested on|requested off|not requested)\])?(?=\s|$)",
    re.I,
)


def features(block: list[str]) -> dict[str, tuple[bool, str]]:
    """``{feature-name: (state, raw text)}`` of an ``ethtool -k`` block.

    Names are lower case with spaces turned into dashes (the old ``Offload parameters`` layout prints
    ``tcp segmentation offload: on``); the state is the current value (``on`` → True); ``raw`` keeps
    the ``[fixed]``/``[requested on]`` suffix. Several features on one (flattened) line are all read.
    """
    out: dict[str, tuple[bool, str]] = {}
    for line in block:
        for m in _FEATURE_RE.finditer(line):
            name = m.group("key").lower().replace(" ", "-")
            out.setdefault(name, (m.group("val").lower() == "on", m.group(0).strip()))
    return out


#: ``ethtool -k`` feature → the field it decides, for ``fixed_offloads`` (a ``[fixed]`` feature cannot be changed).
_FIXED_FIELDS = (("tcp-segmentation-offload", "tso"), ("large-receive-offload", "lro"),
                 ("tx-udp_tnl-segmentation", "geneve_offload"), ("tx-udp_tnl-segmentation", "vxlan_offload"),
                 ("rx-udp_tunnel-port-offload", "geneve_rx_filter"), ("receive-hashing", "receive_hashing"))


@register(r"^ethtool\s+-k\b", "ethtool -k")
def parse_ethtool_k(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``ethtool -k IF`` (offload features).

    ``tso`` ← tcp-segmentation-offload, ``lro`` ← large-receive-offload, ``geneve_offload`` and
    ``vxlan_offload`` ← tx-udp_tnl-segmentation (evidence also names tx-udp_tnl-csum-segmentation;
    that one alone is used when the first is absent) — but False when it comes from GSO_PARTIAL (``tx-gso-partial:
    on``) on a NIC that does not parse UDP tunnel ports on receive (``rx-udp_tunnel-port-offload`` off or absent:
    igb), which segments without knowing Geneve (nsx-t-performance-on-intel.txt §1.3), ``geneve_rx_filter`` ← rx-udp_tunnel-port-offload
    (nic-data-sources.md §6, §7, §14 item 12), ``receive_hashing`` ← receive-hashing. RSS (the indirection table)
    is not read here (see ``ethtool -x``). ``fixed_offloads`` lists those fields whose feature is ``[fixed]`` (the
    driver cannot change it), with the lines that say so.
    Captures: ``linux_ethtool-k_ice_e810_kernel6.15_flattened.txt``, ``linux_ethtool-k_igb_enp2s0.txt``,
    ``esxi_g_ethtool_-k_vmnic1_esxi60_sio4.txt`` (old ``Offload parameters`` layout). Never raises.
    """
    result = ParseResult(family="ethtool -k")
    for key, header, block in _segments(text, _FEATURES_HEADER_RE, cmd):
        feats = features(block)
        if not feats:
            continue
        if not key:
            _no_key(result, header)
            continue
        before = len(result.pnics.get(key, {}))
        for feat, field_name in (("tcp-segmentation-offload", "tso"), ("large-receive-offload", "lro"),
                                 ("rx-udp_tunnel-port-offload", "geneve_rx_filter"),
                                 ("receive-hashing", "receive_hashing")):
            if feat in feats:
                state, raw = feats[feat]
                result.pnic(key, field_name, state, raw)
        tnl = feats.get("tx-udp_tnl-segmentation")
        csum = feats.get("tx-udp_tnl-csum-segmentation")
        chosen = tnl or csum
        if chosen:
            partial, rx_ports = feats.get("tx-gso-partial"), feats.get("rx-udp_tunnel-port-offload")

            # UDP-tunnel TSO through GSO_PARTIAL on a NIC that cannot parse tunnel ports on receive (igb: "tx-gso-
            # partial: on", "rx-udp_tunnel-port-offload: off [fixed]") segments without knowing Geneve: not Geneve
            # offload in the compatibility guide's sense (nsx-t-performance-on-intel.txt §1.3)
            gso_only = bool(chosen[0] and partial and partial[0] and (rx_ports is None or not rx_ports[0]))
            raw = "\n".join(pair[1] for pair in ((tnl, csum, partial, rx_ports) if gso_only else (tnl, csum)) if pair)
            result.pnic(key, "geneve_offload", False if gso_only else chosen[0], raw)
            result.pnic(key, "vxlan_offload", False if gso_only else chosen[0], raw)
        fixed = [(fld, feats[feat][1]) for feat, fld in _FIXED_FIELDS if feat in feats
                 and feats[feat][1].endswith("[fixed]") and (feat != "tx-udp_tnl-segmentation" or chosen is tnl)]
        if fixed:
            result.pnic(key, "fixed_offloads", [fld for fld, _ in fixed], "\n".join(dict.fromkeys(r for _, r in fixed)))
        _acknowledge(result, key, header or "offload features", before)
    return result


# --- ethtool -l / -g ("Current hardware settings") -------------------------------------------------------

_CHANNELS_HEADER_RE = re.compile(r"^\s*Channel parameters for (?P<name>\S+?):")
_RING_HEADER_RE = re.compile(r"^\s*Ring parameters for (?P<name>\S+?):")
_CURRENT_RE = re.compile(r"Current hardware settings:", re.I)


_PRESET_RE = re.compile(r"Pre-?set maximums:", re.I)  # "Preset maximums:" in a PDF copy


def _current_values(block: list[str], names: tuple[str, ...], preset: bool = False) -> dict[str, tuple[str, str]]:
    """``{name: (value, raw line)}`` for ``NAME: value`` after "Current hardware settings:" (with ``preset``:
    between "Pre-set maximums:" and "Current hardware settings:").

    Works for tab-separated, flattened and single-line layouts; ``RX Mini:``/``TX Push:`` style keys
    are not confused with ``RX:``/``TX:``.
    """
    joined = "\n".join(block)
    m = _CURRENT_RE.search(joined)
    if preset:
        p = _PRESET_RE.search(joined)
        if not p:
            return {}
        joined = joined[:m.start()] if m and m.start() > p.end() else joined
        m = p
    if not m:
        return {}
    current = joined[m.end():]
    alt = "|".join(re.escape(n) for n in names)
    out: dict[str, tuple[str, str]] = {}
    # the value on the key's line, or (a PDF copy: "RX:" then "16384") alone on the next line when it is a number
    for mm in re.finditer(rf"(?:^|(?<=\s))(?P<k>{alt}):(?:[ \t]*(?P<v>[^\s]+)|[ \t]*\n[ \t]*(?P<n>\d+)(?=[ \t]*(?:\n|$)))",
                          current):
        line_start = current.rfind("\n", 0, mm.start()) + 1
        line_end = current.find("\n", mm.end())
        raw = current[line_start:line_end if line_end != -1 else None].strip()
        out.setdefault(mm.group("k"), (mm.group("v") or mm.group("n"), raw))
    return out


def _count(value: tuple[str, str] | None) -> int | None:
    return to_int(value[0]) if value else None


@register(r"^ethtool\s+-l\b", "ethtool -l")
def parse_ethtool_l(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``ethtool -l IF`` (channels); ``rx_queues_max``/``tx_queues_max`` from the pre-set maximums.

    From "Current hardware settings": ``rx_queues`` = Combined + RX, ``tx_queues`` = Combined + TX
    (``n/a`` counts as absent; a total of 0 is unknown, §14 item 21). Captures:
    ``linux_ethtool-l_ice_e810_100g_tabs.txt`` (64), ``linux_ethtool-l_ice_e810_64max_8current_flattened.txt``
    (8), ``linux_ethtool-l_igb_enp2s0.txt`` (4). Never raises.
    """
    result = ParseResult(family="ethtool -l")
    for key, header, block in _segments(text, _CHANNELS_HEADER_RE, cmd):
        vals = _current_values(block, ("RX", "TX", "Other", "Combined"))
        if not vals:
            continue
        if not key:
            _no_key(result, header)
            continue
        before = len(result.pnics.get(key, {}))
        maxima = _current_values(block, ("RX", "TX", "Other", "Combined"), preset=True)
        for values, suffix in ((vals, ""), (maxima, "_max")):
            combined = _count(values.get("Combined"))
            for side, field_name in (("RX", "rx_queues"), ("TX", "tx_queues")):
                own = _count(values.get(side))
                if combined is None and own is None:
                    continue
                # in use, RX-only and combined channels add up; as maximums they are alternatives (ice: 64 RX or
                # 64 combined, never 128 receive queues)
                total = (combined or 0) + (own or 0) if not suffix else max(combined or 0, own or 0)
                raw = "\n".join(v[1] for k, v in values.items() if k in ("Combined", side))
                result.pnic(key, field_name + suffix, total or None, raw)
        _acknowledge(result, key, header or "channels", before)
    return result


@register(r"^ethtool\s+-g\b", "ethtool -g")
def parse_ethtool_g(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``ethtool -g IF`` (ring sizes).

    ``rx_ring_size``/``tx_ring_size`` (descriptors) from ``RX:``/``TX:`` of "Current hardware
    settings", ``rx_ring_max``/``tx_ring_max`` from those of "Pre-set maximums" (so that ring advice can say
    "raise to 4096 of 4096"); ``n/a``/0 → unknown. Capture:
    ``linux_ethtool-g_ice_e810_ring_8160_flattened.txt``. Never raises.
    """
    result = ParseResult(family="ethtool -g")
    for key, header, block in _segments(text, _RING_HEADER_RE, cmd):
        vals = _current_values(block, ("RX", "TX"))
        if not vals:
            continue
        if not key:
            _no_key(result, header)
            continue
        before = len(result.pnics.get(key, {}))
        maxima = _current_values(block, ("RX", "TX"), preset=True)
        for values, side, field_name in ((vals, "RX", "rx_ring_size"), (vals, "TX", "tx_ring_size"),
                                         (maxima, "RX", "rx_ring_max"), (maxima, "TX", "tx_ring_max")):
            n = _count(values.get(side))
            if n:
                result.pnic(key, field_name, n, values[side][1])
        _acknowledge(result, key, header or "rings", before)
    return result


# --- ethtool -x --------------------------------------------------------------------------------------

_RXFH_HEADER_RE = re.compile(r"^\s*RX flow hash indirection table for (?P<name>\S+?) with (?P<rings>\d+) RX ring\(s\):")
_RXFH_ROW_RE = re.compile(r"(?:^|\s)\d+:(?P<rings>(?:[ \t]+\d+)+)(?=\s|$)")


_KEY_HEADER_RE = re.compile(r"RSS hash key:")
_KEY_BYTES_RE = re.compile(r"^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){0,255}:?$")


def _hash_key(block: list[str]) -> list[int] | None:
    """The bytes of the ``RSS hash key:`` section of an ``ethtool -x`` block (``00:1f:…`` on the next line(s), a
    wrapped key joined), ``[]`` when the section is there but holds no byte (cut, or ``Operation not supported``),
    None when the block has no such section."""
    for i, line in enumerate(block):
        m = _KEY_HEADER_RE.search(line)
        if not m:
            continue
        out: list[int] = []
        rest = [line[m.end():], *block[i + 1:i + 1 + 8]]  # a key is at most a few lines (bounded)
        for part in rest:
            text = part.strip()
            if not text:
                continue
            if not _KEY_BYTES_RE.match(text):
                break
            out.extend(int(b, 16) for b in text.strip(":").split(":"))
        return out
    return None


@register(r"^ethtool\s+-x\b", "ethtool -x")
def parse_ethtool_x(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``ethtool -x IF`` (RSS indirection table).

    ``rss`` True when the table's entries point to more than one ring, False when the header says one
    RX ring or every entry points to the same ring while the RSS hash key is printed and not all zero, unset when
    the table is not readable (``Operation not supported`` with several rings). ``rx_queues`` from ``with N RX
    ring(s)`` (N > 0). A table of one ring under a header of several rings whose hash key is all zeros, cut or
    missing is no RSS configuration to judge: the sfc driver of onload issue 208 reports an all-zero table and key
    for a device with 4 channels (capture ``tests/parsers/captures/linux_ethtool-i-x-l_sfc_zero_indirection_onload208.txt``):
    ``rss`` stays unset and a note says why. A table cut short (a partial paste) is read as far as it goes.
    The hash key goes to ``records`` (``hash_key_bytes``, ``hash_key_all_zero``), never to a fact.
    Captures: ``linux_ethtool-x_igb_enp2s0_4rings.txt`` (4 rings 0..3),
    ``tests/parsers/captures/linux_ethtool-l-x_14rings_partial_pfring819.txt`` (14 rings, table cut at row 152).
    Never raises.
    """
    result = ParseResult(family="ethtool -x")
    for key, header, block in _segments(text, _RXFH_HEADER_RE, cmd):
        if not header:
            continue
        if not key:
            _no_key(result, header)
            continue
        hm = _RXFH_HEADER_RE.match(header)
        rings = int(hm.group("rings")) if hm else 0
        table: list[int] = []
        for line in block:
            end = re.search(r"RSS hash (?:key|function)", line)
            for m in _RXFH_ROW_RE.finditer(line[:end.start()] if end else line):
                table.extend(int(x) for x in m.group("rings").split())
            if end:
                break  # the table ends where the hash key/function sections start
        hash_key = _hash_key(block)
        if hash_key is not None:
            result.records.append({"interface": key, "block": "RSS hash key", "hash_key_bytes": len(hash_key),
                                   "hash_key_all_zero": bool(hash_key) and not any(hash_key)})
        if rings > 0:
            result.pnic(key, "rx_queues", rings, header.strip())
        distinct = sorted(set(table))
        if len(distinct) > 1:
            result.pnic(key, "rss", True, f"{header.strip()} (entries spread over rings {', '.join(map(str, distinct))})")
        elif rings == 1:
            result.pnic(key, "rss", False, header.strip())
        elif table and hash_key and any(hash_key):
            result.pnic(key, "rss", False, f"{header.strip()} (every entry points to ring {distinct[0]})")
        elif table:
            result.notes.append(
                f"{key}: every indirection table entry points to ring {distinct[0]} of {rings}, and the RSS hash key is "
                f"{'all zeros' if hash_key else 'not shown'}: the driver reports no RSS configuration to judge, RSS "
                "stays unknown")
        else:
            result.records.append({"interface": key, "block": header.strip(), "facts": "indirection table not readable"})
    return result


# --- ethtool -c --------------------------------------------------------------------------------------

_COALESCE_HEADER_RE = re.compile(r"^\s*Coalesce parameters for (?P<name>\S+?):")
_ADAPTIVE_RE = re.compile(r"Adaptive RX:\s*(?P<v>[^\s]+)")
#: ``Adaptive RX: off  TX: off``: the TX half of the same line (ethtool(8) ``adaptive-tx``).
_ADAPTIVE_TX_RE = re.compile(r"Adaptive RX:[ \t]*\S+[ \t]+TX:[ \t]*(?P<v>\S+)")
_COALESCE_KEYS = {
    "rx-usecs": "coalesce_rx_usecs",
    "tx-usecs": "coalesce_tx_usecs",
    "rx-frames": "coalesce_rx_frames",
    "tx-frames": "coalesce_tx_frames",
}
#: The exact keys, also as a PDF copy prints them without their hyphen (``rxusecs: 5``).
_COALESCE_RE = re.compile(r"(?:^|(?<=\s))(?P<k>rx-?usecs|tx-?usecs|rx-?frames|tx-?frames):[ \t]*(?P<v>[^\s]+)")
# "CQE mode RX: n/a  TX: n/a" (ethtool 5.13+, capture tests/parsers/captures/linux_ethtool-c_na_cqe_mode_tuned726.txt).
_CQE_RE = re.compile(r"CQE mode RX:[ \t]*(?P<rx>\S+)[ \t]+TX:[ \t]*(?P<tx>\S+)")


@register(r"^ethtool\s+-c\b", "ethtool -c")
def parse_ethtool_c(text: str, cmd: CommandLine) -> ParseResult:
    """Parse ``ethtool -c IF`` (interrupt coalescing).

    ``coalesce_adaptive_rx``/``coalesce_adaptive_tx`` from ``Adaptive RX: on|off  TX: on|off``; ``coalesce_rx_usecs``/``coalesce_tx_usecs``
    (µs) and ``coalesce_rx_frames``/``coalesce_tx_frames`` from the exact keys (``rx-usecs-irq`` and
    the like are other settings); ``n/a`` → unknown, ``0`` is recorded (``Adaptive RX: n/a`` too: unknown). The
    ``CQE mode RX: on  TX: off`` line of newer ethtool goes to ``records`` (``cqe_mode_rx``/``cqe_mode_tx``: True,
    False, or None for ``n/a``). Captures: ``tests/parsers/captures/linux_ethtool-c_na_cqe_mode_tuned726.txt``
    (most fields n/a),
    ``linux_ethtool-c_ice_e810_static_itr_flattened.txt`` (12/28 µs), ``linux_ethtool-c_igb_enp2s0.txt``
    (its ``rx-usecs.nic:`` key was edited by the fixture's author, so rx-usecs stays unknown there).
    Never raises.
    """
    result = ParseResult(family="ethtool -c")
    for key, header, block in _segments(text, _COALESCE_HEADER_RE, cmd):
        joined = "\n".join(block)
        adaptive = _ADAPTIVE_RE.search(joined)
        values = list(_COALESCE_RE.finditer(joined))
        if not adaptive and not values:
            continue
        if not key:
            _no_key(result, header)
            continue
        before = len(result.pnics.get(key, {}))
        if adaptive:
            result.pnic(key, "coalesce_adaptive_rx", to_bool(adaptive.group("v")), _raw(block, _ADAPTIVE_RE))
            tx = _ADAPTIVE_TX_RE.search(joined)
            if tx:
                result.pnic(key, "coalesce_adaptive_tx", to_bool(tx.group("v")), _raw(block, _ADAPTIVE_RE))
        cqe = _CQE_RE.search(joined)
        if cqe:
            result.records.append({"interface": key, "cqe_mode_rx": to_bool(cqe.group("rx")),
                                   "cqe_mode_tx": to_bool(cqe.group("tx")), "line": _raw(block, _CQE_RE)})
        for m in values:
            result.pnic(key, _COALESCE_KEYS[m.group("k").replace("x", "x-", 1) if "-" not in m.group("k")
                                            else m.group("k")], to_int(m.group("v")),
                        _raw(block, re.compile(rf"(?:^|\s){re.escape(m.group('k'))}:")))
        _acknowledge(result, key, header or "coalesce", before)
    return result


# --- plain ethtool IF ------------------------------------------------------------------------------

_SETTINGS_HEADER_RE = re.compile(r"^\s*Settings for (?P<name>\S+?):")
_SPEED_RE = re.compile(r"(?:^|\s)Speed:\s*(?P<v>\S+)")
_DUPLEX_RE = re.compile(r"(?:^|\s)Duplex:\s*(?P<v>\S+)")
_LINK_RE = re.compile(r"(?:^|\s)Link detected:\s*(?P<v>\S+)")


@register(r"^ethtool\s+(?!-)\S+", "ethtool")
def parse_ethtool_settings(text: str, cmd: CommandLine) -> ParseResult:
    """Parse plain ``ethtool IF`` (link settings).

    ``link_up`` ← ``Link detected: yes|no``; ``link_speed_mbps`` ← ``Speed: 25000Mb/s`` (Mbit/s;
    ``Unknown!`` → unset, and unset when the link is reported down, §14 item 2); ``duplex`` ←
    ``Duplex: Full|Half`` stored lower case (``Unknown!`` → unset). Capture:
    ``linux_ethtool_settings_ice_e810_25g_dac_flattened.txt``. Never raises.
    """
    result = ParseResult(family="ethtool")
    for key, header, block in _segments(text, _SETTINGS_HEADER_RE, cmd):
        joined = "\n".join(block)
        link = _LINK_RE.search(joined)
        speed = _SPEED_RE.search(joined)
        duplex = _DUPLEX_RE.search(joined)
        if not (link or speed or duplex):
            continue
        if not key:
            _no_key(result, header)
            continue
        before = len(result.pnics.get(key, {}))
        link_up = to_bool(link.group("v")) if link else None
        if link:
            result.pnic(key, "link_up", link_up, _raw(block, _LINK_RE))
        if speed and link_up is not False:
            result.pnic(key, "link_speed_mbps", speed_mbps(speed.group("v")) or None, _raw(block, _SPEED_RE))
        if duplex and duplex.group("v").lower() in ("full", "half"):
            result.pnic(key, "duplex", duplex.group("v").lower(), _raw(block, _DUPLEX_RE))
        _acknowledge(result, key, header or "settings", before)
    return result


PARSERS: dict[str, Callable[[str, CommandLine], ParseResult]] = {
    "-i": parse_ethtool_i, "-k": parse_ethtool_k, "-l": parse_ethtool_l, "-x": parse_ethtool_x,
    "-c": parse_ethtool_c, "-g": parse_ethtool_g, "": parse_ethtool_settings,
}
"""The parser of each ethtool option this module reads (``""`` = plain ``ethtool IF``)."""
