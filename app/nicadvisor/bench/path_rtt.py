"""The round trip of a path between two audited hosts, measured with ICMP echo right before each TCP_RR test on it,
and the TCP_RR band it gives. PURE here (argv, parsing, the band); :mod:`nicadvisor.bench.remote` runs the ping over
SSH.

Why: the published TCP_RR figures are of VMs on two hypervisors (vmfex-vs-vswitch-netperf.txt Table 3); between two
hosts nothing in the audit (link speed, MTU, PCIe) says how long a round trip takes, because that depends on the
switches and distance between them. The path's own ICMP echo round trip does. A small TCP_RR transaction is one
request and one reply on the same path ("RTT = 1e6 / transactions per second", vmfex-vs-vswitch-netperf.txt
'TCP Latency Performance'); it differs from an echo by the wake-up of the process that answers it (an echo is
answered in the peer's kernel) and by the TCP work on both ends. So the band says how much the hosts add to what the
path takes: it judges the hosts' request/response overhead, not the network. A slow or distant path is not a
failure of this test: the basis states the path's echo round trip in µs for the reader to judge.

An echo every 0.2 s finds both ends idle; a request/response loop keeps them busy. The idle echo therefore carries
wake-up time that a busy transaction need not pay, and a busy TCP_RR can be *faster* than the echo: in the test
lab (tests/bench/remote_lab.py, a tbf-shaped veth between two namespaces on a 2-vCPU VM) the echoes' minimum was
27-51 µs while netperf TCP_RR's median transaction took 15-17 µs when both ends ran on one vCPU (and 40-57 µs
when they did not; benchmarks/rr_band.py). So what the path can do is the echo minimum less that wake-up time
(:data:`WAKEUP_ALLOWANCE_US`), and a result far below it (under :data:`FLOOR_FRACTION` of it) did not cross the path
the echo crossed. How much an idle echo overstates is not a fixed figure (40 µs documented; 39 µs seen in the lab with
an ifb on the path), hence "far below" rather than 10 % below. On a path whose echo is within the wake-up time of
zero (a veth, one switch hop) there is no floor to speak of; a short-circuit is caught where it matters, on a path
whose echo is long (a WAN, a relay: a 4 ms echo gives a 2 ms floor).

The band describes the typical transaction (the median echo plus one wake-up), so it judges the median transaction
(P50: netperf ``-j`` ``P50_LATENCY``, the agent's own) where the tool reports it, the mean otherwise. The mean of a
request/response loop carries the waits of a busy CPU (measured in the lab with both vCPUs busy: P50 40-42 µs,
P99 2.8-4.1 ms, mean 97-140 µs), which ten idle echoes cannot represent; the mean and P99 are shown beside it.

Command: ``ping -c 10 -i 0.2 -W 1 -s 56 -I <source> <destination>`` (iputils: 10 echoes 0.2 s apart, the shortest
interval an unprivileged user may ask for; 56 bytes = the default echo payload, a 98-byte IPv4 frame, one frame
each way like a small TCP_RR request). Read-only: nothing is started or changed on a host but the ping.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

COUNT = 10
PAYLOAD = 56
ECHO_FRAME = PAYLOAD + 28  # bytes of IPv4 + ICMP + payload (RFC 791, RFC 792)
TCP_OVERHEAD = 52  # IPv4 20 + TCP 20 + timestamps option 12: the TCP payload one frame carries is MTU - 52
#: Wake-up time of a round trip (µs): added to the echo for the process wake-up a TCP_RR transaction has and an echo
#: has not (the server's), and taken off the echo minimum for the floor (the idle echo's wake-ups, which a busy loop
#: need not pay): "About 40 µs of every unpinned round trip is cross-vCPU wake-up or IPI latency, not network stack"
#: (shared/design/research/performance-baselines.md §2.4, netperf TCP_RR 1 byte, 54 µs unpinned vs 13.5 µs with both
#: ends on one CPU).
WAKEUP_ALLOWANCE_US = 40.0
WITHIN = 0.10
#: A TCP_RR under this fraction of what the path can do (echo minimum less the wake-up) did not cross the path: "far
#: below", this project's convention (issue 17 §4), for an idle echo whose wake-up is not a fixed figure.
FLOOR_FRACTION = 0.5
#: The figure of a result the echo band judges: the median transaction (``BenchResult.p50_latency_us``).
MEASURE = "p50_latency_us"
SOURCE = "vmfex-vs-vswitch-netperf.txt 'TCP Latency Performance' (RTT = 1e6 / transaction rate)"
WAKEUP_SOURCE = "performance-baselines.md §2.4 (about 40 µs of an unpinned round trip is a process wake-up)"

_NUM = r"\d{1,9}(?:\.\d{1,6})?"
_SUMMARY_RE = re.compile(rf"(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev))? = (?P<min>{_NUM})/(?P<avg>{_NUM})/"
                         rf"(?P<max>{_NUM})(?:/(?P<mdev>{_NUM}))? ms")
_STATS_RE = re.compile(r"(?P<sent>\d{1,9}) packets transmitted, (?P<recv>\d{1,9}) (?:packets )?received")
_TIME_RE = re.compile(rf"\btime[=<](?P<ms>{_NUM}) ?ms\b")


def ping_argv(source: str, destination: str) -> tuple[str, ...]:
    """``ping -c 10 -i 0.2 -W 1 -s 56 -I <source> <destination>`` (IPv4 addresses, as the probe read them)."""
    return ("ping", "-c", str(COUNT), "-i", "0.2", "-W", "1", "-s", str(PAYLOAD), "-I", source, destination)


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

    @property
    def typical_us(self) -> float:
        """The median echo round trip without the first echo (which often pays for a cold route or neighbour cache),
        µs; the average when the ping printed no per-echo times."""
        times = self.times_us[1:] if len(self.times_us) > 2 else self.times_us
        return statistics.median(times) if times else self.avg_us

    def text(self) -> str:
        """``"ICMP echo round trip 2,051 µs (median; min 2,003, max 2,140; 10 of 10 answered)"``."""
        return (f"ICMP echo round trip {self.typical_us:,.0f} \u00b5s (median; min {self.min_us:,.0f}, max "
                f"{self.max_us:,.0f}; {self.received} of {self.sent} answered)")


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
    return PathRtt(client, server, float(m.group("min")) * 1000, float(m.group("avg")) * 1000,
                   float(m.group("max")) * 1000, mdev, sent, received, command, text, times)


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


def rr_band_edges(rtt: PathRtt, payload: int = 1, link_gbps: float | None = None) -> tuple[float, float, float, str]:
    """``(low, nominal, high, serialization note)`` round trip in µs that a TCP_RR transaction of ``payload`` bytes
    (one frame each way) is expected to take on this path: nominal = the typical echo (:attr:`PathRtt.typical_us`)
    + :data:`WAKEUP_ALLOWANCE_US` (the answering process's wake-up, which an echo answered in the kernel has not) + the
    longer frames' extra serialization at ``link_gbps`` (one store-and-forward hop each way; not counted when the link
    speed is unknown); low = (the echo minimum + serialization − :data:`WAKEUP_ALLOWANCE_US`) ×
    :data:`FLOOR_FRACTION`, at least 0 (the idle echo's wake-ups, which a busy loop need not pay, off the fastest echo:
    what the path can do, and far below it the transactions did not cross it; module docstring); high = the
    typical echo × 1.10 + the same wake-up and serialization."""
    extra_bytes = max(0, payload + TCP_OVERHEAD - ECHO_FRAME)
    serial = 2 * extra_bytes * 8 / (link_gbps * 1e3) if link_gbps else 0.0  # µs: bits / (Gbit/s × 1e3)
    note = (f"+ {serial:.1f} µs to serialize the {extra_bytes} more bytes each way at {link_gbps:g} Gbit/s"
            if serial >= 0.05 else "")
    nominal = rtt.typical_us + WAKEUP_ALLOWANCE_US + serial
    high = rtt.typical_us * (1 + WITHIN) + WAKEUP_ALLOWANCE_US + serial
    low = min(max(0.0, rtt.min_us + serial - WAKEUP_ALLOWANCE_US) * FLOOR_FRACTION, nominal)
    return low, nominal, high, note
