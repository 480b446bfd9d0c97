"""Helpers of the history-store tests: a real demo-lab audit and a benchmark result read from a real
netperf recording (tests/bench/data/netperf_tcp_rr_omni.txt)."""
from __future__ import annotations

import copy
from pathlib import Path

from nicadvisor.bench.expected import expected_for
from nicadvisor.bench.netperf import omni_figures, parse_omni
from nicadvisor.bench.results import BenchResult
from nicadvisor.model import Audit
from nicadvisor.services.audit import AuditRequest, run_audit

BENCH_DATA = Path(__file__).resolve().parent.parent / "bench" / "data"
_DEMO: list[Audit] = []


def demo_audit() -> Audit:
    """A fresh copy of ``run_audit(AuditRequest(demo=True))`` (computed once per session)."""
    if not _DEMO:
        _DEMO.append(run_audit(AuditRequest(demo=True)))
    return copy.deepcopy(_DEMO[0])


def recorded_rr_result() -> BenchResult:
    """The TCP_RR loopback result of the recorded netperf run, with its expectation attached."""
    text = (BENCH_DATA / "netperf_tcp_rr_omni.txt").read_text(encoding="utf-8")
    command = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("# command:"))
    values = parse_omni(text)
    gbps, rate, latency = omni_figures(values, "TCP_RR")
    return BenchResult(test="TCP_RR", tool="netperf", path="loopback", throughput_gbps=gbps,
                       transactions_per_s=rate, latency_us=latency, duration_s=float(values["ELAPSED_TIME"]),
                       expected=expected_for("TCP_RR", "loopback"),  # None: no figure for this path
                       endpoints="127.0.0.1 → 127.0.0.1 on the machine that recorded it",
                       raw=next(line for line in text.splitlines() if line and not line.startswith("#")),
                       command=command)
