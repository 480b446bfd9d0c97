"""After the change: each plan item of an approved audit checked against a new audit of the same hosts. Pure.

The plan (:func:`nicadvisor.report.remediation.remediation_plan`) is the approved audit's ``error`` and ``warning``
findings grouped by rule; a finding names its object structurally (``Finding.host``, ``Finding.obj``: a pNIC, switch
or vmknic of that host, ``""`` for the host itself) and the facts its rule's condition read (``Finding.facts``:
``("mtu",)``, ``("geneve_offload", "is_virtual_uplink")``). Each finding of the plan becomes one :class:`TargetCheck`:

* **done** — the facts changed, the rule no longer holds on the object, and each fact the plan sets has the value it
  sets (:data:`PLANNED`: the MTU the rules' change commands set, 9000 bytes; a boolean feature the rule found off is
  on, one it found on is off). The new evidence line is quoted.
* **not done** — the facts have the values they had (or, for a rule that reads no fact of the object, the rule
  holds again on it); the new evidence line is quoted.
* **changed differently** — a third value: not the old one, and not the planned one, or the rule still holds.
* **not re-read** — the new audit holds no such host or object, or did not read the fact (the reason: a command that
  could not run, an input that could not be read).

A finding of the TEP mesh (``tep-path-mtu-failed``/``tep-path-unreachable``, :mod:`nicadvisor.model.path_tests`) is
about a path, not a fact: it is done when the new audit's mesh rows at that end all pass, not done when the rule
holds again, not re-read when the mesh was not run again. The interface's own MTU, where it is an audited pNIC, is
quoted beside it.

Benchmarks: the same test between the same ends (:func:`nicadvisor.services.bench_history.run_key` without the path
conditions — the change is what changes them) before and after, each with its expected band and verdict.

The record is linked to the approved audit by its id and :func:`audit_digest`: the SHA-256 of the audit as the
history stores it, written as canonical JSON (:data:`HASH_BASIS` says exactly what).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from nicadvisor.document import benchmark_to_dict, finding_to_doc, host_to_doc, problem_to_doc
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Evidence, Finding, Host
from nicadvisor.model.path_tests import MTU_FAILED, UNREACHABLE
from nicadvisor.report.remediation import remediation_plan
from nicadvisor.change_commands import MTU_TARGET

DONE, NOT_DONE, CHANGED, NOT_REREAD = "done", "not done", "changed differently", "not re-read"
#: Every status, in the order a record lists its counts.
STATUSES = (DONE, NOT_DONE, CHANGED, NOT_REREAD)

#: The value the plan sets for a fact, where the rule's change sets one: the MTU of every MTU rule's change command
#: (``ip link set dev X mtu 9000``, ``esxcli network vswitch standard set -m 9000``, ``Set-VDSwitch -Mtu 9000``:
#: :data:`nicadvisor.change_commands.MTU_TARGET`, nsx-t-performance-on-intel.txt §Jumbo MTU for Higher
#: Throughput), and the state each boolean rule asks for (its condition finds the opposite). A fact not listed here
#: (a queue count, a link speed, a PCIe width) is planned as "what makes the rule no longer hold".
PLANNED: dict[str, Any] = {
    "mtu": MTU_TARGET, "mtu_path_ok": True, "link_up": True, "geneve_offload": True, "geneve_rx_filter": True,
    "rss": True, "ipfix_enabled": False, "legacy_vmklinux": False, "ens_capable": True,
    "ens_interrupt_capable": True,
}
#: Rules about a path between hosts rather than a fact of one object.
PATH_RULES = (MTU_FAILED, UNREACHABLE)

#: The JSON Schema (draft 2020-12) of the record's JSON, beside this module.
RECORD_SCHEMA = Path(__file__).with_name("verify-record.schema.json")
#: What :func:`audit_digest` hashes, as the record states it.
HASH_BASIS = ("SHA-256 of the approved audit as stored in the audit history: the JSON object {audit_id, created_at, "
              "inputs, hosts, findings, inputs_not_understood, benchmarks} (hosts in the documents of the JSON "
              "report without their derived capability cells), keys sorted, no spaces, UTF-8")


def audit_digest(audit: Audit) -> str:
    """The SHA-256 (64 hex digits) of ``audit`` as stored (:data:`HASH_BASIS`): the same stored audit always gives the
    same digest, and any change of a fact, finding, input or benchmark of it gives another."""
    doc = {"audit_id": audit.history_id, "created_at": audit.created_at, "inputs": list(audit.inputs),
           "hosts": [host_to_doc(h) for h in audit.hosts], "findings": [finding_to_doc(f) for f in audit.findings],
           "inputs_not_understood": [problem_to_doc(p) for p in audit.inputs_not_understood],
           "benchmarks": [benchmark_to_dict(b) for b in audit.benchmarks]}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TargetCheck:
    """One finding of the approved plan, checked on the new audit.

    ``item``: its plan item (1-based, as the reports number them); ``rule_id``, ``title``, ``host``, ``obj``
    (``""``: the host itself) and ``target`` of the finding; ``fact``: what was compared (``"mtu"``,
    ``"mtu, geneve_offload"``, ``"TEP mesh"``, ``"the rule"``); ``before``/``after``/``planned``: the values as text
    (``after`` ``""`` when not re-read); ``status``: one of :data:`STATUSES`; ``evidence``: the new evidence (the
    line the new value was read from; None when not re-read); ``detail``: one sentence (why not re-read, how it
    changed differently)."""

    item: int
    rule_id: str
    title: str
    host: str
    obj: str
    target: str
    fact: str
    before: str
    planned: str
    after: str
    status: str
    detail: str = ""
    evidence: Evidence | None = None

    def to_dict(self) -> dict[str, Any]:
        """Every field, ``evidence`` as ``{"command", "line", "source"}`` or None (the record's JSON)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "evidence"}
        out["evidence"] = self.evidence.to_dict() if self.evidence else None
        return out


@dataclass(frozen=True)
class BenchPair:
    """One benchmark test before and after: ``label`` (``"TCP_STREAM a → b"``), ``unit`` (``"Gbit/s"`` or ``"µs"``),
    ``before``/``after`` the measured values (None: not run that time), ``expected`` the band of the new run (else of
    the old) as text, ``verdict_before``/``verdict_after`` (``pass``/``warn``/``fail``/``""``)."""

    label: str
    unit: str
    before: float | None
    after: float | None
    expected: str
    verdict_before: str
    verdict_after: str

    def value_text(self, value: float | None) -> str:
        """``"9.42 Gbit/s"``, ``"95.9 Mbit/s"`` below 1 Gbit/s, ``"47.1 µs"``; ``"not run"`` for None."""
        if value is None:
            return "not run"
        if self.unit == "Gbit/s" and value < 1:
            return f"{value * 1000:.3g} Mbit/s"
        return f"{value:.3g} {self.unit}"

    def to_dict(self) -> dict[str, Any]:
        """Every field (the record's JSON)."""
        return dataclasses.asdict(self)


@dataclass
class PlanCheck:
    """The approved audit's plan checked on a new audit: ``against_id`` and ``against_digest`` (:func:`audit_digest`)
    of the approved one, ``against_created``; ``new_id`` (None when the new audit is not in the history),
    ``new_created``; ``checks`` one per finding of the plan; ``benchmarks`` before/after; ``mesh`` the new TEP mesh
    lines (``[]`` when not run again); ``notes``: what the verification could not do, in sentences; ``incomplete``:
    the approved audit could not be read back in full (a damaged history entry), so its plan may lack items."""

    against_id: int | None
    against_digest: str
    against_created: str
    new_id: int | None
    new_created: str
    checks: list[TargetCheck] = field(default_factory=list)
    benchmarks: list[BenchPair] = field(default_factory=list)
    mesh: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    incomplete: bool = False

    def counts(self) -> dict[str, int]:
        """``{status: how many checks}`` for every status of :data:`STATUSES`."""
        return {s: sum(1 for c in self.checks if c.status == s) for s in STATUSES}

    @property
    def exit_code(self) -> int:
        """0 when every plan item is done (an empty plan included), 1 when one is not done or changed differently
        (whatever else could not be re-read), 2 when none is known undone but one could not be re-read or the
        approved audit could not be read back in full (``incomplete``)."""
        counts = self.counts()
        if counts[NOT_DONE] or counts[CHANGED]:
            return 1
        return 2 if counts[NOT_REREAD] or self.incomplete else 0

    def summary(self) -> str:
        """``"3 of 4 plan targets done, 1 not done"``: one line."""
        counts = self.counts()
        parts = [f"{counts[s]} {s}" for s in STATUSES[1:] if counts[s]]
        head = f"{counts[DONE]} of {len(self.checks)} plan targets done"
        if self.incomplete:
            parts.append("the approved audit could not be read back in full")
        if not self.checks:
            return ("the approved audit could not be read back in full: nothing verified" if self.incomplete
                    else "the approved audit has no plan item (nothing to verify)")
        return ", ".join([head, *parts])

    def to_dict(self) -> dict[str, Any]:
        """The post-change record's JSON, valid against :data:`RECORD_SCHEMA` (``verify-record.schema.json``)."""
        return {"record": "nic-advisor post-change verification", "against": {
                    "audit_id": self.against_id, "created_at": self.against_created, "sha256": self.against_digest,
                    "hash_basis": HASH_BASIS},
                "new_audit": {"audit_id": self.new_id, "created_at": self.new_created},
                "summary": self.summary(), "counts": self.counts(), "exit_code": self.exit_code,
                "checks": [c.to_dict() for c in self.checks],
                "benchmarks": [b.to_dict() for b in self.benchmarks], "tep_mesh": list(self.mesh),
                "notes": list(self.notes)}


def check_lines(check: PlanCheck) -> list[str]:
    """The verification as text lines, as the CLI prints it and the wizard shows it: the approved audit and its hash,
    one line per target (``[done] item 3 esxi-a/vmnic0: <title>: mtu: mtu 1500 → mtu 9000 (planned: mtu 9000)``)
    with its new evidence and detail, the benchmarks before and after beside their band, the new mesh, the result."""
    new = f"#{check.new_id}" if check.new_id is not None else "(not stored)"
    out = [f"Verify audit #{check.against_id} (sha256 {check.against_digest}) against audit {new}"]
    for c in check.checks:
        values = f"{c.fact}: {c.before or '—'} → {c.after or '—'} (planned: {c.planned})"
        out.append(f"  [{c.status}] item {c.item} {c.target}: {c.title}: {values}")
        if c.evidence is not None:
            out.append(f"      evidence: {c.evidence.command}: {c.evidence.line.splitlines()[0] if c.evidence.line else ''}")
        if c.detail:
            out.append(f"      {c.detail}")
    for b in check.benchmarks:
        out.append(f"  benchmark {b.label}: {b.value_text(b.before)} → {b.value_text(b.after)} "
                   f"(expected {b.expected or 'no band'}; {(b.verdict_before or '—').upper()} → "
                   f"{(b.verdict_after or '—').upper()})")
    out += [f"  mesh {line}" for line in check.mesh]
    out.append(f"Result: {check.summary()}")
    return out


def _object(host: Host, name: str) -> Any:
    """The pNIC, switch or vmknic of ``host`` called ``name`` (the host itself for ``""``), or None."""
    if not name:
        return host
    for group in (host.pnics, host.switches, host.vmknics):
        found = next((o for o in group if o.name == name), None)
        if found is not None:
            return found
    return None


def _text(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


#: The command catalogue's name of each kind of object (:func:`nicadvisor.commands.advised`).
_CATALOGUE_OBJECT = {"PhysicalNic": "pnic", "VmkernelNic": "vmknic", "Switch": "switch", "Host": "host"}


def _why_not_read(host: Host, obj: Any, facts: list[str]) -> str:
    """Why the new audit did not read ``facts`` of ``obj`` on ``host``: the catalogue command that reads them and, when
    the collector recorded it, why it could not run (:class:`~nicadvisor.model.entities.CommandNotRun`)."""
    from nicadvisor.commands import advised

    kind = _CATALOGUE_OBJECT.get(type(obj).__name__, "pnic")
    name = getattr(obj, "name", "")
    reads = [c.replace("{nic}", name) for c in advised(facts, host.kind or "esxi", kind)] if facts else []
    failed = [n for n in host.not_run if any(n.command.endswith(r) or r in n.command for r in reads)]
    if failed:
        n = failed[0]
        return f": {n.command} {n.label}" + (f" ({n.detail})" if n.detail else "")
    if reads:
        return f": it is read by {' and '.join(reads)}, which gave no value"
    return ""


def _unread_host(new: Audit, name: str) -> str:
    """Why the new audit holds no host ``name``: the input problems naming it, else that it was not among the
    inputs."""
    said = [p.message for p in new.inputs_not_understood if name in p.source or name in p.message]
    if said:
        return f"{name} is not in the new audit: {said[0]}"
    return f"{name} is not in the new audit (not among its inputs, or it did not answer)"


def _check_facts(n: int, f: Finding, old_obj: Any, new_obj: Any, new_host: Host, holds: bool) -> TargetCheck:
    names = {fl.name for fl in dataclasses.fields(old_obj)}
    facts = [x for x in f.facts if x in names and x != "evidence"]
    base = dict(item=n, rule_id=f.rule_id, title=f.title, host=f.host, obj=f.obj, target=f.target)
    old = {x: getattr(old_obj, x) for x in facts}
    new = {x: getattr(new_obj, x) for x in facts}
    # what the plan changes: every fact read except a guard that already had its planned value (link_up on, for
    # link-below-10g: the link speed is what changes)
    subject = [x for x in facts if not (x in PLANNED and old[x] == PLANNED[x])] or facts
    planned = {x: PLANNED.get(x) for x in subject}
    planned_text = ", ".join(f"{x} {_text(p)}" if p is not None else f"{x}: the rule no longer holds"
                             for x, p in planned.items())
    before = ", ".join(f"{x} {_text(old[x])}" for x in subject)
    evidence = next((new_obj.evidence.get(x) for x in subject if new_obj.evidence.get(x)), None)
    unread = [x for x in facts if new[x] is None]
    if unread:
        return TargetCheck(**base, fact=", ".join(subject), before=before, planned=planned_text, after="",
                           status=NOT_REREAD, detail=f"the new audit did not read {', '.join(unread)} of {f.target}"
                           f"{_why_not_read(new_host, new_obj, unread)}")
    after = ", ".join(f"{x} {_text(new[x])}" for x in subject)
    if all(new[x] == old[x] for x in subject):
        return TargetCheck(**base, fact=", ".join(subject), before=before, planned=planned_text, after=after,
                           status=NOT_DONE, evidence=evidence, detail="still the value the approved audit read")
    missed = [x for x, p in planned.items() if p is not None and new[x] != p]
    if not missed and not holds:
        return TargetCheck(**base, fact=", ".join(subject), before=before, planned=planned_text, after=after,
                           status=DONE, evidence=evidence)
    why = (f"{', '.join(f'{x} is {_text(new[x])}, not the planned {_text(planned[x])}' for x in missed)}"
           if missed else "")
    why = "; ".join(filter(None, (why, f"the rule {f.rule_id} still holds" if holds else
                                  f"the rule {f.rule_id} no longer holds")))
    return TargetCheck(**base, fact=", ".join(subject), before=before, planned=planned_text, after=after,
                       status=CHANGED, evidence=evidence, detail=why)


def _check_path(n: int, f: Finding, new_host: Host, again: Finding | None, new: Audit) -> TargetCheck:
    base = dict(item=n, rule_id=f.rule_id, title=f.title, host=f.host, obj=f.obj, target=f.target,
                fact="TEP mesh", before="FAIL", planned="PASS at every frame size")
    pnic = new_host.pnic(f.obj) if f.obj else None
    mtu = f" ({f.obj} MTU now {pnic.mtu})" if pnic is not None and pnic.mtu is not None else ""
    if again is not None:
        ev = again.evidence[0] if again.evidence else None
        return TargetCheck(**base, after="FAIL", status=NOT_DONE, evidence=ev,
                           detail=f"the TEP mesh still fails at this end{mtu}")
    rows = [t for h in new.hosts for t in h.path_tests
            if (t.client == f.host and (t.client_if == f.obj or not f.obj))
            or (t.server == f.host and (t.server_if == f.obj or not f.obj))]
    if not rows:
        return TargetCheck(**base, after="", status=NOT_REREAD,
                           detail=f"the TEP mesh was not run again at {f.target}")
    failed = [t for t in rows if t.ok is not True]
    quoted = failed or [t for t in rows if t.client == f.host] or rows  # the pings this end sent, when it sent any
    ev = Evidence(command=quoted[0].command, line="\n".join(t.line() for t in quoted), source=f.host)
    if failed:
        return TargetCheck(**base, after="NOT RUN" if all(t.ok is None for t in failed) else "FAIL",
                           status=NOT_REREAD if all(t.ok is None for t in failed) else CHANGED, evidence=ev,
                           detail=f"{len(failed)} of {len(rows)} mesh pings at this end did not pass{mtu}")
    return TargetCheck(**base, after="PASS", status=DONE, evidence=ev, detail=f"every mesh ping passed{mtu}")


def _check_rule(n: int, f: Finding, new_host: Host, again: Finding | None) -> TargetCheck:
    """A finding that read no fact of its object (a compatibility-guide or verdict finding): the rule itself."""
    base = dict(item=n, rule_id=f.rule_id, title=f.title, host=f.host, obj=f.obj, target=f.target,
                fact="the rule", before="holds", planned="no longer holds")
    if again is not None:
        return TargetCheck(**base, after="holds", status=NOT_DONE,
                           evidence=again.evidence[0] if again.evidence else None,
                           detail=f"the rule holds again on the new audit: {again.message}")
    commands = {e.command for e in f.evidence}
    read = [e for o in (new_host, *new_host.pnics, *new_host.switches, *new_host.vmknics, *new_host.modules)
            for e in o.evidence.values() if e.command in commands]
    if commands and not read:
        return TargetCheck(**base, after="", status=NOT_REREAD,
                           detail=f"the new audit did not read {sorted(commands)[0]} on {f.host}")
    return TargetCheck(**base, after="no longer holds", status=DONE, evidence=read[0] if read else None)


def check_plan(approved: Audit, new: Audit, digest: str | None = None) -> PlanCheck:
    """Every finding of ``approved``'s plan checked on ``new`` (module docstring); ``digest``: the approved audit's
    :func:`audit_digest` when already computed. The new mesh's lines
    are listed (the caller pairs the benchmarks: :func:`bench_pairs`). Pure: neither audit is changed."""
    result = PlanCheck(against_id=approved.history_id, against_digest=digest or audit_digest(approved),
                       against_created=approved.created_at, new_id=new.history_id, new_created=new.created_at)
    now = {(f.rule_id, f.host, f.obj): f for f in new.findings}
    olds = {h.name: h for h in approved.hosts}
    news = {h.name: h for h in new.hosts}
    for n, item in enumerate(remediation_plan(approved), 1):
        for f in item.findings:
            again = now.get((f.rule_id, f.host, f.obj))
            new_host = news.get(f.host)
            if new_host is None:
                result.checks.append(TargetCheck(n, f.rule_id, f.title, f.host, f.obj, f.target, "the host", "",
                                                 "", "", NOT_REREAD, _unread_host(new, f.host)))
                continue
            if f.rule_id in PATH_RULES:
                result.checks.append(_check_path(n, f, new_host, again, new))
                continue
            old_host = olds.get(f.host)
            old_obj = _object(old_host, f.obj) if old_host is not None else None
            new_obj = _object(new_host, f.obj)
            if old_obj is not None and new_obj is None:
                result.checks.append(TargetCheck(n, f.rule_id, f.title, f.host, f.obj, f.target, f.obj, "", "", "",
                                                 NOT_REREAD, f"the new audit did not list {f.obj} on {f.host}"))
                continue
            fields = {fl.name for fl in dataclasses.fields(old_obj)} if old_obj is not None else set()
            if old_obj is not None and any(x in fields for x in f.facts):
                result.checks.append(_check_facts(n, f, old_obj, new_obj, new_host, again is not None))
            else:
                result.checks.append(_check_rule(n, f, new_host, again))
    result.mesh = [f"{'PASS' if t.ok else 'NOT RUN' if t.ok is None else 'FAIL'}  {t.line()}"
                   for h in new.hosts for t in h.path_tests]
    return result


def _measured(doc: dict[str, Any]) -> tuple[float | None, str]:
    if doc.get("throughput_gbps") is not None:
        return float(doc["throughput_gbps"]), "Gbit/s"
    if doc.get("latency_us") is not None:
        return float(doc["latency_us"]), "µs"
    return None, ""


def bench_pairs(before: list[Any], after: list[Any], key: Callable[[dict[str, Any]], Any]) -> list[BenchPair]:
    """The benchmark results of both audits paired by ``key`` of their documents (what makes two runs the same test
    between the same ends: :func:`nicadvisor.services.bench_history.run_key` without the path conditions, which the
    change itself changes), in the order of the old results then the new ones: each with its measured value before
    and after, the expected band (of the new run, else the old) and both verdicts."""
    pairs: dict[tuple[Any, ...], dict[str, Any]] = {}
    for when, results in (("before", before), ("after", after)):
        for r in results:
            doc = benchmark_to_dict(r)
            value, unit = _measured(doc)
            slot = pairs.setdefault(key(doc), {"label": " ".join(filter(None, (
                doc.get("spec") or doc.get("test"), doc.get("endpoints") or doc.get("path")))), "unit": unit})
            slot[when] = value
            slot["unit"] = slot["unit"] or unit
            verdict = getattr(r, "verdict", None)
            slot[f"verdict_{when}"] = verdict() if callable(verdict) else ""
            expected = getattr(r, "expected", None)
            if expected is not None and (when == "after" or "expected" not in slot):
                slot["expected"] = expected.text()
    return [BenchPair(s["label"], s["unit"], s.get("before"), s.get("after"), s.get("expected", ""),
                      s.get("verdict_before", ""), s.get("verdict_after", "")) for s in pairs.values()]
