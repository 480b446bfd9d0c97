"""The pure expected-value model."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import nicadvisor.bench.expected as expected_mod
from nicadvisor.bench.expected import (
    expected_for, expected_rr, expected_stream, tcp_goodput_fraction, udp_goodput_fraction,
)
from nicadvisor.bench.results import BenchReport, BenchResult, Expected


def test_rr_expectation_is_vswitch_table3_doubled():
    e = expected_rr("TCP_RR")
    assert e.value == pytest.approx(46.94)  # 2 x 23.47 µs (vmfex Table 3, 1 byte)
    assert e.unit == "\u00b5s"
    assert "vmfex-vs-vswitch-netperf.txt" in e.basis and "Table 3" in e.basis
    assert expected_rr("TCP_RR", request_bytes=1024).value == pytest.approx(50.06)
    assert expected_rr("TCP_RR", request_bytes=1000).value == pytest.approx(50.06)  # next table row up
    assert expected_rr("TCP_RR", request_bytes=100000).value == pytest.approx(75.44)


def test_rr_with_nsx_features_adds_upper_bounds():
    e = expected_rr("TCP_RR", nsx_features=("dfw", "overlay", "dlr"))
    assert e.value == pytest.approx(46.94 + 15.7 + 10 + 14)
    assert "nsx-latency-part1-dfw.txt" in e.basis and "nsx-latency-part2-vxlan-dlr.txt" in e.basis
    with pytest.raises(ValueError):
        expected_rr("TCP_RR", nsx_features=("ipsec",))


def test_crr_has_no_text_reference():
    assert expected_rr("TCP_CRR") is None
    assert expected_for("TCP_CRR", "netns") is None


def test_stream_shaped_by_tbf():
    e = expected_stream("TCP_STREAM", rate_mbit=50)
    assert e.unit == "Gbit/s"
    assert e.value == pytest.approx(0.050 * 1448 / 1514)  # 0.0478 Gbit/s
    assert "tbf rate 50 Mbit/s" in e.basis and "nsx-t-performance-on-intel.txt" in e.basis
    assert expected_stream("TCP_STREAM", rate_mbit=50, mtu=9000).value == pytest.approx(0.050 * 8948 / 9014)
    assert expected_stream("UDP_STREAM", rate_mbit=100).value == pytest.approx(0.100 * 1400 / (1428 + 14))


def test_stream_on_a_link_counts_wire_framing():
    e = expected_stream("TCP_STREAM", link_speed_mbps=10000, mtu=9000)
    assert e.value == pytest.approx(10 * 8948 / 9038)  # 9.90 Gbit/s; vmfex Table 1 measured 9.80
    assert "link speed 10000 Mbit/s" in e.basis


def test_no_line_rate_no_expectation():
    assert expected_for("TCP_STREAM", "loopback") is None
    assert expected_for("TCP_STREAM", "loopback", link_speed_mbps=10000) is None
    assert expected_for("TCP_STREAM", "netns") is None
    assert expected_for("TCP_STREAM", "netns", rate_mbit=50) == expected_stream("TCP_STREAM", rate_mbit=50)
    # request/response on loopback or namespaces: the published figure is of two VMs on a vSwitch, another path
    assert expected_for("TCP_RR", "loopback") is None and expected_for("TCP_RR", "netns") is None


def test_goodput_fractions():
    assert tcp_goodput_fraction(1500, 14) == pytest.approx(1448 / 1514)
    # a 1400-byte datagram at MTU 576 needs 3 fragments of at most 552 payload bytes
    assert udp_goodput_fraction(576, 14) == pytest.approx(1400 / (1408 + 3 * 34))
    with pytest.raises(ValueError):
        tcp_goodput_fraction(60, 14)


def test_expected_module_is_pure():
    tree = ast.parse(Path(expected_mod.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(("." * node.level) + (node.module or ""))
    assert imported <= {"__future__", "math", ".results"}


def test_results_to_dict():
    e = Expected(46.94, "\u00b5s", "basis")
    r = BenchResult("TCP_RR", "netperf", "loopback", None, 20000.0, 50.0, 1.0, e, "raw", "netperf ...")
    d = BenchReport([r], ["p"]).to_dict()
    assert d["problems"] == ["p"]
    assert d["results"][0]["expected"] == {"value": 46.94, "unit": "\u00b5s", "basis": "basis"}
    assert d["results"][0]["transactions_per_s"] == 20000.0
    with pytest.raises(AttributeError):
        r.test = "x"  # frozen


def test_comparisons_read_the_same_way_for_every_test():
    from nicadvisor.bench.results import Expected, compare

    gbps, us = Expected(10.0, "Gbit/s", "x"), Expected(50.0, "µs", "x")
    assert compare(9.5, gbps) == "within 10 % of expected"
    assert compare(6.5, gbps) == "35 % below expected"
    assert compare(71.0, us) == "42 % slower than expected"  # lower is better: never "142 %"
    assert compare(30.0, us) == "40 % faster than expected"
    assert compare(5.0, None) == "no expectation for this path"
