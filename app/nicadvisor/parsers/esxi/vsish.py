"""ESXi ``vsish`` reads of a pNIC node: ``/net/pNics/<vmnic>/properties``, ``.../rxqueues/info`` and
``.../stats``, in the text form (``vsish -e get``) and the python form (``vsish -pe get``).

Sources and formats (``shared/design/research/nic-data-sources.md`` §6, §7, §10, §14 items 5 and 11):

* ``properties`` prints capability **names** after a hex mask, e.g. ``Device Hardware Cap Activated::
  0x793c032b -> VMNET_CAP_SG ... VMNET_CAP_ENCAP VMNET_CAP_Geneve_OFFLOAD ...`` (capture
  ``esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt``); ``VMNET_CAP_ENCAP`` is VXLAN encap
  offload, ``OFFSET_BASED_OFFLOAD`` is how ``ixgben`` offers Geneve; ``Device NUMA Node:`` and an indented
  ``Legacy`` field (1 = vmklinux driver) are read too.
* ``rxqueues/info`` text form: ``# queues supported:8``, ``RX filter classes:Rx filter class: 0x1c ->
  VLAN_MAC VXLAN Geneve GenericEncap``, ``Rx Queue features:features: 0x1a0 -> Dynamic RSS ...``
  (captures ``esxi_vsish_rxqueues_info_*_seed.txt``); python form: ``{"maxQueues" : 9, "maxRSSEngines" : 1,
  ..., "filterClasses" : 0x7, "features" : 0x482,}`` (``esxi_vsish_rxqueues_info_json.txt``) — the bits of
  ``filterClasses``/``features`` are not publicly documented, so the python form's masks are only recorded.
* ``stats``: text form ``-- General Statistics:`` ``Rx Packets:308907037`` ... (bnx2-era vdnet sample) and
  python form with a ``hw`` string that holds the driver's per-queue ``rxqN: totalPkts=...`` lines.

Facts are keyed by the vmnic named on the command line (``cmd.target``). With a placeholder such as
``/net/pNics/<vmnic>/`` the values go to ``records`` only and a note says why.

This module also provides two tolerant readers used by sibling parsers: :func:`read_pyish` (vsish ``-p``,
JSON and similar dict dumps) and :func:`queue_stats` (driver-private ``txqN:``/``rxqN:`` lines).
"""
from __future__ import annotations

import re
from typing import Any

from nicadvisor.parsers.base import CommandLine, ParseResult, outside_quotes, to_int
from nicadvisor.parsers.registration import register

__all__ = [
    "read_pyish", "queue_stats", "queue_lines", "real_nic_name",
    "parse_properties", "parse_rxqueues_info", "parse_pnic_stats",
]

# --- tolerant dict reader ------------------------------------------------------------------------

_PUNCT = "{}[]:,"


def _tokens(text: str) -> list[tuple[str, str]]:
    """Split ``text`` into (kind, value) tokens: ``p`` punctuation, ``s`` string, ``w`` bare word.

    Strings may span lines; an unterminated string runs to the end of the text.
    """
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in _PUNCT:
            out.append(("p", c))
            i += 1
        elif c in "\"'":
            j = i + 1
            buf = []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n:
                    nxt = text[j + 1]
                    buf.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            out.append(("s", "".join(buf)))
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in _PUNCT and text[j] not in "\"'":
                j += 1
            out.append(("w", text[i:j]))
            i = j
    return out


def _scalar(word: str) -> Any:
    low = word.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "none", "nil"):
        return None
    value = to_int(word)
    if value is not None:
        return value
    if re.fullmatch(r"-0x[0-9a-fA-F]+", word):
        return -int(word[3:], 16)
    return word


def _parse_value(toks: list[tuple[str, str]], i: int) -> tuple[Any, int]:
    if i >= len(toks):
        return None, i
    kind, val = toks[i]
    if kind == "p" and val == "{":
        obj: dict[str, Any] = {}
        i += 1
        while i < len(toks):
            kind, val = toks[i]
            if kind == "p" and val == "}":
                return obj, i + 1
            if kind == "p":  # stray ',' or ':' or bracket: skip it
                i += 1
                continue
            key = val
            if i + 1 < len(toks) and toks[i + 1] == ("p", ":"):
                value, i = _parse_value(toks, i + 2)
                obj[key] = value
            else:
                i += 1
        return obj, i
    if kind == "p" and val == "[":
        items: list[Any] = []
        i += 1
        while i < len(toks):
            kind, val = toks[i]
            if kind == "p" and val == "]":
                return items, i + 1
            if kind == "p" and val in ",:}":
                i += 1
                continue
            value, i = _parse_value(toks, i)
            items.append(value)
        return items, i
    if kind == "s":
        return val, i + 1
    if kind == "w":
        return _scalar(val), i + 1
    return None, i + 1


def read_pyish(text: str) -> dict[str, Any] | None:
    """Read the first ``{...}`` dict in ``text`` tolerantly; None when there is no ``{``.

    Accepts what ``vsish -p`` prints (banner line before the dict, trailing commas, bare hex such as
    ``0x482``, strings spanning lines; nic-data-sources.md §14 item 11), plain JSON, and a dict cut off
    mid-way (a truncated excerpt returns what was read up to the cut). Hex and decimal words become
    ints, ``true``/``false`` bools. Never raises.
    """
    start = text.find("{")
    if start < 0:
        return None
    value, _ = _parse_value(_tokens(text[start:]), 0)
    return value if isinstance(value, dict) else None


def _unmatched_close(text: str) -> int:
    """Index of the first ``}`` that closes a brace opened before ``text`` starts (outside quoted strings), or -1:
    one linear scan."""
    depth = 0
    for i, ch in outside_quotes(text, "\"'"):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return i
    return -1


def read_pyish_all(text: str) -> list[dict[str, Any]]:
    """Every top-level ``{...}`` dict in ``text``, in order, read as :func:`read_pyish` reads one: an excerpt that
    starts inside a list (``{...}, {...}`` pasted from the middle of ``vmnic_details``) yields each entry, not only
    the first, and one that starts inside the first entry (its ``{`` cut off) yields that entry's remaining keys
    as an entry too. Never raises."""
    out: list[dict[str, Any]] = []
    close = _unmatched_close(text)
    if close >= 0:
        # the excerpt starts inside the first entry ('"device": "vmnic0", … },'): its tail is an entry too
        head, _ = _parse_value(_tokens("{" + text[:close + 1]), 0)
        if isinstance(head, dict) and head:
            out.append(head)
        text = text[close + 1:]
    start = text.find("{")
    if start < 0:
        return out
    toks = _tokens(text[start:])
    i = 0
    while i < len(toks):
        if toks[i] != ("p", "{"):
            i += 1
            continue
        value, i = _parse_value(toks, i)
        if isinstance(value, dict):
            out.append(value)
    return out


#: ``rxq3: totalPkts=…`` or, with the hardware queue beside it, ``rxq3 (hwq7): totalPkts=…``.
_QUEUE_RE = re.compile(r"^[ \t]*(rx|tx)q(\d+)(?:[ \t]*\(hwq\d+\))?:[ \t]*(.*)$", re.M)


def queue_stats(text: str) -> dict[str, dict[int, dict[str, int]]]:
    """Driver-private per-queue lines (``txq0: totalPkts=17 totalBytes=1030 ...``, ``rxq8: ...``) as
    ``{"rx": {queue index: {counter: int}}, "tx": {...}}``.

    Format of ``localcli ... networkinternal nic privstats get``, the ``hw`` string of ``vsish -pe get
    .../stats`` and ``nsxdp-cli ens uplink stats get`` (captures
    ``esxi_localcli_networkinternal_nic_privstats_32q.txt``,
    ``esxi_g_vsish_-pe_get_pNics_stats_ens-disabled_intel-mfd.txt``, ``esxi_nsxdp-cli_ens_uplink_stats_get.txt``).
    """
    out: dict[str, dict[int, dict[str, int]]] = {"rx": {}, "tx": {}}
    for m in _QUEUE_RE.finditer(text):
        counters = {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", m.group(3))}
        out[m.group(1)][int(m.group(2))] = counters
    return out


def queue_lines(text: str) -> dict[str, str]:
    """The last raw ``rxqN:`` and ``txqN:`` line of ``text`` (evidence for a queue count), by ``rx``/``tx``."""
    last: dict[str, str] = {}
    for m in _QUEUE_RE.finditer(text):
        last[m.group(1)] = m.group(0).strip()
    return last


def record_queues(result: ParseResult, kind: str, nic: str | None, counters: dict[str, int], text: str) -> None:
    """One ``{"kind": kind, "nic", "counters", "rx_queue_packets", "tx_queue_packets"}`` record of the per-queue
    lines of ``text`` (:func:`queue_stats`: packets per queue index), and, for a named ``nic``, its ``rx_queues`` /
    ``tx_queues`` (how many ``rxqN:``/``txqN:`` lines, evidence the last of each, :func:`queue_lines`)."""
    queues = queue_stats(text)
    result.records.append({
        "kind": kind, "nic": nic, "counters": counters,
        "rx_queue_packets": {q: c.get("totalPkts") for q, c in sorted(queues["rx"].items())},
        "tx_queue_packets": {q: c.get("totalPkts") for q, c in sorted(queues["tx"].items())},
    })
    if not nic:
        return
    qlines = queue_lines(text)
    for way in ("rx", "tx"):
        if queues[way]:
            result.pnic(nic, f"{way}_queues", len(queues[way]), qlines[way])


def real_nic_name(target: str | None) -> str | None:
    """``target`` when it is a real interface name (``vmnic3``), None for a placeholder (``<vmnic>``)."""
    if target and re.fullmatch(r"[A-Za-z][\w.-]*", target) and target.lower() not in ("vmnic", "vmnicx", "nic"):
        return target
    return None


def _no_name_note(result: ParseResult, cmd: CommandLine) -> None:
    m = re.search(r"/net/pNics/([^/\s]+)/", cmd.text)
    shown = m.group(1) if m else (cmd.target or "none")
    result.notes.append(
        f"{cmd.text!r} names no real interface (target {shown}): values kept in records, not on a pNIC"
    )


# --- properties ----------------------------------------------------------------------------------

_CAP_HEAD_RE = re.compile(
    r"^\s*(?P<block>Device\s+(?:Hardware|Software)\s+Cap(?:abilities)?\s+\w+|[\w ]{0,60}Cap[\w ]{0,60}?)\s*::?\s*"
    r"(?P<mask>0x[0-9a-fA-F]+)?\s*(?:->)?\s*(?P<names>.*)$"
)
_CAP_TOKEN_RE = re.compile(r"^(?:VMNET_)?CAP_\w+$", re.I)


_SCALAR_KEY = re.compile(r"[A-Za-z][\w /.-]*")


def _scalar_line(raw: str) -> tuple[bool, str, str] | None:
    """``   Key name: value`` → (indented, key, value), else None: the key (a letter, then words, spaces, ``/.-``)
    ends at the first colon. Read with ``str.partition``, not a regex whose key could end anywhere in the spaces
    before the colon (a pNIC name followed by a megabyte of spaces took minutes)."""
    rest = raw.lstrip()
    key, colon, value = rest.partition(":")
    key = key.rstrip()
    if not colon or not _SCALAR_KEY.fullmatch(key):
        return None
    return len(rest) < len(raw), key, value.lstrip(":").strip()


def _cap_names(text: str) -> list[str]:
    return [t for t in text.split() if _CAP_TOKEN_RE.match(t)]


def _norm_cap(token: str) -> str:
    t = token.upper()
    return t[len("VMNET_"):] if t.startswith("VMNET_") else t


@register(r"^vsish\b.*?/net/pNics/[^/\s]+/properties\b", "vsish pnic properties")
def parse_properties(text: str, cmd: CommandLine) -> ParseResult:
    """``vsish -e get /net/pNics/<vmnic>/properties`` (also with ``| grep ...``).

    Records on the vmnic: ``geneve_offload`` (``CAP_GENEVE_OFFLOAD``; for driver ``ixgben``
    ``CAP_OFFSET_BASED_OFFLOAD``), ``vxlan_offload`` (``CAP_ENCAP``), ``tso`` (``CAP_TSO``) from the
    hardware capability block (``Activated`` preferred, else ``Supported``: a capability missing from a
    block that was read is False, unless the block names fewer capabilities than its mask sets bits: then the list
    was cut and a missing one is unknown, with a note), ``numa_node`` (``Device NUMA Node:``, negative = unknown),
    ``legacy_vmklinux`` (indented ``Legacy`` field), ``driver``/``driver_version``/``firmware_version``
    when named. Every capability block goes to ``records``. A capability block that appears twice (two outputs
    appended under one command) makes the text ambiguous: nothing is recorded, a note says why. Source:
    nic-data-sources.md §6, §10; capture ``esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt``.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="vsish pnic properties")
    name = real_nic_name(cmd.target)
    blocks: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    scalars: dict[str, tuple[str, str]] = {}
    heads: dict[str, int] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            current = None
            continue
        head = _CAP_HEAD_RE.match(raw) if "Cap" in raw and ":" in raw else None
        if head and (head.group("mask") or _cap_names(head.group("names"))):
            block = re.sub(r"\s+", " ", head.group("block").strip())
            heads[block] = heads.get(block, 0) + 1
            current = blocks.setdefault(block, {"mask": head.group("mask"), "caps": [], "lines": []})
            current["caps"].extend(_cap_names(head.group("names")))
            current["lines"].append(line)
            continue
        tokens = line.split()
        if current is not None and tokens and all(_CAP_TOKEN_RE.match(t) for t in tokens):
            current["caps"].extend(tokens)
            current["lines"].append(line)
            continue
        current = None
        scalar = _scalar_line(raw)
        if scalar:
            indented, key, value = scalar
            scalars.setdefault(key.lower(), (value, raw.strip()))
            if key.lower() == "legacy" and indented:
                scalars["__legacy_indented"] = (value, raw.strip())

    repeated = sorted(b for b, n in heads.items() if n > 1)
    if repeated:  # two outputs in one text (captures appended): which one is this pNIC's cannot be told
        result.notes.append(f"vsish pnic properties: the block {repeated[0]!r} appears {heads[repeated[0]]} times: "
                            f"the text holds several properties outputs, so none is read as {name or 'this pNIC'}'s "
                            "(capture each pNIC's output on its own, or paste it with its prompt line)")
        return result
    driver = None
    for key, field in (("driver name", "driver"), ("driver", "driver"), ("driver version", "driver_version"),
                       ("firmware version", "firmware_version")):
        if key in scalars and scalars[key][0]:
            value, line = scalars[key]
            if field == "driver" and driver is None:
                driver = value.split()[0]
                if name:
                    result.pnic(name, "driver", driver, line)
            elif field != "driver" and name:
                result.pnic(name, field, value, line)
    if "device numa node" in scalars:
        value, line = scalars["device numa node"]
        node = to_int(value.split()[0]) if value else None
        if node is not None and node >= 0:
            if name:
                result.pnic(name, "numa_node", node, line)
            result.records.append({"kind": "vsish properties", "nic": name, "numa_node": node})
    if "__legacy_indented" in scalars:
        value, line = scalars["__legacy_indented"]
        legacy = to_int(value)
        if legacy in (0, 1) and name:
            result.pnic(name, "legacy_vmklinux", legacy == 1, line)

    for block, data in blocks.items():
        result.records.append({"kind": "vsish properties capabilities", "nic": name, "block": block,
                               "mask": data["mask"], "caps": list(data["caps"])})
    hw = next((b for b in blocks if "hardware" in b.lower() and "activated" in b.lower()), None) \
        or next((b for b in blocks if "hardware" in b.lower()), None)
    if hw is None and len(blocks) == 1 and "software" not in next(iter(blocks)).lower():
        hw = next(iter(blocks))
    if hw is not None:
        caps = {_norm_cap(c) for c in blocks[hw]["caps"]}
        evidence = " ".join(blocks[hw]["lines"])
        mask = blocks[hw]["mask"]
        bits = bin(int(mask, 16)).count("1") if mask else None
        # vsish names one capability per bit the mask sets (the capture: 0x793c032b, 15 bits, 15 names); fewer
        # names than bits is a list cut short, where a capability not named is unknown, not "no"
        cut = bits is not None and len(caps) < bits
        if cut and name:
            result.notes.append(f"{name}: {hw} {mask} sets {bits} capabilities but {len(caps)} are named (the list "
                                "was cut?): a capability not named is left unknown")
        if caps and name:
            for cap, fact in (("CAP_ENCAP", "vxlan_offload"), ("CAP_TSO", "tso")):
                if cap in caps or not cut:
                    result.pnic(name, fact, cap in caps, evidence)
            if "CAP_GENEVE_OFFLOAD" in caps:
                result.pnic(name, "geneve_offload", True, evidence)
            elif "CAP_OFFSET_BASED_OFFLOAD" in caps:
                if driver and driver.removesuffix("_ens") == "ixgben":
                    result.pnic(name, "geneve_offload", True, evidence)
                else:
                    result.notes.append(
                        f"{name}: CAP_OFFSET_BASED_OFFLOAD without CAP_GENEVE_OFFLOAD; Geneve via offset-based "
                        "offload is known for ixgben only and the driver is not named here"
                    )
            elif not cut:
                result.pnic(name, "geneve_offload", False, evidence)
    if not name and result.records:
        _no_name_note(result, cmd)
    if not blocks and not result.records and not result.pnics:
        result.notes.append(f"{cmd.text!r}: no capability block or known property found")
    return result


# --- rxqueues/info -------------------------------------------------------------------------------

def _names_after_arrow(value: str) -> tuple[int | None, list[str]]:
    m = re.search(r"(0x[0-9a-fA-F]+)\s*->\s*(.*)$", value)
    if not m:
        return None, []
    return int(m.group(1), 16), m.group(2).split()


#: Decoded queue-feature names that are hardware LRO (capture
#: tests/parsers/captures/esxi55_vsish_rxqueues_info_lro_rss_bnx2x_vmnic2_sneaku.txt: ``LRO`` … ``IPv4LRO``).
_LRO_FEATURES = frozenset({"LRO", "IPV4LRO", "IPV6LRO"})


def _rx_entries(text: str) -> tuple[list[list], bool]:
    """The ``key: value`` entries of a text-form ``rxqueues/info`` block as ``[key, value, raw, complete]`` and
    whether the closing ``}`` was seen. A line without ``:`` continues the previous entry (the PDF-wrapped
    ``VLAN_MAC`` / ``VXLAN Geneve GenericEncap`` of the vmnic5 seed capture). An entry is *complete* when another
    entry or the closing ``}`` follows it: the last entry of a text cut short may have lost names."""
    entries: list[list] = []
    closed = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("rx queues info"):
            continue
        if line == "}":
            if entries:
                entries[-1][3] = True
            closed = True
            continue
        m = re.match(r"^#?\s*([^:]+?)\s*:\s*(.*)$", line)
        if m and not re.fullmatch(r"[\w\s]+", line):
            if entries:
                entries[-1][3] = True
            entries.append([m.group(1).strip(), m.group(2).strip(), line, False])
        elif entries and ":" not in line:
            entries[-1][1] += " " + line
            entries[-1][2] += " " + line
    return entries, closed


def _queue_maximum(value: int | None, raw: str) -> list[tuple[str, Any, str]]:
    """The facts of ``# queues supported`` / ``maxQueues``: a maximum (``rx_queues_max``), never the current count
    (issue 16 §5: a driver offering 8 queues may have 1 in use); a maximum of one queue is also the count in use
    (a port receives on at least one queue)."""
    if value is None or value <= 0:
        return []
    return [("rx_queues_max", value, raw)] + ([("rx_queues", 1, raw)] if value == 1 else [])


def _python_form(text: str, cmd: CommandLine, result: ParseResult, record: dict) -> dict | None:
    """The python-form dict of a vsish output that is not in its text form (:func:`read_pyish`), ``record`` marked
    ``form: python``; None, with a note on ``result``, when neither form was found."""
    data = read_pyish(text)
    if data is None:
        result.notes.append(f"{cmd.text!r}: neither the text form nor a python-form dict was found")
    else:
        record["form"] = "python"
    return data


@register(r"^vsish\b.*?/net/pNics/[^/\s]+/rxqueues/info\b", "vsish rxqueues info")
def parse_rxqueues_info(text: str, cmd: CommandLine) -> ParseResult:
    """``vsish [-p]e get /net/pNics/<vmnic>/rxqueues/info``.

    Text form: ``rx_queues_max`` = ``# queues supported`` (the most Rx queues the driver offers NetQueue, not the
    number in use: :func:`_queue_maximum`); the decoded names after ``0x… ->`` of ``Rx filter class``
    and ``Rx Queue features`` give ``geneve_rx_filter`` True when a filter class is ``Geneve``, ``rss`` True when a
    feature is ``RSS`` and ``lro`` True when a feature is ``LRO``/``IPv4LRO``/``IPv6LRO``. A name that is absent
    means "no" (``geneve_rx_filter``/``rss`` False) only when the list is complete: the entry is followed by another
    entry or by the closing ``}`` and the command was not filtered by a pipe (``| grep``); a list at the end of a
    text cut short, or of a grep-filtered output, may have lost names, so nothing is concluded from an absence
    (a note says so). An absent LRO feature is never read as "no LRO": ESX 6.5 and later do LRO in software
    (nsx-t-performance-on-intel.txt, Figure 19 note). The VXLAN filter class is recorded only (no model field).
    Python form (``-p``): ``rx_queues_max`` = ``maxQueues``, ``rss`` = ``maxRSSEngines`` > 0; the undocumented
    ``filterClasses``/``features`` masks are recorded only. One record with all values read. Source:
    nic-data-sources.md §7; captures ``esxi_vsish_rxqueues_info_{rss_vmnic0,geneve_rxfilter_vmnic5}_seed.txt``,
    ``esxi_vsish_rxqueues_info_json.txt``, ``esxi_g_vsish_-pe_get_pNics_rxqueues_info_intel-mfd.txt``,
    ``tests/parsers/captures/esxi55_vsish_rxqueues_info_lro_rss_bnx2x_vmnic2_sneaku.txt`` (ESXi 5.5 bnx2x: LRO,
    RSS). Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="vsish rxqueues info")
    name = real_nic_name(cmd.target)
    record: dict[str, Any] = {"kind": "vsish rxqueues info", "nic": name}
    facts: list[tuple[str, Any, str]] = []
    filtered = "|" in cmd.raw

    if re.search(r"rx queues info\s*\{", text) or re.search(r"^\s*#\s*queues supported", text, re.M):
        record["form"] = "text"
        entries, _closed = _rx_entries(text)
        for key, value, raw, complete in entries:
            low = key.lower()
            complete = complete and not filtered
            if low == "queues supported":
                record["queues_supported"] = to_int(value)
                facts += _queue_maximum(to_int(value), raw)
            elif low == "filters supported":
                record["filters_supported"] = to_int(value)
            elif low == "active filters":
                record["active_filters"] = to_int(value)
            elif low.startswith("filters moved"):
                record["filters_moved"] = to_int(value)
            elif "geneve oam" in low:
                record["geneve_oam_filters"] = to_int(value)
            elif "filter class" in low:
                mask, names = _names_after_arrow(value)
                record["filter_classes_mask"], record["filter_classes"] = mask, names
                record["filter_classes_complete"] = complete
                geneve = any(n.lower() == "geneve" for n in names)
                if geneve or (names and complete):
                    facts.append(("geneve_rx_filter", geneve, raw))
                elif names:
                    result.notes.append(f"{name or cmd.text}: the Rx filter class list may be cut ({raw!r}): "
                                        "no Geneve filter class read, but none concluded")
            elif "features" in low:
                mask, names = _names_after_arrow(value)
                record["features_mask"], record["features"] = mask, names
                record["features_complete"] = complete
                upper = {n.upper() for n in names}
                if "RSS" in upper or (names and complete):
                    facts.append(("rss", "RSS" in upper, raw))
                elif names:
                    result.notes.append(f"{name or cmd.text}: the Rx queue feature list may be cut ({raw!r}): "
                                        "no RSS feature read, but none concluded")
                if upper & _LRO_FEATURES:
                    facts.append(("lro", True, raw))
    else:
        data = _python_form(text, cmd, result, record)
        if data is None:
            return result
        record.update({k: v for k, v in data.items()})
        lines = {m.group(1): m.group(0).strip() for m in re.finditer(r'"(\w+)"\s*:\s*[^\n]*', text)}
        max_queues = data.get("maxQueues")
        if isinstance(max_queues, int) and not isinstance(max_queues, bool):
            facts += _queue_maximum(max_queues, lines.get("maxQueues", ""))
        engines = data.get("maxRSSEngines")
        if isinstance(engines, int) and not isinstance(engines, bool):
            facts.append(("rss", engines > 0, lines.get("maxRSSEngines", "")))
    result.records.append(record)
    if name:
        for field, value, raw in facts:
            result.pnic(name, field, value, raw)
    else:
        _no_name_note(result, cmd)
    return result


# --- stats ---------------------------------------------------------------------------------------

@register(r"^vsish\b.*?/net/pNics/[^/\s]+/stats\b", "vsish pnic stats")
def parse_pnic_stats(text: str, cmd: CommandLine) -> ParseResult:
    """``vsish [-p]e get /net/pNics/<vmnic>/stats``: counters go to one record.

    Text form: ``-- General Statistics:`` (``Rx Packets:308907037`` ...) and ``-- Driver Specific
    Statistics:`` (``rx_fw_discards : 15948``) sections. Python form: the dict (``rxpkt``, ``rxdrp`` ...)
    plus the per-queue lines of its ``hw`` string; with a real vmnic target the numbers of rx/tx queues
    seen there become ``rx_queues``/``tx_queues``. Source: nic-data-sources.md §7; captures
    ``unattributed_vdnet_esxi_vsish_pnic_stats_bnx2_comment_partial.txt``,
    ``esxi_g_vsish_-pe_get_pNics_stats_ens-disabled_intel-mfd.txt``.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="vsish pnic stats")
    name = real_nic_name(cmd.target)
    record: dict[str, Any] = {"kind": "vsish pnic stats", "nic": name}
    queues: dict[str, dict[int, dict[str, int]]] = {"rx": {}, "tx": {}}
    qlines: dict[str, str] = {}
    if re.search(r"--\s*General Statistics", text):
        record["form"] = "text"
        section = None
        general: dict[str, int] = {}
        driver: dict[str, int] = {}
        for raw in text.splitlines():
            line = raw.strip()
            sm = re.match(r"^--\s*(.+?):?\s*$", line)
            if sm:
                section = "driver" if "driver" in sm.group(1).lower() else "general"
                continue
            m = re.match(r"^([A-Za-z][\w /-]*?)\s*:\s*(-?\d+)\s*$", line)
            if m and section:
                (driver if section == "driver" else general)[m.group(1).strip()] = int(m.group(2))
        record["general"], record["driver"] = general, driver
        if not general and not driver:
            result.notes.append(f"{cmd.text!r}: statistics sections found but no counter could be read")
    else:
        data = _python_form(text, cmd, result, record)
        if data is None:
            return result
        record["counters"] = {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
        hw = data.get("hw")
        if isinstance(hw, str):
            queues = queue_stats(hw)
            qlines = queue_lines(hw)
    if queues["rx"] or queues["tx"]:
        record["rx_queue_packets"] = {q: c.get("totalPkts") for q, c in sorted(queues["rx"].items())}
        record["tx_queue_packets"] = {q: c.get("totalPkts") for q, c in sorted(queues["tx"].items())}
    result.records.append(record)
    if name:
        if queues["rx"]:
            result.pnic(name, "rx_queues", len(queues["rx"]), qlines.get("rx", ""))
        if queues["tx"]:
            result.pnic(name, "tx_queues", len(queues["tx"]), qlines.get("tx", ""))
    else:
        _no_name_note(result, cmd)
    return result
