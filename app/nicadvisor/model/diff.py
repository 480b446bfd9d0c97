"""Two audits side by side: what changed between a *before* and an *after* audit of the same estate.

The before/after proof of a tuning change: pNICs (and hosts) added or removed, facts changed (driver or firmware
updated, MTU changed, RSS enabled: every model field of pNICs, switches, vmknics, driver modules and hosts),
findings fixed or new, the verdict and the benchmark results before and after. Objects are matched by host name
and object name (``esx-01/vmnic2``); findings by rule id and target. Pure: used by ``nic-advisor history diff``,
the wizard's Compare dialog and the JSON/PDF diff reports.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Finding, Host
from nicadvisor.model.text import fact_text, local_time
from nicadvisor.model.verdict import SYMBOL, Verdict

#: Host collections compared object by object: (attribute, object kind as shown).
COLLECTIONS = (("pnics", "pNIC"), ("switches", "switch"), ("vmknics", "vmknic"), ("modules", "module"))
#: Fields never compared (provenance, not facts).
#: Not compared: the objects' names and evidence, the collections compared one by one, and what a collector could not
#: run (how an audit was made, not a fact of the host).
_SKIP = {"evidence", "inputs", "name", "pnics", "vmknics", "switches", "modules", "not_run"}


@dataclass(frozen=True)
class FactChange:
    """One fact that differs: ``target`` (``esx-01/vmnic2``, ``esx-01`` for a host fact), ``kind`` (``pNIC``,
    ``switch``, ``vmknic``, ``module``, ``host``), ``fact`` (the model field, e.g. ``driver_version``, ``mtu``
    in bytes), ``before`` and ``after`` (None: not known in that audit)."""

    target: str
    kind: str
    fact: str
    before: Any
    after: Any

    def to_dict(self) -> dict[str, Any]:
        """``{"target", "kind", "fact", "before", "after"}`` as in the JSON diff."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class BenchChange:
    """A benchmark test run in both audits: ``test`` (``TCP_RR``), ``path``, the headline value before and after
    (``throughput_gbps`` in Gbit/s for streams, else ``latency_us`` in µs) and its ``unit``."""

    test: str
    path: str
    unit: str
    before: float | None
    after: float | None

    def to_dict(self) -> dict[str, Any]:
        """``{"test", "path", "unit", "before", "after"}`` as in the JSON diff."""
        return dataclasses.asdict(self)


@dataclass
class AuditDiff:
    """What changed from ``before`` to ``after`` (see the module docstring). Lists are sorted by target."""

    before_verdict: Verdict
    after_verdict: Verdict
    before_created_at: str = ""
    after_created_at: str = ""
    hosts_added: list[str] = field(default_factory=list)
    hosts_removed: list[str] = field(default_factory=list)
    objects_added: list[str] = field(default_factory=list)
    objects_removed: list[str] = field(default_factory=list)
    facts_changed: list[FactChange] = field(default_factory=list)
    findings_fixed: list[Finding] = field(default_factory=list)
    findings_new: list[Finding] = field(default_factory=list)
    benchmarks: list[BenchChange] = field(default_factory=list)
    #: hosts in both audits whose own verdict changed: ``(host, before HostVerdict, after HostVerdict)``, by host
    verdicts_changed: list[tuple[str, Any, Any]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when nothing but the dates differs."""
        return not (self.hosts_added or self.hosts_removed or self.objects_added or self.objects_removed
                    or self.facts_changed or self.findings_fixed or self.findings_new or self.benchmarks
                    or self.verdicts_changed or self.before_verdict.headline != self.after_verdict.headline)

    def to_dict(self) -> dict[str, Any]:
        """The diff as JSON-ready data (the ``nic-advisor history diff --json`` document)."""
        return {
            "before": {"created_at": self.before_created_at, "verdict": self.before_verdict.to_dict()},
            "after": {"created_at": self.after_created_at, "verdict": self.after_verdict.to_dict()},
            "hosts_added": self.hosts_added, "hosts_removed": self.hosts_removed,
            "objects_added": self.objects_added, "objects_removed": self.objects_removed,
            "facts_changed": [c.to_dict() for c in self.facts_changed],
            "findings_fixed": [f.to_dict() for f in self.findings_fixed],
            "findings_new": [f.to_dict() for f in self.findings_new],
            "benchmarks": [b.to_dict() for b in self.benchmarks],
            "verdicts_changed": [{"host": h, "before": b.to_dict(), "after": a.to_dict()}
                                 for h, b, a in self.verdicts_changed],
        }


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name not in _SKIP}


def _compare(target: str, kind: str, before: Any, after: Any) -> list[FactChange]:
    a, b = _fields(before), _fields(after)
    return [FactChange(target, kind, name, a[name], b[name]) for name in a if a[name] != b.get(name)]


def _host_changes(before: Host, after: Host, diff: AuditDiff) -> None:
    diff.facts_changed += _compare(after.name, "host", before, after)
    for attr, kind in COLLECTIONS:
        old = {o.name: o for o in getattr(before, attr)}
        new = {o.name: o for o in getattr(after, attr)}
        diff.objects_removed += [f"{before.name}/{n} ({kind})" for n in old if n not in new]
        diff.objects_added += [f"{after.name}/{n} ({kind})" for n in new if n not in old]
        for name in old.keys() & new.keys():
            diff.facts_changed += _compare(f"{after.name}/{name}", kind, old[name], new[name])


def _headline(result: Any) -> tuple[str, float | None]:
    gbps = getattr(result, "throughput_gbps", None)
    if gbps is not None:
        return "Gbit/s", gbps
    return "µs", getattr(result, "latency_us", None)


def diff_audits(before: Audit, after: Audit) -> AuditDiff:
    """The :class:`AuditDiff` from ``before`` to ``after``. Findings of hosts present in only one of them are
    neither "fixed" nor "new" (the host itself is listed as added or removed). Never raises."""
    diff = AuditDiff(before.verdict, after.verdict, before.created_at, after.created_at)
    old_hosts = {h.name: h for h in before.hosts}
    new_hosts = {h.name: h for h in after.hosts}
    diff.hosts_removed = sorted(n for n in old_hosts if n not in new_hosts)
    diff.hosts_added = sorted(n for n in new_hosts if n not in old_hosts)
    for name in sorted(old_hosts.keys() & new_hosts.keys()):
        _host_changes(old_hosts[name], new_hosts[name], diff)
    both = old_hosts.keys() & new_hosts.keys()
    old_v = {hv.host: hv for hv in before.verdict.hosts}
    new_v = {hv.host: hv for hv in after.verdict.hosts}
    diff.verdicts_changed = [(n, old_v[n], new_v[n]) for n in sorted(both & old_v.keys() & new_v.keys())
                             if old_v[n].status != new_v[n].status]
    old_f = {(f.rule_id, f.host, f.obj): f for f in before.findings if f.host in both}
    new_f = {(f.rule_id, f.host, f.obj): f for f in after.findings if f.host in both}
    diff.findings_fixed = [old_f[k] for k in sorted(old_f.keys() - new_f.keys(), key=lambda k: (k[1], k[0]))]
    diff.findings_new = [new_f[k] for k in sorted(new_f.keys() - old_f.keys(), key=lambda k: (k[1], k[0]))]
    old_b = {(getattr(r, "test", "?"), getattr(r, "path", "?")): r for r in before.benchmarks or []}
    new_b = {(getattr(r, "test", "?"), getattr(r, "path", "?")): r for r in after.benchmarks or []}
    for key in sorted(old_b.keys() | new_b.keys()):
        unit, was = _headline(old_b[key]) if key in old_b else ("", None)
        unit2, now = _headline(new_b[key]) if key in new_b else ("", None)
        if bench_value(was, unit or unit2) != bench_value(now, unit or unit2):  # equal as shown: no change
            diff.benchmarks.append(BenchChange(key[0], key[1], unit or unit2, was, now))
    diff.facts_changed.sort(key=lambda c: (c.target, c.fact))
    diff.objects_added.sort()
    diff.objects_removed.sort()
    return diff


def _value(v: Any) -> str:
    return fact_text(v, unknown="not known")


def bench_value(value: float | None, unit: str) -> str:
    """A benchmark headline rounded as the wizard and the reports show it: ``"16.52 Gbit/s"`` (``"47.9 Mbit/s"`` below
    1 Gbit/s), ``"27.5 µs"``; ``"not measured"`` for None (the raw ``27.4867 → not known µs`` was shown)."""
    if value is None:
        return "not measured"
    if unit == "Gbit/s":
        return f"{value:.2f} Gbit/s" if value >= 1 else f"{value * 1000:.3g} Mbit/s"
    return f"{value:.1f} {unit}".rstrip()


def diff_lines(diff: AuditDiff) -> list[str]:
    """The diff as plain text lines (the CLI's output, also the wizard's Compare dialog)."""
    out = [f"Before ({local_time(diff.before_created_at)}): {diff.before_verdict.symbol} "
           f"{diff.before_verdict.headline}",
           f"After  ({local_time(diff.after_created_at)}): {diff.after_verdict.symbol} {diff.after_verdict.headline}"]
    if diff.empty:
        return out + ["No changes: the same hosts, facts, findings and benchmark results."]
    if diff.verdicts_changed:
        out.append(f"Host verdicts changed ({len(diff.verdicts_changed)}):")
        out += [f"  {host}: {SYMBOL[b.status]} {b.label} → {SYMBOL[a.status]} {a.label} ({a.reason})"
                for host, b, a in diff.verdicts_changed]
    for title, items in (("Hosts added", diff.hosts_added), ("Hosts removed", diff.hosts_removed),
                         ("Added", diff.objects_added), ("Removed", diff.objects_removed)):
        if items:
            out.append(f"{title} ({len(items)}): {', '.join(items)}")
    if diff.facts_changed:
        out.append(f"Facts changed ({len(diff.facts_changed)}):")
        out += [f"  {c.target} ({c.kind}) {c.fact}: {_value(c.before)} → {_value(c.after)}"
                for c in diff.facts_changed]
    for title, items in (("Findings fixed", diff.findings_fixed), ("Findings new", diff.findings_new)):
        if items:
            out.append(f"{title} ({len(items)}):")
            out += [f"  [{f.severity.value}] {f.target}: {f.title}" for f in items]
    if diff.benchmarks:
        out.append("Benchmarks (before → after):")
        out += [f"  {b.test} {b.path}: {bench_value(b.before, b.unit)} → {bench_value(b.after, b.unit)}"
                for b in diff.benchmarks]
    return out
