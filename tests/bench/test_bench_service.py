"""run_quick_bench: tool choice, fallbacks, progress, validation (real runs, 1 s tests)."""
from __future__ import annotations

import os
import threading

import pytest

from nicadvisor.bench import Cancelled
from nicadvisor.bench.journal import read_entries
from nicadvisor.services.bench import BenchRequest, choose_tool, run_quick_bench


def test_agent_on_loopback_with_progress(journal_dir):
    seen: list[tuple[float, str]] = []
    report = run_quick_bench(BenchRequest(tool="agent", duration_s=1), lambda f, m: seen.append((f, m)),
                             journal_dir=journal_dir)
    assert report.problems == []
    assert [(r.test, r.tool, r.path) for r in report.results] == [("TCP_STREAM", "agent", "loopback"),
                                                                 ("TCP_RR", "agent", "loopback")]
    stream, rr = report.results
    assert stream.expected is None  # loopback has no line rate
    assert rr.expected is None  # the only round-trip figure is of another path (two VMs on a vSwitch)
    assert rr.comparison().startswith("no expectation: the published TCP_RR figures are of VMs on two hypervisors")
    assert stream.comparison() == ("no expectation: 127.0.0.1 on the machine running NIC Advisor has no line rate: "
                                   "no throughput is expected of it")
    assert all(r.endpoints.startswith("127.0.0.1 → 127.0.0.1 on ") and "not an audited host" in r.endpoints
               for r in report.results)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert seen[-1][1] == "done" and any("TCP_RR with agent on loopback" in m for _, m in seen)
    assert report.to_dict()["results"][1]["expected"] is None
    assert read_entries(journal_dir) == []


def test_without_netperf_or_iperf3_auto_uses_the_agent(journal_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no tool at all on PATH
    assert choose_tool("TCP_RR", "auto") == ("agent", None)
    assert choose_tool("TCP_STREAM", "netperf") == ("agent", "netperf is not installed; TCP_STREAM runs with agent")
    assert choose_tool("UDP_STREAM", "auto")[0] is None
    report = run_quick_bench(BenchRequest(tests=("TCP_RR", "UDP_STREAM"), duration_s=1), journal_dir=journal_dir)
    assert [(r.test, r.tool) for r in report.results] == [("TCP_RR", "agent")]
    assert report.problems == ["no installed tool can run UDP_STREAM (needs netperf); skipped"]


def test_tool_that_cannot_run_a_test_is_reported(journal_dir):
    assert choose_tool("TCP_RR", "iperf3") == (None, "iperf3 cannot run TCP_RR; skipped")
    assert choose_tool("TCP_CRR", "agent") == (None, "agent cannot run TCP_CRR; skipped")


def test_non_root_netns_falls_back_to_loopback(journal_dir, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    report = run_quick_bench(BenchRequest(path="netns", tests=("TCP_RR",), duration_s=1, tool="agent",
                                          rate_mbit=50), journal_dir=journal_dir)
    assert report.results[0].path == "loopback"
    assert report.problems[0] == ("the netns path needs root (network namespaces and veth pairs); running as uid 1000:"
                                  " falling back to the loopback path")
    assert report.problems[1] == "rate_mbit and mtu apply only to the netns path; ignored on loopback"


def test_cancel_before_start(journal_dir):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        run_quick_bench(BenchRequest(tool="agent"), cancel=cancel, journal_dir=journal_dir)


@pytest.mark.parametrize("kwargs", [{"path": "wan"}, {"tests": ()}, {"tests": ("PING",)}, {"duration_s": 0},
                                    {"tool": "ttcp"}, {"rate_mbit": 0}, {"mtu": 40}])
def test_invalid_request(kwargs, journal_dir):
    with pytest.raises(ValueError):
        run_quick_bench(BenchRequest(**kwargs), journal_dir=journal_dir)


def test_quick_profile_runs_the_catalogue_and_says_what_a_tool_cannot_measure(journal_dir):
    """The quick profile with the agent: TCP_STREAM and TCP_RR measured, TCP_CRR and UDP_STREAM each a result
    that says why the agent cannot run them (never a figure); the run order is the catalogue's."""
    report = run_quick_bench(BenchRequest(tool="agent", duration_s=1, profile="quick"), journal_dir=journal_dir)
    assert report.problems == []
    assert [(r.spec, r.tool) for r in report.results] == [
        ("TCP_STREAM 1 stream", "agent"), ("TCP_RR 1 B", "agent"), ("TCP_CRR 1 B", "agent"),
        ("UDP_STREAM 1400 B", "agent")]
    stream, rr, crr, udp = report.results
    assert stream.measured and stream.throughput_gbps > 0 and stream.payload_bytes == 65536
    assert rr.measured and rr.rtt_us == pytest.approx(1e6 / rr.transactions_per_s)
    for r in (crr, udp):
        assert not r.measured and r.throughput_gbps is None and r.transactions_per_s is None
        assert r.comparison() == r.not_measurable and r.not_measurable.startswith("not measurable with agent:")
    with pytest.raises(ValueError, match="profile"):
        BenchRequest(profile="slow").validate()


def test_cli_profile_takes_its_own_duration_unless_given():
    from nicadvisor import cli

    parser = cli.build_parser()
    seen = [cli._bench_request(parser.parse_args(argv)) for argv in (
        ["bench", "--profile", "full", "--tool", "agent"], ["bench", "--profile", "quick", "--duration", "1",
                                                            "--repetitions", "2"], ["bench"])]
    assert [(r.profile, r.duration_s, r.repetitions) for r in seen] == [("full", 30.0, None), ("quick", 1.0, 2),
                                                                        (None, 2.0, None)]
