"""ESXi ``vmkping`` (end-to-end MTU test with DF set, nic-data-sources.md §5).

``vmkping [-I vmkN] -d -s SIZE HOST`` with SIZE = MTU − 28 (8972 for 9000) tests that a jumbo frame
crosses the path without fragmentation. Failure modes (§5): a too small LOCAL MTU gives
``sendto() failed (Message too long)`` per packet and 100 % loss
(``esxi_vmkping-d_message_too_long_mtu_mismatch.txt``); a too small PATH MTU gives plain timeouts.
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.registry import register

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


@register(r"^vmkping\b", "vmkping")
def parse_vmkping(text: str, cmd: CommandLine) -> ParseResult:
    """Read a ``vmkping`` run into one record.

    Record: ``{"kind": "vmkping", "size": bytes (payload, from -s or the ``PING … N data bytes``
    line), "df": bool (-d given), "target": host, "sent": int, "received": int, "loss_pct": float,
    "error": "Message too long" (from ``sendto() failed (…)``) or None, "interface": vmkN from -I or
    None, "netstack": from ``++netstack=`` or None}``. ``sent``/``received``/``loss_pct`` are None when
    the statistics line is missing. No vmknic fact is recorded: the output names none (the interface
    named by ``-I`` is kept in the record). Host fact ``mtu_path_ok`` (nic-data-sources.md §5):
    False when ``-d`` was given and a ``sendto() failed (…)`` error was printed, evidence = the ``PING``
    line and the first error line (``esxi_vmkping-d_message_too_long_mtu_mismatch.txt``); True when
    ``-d`` was given, the payload is at least 1572 bytes (a 1600-byte frame) and replies came back
    without error. A plain timeout (100 % loss, no error) leaves it unknown: it may be a path MTU drop
    or an unreachable peer. Never raises.
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
    if facts["df"] and err:
        raw = "\n".join(m.group(0).strip() for m in (ping, err) if m)
        result.host_fact("mtu_path_ok", False, raw)
    elif (facts["df"] and stats and int(stats.group("recv")) > 0 and isinstance(facts["size"], int)
          and facts["size"] >= 1572):
        result.host_fact("mtu_path_ok", True, "\n".join(m.group(0).strip() for m in (ping, stats) if m))
    if not stats:
        result.notes.append("vmkping: no 'packets transmitted' statistics line (output truncated?)")
    return result
