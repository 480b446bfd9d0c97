#!/usr/bin/env python3
"""The shell of the ESXi lab host (tests/bench/esxi_lab.py): ``ForceCommand /usr/bin/python3 -I -S esxi_shell.py
--config FILE``. sshd runs it for every command, as the lab's account, inside the lab host's network namespace.

It answers an ESXi command only with what a real ESXi host printed, as recorded in public sources, or by doing the
real thing where the command's effect is on files and processes of the lab:

* ``recorded`` (config): command → capture file (a ``# source:`` header, then the output): the body is printed
  VERBATIM, exit status 0. The lab's addresses are chosen to match the recordings that name them.
* ``states`` (config): command → ``{state value: capture file}``: the recording of the state the lab is in, verbatim
  (``ruleset list -r remoteSerialPort`` was recorded both disabled and enabled, 1_firewall.md §1.3).
* ``esxcli network firewall ruleset set -r NAME -e true|false`` of a ruleset in ``states``: the lab's state changes;
  nothing is printed (recorded: the command prints nothing, §1.3).
* ``/usr/lib/vmware/vsan/bin/`` stands for the lab's folder ``vsan_bin`` (config), which holds a real iperf3 as
  ``iperf3``: ``test -f``, ``cp`` and ``rm -f`` act on it; the original run as a server answers ESXi's recorded
  refusal (2_iperf3_on_esxi.md §2.1), as a client it runs; a copy runs (``exec``: under the session's
  pseudo-terminal, it ends with the session), unless the state ``exec_installed_only`` is on: then the recorded
  refusal of a copied program (§2.2, verbatim: it names the program of the recording) with exit status 126.
* ``ps -c -J``: the recorded rows (Intel's fixture, 3_process_list_kill.md §3.2, verbatim) and, in the same layout,
  a row for each live process of this namespace's account (world id = cartel id = its pid; the lab folder shown as
  ``/usr/lib/vmware/vsan/bin``): no recording can show the lab's own processes, so they are drawn as ESXi draws its
  own. ``kill -TERM|-KILL N``: the real ``kill``.
* every other command: ``esxi shell: no recorded output for '<command>'`` on stderr, exit status 1 — nothing is
  invented; the tool must cope with a command it cannot read.
* a command listed in the state's ``refuse``: ``esxi shell: refused '<command>'`` on stderr, exit status 1, nothing
  changed; one listed in ``hang``: no answer for ``hang_s`` seconds (default 120) — a host that fails or hangs on a
  restore (the lab's own words, no ESXi text).

Every command is appended to ``log`` (config; one JSON line: time, command, state) for the tests to read the order
of the changes. Config (JSON, written by the lab): ``{"recorded", "states", "state", "vsan_bin", "log", "ps",
"exec_refused", "listen_refused"}``; ``state`` the path of a JSON file ``{"rulesets": {name: bool}, "exec_installed_only":
bool}``.
"""
from __future__ import annotations

import fcntl
import json
import os
import shlex
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "ssh"))

from esxi_personality import body  # noqa: E402  (the capture's output without its header)

VSAN_BIN = "/usr/lib/vmware/vsan/bin"
FIREWALL = ["esxcli", "network", "firewall"]


def _state(cfg: dict, change=None) -> dict:
    """The lab's state, read (and changed by ``change(state)``) under a lock."""
    with open(cfg["state"], "r+", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        state = json.load(fh)
        if change is not None:
            change(state)
            fh.seek(0)
            fh.truncate()
            json.dump(state, fh)
        return state


def _log(cfg: dict, command: str, state: dict) -> None:
    with open(cfg["log"], "a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.write(json.dumps({"t": time.time(), "command": command, "rulesets": state.get("rulesets", {})}) + "\n")


def _local(cfg: dict, path: str) -> str | None:
    """The lab path of an ESXi path under /usr/lib/vmware/vsan/bin (None for any other path)."""
    if path.startswith(VSAN_BIN + "/") and "/" not in path[len(VSAN_BIN) + 1:] and ".." not in path:
        return os.path.join(cfg["vsan_bin"], path[len(VSAN_BIN) + 1:])
    return None


def _ps_rows(cfg: dict) -> bytes:
    """A ``ps -c -J`` row for each live process of this account in this network namespace, in the recorded layout."""
    me, uid = os.readlink("/proc/self/ns/net"), os.getuid()
    rows = []
    for entry in sorted(os.listdir("/proc"), key=lambda n: (len(n), n)):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != uid or os.readlink(f"/proc/{entry}/ns/net") != me:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = [a.decode("utf-8", "replace") for a in fh.read().split(b"\0") if a]
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                if fh.read().rsplit(")", 1)[-1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if not argv:
            continue
        argv = [a.replace(cfg["vsan_bin"], VSAN_BIN) for a in argv]
        name = os.path.basename(argv[0])[:15]
        rows.append(f"\x0et\x0f\x0eq\x0f{entry}  {entry}  {name:<20}  {' '.join(argv)}\n".encode())
    return b"".join(rows)


def main(argv: list[str]) -> int:
    config = argv[argv.index("--config") + 1]
    with open(config, encoding="utf-8") as fh:
        cfg = json.load(fh)
    raw = os.environ.get("SSH_ORIGINAL_COMMAND", "")
    try:
        words = shlex.split(raw)
    except ValueError:
        words = [raw]
    command = " ".join(words)
    state = _state(cfg) if cfg.get("state") else {}
    if cfg.get("log"):
        _log(cfg, command, state)
    if command in state.get("refuse", ()):  # a change the host does not make (issue 29 §4: a restore that fails)
        sys.stderr.write(f"esxi shell: refused {command!r}\n")
        return 1
    if command in state.get("hang", ()):  # a command that never answers (a restore that hangs), until the lab ends
        time.sleep(float(state.get("hang_s", 120)))
        return 1
    recorded = cfg.get("recorded", {})
    if command in recorded:
        sys.stdout.buffer.write(body(recorded[command]))
        return 0
    states = cfg.get("states", {})
    if command in states:
        name = words[-1]
        sys.stdout.buffer.write(body(states[command][str(state["rulesets"].get(name)).lower()]))
        return 0
    if (len(words) == 9 and words[:6] == FIREWALL + ["ruleset", "set", "-r"] and words[7] == "-e"
            and words[8] in ("true", "false") and words[6] in state.get("rulesets", {})):
        _state(cfg, lambda st: st["rulesets"].__setitem__(words[6], words[8] == "true"))
        return 0
    if words[:2] == ["test", "-f"] and len(words) == 3 and _local(cfg, words[2]):
        return 0 if os.path.isfile(_local(cfg, words[2])) else 1
    if words[:1] == ["cp"] and len(words) == 3 and _local(cfg, words[1]) and _local(cfg, words[2]):
        os.execv("/bin/cp", ["cp", _local(cfg, words[1]), _local(cfg, words[2])])
    if words[:2] == ["rm", "-f"] and len(words) == 3 and _local(cfg, words[2]):
        os.execv("/bin/rm", ["rm", "-f", _local(cfg, words[2])])
    if words == ["ps", "-c", "-J"]:
        sys.stdout.buffer.write(body(cfg["ps"]) + _ps_rows(cfg))
        return 0
    if words[:1] == ["kill"] and len(words) == 3 and words[1] in ("-TERM", "-KILL") and words[2].isdigit():
        try:
            os.kill(int(words[2]), signal.SIGTERM if words[1] == "-TERM" else signal.SIGKILL)
        except OSError as exc:
            sys.stderr.write(f"kill: {exc.strerror}\n")
            return 1
        return 0
    program = _local(cfg, words[0]) if words else None
    if program and os.path.isfile(program):
        if os.path.basename(program) == "iperf3":
            if "-s" in words:  # ESXi's own iperf3 refuses to listen under its name
                sys.stdout.buffer.write(body(cfg["listen_refused"]))
                return 1
        elif state.get("exec_installed_only"):
            sys.stdout.buffer.write(body(cfg["exec_refused"]))
            return 126
        os.execv(program, [program, *words[1:]])
    sys.stderr.write(f"esxi shell: no recorded output for {command!r}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
