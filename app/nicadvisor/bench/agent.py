"""Built-in pure-Python benchmark agent: TCP_STREAM and TCP_RR with blocking sockets, for hosts
without netperf (or when asked).

Why blocking sockets: measured on this machine, a blocking Python RR loop runs at about 0.85-0.95x
netperf's TCP_RR rate on loopback (its median transaction +2-4 µs; benchmarks/README.md, issue 28 §1), while
asyncio streams add about 50 µs per transaction; Python ``sendall(64 KiB)`` reaches about 0.8x netperf ``-m 65536``
(performance-baselines.md §2.3-2.4). Numbers from this agent are therefore fine for "is the path
≥ 10 Gbit/s" and RTTs ≥ 50 µs, not for single-digit-µs latency or 25/100 G line-rate claims.

Protocol (one TCP connection per test, ``TCP_NODELAY`` on both ends): the client sends a 9-byte
header ``struct "!cII"`` = (mode, request size, response size).

* mode ``b"S"`` (TCP_STREAM): the client sends 64 KiB buffers for ``duration`` seconds, then shuts
  down its write side; the server counts the bytes and answers with ``"!Q"`` = bytes received.
  Throughput = received bytes x 8 / client time including the drain, in Gbit/s.
* mode ``b"R"`` (TCP_RR): request/response of the given sizes (1,1 by default) until the client
  closes. Rate = transactions / elapsed; latency = 1e6 / rate µs = the mean transaction time. The client
  also times single transactions (``perf_counter_ns`` just before the request and just after the response)
  and reports p50, p90 and p99 in µs (nearest-rank percentiles of those times, where netperf ``-j`` uses a
  histogram): every transaction for the first 10 ms and, when they took under 200 µs on average, one in
  every 16 from then on (``timed_every`` in the result), because a clock read costs 0.2-0.5 µs of CPU in this
  KVM guest, a few per cent of a loopback round trip.

Hot-loop cost (benchmarks/README.md, "agent_vs_netperf.py"): the data sockets are in blocking mode
*without* a Python-level timeout, because a Python socket timeout makes every ``recv``/``send`` a
``poll()`` plus the call (one more system call per transaction on each side), and without ``SO_RCVTIMEO``,
because a blocking receive with a kernel timeout arms and cancels a timer every time it sleeps (about 0.4 µs of
each 16 µs loopback transaction, measured pinned: rate ratio to netperf 0.874 → 0.896). A vanished peer still ends
the test with an OSError within about :data:`SOCK_TIMEOUT_S`: TCP keepalive probes it when the connection is idle
and ``TCP_USER_TIMEOUT`` gives up on data it does not acknowledge (tcp(7)); ``SO_SNDTIMEO`` bounds a blocked send
(it costs nothing while sends do not block). The RR loops are two calls per transaction on each side: 1-byte
messages go through ``os.read``/``os.write`` on the descriptor (Argument Clinic's fast call: no keyword parsing,
no buffer export), larger ones through ``recv_into`` a preallocated buffer and ``sendall``; the client reads the
clock only around its timed transactions and checks the deadline and cancel there, once a 10 ms mark has passed.
Left out on purpose: ``gc.disable()`` (the loops create no object the collector tracks), ``SO_BUSY_POLL`` (no
effect on loopback, which has no NAPI, and a busy-polling agent would measure another thing than netperf) and
pinning (left to the caller, as with netperf). Where it stands against netperf: benchmarks/README.md.

Tests this agent cannot run (TCP_CRR, UDP_STREAM, several streams, bidirectional) are reported as
"not measurable with agent" by :mod:`nicadvisor.bench.catalogue`.

The server serves one connection at a time. It runs as a subprocess (default: ``python -m
nicadvisor.bench.agent serve``, also inside a namespace with ``ip netns exec``) or as a thread
(:class:`AgentServer`, loopback). The client runs as a subprocess (``... agent client``, printing one
JSON line) or in-process (:func:`client_stream`, :func:`client_rr`).
"""
from __future__ import annotations

import argparse
import array
import json
import math
import logging
import os
import socket
import struct
import sys
import threading
import time
from typing import Any, Callable

from . import BenchError, Cancelled
from .journal import Journal
from .procs import LOOPBACK, Endpoints, ServerProcess, netns_argv, run_client
from .results import BenchResult, rtt_figures
from .sysutil import free_tcp_port

TESTS = ("TCP_STREAM", "TCP_RR")
HEADER = struct.Struct("!cII")
COUNT = struct.Struct("!Q")
STREAM_CHUNK = 65536
SOCK_TIMEOUT_S = 10.0
#: How often (ns) the RR client looks at its deadline and the cancel flag (a comparison per timed transaction), and
#: how long its warm-up is: every transaction is timed until then.
CHECK_EVERY_NS = 10_000_000
#: After the warm-up, the RR client times one transaction in every SAMPLE_EVERY when the mean transaction took less
#: than SAMPLE_BELOW_NS: a clock read costs 0.2-0.5 µs of CPU here (``perf_counter_ns`` in this KVM guest, measured),
#: which is 1-3 % of a 15 µs loopback round trip but less than 0.25 % of a 200 µs one, where every one is timed.
SAMPLE_EVERY = 16
SAMPLE_BELOW_NS = 200_000
MAX_RR_BYTES = 1 << 20

log = logging.getLogger(__name__)


def agent_command() -> list[str]:
    """argv prefix that runs this module's CLI: ``[sys.executable, "-m", "nicadvisor.bench.agent"]``, or in a frozen
    build (PyInstaller, no ``-m``) ``[sys.executable, "agent"]`` (``nic-advisor agent``, see :func:`nicadvisor.cli.main`)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "agent"]
    return [sys.executable, "-m", "nicadvisor.bench.agent"]


# --- server ------------------------------------------------------------------------------------

def _recv_exact(sock: socket.socket, n: int, buf: bytearray) -> bool:
    """Fill ``buf[:n]`` from ``sock``; False on EOF."""
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:n])
        if k == 0:
            return False
        got += k
    return True


def kernel_timeouts(sock: socket.socket, seconds: float) -> None:
    """Make ``sock`` blocking without a Python timeout and let the kernel end a wait on a vanished peer within about
    ``seconds`` instead (Python then raises an OSError: ETIMEDOUT, or BlockingIOError for a blocked send): TCP
    keepalive after ``seconds / 2`` idle, probing every second ``seconds / 2`` times, ``TCP_USER_TIMEOUT`` for
    unacknowledged data and ``SO_SNDTIMEO`` for a send (tcp(7), socket(7)). No ``SO_RCVTIMEO``: it would arm a timer
    at every blocking receive (module docstring). Where the TCP options do not exist (not Linux, not TCP), the
    receive timeout is set after all."""
    sock.settimeout(None)
    whole = int(seconds)
    tv = struct.pack("ll", whole, int((seconds - whole) * 1e6))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    half = max(1, int(seconds / 2))
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, half)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, half)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, max(1000, int(seconds * 1000)))
    except (AttributeError, OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)


def _reader(sock: socket.socket, size: int) -> tuple[Callable[[Any, int], Any], Any]:
    """``(read, handle)`` for the RR loops: ``read(handle, size)`` is true once ``size`` bytes have arrived and false at
    EOF. One byte on POSIX: ``os.read`` on the descriptor (Argument Clinic's fast call, no keyword parsing, no buffer
    export: measured on this machine about 0.1 µs less user CPU per call than ``recv_into``); otherwise
    ``recv_into`` a preallocated buffer, in pieces when the size needs it (no per-call allocation of a large buffer)."""
    if size == 1 and os.name == "posix":
        return os.read, sock.fileno()
    view = memoryview(bytearray(size))
    recv_into = sock.recv_into

    def read(_handle: Any, n: int) -> bool:
        got = recv_into(view)
        while 0 < got < n:  # a large message can arrive in pieces
            k = recv_into(view[got:])
            if k == 0:
                return False
            got += k
        return got == n

    return read, None


def _writer(sock: socket.socket, size: int) -> tuple[Callable[[Any, bytes], Any], Any]:
    """``(write, handle)`` for the RR loops: ``write(handle, data)`` sends all of ``data`` (``size`` bytes). One byte
    on POSIX: ``os.write`` on the descriptor (a blocking TCP send of one byte is all or an error); otherwise
    ``socket.sendall``."""
    if size == 1 and os.name == "posix":
        return os.write, sock.fileno()
    return socket.socket.sendall, sock


def _serve_rr(conn: socket.socket, req: int, resp: int) -> None:
    """Echo loop of mode ``R``: read ``req`` bytes, answer ``resp`` bytes, until EOF (two calls per transaction)."""
    read, rh = _reader(conn, req)
    write, wh = _writer(conn, resp)
    answer = b"r" * resp
    while read(rh, req):
        write(wh, answer)


def handle_connection(conn: socket.socket) -> None:
    """Serve one client connection (header, then stream sink or RR echo) until it closes."""
    kernel_timeouts(conn, SOCK_TIMEOUT_S * 3)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    head = bytearray(HEADER.size)
    if not _recv_exact(conn, HEADER.size, head):
        return
    mode, req, resp = HEADER.unpack(head)
    if mode == b"S":
        buf = bytearray(4 * STREAM_CHUNK)
        total = 0
        recv_into = conn.recv_into
        while True:
            k = recv_into(buf)
            if k == 0:
                break
            total += k
        conn.sendall(COUNT.pack(total))
    elif mode == b"R" and 0 < req <= MAX_RR_BYTES and 0 < resp <= MAX_RR_BYTES:
        _serve_rr(conn, req, resp)


def serve(listener: socket.socket, stop: threading.Event | None = None, once: bool = False) -> None:
    """Accept and serve connections one at a time until ``stop`` is set (checked every 0.2 s) or,
    with ``once``, after the first connection. Connection errors end that connection only."""
    listener.settimeout(0.2)
    while stop is None or not stop.is_set():
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        except OSError:
            return  # listener closed
        with conn:
            try:
                handle_connection(conn)
            except OSError as exc:
                log.debug("agent connection ended: %s", exc)  # the client vanished: serve the next one
        if once:
            return


def listen(host: str, port: int) -> socket.socket:
    """A listening IPv4 TCP socket on (host, port) with SO_REUSEADDR."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((host, port))
        s.listen(4)
    except OSError:
        s.close()
        raise
    return s


class AgentServer:
    """The agent server in a background thread (loopback use). ``address`` is (host, port).
    Context manager: ``__exit__`` stops the thread and closes the socket."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._sock = listen(host, port)
        self.address: tuple[str, int] = self._sock.getsockname()[:2]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=serve, args=(self._sock, self._stop), name="nicadv-agent-server",
                                        daemon=True)

    def __enter__(self) -> "AgentServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving (within 0.2 s plus the current connection) and close the socket."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=SOCK_TIMEOUT_S)
        self._sock.close()


# --- client ------------------------------------------------------------------------------------

def _connect(host: str, port: int) -> socket.socket:
    s = socket.create_connection((host, port), timeout=SOCK_TIMEOUT_S)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    kernel_timeouts(s, SOCK_TIMEOUT_S)
    return s


def percentile(sorted_values: "array.array[int] | list[int]", q: float) -> int:
    """Nearest-rank ``q`` percentile (0 < q <= 100) of ascending ``sorted_values``. Raises ValueError when empty."""
    if not sorted_values:
        raise ValueError("no values")
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def latency_stats(times_ns: "array.array[int] | list[int]") -> dict[str, float | None]:
    """``{"mean_latency_us", "p50_latency_us", "p90_latency_us", "p99_latency_us"}`` in µs from per-transaction
    times in ns (all None when there are none). Pure."""
    if not times_ns:
        return {"mean_latency_us": None, "p50_latency_us": None, "p90_latency_us": None, "p99_latency_us": None}
    ordered = sorted(times_ns)
    return {"mean_latency_us": sum(ordered) / len(ordered) / 1e3,
            "p50_latency_us": percentile(ordered, 50) / 1e3,
            "p90_latency_us": percentile(ordered, 90) / 1e3,
            "p99_latency_us": percentile(ordered, 99) / 1e3}


def client_stream(host: str, port: int, duration_s: float, cancel: threading.Event | None = None) -> dict[str, Any]:
    """TCP_STREAM for ``duration_s`` seconds. Returns ``{"test", "bytes", "elapsed_s", "gbps"}``
    (bytes counted by the server, Gbit/s). Raises OSError on socket errors, :class:`Cancelled`."""
    payload = bytes(STREAM_CHUNK)
    with _connect(host, port) as s:
        s.sendall(HEADER.pack(b"S", 0, 0))
        start = time.perf_counter()
        deadline = start + duration_s
        while True:
            s.sendall(payload)
            if time.perf_counter() >= deadline:
                break
            if cancel is not None and cancel.is_set():
                raise Cancelled()
        s.shutdown(socket.SHUT_WR)
        buf = bytearray(COUNT.size)
        if not _recv_exact(s, COUNT.size, buf):
            raise OSError("agent server closed the connection without a byte count")
        elapsed = time.perf_counter() - start
    (count,) = COUNT.unpack(buf)
    return {"test": "TCP_STREAM", "bytes": count, "elapsed_s": elapsed, "gbps": count * 8 / elapsed / 1e9}


def client_rr(host: str, port: int, duration_s: float, cancel: threading.Event | None = None,
              request: int = 1, response: int = 1) -> dict[str, Any]:
    """TCP_RR (``request``,``response`` bytes, each 1..1 MiB) for ``duration_s`` seconds. Returns ``{"test",
    "transactions", "elapsed_s", "transactions_per_s", "latency_us", "request", "response", "timed_every",
    "mean_latency_us", "p50_latency_us", "p90_latency_us", "p99_latency_us"}`` (µs). The mean is elapsed /
    transactions (every transaction); the percentiles are those of the timed transactions (:func:`latency_stats`):
    every one, or one in ``timed_every`` = :data:`SAMPLE_EVERY` after a 10 ms warm-up whose mean was under
    :data:`SAMPLE_BELOW_NS`. Raises ValueError for a bad size, OSError on socket errors (the server closed or reset
    the connection), :class:`Cancelled`."""
    if not (0 < request <= MAX_RR_BYTES and 0 < response <= MAX_RR_BYTES):
        raise ValueError(f"request/response sizes {request},{response} are outside 1..{MAX_RR_BYTES} bytes")
    req = b"q" * request
    samples = array.array("q")  # the times (ns) of the timed transactions
    clock = time.perf_counter_ns
    with _connect(host, port) as s:
        s.sendall(HEADER.pack(b"R", request, response))
        read, rh = _reader(s, response)
        write, wh = _writer(s, request)
        record = samples.append
        untimed = range(0)  # the transactions between two timed ones: none until the warm-up has decided
        block = 1
        n = 0
        start = t1 = clock()
        deadline = start + int(duration_s * 1e9)
        mark = start + CHECK_EVERY_NS
        while True:
            for _ in untimed:
                write(wh, req)
                if not read(rh, response):
                    raise OSError("agent server closed the connection during TCP_RR")
            t0 = clock()
            write(wh, req)
            if not read(rh, response):
                raise OSError("agent server closed the connection during TCP_RR")
            t1 = clock()
            record(t1 - t0)
            n += block
            if t1 >= mark:
                if t1 >= deadline:
                    break
                if block == 1 and t1 - start < SAMPLE_BELOW_NS * n:  # warm-up done: fast transactions, sample them
                    block = SAMPLE_EVERY
                    untimed = range(block - 1)
                    samples = samples[::block]  # the warm-up's times at the same rate as the rest
                    record = samples.append
                mark = t1 + CHECK_EVERY_NS
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
        elapsed_ns = t1 - start
    elapsed = elapsed_ns / 1e9
    tps = n / elapsed
    stats = latency_stats(samples)
    stats["mean_latency_us"] = elapsed_ns / n / 1e3  # exact: every transaction, not only the timed ones
    return {"test": "TCP_RR", "transactions": n, "elapsed_s": elapsed, "transactions_per_s": tps,
            "latency_us": 1e6 / tps, "request": request, "response": response, "timed_every": block, **stats}


def _opt_float(data: dict[str, Any], key: str) -> float | None:
    v = data.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else None


def _result_from(data: dict[str, Any], endpoints: Endpoints, raw: str, command: str) -> BenchResult:
    """The :class:`BenchResult` of one agent client JSON document. Raises :class:`BenchError` when it holds no
    figure for its test."""
    test = data.get("test")
    if test == "TCP_STREAM" and isinstance(data.get("gbps"), (int, float)):
        return BenchResult(test="TCP_STREAM", tool="agent", path=endpoints.path, throughput_gbps=float(data["gbps"]),
                           transactions_per_s=None, latency_us=None, duration_s=float(data["elapsed_s"]),
                           expected=None, raw=raw, command=command, payload_bytes=STREAM_CHUNK)
    if test == "TCP_RR" and isinstance(data.get("transactions_per_s"), (int, float)) and data["transactions_per_s"] > 0:
        tps = float(data["transactions_per_s"])
        rtt, one_way = rtt_figures(tps)
        payload = data.get("request") if isinstance(data.get("request"), int) else 1
        return BenchResult(test="TCP_RR", tool="agent", path=endpoints.path, throughput_gbps=None,
                           transactions_per_s=tps, latency_us=1e6 / tps, duration_s=float(data["elapsed_s"]),
                           expected=None, raw=raw, command=command, payload_bytes=payload,
                           mean_latency_us=_opt_float(data, "mean_latency_us"),
                           p50_latency_us=_opt_float(data, "p50_latency_us"),
                           p90_latency_us=_opt_float(data, "p90_latency_us"),
                           p99_latency_us=_opt_float(data, "p99_latency_us"), rtt_us=rtt, one_way_us=one_way)
    raise BenchError(f"agent gave no {test or 'readable'} result: {raw.strip()[-200:]}")


def parse_client_output(text: str) -> dict[str, Any] | None:
    """The last JSON object line printed by ``agent client``, or None. Pure; never raises."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                return obj
    return None


def run_agent(test: str, journal: Journal, *, endpoints: Endpoints = LOOPBACK, duration_s: float = 2.0,
              cancel: threading.Event | None = None, on_tick: Callable[[float], None] | None = None,
              mode: str = "process", payload: int = 1) -> BenchResult:
    """Run one agent ``test`` (``TCP_STREAM`` or ``TCP_RR``) on ``endpoints``; ``expected`` is None.

    ``payload``: TCP_RR request = response size in bytes (1..1 MiB, like netperf ``-r N``); TCP_STREAM always
    sends 64 KiB buffers (netperf ``-m 65536``) and ignores it.

    ``mode="process"`` (default): server and client are separate Python processes (like netperf, no
    shared GIL; the only way into network namespaces). ``mode="thread"``: server thread and client in
    the calling thread (loopback only; the GIL is shared, so numbers are a little lower).
    Raises ValueError for another test or a thread run on a namespace, :class:`BenchError` when the
    agent fails, :class:`Cancelled` when ``cancel`` is set.
    """
    if test not in TESTS:
        raise ValueError(f"the agent runs {TESTS}, not {test!r}")
    if not 0 < payload <= MAX_RR_BYTES:
        raise ValueError(f"payload {payload} bytes is outside 1..{MAX_RR_BYTES}")
    if mode == "thread":
        if endpoints.server_ns or endpoints.client_ns:
            raise ValueError("the in-process agent cannot enter network namespaces: use mode='process'")
        with AgentServer(endpoints.server_addr) as server:
            host, port = server.address
            try:
                if test == "TCP_STREAM":
                    data = client_stream(host, port, duration_s, cancel)
                else:
                    data = client_rr(host, port, duration_s, cancel, request=payload, response=payload)
            except OSError as exc:
                raise BenchError(f"agent {test} failed: {exc}") from exc
        raw = json.dumps(data, sort_keys=True)
        return _result_from(data, endpoints, raw, f"nicadvisor agent (thread) {test} {host}:{port} {duration_s:g} s")
    if mode != "process":
        raise ValueError(f"agent mode {mode!r} is not 'process' or 'thread'")
    port = free_tcp_port()
    server_argv = netns_argv(endpoints.server_ns,
                             agent_command() + ["serve", "--bind", endpoints.server_addr, "--port", str(port)])
    client_argv = netns_argv(endpoints.client_ns,
                             agent_command() + ["client", "--test", test, "--host", endpoints.server_addr,
                                                "--port", str(port), "--duration", f"{duration_s:g}"]
                             + (["--request", str(payload), "--response", str(payload)] if test == "TCP_RR" else []))
    with ServerProcess(server_argv, port, journal, cancel=cancel, ready_timeout_s=10.0):
        rc, out, err = run_client(client_argv, timeout_s=duration_s + 20, cancel=cancel, on_tick=on_tick)
    data = parse_client_output(out)
    if rc != 0 or data is None:
        why = (err.strip() or out.strip() or "no output").splitlines()[-1]
        raise BenchError(f"agent {test} failed (rc={rc}): {why}")
    return _result_from(data, endpoints, out, " ".join(client_argv))


# --- command line (used by run_agent in process mode) ---------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """``serve --bind ADDR --port P [--once]`` or ``client --test T --host H --port P --duration S [--request B
    --response B]`` (prints one JSON line). Returns the exit status (2 for a socket error or a bad size)."""
    ap = argparse.ArgumentParser(prog="python -m nicadvisor.bench.agent", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("serve", help="serve agent tests on ADDR:PORT until terminated")
    sp.add_argument("--bind", default="127.0.0.1")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--once", action="store_true", help="exit after one connection")
    cp = sub.add_parser("client", help="run one test and print its JSON result")
    cp.add_argument("--test", choices=TESTS, required=True)
    cp.add_argument("--host", required=True)
    cp.add_argument("--port", type=int, required=True)
    cp.add_argument("--duration", type=float, default=2.0)
    cp.add_argument("--request", type=int, default=1, help="TCP_RR request size in bytes")
    cp.add_argument("--response", type=int, default=1, help="TCP_RR response size in bytes")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "serve":
            with listen(args.bind, args.port) as listener:
                serve(listener, once=args.once)
            return 0
        if args.test == "TCP_STREAM":
            data = client_stream(args.host, args.port, args.duration)
        else:
            data = client_rr(args.host, args.port, args.duration, request=args.request, response=args.response)
    except (OSError, ValueError) as exc:
        print(f"agent error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(data, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
