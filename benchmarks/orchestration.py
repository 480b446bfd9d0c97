#!/usr/bin/env python3
"""Side-by-side: the one-click benchmark between two hosts over SSH vs the same netperf commands run by hand.

The hosts are two network namespaces, each with its own real sshd, joined by an unshaped veth pair (the lab of
tests/bench/remote_lab.py). In each repetition, back to back:

    one-click   RemoteBench (connect, probe, plan, netserver started over SSH, netperf over SSH, journal, undo)
    by hand     ``ip netns exec B netserver ...`` then ``ip netns exec A netperf ...`` with the very same argv

and prints the median of each and of the per-repetition ratios one-click / by hand, for TCP_STREAM (Gbit/s) and
TCP_RR (transactions/s). The issue's goal is a ratio within ±3 %: the orchestration must not change what is
measured. Needs root (namespaces) and OpenSSH's sshd.

Usage:
    python benchmarks/orchestration.py            # 3 repetitions x 5 s per test
    python benchmarks/orchestration.py --smoke    # 1 repetition x 1 s
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "bench"))  # the lab of real parts the tests use
sys.path.insert(0, str(HERE.parent / "tests" / "ssh"))

from nicadvisor.bench import netperf  # noqa: E402
from nicadvisor.bench.remote import RemoteBench, RemoteRequest  # noqa: E402
from nicadvisor.collect.known_hosts import KnownHosts  # noqa: E402

TESTS = ("TCP_STREAM", "TCP_RR")


def _by_hand(lab, plan_test, duration_s: float) -> float | None:
    """netserver in the server namespace and netperf in the client's, with the argv the plan would send."""
    server = lab.netns_exec(1, *plan_test.server_argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        out = subprocess.run(["ip", "netns", "exec", lab.namespaces[0], *plan_test.client_argv], capture_output=True,
                             text=True, timeout=duration_s + 30).stdout
    finally:
        server.terminate()
        server.wait(10)
    gbps, tps, _lat = netperf.omni_figures(netperf.parse_omni(out), plan_test.test)
    return gbps if plan_test.test == "TCP_STREAM" else tps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="1 repetition x 1 s")
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--duration", type=float, default=5.0)
    args = ap.parse_args(argv)
    reps, duration = (1, 1.0) if args.smoke else (args.repetitions, args.duration)
    if os.geteuid() != 0 or shutil.which("sshd") is None and not Path("/usr/sbin/sshd").exists() \
            or shutil.which("netperf") is None:
        print("orchestration: needs root, OpenSSH's sshd and netperf; skipped")
        return 0
    from remote_lab import RemoteLab

    lab = RemoteLab(rate_mbit=None)
    rows: dict[str, list[tuple[float, float]]] = {t: [] for t in TESTS}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            known = KnownHosts(Path(tmp) / "known_hosts")
            for _ in range(reps):
                request = RemoteRequest(hosts=lab.hosts(), tests=TESTS, duration_s=duration, tool="netperf")
                with RemoteBench(request, known_hosts=known, journal_dir=tmp) as rb:
                    plan = rb.prepare()
                    report = rb.run(plan)
                clicked = {r.test: (r.throughput_gbps if r.test == "TCP_STREAM" else r.transactions_per_s)
                           for r in report.results}
                for pt in plan.tests:
                    hand = _by_hand(lab, pt, duration)
                    if clicked.get(pt.test) and hand:
                        rows[pt.test].append((clicked[pt.test], hand))
    finally:
        lab.close()
    print(f"{'test':<11} {'unit':<7} {'one-click':>12} {'by hand':>12} {'ratio':>7}   ({reps} x {duration:g} s)")
    for test, pairs in rows.items():
        if not pairs:
            print(f"{test:<11} no result")
            continue
        unit = "Gbit/s" if test == "TCP_STREAM" else "tr/s"
        ratio = statistics.median(c / h for c, h in pairs)
        print(f"{test:<11} {unit:<7} {statistics.median(c for c, _ in pairs):>12.4g} "
              f"{statistics.median(h for _, h in pairs):>12.4g} {ratio:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
