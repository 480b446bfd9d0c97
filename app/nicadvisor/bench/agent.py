"""Built-in pure-Python benchmark agent: TCP_STREAM and TCP_RR with blocking sockets, for hosts
without netperf (or when asked).

Why blocking sockets: measured on this machine, a blocking Python RR loop runs within about 5 % of
netperf (+2 µs of CPU per transaction when pinned), while asyncio streams add about 50 µs per
transaction; Python ``sendall(64 KiB)`` reaches about 0.8x netperf ``-m 65536``
(performance-baselines.md §2.3-2.4). Numbers from this agent are therefore fine for "is the path
≥ 10 Gbit/s" and RTTs ≥ 50 µs, not for single-digit-µs latency or 25/100 G line-rate claims.

Protocol (one TCP connection per test, ``TCP_NODELAY`` on both ends): the client sends a 9-byte
header ``struct "!cII"`` = (mode, request size, response size).

* mode ``b"S"`` (TCP_STREAM): the client sends 64 KiB buffers for ``duration`` seconds, then shuts
  down its write side; the server counts the bytes and answers with ``"!Q"`` = bytes received.
  Throughput = received bytes x 8 / client time including the drain, in Gbit/s.
* mode ``b"R"`` (TCP_RR): request/response of the given sizes (1,1 by default) until the client
  closes. Rate = transactions / elapsed; latency = 1e6 / rate µs.

The server serves one connection at a time. It runs as a subprocess (default: ``python -m
nicadvisor.bench.agent serve``, also inside a namespace with ``ip netns exec``) or as a thread
(:class:`AgentServer`, loopback). The client runs as a subprocess (``... agent client``, printing one
JSON line) or in-process (:func:`client_stream`, :func:`client_rr`).
"""
from __future__ import annotations

import argparse
import json
import logging
import socket
import struct
import sys
import threading
import time
from typing import Any, Callable

from . import BenchError, Cancelled
from .journal import Journal
from .procs import LOOPBACK, Endpoints, ServerProcess, netns_argv, run_client
from .results import BenchResult
from .sysutil import free_tcp_port

TESTS = ("TCP_STREAM", "TCP_RR")
HEADER = struct.Struct("!cII")
COUNT = struct.Struct("!Q")
STREAM_CHUNK = 65536
SOCK_TIMEOUT_S = 10.0

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


def handle_connection(conn: socket.socket) -> None:
    """Serve one client connection (header, then stream sink or RR echo) until it closes."""
    conn.settimeout(SOCK_TIMEOUT_S * 3)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    head = bytearray(HEADER.size)
    if not _recv_exact(conn, HEADER.size, head):
        return
    mode, req, resp = HEADER.unpack(head)
    if mode == b"S":
        buf = bytearray(4 * STREAM_CHUNK)
        total = 0
        while True:
            k = conn.recv_into(buf)
            if k == 0:
                break
            total += k
        conn.sendall(COUNT.pack(total))
    elif mode == b"R" and 0 < req <= 1 << 20 and 0 < resp <= 1 << 20:
        rbuf = bytearray(req)
        answer = b"r" * resp
        while _recv_exact(conn, req, rbuf):
            conn.sendall(answer)


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
    return s


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
    """TCP_RR (``request``,``response`` bytes) for ``duration_s`` seconds. Returns ``{"test",
    "transactions", "elapsed_s", "transactions_per_s", "latency_us"}``. Raises OSError,
    :class:`Cancelled`."""
    req = b"q" * request
    buf = bytearray(response)
    n = 0
    with _connect(host, port) as s:
        s.sendall(HEADER.pack(b"R", request, response))
        start = time.perf_counter()
        deadline = start + duration_s
        while True:
            s.sendall(req)
            if not _recv_exact(s, response, buf):
                raise OSError("agent server closed the connection during TCP_RR")
            n += 1
            if n & 15 == 0:
                if time.perf_counter() >= deadline:
                    break
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
        elapsed = time.perf_counter() - start
    tps = n / elapsed
    return {"test": "TCP_RR", "transactions": n, "elapsed_s": elapsed, "transactions_per_s": tps,
            "latency_us": 1e6 / tps}


def _result_from(data: dict[str, Any], endpoints: Endpoints, raw: str, command: str) -> BenchResult:
    test = data.get("test")
    if test == "TCP_STREAM" and isinstance(data.get("gbps"), (int, float)):
        return BenchResult(test="TCP_STREAM", tool="agent", path=endpoints.path, throughput_gbps=float(data["gbps"]),
                           transactions_per_s=None, latency_us=None, duration_s=float(data["elapsed_s"]),
                           expected=None, raw=raw, command=command)
    if test == "TCP_RR" and isinstance(data.get("transactions_per_s"), (int, float)) and data["transactions_per_s"] > 0:
        tps = float(data["transactions_per_s"])
        return BenchResult(test="TCP_RR", tool="agent", path=endpoints.path, throughput_gbps=None,
                           transactions_per_s=tps, latency_us=1e6 / tps, duration_s=float(data["elapsed_s"]),
                           expected=None, raw=raw, command=command)
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
              mode: str = "process") -> BenchResult:
    """Run one agent ``test`` (``TCP_STREAM`` or ``TCP_RR``) on ``endpoints``; ``expected`` is None.

    ``mode="process"`` (default): server and client are separate Python processes (like netperf, no
    shared GIL; the only way into network namespaces). ``mode="thread"``: server thread and client in
    the calling thread (loopback only; the GIL is shared, so numbers are a little lower).
    Raises ValueError for another test or a thread run on a namespace, :class:`BenchError` when the
    agent fails, :class:`Cancelled` when ``cancel`` is set.
    """
    if test not in TESTS:
        raise ValueError(f"the agent runs {TESTS}, not {test!r}")
    if mode == "thread":
        if endpoints.server_ns or endpoints.client_ns:
            raise ValueError("the in-process agent cannot enter network namespaces: use mode='process'")
        with AgentServer(endpoints.server_addr) as server:
            host, port = server.address
            try:
                if test == "TCP_STREAM":
                    data = client_stream(host, port, duration_s, cancel)
                else:
                    data = client_rr(host, port, duration_s, cancel)
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
                                                "--port", str(port), "--duration", f"{duration_s:g}"])
    with ServerProcess(server_argv, port, journal, cancel=cancel, ready_timeout_s=10.0):
        rc, out, err = run_client(client_argv, timeout_s=duration_s + 20, cancel=cancel, on_tick=on_tick)
    data = parse_client_output(out)
    if rc != 0 or data is None:
        why = (err.strip() or out.strip() or "no output").splitlines()[-1]
        raise BenchError(f"agent {test} failed (rc={rc}): {why}")
    return _result_from(data, endpoints, out, " ".join(client_argv))


# --- command line (used by run_agent in process mode) ---------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """``serve --bind ADDR --port P [--once]`` or ``client --test T --host H --port P --duration S``
    (prints one JSON line). Returns the exit status (2 for a socket error)."""
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
    args = ap.parse_args(argv)
    try:
        if args.cmd == "serve":
            with listen(args.bind, args.port) as listener:
                serve(listener, once=args.once)
            return 0
        if args.test == "TCP_STREAM":
            data = client_stream(args.host, args.port, args.duration)
        else:
            data = client_rr(args.host, args.port, args.duration)
    except OSError as exc:
        print(f"agent error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(data, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
