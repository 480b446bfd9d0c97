"""Quick network benchmark: netperf, iperf3 and a built-in pure-Python agent, on loopback or on a
veth pair between two private network namespaces, with an expected-value model.

Modules: ``results`` (frozen result dataclasses), ``procs`` (subprocess helpers with timeouts and
cancel), ``netperf``, ``iperf3``, ``agent``, ``netns``, ``journal`` (crash-safe undo log),
``expected`` (pure expected-value model). The use-case entry point is
``nicadvisor.services.bench.run_quick_bench``.
"""
from __future__ import annotations

from nicadvisor.cancel import Cancelled as _Cancelled


class Cancelled(_Cancelled):
    """The caller's cancel event was set: the running test was stopped and the host restored
    (a :class:`nicadvisor.cancel.Cancelled`, like every cancelled use-case)."""


class BenchError(RuntimeError):
    """A benchmark tool could not run or gave no readable result; the message says which and why."""


TESTS = ("TCP_STREAM", "TCP_RR", "TCP_CRR", "UDP_STREAM")
TOOLS = ("netperf", "iperf3", "agent")
#: What a user may ask for: a tool, or ``auto`` (netperf, else iperf3, else the agent).
TOOL_CHOICES = ("auto",) + TOOLS
PATHS = ("loopback", "netns")
#: Seconds per test without a profile (a profile has its own: :mod:`nicadvisor.bench.catalogue`).
DEFAULT_DURATION_S = 2.0


def check_run_options(tests: tuple[str, ...] | list[str], duration_s: float, tool: str) -> None:
    """The checks every benchmark request shares: at least one known test (:data:`TESTS`), a duration in
    (0, 600] seconds, a tool of :data:`TOOL_CHOICES`. Raises ValueError naming the first bad value."""
    if not tests:
        raise ValueError("no test requested")
    for t in tests:
        if t not in TESTS:
            raise ValueError(f"test {t!r} is not one of {TESTS}")
    if not 0 < duration_s <= 600:
        raise ValueError(f"duration {duration_s} s is outside (0, 600]")
    if tool not in TOOL_CHOICES:
        raise ValueError(f"tool {tool!r} is not one of {TOOL_CHOICES}")


__all__ = ["BenchError", "Cancelled", "DEFAULT_DURATION_S", "PATHS", "TESTS", "TOOLS", "TOOL_CHOICES", "check_run_options"]
