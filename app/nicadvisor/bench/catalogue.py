"""The benchmark test catalogue, as the reference documents run their tests, and its runner.

Every test is a :class:`TestSpec`; a profile is a list of them:

* :func:`quick_profile` (one click, under 60 s per host pair at the defaults): TCP_STREAM 1 stream, TCP_RR 1 byte,
  TCP_CRR, UDP_STREAM 1400 bytes, 10 s each, once.
* :func:`full_profile`: TCP_STREAM 1 and :data:`DEFAULT_STREAMS` streams, the TCP_RR payload sweep
  (:func:`payload_sweep`), TCP_CRR, UDP_STREAM 64 and 1400 bytes, and the bidirectional test; 30 s each, 3 times.

Sources of the catalogue (files in /work/shared/reference unless a URL or tool is named):

* vmfex-vs-vswitch-netperf.txt "Performance Evaluation Tools": TCP_STREAM (``-m 8192``; this catalogue uses
  ``-m 65536``, see :mod:`nicadvisor.bench.netperf`), bidirectional ``TCP_RR -- -b 8 -r 8192,8192 -s 262144 -S
  262144``, ``TCP_RR -- -r $payload`` for the latency sweep of Table 3 (payloads 1, 2, 4, … 8192 bytes),
  ``TCP_CRR -- -r $payload``; "TCP Latency Performance": RTT = 1e6 / transactions per second, one-way = RTT / 2.
* vds-ipfix-impact-nsxv.txt: netperf UDP_STREAM "for packet rate", TCP_CRR "for transaction rate", TCP_STREAM
  "for throughput".
* nsx-t-performance-on-intel.txt, Figure 14 notes ("a single pair of VMs running iPerf with 4 sessions") and the
  test-setup table ("4 Threads per VM Pair", "30 seconds per test", "Average over three iterations"): 4 streams,
  30 s, 3 repetitions averaged (the full profile's defaults).
* performance-baselines.md §2.2 (shared/design/research): UDP_STREAM ``-m 64`` and ``-m 1400``.
* 10 s per test in the quick profile: the default test length of iperf3 (``iperf3 --help``: "-t, --time …
  (default 10 secs)").

Tools: netperf runs every test; iperf3 runs the stream tests (one or more streams, UDP, ``--bidir``); the agent
runs one-stream TCP_STREAM and TCP_RR at any payload. A test a tool cannot run gives a :class:`BenchResult`
whose ``not_measurable`` says so ("not measurable with iperf3: …") and whose figures are all None: never a
fake value.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any, Callable

from . import agent, iperf3, netperf
from .journal import Journal
from .procs import LOOPBACK, Endpoints
from .results import BenchResult, rtt_figures

#: Tests as netperf names them (``TestSpec.test``).
TESTS = ("TCP_STREAM", "TCP_RR", "TCP_CRR", "UDP_STREAM")
DIRECTIONS = ("send", "bidirectional")
TOOLS = ("netperf", "iperf3", "agent")
#: TCP_RR payload sweep, bytes: vmfex-vs-vswitch-netperf.txt Table 3 "Latency Results for VM-FEX and vSwitch".
SWEEP_PAYLOADS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)
#: Parallel streams of the multi-stream test (nsx-t-performance-on-intel.txt: "iPerf with 4 sessions").
DEFAULT_STREAMS = 4
QUICK_DURATION_S = 10.0
FULL_DURATION_S = 30.0
FULL_REPETITIONS = 3
#: Seconds a run costs beyond its test length (server start, process start, netperf's control connection);
#: an allowance for :func:`estimated_seconds`, not a measured constant.
RUN_OVERHEAD_S = 1.0
#: A profile that the quick button may start must fit in this many seconds per host pair (issue 9 §2).
QUICK_BUDGET_S = 60.0

_VMFEX_TOOLS = "vmfex-vs-vswitch-netperf.txt \"Performance Evaluation Tools\""


@dataclass(frozen=True)
class TestSpec:
    """One catalogue test.

    * ``name``: unique label (``"TCP_STREAM 1 stream"``, ``"TCP_RR 64 B"``, ``"bidirectional"``).
    * ``test``: the netperf test (one of :data:`TESTS`).
    * ``options``: further netperf test-specific options (the bidirectional burst: ``-b 8 -s 262144 -S 262144``).
    * ``payload``: bytes; stream send size (netperf ``-m``, iperf3 ``-l``) or request = response size (``-r N,N``).
    * ``streams``: parallel connections, throughputs summed.
    * ``direction``: ``"send"`` (client → server) or ``"bidirectional"``.
    * ``repetitions``: runs averaged into one result; ``duration_s``: seconds per run (netperf/iperf3 round to
      whole seconds).
    * ``source``: where the test comes from (reference file and section).
    """

    __test__ = False  # not a pytest test class despite its name

    name: str
    test: str
    options: tuple[str, ...] = ()
    payload: int = 1
    streams: int = 1
    direction: str = "send"
    repetitions: int = 1
    duration_s: float = QUICK_DURATION_S
    source: str = ""

    def validate(self) -> None:
        """Raises ValueError naming the first bad field."""
        if self.test not in TESTS:
            raise ValueError(f"test {self.test!r} is not one of {TESTS}")
        if self.payload < 1:
            raise ValueError(f"payload {self.payload} bytes must be at least 1")
        if self.streams < 1:
            raise ValueError(f"streams {self.streams} must be at least 1")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction {self.direction!r} is not one of {DIRECTIONS}")
        if self.direction == "bidirectional" and self.test != "TCP_RR":
            raise ValueError("the bidirectional test is netperf's burst TCP_RR")
        if self.repetitions < 1:
            raise ValueError(f"repetitions {self.repetitions} must be at least 1")
        if not 0 < self.duration_s <= 600:
            raise ValueError(f"duration {self.duration_s} s is outside (0, 600]")

    def netperf_argv(self, host: str, port: int) -> list[str]:
        """The netperf command of one run of this test (one stream) against ``host:port``."""
        return netperf.netperf_argv(self.test, host, port, self.duration_s, payload=self.payload, extra=self.options)


def _timed(specs: list[TestSpec], duration_s: float, repetitions: int) -> list[TestSpec]:
    out = [replace(s, duration_s=float(duration_s), repetitions=int(repetitions)) for s in specs]
    for s in out:
        s.validate()
    return out


def stream_spec(streams: int = 1) -> TestSpec:
    """TCP_STREAM ``-m 65536`` with ``streams`` parallel connections."""
    label = "1 stream" if streams == 1 else f"x{streams}"
    return TestSpec(f"TCP_STREAM {label}", "TCP_STREAM", payload=65536, streams=streams,
                    source=f"{_VMFEX_TOOLS} (Uni-directional TCP Traffic); "
                           + ("" if streams == 1 else "nsx-t-performance-on-intel.txt Figure 14 notes (4 sessions); ")
                           + "-m 65536: performance-baselines.md §2.4")


def rr_spec(payload: int = 1) -> TestSpec:
    """TCP_RR with request = response = ``payload`` bytes (``-r N,N``)."""
    return TestSpec(f"TCP_RR {payload} B", "TCP_RR", payload=payload,
                    source=f"{_VMFEX_TOOLS} (TCP Latency: -r $payload); Table 3")


def crr_spec(payload: int = 1) -> TestSpec:
    """TCP_CRR (connect, request, response, close) with ``payload``-byte request and response."""
    return TestSpec(f"TCP_CRR {payload} B", "TCP_CRR", payload=payload,
                    source=f"{_VMFEX_TOOLS} (TCP Connect/Request/Response/Close); vds-ipfix-impact-nsxv.txt "
                           "(TCP_CRR for transaction rate)")


def udp_spec(payload: int = 1400) -> TestSpec:
    """UDP_STREAM of ``payload``-byte datagrams (loss = sent - received)."""
    return TestSpec(f"UDP_STREAM {payload} B", "UDP_STREAM", payload=payload,
                    source="vds-ipfix-impact-nsxv.txt (UDP_STREAM for packet rate); performance-baselines.md §2.2 "
                           "(-m 64, -m 1400)")


def bidirectional_spec() -> TestSpec:
    """Bidirectional bulk transfer: netperf TCP_RR ``-b 8 -r 8192,8192 -s 262144 -S 262144``."""
    return TestSpec("bidirectional", "TCP_RR", options=netperf.BIDIRECTIONAL_OPTIONS, payload=8192,
                    direction="bidirectional", source=f"{_VMFEX_TOOLS} (Bi-directional TCP Traffic); Table 2")


def payload_sweep(duration_s: float = FULL_DURATION_S, repetitions: int = FULL_REPETITIONS,
                  payloads: tuple[int, ...] = SWEEP_PAYLOADS) -> list[TestSpec]:
    """TCP_RR at each of ``payloads`` bytes (default :data:`SWEEP_PAYLOADS`, vmfex Table 3). Raises ValueError
    for a bad duration, repetition count or payload."""
    return _timed([rr_spec(p) for p in payloads], duration_s, repetitions)


def quick_profile(duration_s: float = QUICK_DURATION_S, repetitions: int = 1) -> list[TestSpec]:
    """TCP_STREAM 1 stream, TCP_RR 1 byte, TCP_CRR 1 byte, UDP_STREAM 1400 bytes. At the defaults
    :func:`estimated_seconds` is under :data:`QUICK_BUDGET_S`. Raises ValueError for a bad duration or count."""
    return _timed([stream_spec(1), rr_spec(1), crr_spec(1), udp_spec(1400)], duration_s, repetitions)


def full_profile(duration_s: float = FULL_DURATION_S, repetitions: int = FULL_REPETITIONS,
                 streams: int = DEFAULT_STREAMS) -> list[TestSpec]:
    """TCP_STREAM 1 and ``streams`` streams, the TCP_RR payload sweep, TCP_CRR, UDP_STREAM 64 and 1400 bytes,
    bidirectional (20 tests). Raises ValueError for a bad duration, repetition count or stream count."""
    specs = [stream_spec(1), stream_spec(streams)] + [rr_spec(p) for p in SWEEP_PAYLOADS]
    specs += [crr_spec(1), udp_spec(64), udp_spec(1400), bidirectional_spec()]
    return _timed(specs, duration_s, repetitions)


PROFILES: dict[str, Callable[..., list[TestSpec]]] = {"quick": quick_profile, "full": full_profile}


def estimated_seconds(specs: list[TestSpec], overhead_s: float = RUN_OVERHEAD_S) -> float:
    """Planned wall time of ``specs`` in seconds: per run the whole-second test length netperf/iperf3 use plus
    ``overhead_s``, times the repetitions. Pure."""
    return sum(s.repetitions * (max(1, round(s.duration_s)) + overhead_s) for s in specs)


# --- which tool can measure what ------------------------------------------------------------------

def why_not(spec: TestSpec, tool: str) -> str | None:
    """None when ``tool`` can measure ``spec``, else the sentence ``"not measurable with <tool>: <why>"``.
    Raises ValueError for an unknown tool."""
    if tool not in TOOLS:
        raise ValueError(f"tool {tool!r} is not one of {TOOLS}")
    reason: str | None = None
    if tool == "iperf3":
        if spec.test in ("TCP_RR", "TCP_CRR") and spec.direction != "bidirectional":
            reason = "iperf3 has no request/response or connect/request/response/close test"
    elif tool == "agent":
        if spec.test not in agent.TESTS:
            reason = f"the built-in agent runs only {' and '.join(agent.TESTS)} (no UDP, no per-transaction connect)"
        elif spec.direction != "send":
            reason = "the built-in agent sends in one direction only"
        elif spec.streams != 1:
            reason = "the built-in agent serves one connection at a time"
        elif spec.test == "TCP_RR" and spec.payload > agent.MAX_RR_BYTES:
            reason = f"the built-in agent's request/response size is at most {agent.MAX_RR_BYTES} bytes"
    return f"not measurable with {tool}: {reason}" if reason else None


def tools_for(spec: TestSpec) -> tuple[str, ...]:
    """The tools that can measure ``spec``, in preference order (netperf, iperf3, agent)."""
    return tuple(t for t in TOOLS if why_not(spec, t) is None)


def not_measurable_result(spec: TestSpec, tool: str, endpoints: Endpoints = LOOPBACK,
                          reason: str | None = None) -> BenchResult:
    """The result of a test ``tool`` cannot run: every figure None, ``not_measurable`` = ``reason`` (default
    :func:`why_not`), ``raw``/``command`` empty, ``duration_s`` 0."""
    why = reason or why_not(spec, tool) or f"not measurable with {tool}"
    return BenchResult(test=spec.test, tool=tool, path=endpoints.path, throughput_gbps=None,
                       transactions_per_s=None, latency_us=None, duration_s=0.0, expected=None, raw="", command="",
                       spec=spec.name, payload_bytes=spec.payload, streams=spec.streams, direction=spec.direction,
                       repetitions=0, not_measurable=why)


# --- running --------------------------------------------------------------------------------------

def _run_once(spec: TestSpec, tool: str, journal: Journal, endpoints: Endpoints, cancel: threading.Event | None,
              on_tick: Callable[[float], None] | None, agent_mode: str) -> BenchResult:
    common: dict[str, Any] = {"endpoints": endpoints, "duration_s": spec.duration_s, "cancel": cancel,
                              "on_tick": on_tick}
    bidir = spec.direction == "bidirectional"
    if tool == "netperf":
        return netperf.run_netperf(spec.test, journal, payload=spec.payload, streams=spec.streams,
                                   bidirectional=bidir, **common)
    if tool == "iperf3":
        test = "TCP_STREAM" if bidir else spec.test  # iperf3's bidirectional test is a --bidir stream
        return iperf3.run_iperf3(test, journal, payload=spec.payload, streams=spec.streams, bidirectional=bidir,
                                 **common)
    return agent.run_agent(spec.test, journal, mode=agent_mode, payload=spec.payload, **common)


#: Figures averaged over repetitions (a figure missing in any repetition is None).
_MEAN_FIELDS = ("throughput_gbps", "transactions_per_s", "duration_s", "mean_latency_us", "p50_latency_us",
                "p90_latency_us", "p99_latency_us", "loss_pct", "local_cpu_pct", "remote_cpu_pct")


def combine_repetitions(spec: TestSpec, results: list[BenchResult]) -> BenchResult:
    """One result from the runs of ``spec``: each figure of :data:`_MEAN_FIELDS` is the mean over the runs
    (nsx-t-performance-on-intel.txt: "Average over three iterations"), latency/RTT/one-way follow from the mean
    transaction rate (``rtt_figures``; for a burst run the mean RTT), ``raw`` holds every run's output under a
    ``# repetition i/n`` line, ``command`` is the first run's. Raises ValueError for an empty list."""
    if not results:
        raise ValueError("no repetition to combine")
    first = results[0]
    n = len(results)
    means: dict[str, Any] = {}
    for name in _MEAN_FIELDS:
        vals = [getattr(r, name) for r in results]
        means[name] = None if any(v is None for v in vals) else sum(vals) / n
    tps = means["transactions_per_s"]
    if spec.direction == "bidirectional":
        rtts = [r.rtt_us for r in results]
        rtt = None if any(v is None for v in rtts) else sum(rtts) / n
        one_way = rtt / 2 if rtt is not None else None
        latency = rtt
    else:
        rtt, one_way = rtt_figures(tps)
        latency = rtt
    raw = first.raw if n == 1 else "".join(f"# repetition {i + 1}/{n}\n{r.raw}\n" for i, r in enumerate(results))
    return replace(first, **means, latency_us=latency, rtt_us=rtt, one_way_us=one_way, raw=raw, spec=spec.name,
                   payload_bytes=spec.payload if first.payload_bytes is None else first.payload_bytes,
                   streams=spec.streams, direction=spec.direction, repetitions=n)


def run_spec(spec: TestSpec, tool: str, journal: Journal, *, endpoints: Endpoints = LOOPBACK,
             cancel: threading.Event | None = None, on_tick: Callable[[float], None] | None = None,
             agent_mode: str = "process") -> BenchResult:
    """Run ``spec`` with ``tool`` ``spec.repetitions`` times on ``endpoints`` and return the combined result
    (:func:`combine_repetitions`; ``expected`` None). A test the tool cannot run returns
    :func:`not_measurable_result` without starting anything.

    ``on_tick(elapsed_s)`` counts across the repetitions. Raises ValueError for a bad spec or tool,
    :class:`~nicadvisor.bench.BenchError` when a run fails, :class:`~nicadvisor.bench.Cancelled` when
    ``cancel`` is set.
    """
    spec.validate()
    reason = why_not(spec, tool)
    if reason:
        return not_measurable_result(spec, tool, endpoints, reason)
    runs: list[BenchResult] = []
    for i in range(spec.repetitions):
        offset = i * spec.duration_s
        tick = (lambda e, offset=offset: on_tick(offset + e)) if on_tick is not None else None
        runs.append(_run_once(spec, tool, journal, endpoints, cancel, tick, agent_mode))
    return combine_repetitions(spec, runs)
