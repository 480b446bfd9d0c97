#!/usr/bin/env python3
"""Fan-out: audit many simulated ESXi hosts over real SSH one at a time, then with the worker pool.

The hosts are real OpenSSH sshd listeners on loopback — one address per host (``127.0.1.1`` …), at
most 16 addresses per sshd (its listen-socket limit) — whose ForceCommand is a small POSIX-sh ESXi
personality generated from ``tests/ssh/esxi_personality.py``'s table: it answers each mapped command
with the body of the same REAL capture (``shared/fixtures/captures``) after a fixed delay
(``--latency-ms``, the simulated per-command latency of a remote host; default 25 ms), and fails the
others, as the test personality does. Each host runs the full ESXi command set of
:func:`nicadvisor.collect.ssh.collect_ssh` (NIC discovery, host, per-NIC and per-module commands).

Prints the wall time of ``max_workers=1`` and of the pooled run — by default with the app's own default
pool size (:data:`nicadvisor.collect.ssh.DEFAULT_SSH_WORKERS`, what a real audit uses; ``--workers`` to
try another) — and their ratio (target ≥ 8x), and checks that both runs read the same outputs. Needs
root: sshd must switch to a throw-away local account (created with useradd, removed at the end).

Usage:
    python benchmarks/fanout.py                  # 64 hosts
    python benchmarks/fanout.py --smoke          # 8 hosts
    python benchmarks/fanout.py --hosts 32 --workers 8 --latency-ms 50
"""
from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "ssh"))
sys.path.insert(0, str(REPO / "tests"))

import esxi_personality  # noqa: E402
import sshd_harness as H  # noqa: E402
from capturetools import CAPTURES  # noqa: E402

from nicadvisor.collect.known_hosts import KnownHosts  # noqa: E402
from nicadvisor.collect.ssh import DEFAULT_SSH_WORKERS, SshCollection, SshTarget, collect_ssh  # noqa: E402

TARGET_RATIO = 8.0


def write_sh_personality(base: Path, latency_ms: float) -> Path:
    """A POSIX-sh personality answering the table's commands with the capture bodies (cheaper to start
    than Python, so the benchmark measures the SSH fan-out rather than interpreter start-up)."""
    bodies = base / "bodies"
    bodies.mkdir()
    cases = []
    for i, (command, capture) in enumerate(sorted(esxi_personality.TABLE.items())):
        body = bodies / f"{i}.txt"
        body.write_bytes(esxi_personality.body(str(CAPTURES / capture)))
        body.chmod(0o644)
        cases.append(f"{shlex.quote(command)}) exec cat {shlex.quote(str(body))} ;;")
    script = base / "personality.sh"
    script.write_text("#!/bin/sh\n"
                      + (f"sleep {latency_ms / 1000:g}\n" if latency_ms else "")
                      + 'case "$SSH_ORIGINAL_COMMAND" in\n' + "\n".join(cases) + "\n"
                      + "*) echo \"esxi personality: no capture for '$SSH_ORIGINAL_COMMAND'\" >&2; exit 1 ;;\nesac\n")
    script.chmod(0o755)
    return script


def summary(c: SshCollection) -> list[tuple[str, int, int]]:
    return [(h.name, len(h.captures), len(h.problems)) for h in c.hosts]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true", help="8 hosts instead of 64")
    ap.add_argument("--hosts", type=int, default=None, help="number of simulated hosts (default 64)")
    ap.add_argument("--workers", type=int, default=None,
                    help=f"pool size of the parallel run (default: the app's default, {DEFAULT_SSH_WORKERS})")
    ap.add_argument("--latency-ms", type=float, default=25.0, help="simulated per-command latency (default 25)")
    args = ap.parse_args(argv)
    n = args.hosts or (8 if args.smoke else 64)
    if args.workers is not None and args.workers < 1:
        ap.error("--workers must be at least 1")
    if not 1 <= n <= 250:
        ap.error("--hosts must be between 1 and 250")
    why = H.available()
    if why:
        print(f"fanout benchmark cannot run: {why}", file=sys.stderr)
        return 2

    base = H.make_base("nicadv-fanout-")
    user = None
    daemons: list[H.Sshd] = []
    try:
        user = H.TestUser(base)
        key = H.keygen(base / "client_key")
        authorized = base / "authorized_keys"
        authorized.write_text(Path(str(key) + ".pub").read_text())
        authorized.chmod(0o644)
        script = write_sh_personality(base, args.latency_ms)
        addresses = [f"127.0.1.{i}" for i in range(1, n + 1)]
        port = H.free_port()
        targets: list[SshTarget] = []
        for k in range(0, n, 16):
            group = addresses[k:k + 16]
            sshd = H.Sshd(base, user.name, authorized, port=port, listen=group, force_command=str(script),
                          tag=f"group{k // 16}")
            daemons.append(sshd.start())
            targets += [SshTarget(host=a, port=port, user=user.name, kind="esxi", key_filename=str(key),
                                  trusted_fingerprint=sshd.fingerprint, connect_timeout_s=20, command_timeout_s=30)
                        for a in group]
        print(f"{n} simulated ESXi hosts on {len(daemons)} sshd(s), port {port}, "
              f"{args.latency_ms:g} ms per command")
        workers = DEFAULT_SSH_WORKERS if args.workers is None else args.workers
        print(f"pool size          : {workers}" + (" (collect_ssh's default)" if args.workers is None else
                                                    f" (--workers; collect_ssh's default is {DEFAULT_SSH_WORKERS})"))
        collect_ssh(targets[:1], known_hosts=KnownHosts(base / "warmup_known_hosts"))  # warm-up

        t0 = time.perf_counter()
        serial = collect_ssh(targets, known_hosts=KnownHosts(base / "serial_known_hosts"), max_workers=1)
        t_serial = time.perf_counter() - t0
        t0 = time.perf_counter()
        pool_kh = KnownHosts(base / "pool_known_hosts")
        if args.workers is None:  # exactly what an audit with the app's defaults does
            pooled = collect_ssh(targets, known_hosts=pool_kh)
        else:
            pooled = collect_ssh(targets, known_hosts=pool_kh, max_workers=workers)
        t_pool = time.perf_counter() - t0

        commands = sum(len(h.captures) for h in pooled.hosts)
        print(f"one at a time      : {t_serial:8.2f} s")
        print(f"pool of {workers:<3d}        : {t_pool:8.2f} s")
        ratio = t_serial / t_pool if t_pool > 0 else float("inf")
        print(f"ratio              : {ratio:8.1f}x  (target >= {TARGET_RATIO:g}x: "
              f"{'met' if ratio >= TARGET_RATIO else 'NOT met'})")
        print(f"outputs read       : {commands} over {len(pooled.hosts)} host(s)")
        failed = serial.problems + pooled.problems
        if failed or summary(serial) != summary(pooled) or len(pooled.hosts) != n:
            print("the two runs differ or hosts failed:", *[p.message for p in failed[:5]], sep="\n  ", file=sys.stderr)
            return 1
        return 0
    finally:
        for d in daemons:
            d.stop()
        if user is not None:
            user.remove()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
