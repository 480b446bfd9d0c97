"""First expected-value model for the quick benchmark. PURE: no subprocess, no I/O.

Stream tests (Gbit/s, a ceiling the result should come close to):
    the line rate of the path (the tbf rate when shaped, else the pNIC link speed when known) times
    the TCP or UDP goodput fraction of a full-size frame. The references show that a well-configured
    host reaches that ceiling: 9.80 Gbit/s of one TCP stream on 10 GbE with 9000 MTU
    (vmfex-vs-vswitch-netperf.txt, "Uni-directional TCP Performance", Table 1) and NSX-T "close to
    line rate" on a 40 Gbit/s XL710 (nsx-t-performance-on-intel.txt, §1.11 Results, Figure 24).
    Loopback and an unshaped veth have no line rate (memory copies, CPU-bound: 19-25 Gbit/s on this
    2-vCPU VM, performance-baselines.md §2.2, a figure of this machine only), so they get no
    expectation (None).

Request/response tests (µs, a round-trip time the result should not exceed by much):
    the VMware vSwitch VM-to-VM netperf TCP_RR latency of vmfex-vs-vswitch-netperf.txt, "TCP Latency
    Performance", Table 3 (two ESXi hosts, one 10 GbE switch, RHEL 6.2 VMs tuned for low latency).
    That paper reports ``(1e6 / transactions) / 2``, i.e. half the round trip, so the table values
    are doubled here: 23.47 µs for 1 byte → 46.94 µs RTT. A loopback or veth path has neither wire
    nor hypervisor hop, so its RTT should be at or below that. NSX features add (upper bounds used):
    DFW 13.3-15.7 µs (nsx-latency-part1-dfw.txt, "Bottom line", 100 rules per VM), VXLAN
    encapsulation 3-10 µs and DLR 8-14 µs (nsx-latency-part2-vxlan-dlr.txt, "Bottom line" items 1-2;
    all together 24-40 µs). TCP_CRR has no numeric reference in text (VM-FEX Figure 11 is an image):
    None.
"""
from __future__ import annotations

import math

from .results import Expected

MICRO = "\u00b5s"
GBPS = "Gbit/s"

#: vmfex-vs-vswitch-netperf.txt, "TCP Latency Performance", Table 3, VMware vSwitch column:
#: payload bytes → reported latency in µs (= RTT / 2 by the paper's own formula).
VSWITCH_RR_HALF_RTT_US: dict[int, float] = {
    1: 23.47, 2: 23.40, 4: 23.90, 8: 23.41, 16: 23.44, 32: 23.48, 64: 23.71, 128: 23.84, 256: 23.98,
    512: 24.79, 1024: 25.03, 2048: 26.61, 4096: 31.46, 8192: 37.72,
}

#: Added RTT in µs (low, high) per NSX feature: nsx-latency-part1-dfw.txt "Bottom line" (dfw),
#: nsx-latency-part2-vxlan-dlr.txt "Bottom line" items 1-2 (dlr, overlay = VXLAN encapsulation).
NSX_ADDED_RTT_US: dict[str, tuple[float, float]] = {
    "dfw": (13.3, 15.7),
    "overlay": (3.0, 10.0),
    "dlr": (8.0, 14.0),
}
_NSX_SOURCE = {
    "dfw": "nsx-latency-part1-dfw.txt 'Bottom line'",
    "overlay": "nsx-latency-part2-vxlan-dlr.txt 'Bottom line' item 2",
    "dlr": "nsx-latency-part2-vxlan-dlr.txt 'Bottom line' item 1",
}

IPV4_HEADER = 20
TCP_HEADER_WITH_TIMESTAMPS = 32  # 20 bytes + 12 bytes of timestamp option (Linux default)
UDP_HEADER = 8
ETH_HEADER = 14  # what tbf on a veth counts per packet (skb length includes the Ethernet header)
WIRE_OVERHEAD = 38  # Ethernet header 14 + FCS 4 + preamble/SFD 8 + inter-frame gap 12
UDP_DATAGRAM = 1400  # the datagram size both drivers send (netperf -m 1400, iperf3 -l 1400)


def tcp_goodput_fraction(mtu: int, per_frame_overhead: int) -> float:
    """TCP payload bytes per byte on the link for full-size segments: ``(mtu - 52) / (mtu +
    per_frame_overhead)`` (IPv4 20 + TCP 20 + timestamps 12). Raises ValueError for mtu < 100."""
    if mtu < 100:
        raise ValueError(f"MTU {mtu} bytes is too small for a TCP goodput estimate")
    return (mtu - IPV4_HEADER - TCP_HEADER_WITH_TIMESTAMPS) / (mtu + per_frame_overhead)


def udp_goodput_fraction(mtu: int, per_frame_overhead: int, datagram: int = UDP_DATAGRAM) -> float:
    """UDP payload bytes per byte on the link for ``datagram``-byte datagrams, counting IPv4
    fragments when the datagram does not fit ``mtu``. Raises ValueError for mtu < 100."""
    if mtu < 100:
        raise ValueError(f"MTU {mtu} bytes is too small for a UDP goodput estimate")
    ip_payload = datagram + UDP_HEADER
    per_fragment = (mtu - IPV4_HEADER) // 8 * 8
    fragments = max(1, math.ceil(ip_payload / per_fragment))
    return datagram / (ip_payload + fragments * (IPV4_HEADER + per_frame_overhead))


def expected_stream(test: str, *, rate_mbit: int | None = None, link_speed_mbps: int | None = None,
                    mtu: int | None = None) -> Expected | None:
    """Expected received throughput (Gbit/s) of ``test`` (``TCP_STREAM`` or ``UDP_STREAM``).

    ``rate_mbit``: tbf rate of a shaped path (Mbit/s, counted on frames with their Ethernet header);
    ``link_speed_mbps``: pNIC link speed (Mbit/s, on the wire: + FCS, preamble and gap); ``mtu``:
    bytes (default 1500). The tbf rate wins when both are given. None when neither is known.
    """
    mtu = mtu or 1500
    if rate_mbit:
        overhead, rate, what = ETH_HEADER, rate_mbit, f"tc tbf rate {rate_mbit} Mbit/s"
    elif link_speed_mbps:
        overhead, rate, what = WIRE_OVERHEAD, link_speed_mbps, f"link speed {link_speed_mbps} Mbit/s"
    else:
        return None
    if test == "UDP_STREAM":
        frac = udp_goodput_fraction(mtu, overhead)
        kind = f"UDP goodput of {UDP_DATAGRAM}-byte datagrams"
    else:
        frac = tcp_goodput_fraction(mtu, overhead)
        kind = "TCP goodput of full-size segments"
    basis = (f"{what} x {frac:.3f} ({kind} at MTU {mtu}, {overhead} bytes of framing per packet). "
             "A tuned host reaches line rate: 9.80 Gbit/s on 10 GbE (vmfex-vs-vswitch-netperf.txt, "
             "'Uni-directional TCP Performance', Table 1); NSX-T close to line rate on 40 GbE "
             "(nsx-t-performance-on-intel.txt, §1.11 Results)")
    return Expected(value=rate * frac / 1000.0, unit=GBPS, basis=basis)


def expected_rr(test: str = "TCP_RR", *, request_bytes: int = 1,
                nsx_features: tuple[str, ...] = ()) -> Expected | None:
    """Expected round-trip time (µs) of a ``TCP_RR`` with ``request_bytes`` payload, plus the upper
    bound of each NSX feature in ``nsx_features`` (``"dfw"``, ``"overlay"``, ``"dlr"``).

    Uses the smallest Table 3 payload ≥ ``request_bytes`` (8192 above that). None for other tests
    (no text reference for TCP_CRR). Raises ValueError for an unknown NSX feature.
    """
    if test != "TCP_RR":
        return None
    unknown = [f for f in nsx_features if f not in NSX_ADDED_RTT_US]
    if unknown:
        raise ValueError(f"unknown NSX feature(s) {unknown}; known: {sorted(NSX_ADDED_RTT_US)}")
    payload = next((p for p in sorted(VSWITCH_RR_HALF_RTT_US) if p >= request_bytes), 8192)
    half = VSWITCH_RR_HALF_RTT_US[payload]
    value = 2 * half
    basis = (f"VMware vSwitch VM-to-VM netperf TCP_RR, {payload}-byte payload: {half} {MICRO} reported as "
             f"RTT/2, so {value:.2f} {MICRO} round trip (vmfex-vs-vswitch-netperf.txt, 'TCP Latency "
             "Performance', Table 3; two ESXi hosts through one 10 GbE switch). A loopback or veth "
             "path has no wire or hypervisor hop and should not exceed it")
    for f in nsx_features:
        low, high = NSX_ADDED_RTT_US[f]
        value += high
        basis += f"; + {high} {MICRO} for NSX {f} ({low}-{high} {MICRO}, {_NSX_SOURCE[f]})"
    return Expected(value=value, unit=MICRO, basis=basis)


def expected_for(test: str, path: str, *, rate_mbit: int | None = None, link_speed_mbps: int | None = None,
                 mtu: int | None = None, request_bytes: int = 1,
                 nsx_features: tuple[str, ...] = ()) -> Expected | None:
    """The expectation for ``test`` on ``path`` (``"loopback"`` or ``"netns"``), or None.

    Loopback has no line rate, so stream tests on it get None even if ``link_speed_mbps`` is given;
    ``rate_mbit`` only applies to the (shaped) netns path. Request/response tests on loopback or netns get None:
    the published round-trip figures are of another path (two VMs on a vSwitch). See :func:`expected_stream` and
    :func:`expected_rr` for units and sources.
    """
    if test.endswith("_STREAM"):
        if path == "loopback":
            return None
        return expected_stream(test, rate_mbit=rate_mbit, link_speed_mbps=link_speed_mbps, mtu=mtu)
    if path in ("loopback", "netns"):
        # the only round-trip figure (expected_rr) is of two VMs on an ESXi vSwitch: another path. A result is
        # compared only with an expectation for its own path, so these paths get none.
        return None
    return expected_rr(test, request_bytes=request_bytes, nsx_features=nsx_features)
