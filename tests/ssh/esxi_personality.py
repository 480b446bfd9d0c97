#!/usr/bin/env python3
"""An "ESXi personality" for a test sshd: ``ForceCommand /usr/bin/python3 esxi_personality.py --captures DIR
[--behaviour FILE] [--latency-ms N]``.

sshd runs it for every command; it reads ``SSH_ORIGINAL_COMMAND``, splits it with :func:`shlex.split`
and answers with the BODY (the lines after the ``# source:``/``# command:``/``# note:``/``# host:``
header) of the REAL capture mapped to that command in :data:`TABLE`, exit status 0. Any other command
gets ``esxi personality: no capture for '<command>'`` on stderr and exit status 1 — nothing is invented.

The table is one coherent host as far as the public captures allow: the NIC list of
``esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt`` (vmnic0-1 ixgben X550, vmnic2-3 icen E810) with
``nic get -n vmnic0`` from an ixgben X550 capture whose Bus Info (0000:18:00:0) matches vmnic0's PCI
address. The vsish ``properties`` capture of vmnic3 is the real ``| grep ".*Activated.*Geneve"`` subset of
that node (nic-data-sources.md §6), answered for the full ``vsish -e get .../properties`` command.

``--behaviour FILE`` (JSON, re-read on every command) injects faults for the tests:
``{"sleep": {"<command>": seconds}}`` sleeps before answering (exits early when its sshd goes away),
``{"die": ["<command>"]}`` prints the first half of the answer, then kills its own sshd session
process (SIGKILL), i.e. sshd dies mid-command; ``{"garbage": ["<command>"]}`` answers binary bytes.
``--latency-ms`` adds a fixed delay to every answer (the fan-out benchmark's simulated host latency).
"""
from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import time

TABLE = {
    "esxcli network nic list": "esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt",
    "esxcli network nic get -n vmnic0": "esxi_esxcli_nic_get_ixgben_x550_10gbaset_nbaset.txt",
    "vsish -e get /net/pNics/vmnic0/rxqueues/info": "esxi_vsish_rxqueues_info_rss_vmnic0_seed.txt",
    "vsish -e get /net/pNics/vmnic3/properties": "esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt",
    "esxcli network vswitch standard list": "esxi_esxcli_vswitch_standard_list_mtu.txt",
    "esxcli network ip interface list": "esxi_esxcli_ip_interface_list_esxi9_urpf.txt",
    "esxcfg-vmknic -l": "esxi_esxcfg-vmknic-l_mtu_9000.txt",
    "esxcfg-module -g icen": "esxi_esxcfg-module-g_icen_options.txt",
}
_HEADER_KEYS = ("source", "command", "note", "host")


def body(path: str) -> bytes:
    """The capture's output: everything after its leading header lines."""
    with open(path, "rb") as fh:
        lines = fh.read().splitlines(keepends=True)
    i = 0
    while i < len(lines):
        s = lines[i].strip().decode("utf-8", "replace")
        key = s[2:].split(":", 1)[0].strip().lower() if s.startswith("# ") else ""
        if key in _HEADER_KEYS and ":" in s:
            i += 1
            continue
        break
    return b"".join(lines[i:])


def _sshd_ancestor() -> int | None:
    pid = os.getppid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read().decode("utf-8", "replace")
        except OSError:
            return None
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        if comm.startswith("sshd"):
            return pid
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
    return None


def main(argv: list[str]) -> int:
    args = {"--captures": "", "--behaviour": "", "--latency-ms": "0"}
    it = iter(argv)
    for a in it:
        if a in args:
            args[a] = next(it, "")
    raw = os.environ.get("SSH_ORIGINAL_COMMAND", "")
    try:
        command = " ".join(shlex.split(raw))
    except ValueError:
        command = raw
    behaviour: dict = {}
    if args["--behaviour"] and os.path.exists(args["--behaviour"]):
        with open(args["--behaviour"], encoding="utf-8") as fh:
            behaviour = json.load(fh)
    latency = float(args["--latency-ms"]) / 1000.0
    if latency:
        time.sleep(latency)
    sleep_s = float(behaviour.get("sleep", {}).get(command, 0))
    parent = os.getppid()
    end = time.monotonic() + sleep_s
    while time.monotonic() < end:
        time.sleep(0.05)
        if os.getppid() != parent:
            return 1  # our sshd went away (the client closed the channel/connection)
    if command in behaviour.get("garbage", []):
        sys.stdout.buffer.write(b"\x00\x01\xfe\xffBINARY\x00" * 64)
        return 0
    name = TABLE.get(command)
    if name is None:
        sys.stderr.write(f"esxi personality: no capture for {command!r}\n")
        return 1
    data = body(os.path.join(args["--captures"], name))
    if command in behaviour.get("die", []):
        sys.stdout.buffer.write(data[: len(data) // 2])
        sys.stdout.buffer.flush()
        time.sleep(0.2)
        pid = _sshd_ancestor()
        if pid:
            os.kill(pid, signal.SIGKILL)
        time.sleep(5)
        return 1
    sys.stdout.buffer.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
