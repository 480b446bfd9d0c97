"""Use-case: after the change, verify an approved audit's plan (``nic-advisor verify --against ID``, the wizard's
"Verify a past plan").

1. The approved audit is read from the history as stored (:func:`nicadvisor.report.plan_check.audit_digest` hashes
   exactly that), its plan reopened as ``history ID`` shows it.
2. The same targets are audited again (:func:`stored_inputs` says what they were: capture paths, this machine, the
   SSH hosts with their kind, vCenter and NSX URLs; the front end builds the live targets with its own password
   rules), or the new inputs the caller gives instead. The new audit is saved in the history like any audit.
3. When the approved audit had a TEP mesh and its ends are among the new SSH targets, the mesh is run again
   (read-only, :func:`nicadvisor.services.between.run_between` with ``mtu_check``) between the same hosts from the same
   interfaces; with ``rerun_bench`` the benchmark tests the approved audit ran between those hosts run again too
   (they change the hosts, each change journaled and undone: the front end confirms first), and the quick benchmark
   on this machine when it ran there.
4. Each plan finding is checked (:func:`nicadvisor.report.plan_check.check_plan`) and the one-page post-change
   record written as JSON and PDF (:func:`write_record`).
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from nicadvisor.model.audit import Audit
from nicadvisor.report.plan_check import PlanCheck, audit_digest, bench_pairs, check_plan
from nicadvisor.services.audit import AuditRequest, reopen_audit, run_audit

if TYPE_CHECKING:
    from nicadvisor.store import AuditStore

Progress = Callable[[float, str], None]
#: The share of the progress bar the new audit takes (the mesh and the benchmark take the rest).
AUDIT_SHARE = 0.7


@dataclass(frozen=True)
class StoredInputs:
    """What the approved audit read, as the front ends ask for it again: ``capture_paths`` (folders, files, bundles;
    the demo lab's folder too), ``local`` (this machine), ``ssh`` ``(user@host:port, kind)`` pairs, ``vcenter`` and
    ``nsx`` URLs (``https://host:port``; their user is not stored: the front end asks for it)."""

    capture_paths: tuple[str, ...] = ()
    local: bool = False
    ssh: tuple[tuple[str, str], ...] = ()
    vcenter: tuple[str, ...] = ()
    nsx: tuple[str, ...] = ()

    @property
    def live(self) -> bool:
        """True when a target needs credentials (SSH, vCenter, NSX)."""
        return bool(self.ssh or self.vcenter or self.nsx)


def stored_inputs(audit: Audit) -> StoredInputs:
    """The inputs of ``audit`` (``Audit.inputs``: paths, ``local``, ``ssh://user@host:port``, ``vcenter://host:port``,
    ``nsx://host:port``) as :class:`StoredInputs`; an SSH host's kind is its audited host's (``esxi`` when the host was
    not read). Pure."""
    paths, ssh, vcenter, nsx, local = [], [], [], [], False
    kinds = {h.name: h.kind for h in audit.hosts}
    for given in audit.inputs:
        if given == "local":
            local = True
        elif given.startswith("ssh://"):
            spec = given.removeprefix("ssh://")
            host_port = spec.rpartition("@")[2]
            host, _sep, port = host_port.rpartition(":")
            name = host.strip("[]") if port == "22" else f"{host.strip('[]')}:{port}"
            ssh.append((spec, kinds.get(name) or "esxi"))
        elif given.startswith("vcenter://"):
            vcenter.append("https://" + given.removeprefix("vcenter://"))
        elif given.startswith("nsx://"):
            nsx.append("https://" + given.removeprefix("nsx://"))
        elif "://" not in given:
            paths.append(given)
    return StoredInputs(tuple(paths), local, tuple(ssh), tuple(vcenter), tuple(nsx))


def same_test(doc: dict[str, Any]) -> tuple[Any, ...]:
    """What makes a benchmark run before the change and one after it the same test between the same ends:
    :func:`nicadvisor.services.bench_history.run_key` without the path conditions (the MTUs and shaping read before
    the run), which the change itself changes."""
    from nicadvisor.services.bench_history import run_key

    return run_key(doc)[:-1]


def load_approved(store: "AuditStore", audit_id: int) -> tuple[Audit, Audit, str]:
    """``(as stored, as reopened, SHA-256)`` of the approved audit ``audit_id``: the digest is of the stored audit
    (:func:`~nicadvisor.report.plan_check.audit_digest`), the plan is read from the reopened one (an audit that never
    finished gets its rules evaluated on the hosts it holds). Raises :class:`nicadvisor.store.AuditNotFound`."""
    stored = store.load(audit_id)
    digest = audit_digest(stored)
    return stored, reopen_audit(store, audit_id), digest


@dataclass
class VerifyOutcome:
    """What :func:`verify_plan` did: ``check`` the plan checked, ``audit`` the new audit (with the new mesh and
    benchmark results), ``notes`` what it could not do, in sentences (also in ``check.notes``)."""

    check: PlanCheck
    audit: Audit
    notes: list[str] = field(default_factory=list)


def _mesh_interfaces(approved: Audit, targets: tuple) -> dict[str, str]:
    """``{target source: interface}``: the interface each host's earlier mesh pings left from (``PathTest.client_if``;
    on ESXi the TEP vmknic), for the targets that sent one."""
    out = {}
    for t in targets:
        host = next((h for h in approved.hosts if h.name == t.name), None)
        sent = [p.client_if for p in host.path_tests if p.client_if] if host is not None else []
        if sent:
            out[t.source] = sent[0]
    return out


def _mesh_targets(approved: Audit, ssh: tuple) -> tuple:
    """The SSH targets that were ends of the approved audit's TEP mesh."""
    ends = {n for h in approved.hosts for t in h.path_tests for n in (t.client, t.server)}
    return tuple(t for t in ssh if t.name in ends)


def _rerun_between(approved: Audit, new: Audit, request: AuditRequest, rerun_bench: bool, progress: Progress,
                   cancel: threading.Event | None, store: Any, notes: list[str]) -> Audit:
    """The TEP mesh (and with ``rerun_bench`` the tests) between the approved audit's mesh/benchmark hosts, recorded in
    ``new`` (a copy is returned)."""
    from nicadvisor.services.between import BetweenRequest, prepare_between, run_between

    mesh = _mesh_targets(approved, request.ssh)
    remote = [b for b in approved.benchmarks if getattr(b, "path", "") == "remote"]
    bench_hosts = tuple(t for t in request.ssh if rerun_bench and remote and any(
        t.name in (getattr(b, "client", ""), getattr(b, "server", "")) for b in remote))
    hosts = tuple(dict.fromkeys(mesh + bench_hosts))
    if len(hosts) < 2:
        if any(h.path_tests for h in approved.hosts):
            notes.append("the TEP mesh was not run again: its hosts are not among the new SSH targets")
        return new
    tests = tuple(dict.fromkeys(getattr(b, "test", "") for b in remote if getattr(b, "test", ""))) if bench_hosts else ()
    between = BetweenRequest(hosts=hosts, interfaces=_mesh_interfaces(approved, hosts), tests=tests or ("TCP_STREAM",),
                             run_tests=bool(tests), mtu_check=bool(mesh))
    prepared = prepare_between(between, progress, cancel, ask_host_key=request.ask_host_key,
                               known_hosts=request.known_hosts)
    with prepared:
        if between.run_tests and not prepared.can_run:
            notes.extend(prepared.reach_problems())
            if not mesh:
                return new
            prepared = replace(prepared, request=replace(between, run_tests=False))
        outcome = run_between(prepared, progress, cancel, audit=new, store=store)
    notes.extend(outcome.problems)
    return outcome.audit or new


def _rerun_local_bench(approved: Audit, progress: Progress, cancel: threading.Event | None,
                       notes: list[str]) -> list[Any]:
    """The quick benchmark on this machine again: on each path (loopback, or the netns pair with the tc tbf rate and
    MTU its results name: :func:`nicadvisor.services.bench.path_of_where`), with the tool, tests and seconds the
    approved audit ran there."""
    from nicadvisor.services.bench import BenchRequest, path_of_where, run_quick_bench

    runs: dict[tuple[Any, ...], list[Any]] = {}
    for b in approved.benchmarks:
        if getattr(b, "path", "") in ("loopback", "netns") and b.measured:
            runs.setdefault((b.path, *path_of_where(b.endpoints), b.tool), []).append(b)
    results = []
    for (path, rate, mtu, tool), done in runs.items():
        request = BenchRequest(path=path, tests=tuple(dict.fromkeys(b.test for b in done)), tool=tool,
                               duration_s=max(1.0, float(round(max(b.duration_s for b in done)))), rate_mbit=rate,
                               mtu=mtu)
        try:
            report = run_quick_bench(request, progress, cancel)
        except (OSError, ValueError) as exc:
            notes.append(f"the benchmark on {path} did not run again: {exc}")
            continue
        results += report.results
        notes.extend(report.problems)
    return results


def verify_plan(store: "AuditStore", against_id: int, request: AuditRequest, *, progress: Progress | None = None,
                cancel: threading.Event | None = None, rerun_bench: bool = False,
                approved: tuple[Audit, Audit, str] | None = None) -> VerifyOutcome:
    """Audit ``request`` again (saved in ``store``), run the TEP mesh again when the approved audit ``against_id`` had
    one (and its benchmark with ``rerun_bench``), and check every finding of its plan (module docstring).
    ``approved``: :func:`load_approved`'s answer when the caller already has it. Raises
    :class:`nicadvisor.store.AuditNotFound`, :class:`nicadvisor.cancel.Cancelled`, and what
    :func:`~nicadvisor.services.audit.run_audit` raises."""
    say = progress or (lambda _f, _m: None)
    stored, reopened, digest = approved or load_approved(store, against_id)
    notes: list[str] = []
    new = run_audit(request, lambda f, m: say(f * AUDIT_SHARE, m), cancel, store)
    rest = lambda f, m: say(AUDIT_SHARE + f * (1 - AUDIT_SHARE), m)  # noqa: E731
    if request.ssh and (any(h.path_tests for h in stored.hosts) or rerun_bench):
        new = _rerun_between(stored, new, request, rerun_bench, rest, cancel, store, notes)
    elif any(h.path_tests for h in stored.hosts):
        notes.append("the TEP mesh was not run again: the new audit has no SSH targets")
    if rerun_bench and any(getattr(b, "path", "") in ("loopback", "netns") for b in stored.benchmarks):
        new.benchmarks = list(new.benchmarks) + _rerun_local_bench(stored, rest, cancel, notes)
        if new.history_id is not None:
            store.set_benchmarks(new.history_id, new.benchmarks)
    elif stored.benchmarks and not rerun_bench:
        notes.append("the benchmark was not run again (it changes the hosts: ask for it)")
    damaged = [p.message for p in stored.inputs_not_understood if p.source == f"history:{int(against_id)}"]
    if damaged:  # the plan is read from what came back: say so, and claim nothing for what did not
        notes.insert(0, f"the approved audit #{int(against_id)} could not be read back in full ("
                        + "; ".join(damaged) + "): its plan may lack items, which are not checked")
    check = check_plan(reopened, new, digest)
    check.benchmarks = bench_pairs(stored.benchmarks, new.benchmarks, same_test)
    check.notes = list(notes)
    check.incomplete = bool(damaged)
    say(1.0, check.summary())
    return VerifyOutcome(check, new, notes)


def write_record(check: PlanCheck, *, json_path: str | Path | None = None, pdf_path: str | Path | None = None
                 ) -> list[Path]:
    """Write the post-change record: JSON (``nicadvisor/report/verify-record.schema.json``) and the one-page PDF
    (:func:`nicadvisor.report.verify_pdf.write_record_pdf`), each atomically. Returns the paths written. Raises
    OSError when one cannot be written."""
    from nicadvisor.atomic_file import atomic_write
    from nicadvisor.report.verify_pdf import write_record_pdf

    written = []
    if json_path is not None:
        text = json.dumps(check.to_dict(), indent=2, ensure_ascii=False) + "\n"
        written.append(atomic_write(json_path, lambda tmp: tmp.write_text(text, encoding="utf-8")))
    if pdf_path is not None:
        written.append(write_record_pdf(check, pdf_path))
    return written
