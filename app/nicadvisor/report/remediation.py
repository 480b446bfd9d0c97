"""What a change board reads: the remediation plan grouped by rule, the host × capability scorecard, the top
actions, and the reference documents by title. Pure; shared by the PDF and the HTML export.

A finding is one rule on one target; an admin fixes a rule across its targets at once, so the plan groups the
``error`` and ``warning`` findings by rule (errors first, then the rules touching most targets). ``info``
findings ("nothing to change") go to an appendix, never to the checklist.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from nicadvisor.model.capabilities import CAPABILITIES, STATUS_ORDER, capability_matrix, switch_port_cell
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Finding, Host, Severity, findings_by_host
from nicadvisor.model.references import Citation, Reference, citations

#: Top actions listed on the executive summary.
TOP_ACTIONS = 5


@dataclass(frozen=True)
class RemediationItem:
    """One rule to act on, across every target it fired on.

    Attributes:
        rule_id, title, severity, category: of the rule.
        targets: ``host/object`` names, sorted; ``hosts``: the hosts they are on, sorted.
        recommendation: the rule's recommendation as written for ``recommendation_for`` (the first target);
            ``varies`` is True when other targets' texts differ only by their own names/values.
        references: the internal keys of the documents behind it (``Finding.references``; the reports cite them
            through :mod:`nicadvisor.model.references`, never by file name).
        findings: the findings grouped here, in target order.
        rollback, change, verify: as written for ``recommendation_for`` ("" when the rule gives none); each target's
            own are on its finding (:func:`steps` groups the targets that share them).
        conditional: every finding holds only if its pNIC/switch carries the overlay (lowered one step).
    """

    rule_id: str
    title: str
    severity: Severity
    category: str
    targets: tuple[str, ...]
    hosts: tuple[str, ...]
    recommendation: str
    recommendation_for: str
    varies: bool
    references: tuple[str, ...]
    findings: tuple[Finding, ...]
    rollback: str = ""
    conditional: bool = False
    change: str = ""
    verify: str = ""


def _items(findings: list[Finding]) -> list[RemediationItem]:
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.rule_id, []).append(f)
    items = []
    for rule_id, mine in groups.items():
        mine.sort(key=lambda f: f.target)
        first = mine[0]
        worst = min((f.severity for f in mine), key=lambda s: s.rank)
        items.append(RemediationItem(
            rule_id=rule_id, title=first.title, severity=worst, category=first.category,
            targets=tuple(dict.fromkeys(f.target for f in mine)), hosts=tuple(sorted({f.host for f in mine})),
            recommendation=first.recommendation, recommendation_for=first.target,
            varies=any(f.recommendation != first.recommendation for f in mine),
            references=tuple(dict.fromkeys(r for f in mine for r in f.references)),
            findings=tuple(mine), rollback=first.rollback, conditional=all(f.conditional for f in mine),
            change=first.change, verify=first.verify))
    # a conditional error (an overlay rule lowered while the pNIC's role is unknown) comes right after the errors
    items.sort(key=lambda i: (i.severity.rank, min((f.full_severity or f.severity).rank for f in i.findings),
                              -len(i.targets), i.rule_id))
    return items


def remediation_plan(audit: Audit) -> list[RemediationItem]:
    """The ``error`` and ``warning`` findings grouped by rule, in the order the work is done: by the kind of object
    they change (:data:`nicadvisor.model.changes.KINDS`: hardware, ESXi release, driver/firmware, physical switch
    ports, VDS/vSwitch, NSX configuration; :func:`plan_groups`), within each errors first, then the rules with most
    targets."""
    from nicadvisor.model.changes import kind_of

    return sorted(_items([f for f in audit.findings if f.severity is not Severity.INFO]),
                  key=lambda i: kind_of(i.findings[0]).order)


def top_actions(plan: list[RemediationItem]) -> list[tuple[int, RemediationItem]]:
    """The :data:`TOP_ACTIONS` most pressing items of ``plan`` with their plan numbers: errors first, then
    conditional errors, then the rules with most targets."""
    ranked = sorted(enumerate(plan, start=1), key=lambda p: (
        p[1].severity.rank, min((f.full_severity or f.severity).rank for f in p[1].findings), -len(p[1].targets)))
    return ranked[:TOP_ACTIONS]


def info_items(audit: Audit) -> list[RemediationItem]:
    """The ``info`` findings grouped by rule (for the appendix: nothing to change)."""
    return _items([f for f in audit.findings if f.severity is Severity.INFO])


def guide_used(audit: Audit) -> str:
    """What the audit's findings say about the imported compatibility guide: its files, formats, data dates and
    hashes as cited by a ``guide-*`` finding, or "" when no finding used one (none imported, or none of its
    devices was audited). Read from the findings, so a reopened audit names the guide it was checked against."""
    prefix = "compatibility guide (imported): "
    for f in audit.findings:
        if f.rule_id.startswith("guide-"):
            for ref in f.references:
                if ref.startswith(prefix):
                    return ref.removeprefix(prefix)
    return ""


def matrix_cache(by_host: dict[str, list[Finding]]) -> Callable[[Host], list[Any]]:
    """A function host → its capability-matrix rows (:func:`nicadvisor.model.capabilities.capability_matrix` of its
    own findings, ``by_host``), each computed once: the scorecard, the groups of alike hosts, the checks that ran and
    the chart of one report read the same rows."""
    cache: dict[str, list[Any]] = {}

    def rows(host: Host) -> list[Any]:
        if host.name not in cache:
            cache[host.name] = capability_matrix(host, by_host.get(host.name, []))
        return cache[host.name]

    return rows


def scorecard_row(host: Host, findings: list[Finding], rows: list[Any] | None = None) -> dict[str, str]:
    """``{capability key: worst cell status over the host's physical pNICs}`` given the host's ``findings`` (or its
    matrix ``rows`` already computed); ``unknown`` everywhere for a host without a physical pNIC. Statuses as in
    :mod:`nicadvisor.model.capabilities`."""
    rows = capability_matrix(host, findings) if rows is None else rows
    worst = {}
    for cap in CAPABILITIES:
        statuses = [r.cells[cap.key].status for r in rows] or ["unknown"]
        worst[cap.key] = min(statuses, key=STATUS_ORDER.index)
    return worst


def scorecard(audit: Audit) -> list[tuple[str, dict[str, str]]]:
    """``[(host, {capability key: worst cell status over the host's physical pNICs})]`` (:func:`scorecard_row`)."""
    of_host = findings_by_host(audit.findings)
    return [(host.name, scorecard_row(host, of_host.get(host.name, []))) for host in audit.hosts]


def input_roots(audit: Audit) -> list[str]:
    """The folders the audit's file inputs lie in (a file input's folder, a folder input itself), longest first:
    evidence sources are shown relative to them, never with the auditor's absolute paths."""
    roots = set()
    for given in audit.inputs:
        if "://" in given or given == "local":
            continue
        path = os.path.normpath(given)
        roots.add(os.path.dirname(path) if os.path.splitext(path)[1] else path)
    return sorted(roots, key=len, reverse=True)


def display_source(source: str, roots: list[str]) -> str:
    """``source`` relative to the input root it lies under (``esxi-a/nic_list.txt`` for
    ``/home/me/lab/esxi-a/nic_list.txt`` with root ``/home/me/lab``); live targets and other text unchanged."""
    if "://" in source or not source:
        return source
    for root in roots:
        base = root.rstrip("/")
        if source == base:
            return os.path.basename(base) or source
        if source.startswith(base + "/") or source.startswith(base + ":"):
            return f"{os.path.basename(base)}/{source[len(base) + 1:]}" if os.path.basename(base) else source
    return source


#: How every view labels a finding's steps (``Finding`` field, label): the PDF, the HTML and the wizard.
STEP_LABELS = (("change", "Change"), ("verify", "Verify"), ("rollback", "Roll back"))
#: What a view says for a step the rule gives no command for.
NO_COMMAND = "The rule gives no command: follow “What to do”."


@dataclass(frozen=True)
class Steps:
    """The change, its check and its roll-back shared by some ``targets`` of a plan item (the host's own names are in
    the commands, so targets on different switches or hosts may have steps of their own)."""

    targets: tuple[str, ...]
    change: str
    verify: str
    rollback: str


def steps(item: RemediationItem) -> list[Steps]:
    """The distinct (change, verify, rollback) of ``item``'s findings, each with the targets it is for, in target
    order: one entry when every target takes the same commands (a fleet of alike hosts, or placeholders)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for f in item.findings:
        groups.setdefault((f.change, f.verify, f.rollback), []).append(f.target)
    return [Steps(tuple(t), *key) for key, t in groups.items()]


def shared_message(item: RemediationItem) -> tuple[str, bool]:
    """The explanation of ``item`` said once: its first finding's message, and whether every other target's message
    is the same but for its own object name (True) — then the per-target rows need not repeat it."""
    first = item.findings[0]

    def plain(f: Finding) -> str:
        return re.sub(rf"\b{re.escape(f.obj)}\b", "\x00", f.message) if f.obj else f.message.replace(f.host, "\x00")

    model = plain(first)
    return first.message, all(plain(f) == model for f in item.findings[1:])


@dataclass
class ReferenceIndex:
    """The references of one report, numbered in the order they are first cited: ``[1]``, ``[2]``, … A report prints
    the numbers (and sections) where a finding cites them, and the whole list once at its end."""

    numbers: dict[Reference, int] = field(default_factory=dict)

    def number(self, reference: Reference) -> int:
        """The number of ``reference``, given the next one on its first use."""
        return self.numbers.setdefault(reference, len(self.numbers) + 1)

    def cite(self, references: tuple[str, ...] | list[str]) -> list[tuple[int, Citation]]:
        """``(number, citation)`` of each of ``Finding.references`` (:func:`nicadvisor.model.references.citations`)."""
        return [(self.number(c.reference), c) for c in citations(references)]

    def entries(self) -> list[tuple[int, Reference]]:
        """Every reference cited so far, by number."""
        return sorted(((n, r) for r, n in self.numbers.items()), key=lambda e: e[0])


#: ``[vendor documentation; source: A ; B]`` as :func:`nicadvisor.vcg.lookup.vcg_notes` words a statement's source.
_INLINE_SOURCE = re.compile(r"\[([^\[\];]+); source: ([^\]]+)\]")


def cite_inline(text: str, index: ReferenceIndex) -> str:
    """``text`` with each ``[label; source: A ; B]`` replaced by ``[label: [3], [4]]``, the sources numbered in
    ``index``: a compatibility-database note names its sources once in the reference list, not after every
    statement."""
    def sub(m: re.Match[str]) -> str:
        numbers = [f"[{n}]" for n, _c in index.cite([f"vendor: {m.group(2)}"])]
        return f"[{m.group(1)}: {', '.join(numbers)}]"

    return _INLINE_SOURCE.sub(sub, text)


def matrix_rows(host: Host, findings: list[Finding], rows: list[Any] | None = None) -> list[tuple[tuple[str, ...], Any]]:
    """The capability-matrix rows of ``host`` (given its ``findings``, or its ``rows`` already computed), pNICs whose
    driver and every cell (status and values) are the same merged into one row: ``[(pNIC names, the first one's
    Row)]`` — six alike vmxnet3 ports are one row, not six copies."""
    merged: dict[tuple, list[Any]] = {}
    for row in capability_matrix(host, findings) if rows is None else rows:
        pnic = host.pnic(row.pnic)
        key = (pnic.driver if pnic else None,) + tuple((row.cells[c.key].status, row.cells[c.key].text)
                                                       for c in CAPABILITIES)
        merged.setdefault(key, []).append(row)
    return [(tuple(r.pnic for r in rows), rows[0]) for rows in merged.values()]


def switch_ports(host: Host) -> str:
    """Where each physical pNIC of ``host`` is cabled, on one line for its page: ``"vmnic0: switch leaf-01 port swp12
    (LLDP); vmnic1, vmnic2: not known: run vim-cmd hostsvc/net/query_networkhint"`` — each known port
    (:func:`nicadvisor.model.capabilities.switch_port_cell`), then the pNICs whose port is not known together with
    the host-wide command that reads it (why a port can stay unknown is said once, in the legend); ``""`` without a
    physical pNIC."""
    physical = [p for p in host.pnics if p.is_physical is not False]
    parts = [f"{p.name}: {switch_port_cell(host, p)}" for p in physical if p.switch_port_text()]
    unknown = [p for p in physical if not p.switch_port_text()]
    if unknown:
        how = switch_port_cell(host, unknown[0]).split(" (the switch must", 1)[0]
        parts.append(f"{', '.join(p.name for p in unknown)}: {how}")
    return "; ".join(parts)


@dataclass(frozen=True)
class TargetRow:
    """One host (or group of alike hosts) of a plan item, as the PDF and HTML show it.

    Attributes:
        host: the host whose findings and evidence are shown; ``label`` names it, or its group ("esx01 and 47 more
            (48 alike hosts)").
        objects: its objects in the item (``"vmnic0"``; ``""`` for the host itself).
        messages: each finding's own words (shown only when the item's message is not shared by all targets).
        evidence: ``(command, source, [raw lines])``, each command and source once, sources relative to the inputs.
        earlier: plan items (1-based) that already showed the rest of this row's evidence.
    """

    host: str
    label: str
    objects: tuple[str, ...]
    messages: tuple[str, ...]
    evidence: tuple[tuple[str, str, tuple[str, ...]], ...]
    earlier: tuple[int, ...]


def target_rows(n: int, item: RemediationItem, label_of: Any, shown: dict[tuple[str, str, str], int],
                roots: list[str]) -> list[TargetRow]:
    """The rows of plan item ``n``: one per host, or one per group of alike hosts (``label_of(host)`` gives the row's
    label, or None to leave out a host whose group already has its row). ``shown`` maps (command, source, line) of
    evidence already shown to its item, and is updated: a line is printed once and referred to after."""
    per_host: dict[str, list[Finding]] = {}
    for f in item.findings:
        per_host.setdefault(f.host, []).append(f)
    rows = []
    for host, mine in per_host.items():
        label = label_of(host)
        if label is None:
            continue
        by_source: dict[tuple[str, str], list[str]] = {}
        earlier: list[int] = []
        for f in mine:
            ev = f.evidence[0] if f.evidence else None
            if ev is None:
                continue
            key = (ev.command, ev.source, ev.line)
            if shown.setdefault(key, n) != n:
                earlier.append(shown[key])
                continue
            lines = by_source.setdefault((ev.command, display_source(ev.source, roots)), [])
            if ev.line not in lines:
                lines.append(ev.line)
        rows.append(TargetRow(host, label, tuple(f.obj for f in mine), tuple(f.message for f in mine),
                              tuple((c, src, tuple(lines)) for (c, src), lines in by_source.items()),
                              tuple(dict.fromkeys(earlier))))
    return rows


@dataclass(frozen=True)
class PlanGroup:
    """The plan items that change one kind of object (issue 25 §2): ``kind`` its
    :class:`nicadvisor.model.changes.ChangeKind` (title, owner, reboot or maintenance window, order), ``items`` with
    their numbers in the plan (1-based, as the plan prints them), ``hosts`` every host the group's changes touch (a
    VDS change touches every audited member host of that VDS, not only the hosts a finding named) and ``targets``
    how many objects it changes."""

    kind: Any
    items: tuple[tuple[int, RemediationItem], ...]
    hosts: tuple[str, ...]
    targets: int

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": ChangeKind.to_dict(), "items": [number], "rules": [rule id], "hosts": [host], "targets"}``."""
        return {"kind": self.kind.to_dict(), "items": [n for n, _i in self.items],
                "rules": [i.rule_id for _n, i in self.items], "hosts": list(self.hosts), "targets": self.targets}


def vds_members(audit: Audit) -> dict[str, list[str]]:
    """Distributed switch name → the audited hosts that are its members (a VDS setting is one object of vCenter: a
    change to it reaches every one of them)."""
    out: dict[str, list[str]] = {}
    for h in audit.hosts:
        for s in h.switches:
            if s.kind == "distributed" and h.name not in out.setdefault(s.name, []):
                out[s.name].append(h.name)
    return out


def item_reach(item: RemediationItem, audit: Audit, members: dict[str, list[str]] | None = None) -> tuple[str, ...]:
    """The hosts ``item``'s change touches: the hosts of its findings and, for a change to a VDS (a finding on a
    distributed switch, or on a pNIC that uplinks one), every audited member host of that VDS."""
    members = vds_members(audit) if members is None else members
    by_name = {h.name: h for h in audit.hosts}
    hosts = dict.fromkeys(item.hosts)
    for f in item.findings:
        host = by_name.get(f.host)
        if host is None or not f.obj:
            continue
        sw = next((s for s in host.switches if s.name == f.obj), None) or host.switch_of(f.obj)
        if sw is not None and sw.kind == "distributed":
            hosts.update(dict.fromkeys(members.get(sw.name, [])))
    return tuple(hosts)


def plan_groups(audit: Audit, plan: list[RemediationItem] | None = None) -> list[PlanGroup]:
    """The remediation plan grouped by the object it changes, in the order the work is done
    (:data:`nicadvisor.model.changes.KINDS`: hardware, ESXi release, driver/firmware, physical switch ports,
    VDS/vSwitch, NSX configuration); each item keeps its plan number. Pure."""
    from nicadvisor.model.changes import KIND, kind_of

    plan = remediation_plan(audit) if plan is None else plan
    members = vds_members(audit)
    grouped: dict[str, list[tuple[int, RemediationItem]]] = {}
    for n, item in enumerate(plan, start=1):
        grouped.setdefault(kind_of(item.findings[0]).key, []).append((n, item))
    out = []
    for key, items in grouped.items():
        hosts = dict.fromkeys(h for _n, i in items for h in item_reach(i, audit, members))
        out.append(PlanGroup(KIND[key], tuple(items), tuple(hosts), sum(len(i.targets) for _n, i in items)))
    return sorted(out, key=lambda g: g.kind.order)
