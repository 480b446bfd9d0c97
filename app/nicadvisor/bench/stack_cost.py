"""The TCP stack's cost per request/response transaction on this machine, calibrated on its loopback: what a
TCP_RR transaction adds to the echo round trip of the path it crosses (:mod:`nicadvisor.bench.path_rtt`).

On loopback there is no wire: a netperf TCP_RR transaction there is the two stacks' work and the answering
process's wake-up, and an adaptive ICMP echo there is the kernel's echo alone. Their difference,
``TCP_RR median − echo minimum``, is the per-transaction cost a host-to-host TCP_RR adds to its path's echo
(issue 28 §1: "the ceiling is the floor plus the stack's per-transaction cost, calibrated on this machine's
loopback"). It is measured right before the band is built, so it carries the machine's present load as the
transactions did. It is this machine's stack: the hosts of a host-to-host test may differ, and the band's basis says
which machine was calibrated.

Commands (loopback only, nothing else is touched): ``ping -c 50 -A -W 1 -s 56 127.0.0.1`` and netperf
``TCP_RR`` against a netserver it starts on 127.0.0.1 (journaled and always stopped, :func:`nicadvisor.bench.
netperf.run_netperf`).
"""
from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass

from . import BenchError, Cancelled
from .journal import Journal
from .path_rtt import PathRtt, parse_ping, us
from .procs import LOOPBACK
from .sysutil import run_cmd

#: netperf's TCP_RR run for the calibration, seconds: long enough for a stable median (thousands of transactions).
DURATION_S = 1.0
PING_ARGV = ("ping", "-c", "50", "-A", "-W", "1", "-s", "56", "127.0.0.1")


@dataclass(frozen=True)
class StackCost:
    """The per-transaction stack cost of this machine, µs: ``cost_us`` = ``rr_p50_us`` (netperf TCP_RR median
    transaction on loopback) − ``echo_min_us`` (adaptive ICMP echo minimum on loopback), at least 0; ``evidence`` the
    two commands and the figures they gave."""

    cost_us: float
    rr_p50_us: float
    echo_min_us: float
    evidence: str

    def basis(self) -> str:
        """``"stack cost 7.1 µs calibrated on this machine's loopback (netperf TCP_RR median 8.3 µs − adaptive echo
        minimum 1.2 µs)"``."""
        return (f"stack cost {us(self.cost_us)} µs calibrated on this machine's loopback (netperf TCP_RR median "
                f"{us(self.rr_p50_us)} µs − adaptive echo minimum {us(self.echo_min_us)} µs)")


def stack_cost_of(rr_p50_us: float, echo: PathRtt, evidence: str = "") -> StackCost:
    """The :class:`StackCost` of a loopback TCP_RR median ``rr_p50_us`` (µs) and a loopback echo ``echo``. Pure.
    Raises ValueError for a non-positive median."""
    if not rr_p50_us > 0:
        raise ValueError(f"a TCP_RR median of {rr_p50_us} µs is not a measurement")
    return StackCost(cost_us=max(0.0, rr_p50_us - echo.min_us), rr_p50_us=rr_p50_us, echo_min_us=echo.min_us,
                     evidence=evidence)


def measure_stack_cost(journal: Journal, cancel: threading.Event | None = None) -> StackCost | str:
    """Measure :class:`StackCost` on this machine's loopback now (about 1.5 s), or say in a sentence why it could not
    be (netperf or ping missing, a failed run). Raises :class:`~nicadvisor.bench.Cancelled` when ``cancel`` is set."""
    from .netperf import run_netperf  # netperf imports results; kept lazy like the other tool runners

    if shutil.which("netperf") is None or shutil.which("netserver") is None:
        return "netperf is not installed here: the stack cost was not calibrated"
    if shutil.which("ping") is None:
        return "ping is not installed here: the stack cost was not calibrated"
    if cancel is not None and cancel.is_set():
        raise Cancelled()
    got = run_cmd(list(PING_ARGV), timeout_s=15.0)
    echo = parse_ping(got.stdout, "loopback", "loopback", " ".join(PING_ARGV))
    if echo is None or echo.received == 0:
        return f"{' '.join(PING_ARGV)} measured nothing (exit status {got.rc}): the stack cost was not calibrated"
    try:
        rr = run_netperf("TCP_RR", journal, endpoints=LOOPBACK, duration_s=DURATION_S, cancel=cancel)
    except BenchError as exc:
        return f"the loopback TCP_RR failed ({exc}): the stack cost was not calibrated"
    median = rr.p50_latency_us or rr.latency_us
    if not median:
        return "the loopback TCP_RR reported no transaction time: the stack cost was not calibrated"
    evidence = (f"$ {' '.join(PING_ARGV)}\n{got.stdout.strip()}\n$ {rr.command}\n"
                f"median transaction {us(median)} µs")
    return stack_cost_of(median, echo, evidence)
