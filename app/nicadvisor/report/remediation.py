"""What a change board reads: the remediation plan grouped by rule, the host × capability scorecard, the top
actions, and the reference documents by title. Pure; shared by the PDF and the HTML export.

A finding is one rule on one target; an admin fixes a rule across its targets at once, so the plan groups the
``error`` and ``warning`` findings by rule (errors first, then the rules touching most targets). ``info``
findings ("nothing to change") go to an appendix, never to the checklist.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from nicadvisor.model.capabilities import CAPABILITIES, STATUS_ORDER, capability_matrix
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Finding, Severity, findings_by_host

#: The reference documents the rules cite, by file name: (title, author or publisher). The files themselves are
#: in the project's shared/reference folder; the titles are their first lines.
REFERENCE_TITLES = {
    "nsx-t-performance-on-intel.txt": "VMware NSX-T Data Center — Performance considerations on Intel platforms "
                                      "(Samuel Kommu, VMware)",
    "vds-ipfix-impact-nsxv.txt": "Impact of enabling VDS IPFIX with NSX-V 6.4.5 and ESXi 6.5U3+/6.7U2+ (VMware)",
    "nsx-latency-part1-dfw.txt": "How much latency does NSX add? [Part 1 – DFW]",
    "nsx-latency-part2-vxlan-dlr.txt": "How much latency does NSX add? [Part 2 – VXLAN & Distributed Logical "
                                       "Routers]",
    "vmfex-vs-vswitch-netperf.txt": "Cisco Data Center Virtual Machine Fabric Extender (VM-FEX) Versus VMware "
                                    "vSwitch — Performance Comparison (Cisco)",
}
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
        references: the documents behind it, as :func:`reference_title` words them.
        findings: the findings grouped here, in target order.
        rollback: how to undo the change, as written for ``recommendation_for`` ("" when the rule gives none).
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


def reference_title(reference: str) -> str:
    """``"nsx-t-performance-on-intel.txt §1.4 Benefits with RSS"`` → ``"VMware NSX-T Data Center — Performance
    considerations on Intel platforms (Samuel Kommu, VMware), §1.4 Benefits with RSS"``; other references
    (URLs, ``vendor: …``) are returned as they are."""
    name, sep, section = reference.partition(" §")
    title = REFERENCE_TITLES.get(name.strip())
    if title is None:
        return reference
    return f"{title}, §{section}" if sep else title


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
            references=tuple(dict.fromkeys(reference_title(r) for f in mine for r in f.references)),
            findings=tuple(mine), rollback=first.rollback, conditional=all(f.conditional for f in mine)))
    # a conditional error (an overlay rule lowered while the pNIC's role is unknown) comes right after the errors
    items.sort(key=lambda i: (i.severity.rank, min((f.full_severity or f.severity).rank for f in i.findings),
                              -len(i.targets), i.rule_id))
    return items


def remediation_plan(audit: Audit) -> list[RemediationItem]:
    """The ``error`` and ``warning`` findings grouped by rule: errors first, then the rules with most targets."""
    return _items([f for f in audit.findings if f.severity is not Severity.INFO])


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


def scorecard(audit: Audit) -> list[tuple[str, dict[str, str]]]:
    """``[(host, {capability key: worst cell status over the host's physical pNICs})]``; a host without a
    physical pNIC gets ``unknown`` everywhere. Statuses as in :mod:`nicadvisor.model.capabilities`."""
    out = []
    of_host = findings_by_host(audit.findings)
    for host in audit.hosts:
        rows = capability_matrix(host, of_host.get(host.name, []))
        worst = {}
        for cap in CAPABILITIES:
            statuses = [r.cells[cap.key].status for r in rows] or ["unknown"]
            worst[cap.key] = min(statuses, key=STATUS_ORDER.index)
        out.append((host.name, worst))
    return out


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
