"""Expected-performance model v2: cited bands built from the audited facts of both ends. PURE: no I/O.

An expectation is a :class:`Band` (``low`` … ``high`` in ``unit``) with its formula, its sources (``"file
§section"``) and the audited facts that bound it (``limits``). :func:`judge` turns a measured value into
``pass``/``warn``/``fail`` and a sentence read the same way for every test; :func:`explain` adds the audited facts
behind a result that falls short.

Paths (``path=``) — a result is compared only with an expectation for its own path:

* ``loopback``: 127.0.0.1 on the auditor's machine. No line rate, no hypervisor: no expectation (None).
* ``netns``: a veth pair between two namespaces. Only a ``tc tbf``-shaped veth has a line rate (its rate);
  it has no hypervisor hop, so no round-trip expectation.
* ``host-to-host``: two audited hosts' own stacks (Linux hosts, vmk interfaces) through pNICs ``a`` and ``b``:
  line rate, PCIe and MTU only; no encapsulation, no VM round-trip figure: a TCP_RR is judged against the path's
  own ICMP echo round trip measured right before it (``path_rtt``, :mod:`nicadvisor.bench.path_rtt`): the band
  judges what the hosts add to the path, not the path.
* ``vm-to-vm``: VMs on two hypervisors through pNICs ``a`` (sender) and ``b`` (receiver), encapsulated when the
  ends say so. The references' path: everything below applies.

Wire arithmetic (bytes; sources in :data:`FRAMING_SOURCES`)::

    on the wire per frame  = MTU + 14 Ethernet header + 4 FCS + 8 preamble/SFD + 12 inter-frame gap = MTU + 38
    TCP payload per frame  = MTU - 20 IPv4 - 20 TCP - 12 timestamps option (10 + 2 NOP) = MTU - 52
    overlay (IPv4 TEPs)    : the inner Ethernet frame (inner MTU + 14) rides in outer IPv4 20 + UDP 8 +
                             Geneve 8 (+ options) = inner MTU + 50 (+ options) ≤ underlay MTU; the outer
                             Ethernet header 14 + FCS 4 + preamble 8 + gap 12 = 38 come on top
    TCP goodput fraction   = (inner MTU - 52) / (inner MTU + 50 (+ options) + 38)       (50 → 0 without overlay)

    MTU    no overlay               Geneve, inner MTU = MTU - 50     Geneve, VM MTU 1500
    1500   1448 / 1538 = 0.9415     1398 / 1538 = 0.9090             (does not fit: 1550 > 1500)
    1600   1548 / 1638 = 0.9451     1498 / 1638 = 0.9145             1448 / 1588 = 0.9118
    9000   8948 / 9038 = 0.9900     8898 / 9038 = 0.9845             1448 / 1588 = 0.9118

VXLAN's header is also 8 bytes (RFC 7348 §5), so its overhead is the same 50 bytes, without options. Geneve
options are not counted (their length is not audited; NSX-T asks for at least 200 bytes of headroom for them,
nsx-t-performance-on-intel.txt "Jumbo MTU for Higher Throughput"), nor is an 802.1Q tag (+4 bytes on the wire).

Stream bands (Gbit/s, higher is better):
    high = min(line rate of the slower end, PCIe budget of either end) × goodput fraction (largest inner MTU);
    low  = min(high at the smallest likely inner MTU, receive cores × one-core rate) × IPFIX factor × (1 - 10 %).
    * a tuned host reaches line rate: one TCP stream 9.80 Gbit/s on 10 GbE at MTU 9000 (ceiling 9.90) in
      vmfex-vs-vswitch-netperf.txt "Uni-directional TCP Performance" Table 1; NSX-T "consistently close to line
      rate" on 40 GbE (nsx-t-performance-on-intel.txt §1.11 Results);
    * PCIe budget = GT/s × lanes × line-code efficiency (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s: Linux
      drivers/pci/pci.h PCIE_SPEED2MBS_ENC); Gen3 x8 = 63.0 Gbit/s, the "limited to 64Gbps" of
      nsx-t-performance-on-intel.txt "Single TEP vs Dual TEP" (note under Figure 15);
    * receive parallelism (vm-to-vm TCP): without RSS or Geneve Rx filters ESXi receives on one core; with them one
      core per queue, "hence the 4x" (nsx-t-performance-on-intel.txt §1.4, §1.8). A flow is hashed to one queue, so
      cores = min(flows, queues, 4). One core ≈ 10 Gbit/s: 10 Gbit/s without Rx filters vs near line rate with
      them on a 40 Gbit/s XL710 (§1.8, Figure 19), and one stream at 9.80 Gbit/s using 96 % of the receiving core
      (vmfex Table 1). Older CPUs than today's: a conservative low edge;
    * VDS IPFIX (vm-to-vm UDP): packet rate 20-30 % lower on one vNIC (vds-ipfix-impact-nsxv.txt "Packet rate");
      TCP_STREAM still reaches line rate with IPFIX ("Throughput"), so it is not lowered;
    * missing Geneve/VXLAN TSO: the hypervisor segments in software, costing CPU; only a "marginal" throughput
      effect is published (nsx-t-performance-on-intel.txt §1.1-§1.3.1): named, not counted;
    * a tbf-shaped link: its rate is the line rate and tbf charges each frame from its Ethernet header (14 bytes of
      framing, Linux net/sched/sch_tbf.c: qdisc_pkt_len, skb_gso_mac_seglen). Either end may shape: the sender what
      it sends (a root tbf), the receiver what it receives (its ingress redirected to an ifb device with a tbf;
      mirred puts the Ethernet header back before the redirect, Linux net/sched/act_mirred.c tcf_mirred_act); the
      slower bounds the band and is named in it.
    The 10 % (:data:`nicadvisor.bench.expectation.WITHIN`) and the 25 % warn margin are this project's conventions.

Round-trip band between hosts (µs, lower is better; host-to-host TCP_RR of at most 1448 bytes, with the path's ICMP
echo round trip, one frame each way, no echo lost): nominal = median echo (first left out) + 40 µs for the
answering process's wake-up (+ the longer frames' serialization at the link speed), low = (echo minimum − 40 µs)
× 0.50 (the idle echo's wake-up, which a busy request/response loop need not pay, off; "far below" it the
transactions did not cross the path), high = median echo × 1.10 + 40 µs;
it judges the median transaction (P50) where the tool reports one (:mod:`nicadvisor.bench.path_rtt`).

Round-trip band (µs, lower is better; vm-to-vm TCP_RR):
    base = 2 × the VMware vSwitch TCP_RR latency of vmfex-vs-vswitch-netperf.txt "TCP Latency Performance"
    Table 3 (the paper reports (1e6 / transactions) / 2, half the round trip), at the smallest tabulated payload
    ≥ the test's (8192 above): 1 byte → 2 × 23.47 = 46.94 µs; plus NSX adders (low … high):
    DFW 13.3-15.7 µs (nsx-latency-part1-dfw.txt "Bottom line", 100 rules per VM), VXLAN encapsulation 3-10 µs and
    DLR 8-14 µs (nsx-latency-part2-vxlan-dlr.txt "Bottom line" items 1-2; all three 24-40 µs). No Geneve figure is
    published: the VXLAN one stands in for it (said in the band's limits). low = base + Σ low adders,
    high = (base + Σ high adders) × 1.10. The reference ran with interrupt coalescing off (vmfex Table 6).

TCP_CRR (tr/s, higher is better; vm-to-vm): no absolute figure in text (VM-FEX Figure 11 is an image), so a band
needs ``baseline`` = the rate measured on the same path without IPFIX; IPFIX on either end → 58-80 % of it
("transaction rate could drop 20-42%", vds-ipfix-impact-nsxv.txt "Transaction rate": 86 ktps → ~49 ktps).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from . import path_rtt as _rtt  # pure as well (re, statistics, dataclasses)
from .expectation import WITHIN, Expected

if TYPE_CHECKING:  # duck-typed at run time: this module imports no model code
    from nicadvisor.model.entities import Host
    from .path_rtt import PathRtt



class StackCostLike(Protocol):
    """What a band needs of the stack cost calibrated on this machine's loopback
    (:class:`nicadvisor.bench.stack_cost.StackCost`, which imports the tool runners above this module): ``cost_us``
    (µs per TCP_RR transaction) and the ``basis()`` sentence."""

    @property
    def cost_us(self) -> float: ...

    def basis(self) -> str: ...


MICRO = "\u00b5s"
GBPS = "Gbit/s"
TPS = "tr/s"

PATH_LOOPBACK, PATH_NETNS, PATH_HOSTS, PATH_VMS = "loopback", "netns", "host-to-host", "vm-to-vm"
PATHS = (PATH_LOOPBACK, PATH_NETNS, PATH_HOSTS, PATH_VMS)
ENCAPSULATIONS = ("geneve", "vxlan")

# --- framing (bytes) ---------------------------------------------------------------------------------------------
IPV4_HEADER = 20
TCP_HEADER_WITH_TIMESTAMPS = 32  # 20 bytes + 12 bytes of timestamp option (Linux default)
UDP_HEADER = 8
ETH_HEADER = 14  # what tbf on a veth counts per packet (skb length includes the Ethernet header)
WIRE_OVERHEAD = 38  # Ethernet header 14 + FCS 4 + preamble/SFD 8 + inter-frame gap 12
ENCAP_OVERHEAD = 50  # inner Ethernet 14 + outer IPv4 20 + UDP 8 + Geneve/VXLAN 8, counted against the underlay MTU
UDP_DATAGRAM = 1400  # the datagram size both drivers send (netperf -m 1400, iperf3 -l 1400)
DEFAULT_MTU = 1500
FRAMING_SOURCES = (
    "IEEE 802.3 §3.1.1 (MAC frame: 7 preamble + 1 SFD, 14 header, 4 FCS) and §4.4.2 (interPacketGap 96 bits)",
    "RFC 791 §3.1 (IPv4 header 20 bytes)", "RFC 9293 §3.1 (TCP header 20 bytes)",
    "RFC 7323 §3.2 and Appendix A (timestamps option 10 bytes, 12 with two NOPs)", "RFC 768 (UDP header 8 bytes)",
)
ENCAP_SOURCES = {
    "geneve": "RFC 8926 §3.1 (Geneve over IPv4: outer Ethernet, IPv4, UDP 8, Geneve 8 + options, inner Ethernet)",
    "vxlan": "RFC 7348 §5 (VXLAN frame format: outer Ethernet, IPv4, UDP 8, VXLAN 8, inner Ethernet)",
}
VM_MTU_SOURCE = "nsx-t-performance-on-intel.txt §1.11 Table 2 (VM MTU 1500) and 'Jumbo MTU for Higher Throughput'"
LINE_RATE_SOURCES = (
    "vmfex-vs-vswitch-netperf.txt 'Uni-directional TCP Performance' Table 1",
    "nsx-t-performance-on-intel.txt §1.11 Results",
)
TBF_SOURCE = "Linux net/sched/sch_tbf.c (tokens charged by qdisc_pkt_len: the frame from its Ethernet header)"

# --- PCIe ----------------------------------------------------------------------------------------------------------
#: Line-code efficiency per PCIe rate (GT/s): Linux drivers/pci/pci.h PCIE_SPEED2MBS_ENC (8b/10b up to 5 GT/s,
#: 128b/130b for 8-32 GT/s, 1/1 for 64 GT/s).
PCIE_ENCODING = {2.5: 8 / 10, 5.0: 8 / 10, 8.0: 128 / 130, 16.0: 128 / 130, 32.0: 128 / 130, 64.0: 1.0}
PCIE_SOURCES = (
    "Linux drivers/pci/pci.h PCIE_SPEED2MBS_ENC",
    "nsx-t-performance-on-intel.txt 'Single TEP vs Dual TEP' (Gen 3 x8 limited to 64Gbps)",
)

# --- receive parallelism -------------------------------------------------------------------------------------------
#: Receive throughput of one core (Gbit/s): §1.8 Figure 19 (10 Gbit/s without Rx filters on a 40 Gbit/s XL710)
#: and vmfex Table 1 (one stream, 9.80 Gbit/s at 96 % of the receiving core).
ONE_CORE_GBPS = 10.0
#: Most receive cores the references credit ("at least 4 queues. Hence the 4x benefit", §1.4).
RSS_FACTOR = 4
RX_SOURCES = (
    "nsx-t-performance-on-intel.txt §1.4 Benefits with RSS",
    "nsx-t-performance-on-intel.txt §1.8 Compute Node Performance Factors (Figure 19)",
    "vmfex-vs-vswitch-netperf.txt 'Uni-directional TCP Performance' Table 1",
)

# --- IPFIX ---------------------------------------------------------------------------------------------------------
IPFIX_CRR_DROP = (0.20, 0.42)  # vds-ipfix-impact-nsxv.txt "Transaction rate": "could drop 20-42%"
IPFIX_PPS_DROP = (0.20, 0.30)  # vds-ipfix-impact-nsxv.txt "Packet rate": "20/30% lower" (single vNIC, uni-directional)
IPFIX_SOURCE_CRR = "vds-ipfix-impact-nsxv.txt 'Transaction rate' (Figure 2, Table 3)"
IPFIX_SOURCE_PPS = "vds-ipfix-impact-nsxv.txt 'Packet rate' (Figure 1)"

# --- latency -------------------------------------------------------------------------------------------------------
#: vmfex-vs-vswitch-netperf.txt, "TCP Latency Performance", Table 3, VMware vSwitch column:
#: payload bytes → reported latency in µs (= RTT / 2 by the paper's own formula).
VSWITCH_RR_HALF_RTT_US: dict[int, float] = {
    1: 23.47, 2: 23.40, 4: 23.90, 8: 23.41, 16: 23.44, 32: 23.48, 64: 23.71, 128: 23.84, 256: 23.98,
    512: 24.79, 1024: 25.03, 2048: 26.61, 4096: 31.46, 8192: 37.72,
}
RR_SOURCE = "vmfex-vs-vswitch-netperf.txt 'TCP Latency Performance' Table 3"

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

#: A result up to this fraction beyond the band's edge (on the bad side) is "warn"; further is "fail".
WARN_MARGIN = 0.25
_AUTO = "auto"


def _span(low: float, high: float, fmt: str) -> str:
    return format(high, fmt) if format(low, fmt) == format(high, fmt) else f"{low:{fmt}}…{high:{fmt}}"


def _mbit(gbps: float) -> str:
    return f"{gbps * 1000:g} Mbit/s"


@dataclass(frozen=True)
class EndpointFacts:
    """The audited facts of one end of a test path (all optional: None = not audited).

    ``name`` ``"esx-a/vmnic2"``; ``link_gbps`` link speed in Gbit/s (None when unknown or the link is down);
    ``mtu`` the path MTU at this end in bytes (smallest of pNIC, switch and TEP vmknic MTU); ``encapsulation``
    ``"geneve"``, ``"vxlan"`` or None; ``pcie_gts``/``pcie_width`` the negotiated PCIe rate (GT/s per lane) and
    lanes, ``pcie_capable_*`` what the device could do; ``rss``, ``geneve_rx_filter`` and ``rx_queues`` (queues in
    use) for receive parallelism; ``encap_tso`` TSO for the encapsulation in hardware (Geneve offload or VXLAN
    offload); ``tso`` plain TCP segmentation offload; ``ipfix`` IPFIX on its switch; ``dfw``/``dlr`` the NSX distributed firewall/router on the path
    (not in the audit model: passed by the caller); ``coalesce_*`` interrupt coalescing; ``mtu_path_ok`` the
    result of a ``vmkping -d`` MTU test. Raises ValueError for an unknown encapsulation.
    """

    name: str
    link_gbps: float | None = None
    mtu: int | None = None
    encapsulation: str | None = None
    pcie_gts: float | None = None
    pcie_width: int | None = None
    pcie_capable_gts: float | None = None
    pcie_capable_width: int | None = None
    rss: bool | None = None
    geneve_rx_filter: bool | None = None
    rx_queues: int | None = None
    encap_tso: bool | None = None
    tso: bool | None = None
    ipfix: bool | None = None
    dfw: bool | None = None
    dlr: bool | None = None
    coalesce_rx_usecs: int | None = None
    coalesce_adaptive_rx: bool | None = None
    mtu_path_ok: bool | None = None

    def __post_init__(self) -> None:
        if self.encapsulation is not None and self.encapsulation not in ENCAPSULATIONS:
            raise ValueError(f"{self.name}: unknown encapsulation {self.encapsulation!r}; known: {ENCAPSULATIONS}")

    @property
    def pcie_gbps(self) -> float | None:
        """Negotiated PCIe budget in Gbit/s per direction (:func:`pcie_gbps`), None when not audited."""
        if not self.pcie_gts or not self.pcie_width:
            return None
        return pcie_gbps(self.pcie_gts, self.pcie_width)

    def receive_cores(self, streams: int = 1) -> tuple[int, str | None]:
        """(receive cores for ``streams`` flows arriving on this end, the audited fact that limits them or None).

        A flow is hashed to one queue, so cores = min(flows, queues in use, 4). Geneve overlay spreads with Geneve
        Rx filters (inner headers) or RSS (outer headers; nsx-t-performance-on-intel.txt §1.4.4); plain traffic
        with RSS. Neither → one core (§1.4: "Without RSS, ESX by default will use only one core")."""
        spread = [self.rss] + ([self.geneve_rx_filter] if self.encapsulation == "geneve" else [])
        if self.rx_queues == 1:
            return 1, f"{self.name} uses 1 receive queue: receive limited to one core"
        if all(s is False for s in spread):
            what = "no RSS and no Geneve Rx filter" if len(spread) == 2 else "no RSS"
            return 1, f"{self.name} has {what}: receive limited to one core"
        cores = min(max(streams, 1), self.rx_queues or RSS_FACTOR, RSS_FACTOR)
        if cores == 1:
            return 1, "one flow: received by one core whatever RSS or Rx filters do"
        if self.rx_queues and self.rx_queues < RSS_FACTOR and streams > self.rx_queues:
            return cores, f"{self.name} uses {self.rx_queues} receive queues: receive limited to {cores} cores"
        return cores, None


def pcie_gbps(gts: float, width: int) -> float:
    """PCIe budget in Gbit/s per direction: ``gts`` (GT/s per lane) × ``width`` lanes × line-code efficiency
    (:data:`PCIE_ENCODING`; Gen3 x8 → 8 × 8 × 128/130 = 63.0). Raises ValueError for an unknown rate or
    width < 1."""
    eff = PCIE_ENCODING.get(float(gts))
    if eff is None or width < 1:
        raise ValueError(f"unknown PCIe link {gts} GT/s x{width}; known rates: {sorted(PCIE_ENCODING)}")
    return gts * width * eff


def encap_overhead(encapsulation: str | None, options: int = 0) -> int:
    """Bytes an encapsulation adds against the underlay MTU: 50 (+ ``options``, Geneve only) or 0 for None.
    Raises ValueError for an unknown encapsulation or options on VXLAN."""
    if encapsulation is None:
        return 0
    if encapsulation not in ENCAPSULATIONS or (encapsulation == "vxlan" and options):
        raise ValueError(f"no overhead for encapsulation {encapsulation!r} with {options} option bytes")
    return ENCAP_OVERHEAD + options


def tcp_goodput_fraction(mtu: int, per_frame_overhead: int = WIRE_OVERHEAD, encap: int = 0) -> float:
    """TCP payload bytes per byte on the link for full-size segments of a (inner) ``mtu``:
    ``(mtu - 52) / (mtu + encap + per_frame_overhead)`` (IPv4 20 + TCP 20 + timestamps 12; ``encap`` from
    :func:`encap_overhead`). Raises ValueError for mtu < 100."""
    if mtu < 100:
        raise ValueError(f"MTU {mtu} bytes is too small for a TCP goodput estimate")
    return (mtu - IPV4_HEADER - TCP_HEADER_WITH_TIMESTAMPS) / (mtu + encap + per_frame_overhead)


def udp_goodput_fraction(mtu: int, per_frame_overhead: int = WIRE_OVERHEAD, datagram: int = UDP_DATAGRAM,
                         encap: int = 0) -> float:
    """UDP payload bytes per byte on the link for ``datagram``-byte datagrams, counting IPv4 fragments when the
    datagram does not fit the (inner) ``mtu``; each fragment carries ``encap`` bytes more on an overlay.
    Raises ValueError for mtu < 100."""
    if mtu < 100:
        raise ValueError(f"MTU {mtu} bytes is too small for a UDP goodput estimate")
    ip_payload = datagram + UDP_HEADER
    per_fragment = (mtu - IPV4_HEADER) // 8 * 8
    fragments = max(1, math.ceil(ip_payload / per_fragment))
    return datagram / (ip_payload + fragments * (IPV4_HEADER + encap + per_frame_overhead))


@dataclass(frozen=True)
class Band:
    """An expectation: ``low`` … ``high`` in ``unit`` (``"Gbit/s"``/``"tr/s"``: higher is better; ``"µs"``: lower
    is better). ``formula`` says how the edges were computed, with the numbers; ``sources`` cite each figure
    (``"file §section"``); ``limits`` name the audited facts that bound the band (counted in it); ``notes`` the
    audited facts that may lower a result but have no published figure (not counted); ``nominal`` the point figure
    the band is built around (the ceiling for throughput, reference + upper adders for latency); ``measure`` the
    figure of a result it judges when not the unit's own (``"p50_latency_us"``: the median transaction,
    :data:`nicadvisor.bench.path_rtt.MEASURE`; "" = ``latency_us``/``throughput_gbps``/``transactions_per_s``).
    Raises ValueError when low > high or a value is negative."""

    low: float
    high: float
    unit: str
    formula: str
    sources: tuple[str, ...]
    limits: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    nominal: float | None = None
    measure: str = ""
    floor: float | None = None

    def __post_init__(self) -> None:
        if not (0 <= self.low <= self.high):
            raise ValueError(f"band {self.low}…{self.high} {self.unit} is not ordered or is negative")
        if self.floor is not None and not 0 <= self.floor <= self.low:
            raise ValueError(f"floor {self.floor} {self.unit} is not between 0 and the low edge {self.low}")

    @property
    def lower_is_better(self) -> bool:
        """True for a latency band (µs)."""
        return self.unit == MICRO

    @property
    def point(self) -> float:
        """:attr:`nominal`, else the better edge."""
        if self.nominal is not None:
            return self.nominal
        return self.low if self.lower_is_better else self.high

    def basis(self) -> str:
        """One sentence for :class:`~nicadvisor.bench.results.Expected`: formula, limits and sources."""
        text = self.formula
        if self.limits:
            text += "; " + "; ".join(self.limits)
        return f"{text} ({'; '.join(self.sources)})"

    def to_expected(self) -> Expected:
        """The :class:`Expected` a result carries: ``value`` = :attr:`point`, the band's edges, limits, notes and
        the figure it judges (``measure``)."""
        return Expected(value=self.point, unit=self.unit, basis=self.basis(), low=self.low, high=self.high,
                        limits=self.limits, notes=self.notes, measure=self.measure, floor=self.floor)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field (tuples as lists)."""
        return {"low": self.low, "high": self.high, "unit": self.unit, "formula": self.formula,
                "sources": list(self.sources), "limits": list(self.limits), "notes": list(self.notes),
                "nominal": self.nominal, "measure": self.measure, "floor": self.floor}


def band_of(expected: Expected) -> Band:
    """The :class:`Band` an :class:`Expected` was made from (:meth:`Band.to_expected`), to judge a stored result
    again; its formula is the stored basis. Raises ValueError when ``expected`` is not a band."""
    if not expected.is_band:
        raise ValueError(f"{expected.text()} is a point figure, not a band")
    return Band(low=float(expected.low or 0.0), high=float(expected.high or 0.0), unit=expected.unit,
                formula=expected.basis, sources=(), limits=expected.limits, notes=expected.notes,
                nominal=expected.value, measure=expected.measure, floor=expected.floor)


def endpoint_facts(host: "Host", pnic_name: str, *, encapsulation: str | None = _AUTO,
                   dfw: bool | None = None, dlr: bool | None = None) -> EndpointFacts:
    """The :class:`EndpointFacts` of pNIC ``pnic_name`` of an audited ``host`` (a model ``Host``). Pure.

    * ``mtu``: the smallest known of the pNIC's MTU, its switch's MTU and (when it carries the overlay) the MTU of
      the TEP vmknics on that switch;
    * ``encapsulation``: by default ``"geneve"`` when the pNIC carries the overlay (``Host.overlay_role``; NSX-T
      encapsulates in Geneve, nsx-t-performance-on-intel.txt "Next Generation Encapsulation – Geneve"), else
      None; pass ``"vxlan"`` for NSX-V or None to force plain traffic;
    * ``encap_tso``: ``geneve_offload`` or ``vxlan_offload`` for that encapsulation;
    * ``rss``: ``rss``, else Linux ``receive_hashing``; ``ipfix`` from its switch; ``dfw``/``dlr`` as given.
    Raises KeyError when the host has no such pNIC, ValueError for an unknown encapsulation.
    """
    pnic = host.pnic(pnic_name)
    if pnic is None:
        raise KeyError(f"{host.name} has no pNIC {pnic_name!r}")
    switch = host.switch_of(pnic_name)
    carries = host.overlay_role(pnic) == "carries"
    if encapsulation == _AUTO:
        encapsulation = "geneve" if carries else None
    mtus = [pnic.mtu, switch.mtu if switch else None]
    if switch is not None and (carries or encapsulation):
        mtus += [v.mtu for v in host.vmknics if v.is_tep and v.switch == switch.name]
    known = [m for m in mtus if m]
    link = None
    if pnic.link_up is not False and pnic.link_speed_mbps:
        link = pnic.link_speed_mbps / 1000.0
    tso = {"geneve": pnic.geneve_offload, "vxlan": pnic.vxlan_offload}.get(encapsulation or "")
    return EndpointFacts(
        name=f"{host.name}/{pnic.name}", link_gbps=link, mtu=min(known) if known else None,
        encapsulation=encapsulation, pcie_gts=pnic.pcie_speed_gts, pcie_width=pnic.pcie_width,
        pcie_capable_gts=pnic.pcie_speed_capable_gts, pcie_capable_width=pnic.pcie_width_capable,
        rss=pnic.rss if pnic.rss is not None else pnic.receive_hashing, geneve_rx_filter=pnic.geneve_rx_filter,
        rx_queues=pnic.rx_queues, encap_tso=tso, tso=pnic.tso, ipfix=switch.ipfix_enabled if switch else None,
        dfw=dfw, dlr=dlr, coalesce_rx_usecs=pnic.coalesce_rx_usecs, coalesce_adaptive_rx=pnic.coalesce_adaptive_rx,
        mtu_path_ok=host.mtu_path_ok)


# --- band construction ---------------------------------------------------------------------------------------------

def _encapsulation(ends: list[EndpointFacts]) -> str | None:
    kinds = {e.encapsulation for e in ends} - {None}
    if len(kinds) > 1:
        raise ValueError(f"the ends disagree on the encapsulation: {sorted(kinds)}")
    return kinds.pop() if kinds else None


def _path_mtu(ends: list[EndpointFacts]) -> int | None:
    """The smallest MTU of the ends (bytes), None when none is known."""
    mtus = [e.mtu for e in ends if e.mtu]
    return min(mtus) if mtus else None


def _common_notes(ends: list[EndpointFacts]) -> list[str]:
    return [f"{e.name}: a vmkping -d MTU path test failed: full-size frames may be dropped or fragmented"
            for e in ends if e.mtu_path_ok is False]


def cause_notes(a: EndpointFacts | None, b: EndpointFacts | None) -> list[str]:
    """The audited facts of the sender ``a`` and receiver ``b`` that can slow a test between them without a published
    figure, in words (issue 28 §1): TCP segmentation offload off on the sender (every large send cut in software,
    nsx-t-performance-on-intel.txt §1.1) and a receiver with a single receive queue while its peer has several (one
    core receives everything, §1.4 Benefits with RSS). Pure."""
    notes = []
    if a is not None and a.tso is False:
        notes.append(f"the sender {a.name} has TCP segmentation offload (TSO) off: it cuts every large send into "
                     "MTU-sized packets in software (more CPU per Gbit/s; nsx-t-performance-on-intel.txt §1.1)")
    if (a is not None and b is not None and b.rx_queues == 1 and a.rx_queues and a.rx_queues > 1):
        notes.append(f"the receiver {b.name} has a single receive queue while {a.name} has {a.rx_queues}: one core "
                     "receives all of it (nsx-t-performance-on-intel.txt §1.4 Benefits with RSS)")
    return notes


def _stream_band(test: str, a: EndpointFacts | None, b: EndpointFacts | None, path: str, rate_mbit: float | None,
                 inner_mtu: int | None, streams: int, datagram: int = UDP_DATAGRAM, rate_at: str = "") -> Band | None:
    ends = [e for e in (a, b) if e is not None]
    limits: list[str] = []
    notes = _common_notes(ends) + cause_notes(a, b) if path != PATH_NETNS else []
    sources: list[str] = []
    slower = [e for e in ends if e.link_gbps and rate_mbit and e.link_gbps < rate_mbit / 1000.0]
    if rate_mbit and not slower:
        line, framing, what = rate_mbit / 1000.0, ETH_HEADER, f"tc tbf rate {rate_mbit:g} Mbit/s"
        sources.append(TBF_SOURCE)
        if rate_at:
            what += f" {rate_at}"
            limits.append(f"tc tbf {rate_mbit:g} Mbit/s {rate_at}")
    elif slower:  # an audited link slower than the shaping is the bottleneck, not the tbf
        slow = min(slower, key=lambda e: e.link_gbps or 0.0)
        line, framing = float(slow.link_gbps or 0.0), WIRE_OVERHEAD
        what = f"link speed {_mbit(line)} ({slow.name}, below the tc tbf rate {rate_mbit:g} Mbit/s)"
    elif path == PATH_NETNS or not ends or any(e.link_gbps is None for e in ends):
        return None  # no line rate
    else:
        slow = min(ends, key=lambda e: e.link_gbps or 0.0)
        line, framing = float(slow.link_gbps or 0.0), WIRE_OVERHEAD
        what = f"link speed {_mbit(line)}" + (f" ({slow.name})" if len(ends) > 1 else "")
    sources += FRAMING_SOURCES
    known_mtus = [e.mtu for e in ends if e.mtu]
    mtu = min(known_mtus) if known_mtus else DEFAULT_MTU
    encap = _encapsulation(ends) if path == PATH_VMS else None
    overhead = encap_overhead(encap)
    if encap:
        sources.append(ENCAP_SOURCES[encap])
        fits = mtu - overhead
        if inner_mtu and inner_mtu > fits:
            notes.append(f"inner MTU {inner_mtu} does not fit the path MTU {mtu} with {overhead} bytes of {encap}: "
                         "fragmentation or drops")
        hi_inner = min(inner_mtu, fits) if inner_mtu else fits
        lo_inner = hi_inner if inner_mtu else min(DEFAULT_MTU, fits)
        if not inner_mtu and lo_inner < hi_inner:
            sources.append(VM_MTU_SOURCE)
        tsoless = [e.name for e in ([a] if a else []) if e.encap_tso is False]
        if tsoless:
            notes.append(f"{tsoless[0]} has no {encap.capitalize()} TSO: the hypervisor segments in software (more "
                         "CPU; nsx-t-performance-on-intel.txt §1.2, §1.3.1)")
    else:
        hi_inner = lo_inner = mtu
    if test == "UDP_STREAM":
        frac_hi = udp_goodput_fraction(hi_inner, framing, datagram=datagram, encap=overhead)
        frac_lo = udp_goodput_fraction(lo_inner, framing, datagram=datagram, encap=overhead)
        kind = f"UDP goodput of {datagram}-byte datagrams"
    else:
        frac_hi = tcp_goodput_fraction(hi_inner, framing, encap=overhead)
        frac_lo = tcp_goodput_fraction(lo_inner, framing, encap=overhead)
        kind = "TCP goodput of full-size segments"
    bottleneck = line
    pcie = [(e.pcie_gbps, e) for e in ends if e.pcie_gbps is not None]
    if pcie:
        budget, end = min(pcie, key=lambda p: p[0])
        if budget < line:
            bottleneck = budget
            limits.append(f"{end.name}: PCIe {end.pcie_gts:g} GT/s x{end.pcie_width} ≈ {budget:.1f} Gbit/s is below "
                          f"the {_mbit(line)} line rate")
            sources += PCIE_SOURCES
        for e in ends:
            if ((e.pcie_capable_width and e.pcie_width and e.pcie_width < e.pcie_capable_width)
                    or (e.pcie_capable_gts and e.pcie_gts and e.pcie_gts < e.pcie_capable_gts)):
                notes.append(f"{e.name}: PCIe runs at {e.pcie_gts:g} GT/s x{e.pcie_width} of "
                             f"{e.pcie_capable_gts or e.pcie_gts:g} GT/s x{e.pcie_capable_width or e.pcie_width}")
    high = bottleneck * frac_hi
    low = bottleneck * frac_lo
    inner_txt = (f"inner MTU {hi_inner}" if lo_inner == hi_inner else f"inner MTU {lo_inner}…{hi_inner}")
    formula = (f"{what}" + (f" (PCIe {bottleneck:.1f} Gbit/s)" if bottleneck < line else "")
               + f" × {_span(frac_lo, frac_hi, '.4f')} ({kind}, MTU {mtu}" + ("" if known_mtus else " (assumed)")
               + (f", {encap} {overhead} bytes, {inner_txt}" if encap else "") + f", {framing} bytes of framing)")
    if path == PATH_VMS and test == "TCP_STREAM" and b is not None:
        cores, why = b.receive_cores(streams)
        cap = cores * ONE_CORE_GBPS
        if cap < low:
            low = cap
            limits.append(f"{why or f'{b.name}: {cores} receive cores'} (≈ {ONE_CORE_GBPS:g} Gbit/s per core)")
            formula += f"; low edge {cores} receive core(s) × {ONE_CORE_GBPS:g} Gbit/s"
            sources += RX_SOURCES
        elif why:
            notes.append(why)
        if b.rss is None and b.rx_queues is None and (encap != "geneve" or b.geneve_rx_filter is None):
            notes.append(f"{b.name}: RSS/Rx filters not audited: receive parallelism assumed")
    if path == PATH_VMS and test == "UDP_STREAM":
        ipfix = [e.name for e in ends if e.ipfix]
        if ipfix:
            low *= 1 - IPFIX_PPS_DROP[1]
            limits.append(f"VDS IPFIX on {ipfix[0]}'s switch: packet rate {IPFIX_PPS_DROP[0]:.0%}-"
                          f"{IPFIX_PPS_DROP[1]:.0%} lower")
            formula += f"; × {1 - IPFIX_PPS_DROP[1]:.2f} for IPFIX"
            sources.append(IPFIX_SOURCE_PPS)
    low *= 1 - WITHIN
    formula += f"; low edge × {1 - WITHIN:.2f}"
    sources += LINE_RATE_SOURCES
    return Band(low=low, high=high, unit=GBPS, formula=formula, sources=tuple(dict.fromkeys(sources)),
                limits=tuple(limits), notes=tuple(notes), nominal=high)


def _rr_band(ends: list[EndpointFacts], payload: int) -> Band:
    row = next((p for p in sorted(VSWITCH_RR_HALF_RTT_US) if p >= payload), 8192)
    half = VSWITCH_RR_HALF_RTT_US[row]
    base = 2 * half
    low = high = base
    formula = (f"VMware vSwitch VM-to-VM netperf TCP_RR, {row}-byte payload: {half} {MICRO} reported as RTT/2, "
               f"so {base:.2f} {MICRO} round trip")
    sources, limits, notes = [RR_SOURCE], [], _common_notes(ends)
    encap = _encapsulation(ends)
    features = []
    if encap:
        features.append(("overlay", f"{encap.upper() if encap == 'vxlan' else 'Geneve'} encapsulation"
                         + ("" if encap == "vxlan" else " (no published Geneve figure: the VXLAN one stands in)")))
    if any(e.dfw for e in ends):
        features.append(("dfw", "NSX DFW (100 rules per VM)"))
    if any(e.dlr for e in ends):
        features.append(("dlr", "NSX DLR"))
    for key, what in features:
        lo, hi = NSX_ADDED_RTT_US[key]
        low, high = low + lo, high + hi
        limits.append(f"{what} adds {lo:g}-{hi:g} {MICRO}")
        formula += f" + {lo:g}…{hi:g} {MICRO} for {key} ({_NSX_SOURCE[key]})"
        sources.append(_NSX_SOURCE[key])
    for flag in ("dfw", "dlr"):
        if all(getattr(e, flag) is None for e in ends):
            notes.append(f"NSX {flag.upper()} not audited: its {NSX_ADDED_RTT_US[flag][0]:g}-"
                         f"{NSX_ADDED_RTT_US[flag][1]:g} {MICRO} is not counted")
    for e in ends:
        if e.coalesce_adaptive_rx or (e.coalesce_rx_usecs or 0) > 0:
            notes.append(f"{e.name}: interrupt coalescing is on (the reference ran with it off: "
                         "vmfex-vs-vswitch-netperf.txt Table 6)")
        if e.ipfix:
            notes.append(f"VDS IPFIX on {e.name}'s switch: no published round-trip figure")
    nominal = high
    high *= 1 + WITHIN
    formula += f"; high edge × {1 + WITHIN:.2f}"
    return Band(low=low, high=high, unit=MICRO, formula=formula, sources=tuple(dict.fromkeys(sources)),
                limits=tuple(limits), notes=tuple(notes), nominal=nominal)


def _path_rr_band(ends: list[EndpointFacts], rtt: "PathRtt", payload: int, stack: "StackCostLike | None",
                  a: EndpointFacts | None = None, b: EndpointFacts | None = None) -> Band:
    """TCP_RR between two hosts from the path's own adaptive ICMP echo (:mod:`nicadvisor.bench.path_rtt`) and the
    stack's per-transaction cost calibrated on this machine's loopback (:mod:`nicadvisor.bench.stack_cost`): the
    echo minimum is the floor no transaction can beat, the band what the hosts' stacks add to it."""
    speeds = [e.link_gbps for e in ends if e.link_gbps]
    rr = _rtt.rr_band_edges(rtt, payload, min(speeds) if speeds else None,
                            stack_us=stack.cost_us if stack is not None else None,
                            stack_basis=stack.basis() if stack is not None else "")
    u = _rtt.us
    serial = f" {rr.serial_note}" if rr.serial_note else ""
    if rtt.back_to_back:
        regime = "adaptive echoes sent back to back (the busy regime of a request/response loop)"
        floor = f"floor = the echo minimum {u(rtt.min_us)} {MICRO}{serial}"
        echo = "median echo"
    else:
        regime = ("adaptive echoes that were spaced (an end slept between them, so each may carry a wake-up a busy "
                  "loop does not pay)")
        floor = (f"floor = the echo minimum {u(rtt.min_us)} {MICRO} less the {_rtt.WAKEUP_ALLOWANCE_US:g} {MICRO} "
                 f"wake-up, at least half of it, = {u(rr.floor)} {MICRO}{serial}")
        echo = "echo minimum"
    formula = (f"the path's {rtt.text()} from {rtt.client} to {rtt.server}, measured right before the test with "
               f"{regime}; {floor} (no transaction crosses the path faster: below it a result is a measurement "
               f"error); expected = {echo} + {rr.stack_basis} = {u(rr.nominal)} {MICRO}; band = expected ÷/× "
               f"√{_rtt.BAND_RATIO:g} (at most {_rtt.BAND_RATIO:g}× wide), never below the floor; judged on the "
               f"median transaction (P50) where the tool reports it, a transaction being one round trip (this judges "
               f"what the hosts add, not the path)")
    sources = (_rtt.SOURCE,) if stack is not None and rtt.back_to_back else (_rtt.SOURCE, _rtt.WAKEUP_SOURCE)
    notes = _common_notes(ends) + cause_notes(a, b)
    if payload + _rtt.TCP_OVERHEAD > _rtt.ECHO_FRAME and not speeds:
        notes.append("the link speed is not known: the longer frames' serialization is not counted")
    return Band(low=rr.low, high=rr.high, unit=MICRO, formula=formula, sources=sources, notes=tuple(notes),
                nominal=rr.nominal, measure=_rtt.MEASURE, floor=rr.floor)


def _crr_band(ends: list[EndpointFacts], baseline: float) -> Band:
    ipfix = [e.name for e in ends if e.ipfix]
    if not ipfix:
        return Band(low=baseline * (1 - WITHIN), high=baseline, unit=TPS, sources=(IPFIX_SOURCE_CRR,),
                    formula=f"baseline {baseline:g} tr/s on the same path; low edge × {1 - WITHIN:.2f}",
                    nominal=baseline)
    lo, hi = IPFIX_CRR_DROP
    return Band(low=baseline * (1 - hi), high=baseline * (1 - lo), unit=TPS, sources=(IPFIX_SOURCE_CRR,),
                formula=f"baseline {baseline:g} tr/s × {1 - hi:.2f}…{1 - lo:.2f} (IPFIX: {lo:.0%}-{hi:.0%} fewer)",
                limits=(f"VDS IPFIX on {ipfix[0]}'s switch: TCP_CRR {lo:.0%}-{hi:.0%} lower",),
                nominal=baseline * (1 - lo))


def expected_band(test: str, a: EndpointFacts | None, b: EndpointFacts | None, *, path: str,
                  rate_mbit: float | None = None, payload: int = 1, inner_mtu: int | None = None,
                  streams: int = 1, baseline: float | None = None, datagram: int | None = None,
                  path_rtt: "PathRtt | None" = None, direction: str = "send", rate_at: str = "",
                  stack: "StackCostLike | None" = None) -> Band | None:
    """The band of ``test`` (``TCP_STREAM``, ``UDP_STREAM``, ``TCP_RR``, ``TCP_CRR``) from ``a`` (sender/client)
    to ``b`` (receiver/server) on ``path`` (:data:`PATHS`), or None when no published figure fits that path.

    ``rate_mbit``: tbf rate of a shaped link (its line rate, Mbit/s), ``rate_at`` where it shapes when that is not
    the sender's own egress (``"on ifb0, where lab-b redirects what d0 receives"``: named in the formula and, as the
    fact that bounds the band, in its limits); ``payload``: RR request size in bytes;
    ``datagram``: UDP_STREAM datagram size in bytes (None: :data:`UDP_DATAGRAM`, 1400);
    ``inner_mtu``: the VMs' MTU on an overlay (None: 1500 … the largest that fits); ``streams``: parallel flows;
    ``baseline``: a TCP_CRR rate (tr/s) of the same path without IPFIX; ``path_rtt``: the ICMP echo round trip of
    a host-to-host path (:class:`~nicadvisor.bench.path_rtt.PathRtt`) and ``direction`` of its test. Stream tests
    need a line rate (the tbf rate, or both ends' link speeds); RR needs the vm-to-vm path, or host-to-host with
    ``path_rtt`` (no echo lost), one request at a time (``direction`` ``"send"``) of one frame
    (:func:`~nicadvisor.bench.path_rtt.max_payload` at the ends' MTU); ``stack``: the per-transaction stack cost
    calibrated on this machine's loopback (:class:`~nicadvisor.bench.stack_cost.StackCost`; None: the documented
    wake-up stands for it); CRR needs vm-to-vm and ``baseline``. Raises ValueError for an unknown path, test, a non-positive ``streams`` or ends that disagree on the
    encapsulation.
    """
    if path not in PATHS:
        raise ValueError(f"unknown path {path!r}; known: {PATHS}")
    if streams < 1:
        raise ValueError(f"streams must be at least 1, not {streams}")
    ends = [e for e in (a, b) if e is not None]
    if test in ("TCP_STREAM", "UDP_STREAM"):
        if path == PATH_LOOPBACK:
            return None
        return _stream_band(test, a, b, path, rate_mbit, inner_mtu, streams, datagram or UDP_DATAGRAM, rate_at)
    if test not in ("TCP_RR", "TCP_CRR"):
        raise ValueError(f"unknown test {test!r}")
    if test == "TCP_RR" and path == PATH_HOSTS and path_rtt is not None and not _rtt.rr_no_band_reason(
            path_rtt, payload, mtu=_path_mtu(ends), direction=direction):
        return _path_rr_band(ends, path_rtt, payload, stack, a, b)
    if path != PATH_VMS:
        return None  # the published round-trip and transaction figures are of VMs on two hypervisors
    if test == "TCP_RR":
        return _rr_band(ends, payload)
    return _crr_band(ends, baseline) if baseline else None


def no_band_reason(test: str, a: EndpointFacts | None, b: EndpointFacts | None, *, path: str,
                   rate_mbit: float | None = None, baseline: float | None = None, payload: int = 1,
                   path_rtt: "PathRtt | None" = None, rtt_problem: str = "", direction: str = "send") -> str:
    """Why :func:`expected_band` gives no band for these arguments, in words for the user (what is missing and how
    to learn it); "" when it gives one. ``rtt_problem``: why the path's echo round trip is not known (a
    host-to-host TCP_RR). Same arguments and errors as :func:`expected_band`."""
    if expected_band(test, a, b, path=path, rate_mbit=rate_mbit, baseline=baseline, payload=payload,
                     path_rtt=path_rtt, direction=direction) is not None:
        return ""
    if test == "TCP_RR" and path == PATH_HOSTS:
        if direction != "send":  # no echo is measured for it: it would not stand for several transactions in flight
            return _rtt.BURST_REASON
        if path_rtt is not None:
            ends = [e for e in (a, b) if e is not None]
            return _rtt.rr_no_band_reason(path_rtt, payload, mtu=_path_mtu(ends), direction=direction)
        return ("the path's ICMP echo round trip, which a host-to-host TCP_RR is judged against, was not measured"
                + (f": {rtt_problem}" if rtt_problem else "") + " (published TCP_RR figures are of VMs on two "
                f"hypervisors, {RR_SOURCE})")
    if test in ("TCP_RR", "TCP_CRR") and path != PATH_VMS:
        source = RR_SOURCE if test == "TCP_RR" else IPFIX_SOURCE_CRR
        return (f"the published {test} figures are of VMs on two hypervisors ({source}); none fits a {path} path, "
                "so the result is shown without a verdict")
    if test == "TCP_CRR":
        return "TCP_CRR is judged only against a baseline rate of the same path without IPFIX, and none was given"
    if path == PATH_LOOPBACK:
        return "127.0.0.1 on the machine running NIC Advisor has no line rate: no throughput is expected of it"
    if path == PATH_NETNS:
        return "an unshaped veth pair has no line rate: shape it (--rate-mbit) to get an expected throughput"
    ends = [e for e in (a, b) if e is not None]
    if not ends:
        return "neither end was audited: audit both hosts first to get an expected throughput"
    unknown = [e.name for e in ends if e.link_gbps is None]
    return (f"no line rate: the link speed of {' and '.join(unknown)} is not known (link down, not reported, or a "
            "virtual NIC without one); an audit that reads it (ethtool IF, esxcli network nic list) gives an "
            "expected throughput")


# --- judging -------------------------------------------------------------------------------------------------------

def _pct(x: float) -> str:
    """A fraction as a percentage that never rounds a small difference up (0.0008 → ``"0.08 %"``, not ``"1 %"``) nor
    to nothing (below 0.01 % → ``"< 0.01 %"``)."""
    pct = x * 100
    if pct >= 0.995:
        return f"{pct:.0f} %"
    if pct >= 0.0995:
        return f"{pct:.1f} %"
    return f"{pct:.2f} %" if pct >= 0.00995 else "< 0.01 %"


def judge(measured: float, band: Band) -> tuple[str, str]:
    """(verdict, text) for ``measured`` (in ``band.unit``).

    Higher is better (Gbit/s, tr/s): in band → ``("pass", "within band")``; below ``low`` →
    ``"12 % slower than expected"`` (relative to ``low``), ``warn`` up to :data:`WARN_MARGIN`, else ``fail``; above
    ``high`` → ``"5 % faster than expected"``, ``pass`` up to 10 % above, else ``warn`` (above the path's ceiling:
    the traffic may not have crossed the audited link). Lower is better (µs): above ``high`` →
    ``"8 % higher than expected"`` (relative to ``high``), ``warn``/``fail`` as above; below ``low`` →
    ``"x % lower than expected"``, ``pass`` up to 10 % below, else ``warn`` (the mirror of a stream above its
    ceiling: the transactions may not have crossed the audited path, or the published figure does not bound it;
    never a reassuring pass). A band with a ``floor`` (host-to-host TCP_RR: the path's echo minimum) passes anything
    between the floor and ``low`` (faster than expected is no fault) and calls a result below the floor a
    measurement error (``warn``). Raises ValueError for a negative, NaN
    or infinite ``measured``.
    """
    if measured is None or not math.isfinite(measured) or measured < 0:
        raise ValueError(f"cannot judge measured value {measured!r}")
    if band.low <= measured <= band.high:
        return "pass", "within band"
    if band.lower_is_better:
        if band.floor is not None and measured < band.floor:
            under = 1 - measured / band.floor if band.floor else 0.0
            return "warn", (f"{_pct(under)} below the path's own echo minimum ({_rtt.us(band.floor)} {MICRO}): a "
                            "measurement error, since no transaction crosses the path faster than an echo (did the "
                            "transactions cross the audited path?)")
        if measured < band.low:
            under = 1 - measured / band.low if band.low else 0.0
            if band.floor is not None:  # above the physical floor: faster than expected is not a fault
                return "pass", f"{_pct(under)} lower than expected, above the path's floor"
            return ("pass" if under <= WITHIN else "warn"), f"{_pct(under)} lower than expected"
        over = measured / band.high - 1
        return ("warn" if over <= WARN_MARGIN else "fail"), f"{_pct(over)} higher than expected"
    if measured > band.high:
        over = measured / band.high - 1 if band.high else math.inf
        return ("pass" if over <= WITHIN else "warn"), f"{_pct(over)} faster than expected"
    short = 1 - measured / band.low
    return ("warn" if short <= WARN_MARGIN else "fail"), f"{_pct(short)} slower than expected"


def explain(measured: float, band: Band) -> str:
    """:func:`judge`'s text plus the audited facts behind it: the band's ``limits`` whenever the result is worse
    than its nominal figure, and its ``notes`` (facts without a published figure) when it is worse than the band;
    ``"no audited fact explains it"`` when it is worse than the band and neither exists. Raises as :func:`judge`."""
    verdict, text = judge(measured, band)
    worse_than_nominal = measured > band.point if band.lower_is_better else measured < band.point
    worse_than_band = measured > band.high if band.lower_is_better else measured < band.low
    parts = [text]
    if worse_than_nominal and band.limits:
        parts.append("bounded by: " + "; ".join(band.limits))
    if worse_than_band:
        if band.notes:
            parts.append("may explain it: " + "; ".join(band.notes))
        elif not band.limits:
            parts.append("no audited fact explains it")
    if not worse_than_band and verdict == "warn" and band.floor is None:
        parts.append("below the path's floor: did the transactions cross the audited path, or does the reference "
                     "not bound it?" if band.lower_is_better
                     else "above the audited path's ceiling: did the traffic cross the audited link?")
    return "; ".join(parts)


# --- the v1 API, derived from the bands ----------------------------------------------------------------------------

def expected_stream(test: str, *, rate_mbit: int | None = None, link_speed_mbps: int | None = None,
                    mtu: int | None = None, datagram: int | None = None) -> Expected | None:
    """Expected received throughput (Gbit/s, the band's ceiling) of ``test`` (``TCP_STREAM`` or ``UDP_STREAM``)
    on one link: ``rate_mbit`` a tbf rate (wins), else ``link_speed_mbps``; ``mtu`` bytes (default 1500).
    None when neither rate is known. See :func:`expected_band`."""
    end = EndpointFacts(name="link", link_gbps=link_speed_mbps / 1000.0 if link_speed_mbps else None, mtu=mtu)
    path = PATH_NETNS if rate_mbit else PATH_HOSTS
    band = expected_band(test, end, None, path=path, rate_mbit=rate_mbit, datagram=datagram)
    return band.to_expected() if band else None


def expected_rr(test: str = "TCP_RR", *, request_bytes: int = 1,
                nsx_features: tuple[str, ...] = ()) -> Expected | None:
    """Expected round-trip time (µs, the band's nominal: Table 3 × 2 plus the upper adder of each NSX feature in
    ``nsx_features``: ``"dfw"``, ``"overlay"`` (VXLAN), ``"dlr"``) of a vm-to-vm ``TCP_RR``. None for other tests.
    Raises ValueError for an unknown NSX feature."""
    unknown = [f for f in nsx_features if f not in NSX_ADDED_RTT_US]
    if unknown:
        raise ValueError(f"unknown NSX feature(s) {unknown}; known: {sorted(NSX_ADDED_RTT_US)}")
    if test != "TCP_RR":
        return None
    end = EndpointFacts(name="vm", encapsulation="vxlan" if "overlay" in nsx_features else None,
                        dfw="dfw" in nsx_features, dlr="dlr" in nsx_features)
    band = expected_band(test, end, None, path=PATH_VMS, payload=request_bytes)
    return band.to_expected() if band else None


def expected_for(test: str, path: str, *, rate_mbit: int | None = None, link_speed_mbps: int | None = None,
                 mtu: int | None = None, request_bytes: int = 1,
                 nsx_features: tuple[str, ...] = (), datagram: int | None = None) -> Expected | None:
    """The :class:`Expected` of ``test`` on ``path`` (:data:`PATHS`), or None; derived from :func:`expected_band`.

    Loopback gets None; netns only a shaped stream (``rate_mbit``); request/response tests only on ``vm-to-vm``.
    Raises ValueError for an unknown path."""
    if path not in PATHS:
        raise ValueError(f"unknown path {path!r}; known: {PATHS}")
    if test.endswith("_STREAM"):
        if path == PATH_LOOPBACK or (path == PATH_NETNS and not rate_mbit):
            return None
        return expected_stream(test, rate_mbit=rate_mbit, link_speed_mbps=link_speed_mbps, mtu=mtu, datagram=datagram)
    if path != PATH_VMS:
        return None
    return expected_rr(test, request_bytes=request_bytes, nsx_features=nsx_features)
