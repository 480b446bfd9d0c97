#!/usr/bin/env python3
"""Side-by-side: netperf vs the built-in Python agent on loopback (or the netns path).

Prints, per test, the median over the repetitions of netperf and of the agent, and the median of the
per-repetition ratios agent / netperf (both ran back to back in each repetition, as in
shared/design/research/performance-baselines.md §2.3):

    TCP_STREAM  Gbit/s  netperf -m 65536   vs  agent sendall(64 KiB)
    TCP_RR      µs      netperf -r 1,1     vs  agent 1-byte request/response (latency = 1e6 / rate)

Usage:
    python benchmarks/agent_vs_netperf.py                 # 3 repetitions x 5 s per test, loopback
    python benchmarks/agent_vs_netperf.py --smoke         # 1 repetition x 1 s
    python benchmarks/agent_vs_netperf.py --path netns    # veth between two namespaces (root)
    python benchmarks/agent_vs_netperf.py --mode thread   # agent server as a thread in this process
    python benchmarks/agent_vs_netperf.py --json out.json # also write every result
"""
from __future__ import annotations

import argparse
import json
import statistics
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
    args = ap.parse_args(argv)
    if args.smoke:
        args.duration, args.reps = 1.0, 1
    if not netperf.available():
        print("netperf/netserver not found on PATH: nothing to compare against", file=sys.stderr)
        return 2
    restore_from_journal(args.journal_dir)
    rows: dict[str, dict[str, list[float]]] = {t: {"netperf": [], "agent": [], "ratio": []}
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
                    rows[test]["netperf"].append(a)
                    rows[test]["agent"].append(b)
                    print(f"rep {rep + 1}/{args.reps} {test}: netperf {a:.2f}  agent {b:.2f}", file=sys.stderr)
        finally:
            if pair is not None:
                destroy_pair(pair, journal)
    med = statistics.median
    sys.stderr.flush()
    print(f"\npath {args.path}, {args.reps} x {args.duration:g} s, agent mode {args.mode}; "
          "median (ratio = agent rate / netperf rate, per repetition)")
    print(f"{'test':<11} {'unit':<7} {'netperf':>10} {'agent':>10} {'ratio':>7} {'delta':>9}")
    for test, unit in (("TCP_STREAM", "Gbit/s"), ("TCP_RR", "\u00b5s")):
        r = rows[test]
        n, a = med(r["netperf"]), med(r["agent"])
        delta = f"{a - n:+.1f}" if test == "TCP_RR" else ""
        print(f"{test:<11} {unit:<7} {n:>10.2f} {a:>10.2f} {med(r['ratio']):>7.2f} {delta:>9}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(everything, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
