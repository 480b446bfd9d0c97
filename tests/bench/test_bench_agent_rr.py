"""The built-in agent's TCP_RR client against real loopback servers: which transactions it times, and how it ends when
the server goes away (issue 28 §1: the client no longer reads the clock at every fast transaction). No timed
assertion: the server's own sleep gives the only lower bound used."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from nicadvisor.bench.agent import HEADER, SAMPLE_BELOW_NS, AgentServer, client_rr


def _echo_server(delay_s: float, answers: int | None) -> tuple[socket.socket, threading.Thread]:
    """A plain echo server on loopback for one agent client: each request is answered after ``delay_s``; after
    ``answers`` answers (None: never) it closes the connection."""
    listener = socket.create_server(("127.0.0.1", 0))

    def run() -> None:
        conn, _ = listener.accept()
        with conn:
            _, req, resp = HEADER.unpack(conn.recv(HEADER.size, socket.MSG_WAITALL))
            done = 0
            while answers is None or done < answers:
                if len(conn.recv(req, socket.MSG_WAITALL)) < req:
                    return
                time.sleep(delay_s)
                conn.sendall(b"r" * resp)
                done += 1

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return listener, thread


def test_slow_transactions_are_each_timed():
    """Transactions of at least 1 ms (the server sleeps that long) are above the sampling threshold: every one is
    timed, so the percentiles hold no clock-free gap, and the mean is the exact elapsed / count."""
    assert SAMPLE_BELOW_NS < 1_000_000
    listener, thread = _echo_server(0.001, None)
    with listener:
        r = client_rr(*listener.getsockname()[:2], 0.1)
    thread.join(timeout=30)
    assert r["timed_every"] == 1 and r["transactions"] >= 1
    assert 1000 <= r["p50_latency_us"] <= r["p90_latency_us"] <= r["p99_latency_us"]
    assert r["mean_latency_us"] == pytest.approx(r["elapsed_s"] * 1e6 / r["transactions"])
    assert r["latency_us"] == pytest.approx(r["mean_latency_us"])


@pytest.mark.parametrize("size", [1, 4096])
def test_a_server_that_closes_mid_test_ends_the_client_with_an_error(size):
    """The 1-byte path (``os.read``/``os.write`` on the descriptor) and the buffered path both end on the server's
    close: with EOF ("closed the connection") or, when a request was still unread there, with its reset."""
    listener, thread = _echo_server(0.0, 40)
    with listener, pytest.raises(OSError, match="closed the connection during TCP_RR|Connection reset"):
        client_rr(*listener.getsockname()[:2], 30.0, request=size, response=size)
    thread.join(timeout=30)


def test_agent_server_answers_the_sampled_client_with_percentiles_in_order():
    """The agent's own server and client on loopback: whichever timing the warm-up chose (one in 16 or every one,
    depending on how fast this machine is now), the figures are consistent."""
    with AgentServer() as server:
        r = client_rr(*server.address, 0.3)
    assert r["timed_every"] in (1, 16) and r["transactions"] > 0
    assert 0 < r["p50_latency_us"] <= r["p90_latency_us"] <= r["p99_latency_us"]
    assert r["mean_latency_us"] == pytest.approx(1e6 / r["transactions_per_s"])
