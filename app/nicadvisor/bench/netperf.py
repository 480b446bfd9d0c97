"""netperf 2.7 driver: ``netserver`` on a free port, ``netperf`` omni tests, and a pure parser of the
omni output.

Commands (the form measured in performance-baselines.md §4; the test catalogue of
vmfex-vs-vswitch-netperf.txt "Performance Evaluation Tools" with ``-m 65536`` for streams)::

    netserver -D -f -4 -L 127.0.0.1 -p PORT        # foreground, no child per test, always stopped
    netperf -H 127.0.0.1 -p PORT -t TCP_STREAM -l SECS -P 0 -j -c -C -- -k SELECTORS -m 65536
    netperf ... -t TCP_RR ... -- -k SELECTORS -r 1,1              # -r N,N: the payload sweep
    netperf ... -t TCP_CRR ... -- -k SELECTORS -r 1,1
    netperf ... -t UDP_STREAM ... -- -k SELECTORS -m 1400         # or -m 64
    netperf ... -t TCP_RR ... -- -k SELECTORS -r 8192,8192 -b 8 -s 262144 -S 262144   # bidirectional

Global options: ``-j`` keeps the timing statistics behind ``MEAN_LATENCY``/``P50_LATENCY``/``P90_LATENCY``/
``P99_LATENCY`` (netperf manual "Global Options", ``-j``); ``-c``/``-C`` report local/remote CPU utilisation
(``netperf -h``: "Report local/remote CPU usage"). ``-m 65536`` because netperf's default 16 KiB send size is
3.4x slower on veth (performance-baselines.md §2.4); ``-m 1400`` keeps UDP datagrams under a 1500-byte MTU.
Several streams are several concurrent netperf processes, each against its own netserver, their throughputs
summed (netperf manual "Running Concurrent Netperf Tests"; netperf cannot synchronise them, so their start and
end may skew by a few ms).

Omni output: ``-k`` prints ``NAME=value`` lines (what the driver asks for: self-describing evidence);
``-o`` prints one CSV line (with ``-P 1`` a "MIGRATED ... TEST" banner and a line of human-readable column
names come first). Both are read by :func:`parse_omni`, e.g. from a run on this machine
(tests/bench/data/netperf_tcp_rr_omni.txt, the 11 :data:`LEGACY_SELECTORS`)::

    22509.97,Trans/s,22509.970,44.38,49,66,1.00,0.18,0.18,TCP,Send|Recv
"""
from __future__ import annotations

import math
import shutil
import threading
import time
from contextlib import ExitStack
from typing import Any, Callable

from . import BenchError, Cancelled
from .journal import Journal
from .procs import LOOPBACK, Endpoints, ServerProcess, netns_argv, run_client
from .results import BenchResult, rtt_figures
from .sysutil import free_tcp_port

#: Omni output selectors requested, in this order (descriptions: netperf doc/omni_output_list.txt and the
#: manual's "Omni Output Selectors"; the latency percentiles need the global ``-j``, CPU needs ``-c``/``-C``).
SELECTORS: tuple[str, ...] = (
    "THROUGHPUT", "THROUGHPUT_UNITS", "TRANSACTION_RATE", "RT_LATENCY", "MEAN_LATENCY", "P50_LATENCY",
    "P90_LATENCY", "P99_LATENCY", "ELAPSED_TIME", "LOCAL_SEND_THROUGHPUT", "LOCAL_RECV_THROUGHPUT",
    "REMOTE_RECV_THROUGHPUT", "LOCAL_SEND_CALLS", "REMOTE_RECV_CALLS", "LOCAL_CPU_UTIL", "REMOTE_CPU_UTIL",
    "REQUEST_SIZE", "RESPONSE_SIZE", "LOCAL_SEND_SIZE", "BURST_SIZE", "PROTOCOL", "DIRECTION",
)
#: The selectors of the first driver (``-o``, 11 columns): stored results and recorded outputs use them.
LEGACY_SELECTORS: tuple[str, ...] = (
    "THROUGHPUT", "THROUGHPUT_UNITS", "TRANSACTION_RATE", "MEAN_LATENCY", "P50_LATENCY", "P99_LATENCY",
    "ELAPSED_TIME", "LOCAL_SEND_THROUGHPUT", "REMOTE_RECV_THROUGHPUT", "PROTOCOL", "DIRECTION",
)
TESTS = ("TCP_STREAM", "TCP_RR", "TCP_CRR", "UDP_STREAM")
#: Global options added to every run: timing statistics (-j) and local/remote CPU utilisation (-c -C).
GLOBAL_OPTIONS: tuple[str, ...] = ("-j", "-c", "-C")
#: Default payload per test, bytes: stream send size (-m) or request = response size (-r).
DEFAULT_PAYLOAD = {"TCP_STREAM": 65536, "UDP_STREAM": 1400, "TCP_RR": 1, "TCP_CRR": 1}
#: The bidirectional test of vmfex-vs-vswitch-netperf.txt "Performance Evaluation Tools", "Bi-directional TCP
#: Traffic": ``netperf -t TCP_RR -v2 -- -b 8 -r 8192,8192 -s 262144 -S 262144`` (payload from -r).
BIDIRECTIONAL_OPTIONS: tuple[str, ...] = ("-b", "8", "-s", "262144", "-S", "262144")

#: THROUGHPUT_UNITS → factor to Gbit/s (netperf prints 10^6bits/s by default; -f g/k change it).
_UNIT_TO_GBPS = {
    "10^9bits/s": 1.0, "10^6bits/s": 1e-3, "10^3bits/s": 1e-6, "bits/s": 1e-9,
    "2^30bytes/s": 8 * 2**30 / 1e9, "2^20bytes/s": 8 * 2**20 / 1e9, "2^10bytes/s": 8 * 2**10 / 1e9,
    "bytes/s": 8e-9,
}


def available() -> bool:
    """True when both ``netperf`` and ``netserver`` are on PATH."""
    return shutil.which("netperf") is not None and shutil.which("netserver") is not None


def netserver_argv(bind: str, port: int) -> list[str]:
    """``netserver -D -f -4 -L bind -p port``: foreground (-D), serial tests without forking (-f)."""
    return ["netserver", "-D", "-f", "-4", "-L", bind, "-p", str(port)]


def specific_options(test: str, payload: int | None = None, extra: tuple[str, ...] = ()) -> list[str]:
    """The test-specific options after ``--`` other than the selectors: ``-m payload`` for a stream test,
    ``-r payload,payload`` for TCP_RR/TCP_CRR (``payload`` None = :data:`DEFAULT_PAYLOAD`), then ``extra``
    (e.g. :data:`BIDIRECTIONAL_OPTIONS`). Raises ValueError for an unknown test or a payload < 1."""
    if test not in TESTS:
        raise ValueError(f"netperf test {test!r} is not one of {TESTS}")
    size = DEFAULT_PAYLOAD[test] if payload is None else payload
    if size < 1:
        raise ValueError(f"payload {size} bytes must be at least 1")
    opts = ["-m", str(size)] if test.endswith("_STREAM") else ["-r", f"{size},{size}"]
    return opts + list(extra)


def netperf_argv(test: str, host: str, port: int, duration_s: float,
                 selectors: tuple[str, ...] = SELECTORS, *, payload: int | None = None,
                 extra: tuple[str, ...] = (), global_options: tuple[str, ...] = GLOBAL_OPTIONS) -> list[str]:
    """The netperf client command for ``test`` (one of :data:`TESTS`) lasting ``duration_s`` seconds
    (netperf takes whole seconds: rounded, at least 1), keyval output (``-k``) of ``selectors``, with
    :func:`specific_options`. Raises ValueError for an unknown test or a bad payload."""
    opts = specific_options(test, payload, extra)
    secs = max(1, round(duration_s))
    return (["netperf", "-H", host, "-p", str(port), "-t", test, "-l", str(secs), "-P", "0", *global_options,
             "--", "-k", ",".join(selectors)] + opts)


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def parse_omni(text: str, selectors: tuple[str, ...] | None = None) -> dict[str, str]:
    """Read netperf omni output into ``{selector: text value}``. Pure; never raises.

    Accepts the ``-k`` ``NAME=value`` form (only known selector names are kept: ``selectors``, or without
    it those of :data:`SELECTORS` and :data:`LEGACY_SELECTORS`) and the ``-o`` CSV form: the last line whose
    comma-separated fields start with a number and count exactly ``len(selectors)`` (without ``selectors``:
    as many as :data:`SELECTORS` or :data:`LEGACY_SELECTORS`, named accordingly); banner and column-name
    lines are skipped. Returns ``{}`` when neither is found (e.g. ``establish control: are you sure there is
    a netserver listening ...``).
    """
    candidates = [selectors] if selectors is not None else [SELECTORS, LEGACY_SELECTORS]
    wanted = {name for sel in candidates for name in sel}
    by_width = {len(sel): sel for sel in reversed(candidates)}
    keyval: dict[str, str] = {}
    csv_row: tuple[tuple[str, ...], list[str]] | None = None
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if "=" in line and "," not in line:
            name, _, value = line.partition("=")
            if name.strip() in wanted:
                keyval[name.strip()] = value.strip()
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) in by_width and _is_number(fields[0]):
            csv_row = (by_width[len(fields)], fields)
    if keyval:
        return keyval
    if csv_row is not None:
        return dict(zip(*csv_row))
    return {}


def _num(values: dict[str, str], key: str) -> float | None:
    tok = values.get(key)
    if tok is None:
        return None
    try:
        v = float(tok)
    except ValueError:
        return None
    # netperf prints -1 for "not applicable"; "inf"/"nan" are no figures (a broken or fake tool)
    return v if math.isfinite(v) and v >= 0 else None


def _cpu(values: dict[str, str], key: str) -> float | None:
    """A CPU utilisation selector, 0-100 % of all CPUs (doc/omni_output_list.txt); anything outside is not
    kept (netperf 2.7 printed REMOTE_CPU_UTIL=293.45 for a loopback TCP_CRR on this machine)."""
    v = _num(values, key)
    return v if v is not None and v <= 100 else None


def omni_figures(values: dict[str, str], test: str) -> tuple[float | None, float | None, float | None]:
    """``(throughput_gbps, transactions_per_s, latency_us)`` from :func:`parse_omni` values. Pure.

    Stream tests: REMOTE_RECV_THROUGHPUT (what arrived; for UDP it is less than what was sent; 0 when this side
    sent and nothing arrived), else THROUGHPUT (the receive direction, where netperf prints
    REMOTE_RECV_THROUGHPUT=0.00 and LOCAL_SEND_CALLS=0), converted from THROUGHPUT_UNITS to Gbit/s; None if the
    unit is unknown. Non-finite figures (``inf``) are none.
    RR/CRR tests: TRANSACTION_RATE (else THROUGHPUT in ``Trans/s``); latency = 1e6 / rate µs.
    """
    if test.endswith("_STREAM"):
        factor = _UNIT_TO_GBPS.get(values.get("THROUGHPUT_UNITS", ""))
        value = _num(values, "REMOTE_RECV_THROUGHPUT")
        if value is None or (value == 0 and not _num(values, "LOCAL_SEND_CALLS")):
            # the receiving side's figure only when this side sent: in the receive direction netperf prints
            # REMOTE_RECV_THROUGHPUT=0.00 and LOCAL_SEND_CALLS=0; a sender whose peer received 0 bytes measured 0
            value = _num(values, "THROUGHPUT")
        if factor is None or value is None:
            return None, None, None
        return value * factor, None, None
    rate = _num(values, "TRANSACTION_RATE")
    if rate is None and values.get("THROUGHPUT_UNITS") == "Trans/s":
        rate = _num(values, "THROUGHPUT")
    if not rate:
        return None, None, None
    return None, rate, 1e6 / rate


def udp_loss_pct(values: dict[str, str]) -> float | None:
    """Datagrams lost, % of those sent: ``100 * (LOCAL_SEND_CALLS - REMOTE_RECV_CALLS) / LOCAL_SEND_CALLS``
    (one send call per datagram; the netperf manual's UDP_STREAM section counts loss as the sender's messages
    minus the receiver's). None without both counts. Pure."""
    sent, received = _num(values, "LOCAL_SEND_CALLS"), _num(values, "REMOTE_RECV_CALLS")
    if not sent or received is None:
        return None
    return max(0.0, (sent - received) / sent * 100)


def omni_measures(values: dict[str, str], test: str, *, bidirectional: bool = False) -> dict[str, Any]:
    """Every figure of one netperf run as :class:`BenchResult` keyword arguments. Pure; never raises.

    Keys: ``throughput_gbps``, ``transactions_per_s``, ``latency_us`` (:func:`omni_figures`; a bidirectional
    run's throughput is LOCAL_SEND_THROUGHPUT + LOCAL_RECV_THROUGHPUT, 10^6 bits/s, both directions as the
    netperf manual's "Bidirectional Transfer with TCP_RR" sums outbound and inbound), ``mean_latency_us``,
    ``p50_latency_us``, ``p90_latency_us``, ``p99_latency_us`` (RR/CRR only: for a stream test netperf times the
    send calls instead, manual ``-j``), ``rtt_us``/``one_way_us`` (:func:`rtt_figures` with ``1 + BURST_SIZE``
    transactions in flight, which is also ``latency_us`` of a burst run), ``loss_pct`` (UDP_STREAM, :func:`udp_loss_pct`), ``local_cpu_pct``,
    ``remote_cpu_pct`` and ``duration_s`` (ELAPSED_TIME, or None).
    """
    gbps, tps, lat = omni_figures(values, test)
    rr = not test.endswith("_STREAM")
    out: dict[str, Any] = {"throughput_gbps": gbps, "transactions_per_s": tps, "latency_us": lat}
    if bidirectional:
        send, recv = _num(values, "LOCAL_SEND_THROUGHPUT"), _num(values, "LOCAL_RECV_THROUGHPUT")
        out["throughput_gbps"] = (send + recv) * 1e-3 if send is not None and recv is not None else None
    for key, selector in (("mean_latency_us", "MEAN_LATENCY"), ("p50_latency_us", "P50_LATENCY"),
                          ("p90_latency_us", "P90_LATENCY"), ("p99_latency_us", "P99_LATENCY")):
        out[key] = _num(values, selector) if rr else None
    burst = _num(values, "BURST_SIZE") or 0.0
    out["rtt_us"], out["one_way_us"] = rtt_figures(tps, in_flight=1 + int(burst)) if rr else (None, None)
    if burst and out["rtt_us"] is not None:
        out["latency_us"] = out["rtt_us"]  # with transactions in flight, 1e6 / rate is not a round trip
    out["loss_pct"] = udp_loss_pct(values) if test == "UDP_STREAM" else None
    out["local_cpu_pct"] = _cpu(values, "LOCAL_CPU_UTIL")
    out["remote_cpu_pct"] = _cpu(values, "REMOTE_CPU_UTIL")
    out["duration_s"] = _num(values, "ELAPSED_TIME")
    return out


def _failure(test: str, rc: int, out: str, err: str) -> BenchError:
    detail = (err.strip() or out.strip()).splitlines()
    return BenchError(f"netperf {test} failed (rc={rc})" + (f": {detail[-1]}" if detail else ""))


def _run_concurrently(argvs: list[list[str]], timeout_s: float, cancel: threading.Event | None,
                      on_tick: Callable[[float], None] | None) -> list[tuple[int, str, str]]:
    """Run several clients at once (one thread each, :func:`run_client`) and return their ``(rc, out, err)`` in
    order. ``on_tick`` is called from the calling thread about every 0.1 s. Re-raises the first client's
    :class:`Cancelled` or :class:`BenchError` after all have ended (a cancel stops every client)."""
    stop = threading.Event()  # private: a failing client stops the others without touching the caller's event
    results: list[Any] = [None] * len(argvs)

    def work(i: int) -> None:
        try:
            results[i] = run_client(argvs[i], timeout_s=timeout_s, cancel=stop)
        except (BenchError, Cancelled) as exc:
            results[i] = exc
            if isinstance(exc, BenchError):
                stop.set()  # stop the others: the run has failed anyway

    threads = [threading.Thread(target=work, args=(i,), name=f"nicadv-netperf-{i}", daemon=True)
               for i in range(len(argvs))]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(timeout=0.1)
            if cancel is not None and cancel.is_set():
                stop.set()
            if on_tick is not None:
                on_tick(time.monotonic() - start)
    if cancel is not None and cancel.is_set():
        raise Cancelled()
    errors = [r for r in results if isinstance(r, BaseException)]
    bench_errors = [e for e in errors if isinstance(e, BenchError)]
    if bench_errors:
        raise bench_errors[0]
    if errors:
        raise errors[0]
    return results


def run_netperf(test: str, journal: Journal, *, endpoints: Endpoints = LOOPBACK, duration_s: float = 2.0,
                cancel: threading.Event | None = None, on_tick: Callable[[float], None] | None = None,
                payload: int | None = None, streams: int = 1, bidirectional: bool = False) -> BenchResult:
    """Run one netperf ``test`` against fresh netservers on ``endpoints`` and return its result
    (``expected`` None; the service attaches it).

    ``payload``: bytes per send (stream tests, ``-m``) or request = response size (RR/CRR, ``-r N,N``), None =
    :data:`DEFAULT_PAYLOAD`. ``streams``: concurrent connections (one netperf and one netserver each; the
    throughputs and transaction rates are summed, latencies and CPU averaged). ``bidirectional``: TCP_RR only,
    the vmfex-vs-vswitch-netperf.txt burst form (:data:`BIDIRECTIONAL_OPTIONS`; throughput = both directions).
    Each netserver listens on a free port, is journaled and is always stopped. Raises ValueError for a bad
    test/payload/streams, :class:`BenchError` when a netserver or netperf fails or prints no readable result,
    :class:`Cancelled` when ``cancel`` is set (every process stopped first).
    """
    if streams < 1:
        raise ValueError(f"streams {streams} must be at least 1")
    if bidirectional and test != "TCP_RR":
        raise ValueError("the bidirectional netperf test is a burst TCP_RR")
    extra = BIDIRECTIONAL_OPTIONS if bidirectional else ()
    specific_options(test, payload, extra)  # validate before starting anything
    argvs: list[list[str]] = []
    with ExitStack() as stack:
        for _ in range(streams):
            port = free_tcp_port()
            stack.enter_context(ServerProcess(netns_argv(endpoints.server_ns,
                                                         netserver_argv(endpoints.server_addr, port)),
                                              port, journal, cancel=cancel))
            argvs.append(netns_argv(endpoints.client_ns,
                                    netperf_argv(test, endpoints.server_addr, port, duration_s, payload=payload,
                                                 extra=extra)))
        timeout = max(1, round(duration_s)) + 20
        if streams == 1:
            outcomes = [run_client(argvs[0], timeout_s=timeout, cancel=cancel, on_tick=on_tick)]
        else:
            outcomes = _run_concurrently(argvs, timeout, cancel, on_tick)
    measures: list[dict[str, Any]] = []
    for rc, out, err in outcomes:
        m = omni_measures(parse_omni(out), test, bidirectional=bidirectional)
        if rc != 0 or (m["throughput_gbps"] is None and m["transactions_per_s"] is None):
            raise _failure(test, rc, out, err)
        measures.append(m)
    raws = [out if not err.strip() else out + "\n# stderr:\n" + err for _, out, err in outcomes]
    raw = raws[0] if streams == 1 else "".join(f"# stream {i + 1}\n{r}" for i, r in enumerate(raws))
    fig = combine_streams(measures)
    elapsed = fig.pop("duration_s") or float(max(1, round(duration_s)))
    return BenchResult(test=test, tool="netperf", path=endpoints.path, duration_s=elapsed, expected=None, raw=raw,
                       command=" ".join(argvs[0]) + (f"   (x{streams} concurrent)" if streams > 1 else ""),
                       payload_bytes=payload if payload is not None else DEFAULT_PAYLOAD[test], streams=streams,
                       direction="bidirectional" if bidirectional else "send", **fig)


def combine_streams(measures: list[dict[str, Any]]) -> dict[str, Any]:
    """One figure set from the :func:`omni_measures` of concurrent streams: throughput and transaction rate
    summed, every other figure (latencies, loss, CPU) averaged, ``duration_s`` the longest (so ``latency_us``,
    ``rtt_us`` and ``one_way_us`` stay per-connection round trips). A figure missing in any stream is None. Pure.
    Raises ValueError for an empty list."""
    if not measures:
        raise ValueError("no stream measured")
    if len(measures) == 1:
        return dict(measures[0])
    out: dict[str, Any] = {}
    for key in measures[0]:
        vals = [m.get(key) for m in measures]
        if any(v is None for v in vals):
            out[key] = None
        elif key in ("throughput_gbps", "transactions_per_s"):
            out[key] = sum(vals)
        elif key == "duration_s":
            out[key] = max(vals)
        else:
            out[key] = sum(vals) / len(vals)
    return out
