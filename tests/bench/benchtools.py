"""Helpers for the benchmark tests: process/namespace probes and stored real tool outputs."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from nicadvisor.bench.journal import existing_netns

DATA = Path(__file__).with_name("data")


def live_processes(name: str, parent: int | None = None) -> set[int]:
    """Pids of live (non-zombie) processes whose argv[0] basename is ``name`` and, when ``parent``
    is given, whose parent pid is ``parent`` (other sessions on this machine may run netperf too)."""
    pids = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            argv0 = (d / "cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
            fields = (d / "stat").read_text().rsplit(")", 1)[-1].split()
        except (OSError, IndexError):
            continue
        if os.path.basename(argv0) != name or not fields or fields[0] == "Z":
            continue
        if parent is not None and int(fields[1]) != parent:
            continue
        pids.add(int(d.name))
    return pids


def my_children(*names: str) -> set[int]:
    """Live child processes of this test process with one of ``names``."""
    out: set[int] = set()
    for n in names:
        out |= live_processes(n, parent=os.getpid())
    return out


def nicadv_namespaces(mine: bool = True) -> set[str]:
    """``nicadv-*`` namespaces; with ``mine`` only those named after this process
    (``nicadv-<pid>-...``), since other sessions may benchmark at the same time."""
    prefix = f"nicadv-{os.getpid()}-" if mine else "nicadv-"
    return {n for n in existing_netns() if n.startswith(prefix)}


def read_output(name: str) -> str:
    """A stored real tool output from data/, without its ``# source/command/note`` header lines."""
    lines = (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)
    i = 0
    while i < len(lines) and lines[i].startswith(("# source:", "# command:", "# note:")):
        i += 1
    return "".join(lines[i:])


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces")

