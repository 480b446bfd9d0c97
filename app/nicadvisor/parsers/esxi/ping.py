"""ESXi ``vmkping`` (end-to-end MTU test with DF set, nic-data-sources.md §5; also as ``ping ++netstack=…``, the same
program, shared/design/research/esxi-public/4_vmkping.md §4.1), and its equivalent over the vSphere API, ``esxcli
network diag ping`` (:func:`ping_facts`: its answer read into a record of the same shape).

``vmkping [-I vmkN] -d -s SIZE HOST`` with SIZE = MTU − 28 (8972 for 9000) tests that a jumbo frame
crosses the path without fragmentation. Failure modes (§5): a too small LOCAL MTU gives
``sendto() failed (Message too long)`` per packet and 100 % loss
(``esxi_vmkping-d_message_too_long_mtu_mismatch.txt``); a too small PATH MTU gives plain timeouts.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from nicadvisor.parsers.base import CommandLine, ParseResult, to_int
from nicadvisor.parsers.registration import register, register_rows
from nicadvisor.parsers.rows import esxcli_api_family, norm_row, text as text_of

# vmkping options that take a value (vmkping --help: -c count, -i interval, -I interface, -N next hop,
# -s size, -t ttl, -W timeout).
_VALUE_OPTS = {"-c", "-i", "-I", "-N", "-s", "-t", "-W"}
_PING_RE = re.compile(r"^\s*PING\s+(?P<host>\S+)\s+\([^)]*\):\s+(?P<size>\d+)\s+data bytes", re.M)
_STATS_RE = re.compile(
    r"^\s*(?P<sent>\d+)\s+packets transmitted,\s+(?P<recv>\d+)\s+packets received,\s+"
    r"(?P<loss>\d+(?:\.\d+)?)%\s+packet loss", re.M)
_ERROR_RE = re.compile(r"sendto\(\) failed \((?P<err>[^)]+)\)")


def _argv_facts(argv: tuple[str, ...]) -> dict[str, object]:
    """Options of a vmkping command line: size (bytes), df, interface (vmkN), netstack, host."""
    out: dict[str, object] = {"size": None, "df": False, "interface": None, "netstack": None, "target": None}
    words = list(argv[1:])
    i = 0
    while i < len(words):
        w = words[i]
        if w in _VALUE_OPTS and i + 1 < len(words):
            if w == "-s":
                out["size"] = int(words[i + 1]) if words[i + 1].isdigit() else None
            elif w == "-I":
                out["interface"] = words[i + 1]
            i += 2
            continue
        if w == "-d":
            out["df"] = True
        elif w.startswith("++netstack="):
            out["netstack"] = w.partition("=")[2]
        elif not w.startswith(("-", "+")):
            out["target"] = w
        i += 1
    return out


def read_ping_text(text: str) -> dict[str, object]:
    """The outcome in an ESXi ``vmkping``/``ping`` output: ``{"size": payload bytes from the ``PING … N data
    bytes`` line or None, "sent", "received" (None without the statistics line), "loss_pct", "error": the first
    ``sendto() failed (…)`` reason (``"Message too long"``) or None}``. Pure; never raises."""
    ping = _PING_RE.search(text)
    stats = _STATS_RE.search(text)
    err = _ERROR_RE.search(text)
    return {"size": int(ping.group("size")) if ping else None,
            "sent": int(stats.group("sent")) if stats else None,
            "received": int(stats.group("recv")) if stats else None,
            "loss_pct": float(stats.group("loss")) if stats else None,
            "error": err.group("err") if err else None}


@register(r"^(?:vmkping\b|ping \+\+netstack=)", "vmkping")  # ESXi's ping on a netstack is vmkping
def parse_vmkping(text: str, cmd: CommandLine) -> ParseResult:
    """Read a ``vmkping`` run into one record.

    Record: ``{"kind": "vmkping", "size": bytes (payload, from -s or the ``PING … N data bytes``
    line), "df": bool (-d given), "target": host, "sent": int, "received": int, "loss_pct": float,
    "error": "Message too long" (from ``sendto() failed (…)``) or None, "interface": vmkN from -I or
    None, "netstack": from ``++netstack=`` or None, "meaning": what the ping proves, a sentence, or None}``.
    ``sent``/``received``/``loss_pct`` are None when
    the statistics line is missing. No vmknic fact is recorded: the output names none (the interface
    named by ``-I`` is kept in the record). Host fact ``mtu_path_ok``: see :func:`_judge_tep_path` (only a
    don't-fragment ping on the TEP netstack decides it; a ``sendto() failed (Message too long)`` is a local MTU
    error of the sending vmknic, ``esxi_vmkping-d_message_too_long_mtu_mismatch.txt``). Never raises.
    """
    result = ParseResult(family="vmkping")
    facts = _argv_facts(cmd.argv)
    ping = _PING_RE.search(text)
    stats = _STATS_RE.search(text)
    err = _ERROR_RE.search(text)
    if not (ping or stats or err):
        result.notes.append("vmkping: no PING line, statistics or sendto() error found")
        return result
    if ping:
        facts["target"] = facts["target"] or ping.group("host")
        facts["size"] = facts["size"] if facts["size"] is not None else int(ping.group("size"))
    result.records.append({
        "kind": "vmkping",
        "size": facts["size"],
        "df": facts["df"],
        "target": facts["target"],
        "sent": int(stats.group("sent")) if stats else None,
        "received": int(stats.group("recv")) if stats else None,
        "loss_pct": float(stats.group("loss")) if stats else None,
        "error": err.group("err") if err else None,
        "interface": facts["interface"],
        "netstack": facts["netstack"],
    })
    result.records[-1]["meaning"] = _judge_tep_path(result, facts, "-6" in cmd.argv[1:], ping, stats, err)
    if not stats:
        result.notes.append("vmkping: no 'packets transmitted' statistics line (output truncated?)")
    return result


#: The netstack NSX runs its TEP vmknics on (NSX-V VTEPs and NSX-T TEPs alike; 4_vmkping.md §4.1, §4.3).
TEP_NETSTACK = "vxlan"
#: The smallest frame (bytes) Geneve needs (nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput).
GENEVE_MIN_FRAME = 1600


def _judge_tep_path(result: ParseResult, facts: Mapping[str, Any], ipv6: bool, ping: Any, stats: Any,
                    err: Any) -> str | None:
    """The host fact ``mtu_path_ok`` of one don't-fragment ping, only where it proves something about the TEP path,
    and what the ping means in a sentence (the record's ``meaning``; None when it says nothing more than its lines):

    * the frame is the payload + 28 bytes (IPv4 + ICMP) or + 48 (``-6``: IPv6 + ICMPv6);
    * ``sendto() failed (Message too long)`` is a LOCAL error: the sending vmknic's MTU is below the frame, no packet
      left the host; it is ``mtu_path_ok`` False only when the ping ran on the TEP netstack (``++netstack=vxlan``)
      with a frame of at most 1600 bytes (the TEP cannot send what Geneve needs); otherwise a note says what it
      shows (a frame larger than the vmknic's MTU; ``-d -s 1500`` can never pass on a 1500-byte vmknic);
    * replies on the TEP netstack with a frame of at least 1600 bytes: True;
    * any ping on the default netstack says nothing about the TEP path (a note says so), and a plain timeout leaves
      it unknown (a path MTU drop or an unreachable peer).
    """
    size = facts["size"]
    if not facts["df"] or not isinstance(size, int):
        return None
    frame = size + (48 if ipv6 else 28)
    on_tep = facts["netstack"] == TEP_NETSTACK
    sender = facts["interface"] or "the vmknic the route chose"
    if err:
        raw = "\n".join(m.group(0).strip() for m in (ping, err) if m)
        local = (f"'sendto() failed ({err.group('err')})' is a local MTU error of {sender}: the {frame}-byte frame "
                 f"(payload {size}) is larger than its MTU and never left the host; not a path failure")
        if on_tep and frame <= GENEVE_MIN_FRAME:
            result.host_fact("mtu_path_ok", False, raw)
            return local + f"; the TEP cannot send a {frame}-byte frame, and Geneve needs {GENEVE_MIN_FRAME}"
        return local + ("" if on_tep else "; a test on the default netstack says nothing about the TEP path")
    if on_tep and stats and int(stats.group("recv")) > 0 and frame >= GENEVE_MIN_FRAME:
        result.host_fact("mtu_path_ok", True, "\n".join(m.group(0).strip() for m in (ping, stats) if m))
        return f"a {frame}-byte frame crossed the TEP path unfragmented"
    if not on_tep:
        return ("a test on the default netstack (no ++netstack=vxlan -I <TEP vmknic>) says nothing about the TEP "
                "path")
    return None


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


@register_rows(("network", "diag", "ping"))
def ping_facts(rows: Iterable[Mapping[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """``esxcli network diag ping`` answered over the vSphere API (one object with ``Summary`` and ``Trace``
    entries; PowerCLI scripts read ``Summary.Transmitted``, ``Summary.Recieved`` — spelled so by the API —,
    ``Summary.PacketLost`` %, ``Summary.RoundtripAvg``/``Min``/``Max`` µs) → one record in the shape of
    :func:`parse_vmkping`'s: ``{"kind": "vmkping", "via": "vSphere API", "size": bytes, "df": bool, "target",
    "sent", "received", "loss_pct", "error": None, "interface", "netstack", "rtt_avg_us", "rtt_min_us",
    "rtt_max_us"}`` (None when absent; ``args`` are the options the ping was sent with). No pNIC/vmknic fact is
    recorded. Never raises."""
    result = ParseResult(family=esxcli_api_family(("network", "diag", "ping")))
    args = dict(args or {})
    rows = list(rows)
    if not rows:
        result.notes.append("esxcli network diag ping (API): empty answer")
        return result
    n = norm_row(rows[0])
    summary = norm_row(_first(n.get("summary"))) if isinstance(_first(n.get("summary")), dict) else {}
    if not summary:
        result.notes.append("esxcli network diag ping (API): no Summary in the answer")
    loss = text_of(summary.get("packetlost"))
    try:
        loss_pct = float(loss) if loss is not None else None
    except ValueError:
        loss_pct = None
    size = args.get("size") if isinstance(args.get("size"), int) else None
    result.records.append({
        "kind": "vmkping", "via": "vSphere API",
        "size": size, "df": bool(args.get("df")),
        "target": args.get("host") or text_of(summary.get("hostaddr")),
        "sent": to_int(text_of(summary.get("transmitted"))),
        "received": to_int(text_of(summary.get("recieved")) or text_of(summary.get("received"))),
        "loss_pct": loss_pct, "error": None,
        "interface": args.get("interface"), "netstack": args.get("netstack"),
        "rtt_avg_us": to_int(text_of(summary.get("roundtripavg"))),
        "rtt_min_us": to_int(text_of(summary.get("roundtripmin"))),
        "rtt_max_us": to_int(text_of(summary.get("roundtripmax"))),
    })
    return result
