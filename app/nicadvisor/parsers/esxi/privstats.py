"""ESXi driver-private per-queue statistics: ``localcli --plugin-dir /usr/lib/vmware/esxcli/int networkinternal nic
privstats get -n vmnicX`` (the internal esxcli plugin): ``txqN:``/``rxqN:`` lines → ``tx_queues``/``rx_queues``
(capture ``esxi_localcli_networkinternal_nic_privstats_32q.txt``; nic-data-sources.md §7).
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.esxi.vsish import queue_stats, real_nic_name, record_queues
from nicadvisor.parsers.registry import register


@register(r"^esxcli\s+(?:--\S+\s+)*networkinternal\s+nic\s+privstats\s+get\b",
          "esxcli networkinternal nic privstats get")
def parse_privstats(text: str, cmd: CommandLine) -> ParseResult:
    """``localcli --plugin-dir /usr/lib/vmware/esxcli/int networkinternal nic privstats get -n vmnicX``:
    the number of ``rxqN:``/``txqN:`` lines → ``rx_queues``/``tx_queues`` of vmnicX; per-queue packet
    counts and other ``key: number`` lines (``Packets assigned to an invalid queue``, ``RxXon`` ...) go
    to one record. Output without per-queue lines (drivers print free-form text) is kept as a record.
    Never raises: what cannot be read is skipped and noted.
    """
    result = ParseResult(family="esxcli networkinternal nic privstats get")
    nic = real_nic_name(cmd.target)
    queues = queue_stats(text)
    other: dict[str, int] = {}
    for raw in text.splitlines():
        if re.match(r"^\s*[rt]xq\d+:", raw):
            continue
        m = re.match(r"^\s*(?:[\w ]+:\s*)?([A-Za-z][\w ]*?)\s*:\s*(-?\d+)\s*$", raw)
        if m:
            other.setdefault(m.group(1).strip(), int(m.group(2)))
    if not (queues["rx"] or queues["tx"] or other):
        result.notes.append(f"{cmd.text!r}: no per-queue or counter line found")
        return result
    record_queues(result, "privstats", nic, other, text)
    if not nic:
        result.notes.append(f"{cmd.text!r} names no vmnic (-n): values kept in records only")
    return result
