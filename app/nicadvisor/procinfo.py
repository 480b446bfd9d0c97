"""Identifying a process across pid reuse (Linux ``/proc``): used by the benchmark journal and the audit
history to tell whether a recorded process still runs."""
from __future__ import annotations

from pathlib import Path


def process_start_ticks(pid: int) -> int | None:
    """Start time of ``pid`` in clock ticks since boot (field 22 of ``/proc/<pid>/stat``), or None when the
    process does not exist, is a zombie, or ``/proc`` is not available (not Linux). Together with the pid
    it identifies a process across pid reuse."""
    try:
        data = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    tail = data.rsplit(")", 1)[-1].split()  # comm (field 2) may hold spaces and parentheses
    if len(tail) < 20 or tail[0] == "Z":
        return None
    try:
        return int(tail[19])
    except ValueError:
        return None
