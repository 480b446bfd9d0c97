"""Frozen result dataclasses of the quick benchmark.

Units are in the field names or the ``unit`` field: throughput in Gbit/s (10^9 bit/s), rates in
transactions per second, latency in µs, durations in seconds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Expected:
    """What a result should reach on its path, and why.

    ``value`` is in ``unit``: ``"Gbit/s"`` for a stream test (a ceiling: the measured throughput
    should come close to it) or ``"µs"`` for a request/response test (a round-trip time the
    measured latency should not exceed by much). ``basis`` explains the figure and cites its source
    (reference file and section, or the shaping/link settings it was computed from).
    """

    value: float
    unit: str
    basis: str

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict ``{"value", "unit", "basis"}``."""
        return {"value": self.value, "unit": self.unit, "basis": self.basis}


@dataclass(frozen=True)
class BenchResult:
    """One measured test.

    * ``test``: ``"TCP_STREAM"``, ``"TCP_RR"``, ``"TCP_CRR"`` or ``"UDP_STREAM"`` (netperf names).
    * ``tool``: ``"netperf"``, ``"iperf3"`` or ``"agent"`` (the built-in Python agent).
    * ``path``: ``"loopback"`` (127.0.0.1) or ``"netns"`` (veth pair between two namespaces).
    * ``throughput_gbps``: Gbit/s received (stream tests), else None.
    * ``transactions_per_s``: transactions/s (RR/CRR tests), else None.
    * ``latency_us``: mean round trip in µs, ``1e6 / transactions_per_s`` (RR/CRR), else None.
    * ``duration_s``: the test length in seconds as measured by the tool (netperf ELAPSED_TIME,
      iperf3 ``sum_received.seconds``, the agent's own clock including the stream drain).
    * ``expected``: the expectation attached by the service, or None when there is none.
    * ``raw``: the tool's own output kept as evidence (netperf omni CSV, iperf3 JSON, agent JSON).
    * ``command``: the command line that produced ``raw`` (argv joined with spaces).
    * ``endpoints``: where it ran, in words (``127.0.0.1 → 127.0.0.1 on auditor-pc, the machine running NIC
      Advisor``): every report says which machine and path a result measured.
    """

    test: str
    tool: str
    path: str
    throughput_gbps: float | None
    transactions_per_s: float | None
    latency_us: float | None
    duration_s: float
    expected: Expected | None
    raw: str
    command: str
    endpoints: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict with the same keys as the fields (``expected`` nested or None)."""
        return {
            "test": self.test,
            "tool": self.tool,
            "path": self.path,
            "throughput_gbps": self.throughput_gbps,
            "transactions_per_s": self.transactions_per_s,
            "latency_us": self.latency_us,
            "duration_s": self.duration_s,
            "expected": self.expected.to_dict() if self.expected else None,
            "raw": self.raw,
            "command": self.command,
            "endpoints": self.endpoints,
        }

    def comparison(self) -> str:
        """How the result compares with its expectation, worded the same way for every test: ``"within 10 % of
        expected"``, ``"35 % below expected"`` (Gbit/s, higher is better), ``"42 % slower than expected"`` (µs,
        lower is better); ``"no expectation for this path"`` without one."""
        return compare(self.throughput_gbps if self.expected and self.expected.unit == "Gbit/s" else
                       self.latency_us, self.expected)


@dataclass(frozen=True)
class BenchReport:
    """The results of one quick-benchmark run, in run order, and the problems met (plain sentences:
    a missing tool, a fallback from netns to loopback, a test that failed)."""

    results: list[BenchResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"results": [BenchResult.to_dict()...], "problems": [str...]}``."""
        return {"results": [r.to_dict() for r in self.results], "problems": list(self.problems)}


#: A result within this fraction of its expectation is "within" it.
WITHIN = 0.10


def compare(measured: float | None, expected: Expected | None) -> str:
    """:meth:`BenchResult.comparison` for a ``measured`` value in ``expected.unit`` (Gbit/s: higher is better;
    µs: lower is better)."""
    if expected is None or not expected.value:
        return "no expectation for this path"
    if measured is None:
        return "not measured"
    ratio = measured / expected.value

    def pct(x: float) -> str:
        return f"{x * 100:.0f} %"

    if abs(ratio - 1) <= WITHIN:
        return f"within {pct(WITHIN)} of expected"
    if expected.unit == "Gbit/s":
        return f"{pct(1 - ratio)} below expected" if ratio < 1 else f"{pct(ratio - 1)} above expected"
    return f"{pct(ratio - 1)} slower than expected" if ratio > 1 else f"{pct(1 - ratio)} faster than expected"
