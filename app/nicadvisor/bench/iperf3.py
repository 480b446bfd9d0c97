"""iperf3 driver (an alternative to netperf for stream tests) and a pure parser of its JSON output.

Commands (performance-baselines.md §2.1 and §4)::

    iperf3 -s -1 -B 127.0.0.1 -p PORT                    # one test, then the server exits
    iperf3 -c 127.0.0.1 -p PORT -t SECS -J               # TCP_STREAM
    iperf3 -c 127.0.0.1 -p PORT -t SECS -J -u -b 0 -l 1400   # UDP_STREAM, unlimited rate
    ... -P N          # N parallel streams (the total is end.sum_received)
    ... -l 65536      # a chosen send size (TCP_STREAM) or datagram payload (UDP_STREAM, e.g. 64)
    ... --bidir       # both directions at once (iperf3 >= 3.7; throughput = sum_received + sum_received_bidir_reverse)

iperf3 measures streams only: it has no request/response or connect/request/response/close test, so TCP_RR,
its payload sweep and TCP_CRR are "not measurable with iperf3" (:mod:`nicadvisor.bench.catalogue`).
CPU: ``end.cpu_utilization_percent.host_total``/``remote_total`` is each iperf3 process's own CPU time in % of
the wall time (src/iperf_util.c ``cpu_util``, ``getrusage(RUSAGE_SELF)``).

The figure read is ``end.sum_received.bits_per_second`` (what the receiver got), for TCP and UDP
(iperf3 3.12, measured here, writes ``sum_sent``/``sum_received`` for UDP too; for a document with only
``end.sum``, whose rate is the sender's, the received rate is taken as
``bits_per_second * (1 - lost_percent/100)``).
On ESXi the client may print ``iperf3: getsockopt - Function not implemented`` lines around the
JSON (nic-data-sources.md §12): the parser skips text before the first ``{``.
"""
from __future__ import annotations

import json
import shutil
import threading
from typing import Any, Callable

from . import BenchError
from .journal import Journal
from .procs import LOOPBACK, Endpoints, ServerProcess, netns_argv, run_client
from .results import BenchResult
from .sysutil import free_tcp_port

TESTS = ("TCP_STREAM", "UDP_STREAM")


def available() -> bool:
    """True when ``iperf3`` is on PATH."""
    return shutil.which("iperf3") is not None


def server_argv(bind: str, port: int) -> list[str]:
    """``iperf3 -s -1 -B bind -p port`` (serves one test, then exits)."""
    return ["iperf3", "-s", "-1", "-B", bind, "-p", str(port)]


def client_argv(test: str, host: str, port: int, duration_s: float, *, payload: int | None = None,
                streams: int = 1, bidirectional: bool = False) -> list[str]:
    """The iperf3 client command for ``test`` (``TCP_STREAM`` or ``UDP_STREAM``), whole seconds (at least 1).

    ``payload``: ``-l`` buffer/datagram size in bytes (None: iperf3's default for TCP, 1400 for UDP);
    ``streams`` > 1 adds ``-P N``; ``bidirectional`` adds ``--bidir``. Raises ValueError for another test, a
    payload < 1 or streams < 1."""
    if test not in TESTS:
        raise ValueError(f"iperf3 runs {TESTS}, not {test!r}")
    if payload is not None and payload < 1:
        raise ValueError(f"payload {payload} bytes must be at least 1")
    if streams < 1:
        raise ValueError(f"streams {streams} must be at least 1")
    argv = ["iperf3", "-c", host, "-p", str(port), "-t", str(max(1, round(duration_s))), "-J"]
    if test == "UDP_STREAM":
        argv += ["-u", "-b", "0", "-l", str(payload or 1400)]
    elif payload is not None:
        argv += ["-l", str(payload)]
    if streams > 1:
        argv += ["-P", str(streams)]
    if bidirectional:
        argv += ["--bidir"]
    return argv


def load_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (prose before it is skipped), or None. Pure; never raises."""
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
        except ValueError:
            start = text.find("{", start + 1)
            continue
        return obj if isinstance(obj, dict) else None
    return None


def _num_of(block: Any, key: str) -> float | None:
    value = block.get(key) if isinstance(block, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _udp_loss(summary: Any, sent: Any, received: Any) -> float | None:
    """Datagrams lost, % of those sent (UDP): the receiver's ``lost_percent`` when it counted datagrams; 100 when
    the sender sent some and the receiver got none (iperf3 then writes ``lost_percent`` 0: it counts loss from the
    sequence numbers of datagrams that arrived); else ``end.sum``'s (documents without ``sum_received``); None
    when nothing says. Pure."""
    sent_packets = _num_of(sent, "packets") or _num_of(summary, "packets")
    received_packets = _num_of(received, "packets")
    if received_packets is not None and received_packets > 0 and _num_of(received, "lost_percent") is not None:
        return _num_of(received, "lost_percent")
    if sent_packets and (received_packets == 0 or _num_of(received, "bytes") == 0):
        return 100.0
    if _num_of(summary, "packets") and _num_of(summary, "lost_percent") is not None:
        return _num_of(summary, "lost_percent")
    return None


def parse_iperf3(text: str) -> dict[str, Any]:
    """Read iperf3 ``-J`` output. Pure; never raises.

    Returns ``{"gbps": float|None, "seconds": float|None, "protocol": "TCP"|"UDP"|None,
    "lost_percent": float|None, "retransmits": int|None, "error": str|None, "local_cpu_pct": float|None,
    "remote_cpu_pct": float|None, "reverse_gbps": float|None}``: ``gbps`` is the received rate in Gbit/s
    (see the module docstring), ``reverse_gbps`` the received rate of the reverse direction of a ``--bidir``
    run (``end.sum_received_bidir_reverse``), the CPU figures ``end.cpu_utilization_percent.host_total`` and
    ``remote_total``, ``error`` iperf3's own ``"error"`` text or a note that no JSON was found.
    """
    out: dict[str, Any] = {"gbps": None, "seconds": None, "protocol": None, "lost_percent": None,
                           "retransmits": None, "error": None, "local_cpu_pct": None, "remote_cpu_pct": None,
                           "reverse_gbps": None}
    doc = load_json(text)
    if doc is None:
        out["error"] = "no JSON object in iperf3 output"
        return out
    if isinstance(doc.get("error"), str):
        out["error"] = doc["error"]
    proto = (doc.get("start") or {}).get("test_start", {}).get("protocol")
    out["protocol"] = proto if isinstance(proto, str) else None
    end = doc.get("end") if isinstance(doc.get("end"), dict) else {}
    received = end.get("sum_received")
    sent = end.get("sum_sent")
    summary = end.get("sum")
    bps = None
    if isinstance(received, dict) and isinstance(received.get("bits_per_second"), (int, float)):
        bps = float(received["bits_per_second"])
        out["seconds"] = received.get("seconds")
    elif isinstance(summary, dict) and isinstance(summary.get("bits_per_second"), (int, float)):
        lost = summary.get("lost_percent")
        factor = 1 - float(lost) / 100 if isinstance(lost, (int, float)) else 1.0
        bps = float(summary["bits_per_second"]) * factor
        out["seconds"] = summary.get("seconds")
    if bps is not None:
        out["gbps"] = bps / 1e9
    out["lost_percent"] = _udp_loss(summary, sent, received)
    if isinstance(sent, dict) and isinstance(sent.get("retransmits"), int):
        out["retransmits"] = sent["retransmits"]
    reverse = end.get("sum_received_bidir_reverse")
    if isinstance(reverse, dict) and isinstance(reverse.get("bits_per_second"), (int, float)):
        out["reverse_gbps"] = float(reverse["bits_per_second"]) / 1e9
    cpu = end.get("cpu_utilization_percent")
    if isinstance(cpu, dict):
        for key, name in (("local_cpu_pct", "host_total"), ("remote_cpu_pct", "remote_total")):
            if isinstance(cpu.get(name), (int, float)) and cpu[name] >= 0:
                out[key] = float(cpu[name])
    return out


def run_iperf3(test: str, journal: Journal, *, endpoints: Endpoints = LOOPBACK, duration_s: float = 2.0,
               cancel: threading.Event | None = None, on_tick: Callable[[float], None] | None = None,
               payload: int | None = None, streams: int = 1, bidirectional: bool = False) -> BenchResult:
    """Run one iperf3 ``test`` (``TCP_STREAM`` or ``UDP_STREAM``) against a one-off server on
    ``endpoints``; ``expected`` is None (the service attaches it). ``payload``, ``streams`` and
    ``bidirectional`` as in :func:`client_argv` (a bidirectional result's throughput is both directions
    summed; ``loss_pct`` for UDP as :func:`parse_iperf3` reads it, 100 when nothing arrived).

    Raises ValueError for another test or bad options, :class:`BenchError` when iperf3 fails or reports no
    rate, :class:`Cancelled` when ``cancel`` is set (server and client stopped first).
    """
    options = {"payload": payload, "streams": streams, "bidirectional": bidirectional}
    client_argv(test, endpoints.server_addr, 0, duration_s, **options)  # validates first
    port = free_tcp_port()
    argv = client_argv(test, endpoints.server_addr, port, duration_s, **options)
    full = netns_argv(endpoints.client_ns, argv)
    server = ServerProcess(netns_argv(endpoints.server_ns, server_argv(endpoints.server_addr, port)),
                           port, journal, cancel=cancel)
    with server:
        rc, out, err = run_client(full, timeout_s=max(1, round(duration_s)) + 20, cancel=cancel, on_tick=on_tick)
    parsed = parse_iperf3(out)
    if rc != 0 or parsed["gbps"] is None or (bidirectional and parsed["reverse_gbps"] is None):
        why = parsed["error"] or (err.strip().splitlines() or ["no result"])[-1]
        raise BenchError(f"iperf3 {test} failed (rc={rc}): {why}")
    gbps = parsed["gbps"] + (parsed["reverse_gbps"] if bidirectional else 0.0)
    seconds = parsed["seconds"] if isinstance(parsed["seconds"], (int, float)) else float(max(1, round(duration_s)))
    raw = out if not err.strip() else out + "\n# stderr:\n" + err
    return BenchResult(test=test, tool="iperf3", path=endpoints.path, throughput_gbps=gbps,
                       transactions_per_s=None, latency_us=None, duration_s=float(seconds), expected=None,
                       raw=raw, command=" ".join(full),
                       payload_bytes=payload if payload is not None else (1400 if test == "UDP_STREAM" else None),
                       streams=streams, direction="bidirectional" if bidirectional else "send",
                       loss_pct=parsed["lost_percent"] if test == "UDP_STREAM" else None,
                       local_cpu_pct=parsed["local_cpu_pct"], remote_cpu_pct=parsed["remote_cpu_pct"])
