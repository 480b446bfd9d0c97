"""The round trip of a path between two audited hosts, measured with ICMP echo just before its TCP_RR test, and the
TCP_RR band it gives. PURE here (argv, parsing, the band); :mod:`nicadvisor.bench.remote` runs the ping over SSH.

Why: the published TCP_RR figures are of VMs on two hypervisors (vmfex-vs-vswitch-netperf.txt Table 3); between two
hosts nothing in the audit (link speed, MTU, PCIe) says how long a round trip takes, because that depends on the
switches and distance between them. The path's own ICMP echo round trip does: a 1-byte TCP_RR transaction is one
request and one reply on the same path ("RTT = 1e6 / transactions per second", vmfex-vs-vswitch-netperf.txt
'TCP Latency Performance'), plus the wake-up of the two benchmark processes that ICMP echo does not have (the echo
is answered in the peer's kernel). So a TCP_RR round trip far above the path's echo round trip points at the hosts
(interrupt coalescing, CPU power states, a busy CPU), not at the network.

Command: ``ping -c 10 -i 0.2 -W 1 -s 56 -I <source> <destination>`` (iputils: 10 echoes 0.2 s apart, the shortest
interval an unprivileged user may ask for; 56 bytes = the default echo payload, a 98-byte IPv4 frame, one frame
each way like a small TCP_RR request). Read-only: nothing is started or changed on a host but the ping.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

COUNT = 10
PAYLOAD = 56
#: The largest TCP_RR request/response (bytes) the echo round trip stands for: one frame each way at a 1500-byte
#: MTU (1500 − 20 IPv4 − 32 TCP with timestamps). A larger request takes several segments and their ACKs.
MAX_RR_PAYLOAD = 1448
#: Added to the echo round trip for the two processes' wake-ups (µs): "About 40 µs of every unpinned round trip is
#: cross-vCPU wake-up or IPI latency, not network stack" (shared/design/research/performance-baselines.md §2.4,
#: netperf TCP_RR 1 byte on a 2-vCPU VM: 54 µs unpinned against 13.5 µs with both ends on one CPU); rounded up.
WAKEUP_ALLOWANCE_US = 50.0
WITHIN = 0.10
SOURCE = "vmfex-vs-vswitch-netperf.txt 'TCP Latency Performance' (RTT = 1e6 / transaction rate)"
WAKEUP_SOURCE = "performance-baselines.md §2.4 (about 40 µs of an unpinned round trip is process wake-up)"

_SUMMARY_RE = re.compile(r"(?:rtt|round-trip) min/avg/max(?:/mdev)? = (?P<min>\d{1,9}(?:\.\d{1,6})?)/"
                         r"(?P<avg>\d{1,9}(?:\.\d{1,6})?)/(?P<max>\d{1,9}(?:\.\d{1,6})?)(?:/(?P<mdev>\d{1,9}"
                         r"(?:\.\d{1,6})?))? ms")
_STATS_RE = re.compile(r"(?P<sent>\d{1,9}) packets transmitted, (?P<recv>\d{1,9}) (?:packets )?received")


def ping_argv(source: str, destination: str) -> tuple[str, ...]:
    """``ping -c 10 -i 0.2 -W 1 -s 56 -I <source> <destination>`` (IPv4 addresses, as the probe read them)."""
    return ("ping", "-c", str(COUNT), "-i", "0.2", "-W", "1", "-s", str(PAYLOAD), "-I", source, destination)


@dataclass(frozen=True)
class PathRtt:
    """The ICMP echo round trip from ``client`` to ``server`` (host names), in µs: ``min_us``/``avg_us``/``max_us``
    (and ``mdev_us`` when iputils prints it) over ``received`` of ``sent`` echoes; ``command`` the command as run
    (with the host it ran on), ``output`` its text, the evidence."""

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

    def text(self) -> str:
        """``"ICMP echo round trip 2,051 µs (min 2,003, max 2,140; 10 of 10 answered)"``."""
        return (f"ICMP echo round trip {self.avg_us:,.0f} \u00b5s (min {self.min_us:,.0f}, max {self.max_us:,.0f}; "
                f"{self.received} of {self.sent} answered)")


def parse_ping(text: str, client: str = "", server: str = "", command: str = "") -> PathRtt | None:
    """The :class:`PathRtt` of an iputils (``rtt min/avg/max/mdev = a/b/c/d ms``) or BusyBox
    (``round-trip min/avg/max = a/b/c ms``) ping summary; None when the text has no summary (no reply came back, or
    the output was cut). Never raises."""
    m = _SUMMARY_RE.search(text[-4096:])
    if m is None:
        return None
    stats = _STATS_RE.search(text[-4096:])
    sent = int(stats.group("sent")) if stats else 0
    received = int(stats.group("recv")) if stats else 0
    mdev = float(m.group("mdev")) * 1000 if m.group("mdev") else None
    return PathRtt(client, server, float(m.group("min")) * 1000, float(m.group("avg")) * 1000,
                   float(m.group("max")) * 1000, mdev, sent, received, command, text)


def rr_band_edges(rtt: PathRtt) -> tuple[float, float, float]:
    """``(low, nominal, high)`` round trip in µs that a small TCP_RR transaction on this path is expected to take:
    nominal = the echo minimum (the path's own round trip: echoes 0.2 s apart often meet idle CPUs that wake late,
    which a busy TCP_RR loop does not), low = minimum × 0.90, high = the echo average × 1.10 +
    :data:`WAKEUP_ALLOWANCE_US` (the two benchmark processes' wake-ups that an echo does not have)."""
    return rtt.min_us * (1 - WITHIN), rtt.min_us, max(rtt.min_us, rtt.avg_us * (1 + WITHIN) + WAKEUP_ALLOWANCE_US)


def rr_no_band_reason(payload: int) -> str:
    """Why a TCP_RR of ``payload`` bytes is not judged against the echo round trip ("" when it is)."""
    if payload <= MAX_RR_PAYLOAD:
        return ""
    return (f"a {payload}-byte request takes several TCP segments and their acknowledgements each way; the path's "
            f"ICMP echo round trip stands only for requests up to {MAX_RR_PAYLOAD} bytes (one frame each way)")
