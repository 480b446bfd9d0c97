"""The audit use-case: read inputs, assemble hosts, evaluate rules and the compatibility database."""
from __future__ import annotations

import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from nicadvisor.cancel import Cancelled, check
from nicadvisor.parsers.assemble import HostInputs
from nicadvisor.collect.sources import gather
from nicadvisor.model import Audit, Finding, InputProblem
from nicadvisor.model.verdict import CANCELLED, COMPLETE, FAILED
from nicadvisor.model.text import plural
from nicadvisor.paths import demo_lab_dir
from nicadvisor.rules_engine import load_rules
from nicadvisor.store.migrations import HistoryError

if TYPE_CHECKING:
    from nicadvisor.store import AuditStore

Progress = Callable[[float, str], None]
DEMO_LAB: Path = demo_lab_dir()


@dataclass(frozen=True)
class AuditRequest:
    """What to audit: the bundled demo lab, capture paths (folders, files, vm-support bundles), this
    machine's interfaces (read-only), and live targets: ``vsphere`` (VsphereTarget), ``ssh``
    (SshTarget), ``nsx`` (NsxTarget). ``known_hosts`` is the SSH host-key store (default: the app's),
    ``ask_host_key(host, port, key_type, fingerprint) -> bool`` decides first-contact SSH host keys."""

    demo: bool = False
    capture_paths: tuple[str, ...] = ()
    local: bool = False
    vsphere: tuple = ()
    ssh: tuple = ()
    nsx: tuple = ()
    # BMCs read over Redfish for the PCIe link of an audited host (nicadvisor.collect.redfish.RedfishTarget)
    redfish: tuple = ()
    # what people checked by hand (nicadvisor.model.attestations.Attestation), applied after every reading
    attestations: tuple = ()
    known_hosts: object | None = field(default=None, compare=False)
    ask_host_key: Callable[[str, int, str, str], bool] | None = field(default=None, compare=False)
    save_captures: str | None = None  # folder for every live output and API recording as capture files (replayable)
    target_nsx: str | None = None  # the NSX version the rollout targets ("4.2"): kept in the audit and its history

    @property
    def live_targets(self) -> list[str]:
        """The live targets as shown in reports (never with a secret)."""
        nsx = []
        for t in self.nsx:  # host and port only: a user or password written into the URL never shows
            u = urllib.parse.urlsplit(t.url)
            nsx.append(f"nsx://{u.hostname}:{u.port or 443}")
        return [t.source for t in self.vsphere] + [t.source for t in self.ssh] + nsx


class HistoryWriter:
    """The audit history as an audit writes into it: a write that fails (a full disk, a file found damaged) does not
    fail the audit. The first failure is kept in :attr:`problem` (one sentence) and every later write is skipped, so
    nothing more goes into a file that failed once; reads and every other attribute go to ``store``
    (:class:`nicadvisor.store.AuditStore`) unchanged."""

    WRITES = frozenset({"begin", "add_host", "add_problems", "finish", "set_hosts_expected", "set_benchmarks",
                        "update_host", "replace_host"})

    def __init__(self, store: "AuditStore") -> None:
        self.store = store
        self.problem = ""

    def __getattr__(self, name: str):
        attr = getattr(self.store, name)
        if name not in self.WRITES:
            return attr

        def write(*args, **kwargs):
            if self.problem:
                return None
            try:
                return attr(*args, **kwargs)
            except (HistoryError, OSError) as exc:
                self.problem = str(exc)
                if name != "begin" and args and isinstance(args[0], int) and hasattr(self.store, "note_save_failed"):
                    self.store.note_save_failed(args[0])  # listed as "save failed", not "interrupted"
                return None
        return write


def _local_inputs(problems: list[InputProblem], cancel: threading.Event | None) -> list[HostInputs]:
    from nicadvisor.collect.local_linux import collect_local

    result = collect_local(cancel=cancel)
    for p in result.problems:
        problems.append(InputProblem("local", p))
    name = socket.gethostname()
    return [HostInputs(name=name, captures=list(result.captures))]


def run_audit(request: AuditRequest, progress: Progress | None = None,
              cancel: threading.Event | None = None, store: "AuditStore | None" = None) -> Audit:
    """Audit what ``request`` names and return the :class:`~nicadvisor.model.Audit`.

    Bad inputs never raise: each lands in ``audit.inputs_not_understood`` with a message naming it,
    and every other host is still audited. With a ``store`` (:class:`nicadvisor.store.AuditStore`)
    each host is committed to the audit history as soon as it is assembled, so a crash or kill loses
    nothing already collected; a history that fails (a full disk) is written no more and the audit goes on
    (``audit.history_id`` None; pass a :class:`HistoryWriter` to learn why). Raises :class:`nicadvisor.cancel.Cancelled` when ``cancel`` is set,
    and :class:`nicadvisor.rules_engine.RuleError` if a shipped rule file is broken.
    """
    report = progress or (lambda _f, _m: None)
    paths = ([str(DEMO_LAB)] if request.demo else []) + list(request.capture_paths)
    audit = Audit(inputs=list(paths) + (["local"] if request.local else []) + request.live_targets,
                  target_nsx=request.target_nsx or None)
    if store is not None and not isinstance(store, HistoryWriter):
        store = HistoryWriter(store)
    if store is not None:
        audit.history_id = store.begin(audit.inputs, audit.created_at, target_nsx=audit.target_nsx)
    try:
        _run(request, paths, audit, report, cancel, store)
    except BaseException as exc:
        audit.completion = CANCELLED if isinstance(exc, Cancelled) else FAILED
        if store is not None and isinstance(exc, Exception):
            store.finish(audit.history_id, [], status=audit.completion, verdict=audit.verdict)
        raise
    if store is not None:
        store.finish(audit.history_id, audit.findings, verdict=audit.verdict)
        if store.problem:  # the history failed part-way: the audit is not (wholly) in it
            audit.history_id = None
    return audit


def evaluate_findings(hosts: list, rules: list | None = None) -> list[Finding]:
    """Every finding of an audit of ``hosts``, judged in one pass (:func:`nicadvisor.judgement.judge`: ``rules``,
    default the shipped ones and the user's that load (:func:`audit_rules`), the knowledge sources adding their
    facts to the pNICs once, the compatibility database, the imported guide). Raises
    :class:`nicadvisor.rules_engine.RuleError` if a shipped rule file is broken."""
    from nicadvisor.judgement import judge

    return judge(hosts, audit_rules([]) if rules is None else rules)


def target_findings(audit: Audit) -> list[Finding]:
    """With a target NSX version (``audit.target_nsx``), the error ``esxi-release-unsupported-by-nsx`` on each host
    whose ESXi release it does not support per the cited interoperability table (:mod:`nicadvisor.vcg.nsx_interop`);
    [] without one."""
    from nicadvisor.vcg.nsx_interop import host_support, release_findings

    target = getattr(audit, "target_nsx", None)
    return release_findings(host_support(audit.hosts, target), target) if target else []


def audit_rules(problems: list[InputProblem]) -> list:
    """The rules an audit runs: the shipped ones and every user rule file that loads. A user rule file that does
    not load is left out and becomes an input problem naming it and the line (the audit runs with the rest, and is
    never READY without it: its verdict counts the file as an input that could not be read). Raises
    :class:`nicadvisor.rules_engine.RuleError` if a shipped rule file is broken."""
    skipped: list = []
    rules = load_rules(skipped=skipped)
    problems.extend(InputProblem(str(path), f"rule file skipped, the audit ran without its rules: {why}")
                    for path, why in skipped)
    return rules


def _facts_known(host) -> int:
    """How many pNIC facts of ``host`` have evidence: each fact the judgement adds (set only where unknown) adds one."""
    return sum(len(p.evidence) for p in host.pnics)


def reopen_audit(store: "AuditStore", audit_id: int) -> Audit:
    """A past audit from the history, ready to show and export: as stored when it finished; an audit that never
    finished (interrupted, cancelled, failed, still running) gets the rules evaluated on the hosts it holds, so its
    findings are shown, and keeps its ``completion``: its verdict is NOT RATED "interrupted after N of M hosts",
    never READY. Raises :class:`nicadvisor.store.AuditNotFound` for an unknown id."""
    audit = store.load(audit_id)
    if audit.completion != COMPLETE:
        audit.findings = evaluate_findings(audit.hosts) + target_findings(audit)
    return audit


def _run(request: AuditRequest, paths: list[str], audit: Audit, report: Progress,
         cancel: threading.Event | None, store) -> None:
    from nicadvisor.services.live import HostSink, collect_live, scrub_problem, session_scrubber

    scrub = session_scrubber(request)  # what a live target echoes of the passwords sent to it is never kept
    if scrub:
        report = (lambda say: lambda fraction, message: say(fraction, scrub(message)))(report)

    def problems(new: list[InputProblem]) -> None:
        new = [scrub_problem(p, scrub) for p in new]
        audit.inputs_not_understood.extend(new)
        if store is not None and new:
            store.add_problems(audit.history_id, new)

    report(0.0, "Reading inputs")
    groups, found = gather([Path(p) for p in paths]) if paths else ([], [])
    problems(found)
    if not (request.local or request.vsphere or request.ssh or request.nsx):
        audit.hosts_expected = len(groups)  # known before reading: "interrupted after N of M hosts"
        if store is not None:
            store.set_hosts_expected(audit.history_id, len(groups))
    if request.local:
        check(cancel)
        report(0.05, "Reading this machine's interfaces")
        local_problems: list[InputProblem] = []
        groups.extend(_local_inputs(local_problems, cancel))
        problems(local_problems)
    sink = HostSink(audit, store, defer=bool(request.nsx), save_folder=request.save_captures, problems=problems,
                    scrub=scrub)
    skipped: list[InputProblem] = []
    rules = audit_rules(skipped)
    problems(skipped)
    try:
        for i, group in enumerate(groups):
            check(cancel)
            report(0.1 + 0.8 * i / max(len(groups), 1), f"Inspecting {group.name} ({len(group.captures)} outputs)")
            sink.add(group)
        if request.vsphere or request.ssh or request.nsx:
            live_problems: list[InputProblem] = []
            try:
                collect_live(request, report, cancel, sink, live_problems)
            finally:
                problems(live_problems)
    finally:
        sink.flush()  # hosts held for an NSX join: stored even when cancelled
    if request.redfish:  # out of band, after the host's own readings (which win)
        from nicadvisor.services.redfish import read_bmcs

        changed, bmc_notes = read_bmcs(request.redfish, audit.hosts, cancel, lambda m: report(0.88, m))
        problems(bmc_notes)
        for host in changed if store is not None else ():
            store.update_host(audit.history_id, host)
    attested: list[Finding] = []
    if request.attestations:  # a reading taken on the host (or its BMC) wins: applied last
        from nicadvisor.model.attestations import DECIDED, OVERRULED, apply_attestations

        audit.attestations, attested = apply_attestations(audit.hosts, list(request.attestations))
        touched = {o.attestation.host.lower() for o in audit.attestations if o.status in (DECIDED, OVERRULED)}
        for host in audit.hosts if store is not None else ():
            if host.name.lower() in touched:
                store.update_host(audit.history_id, host)
    check(cancel)
    report(0.9, "Checking rules and the compatibility database")
    facts_before = [_facts_known(h) for h in audit.hosts]
    audit.findings = evaluate_findings(audit.hosts, rules) + target_findings(audit)
    for host, before in zip(audit.hosts, facts_before) if store is not None else ():
        if _facts_known(host) != before:  # the judgement added facts from its documents: stored with the host
            store.update_host(audit.history_id, host)
    phys = sum(1 for h in audit.hosts for p in h.pnics if p.is_physical is not False)  # as every export counts
    audit.findings.extend(attested)  # a reading on the host that disagrees with an attestation
    report(1.0, f"Audited {plural(len(audit.hosts), 'host')}, {plural(phys, 'pNIC')}")
