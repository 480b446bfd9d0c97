"""The test catalogue: profiles as the reference documents run them, which tool can measure what, and real runs
of netperf, iperf3 and the agent on loopback (1 s each). No timing is asserted: only that the figures came
back, are consistent with each other and with the tool's own output, and that nothing is left running."""
from __future__ import annotations

import dataclasses
import shutil
import statistics

import pytest

from benchtools import my_children
from nicadvisor.bench.catalogue import (
    DEFAULT_STREAMS, QUICK_BUDGET_S, SWEEP_PAYLOADS, TestSpec, bidirectional_spec, estimated_seconds, full_profile,
    not_measurable_result, payload_sweep, quick_profile, rr_spec, run_spec, tools_for, udp_spec, why_not,
)
from nicadvisor.bench.journal import Journal, read_entries
from nicadvisor.bench.netperf import parse_omni
from nicadvisor.bench.results import CATALOGUE_FIELDS, BenchResult

needs_netperf = pytest.mark.skipif(shutil.which("netperf") is None, reason="netperf not installed")
needs_iperf3 = pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 not installed")

# vmfex-vs-vswitch-netperf.txt Table 3, "Payload (Bytes)" column
TABLE3_PAYLOADS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]


def test_quick_profile_is_the_four_tests_and_fits_a_minute():
    specs = quick_profile()
    assert [(s.test, s.payload, s.streams, s.direction) for s in specs] == [
        ("TCP_STREAM", 65536, 1, "send"), ("TCP_RR", 1, 1, "send"), ("TCP_CRR", 1, 1, "send"),
        ("UDP_STREAM", 1400, 1, "send")]
    assert all(s.duration_s == 10 and s.repetitions == 1 and s.source for s in specs)
    assert estimated_seconds(specs) < QUICK_BUDGET_S == 60
    assert estimated_seconds(quick_profile(duration_s=20)) > QUICK_BUDGET_S  # the estimate follows the duration
    assert [s.repetitions for s in quick_profile(duration_s=2, repetitions=3)] == [3, 3, 3, 3]


def test_full_profile_follows_the_references():
    specs = full_profile()
    names = [s.name for s in specs]
    assert len(names) == len(set(names)) == 20
    assert [s.payload for s in specs if s.test == "TCP_RR" and s.direction == "send"] == TABLE3_PAYLOADS
    assert SWEEP_PAYLOADS == tuple(TABLE3_PAYLOADS)
    assert sorted(s.payload for s in specs if s.test == "UDP_STREAM") == [64, 1400]
    assert [s.streams for s in specs if s.test == "TCP_STREAM"] == [1, DEFAULT_STREAMS] == [1, 4]
    bidir = [s for s in specs if s.direction == "bidirectional"]
    assert bidir == [dataclasses.replace(bidirectional_spec(), duration_s=30.0, repetitions=3)]
    argv = bidir[0].netperf_argv("10.0.0.2", 12865)
    tail = argv[argv.index("--"):]
    assert tail[-8:] == ["-r", "8192,8192", "-b", "8", "-s", "262144", "-S", "262144"]  # vmfex Bi-directional
    assert all(s.duration_s == 30 and s.repetitions == 3 for s in specs)
    assert {s.duration_s for s in full_profile(duration_s=5, repetitions=1)} == {5}
    assert "Table 3" in rr_spec(64).source and "vds-ipfix" in udp_spec(64).source


def test_payload_sweep_and_validation():
    sweep = payload_sweep(duration_s=1, repetitions=1, payloads=(1, 8192))
    assert [s.name for s in sweep] == ["TCP_RR 1 B", "TCP_RR 8192 B"]
    argv = sweep[1].netperf_argv("h", 1)
    assert argv[argv.index("-r") + 1] == "8192,8192" and {"-j", "-c", "-C"} <= set(argv[:argv.index("--")])
    for bad in ({"duration_s": 0}, {"repetitions": 0}, {"payloads": (0,)}):
        with pytest.raises(ValueError):
            payload_sweep(**{"duration_s": 1, "repetitions": 1, **bad})
    with pytest.raises(ValueError):
        TestSpec("x", "UDP_STREAM", direction="bidirectional").validate()
    with pytest.raises(ValueError):
        TestSpec("x", "SCTP_RR").validate()


def test_which_tool_can_measure_what():
    rr, crr, udp, stream, stream4 = rr_spec(1), quick_profile()[2], udp_spec(64), quick_profile()[0], full_profile()[1]
    bidir = bidirectional_spec()
    assert all(why_not(s, "netperf") is None for s in (rr, crr, udp, stream, stream4, bidir))
    assert why_not(rr, "iperf3") == ("not measurable with iperf3: iperf3 has no request/response or "
                                     "connect/request/response/close test")
    assert why_not(crr, "iperf3").startswith("not measurable with iperf3: ")
    assert why_not(udp, "agent").startswith("not measurable with agent: ")
    assert why_not(stream4, "agent") == "not measurable with agent: the built-in agent serves one connection at a time"
    assert why_not(bidir, "agent") == "not measurable with agent: the built-in agent sends in one direction only"
    assert tools_for(rr) == ("netperf", "agent")
    assert tools_for(udp) == ("netperf", "iperf3")
    assert tools_for(stream) == ("netperf", "iperf3", "agent")
    assert tools_for(bidir) == ("netperf", "iperf3")
    assert tools_for(crr) == ("netperf",)
    with pytest.raises(ValueError):
        why_not(rr, "ttcp")


def test_not_measurable_is_a_result_without_figures(journal_dir):
    with Journal(journal_dir) as journal:
        r = run_spec(dataclasses.replace(rr_spec(1), duration_s=1), "iperf3", journal)
    assert my_children("iperf3") == set()  # nothing was started
    assert r.not_measurable.startswith("not measurable with iperf3") and not r.measured
    figures = ("throughput_gbps", "transactions_per_s", "latency_us", "p50_latency_us", "p99_latency_us", "rtt_us",
               "one_way_us", "loss_pct", "local_cpu_pct")
    assert all(getattr(r, f) is None for f in figures)
    assert r.comparison() == r.not_measurable and r.to_dict()["not_measurable"] == r.not_measurable
    assert not_measurable_result(udp_spec(64), "agent").tool == "agent"


def test_old_positional_results_still_build():
    old = BenchResult("TCP_RR", "netperf", "loopback", None, 20000.0, 50.0, 1.0, None, "raw", "netperf ...")
    assert old.measured and old.streams == 1 and old.repetitions == 1 and old.p99_latency_us is None
    d = old.to_dict()
    assert set(CATALOGUE_FIELDS) <= set(d) and d["not_measurable"] == ""
    legacy = {k: v for k, v in d.items() if k not in CATALOGUE_FIELDS}  # a document stored before the catalogue
    assert BenchResult(**legacy) == old


@needs_netperf
def test_quick_profile_with_netperf(journal_dir):
    with Journal(journal_dir) as journal:
        stream, rr, crr, udp = [run_spec(s, "netperf", journal) for s in quick_profile(duration_s=1)]
    assert stream.throughput_gbps > 0 and stream.p50_latency_us is None and stream.rtt_us is None
    for r in (rr, crr):
        assert r.transactions_per_s > 0 and r.spec and r.repetitions == 1
        assert r.p50_latency_us <= r.p90_latency_us <= r.p99_latency_us
        assert r.mean_latency_us > 0
        assert r.rtt_us == pytest.approx(1e6 / r.transactions_per_s) == pytest.approx(r.latency_us)
        assert r.one_way_us == pytest.approx(r.rtt_us / 2)
        values = parse_omni(r.raw)
        assert float(values["P90_LATENCY"]) == r.p90_latency_us  # read from netperf's own output
    assert "-r 1,1" in crr.command and "-m 1400" in udp.command and "-m 65536" in stream.command
    values = parse_omni(udp.raw)
    sent, received = float(values["LOCAL_SEND_CALLS"]), float(values["REMOTE_RECV_CALLS"])
    assert udp.loss_pct == pytest.approx(100 * (sent - received) / sent) and 0 <= udp.loss_pct < 100
    for r in (stream, rr, udp):
        assert r.local_cpu_pct is None or 0 <= r.local_cpu_pct <= 100
    assert any(r.local_cpu_pct is not None for r in (stream, rr, udp))  # netperf -c reports it on Linux
    assert read_entries(journal_dir) == []
    assert my_children("netserver", "netperf") == set()


@needs_netperf
def test_netperf_streams_bidirectional_and_repetitions(journal_dir):
    with Journal(journal_dir) as journal:
        multi = run_spec(dataclasses.replace(full_profile()[1], streams=2, duration_s=1, repetitions=1), "netperf",
                         journal)
        bidir = run_spec(dataclasses.replace(bidirectional_spec(), duration_s=1), "netperf", journal)
        twice = run_spec(TestSpec("TCP_RR 64 B", "TCP_RR", payload=64, repetitions=2, duration_s=1), "netperf",
                         journal)
    assert multi.streams == 2 and "# stream 2" in multi.raw and "(x2 concurrent)" in multi.command
    per_stream = [float(block.split("REMOTE_RECV_THROUGHPUT=")[1].split()[0]) for block in multi.raw.split("# stream")[1:]]
    assert multi.throughput_gbps == pytest.approx(sum(per_stream) / 1e3)  # 10^6 bit/s → Gbit/s, summed
    values = parse_omni(bidir.raw)
    assert bidir.direction == "bidirectional" and values["BURST_SIZE"] == "8"
    assert bidir.throughput_gbps == pytest.approx(
        (float(values["LOCAL_SEND_THROUGHPUT"]) + float(values["LOCAL_RECV_THROUGHPUT"])) / 1e3)
    assert bidir.rtt_us == pytest.approx(9e6 / bidir.transactions_per_s)  # 1 + 8 transactions in flight
    assert bidir.latency_us == bidir.rtt_us and bidir.one_way_us == pytest.approx(bidir.rtt_us / 2)
    assert twice.repetitions == 2 and "# repetition 2/2" in twice.raw
    runs = [parse_omni(block) for block in twice.raw.split("# repetition")[1:]]
    assert [r["REQUEST_SIZE"] for r in runs] == ["64", "64"]
    assert twice.transactions_per_s == pytest.approx(statistics.mean(float(r["TRANSACTION_RATE"]) for r in runs))
    assert twice.p99_latency_us == pytest.approx(statistics.mean(float(r["P99_LATENCY"]) for r in runs))
    assert read_entries(journal_dir) == []
    assert my_children("netserver", "netperf") == set()


@needs_iperf3
def test_iperf3_fallbacks(journal_dir):
    with Journal(journal_dir) as journal:
        udp = run_spec(dataclasses.replace(udp_spec(64), duration_s=1), "iperf3", journal)
        multi = run_spec(dataclasses.replace(full_profile()[1], duration_s=1, repetitions=1), "iperf3", journal)
        bidir = run_spec(dataclasses.replace(bidirectional_spec(), duration_s=1), "iperf3", journal)
    assert "-l 64" in udp.command and udp.loss_pct is not None and 0 <= udp.loss_pct <= 100
    assert udp.payload_bytes == 64 and udp.throughput_gbps > 0
    assert "-P 4" in multi.command and multi.streams == 4 and multi.throughput_gbps > 0
    assert "--bidir" in bidir.command and bidir.direction == "bidirectional" and bidir.spec == "bidirectional"
    assert '"sum_received_bidir_reverse"' in bidir.raw and bidir.rtt_us is None
    assert all(r.local_cpu_pct is not None for r in (udp, multi, bidir))  # iperf3 always reports its CPU
    assert read_entries(journal_dir) == []
    assert my_children("iperf3") == set()


def test_agent_payload_sweep(journal_dir):
    with Journal(journal_dir) as journal:
        results = [run_spec(s, "agent", journal) for s in payload_sweep(duration_s=0.5, repetitions=1,
                                                                         payloads=(1, 1024))]
        udp = run_spec(dataclasses.replace(udp_spec(1400), duration_s=1), "agent", journal)
    for r, size in zip(results, (1, 1024)):
        assert r.tool == "agent" and r.payload_bytes == size and f'"request": {size}' in r.raw
        assert f"--request {size} --response {size}" in r.command
        assert 0 < r.p50_latency_us <= r.p90_latency_us <= r.p99_latency_us
        assert r.rtt_us == pytest.approx(1e6 / r.transactions_per_s) and r.one_way_us == pytest.approx(r.rtt_us / 2)
    assert udp.not_measurable.startswith("not measurable with agent")
    assert read_entries(journal_dir) == []
