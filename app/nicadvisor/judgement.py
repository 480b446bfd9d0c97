"""The judgement of an audit: every finding, in one pass.

:func:`judge` derives each host's compatibility context once (:func:`nicadvisor.vcg.context.compat_contexts`: the
ESXi release with its update, the compatibility database's entries, the imported guide's listings and the driver
catalogue's facts per pNIC) and hands it to everything that judges:

1. the YAML rules (:func:`nicadvisor.rules_engine.evaluate`; the release is the rules' ``host_release`` fact, the
   catalogue facts give the RSS commands);
2. the release of each ESXi host (``esxi-release`` info, or ``esxi-release-unknown`` naming what was read and the
   command that reads it: a decisive check, :mod:`nicadvisor.model.readiness`);
3. the compatibility database (:func:`nicadvisor.vcg.findings.findings_for_hosts`), the catalogue conflicts
   (:func:`nicadvisor.vcg.knowledge.catalogue_conflicts`), the imported guide
   (:func:`nicadvisor.vcg.guide_findings.guide_findings`) and the overlay features it lists
   (:func:`nicadvisor.vcg.guide_findings.feature_findings`), each finding naming the release it used;
4. the findings of the path tests between hosts (the TEP mesh), each on the vmknic or interface at either end of a
   failing path (:func:`nicadvisor.model.path_tests.path_test_findings`);
5. the ``overlay-no-fit-pnic`` error of a host whose every overlay candidate is unfit
   (:func:`nicadvisor.model.readiness.overlay_fit_findings`), with its change, check and roll-back
   (:func:`nicadvisor.change_commands.overlay_fit_steps`).

The verdict (:func:`nicadvisor.model.verdict.verdict_of`) reads only these findings and the hosts.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt

from nicadvisor.model import Finding, Host, Severity
from nicadvisor.model.path_tests import path_test_findings
from nicadvisor.model.readiness import overlay_fit_findings
from nicadvisor.change_commands import guide_import_steps, overlay_fit_steps
from nicadvisor.vcg.context import HostCompat, compat_contexts
from nicadvisor.vcg.findings import findings_for_hosts
from nicadvisor.vcg.guide_findings import feature_findings, guide_findings
from nicadvisor.vcg.guide_store import GuideDataset, GuideStoreError, load_dataset
from nicadvisor.vcg.knowledge import catalogue_conflicts
from nicadvisor.vcg.lookup import VcgDatabase

_LOAD = object()
#: The host facts a release is read from, and the commands that state them.
_RELEASE_FACTS = ("product_version", "build", "product_update")


def release_findings(contexts: list[HostCompat]) -> list[Finding]:
    """Per ESXi host: ``esxi-release`` (info) naming the compatibility-guide release every driver and compatibility
    finding uses, with what it was read from; or ``esxi-release-unknown`` (info) saying what was read, what is
    missing and the read-only command that reads it (``vmware -vl``). The verdict reads them: an unknown release is
    a decisive check not made."""
    out = []
    for ctx in contexts:
        host = ctx.host
        if host.kind != "esxi":
            continue
        evidence = tuple(host.evidence[k] for k in _RELEASE_FACTS if k in host.evidence)
        read = ", ".join(f"{k.replace('product_', '')} {getattr(host, k)}" for k in _RELEASE_FACTS
                         if getattr(host, k) is not None)
        sources = ", ".join(dict.fromkeys(e.command for e in evidence)) or "no input"
        if ctx.release is not None:
            out.append(Finding(
                rule_id="esxi-release", title=f"ESXi release: {ctx.release}", severity=Severity.INFO, host=host.name,
                message=f"{host.name} runs {ctx.release} (read: {read}; from {sources}). Every driver and "
                        "compatibility finding of this host uses this release.",
                recommendation="Nothing to change.", evidence=evidence, category="driver",
                facts=tuple(k for k in _RELEASE_FACTS if getattr(host, k) is not None)))
        else:
            out.append(Finding(
                rule_id="esxi-release-unknown", title="ESXi release not known", severity=Severity.INFO,
                host=host.name, message=f"{ctx.release_reason[0].upper()}{ctx.release_reason[1:]}.",
                recommendation=f"Run vmware -vl on {host.name} (read-only; or esxcli system version get) and audit "
                               "again with its output: the driver listings of the compatibility guide are per "
                               "release and update.",
                evidence=evidence, category="driver"))
    return out


def _guide() -> tuple[GuideDataset | None, str | None]:
    """The imported guide (None when none was imported) and why it could not be read (None when it could)."""
    try:
        return load_dataset(), None
    except GuideStoreError as exc:
        return None, str(exc)


def judge(hosts: list[Host], rules: list | None = None, *, db: VcgDatabase | None = None,
          guide: GuideDataset | None | object = _LOAD, today: _dt.date | None = None) -> list[Finding]:
    """Every finding of an audit of ``hosts`` (see the module docstring), in the order: rules, releases, database,
    catalogue conflicts, guide, guide features, unfit overlays. ``rules``: default the shipped and user rules
    (:func:`nicadvisor.rules_engine.load_rules`); ``db``: default a private in-memory compatibility database;
    ``guide``: default the imported guide from its store (a stored guide that cannot be read is a
    ``guide-unreadable`` warning on each ESXi host, never a silent pass); ``today``: the date staleness is judged
    on. Raises :class:`nicadvisor.rules_engine.RuleError` if a shipped rule file is broken."""
    from nicadvisor.rules_engine import evaluate, load_rules

    data, unreadable = _guide() if guide is _LOAD else (guide, None)
    assert data is None or isinstance(data, GuideDataset)
    contexts = compat_contexts(hosts, db=db, guide=data)
    ordered = [contexts[id(h)] for h in hosts]
    findings = evaluate(load_rules() if rules is None else rules, hosts, contexts)
    findings += release_findings(ordered)
    findings += findings_for_hosts(hosts, contexts=contexts) + catalogue_conflicts(hosts, contexts=contexts)
    if unreadable is not None:
        findings += [Finding(
            rule_id="guide-unreadable", title="Imported compatibility guide unreadable", severity=Severity.WARNING,
            host=h.name, message=f"The imported compatibility guide could not be read, so no pNIC was checked against "
                                 f"it: {unreadable}",
            recommendation="Import the guide again (nic-advisor vcg import FILE).", category="driver",
            **guide_import_steps())
            for h in hosts if h.kind == "esxi"]
    else:
        findings += guide_findings(hosts, data, today, contexts) + feature_findings(hosts, data, contexts)
    findings += path_test_findings(hosts)
    by_name = {h.name: h for h in hosts}
    return findings + [dataclasses.replace(f, **overlay_fit_steps(by_name[f.host]))
                       for f in overlay_fit_findings(hosts, findings)]

