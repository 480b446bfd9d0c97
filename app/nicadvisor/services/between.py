"""Use-case: the benchmark between audited hosts over SSH, with its expectation and the MTU path check: one flow for
``nic-advisor bench --between`` and the wizard's Benchmark page.

1. :func:`prepare_between` connects to every host (host keys verified) and probes it read-only
   (:meth:`nicadvisor.bench.remote.RemoteBench.prepare`): :attr:`PreparedBetween.plan` says exactly what would
   change on which host. Nothing changes.
2. The front end shows the plan and asks (:attr:`PreparedBetween.needs_confirmation`: only when tests are to run;
   the MTU check is read-only), or closes the connections (:meth:`PreparedBetween.close`).
3. :func:`run_between` runs what was asked, in one call: first the TEP mesh (don't-fragment pings at each sender's
   MTU and at 1600 bytes, from every ESXi TEP vmknic and Linux test address to every other host's:
   :meth:`~nicadvisor.bench.remote.RemoteBench.check_mtu_paths`), then the tests (every change journaled and undone after success, cancel or a crash). Each
   result is judged against the band of its own path from the audit of its hosts
   (:mod:`nicadvisor.services.bench_expect`); the results are added to that audit and the mesh's rows become its
   hosts' ``path_tests`` (:mod:`nicadvisor.services.mtu_check`), in the history when the audit is stored.

The audit is the one the caller holds (the wizard's), else the stored audit ``request.audit_id``, else the newest
stored audit that holds these hosts (:func:`nicadvisor.services.bench_expect.find_audit`); what happened with it is
said in :attr:`BetweenOutcome.notes`.
"""
from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping

from nicadvisor.bench.catalogue import PROFILES
from nicadvisor.bench.journal import Journal
from nicadvisor.bench.results import BenchReport
from nicadvisor.bench.stack_cost import StackCost, measure_stack_cost
from nicadvisor.model.entities import PATH_UNREACHABLE
from nicadvisor.services.bench import duration_for
from nicadvisor.services.bench_expect import attach_expectations, audit_label, audited_host, find_audit, path_end

if TYPE_CHECKING:
    from nicadvisor.model.entities import PathTest
    from nicadvisor.bench.remote import RemoteBench, RemotePlan, RemoteRequest
    from nicadvisor.model.entities import Audit
    from nicadvisor.model.text import SecretScrubber
    from nicadvisor.store.history import AuditStore

Progress = Callable[[float, str], None]
#: The share of the progress bar the MTU check takes when tests follow it.
MTU_SHARE = 0.2


@dataclass(frozen=True)
class BetweenRequest:
    """What to run between ``hosts`` (the SSH targets of :func:`nicadvisor.services.targets.build_targets`, kind
    ``linux`` or ``esxi``, at least two; every pair, the first of a pair sends).

    * ``interfaces``: ``target.source`` (``ssh://user@host:port``) → the interface whose IPv4 address a host tests
      from (default: its SSH address; on ESXi a TEP vmknic, default its first).
    * ``tests`` (netperf names, in order), or ``profile`` ``"quick"``/``"full"``: the test catalogue
      (:mod:`nicadvisor.bench.catalogue`) with ``repetitions`` runs averaged (None: the profile's own);
      ``duration_s`` seconds per test (None: the profile's, else :data:`~nicadvisor.bench.DEFAULT_DURATION_S`);
      ``tool`` (``auto``, ``netperf``, ``iperf3``, ``agent``); ``port``: the servers' TCP port (None: 5201).
    * ``run_tests``: run the tests (they change the hosts: confirm the plan first); ``mtu_check``: the TEP mesh first
      (read-only: :meth:`nicadvisor.bench.remote.RemoteBench.check_mtu_paths`). At least one of them.
    * ``audit_id``: the stored audit whose facts set the expected values and that receives the results (None: the
      newest that holds these hosts, or the audit the caller passes to :func:`run_between`).
    """

    hosts: tuple = ()
    interfaces: Mapping[str, str] = field(default_factory=dict)
    tests: tuple[str, ...] = ("TCP_STREAM", "TCP_RR")
    profile: str | None = None
    duration_s: float | None = None
    repetitions: int | None = None
    tool: str = "auto"
    port: int | None = None
    run_tests: bool = True
    mtu_check: bool = False
    audit_id: int | None = None

    def scrubber(self) -> "SecretScrubber":
        """What removes the passwords sent to :attr:`hosts` from server text (a hostile host may echo them in a
        ping's or a probe's output): :func:`nicadvisor.services.live.targets_scrubber`."""
        from nicadvisor.services.live import targets_scrubber

        return targets_scrubber(self.hosts)

    def remote_request(self) -> "RemoteRequest":
        """The :class:`~nicadvisor.bench.remote.RemoteRequest` of this request. Raises ValueError naming the first
        bad field (fewer than two hosts, a host named twice, a bad interface name, test, tool, duration, profile or
        repetitions; neither tests nor the MTU check asked for)."""
        from nicadvisor.bench.remote import DEFAULT_PORT, RemoteHost, RemoteRequest

        if not (self.run_tests or self.mtu_check):
            raise ValueError("nothing to run: ask for the tests, the MTU check or both")
        if self.profile is not None and self.profile not in PROFILES:
            raise ValueError(f"profile {self.profile!r} is not one of {tuple(PROFILES)}")
        if self.repetitions is not None and not 1 <= self.repetitions <= 10:
            raise ValueError(f"repetitions {self.repetitions} is outside 1..10")
        seconds = duration_for(self.profile, self.duration_s)
        timing = {"repetitions": self.repetitions} if self.repetitions else {}
        specs = tuple(PROFILES[self.profile](duration_s=seconds, **timing)) if self.profile else ()
        hosts = tuple(RemoteHost(t, self.interfaces.get(t.source) or None) for t in self.hosts)
        request = RemoteRequest(hosts=hosts, tests=tuple(self.tests), duration_s=seconds, tool=self.tool,
                                port=self.port or DEFAULT_PORT, specs=specs, run_tests=self.run_tests)
        request.validate()
        return request

    def validate(self) -> None:
        """Raises ValueError as :meth:`remote_request`."""
        self.remote_request()


@dataclass
class PreparedBetween:
    """A benchmark between hosts connected and probed (:func:`prepare_between`), waiting for the front end:
    ``plan`` (:class:`~nicadvisor.bench.remote.RemotePlan`; :meth:`plan_lines` is what to show), ``bench`` holds the
    SSH connections, ``problems``: sentences the front end adds (targets it could not build). Context manager:
    leaving it closes the connections."""

    request: BetweenRequest
    bench: "RemoteBench"
    plan: "RemotePlan"
    problems: list[str] = field(default_factory=list)

    @property
    def needs_confirmation(self) -> bool:
        """True when tests are to run and can: the plan changes the hosts, so the user confirms it first."""
        return self.request.run_tests and bool(self.plan.tests)

    @property
    def can_run(self) -> bool:
        """True when something can run: a planned test, or the MTU check between two probed hosts."""
        return self.needs_confirmation or (self.request.mtu_check and len(self.bench.probes) >= 2)

    def plan_lines(self) -> list[str]:
        """The plan in words: per host what changes (or that nothing does), the tests and their total time (server
        text in it without the passwords sent: :meth:`BetweenRequest.scrubber`)."""
        return list(map(self.request.scrubber(), self.plan.lines()))

    def reach_problems(self) -> list[str]:
        """What kept a check from running: targets not built, hosts not reached or probed (tests asked: every problem
        of the plan), without the passwords sent."""
        return list(map(self.request.scrubber(), self.problems + (
            list(self.plan.problems) if self.request.run_tests else list(self.bench.problems))))

    def close(self) -> None:
        """Close every SSH connection (idempotent)."""
        self.bench.close()

    def __enter__(self) -> "PreparedBetween":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class BetweenOutcome:
    """What :func:`run_between` did.

    ``report``: the tests' :class:`~nicadvisor.bench.results.BenchReport`, each result judged (None when no test was
    asked or could run); ``mtu_paths``: the MTU check's results, one per sender, receiver and frame size ([] when
    not asked); ``audit``: the audit the results were judged with and added to, updated (a copy of the one passed
    in; None when no audit holds these hosts); ``notes``: what happened with that audit and the history, as
    sentences; ``problems``: what went wrong (hosts not reached, tests that failed to run), as sentences."""

    request: BetweenRequest
    report: BenchReport | None = None
    mtu_paths: list["PathTest"] = field(default_factory=list)
    audit: "Audit | None" = None
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def tests_report(self) -> BenchReport:
        """:attr:`report`, or (no test ran) an empty report holding :attr:`problems`."""
        return self.report if self.report is not None else BenchReport([], list(self.problems))

    @property
    def failed(self) -> bool:
        """A test FAILs its band, or a frame size did not cross a path (its sender refused it, the path dropped it,
        or no reply came): an unreachable peer proves nothing about the MTU and is not counted here."""
        tests = self.report.results if self.report else []
        return any(r.verdict() == "fail" for r in tests) or any(
            r.ok is False and r.cause != PATH_UNREACHABLE for r in self.mtu_paths)

    @property
    def complete(self) -> bool:
        """Everything asked gave an answer: the tests results, the mesh a pass or an MTU failure for every size (a
        ping that did not run, or a peer that does not answer at all, proves nothing)."""
        tests_ok = not self.request.run_tests or bool(self.report and self.report.results)
        mtu_ok = not self.request.mtu_check or (bool(self.mtu_paths) and all(
            r.ok is not None and r.cause != PATH_UNREACHABLE for r in self.mtu_paths))
        return tests_ok and mtu_ok


def prepare_between(request: BetweenRequest, progress: Progress | None = None,
                    cancel: threading.Event | None = None, *, ask_host_key: Callable[[str, int, str, str], bool]
                    | None = None, known_hosts: Any = None, journal_dir: Any = None) -> PreparedBetween:
    """Connect to and probe the hosts of ``request`` (read-only; ``ask_host_key(host, port, key_type, fingerprint)``
    decides first-contact host keys no trusted fingerprint covers; ``known_hosts``: the store, default the app's;
    ``journal_dir``: the undo journal's folder, default the app's). Hosts that cannot be reached are problems of the
    plan. Raises ValueError for an invalid request, :class:`~nicadvisor.cancel.Cancelled`."""
    from nicadvisor.bench.remote import RemoteBench

    bench = RemoteBench(request.remote_request(), known_hosts=known_hosts, ask=ask_host_key, cancel=cancel,
                        journal_dir=journal_dir)
    try:
        plan = bench.prepare(progress)
    except BaseException:
        bench.close()
        raise
    return PreparedBetween(request, bench, plan)


def audit_refusal(request: BetweenRequest, store: "AuditStore") -> str:
    """Why ``request.audit_id`` cannot be used for these hosts, checked before anything runs ("" when it can, or no
    audit is named): an id the history does not hold, or an audit that holds none of the hosts (their results would
    land in another estate's audit)."""
    from nicadvisor.store import AuditNotFound, HistoryError

    if request.audit_id is None:
        return ""
    try:
        audit = store.load(request.audit_id)
    except (AuditNotFound, HistoryError, OSError) as exc:
        return str(exc)
    if not any(audited_host(audit.hosts, t.name, t.source) for t in request.hosts):
        return f"{audit_label(audit)} holds none of these hosts"
    return ""


def _audit_of_hosts(request: BetweenRequest, store: "AuditStore | None", notes: list[str]) -> "Audit | None":
    from nicadvisor.store import AuditNotFound, HistoryError

    if store is None:
        return None
    try:
        if request.audit_id is not None:
            return store.load(request.audit_id)
        return find_audit(store, [t.source for t in request.hosts], [t.name for t in request.hosts])
    except (AuditNotFound, HistoryError, OSError) as exc:
        notes.append(f"the audit of these hosts cannot be read ({exc}); no expected values, nothing recorded")
        return None


def _stored(audit: "Audit | None", store: "AuditStore | None") -> bool:
    return audit is not None and store is not None and audit.history_id is not None


def _record_mtu(outcome: BetweenOutcome, store: "AuditStore | None") -> None:
    """Each sender's MTU outcome into the audit (and the history), its findings and verdict evaluated again."""
    from nicadvisor.services.mtu_check import apply_mtu_paths
    from nicadvisor.store import HistoryError

    audit = outcome.audit
    if audit is None:
        if store is not None:
            outcome.notes.append("no stored audit holds these hosts (audit them first): the TEP mesh is not "
                                 "recorded")
        return
    changed = apply_mtu_paths(audit, outcome.mtu_paths, {t.name: t.source for t in outcome.request.hosts})
    label = audit_label(audit)
    if not changed:
        outcome.notes.append(f"nothing recorded in {label}: it holds none of the hosts of the TEP mesh")
        return
    try:
        if _stored(audit, store):
            for host in audit.hosts:
                if host.name in changed:
                    store.update_host(audit.history_id, host)
            store.finish(audit.history_id, audit.findings, audit.benchmarks, verdict=audit.verdict)
        outcome.notes.append(f"TEP mesh recorded in {label} ({', '.join(changed)}): {audit.verdict.symbol} "
                             f"{audit.verdict.headline}")
    except (HistoryError, OSError, KeyError) as exc:
        outcome.notes.append(f"the TEP mesh could not be recorded in {label}: {exc}")


def _add_results(outcome: BetweenOutcome, store: "AuditStore | None") -> None:
    """The judged results into the audit that holds their hosts (and the history)."""
    from nicadvisor.store import HistoryError

    audit, report = outcome.audit, outcome.report
    targets = outcome.request.hosts
    holds = [t.name for t in targets if audit is not None and audited_host(audit.hosts, t.name, t.source)]
    if audit is None:
        if store is not None:
            hosts = " ".join(f"--ssh {t.source.removeprefix('ssh://')}" for t in targets)
            outcome.notes.append(f"no stored audit holds these hosts (audit them first: nic-advisor audit {hosts} "
                                 "--kind linux): the results are not stored and have no audited facts")
        return
    label = audit_label(audit)
    if not holds:
        outcome.notes.append(f"{label} holds none of these hosts: the results are not added to it")
        return
    if report is None or not report.results:
        return
    audit.benchmarks = list(audit.benchmarks) + list(report.results)
    if not _stored(audit, store):
        outcome.notes.append(f"results added to {label}")
        return
    try:
        store.set_benchmarks(audit.history_id, audit.benchmarks)
        outcome.notes.append(f"results added to {label} in {store.path}")
    except (HistoryError, OSError) as exc:
        outcome.notes.append(f"the results could not be added to {label}: {exc}")


def _audited_teps(rb: "RemoteBench", audit: "Audit | None") -> dict:
    """For each probed ESXi host whose live ``esxcfg-vmknic -l`` gave no TEP: the TEP vmknics its audit holds (from
    the listing, the NSX API or vCenter), as mesh ends."""
    from nicadvisor.bench.mtu_path import tep_endpoints

    out = {}
    for name, probe in rb.probes.items():
        if probe.kind != "esxi" or probe.teps or audit is None:
            continue
        host = audited_host(audit.hosts, name, probe.source)
        if host is not None:
            out[name] = tep_endpoints(name, "", host.vmknics)
    return out


def _scrubbed(items: list, scrub: "SecretScrubber") -> list:
    """Dataclass ``items`` (PathTest, BenchResult) with each text field (a ping's output, a tool's raw output)
    scrubbed by ``scrub``."""
    if not scrub:
        return list(items)
    return [replace(x, **{f.name: scrub(v) for f in fields(x) if isinstance(v := getattr(x, f.name), str)})
            for x in items]


def _part(progress: Progress, start: float, end: float) -> Progress:
    return lambda f, message: progress(start + (end - start) * max(0.0, min(1.0, f)), message)


def _stack_cost(report: BenchReport, rb: "RemoteBench", cancel: threading.Event | None,
                notes: list[str]) -> "StackCost | None":
    """The per-transaction stack cost of this machine's loopback (:mod:`nicadvisor.bench.stack_cost`), measured when
    ``report`` has a one-way TCP_RR result to judge (its band adds it to the path's echo); None, with a note saying
    why, when it could not be measured. Its loopback netserver is journaled in ``rb``'s journal folder."""
    if not any(r.test == "TCP_RR" and (r.direction or "send") == "send" and r.measured for r in report.results):
        return None
    with Journal(rb.journal_dir) as journal:
        got = measure_stack_cost(journal, cancel)
    if isinstance(got, str):
        notes.append(f"{got}; the TCP_RR bands use the documented wake-up instead")
        return None
    return got


def run_between(prepared: PreparedBetween, progress: Progress | None = None, cancel: threading.Event | None = None,
                *, audit: "Audit | None" = None, store: "AuditStore | None" = None) -> BetweenOutcome:
    """Run what ``prepared.request`` asks, in this order: the MTU path check (read-only), then the tests of the
    plan (the user confirmed it: :attr:`PreparedBetween.needs_confirmation`); judge each result against the band of
    its path and record both in the audit. The connections are closed before returning.

    ``audit``: the audit whose facts set the expectations and that receives the results (the wizard's; it is copied,
    :attr:`BetweenOutcome.audit` is the updated copy); None: the stored audit ``request.audit_id``, else the newest in
    ``store`` that holds these hosts. ``store``: the audit history the audit is in (None: nothing is stored).
    ``progress(fraction, message)``; ``cancel``: set from any thread to stop the running test, whose changes are
    undone before :class:`~nicadvisor.cancel.Cancelled` is raised. A test that could not run, or an undo journal
    that cannot be written (nothing is changed then), is a problem of the report. Raises
    :class:`nicadvisor.rules_engine.RuleError` if a shipped rule file is broken.
    """
    say = progress or (lambda _f, _m: None)
    request, rb = prepared.request, prepared.bench
    scrub = request.scrubber()  # server text is kept, shown and stored without the passwords sent
    if cancel is not None:
        rb.cancel = cancel  # this run's cancel stops the running test; its changes are undone
    outcome = BetweenOutcome(request, problems=prepared.reach_problems())
    try:
        notes: list[str] = []
        outcome.audit = copy.deepcopy(audit) if audit is not None else _audit_of_hosts(request, store, notes)
        outcome.notes += notes
        tests = request.run_tests and bool(prepared.plan.tests)
        if request.mtu_check:
            outcome.mtu_paths = _scrubbed(rb.check_mtu_paths(_part(say, 0.0, MTU_SHARE if tests else 1.0),
                                                             audited_teps=_audited_teps(rb, outcome.audit)), scrub)
            _record_mtu(outcome, store)
        if tests:
            try:
                report = rb.run(prepared.plan, _part(say, MTU_SHARE if request.mtu_check else 0.0, 1.0))
            except OSError as exc:
                report = BenchReport([], list(prepared.plan.problems) + [
                    f"the undo journal cannot be used ({exc}); nothing was changed, and changes an earlier run "
                    "could not undo stay recorded for the next run with these hosts"])
            stack = _stack_cost(report, rb, cancel, outcome.notes)
            hints = {t.name: t.source.removeprefix("ssh://") for t in request.hosts}
            ends = {name: path_end(probe, outcome.audit, source_hint=hints.get(name, ""))
                    for name, probe in rb.probes.items()}
            outcome.report = replace(report, results=attach_expectations(_scrubbed(report.results, scrub), ends,
                                                                         rb.path_rtts, stack),
                                     problems=list(map(scrub, report.problems)))
            outcome.problems = list(map(scrub, prepared.problems)) + list(outcome.report.problems)
            _add_results(outcome, store)
    finally:
        prepared.close()
    return outcome
