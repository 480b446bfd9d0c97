"""Use-case: the TEP mesh between audited hosts (``bench --mtu-check``) becomes facts of their audit.

Each sending host keeps the rows it sent (:attr:`nicadvisor.model.entities.Host.path_tests`, replacing those of an
earlier check; the names are those of the audited hosts; a receiver keeps those of a sender the audit does not hold), so that every view shows the mesh from the audit and the
history keeps it. The findings follow from the rows (:func:`nicadvisor.model.path_tests.path_test_findings`: one on
the TEP vmknic or interface at each end of a failing path, never on every pNIC of the host) when the audit's
findings are evaluated again. A host whose every row (sent and received) passed gets ``mtu_path_ok`` True with the
lines as evidence: the MTU check of its readiness is then decided (:mod:`nicadvisor.model.readiness`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Iterable

from nicadvisor.bench.mtu_path import host_verdict
from nicadvisor.model.entities import Evidence, PathTest
from nicadvisor.services.bench_expect import audited_host

if TYPE_CHECKING:
    from nicadvisor.model.audit import Audit


def apply_mtu_paths(audit: "Audit", results: Iterable[PathTest], sources: dict[str, str]) -> list[str]:
    """Record the mesh rows on the audited hosts (``sources``: benchmark host name → ``ssh://…`` source, to find them,
    :func:`nicadvisor.services.bench_expect.audited_host`) and evaluate the findings again. A row is kept by its
    sender, or by its receiver when the sender is not in the audit (so an audited end still gets its finding). Returns
    the names of the audited hosts that changed. Raises :class:`nicadvisor.rules_engine.RuleError` if a shipped rule
    file is broken."""
    from nicadvisor.services.audit import evaluate_findings

    rows = list(results)
    names: dict[str, str] = {}
    for bench_name in {r.client for r in rows} | {r.server for r in rows}:
        host = audited_host(audit.hosts, bench_name, sources.get(bench_name, ""))
        if host is not None:
            names[bench_name] = host.name
    rows = [replace(r, client=names.get(r.client, r.client), server=names.get(r.server, r.server)) for r in rows]
    changed: list[str] = []
    audited = {h.name for h in audit.hosts}
    for host in audit.hosts:
        kept = [r for r in rows if r.client == host.name or (r.server == host.name and r.client not in audited)]
        sent = [r for r in rows if r.client == host.name]
        if kept:
            host.path_tests = kept
            changed.append(host.name)
        mine = sent + [r for r in rows if r.server == host.name]
        ok, lines = host_verdict(mine)
        if ok:
            command = "; ".join(dict.fromkeys(r.command.split("   #", 1)[0] for r in mine if r.command))
            host.mtu_path_ok = True
            host.evidence["mtu_path_ok"] = Evidence(command=command or "the TEP mesh", line=lines,
                                                    source=sources.get(host.name, host.name))
            if host.name not in changed:
                changed.append(host.name)
        elif mine and host.mtu_path_ok is True:  # a newer check that did not pass outweighs an older pass
            host.mtu_path_ok = None
            host.evidence.pop("mtu_path_ok", None)
    if changed:
        audit.findings = evaluate_findings(audit.hosts)
    return changed
