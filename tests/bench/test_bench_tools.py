"""Real tool runs on loopback (1 s each). No timed performance assertions: only that real figures
came back, in sane ranges, with the evidence kept and nothing left running."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from benchtools import my_children, needs_root, read_output
from nicadvisor.bench import BenchError
from nicadvisor.bench.agent import AgentServer, client_rr, client_stream, run_agent
from nicadvisor.bench.iperf3 import run_iperf3
from nicadvisor.bench.journal import Journal, read_entries
from nicadvisor.bench.netperf import run_netperf

needs_netperf = pytest.mark.skipif(shutil.which("netperf") is None, reason="netperf not installed")
needs_iperf3 = pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 not installed")


@needs_netperf
def test_netperf_stream_and_rr_on_loopback(journal_dir):
    with Journal(journal_dir) as journal:
        stream = run_netperf("TCP_STREAM", journal, duration_s=1)
        rr = run_netperf("TCP_RR", journal, duration_s=1)
    assert stream.tool == "netperf" and stream.path == "loopback"
    assert 0 < stream.throughput_gbps < 1000  # Gbit/s, not bit/s; how fast is the machine's load, not asserted
    assert stream.transactions_per_s is None and stream.latency_us is None
    assert "10^6bits/s" in stream.raw and "-m 65536" in stream.command
    assert rr.transactions_per_s > 0
    assert rr.latency_us == pytest.approx(1e6 / rr.transactions_per_s)
    assert "Trans/s" in rr.raw and rr.duration_s == pytest.approx(1.0, abs=0.2)
    assert read_entries(journal_dir) == []
    assert my_children("netserver", "netperf") == set()


@needs_iperf3
def test_iperf3_tcp_and_udp_on_loopback(journal_dir):
    with Journal(journal_dir) as journal:
        tcp = run_iperf3("TCP_STREAM", journal, duration_s=1)
        udp = run_iperf3("UDP_STREAM", journal, duration_s=1)
        with pytest.raises(ValueError):
            run_iperf3("TCP_RR", journal, duration_s=1)
    assert tcp.tool == "iperf3" and 0 < tcp.throughput_gbps < 1000
    assert '"sum_received"' in tcp.raw and " -J" in tcp.command
    assert 0 < udp.throughput_gbps < 1000 and "-u" in udp.command
    assert read_entries(journal_dir) == []


def test_agent_process_mode_on_loopback(journal_dir):
    with Journal(journal_dir) as journal:
        stream = run_agent("TCP_STREAM", journal, duration_s=1)
        rr = run_agent("TCP_RR", journal, duration_s=1)
    assert stream.tool == "agent" and 0 < stream.throughput_gbps < 1000
    assert rr.transactions_per_s > 0 and rr.latency_us == pytest.approx(1e6 / rr.transactions_per_s)
    assert '"bytes"' in stream.raw and "nicadvisor.bench.agent client" in stream.command
    assert read_entries(journal_dir) == []


def test_agent_thread_mode_and_in_process_client():
    with AgentServer() as server:
        host, port = server.address
        s = client_stream(host, port, 0.3)
        r = client_rr(host, port, 0.3, request=64, response=1024)
    assert s["bytes"] > 0 and s["gbps"] == pytest.approx(s["bytes"] * 8 / s["elapsed_s"] / 1e9)
    assert r["transactions"] > 10 and r["latency_us"] == pytest.approx(1e6 / r["transactions_per_s"])


def test_agent_errors(journal_dir):
    with Journal(journal_dir) as journal:
        with pytest.raises(ValueError):
            run_agent("UDP_STREAM", journal)
        with pytest.raises(ValueError):
            run_agent("TCP_RR", journal, mode="bogus")


@needs_netperf
def test_netperf_failure_is_a_bench_error(journal_dir, monkeypatch):
    # a server that listens but is not a netserver (the agent: it drops the unknown control
    # message and closes), so netperf gets no result
    from nicadvisor.bench import netperf as netperf_mod
    from nicadvisor.bench.agent import agent_command

    monkeypatch.setattr(netperf_mod, "netserver_argv",
                        lambda bind, port: agent_command() + ["serve", "--bind", bind, "--port", str(port)])
    with Journal(journal_dir) as journal:
        with pytest.raises(BenchError, match="netperf TCP_RR failed"):
            run_netperf("TCP_RR", journal, duration_s=1)
    assert read_entries(journal_dir) == []
    assert "establish control" in read_output("netperf_no_server.txt")


@needs_netperf
def test_agent_vs_netperf_smoke(journal_dir):
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "agent_vs_netperf.py"
    out = subprocess.run([sys.executable, str(script), "--smoke", "--journal-dir", str(journal_dir)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line.split() for line in out.stdout.splitlines() if line.startswith("TCP_")}
    assert lines["TCP_STREAM"][1] == "Gbit/s" and float(lines["TCP_STREAM"][4]) > 0
    assert lines["TCP_RR"][1] == "\u00b5s" and float(lines["TCP_RR"][2]) > 0
    assert read_entries(journal_dir) == []


def test_agent_large_payloads_arrive_in_pieces():
    with AgentServer() as server:
        host, port = server.address
        r = client_rr(host, port, 0.3, request=200_000, response=300_000)  # more than one recv each way
        with pytest.raises(ValueError):
            client_rr(host, port, 0.1, request=0)
    assert r["transactions"] > 0 and (r["request"], r["response"]) == (200_000, 300_000)
    assert 0 < r["p50_latency_us"] <= r["p90_latency_us"] <= r["p99_latency_us"]


_VANISHED_PEER = """
import socket, subprocess, sys, time
from nicadvisor.bench.agent import kernel_timeouts
listener = socket.create_server(("127.0.0.1", 0))
client = socket.create_connection(listener.getsockname())
server, _ = listener.accept()
kernel_timeouts(client, 2.0)
assert client.gettimeout() is None and client.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16) == bytes(16)
assert client.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
subprocess.run(["ip", "link", "set", "lo", "down"], check=True)  # the peer vanishes: nothing crosses any more
started = time.monotonic()
try:
    client.recv(1)
except OSError as exc:
    print("ended", type(exc).__name__, exc.errno, flush=True)
"""


@needs_root
@pytest.mark.root
def test_agent_kernel_timeouts_end_a_vanished_peer_without_a_receive_timer(tmp_path):
    """The agent's sockets have no Python timeout and no SO_RCVTIMEO (a timer armed at every blocking receive costs
    about 0.4 µs per transaction, benchmarks/README.md); a peer that vanishes (here: the namespace's loopback set down
    under an open connection) still ends a blocked receive, through TCP keepalive, with an OSError."""
    ns = f"nicadv-{os.getpid()}-ka"
    subprocess.run(["ip", "netns", "add", ns], check=True, timeout=20)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True, timeout=20)
        got = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", _VANISHED_PEER], capture_output=True,
                             text=True, timeout=60)
    finally:
        subprocess.run(["ip", "netns", "del", ns], timeout=20)
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("ended TimeoutError 110"), got.stdout  # ETIMEDOUT: keepalive gave up


def test_agent_rr_payload_in_process_mode(journal_dir):
    with Journal(journal_dir) as journal:
        r = run_agent("TCP_RR", journal, duration_s=0.5, payload=4096)
        with pytest.raises(ValueError):
            run_agent("TCP_RR", journal, payload=0)
    assert r.payload_bytes == 4096 and "--request 4096 --response 4096" in r.command
    assert r.p99_latency_us >= r.p50_latency_us > 0 and r.one_way_us == pytest.approx(r.rtt_us / 2)
    assert read_entries(journal_dir) == []


def test_a_udp_stream_that_lost_every_datagram_reports_100_percent_loss(journal_dir):
    """Benchmark review: a UDP_STREAM whose datagrams all died on the path reported ``loss_pct`` 0 (iperf3 writes
    ``lost_percent`` 0 when no datagram arrived to count loss from). Real iperf3 between two namespaces whose
    receiving veth's MTU (1000 bytes) is below the 1400-byte datagrams: none arrives, the loss is 100 %."""
    from nicadvisor.bench import iperf3 as iperf3_mod
    from nicadvisor.bench.netns import can_create, create_pair, destroy_pair
    from nicadvisor.bench.sysutil import run_cmd

    if can_create():
        pytest.fail(f"the CI runner must be able to create network namespaces: {can_create()}")
    with Journal(journal_dir) as journal:
        pair = create_pair(journal)
        try:
            assert run_cmd(["ip", "-n", pair.server_ns, "link", "set", "dev", pair.server_if, "mtu", "1000"]).ok
            udp = iperf3_mod.run_iperf3("UDP_STREAM", journal, endpoints=pair.endpoints(), duration_s=1, payload=1400)
            assert udp.throughput_gbps == 0 and udp.loss_pct == 100.0
        finally:
            destroy_pair(pair, journal)
