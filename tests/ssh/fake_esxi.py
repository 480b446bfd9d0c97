"""A fake ESXi shell for the collector script (test helper, not a test module): Debian's busybox applets the ESXi
Shell has, plus fake ``esxcli``, ``esxcfg-*``, ``vsish``, ``vmware``, ``lspci`` and ``vim-cmd`` executables (every
tool of the catalogue's ESXi commands) that print the REAL recorded outputs of one host verbatim.

The host is the ESXi personality's (:data:`esxi_personality.TABLE`: the NIC list of
``esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt`` with the outputs recorded for its ports), the lab the SSH
tests audit, so the script's output can be compared with the SSH collector's. A fake prints the body of the capture
recorded for exactly its command line (everything after the ``# source:``/``# command:``/``# note:``/``# host:``
header) and exits 0; for any other command line it says on stderr that no output was recorded and exits 1: nothing is
invented. ``grep`` is busybox's own (the lab has no ``/var/log/vmkernel.log``).

:func:`busybox_bin` makes the applet folder: only the tools the ESXi Shell's busybox offers that the script may use,
so a script that needs another tool (bash, GNU options, Python) fails here as it would on a host.
"""
from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from esxi_personality import TABLE, body
from nicadvisor import commands

BUSYBOX = shutil.which("busybox") or "/usr/bin/busybox"
#: The applets the collector script may use (all in the ESXi Shell's busybox): sh/ash, the file tools, grep, awk,
#: the clock, the host name and user, sleep/kill for the time limit, mktemp/od for the collection's boundary.
APPLETS = ("sh", "ash", "cat", "mkdir", "rm", "rmdir", "mv", "grep", "awk", "date", "hostname", "id", "sleep",
           "mktemp", "od", "ls", "readlink", "env", "kill")
#: The ESXi tools the catalogue's collected commands call (every ESXi host has them; ``grep`` is busybox's own): each
#: gets a fake (with the recorded outputs of its command lines), as the SSH lab's personality answers every command.
TOOLS = tuple(dict.fromkeys(c.words[0] for c in commands.collected("esxi") if c.words[0] not in APPLETS))


def busybox_bin(folder: Path) -> Path:
    """``folder`` with a link to busybox for each of :data:`APPLETS`; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in APPLETS:
        if not (folder / name).exists():
            (folder / name).symlink_to(BUSYBOX)
    return folder


def fake_tools(folder: Path, captures: Path, table: dict[str, str] | None = None,
               sleep: dict[str, int] | None = None) -> Path:
    """``folder`` with one executable per tool of :data:`TOOLS`, answering the command lines of ``table`` (default
    :data:`TABLE`: command line → capture file name in ``captures``) with the capture's body; ``sleep`` makes a
    command line hang that many seconds instead, printing nothing (a hung command; its process id is written to
    ``folder/hung-NNN.pid``). Returns ``folder``."""
    table = TABLE if table is None else table
    sleep = sleep or {}
    bodies = folder / "bodies"
    bodies.mkdir(parents=True, exist_ok=True)
    cases: dict[str, list[str]] = {t: [] for t in TOOLS}
    for i, (command, name) in enumerate(sorted(table.items())):
        tool, _, args = command.partition(" ")
        path = bodies / f"{i:03d}.txt"
        path.write_bytes(body(str(captures / name)))
        hung = shlex.quote(str(folder / f"hung-{i:03d}.pid"))
        answer = (f"echo $$ > {hung}; exec sleep {sleep[command]}" if command in sleep
                  else f"exec cat {shlex.quote(str(path))}")
        cases[tool].append(f"  {shlex.quote(args)}) {answer} ;;")
    for tool, lines in cases.items():
        script = folder / tool
        script.write_text("\n".join([
            "#!/bin/sh",
            f"# fake {tool}: the recorded outputs of one lab host (tests/ssh/fake_esxi.py)",
            'case "$*" in',
            *lines,
            "esac",
            f'echo "fake {tool}: no output of \'{tool} $*\' was recorded for this lab host" >&2',
            "exit 1",
        ]) + "\n")
        script.chmod(0o755)
    return folder


def esxi_path(base: Path, captures: Path, **kw) -> str:
    """A PATH for the fake ESXi shell under ``base``: the fakes first, then the busybox applets (nothing else)."""
    return f"{fake_tools(base / 'fakes', captures, **kw)}:{busybox_bin(base / 'busybox')}"


def esxi_collection(tmp: Path, captures: Path, name: str = "esxi-lab") -> Path:
    """Run the ESXi collector script with ``--stdout`` under busybox sh in the fake ESXi shell (``tmp``) and return
    the collection file ``tmp/<name>.txt``. Raises AssertionError when the script fails."""
    import subprocess

    from nicadvisor.collect.script import collector_script

    script = tmp / "nic-advisor-collect-esxi.sh"
    script.write_text(collector_script("esxi"))
    res = subprocess.run([BUSYBOX, "sh", str(script), "--stdout", "-n", name], cwd=tmp, timeout=120,
                         env={"PATH": esxi_path(tmp / "env", captures)}, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    out = tmp / f"{name}.txt"
    out.write_text(res.stdout)
    return out
