"""Frozen result dataclasses of the quick benchmark.

Units are in the field names or the ``unit`` field: throughput in Gbit/s (10^9 bit/s), rates in
transactions per second, latency in µs, durations in seconds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .expectation import WITHIN, Expected
from .expected import band_of, explain, judge


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

    Test-catalogue measures (:mod:`nicadvisor.bench.catalogue`), all optional so that results stored before
    they existed still load (None / defaults = not measured or not applicable):

    * ``spec``: the catalogue test name (``"TCP_RR 1 B"``, ``"TCP_STREAM x4"``, ``"bidirectional"``), "" if none.
    * ``payload_bytes``: send size (stream tests, netperf ``-m`` / iperf3 ``-l``) or request = response size
      (RR/CRR, netperf ``-r``), bytes.
    * ``streams``: parallel connections (their throughputs are summed); ``direction``: ``"send"`` (client →
      server) or ``"bidirectional"`` (both ways at once; ``throughput_gbps`` is the sum of both directions).
    * ``repetitions``: how many runs the figures are the mean of (nsx-t-performance-on-intel.txt, test-setup
      table: "Average over three iterations").
    * ``mean_latency_us``, ``p50_latency_us``, ``p90_latency_us``, ``p99_latency_us``: per-transaction latency
      statistics in µs as the tool reports them (netperf omni ``MEAN_LATENCY``, ``P50_LATENCY``,
      ``P90_LATENCY``, ``P99_LATENCY`` with the global ``-j``: netperf manual, Global Options, ``-j``; the agent
      times every transaction itself).
    * ``rtt_us``: round trip per transaction, ``1e6 / transactions_per_s`` µs (with ``b`` extra transactions in
      flight, netperf's ``RT_LATENCY`` = ``(1 + b) * 1e6 / rate``); ``one_way_us`` = ``rtt_us / 2``, as
      vmfex-vs-vswitch-netperf.txt "TCP Latency Performance" computes latency from TCP_RR.
    * ``loss_pct``: UDP datagrams sent but not received, % (netperf ``1 - REMOTE_RECV_CALLS /
      LOCAL_SEND_CALLS``; iperf3 ``lost_percent``).
    * ``local_cpu_pct`` / ``remote_cpu_pct``: CPU utilisation of the client / server side during the test, as
      the tool reports it, which differs by tool: netperf ``-c -C`` ``LOCAL_CPU_UTIL``/``REMOTE_CPU_UTIL`` is the
      whole system, 0-100 % of all its CPUs (netperf doc/omni_output_list.txt); iperf3
      ``cpu_utilization_percent.host_total``/``remote_total`` is the iperf3 process's own CPU time in % of the
      wall time, 100 = one CPU (iperf3 src/iperf_util.c ``cpu_util``: ``getrusage(RUSAGE_SELF)``).
    * ``not_measurable``: "" for a measurement; else the sentence saying why this tool cannot run this test
      (``"not measurable with iperf3: iperf3 has no request/response test"``) and every figure is None.
    * ``client`` / ``server``: the names of the audited hosts that sent / received (results between hosts; "" on
      the machine running NIC Advisor).
    * ``no_expectation``: when ``expected`` is None, why no expectation fits this path, and how to get one
      (``"lab-b was not audited: audit it first (nic-advisor audit --ssh ...)"``); "" when none was sought.
    * ``path_conditions``: what shaped the path when it ran, as read then (``"tc tbf 200 Mbit/s on lab-a; MTU 1500
      on lab-a, 9000 on lab-b"``); "" when nothing was read. Earlier runs are "the same path" only with the same
      conditions (:func:`nicadvisor.services.bench_history.run_key`).
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
    spec: str = ""
    payload_bytes: int | None = None
    streams: int = 1
    direction: str = "send"
    repetitions: int = 1
    mean_latency_us: float | None = None
    p50_latency_us: float | None = None
    p90_latency_us: float | None = None
    p99_latency_us: float | None = None
    rtt_us: float | None = None
    one_way_us: float | None = None
    loss_pct: float | None = None
    local_cpu_pct: float | None = None
    remote_cpu_pct: float | None = None
    not_measurable: str = ""
    client: str = ""
    server: str = ""
    no_expectation: str = ""
    path_conditions: str = ""

    @property
    def measured(self) -> bool:
        """True when the tool measured this test (``not_measurable`` is empty)."""
        return not self.not_measurable

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
            **{name: getattr(self, name) for name in CATALOGUE_FIELDS},
        }

    def comparison(self) -> str:
        """How the result compares with its expectation (:func:`comparison_of`)."""
        return comparison_of(self.to_dict())

    def verdict(self) -> str:
        """``"pass"``, ``"warn"`` or ``"fail"`` against the expected band (:func:`verdict_of`); "" without one."""
        return verdict_of(self.to_dict())


#: The optional fields added for the test catalogue, in ``to_dict`` order (documents stored before them lack them).
CATALOGUE_FIELDS: tuple[str, ...] = (
    "spec", "payload_bytes", "streams", "direction", "repetitions", "mean_latency_us", "p50_latency_us",
    "p90_latency_us", "p99_latency_us", "rtt_us", "one_way_us", "loss_pct", "local_cpu_pct", "remote_cpu_pct",
    "not_measurable", "client", "server", "no_expectation", "path_conditions",
)


def rtt_figures(transactions_per_s: float | None, in_flight: int = 1) -> tuple[float | None, float | None]:
    """``(rtt_us, one_way_us)`` from a transaction rate (per second) with ``in_flight`` transactions outstanding at
    once (1 for a plain RR test; 1 + burst for netperf ``-b``): ``rtt = in_flight * 1e6 / rate`` µs and
    ``one_way = rtt / 2`` (vmfex-vs-vswitch-netperf.txt, "TCP Latency Performance": ``Latency = (1000000 /
    TCP_RR_transactions) / 2``). ``(None, None)`` without a positive rate. Pure."""
    if not transactions_per_s or transactions_per_s <= 0:
        return None, None
    rtt = in_flight * 1e6 / transactions_per_s
    return rtt, rtt / 2


@dataclass(frozen=True)
class BenchReport:
    """The results of one quick-benchmark run, in run order, and the problems met (plain sentences:
    a missing tool, a fallback from netns to loopback, a test that failed)."""

    results: list[BenchResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: ``HOST left changed: …`` sentences: changes on a host that could not be put back (each with the command to
    #: undo it by hand); not empty: the run must not end as a success (``nic-advisor bench`` exits 4)
    left_changed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"results": [BenchResult.to_dict()...], "problems": [str...]}``."""
        return {"results": [r.to_dict() for r in self.results], "problems": list(self.problems)}


def expected_from_dict(doc: Any) -> Expected | None:
    """The :class:`Expected` of a result document's ``expected`` (``BenchResult.to_dict()``, stored or exported,
    with or without the band keys), or None when it is absent or has no numeric ``value``."""
    if not isinstance(doc, dict) or not isinstance(doc.get("value"), (int, float)) or isinstance(doc["value"], bool):
        return None

    def num(key: str) -> float | None:
        v = doc.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def texts(key: str) -> tuple[str, ...]:
        v = doc.get(key)
        return tuple(str(x) for x in v) if isinstance(v, (list, tuple)) else ()

    low, high = num("low"), num("high")
    if low is None or high is None or low > high:
        low = high = None
    measure = doc.get("measure")
    floor = num("floor")
    return Expected(value=float(doc["value"]), unit=str(doc.get("unit") or ""), basis=str(doc.get("basis") or ""),
                    low=low, high=high, limits=texts("limits"), notes=texts("notes"),
                    measure=measure if measure in MEASURES else "",
                    floor=floor if floor is not None and low is not None and 0 <= floor <= low else None)


#: The fields an expectation may judge instead of its unit's own (``Expected.measure``), and their names in words.
MEASURES = {"p50_latency_us": "median transaction"}
_UNIT_FIELDS = {"Gbit/s": "throughput_gbps", "\u00b5s": "latency_us", "tr/s": "transactions_per_s"}


def _number(doc: dict[str, Any], key: str | None) -> float | None:
    v = doc.get(key) if key else None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def measured_in(doc: dict[str, Any], unit: str, measure: str = "") -> float | None:
    """The measured figure of a result document in ``unit`` (``"Gbit/s"`` → ``throughput_gbps``, ``"µs"`` →
    ``latency_us``, ``"tr/s"`` → ``transactions_per_s``), or None; with ``measure`` (one of :data:`MEASURES`) that
    field when the document has it, else the unit's own."""
    if measure in MEASURES and _number(doc, measure) is not None:
        return _number(doc, measure)
    return _number(doc, _UNIT_FIELDS.get(unit))


def comparison_of(doc: dict[str, Any]) -> str:
    """How a result (``BenchResult.to_dict()``, stored or exported) compares with its expectation, in the words every
    view shows (CLI, wizard, PDF, HTML, CSV): for a band, :func:`nicadvisor.bench.expected.explain` (``"within band"``,
    ``"12 % slower than expected; bounded by: …"``, ``"8 % higher than expected"`` for µs); for a point figure
    :func:`compare`; without one ``"no expectation: <why>"`` (``no_expectation``) or ``"no expectation for this
    path"``; the ``not_measurable`` sentence for a test the tool cannot run."""
    if doc.get("not_measurable"):
        return str(doc["not_measurable"])
    expected = expected_from_dict(doc.get("expected"))
    if expected is None:
        why = str(doc.get("no_expectation") or "")
        return f"no expectation: {why}" if why else "no expectation for this path"
    measured = measured_in(doc, expected.unit, expected.measure)
    if expected.is_band:
        if measured is None:
            return "not measured"
        text = explain(measured, band_of(expected))
        if expected.measure in MEASURES and _number(doc, expected.measure) is not None:
            # another figure than the unit's own decided: say which, and what the mean says beside it
            text = f"{MEASURES[expected.measure]} {measured:,.0f} {expected.unit}: {text}"
            own, p99 = _number(doc, _UNIT_FIELDS.get(expected.unit)), _number(doc, "p99_latency_us")
            if own is not None and expected.high is not None and own > expected.high:
                tail = f" (P99 {p99:,.0f} {expected.unit})" if p99 is not None else ""
                text += (f"; the mean {own:,.0f} {expected.unit} is above the band: some transactions waited far "
                         f"longer{tail}, for a busy CPU on either host or a lost segment's retransmission")
        return text
    return compare(measured, expected)


def verdict_of(doc: dict[str, Any]) -> str:
    """``"pass"``/``"warn"``/``"fail"`` of a result document against its expected band
    (:func:`nicadvisor.bench.expected.judge`); "" without a band or a measured figure (a point figure of the first
    model gets no verdict)."""
    expected = expected_from_dict(doc.get("expected"))
    if doc.get("not_measurable") or expected is None or not expected.is_band:
        return ""
    measured = measured_in(doc, expected.unit, expected.measure)
    if measured is None:
        return ""
    return judge(measured, band_of(expected))[0]


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
