"""ESXi driver-private per-queue statistics: ``localcli --plugin-dir /usr/lib/vmware/esxcli/int networkinternal nic
privstats get -n vmnicX`` (the internal esxcli plugin): ``txqN:``/``rxqN:`` lines → ``tx_queues``/``rx_queues``
(capture ``esxi_localcli_networkinternal_nic_privstats_32q.txt``; nic-data-sources.md §7).
"""
from __future__ import annotations

import re

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.esxi.vsish import queue_stats, real_nic_name, record_queues
from nicadvisor.parsers.registration import register


_COUNTER_NAME = re.compile(r"[A-Za-z][\w ]*")
_PREFIX = re.compile(r"[\w ]+")
_NUMBER = re.compile(r"-?\d+")


def _counter_line(raw: str) -> tuple[str, int] | None:
    """``name: number`` or ``prefix: name: number`` (a name starts with a letter; words and spaces) → (name, number),
    else None. Read by splitting at the colons, not with one regex whose name and the spaces after it could be split
    in every way: a name followed by a megabyte of spaces took minutes."""
    parts = raw.split(":")
    if len(parts) not in (2, 3) or not _NUMBER.fullmatch(parts[-1].strip()):
        return None
    if len(parts) == 3 and not (_PREFIX.fullmatch(parts[0].lstrip()) or (" " in parts[0] and not parts[0].strip())):
        return None
    name = parts[-2].strip()
    return (name, int(parts[-1].strip())) if _COUNTER_NAME.fullmatch(name) else None


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
        counter = _counter_line(raw)
        if counter:
            other.setdefault(*counter)
    if not (queues["rx"] or queues["tx"] or other):
        result.notes.append(f"{cmd.text!r}: no per-queue or counter line found")
        return result
    record_queues(result, "privstats", nic, other, text)
    if not nic:
        result.notes.append(f"{cmd.text!r} names no vmnic (-n): values kept in records only")
    return result
