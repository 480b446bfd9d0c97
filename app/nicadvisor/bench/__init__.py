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
PATHS = ("loopback", "netns")

__all__ = ["BenchError", "Cancelled", "PATHS", "TESTS", "TOOLS"]
