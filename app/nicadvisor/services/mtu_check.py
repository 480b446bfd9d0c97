"""Use-case: the MTU path check between audited Linux hosts becomes a fact of their audit.

Each sending host's results (:class:`nicadvisor.bench.mtu_path.MtuPathResult`) set its ``mtu_path_ok`` with the
ping lines as evidence (:func:`nicadvisor.bench.mtu_path.host_verdict`), then the audit's findings are evaluated
again, so the rules decide (``mtu-path-test-failed-linux``: an error naming both hosts and the size) and the one
verdict follows, in every view and in the history.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from nicadvisor.bench.mtu_path import MtuPathResult, host_verdict
from nicadvisor.model.entities import Evidence
from nicadvisor.services.bench_expect import audited_host

if TYPE_CHECKING:
    from nicadvisor.model.audit import Audit


def apply_mtu_paths(audit: "Audit", results: Iterable[MtuPathResult], sources: dict[str, str]) -> list[str]:
    """Record each sending host's outcome on its audited host (``sources``: benchmark host name → ``ssh://…`` source,
    to find it, :func:`nicadvisor.services.bench_expect.audited_host`) and evaluate the findings again. A host whose
    results prove nothing (the ping could not run) keeps what the audit read. Returns the names of the audited hosts
    that changed. Raises :class:`nicadvisor.rules_engine.RuleError` if a shipped rule file is broken."""
    from nicadvisor.services.audit import evaluate_findings

    by_client: dict[str, list[MtuPathResult]] = {}
    for r in results:
        by_client.setdefault(r.client, []).append(r)
    changed = []
    for client, rows in by_client.items():
        ok, lines = host_verdict(rows)
        host = audited_host(audit.hosts, client, sources.get(client, ""))
        if host is None or ok is None:
            continue
        command = "; ".join(dict.fromkeys(r.command.split("   #", 1)[0] for r in rows))
        host.mtu_path_ok = ok
        host.evidence["mtu_path_ok"] = Evidence(command=command, line=lines, source=sources.get(client, client))
        changed.append(host.name)
    if changed:
        audit.findings = evaluate_findings(audit.hosts)
    return changed
