"""Pure parsers of tool output, on outputs recorded from real runs on this machine (tests/bench/data,
each headed by # source/# command/# note lines)."""
from __future__ import annotations

import json

import pytest

from benchtools import read_output
from nicadvisor.bench.agent import latency_stats, parse_client_output, percentile
from nicadvisor.bench.iperf3 import client_argv, load_json, parse_iperf3
from nicadvisor.bench.netperf import (
    LEGACY_SELECTORS, SELECTORS, combine_streams, netperf_argv, omni_figures, omni_measures, parse_omni, udp_loss_pct,
)
from nicadvisor.bench.results import rtt_figures


def test_netperf_tcp_rr_omni_csv():
    values = parse_omni(read_output("netperf_tcp_rr_omni.txt"))
    assert values["THROUGHPUT_UNITS"] == "Trans/s"
    assert values["TRANSACTION_RATE"] == "24816.193"
    assert values["MEAN_LATENCY"] == "40.25"
    assert values["DIRECTION"] == "Send|Recv"
    gbps, tps, lat = omni_figures(values, "TCP_RR")
    assert gbps is None
    assert tps == pytest.approx(24816.193)
    assert lat == pytest.approx(1e6 / 24816.193)  # 40.30 µs


def test_netperf_tcp_stream_with_banner_and_column_names():
    values = parse_omni(read_output("netperf_tcp_stream_banner.txt"))
    assert values["THROUGHPUT"] == "40054.97"
    assert values["THROUGHPUT_UNITS"] == "10^6bits/s"
    assert values["PROTOCOL"] == "TCP"
    assert omni_figures(values, "TCP_STREAM") == (pytest.approx(40.05497), None, None)


def test_netperf_tcp_crr():
    values = parse_omni(read_output("netperf_tcp_crr_omni.txt"))
    assert values["DIRECTION"] == "Connect|Send|Recv"
    _, tps, lat = omni_figures(values, "TCP_CRR")
    assert tps == pytest.approx(19403.506)
    assert lat == pytest.approx(51.536, abs=0.01)


def test_netperf_udp_stream_keyval_uses_received_rate():
    values = parse_omni(read_output("netperf_udp_stream_keyval.txt"))
    assert values["LOCAL_SEND_THROUGHPUT"] == "2900.54"
    assert values["REMOTE_RECV_THROUGHPUT"] == "2473.82"
    gbps, tps, lat = omni_figures(values, "UDP_STREAM")
    assert gbps == pytest.approx(2.47382)
    assert tps is None and lat is None


def test_netperf_without_server_gives_nothing():
    text = read_output("netperf_no_server.txt")
    assert "establish control" in text
    assert parse_omni(text) == {}
    assert omni_figures({}, "TCP_RR") == (None, None, None)
    assert omni_figures({}, "TCP_STREAM") == (None, None, None)


def test_a_sender_whose_peer_received_nothing_measured_nothing():
    """Benchmark review: with REMOTE_RECV_THROUGHPUT=0.00 after the sender sent (a broken or fake netperf), the
    send-side THROUGHPUT was reported and passed its band. The fallback is for the receive direction only, where
    netperf prints REMOTE_RECV_THROUGHPUT=0.00 and LOCAL_SEND_CALLS=0 (as this machine's netperf 2.7 does for
    ``-d recv``); non-finite figures are none."""
    sent = parse_omni("THROUGHPUT=180\nTHROUGHPUT_UNITS=10^6bits/s\nREMOTE_RECV_THROUGHPUT=0.00\n"
                      "LOCAL_SEND_CALLS=100\nREMOTE_RECV_CALLS=0\n")
    assert omni_figures(sent, "TCP_STREAM") == (0.0, None, None)
    received = parse_omni("THROUGHPUT=41591.24\nTHROUGHPUT_UNITS=10^6bits/s\nREMOTE_RECV_THROUGHPUT=0.00\n"
                          "REMOTE_RECV_CALLS=0\nLOCAL_SEND_CALLS=0\nLOCAL_RECV_CALLS=85946\nDIRECTION=Receive\n")
    assert omni_figures(received, "TCP_STREAM")[0] == pytest.approx(41.59124)
    assert omni_figures(parse_omni("THROUGHPUT=inf\nTHROUGHPUT_UNITS=10^6bits/s\n"), "TCP_STREAM")[0] is None
    assert omni_figures(parse_omni("TRANSACTION_RATE=inf\n"), "TCP_RR") == (None, None, None)


@pytest.mark.parametrize("junk", ["", "garbage,,,", "1,2,3", "THROUGHPUT=abc\nTHROUGHPUT_UNITS=furlongs", "\x00\xff"])
def test_netperf_parser_never_raises(junk):
    values = parse_omni(junk)
    assert omni_figures(values, "TCP_STREAM")[0] is None
    assert omni_figures(values, "TCP_RR")[1] is None


def test_netperf_argv_shapes():
    argv = netperf_argv("TCP_STREAM", "10.213.0.2", 12865, 1.6)
    assert argv[:11] == ["netperf", "-H", "10.213.0.2", "-p", "12865", "-t", "TCP_STREAM", "-l", "2", "-P", "0"]
    assert argv[-2:] == ["-m", "65536"] and ",".join(SELECTORS) in argv
    assert netperf_argv("TCP_RR", "h", 1, 0.2)[-2:] == ["-r", "1,1"]
    assert netperf_argv("TCP_RR", "h", 1, 0.2)[8] == "1"  # at least one second
    assert netperf_argv("UDP_STREAM", "h", 1, 1)[-2:] == ["-m", "1400"]
    with pytest.raises(ValueError):
        netperf_argv("SCTP_RR", "h", 1, 1)


def test_iperf3_tcp_json():
    parsed = parse_iperf3(read_output("iperf3_tcp.json.txt"))
    assert parsed["protocol"] == "TCP"
    assert parsed["gbps"] == pytest.approx(36.897396980563049)
    assert parsed["seconds"] == pytest.approx(1.000054)
    assert parsed["retransmits"] == 23
    assert parsed["error"] is None


def test_iperf3_udp_json_uses_sum_received():
    parsed = parse_iperf3(read_output("iperf3_udp.json.txt"))
    assert parsed["protocol"] == "UDP"
    assert parsed["gbps"] == pytest.approx(3.810975939010561)
    assert parsed["lost_percent"] == pytest.approx(3.215961773656816)


def test_iperf3_udp_without_sum_received_falls_back_to_sum_minus_loss():
    # the same real document with sum_received removed, as iperf3 versions without UDP sum_received write it
    doc = load_json(read_output("iperf3_udp.json.txt"))
    del doc["end"]["sum_received"]
    total = doc["end"]["sum"]["bits_per_second"]
    parsed = parse_iperf3(json.dumps(doc))
    assert parsed["gbps"] == pytest.approx(total * (1 - 3.215961773656816 / 100) / 1e9)


def test_iperf3_error_object_and_prose_around_json():
    parsed = parse_iperf3(read_output("iperf3_refused.json.txt"))
    assert parsed["gbps"] is None
    assert parsed["error"] == "unable to connect to server: Connection refused"
    # ESXi prints warnings before the JSON (nic-data-sources.md §12): skipped
    prefixed = "iperf3: getsockopt - Function not implemented\n" + read_output("iperf3_tcp.json.txt")
    assert parse_iperf3(prefixed)["gbps"] == pytest.approx(36.897396980563049)
    assert parse_iperf3("no json here")["error"] == "no JSON object in iperf3 output"
    assert parse_iperf3("{ truncated")["gbps"] is None


def test_iperf3_argv_shapes():
    assert client_argv("UDP_STREAM", "h", 5201, 2)[-5:] == ["-J", "-u", "-b", "0", "-l", "1400"][-5:]
    assert client_argv("TCP_STREAM", "h", 5201, 2) == ["iperf3", "-c", "h", "-p", "5201", "-t", "2", "-J"]
    with pytest.raises(ValueError):
        client_argv("TCP_RR", "h", 1, 1)


def test_agent_client_output_last_json_line():
    out = 'noise\n{"test": "TCP_RR", "transactions_per_s": 1000.0}\n'
    assert parse_client_output(out) == {"test": "TCP_RR", "transactions_per_s": 1000.0}
    assert parse_client_output("agent error: refused") is None
    assert parse_client_output("{broken") is None


def test_netperf_measures_from_the_legacy_rr_output():
    text = read_output("netperf_tcp_rr_omni.txt")
    assert parse_omni(text) == parse_omni(text, LEGACY_SELECTORS)  # 11 columns: recognised without being told
    m = omni_measures(parse_omni(text), "TCP_RR")
    assert (m["mean_latency_us"], m["p50_latency_us"], m["p99_latency_us"]) == (40.25, 47.0, 64.0)
    assert m["p90_latency_us"] is None  # not requested by the first driver
    assert m["rtt_us"] == pytest.approx(1e6 / 24816.193) and m["one_way_us"] == pytest.approx(m["rtt_us"] / 2)
    assert m["loss_pct"] is None and m["local_cpu_pct"] is None and m["duration_s"] == 1.0


def test_netperf_stream_measures_have_no_transaction_latency():
    m = omni_measures(parse_omni(read_output("netperf_udp_stream_keyval.txt")), "UDP_STREAM")
    assert m["throughput_gbps"] == pytest.approx(2.47382)
    assert m["p50_latency_us"] is None and m["rtt_us"] is None  # -j times the send calls of a stream test
    assert udp_loss_pct(parse_omni(read_output("netperf_udp_stream_keyval.txt"))) is None  # no call counts kept


def test_combine_streams_sums_rates_and_averages_the_rest():
    a = omni_measures(parse_omni(read_output("netperf_tcp_rr_omni.txt")), "TCP_RR")
    b = omni_measures(parse_omni(read_output("netperf_tcp_crr_omni.txt")), "TCP_CRR")
    both = combine_streams([a, b])
    assert both["transactions_per_s"] == pytest.approx(24816.193 + 19403.506)
    assert both["p50_latency_us"] == pytest.approx((47 + 47) / 2) and both["p99_latency_us"] == pytest.approx(75)
    assert both["p90_latency_us"] is None and both["duration_s"] == 1.0
    assert combine_streams([a]) == a
    with pytest.raises(ValueError):
        combine_streams([])


def test_netperf_argv_for_the_catalogue():
    argv = netperf_argv("TCP_RR", "h", 1, 10, payload=512)
    globals_ = argv[argv.index("-P") + 2:argv.index("--")]
    assert globals_ == ["-j", "-c", "-C"]  # percentiles need -j; CPU needs -c/-C
    assert argv[argv.index("--") + 1:argv.index("--") + 3] == ["-k", ",".join(SELECTORS)]
    assert argv[-2:] == ["-r", "512,512"]
    assert netperf_argv("UDP_STREAM", "h", 1, 1, payload=64)[-2:] == ["-m", "64"]
    assert netperf_argv("TCP_RR", "h", 1, 1, payload=8192, extra=("-b", "8"))[-4:] == ["-r", "8192,8192", "-b", "8"]
    for selector in ("P90_LATENCY", "LOCAL_SEND_CALLS", "REMOTE_RECV_CALLS", "LOCAL_CPU_UTIL", "BURST_SIZE"):
        assert selector in SELECTORS
    with pytest.raises(ValueError):
        netperf_argv("TCP_RR", "h", 1, 1, payload=0)


def test_rtt_and_one_way_as_the_reference_computes():
    # vmfex-vs-vswitch-netperf.txt "TCP Latency Performance": Latency = (1000000 / TCP_RR_transactions) / 2
    assert rtt_figures(20000.0) == (50.0, 25.0)
    assert rtt_figures(140000.0, in_flight=9) == (pytest.approx(64.2857, abs=1e-3), pytest.approx(32.1428, abs=1e-3))
    assert rtt_figures(None) == (None, None) and rtt_figures(0.0) == (None, None)


def test_agent_latency_statistics():
    times = list(range(1000, 101000, 1000))  # 1..100 µs in ns
    assert percentile(times, 50) == 50000 and percentile(times, 90) == 90000 and percentile(times, 99) == 99000
    stats = latency_stats(times)
    assert stats == {"mean_latency_us": 50.5, "p50_latency_us": 50.0, "p90_latency_us": 90.0, "p99_latency_us": 99.0}
    assert latency_stats([]) == {k: None for k in stats}
    with pytest.raises(ValueError):
        percentile([], 50)


def test_iperf3_cpu_and_catalogue_options():
    parsed = parse_iperf3(read_output("iperf3_tcp.json.txt"))
    assert parsed["local_cpu_pct"] == pytest.approx(96.363331523648327)
    assert parsed["remote_cpu_pct"] == pytest.approx(43.964118188790486)
    assert parsed["reverse_gbps"] is None
    assert client_argv("UDP_STREAM", "h", 1, 1, payload=64)[-2:] == ["-l", "64"]
    assert client_argv("TCP_STREAM", "h", 1, 1, payload=65536, streams=4, bidirectional=True)[-5:] == [
        "-l", "65536", "-P", "4", "--bidir"]
    for bad in ({"payload": 0}, {"streams": 0}):
        with pytest.raises(ValueError):
            client_argv("TCP_STREAM", "h", 1, 1, **bad)
