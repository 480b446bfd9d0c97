#!/usr/bin/env python3
"""Side-by-side: netperf vs the built-in Python agent on loopback (or the netns path).

Prints, per test, the median over the repetitions of netperf and of the agent, and the median of the
per-repetition ratios agent / netperf (both ran back to back in each repetition, as in
shared/design/research/performance-baselines.md §2.3):

    TCP_STREAM  Gbit/s  netperf -m 65536   vs  agent sendall(64 KiB)
    TCP_RR      µs      netperf -r 1,1     vs  agent 1-byte request/response (latency = 1e6 / rate)

The ``delta`` column is the median of the per-repetition differences agent - netperf (µs), and ``p50 Δ`` the
same for the medians of the per-transaction times (netperf -j P50_LATENCY vs the agent's own). netperf runs as
the application runs it (``-j -c -C``: timing statistics and CPU), the agent with its per-transaction timing.
``--pin CPU`` pins this script and so every process it starts (netserver, netperf, both agent processes) to
one CPU: that removes the cross-CPU wake-up from the round trip and shows the pure CPU cost per transaction.
``--load N`` runs N busy-looping processes beside the comparison (the "loaded" figures; pinned with ``--pin``
they share its CPU).

Usage:
    python benchmarks/agent_vs_netperf.py                 # 3 repetitions x 5 s per test, loopback
    python benchmarks/agent_vs_netperf.py --smoke         # 1 repetition x 1 s
    python benchmarks/agent_vs_netperf.py --path netns    # veth between two namespaces (root)
    python benchmarks/agent_vs_netperf.py --mode thread   # agent server as a thread in this process
    python benchmarks/agent_vs_netperf.py --pin 0         # everything on CPU 0
    python benchmarks/agent_vs_netperf.py --load 2        # two busy processes beside it
    python benchmarks/agent_vs_netperf.py --json out.json # also write every result
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from nicadvisor.bench import netperf
from nicadvisor.bench.agent import run_agent
from nicadvisor.bench.journal import Journal, restore_from_journal
from nicadvisor.bench.netns import create_pair, destroy_pair
from nicadvisor.bench.netperf import run_netperf
from nicadvisor.bench.procs import LOOPBACK


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true", help="1 repetition of 1 s per test")
    ap.add_argument("--duration", type=float, default=5.0, help="seconds per test (default 5)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (default 3)")
    ap.add_argument("--path", choices=("loopback", "netns"), default="loopback")
    ap.add_argument("--mode", choices=("process", "thread"), default="process", help="agent server mode")
    ap.add_argument("--json", help="write all results to this file")
    ap.add_argument("--journal-dir", help="undo-journal directory (default: the user state dir)")
    ap.add_argument("--pin", type=int, metavar="CPU", help="pin this script and every process it starts to CPU")
    ap.add_argument("--load", type=int, default=0, metavar="N", help="N busy-looping processes beside it")
    args = ap.parse_args(argv)
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})  # inherited by every child process
    if args.smoke:
        args.duration, args.reps = 1.0, 1
    if not netperf.available():
        print("netperf/netserver not found on PATH: nothing to compare against", file=sys.stderr)
        return 2
    restore_from_journal(args.journal_dir)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        return _compare(args)
    finally:
        for b in burners:
            b.kill()
            b.wait()


def _compare(args: argparse.Namespace) -> int:
    rows: dict[str, dict[str, list[float]]] = {t: {"netperf": [], "agent": [], "ratio": [], "delta": [], "p50": []}
                                               for t in ("TCP_STREAM", "TCP_RR")}
    everything = []
    with Journal(args.journal_dir) as journal:
        pair = create_pair(journal) if args.path == "netns" else None
        try:
            endpoints = pair.endpoints() if pair else LOOPBACK
            for rep in range(args.reps):
                for test in ("TCP_STREAM", "TCP_RR"):
                    np_res = run_netperf(test, journal, endpoints=endpoints, duration_s=args.duration)
                    ag_res = run_agent(test, journal, endpoints=endpoints, duration_s=args.duration, mode=args.mode)
                    everything += [np_res.to_dict(), ag_res.to_dict()]
                    if test == "TCP_STREAM":
                        a, b = np_res.throughput_gbps, ag_res.throughput_gbps
                        rows[test]["ratio"].append(b / a)  # rate ratio, <1 = agent slower
                    else:
                        a, b = np_res.latency_us, ag_res.latency_us
                        rows[test]["ratio"].append(ag_res.transactions_per_s / np_res.transactions_per_s)
                        rows[test]["delta"].append(b - a)
                        if np_res.p50_latency_us is not None and ag_res.p50_latency_us is not None:
                            rows[test]["p50"].append(ag_res.p50_latency_us - np_res.p50_latency_us)
                    rows[test]["netperf"].append(a)
                    rows[test]["agent"].append(b)
                    print(f"rep {rep + 1}/{args.reps} {test}: netperf {a:.2f}  agent {b:.2f}", file=sys.stderr)
        finally:
            if pair is not None:
                destroy_pair(pair, journal)
    med = statistics.median
    sys.stderr.flush()
    pinned = f", pinned to CPU {args.pin}" if args.pin is not None else ""
    pinned += f", {args.load} busy processes beside" if args.load else ""
    pinned += f", load average {os.getloadavg()[0]:.1f}"
    print(f"\npath {args.path}, {args.reps} x {args.duration:g} s, agent mode {args.mode}{pinned}; "
          "median (ratio = agent rate / netperf rate, delta = agent - netperf, per repetition)")
    print(f"{'test':<11} {'unit':<7} {'netperf':>10} {'agent':>10} {'ratio':>7} {'delta':>9} {'p50 Δ':>7}")
    for test, unit in (("TCP_STREAM", "Gbit/s"), ("TCP_RR", "\u00b5s")):
        r = rows[test]
        n, a = med(r["netperf"]), med(r["agent"])
        delta = f"{med(r['delta']):+.1f}" if r["delta"] else ""
        p50 = f"{med(r['p50']):+.1f}" if r["p50"] else ""
        print(f"{test:<11} {unit:<7} {n:>10.2f} {a:>10.2f} {med(r['ratio']):>7.2f} {delta:>9} {p50:>7}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(everything, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
