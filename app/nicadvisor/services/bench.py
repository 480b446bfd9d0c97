"""Use-case: the quick network benchmark (first slice).

``run_quick_bench(request, progress, cancel)`` runs the requested tests with netperf, iperf3 or the
built-in agent on loopback or on a private veth path between two network namespaces (optionally
rate-limited with tc tbf and with a chosen MTU), attaches the expected value of each result
(:mod:`nicadvisor.bench.expected`) and returns a :class:`~nicadvisor.bench.results.BenchReport`.

Host changes are journaled (:mod:`nicadvisor.bench.journal`): every run first undoes what a crashed
or killed earlier run left, and always undoes its own changes before returning or raising.
"""
from __future__ import annotations

import re
import socket
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from nicadvisor.bench import DEFAULT_DURATION_S, PATHS, BenchError, Cancelled, check_run_options
from nicadvisor.bench import agent, iperf3, netperf
from nicadvisor.bench.catalogue import (
    FULL_DURATION_S, PROFILES, QUICK_DURATION_S, TestSpec, not_measurable_result, run_spec, tools_for, why_not,
)
from nicadvisor.bench.expected import expected_for, no_band_reason
from nicadvisor.bench.journal import Journal, restore_from_journal
from nicadvisor.bench.netns import NetnsError, NetnsPair, can_create, create_pair, destroy_pair
from nicadvisor.bench.procs import LOOPBACK
from nicadvisor.bench.results import BenchReport, BenchResult

Progress = Callable[[float, str], None]

_CAN_RUN = {"netperf": netperf.TESTS, "iperf3": iperf3.TESTS, "agent": agent.TESTS}
_RUNNERS = {"netperf": netperf.run_netperf, "iperf3": iperf3.run_iperf3, "agent": agent.run_agent}


@dataclass(frozen=True)
class BenchRequest:
    """What to measure.

    * ``path``: ``"loopback"`` (127.0.0.1) or ``"netns"`` (veth between two namespaces; root only).
    * ``tests``: any of ``"TCP_STREAM"``, ``"TCP_RR"``, ``"TCP_CRR"``, ``"UDP_STREAM"``, run in order.
    * ``duration_s``: seconds per test (netperf and iperf3 round to whole seconds, at least 1).
    * ``tool``: ``"auto"`` (netperf if installed, else iperf3 for stream tests, else the agent),
      ``"netperf"``, ``"iperf3"`` or ``"agent"``.
    * ``rate_mbit``: tc tbf rate in Mbit/s on the netns path (None = unshaped).
    * ``mtu``: veth MTU in bytes on the netns path (None = 1500).
    * ``profile``: None (run ``tests``), or ``"quick"`` / ``"full"``: the test catalogue's profile
      (:mod:`nicadvisor.bench.catalogue`) with ``duration_s`` seconds per run and ``repetitions`` runs averaged
      (None: the profile's own, quick 1 and full 3);
      a test no installed tool can run gives a result that says so (``not_measurable``), never a figure.
    """

    path: str = "loopback"
    tests: tuple[str, ...] = ("TCP_STREAM", "TCP_RR")
    duration_s: float = DEFAULT_DURATION_S
    tool: str = "auto"
    rate_mbit: int | None = None
    mtu: int | None = None
    profile: str | None = None
    repetitions: int | None = None

    def validate(self) -> None:
        """Raises ValueError naming the first bad field."""
        if self.profile is not None and self.profile not in PROFILES:
            raise ValueError(f"profile {self.profile!r} is not one of {tuple(PROFILES)}")
        if self.repetitions is not None and not 1 <= self.repetitions <= 10:
            raise ValueError(f"repetitions {self.repetitions} is outside 1..10")
        if self.path not in PATHS:
            raise ValueError(f"path {self.path!r} is not one of {PATHS}")
        check_run_options(self.tests, self.duration_s, self.tool)
        if self.rate_mbit is not None and not 0 < self.rate_mbit <= MAX_RATE_MBIT:
            raise ValueError(f"rate {self.rate_mbit} Mbit/s is outside 1..{MAX_RATE_MBIT}")
        if self.mtu is not None and not MIN_MTU <= self.mtu <= 65535:
            raise ValueError(f"MTU {self.mtu} is outside {MIN_MTU}..65535 bytes")


def duration_for(profile: str | None, duration_s: float | None = None) -> float:
    """The seconds per test of a run: ``duration_s`` when given, else the profile's (``"quick"``:
    :data:`~nicadvisor.bench.catalogue.QUICK_DURATION_S`, ``"full"``: ``FULL_DURATION_S``), else
    :data:`nicadvisor.bench.DEFAULT_DURATION_S`. Pure."""
    if duration_s is not None:
        return duration_s
    return {"quick": QUICK_DURATION_S, "full": FULL_DURATION_S}.get(profile or "", DEFAULT_DURATION_S)


#: The fastest tbf shaping asked for (Mbit/s, 400 Gbit/s): tc refuses the burst of a larger rate, and the run then
#: fell back to loopback without the shaping that was asked for.
MAX_RATE_MBIT = 400_000
#: The smallest path MTU (bytes) a benchmark runs at: below it no TCP goodput can be estimated
#: (:func:`nicadvisor.bench.expected.tcp_goodput_fraction`), so the results would be lost after the run.
MIN_MTU = 576


def _installed(tool: str) -> bool:
    if tool == "netperf":
        return netperf.available()
    if tool == "iperf3":
        return iperf3.available()
    return True  # the agent is this package


def choose_tool(test: str, wanted: str) -> tuple[str | None, str | None]:
    """``(tool, problem)`` for ``test``: the tool to use (None = the test cannot run here) and a
    sentence when the wish could not be met exactly. ``wanted`` is a :data:`nicadvisor.bench.TOOL_CHOICES` value."""
    if wanted != "auto":
        if test not in _CAN_RUN[wanted]:
            return None, f"{wanted} cannot run {test}; skipped"
        if _installed(wanted):
            return wanted, None
        fallback, _ = choose_tool(test, "auto")
        if fallback is None:
            return None, f"{wanted} is not installed and no other tool can run {test}; skipped"
        return fallback, f"{wanted} is not installed; {test} runs with {fallback}"
    for tool in ("netperf", "iperf3", "agent"):
        if test in _CAN_RUN[tool] and _installed(tool):
            return tool, None
    return None, f"no installed tool can run {test} (needs netperf); skipped"


def _spec_tool(spec: TestSpec, wanted: str) -> str:
    """The tool to run a catalogue test with: ``wanted`` when it is installed or cannot run the test at all (the
    result then says "not measurable with <tool>"), else the first installed tool that can run it (netperf, iperf3,
    agent); the agent, which is always there, when none can (its not-measurable sentence says why)."""
    if wanted != "auto" and (_installed(wanted) or why_not(spec, wanted)):
        return wanted
    return next((t for t in tools_for(spec) if _installed(t)), "agent")


def _where(path: str, pair: NetnsPair | None) -> str:
    """Which machine and path a result measured, in words (every report shows it beside the result)."""
    machine = socket.gethostname()
    if path == "netns" and pair is not None:
        shaped = f", shaped to {pair.rate_mbit} Mbit/s" if pair.rate_mbit else ""
        return (f"two network namespaces on {machine} joined by a veth pair (MTU {pair.mtu or 'default'}{shaped}): "
                "the machine running NIC Advisor, not an audited host")
    return f"127.0.0.1 → 127.0.0.1 on {machine}: the machine running NIC Advisor, not an audited host"


_WHERE_NETNS = re.compile(r"joined by a veth pair \(MTU (\d+|default)(?:, shaped to (\d+) Mbit/s)?\)")


def path_of_where(endpoints: str) -> tuple[int | None, int | None]:
    """``(rate_mbit, mtu)`` of a netns result's ``endpoints`` as :func:`_where` words it (None: unshaped, default
    MTU, or not a netns result): what a run must set again to measure the same path (``verify --bench``). Pure."""
    m = _WHERE_NETNS.search(endpoints or "")
    if m is None:
        return None, None
    return (int(m.group(2)) if m.group(2) else None), (int(m.group(1)) if m.group(1).isdigit() else None)


def run_quick_bench(request: BenchRequest, progress: Progress | None = None,
                    cancel: threading.Event | None = None, *,
                    journal_dir: Path | str | None = None) -> BenchReport:
    """Run ``request`` and return its report (results in test order, problems as sentences).

    ``progress(fraction 0..1, message)`` is called from the calling thread before each test, about
    every 0.1 s during a tool run, and with 1.0 at the end. ``cancel``: when set, the running test
    is stopped within about 0.1-0.2 s, namespaces and processes are removed, and
    :class:`nicadvisor.bench.Cancelled` is raised. ``journal_dir``: journal location (default
    ``platformdirs.user_state_dir("nic-advisor")``).

    A non-root caller asking for ``"netns"`` gets a problem sentence and a loopback run; a test that
    fails is reported in ``problems`` and the others still run. Raises ValueError for an invalid
    request, OSError when the undo journal cannot be written (no change is made without it).
    """
    request.validate()
    report: Progress = progress or (lambda _f, _m: None)
    problems: list[str] = []
    results: list[BenchResult] = []

    restored = restore_from_journal(journal_dir)
    problems += [f"cleaned up after an earlier run: {s}" for s in restored.undone]
    problems += [f"could not clean up after an earlier run: {s}" for s in restored.failed]
    if cancel is not None and cancel.is_set():
        raise Cancelled()

    path = request.path
    if path == "netns":
        reason = can_create()
        if reason:
            problems.append(f"{reason}: falling back to the loopback path")
            path = "loopback"
    if path == "loopback" and (request.rate_mbit is not None or request.mtu is not None):
        problems.append("rate_mbit and mtu apply only to the netns path; ignored on loopback")

    plan: list[tuple[str | TestSpec, str]] = []
    if request.profile is not None:
        timing = {"repetitions": request.repetitions} if request.repetitions else {}
        specs = PROFILES[request.profile](duration_s=request.duration_s, **timing)
        plan = [(spec, _spec_tool(spec, request.tool)) for spec in specs]
    for test in request.tests if request.profile is None else ():
        tool, problem = choose_tool(test, request.tool)
        if problem:
            problems.append(problem)
        if tool:
            plan.append((test, tool))

    journal = Journal(journal_dir)
    pair: NetnsPair | None = None
    try:
        if path == "netns":
            report(0.0, "creating the namespace path")
            try:
                pair = create_pair(journal, mtu=request.mtu, rate_mbit=request.rate_mbit)
            except NetnsError as exc:
                problems.append(f"{exc}: falling back to the loopback path")
                path = "loopback"
        endpoints = pair.endpoints() if pair else LOOPBACK
        n = max(1, len(plan))
        for i, (item, tool) in enumerate(plan):
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            spec = item if isinstance(item, TestSpec) else None
            test = spec.test if spec else str(item)
            runs = spec.repetitions if spec else 1
            message = f"{spec.name if spec else test} with {tool} on {path} ({request.duration_s:g} s" + \
                (f" × {runs})" if runs > 1 else ")")
            report(i / n, message)

            def on_tick(elapsed: float, i: int = i, message: str = message, runs: int = runs) -> None:
                report(min(i + min(elapsed / (request.duration_s * runs), 0.99), n) / n, message)

            try:
                if spec is not None:
                    result = run_spec(spec, tool, journal, endpoints=endpoints, cancel=cancel, on_tick=on_tick)
                else:
                    result = _RUNNERS[tool](test, journal, endpoints=endpoints, duration_s=request.duration_s,
                                            cancel=cancel, on_tick=on_tick)
            except BenchError as exc:
                problems.append(f"{spec.name}: {exc}" if spec else str(exc))
                continue
            if not result.measured:
                results.append(replace(result, endpoints=_where(path, pair)))
                continue
            datagram = spec.payload if spec is not None and test == "UDP_STREAM" else None
            expected = expected_for(test, path, rate_mbit=pair.rate_mbit if pair else None,
                                    mtu=pair.mtu if pair else None, datagram=datagram)
            why = "" if expected else no_band_reason(test, None, None, path=path,
                                                     rate_mbit=pair.rate_mbit if pair else None)
            results.append(replace(result, expected=expected, endpoints=_where(path, pair), no_expectation=why))
        report(1.0, "done")
    finally:
        if pair is not None:
            problems += destroy_pair(pair, journal)
        leftover = journal.undo_all()
        problems += [f"could not undo: {s}" for s in leftover.failed]
        journal.close()
    return BenchReport(results=results, problems=problems)
