"""The round trip of a path between two audited hosts, measured with ICMP echo right before each TCP_RR test on it,
and the TCP_RR band it gives. PURE here (argv, parsing, the band); :mod:`nicadvisor.bench.remote` runs the ping over
SSH, :mod:`nicadvisor.bench.stack_cost` measures the stack's per-transaction cost on this machine's loopback.

Why: the published TCP_RR figures are of VMs on two hypervisors (vmfex-vs-vswitch-netperf.txt Table 3); between two
hosts nothing in the audit (link speed, MTU, PCIe) says how long a round trip takes, because that depends on the
switches and distance between them. The path's own ICMP echo round trip does. A small TCP_RR transaction is one
request and one reply on the same path ("RTT = 1e6 / transactions per second", vmfex-vs-vswitch-netperf.txt
'TCP Latency Performance'); it differs from an echo by the TCP work of both ends and the wake-up of the process that
answers it (an echo is answered in the peer's kernel).

The echo is taken in the regime of the transactions it bounds: adaptive (``ping -A``: the next echo leaves as soon as
the reply is back, 2 ms apart at the least for a user that is not root, iputils), so that neither end sleeps
between echoes as it does not between transactions. An echo every 0.2 s found both ends idle and paid their wake-up
(27-51 µs minimum on the test lab's veth, where the busy TCP_RR took 6-17 µs), which a busy loop need not: that echo
bounded nothing. The adaptive echo's minimum is the physical floor of a transaction on the path: no request and
reply can cross it faster than an echo does, so a result below it is a measurement error (the transactions did not
cross this path, or the tool's clock is wrong), never a fast host.

The band is the echo plus what the stacks add per transaction: ``nominal = median echo + stack cost``, where the
stack cost is a TCP_RR transaction on this machine's loopback less its loopback echo (:mod:`nicadvisor.bench.
stack_cost`, measured right before the band is built); without a calibration, the 40 µs wake-up of an unpinned round
trip (performance-baselines.md §2.4) stands for it. The band spans :data:`BAND_RATIO` (3) from low to high around
the nominal (÷/× √3), never below the floor: a result between the floor and the band is faster than expected and
passes (not a fault unless it is physically impossible); above the band the hosts add more than their stacks should.
The band judges the median transaction (P50: netperf ``-j`` ``P50_LATENCY``, the agent's own) where the tool reports
it, the mean otherwise: the mean of a request/response loop carries the waits of a busy CPU (P50 40-42 µs, mean
97-140 µs in the lab with both vCPUs busy), which the echoes cannot represent; the mean and P99 are shown beside it.

Command: ``ping -c 50 -A -W 1 -s 56 -I <source> <destination>`` (iputils: 50 adaptive echoes, under a second at
2 ms; 56 bytes = the default echo payload, a 98-byte IPv4 frame, one frame each way like a small TCP_RR request).
Read-only: nothing is started or changed on a host but the ping.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

COUNT = 50
#: The shortest interval iputils lets a user that is not root send adaptive echoes at (s): the run's upper bound.
USER_INTERVAL_S = 0.004
PAYLOAD = 56
ECHO_FRAME = PAYLOAD + 28  # bytes of IPv4 + ICMP + payload (RFC 791, RFC 792)
TCP_OVERHEAD = 52  # IPv4 20 + TCP 20 + timestamps option 12: the TCP payload one frame carries is MTU - 52
#: Wake-up time of a round trip (µs): added to the echo for the process wake-up a TCP_RR transaction has and an echo
#: has not (the server's), and taken off the echo minimum for the floor (the idle echo's wake-ups, which a busy loop
#: need not pay): "About 40 µs of every unpinned round trip is cross-vCPU wake-up or IPI latency, not network stack"
#: (shared/design/research/performance-baselines.md §2.4, netperf TCP_RR 1 byte, 54 µs unpinned vs 13.5 µs with both
#: ends on one CPU).
WAKEUP_ALLOWANCE_US = 40.0
#: High edge over low edge of a TCP_RR band (issue 28 §1: a band wider than 3x passes anything and proves nothing):
#: the band is nominal ÷ √3 … nominal × √3, its low edge raised to the floor where the floor is higher.
BAND_RATIO = 3.0
#: Idle time between two echoes (µs) past which an end may sleep and pay a wake-up the next echo carries (a busy
#: request/response loop never sleeps that long): the echoes are then "spaced", not back to back.
IDLE_GAP_US = 100.0
#: For spaced echoes the floor is the echo minimum less what an idle echo can overstate: the wake-up of an unpinned
#: round trip (:data:`WAKEUP_ALLOWANCE_US`), but never below this fraction of the minimum.
SPACED_FLOOR_FRACTION = 0.5
#: The figure of a result the echo band judges: the median transaction (``BenchResult.p50_latency_us``).
MEASURE = "p50_latency_us"
SOURCE = "vmfex-vs-vswitch-netperf.txt 'TCP Latency Performance' (RTT = 10⁶ / transactions per second)"
WAKEUP_SOURCE = "performance-baselines.md §2.4 (about 40 µs of an unpinned round trip is a process wake-up)"

_NUM = r"\d{1,9}(?:\.\d{1,6})?"
_SUMMARY_RE = re.compile(rf"(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev))? = (?P<min>{_NUM})/(?P<avg>{_NUM})/"
                         rf"(?P<max>{_NUM})(?:/(?P<mdev>{_NUM}))? ms")
_IPG_RE = re.compile(rf"ipg/ewma (?P<ipg>{_NUM})/(?P<ewma>{_NUM}) ms")
_STATS_RE = re.compile(r"(?P<sent>\d{1,9}) packets transmitted, (?P<recv>\d{1,9}) (?:packets )?received")
_TIME_RE = re.compile(rf"\btime[=<](?P<ms>{_NUM}) ?ms\b")


def us(value: float) -> str:
    """A time in µs as the band and its evidence print it: one decimal under 100 µs (``"4.2"``), whole µs with a
    thousands separator above (``"2,051"``)."""
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def ping_argv(source: str, destination: str) -> tuple[str, ...]:
    """``ping -c 50 -A -W 1 -s 56 -I <source> <destination>`` (IPv4 addresses, as the probe read them): adaptive
    echoes, the regime of a request/response loop (module docstring)."""
    return ("ping", "-c", str(COUNT), "-A", "-W", "1", "-s", str(PAYLOAD), "-I", source, destination)


@dataclass(frozen=True)
class PathRtt:
    """The ICMP echo round trip from ``client`` to ``server`` (host names), in µs: ``min_us``/``avg_us``/``max_us``
    (and ``mdev_us`` when the ping prints it) over ``received`` of ``sent`` echoes; ``times_us`` each echo's round
    trip in order (empty when the ping printed none); ``command`` the command as run (with the host it ran on),
    ``output`` its text, the evidence."""

    client: str
    server: str
    min_us: float
    avg_us: float
    max_us: float
    mdev_us: float | None
    sent: int
    received: int
    command: str = ""
    output: str = ""
    times_us: tuple[float, ...] = ()
    ipg_us: float | None = None

    @property
    def back_to_back(self) -> bool:
        """True when the echoes left one right after the other's reply (iputils' ``ipg`` — the mean gap between
        echoes — at most :data:`IDLE_GAP_US` longer than the mean round trip: root's adaptive ping, or a path slower
        than the 2 ms a user may send at), so neither end slept between them as it does not between busy
        transactions; False when the echoes were spaced (a user's adaptive ping on a fast path, an interval ping) or
        the ping printed no gap."""
        return self.ipg_us is not None and self.ipg_us - self.avg_us <= IDLE_GAP_US

    @property
    def typical_us(self) -> float:
        """The median echo round trip without the first echo (which often pays for a cold route or neighbour cache),
        µs; the average when the ping printed no per-echo times."""
        times = self.times_us[1:] if len(self.times_us) > 2 else self.times_us
        return statistics.median(times) if times else self.avg_us

    def text(self) -> str:
        """``"ICMP echo round trip 2,051 µs (median; min 2,003, max 2,140; 10 of 10 answered)"``."""
        return (f"ICMP echo round trip {us(self.typical_us)} \u00b5s (median; min {us(self.min_us)}, max "
                f"{us(self.max_us)}; {self.received} of {self.sent} answered)")


def parse_ping(text: str, client: str = "", server: str = "", command: str = "") -> PathRtt | None:
    """The :class:`PathRtt` of an iputils (``rtt min/avg/max/mdev = a/b/c/d ms``), BusyBox or ESXi
    (``round-trip min/avg/max = a/b/c ms``) or GNU inetutils (``round-trip min/avg/max/stddev = …``) ping, with each
    echo's ``time=… ms``; None when the text has no summary (no reply came back, or the output was cut). Reads at most
    the last 64 KiB. Never raises."""
    tail = text[-65536:]
    m = _SUMMARY_RE.search(tail)
    if m is None:
        return None
    stats = _STATS_RE.search(tail)
    sent = int(stats.group("sent")) if stats else 0
    received = int(stats.group("recv")) if stats else 0
    mdev = float(m.group("mdev")) * 1000 if m.group("mdev") else None
    times = tuple(float(t.group("ms")) * 1000 for t in _TIME_RE.finditer(tail))
    ipg = _IPG_RE.search(tail, m.end())
    return PathRtt(client, server, float(m.group("min")) * 1000, float(m.group("avg")) * 1000,
                   float(m.group("max")) * 1000, mdev, sent, received, command, text, times,
                   float(ipg.group("ipg")) * 1000 if ipg else None)


def ping_problem(rc: int | None, text: str, command: str, destination: str) -> str:
    """Why a ping that gave no :class:`PathRtt` measured nothing, in words: exit status 1 (iputils: no reply)
    → no echo came back; another status → the ping itself failed (its first error line). Never raises."""
    if rc == 1:
        return f"{command} got no reply from {destination} (ICMP echo blocked or dropped on the path)"
    first = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("PING")), "")
    return f"{command} failed (exit status {rc})" + (f": {first}" if first else "")


def max_payload(mtu: int | None) -> int:
    """The largest TCP_RR request (bytes) that is one frame each way, like the echo: ``MTU - 52`` (1448 at 1500)."""
    return (mtu or 1500) - TCP_OVERHEAD


#: Why a burst or bidirectional TCP_RR has no band (no echo is measured for it: it would not stand for it).
BURST_REASON = ("a burst or bidirectional TCP_RR keeps several transactions in flight; the echo round trip stands "
                "only for one request and one reply at a time")


def rr_no_band_reason(rtt: PathRtt, payload: int, *, mtu: int | None = None, direction: str = "send") -> str:
    """Why a TCP_RR of ``payload`` bytes is not judged against the echo round trip ``rtt`` ("" when it is): a
    burst/bidirectional run (several transactions in flight, :data:`BURST_REASON`), a request of several frames,
    or echoes lost."""
    if direction != "send":
        return BURST_REASON
    if payload > max_payload(mtu):
        return (f"a {payload}-byte request takes several TCP segments and their acknowledgements each way at MTU "
                f"{mtu or 1500}; the echo round trip stands only for requests up to {max_payload(mtu)} bytes "
                "(one frame each way)")
    if rtt.received < rtt.sent or rtt.received == 0:
        return (f"{rtt.sent - rtt.received} of {rtt.sent} echoes from {rtt.client} to {rtt.server} got no reply: the "
                "path drops packets, and a round trip measured on it says nothing firm; find the loss first")
    return ""


@dataclass(frozen=True)
class RrBand:
    """The TCP_RR band of one path, in µs per transaction: ``floor`` (the adaptive echo's minimum: the physical limit,
    below it a result is a measurement error), ``low`` … ``high`` (at most :data:`BAND_RATIO` apart, ``low`` never
    below ``floor``), ``nominal`` (median echo + stack cost + serialization); ``stack_us`` the per-transaction stack cost
    used and ``stack_basis`` where it came from; ``serial_note`` the longer frames' serialization, "" when none."""

    floor: float
    low: float
    nominal: float
    high: float
    stack_us: float
    stack_basis: str
    serial_note: str = ""


def rr_band_edges(rtt: PathRtt, payload: int = 1, link_gbps: float | None = None, *,
                  stack_us: float | None = None, stack_basis: str = "") -> RrBand:
    """The :class:`RrBand` of a TCP_RR transaction of ``payload`` bytes (one frame each way) on the path whose
    adaptive echo is ``rtt``: floor = echo minimum + the longer frames' extra serialization at ``link_gbps`` (one
    store-and-forward hop each way; not counted when the link speed is unknown); nominal = the typical (median) echo
    + the same serialization + ``stack_us``. When the echoes were spaced (:attr:`PathRtt.back_to_back` False: an end
    slept between them and each may carry a wake-up, 10 µs minimum against a 9 µs busy median on the test lab's
    veth) the echo minimum stands for the typical echo and the floor is that minimum less
    :data:`WAKEUP_ALLOWANCE_US`, at least :data:`SPACED_FLOOR_FRACTION` of it. ``stack_us`` is (the
    stack's per-transaction cost calibrated on this machine's loopback, :mod:`nicadvisor.bench.stack_cost`; None:
    :data:`WAKEUP_ALLOWANCE_US`, the wake-up of an unpinned round trip); low = max(floor, nominal / √3), high =
    nominal × √3, so that high / low ≤ :data:`BAND_RATIO`. Raises ValueError for a negative ``stack_us``."""
    if stack_us is not None and stack_us < 0:
        raise ValueError(f"stack cost {stack_us} µs is negative")
    extra_bytes = max(0, payload + TCP_OVERHEAD - ECHO_FRAME)
    serial = 2 * extra_bytes * 8 / (link_gbps * 1e3) if link_gbps else 0.0  # µs: bits / (Gbit/s × 1e3)
    note = (f"+ {serial:.1f} µs to serialize the {extra_bytes} more bytes each way at {link_gbps:g} Gbit/s"
            if serial >= 0.05 else "")
    if stack_us is None:
        stack_us, stack_basis = WAKEUP_ALLOWANCE_US, stack_basis or (
            f"no loopback calibration: the {WAKEUP_ALLOWANCE_US:g} µs wake-up of an unpinned round trip "
            f"({WAKEUP_SOURCE})")
    if rtt.back_to_back:
        floor, echo = rtt.min_us, max(rtt.typical_us, rtt.min_us)
    else:  # an end slept between echoes: even the fastest echo may carry a wake-up a busy loop does not pay
        floor = max(rtt.min_us - WAKEUP_ALLOWANCE_US, rtt.min_us * SPACED_FLOOR_FRACTION)
        echo = rtt.min_us
    floor += serial
    nominal = echo + serial + stack_us
    half = BAND_RATIO ** 0.5
    high = nominal * half
    low = max(floor, nominal / half)
    return RrBand(floor=floor, low=min(low, high), nominal=nominal, high=high, stack_us=stack_us,
                  stack_basis=stack_basis, serial_note=note)
