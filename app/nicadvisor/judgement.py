"""The judgement of an audit: every finding, in one pass.

Above both the rules engine (:mod:`nicadvisor.rules_engine`) and the compatibility knowledge (:mod:`nicadvisor.vcg`),
which import neither this module nor each other upwards. :func:`judge` runs three steps, once each:

1. **Knowledge adds facts to the pNICs, each with its source.** Each host's compatibility context is derived once
   (:func:`nicadvisor.vcg.context.compat_contexts`: the ESXi release with its update, and per pNIC the compatibility
   database's entries, the imported guide's listings, the driver catalogue's facts and the card-model table's row,
   each source consulted once per pNIC). The card-model table sets the capable PCIe link of a card it lists
   (:func:`nicadvisor.vcg.card_models.card_capability`); the driver catalogue offers the capabilities a pNIC did
   not read (:func:`nicadvisor.vcg.knowledge.catalogue_offers`), except a feature the imported guide lists for the
   pNIC (certification data outranks documents: the guide decides that cell,
   :func:`nicadvisor.vcg.guide_findings.guide_listed_facts`). Attestations (what people checked by hand) and
   the BMC's readings were applied before, by the audit (:mod:`nicadvisor.services.audit`): a reading or an
   attestation of this NIC wins over a document about its driver or card model.
2. **The rules engine evaluates every rule once, on facts only**
   (:func:`nicadvisor.rules_engine.engine.evaluate_admitting`; the release is the rules' ``host_release`` fact, the
   catalogue facts give the RSS commands). A catalogue offer is set only where it makes no rule stop firing.
3. **The findings of knowledge and of the path tests**, each reading the same context:
   the release of each ESXi host (``esxi-release`` info, or ``esxi-release-unknown`` naming what was read and the
   command that reads it: a decisive check, :mod:`nicadvisor.model.readiness`); the compatibility database
   (:func:`nicadvisor.vcg.database_findings.findings_for_hosts`), the catalogue conflicts
   (:func:`nicadvisor.vcg.knowledge.catalogue_conflicts`), the imported guide
   (:func:`nicadvisor.vcg.guide_findings.guide_findings`) and the overlay features it lists
   (:func:`nicadvisor.vcg.guide_findings.feature_findings`), each finding naming the release it used; the findings
   of the path tests between hosts (the TEP mesh), each on the vmknic or interface at either end of a failing path
   (:func:`nicadvisor.model.path_tests.path_test_findings`); the ``overlay-no-fit-pnic`` error of a host whose every
   overlay candidate is unfit (:func:`nicadvisor.model.readiness.overlay_fit_findings`), with its change, check and
   roll-back (:func:`nicadvisor.change_commands.overlay_fit_steps`).

Readiness and the verdict (:func:`nicadvisor.model.verdict.verdict_of`) read only these findings and the hosts.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt

from nicadvisor.model import Finding, Host, Severity
from nicadvisor.model.path_tests import path_test_findings
from nicadvisor.model.readiness import overlay_fit_findings
from nicadvisor.change_commands import guide_import_steps, overlay_fit_steps
from nicadvisor.rules_engine import evaluate_admitting, load_rules
from nicadvisor.rules_engine.engine import Offer
from nicadvisor.vcg.card_models import card_capability
from nicadvisor.vcg.context import HostCompat, compat_contexts
from nicadvisor.vcg.driver_catalogue import DriverCatalogue
from nicadvisor.vcg.database_findings import findings_for_hosts
from nicadvisor.vcg.guide_findings import feature_findings, guide_findings, guide_listed_facts
from nicadvisor.vcg.guide_store import GuideDataset, GuideStoreError, load_dataset
from nicadvisor.vcg.knowledge import catalogue_conflicts, catalogue_offers
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


def add_knowledge(contexts: dict[int, HostCompat]) -> dict[int, list[Offer]]:
    """Step 1 on every host of ``contexts``: set the card-model table's capable PCIe facts (a pNIC's own reading
    wins) and gather the driver catalogue's offers, by ``id(pnic)``, for the rules engine to admit. Returns the
    offers."""
    offers: dict[int, list[Offer]] = {}
    for ctx in contexts.values():
        for p in ctx.host.pnics:
            if p.is_physical is False:
                continue
            known = ctx.of(p)
            card_capability(p, known.card)
            listed = guide_listed_facts(ctx, p) if ctx.guide is not None else set()
            offered = [o for o in catalogue_offers(p, known.catalogue) if o[0] not in listed]
            if offered:
                offers[id(p)] = offered
    return offers


def judge(hosts: list[Host], rules: list | None = None, *, db: VcgDatabase | None = None,
          guide: GuideDataset | None | object = _LOAD, today: _dt.date | None = None) -> list[Finding]:
    """Every finding of an audit of ``hosts`` (see the module docstring), in the order: rules, releases, database,
    catalogue conflicts, guide, guide features, unfit overlays. ``rules``: default the shipped and user rules
    (:func:`nicadvisor.rules_engine.load_rules`); ``db``: default a private in-memory compatibility database;
    ``guide``: default the imported guide from its store (a stored guide that cannot be read is a
    ``guide-unreadable`` warning on each ESXi host, never a silent pass); ``today``: the date staleness is judged
    on. The facts the knowledge sources add are set on the hosts' pNICs, each with its evidence. Raises
    :class:`nicadvisor.rules_engine.RuleError` if a shipped rule file is broken."""
    data, unreadable = _guide() if guide is _LOAD else (guide, None)
    assert data is None or isinstance(data, GuideDataset)
    contexts = compat_contexts(hosts, db=db, guide=data)
    ordered = [contexts[id(h)] for h in hosts]
    findings, _admitted = evaluate_admitting(load_rules() if rules is None else rules, hosts, contexts,
                                             add_knowledge(contexts))
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


def fill_from_driver_catalogue(host: Host, catalogue: DriverCatalogue | None = None,
                               rules: list | None = None) -> list[str]:
    """The driver catalogue's step of the judgement on one ``host`` alone: set its pNICs' unknown capability facts
    from the catalogue's decided facts, except a value that would make a rule stop firing (``rules``: default the
    shipped and user rules that load). Returns ``"vmnic2.geneve_rx_filter"``-style names of what was set."""
    contexts = compat_contexts([host], catalogue=catalogue)
    offers = {id(p): catalogue_offers(p, contexts[id(host)].of(p).catalogue) for p in host.pnics}
    _findings, admitted = evaluate_admitting(load_rules(skipped=[]) if rules is None else rules, [host], contexts,
                                             {i: o for i, o in offers.items() if o})
    return [name for _host, name in admitted]
