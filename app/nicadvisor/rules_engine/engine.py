"""Evaluating rules on assembled hosts."""
from __future__ import annotations

import re
import string
from typing import Any, Iterable, Mapping, Sequence

import rule_engine

from nicadvisor.model import Evidence, Finding, Host, Severity
from nicadvisor.model.capabilities import SWITCH_PORT_CATEGORIES
from nicadvisor.model.entities import OVERLAY_NONE, OVERLAY_POSSIBLE
from nicadvisor.model.text import fact_text
from nicadvisor.rules_engine.context import object_context, pnic_context, ports_line_rates
from nicadvisor.rules_engine.loader import Rule

#: A value a document offers for a fact a pNIC did not read: (field, value, evidence naming the document), as the
#: driver catalogue offers them (:func:`nicadvisor.vcg.knowledge.catalogue_offers`).
Offer = tuple[str, Any, Evidence]

_IDENT = re.compile(r"\b[a-z_][a-z0-9_]*\b")



def switch_port_advice(rule: Rule, host: Host, obj: Any) -> str:
    """The sentence a finding of ``rule`` on ``obj`` (a pNIC, or a switch: its uplinks) adds about the physical switch
    ports, from the pNICs' LLDP/CDP neighbours; ``""`` when no neighbour is known or the rule's fix is not there.

    MTU: ``"On the physical switch: set the MTU of switch leaf-01 port Ethernet1/12 to carry 9000-byte frames (9216
    where the switch counts the Ethernet header; it advertises 1500)."``; link: ``"Check the physical side: switch
    leaf-01 port Ethernet1/12."``. 9000 is the pNIC MTU the MTU rules recommend (rules/mtu.yaml,
    nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput); 9216 the jumbo MTU of switch platforms that count
    the 14-byte header and more (the value the switch of community.vmware's QueryNetworkHint sample advertises)."""
    if rule.category not in SWITCH_PORT_CATEGORIES or rule.applies_to not in ("pnic", "switch"):
        return ""
    nics = [obj] if rule.applies_to == "pnic" else [p for p in (host.pnic(n) for n in (obj.uplinks or [])) if p]
    ports = []
    for p in nics:
        where = p.switch_port_text()
        if where:
            said = f" (it advertises MTU {p.neighbor_mtu})" if rule.category == "mtu" and p.neighbor_mtu else ""
            ports.append(f"{where}{said}" if rule.applies_to == "pnic" else f"{where} for {p.name}{said}")
    if not ports:
        return ""
    if rule.category == "mtu":
        return (f"On the physical switch: set the MTU of {'; '.join(ports)} to carry 9000-byte frames (9216 where the "
                "switch counts the Ethernet header), as LLDP/CDP names the port.")
    return f"Check the physical side: {'; '.join(ports)} (as LLDP/CDP names the port)."


def _matches(rule: Rule, ctx: dict[str, Any]) -> bool:
    """Whether ``rule``'s condition holds on ``ctx``; a condition that cannot be evaluated (a comparison with an
    unknown value written without a ``!= null`` guard) does not match."""
    try:
        return bool(rule.compiled.matches(ctx))
    except rule_engine.errors.EvaluationError:
        return False


def _unset(pnic: Any, field: str) -> None:
    setattr(pnic, field, None)
    pnic.evidence.pop(field, None)


def _admit(rules: list[tuple[int, Rule]], host: Host, pnic: Any, offered: list[Offer], compat: Any,
           rates: dict[str, float], admitted: list[tuple[Host, str]]) -> tuple[dict[str, Any], dict[int, bool]]:
    """Set on ``pnic`` the ``offered`` document values that make no rule stop firing: a document value is lower trust
    than a reading, so it may add or keep a finding, never remove one a rule gives on the facts as read (a rule's
    severity on a pNIC does not depend on its values, so "lower" is "removed"). All offers at once when that removes
    nothing, else one by one in order, each kept only when it removes nothing. ``rules``: (index, rule) of the pNIC
    rules. Only the rules that name a fact the offers change are evaluated on the facts as read and on the trials;
    returns the pNIC's context on its final facts and those rules' results on it by index (reused, not evaluated
    again). Appends (``host``, ``"vmnic2.geneve_rx_filter"``) for each value set to ``admitted``."""
    role = host.overlay_role(pnic)
    as_read = pnic_context(host, pnic, compat, rates)
    for field, value, evidence in offered:
        pnic.set_fact(field, value, evidence)
    filled = pnic_context(host, pnic, compat, rates)
    changed = {k for k, v in filled.items() if as_read.get(k) != v}
    # a rule that gives no finding on this pNIC whatever its facts (about overlay traffic, on a pNIC that carries
    # none) is not one an offer could silence
    guarded = [(i, r) for i, r in rules
               if not (r.overlay and role == OVERLAY_NONE) and changed & set(_IDENT.findall(r.condition))]
    before = {i: _matches(r, as_read) for i, r in guarded}
    hits = {i: _matches(r, filled) for i, r in guarded}
    if all(hits[i] for i, hit in before.items() if hit):
        admitted.extend((host, f"{pnic.name}.{field}") for field, _v, _e in offered)
        return filled, hits
    for field, _v, _e in offered:  # some value would silence a finding: keep, one by one, only those that do not
        _unset(pnic, field)
    ctx, hits = as_read, before
    for field, value, evidence in offered:
        pnic.set_fact(field, value, evidence)
        trial = pnic_context(host, pnic, compat, rates)
        trial_hits = {i: _matches(r, trial) for i, r in guarded}
        if all(trial_hits[i] for i, hit in before.items() if hit):
            ctx, hits = trial, trial_hits
            admitted.append((host, f"{pnic.name}.{field}"))
        else:
            _unset(pnic, field)
    return ctx, hits


def _pnic_targets(rules: list[Rule], host: Host, compat: Any, offers: Mapping[int, Sequence[Offer]],
                  admitted: list[tuple[Host, str]]) -> tuple[list[tuple[Any, dict[str, Any]]],
                                                             dict[tuple[int, int], bool]]:
    """The physical pNICs of ``host`` with their rule contexts, the offers of each admitted first (:func:`_admit`);
    and the results the admission already has, by (rule index, ``id(pnic)``)."""
    rates = ports_line_rates(host)
    pnic_rules = [(i, r) for i, r in enumerate(rules) if r.applies_to == "pnic"]
    targets: list[tuple[Any, dict[str, Any]]] = []
    known: dict[tuple[int, int], bool] = {}
    for p in host.pnics:
        if p.is_physical is False:  # pseudo devices (vusb0, veth, bonds) are not audited
            continue
        offered = [o for o in offers.get(id(p), ()) if getattr(p, o[0]) is None]
        if not offered:
            targets.append((p, pnic_context(host, p, compat, rates)))
            continue
        ctx, hits = _admit(pnic_rules, host, p, offered, compat, rates, admitted)
        targets.append((p, ctx))
        known.update(((i, id(p)), hit) for i, hit in hits.items())
    return targets, known


def _targets(host: Host, applies_to: str, compat: Any) -> Iterable[tuple[Any, dict[str, Any]]]:
    if applies_to == "pnic":
        rates = ports_line_rates(host)
        for p in host.pnics:
            if p.is_physical is not False:  # pseudo devices (vusb0, veth, bonds) are not audited
                yield p, pnic_context(host, p, compat, rates)
    elif applies_to == "vmknic":
        for v in host.vmknics:
            yield v, object_context(host, v, compat)
    elif applies_to == "switch":
        for s in host.switches:
            yield s, object_context(host, s, compat)
    elif applies_to == "host":
        yield host, object_context(host, host, compat)


def _evidence(rule: Rule, obj: Any, ctx: dict[str, Any], host: Host) -> tuple[Evidence, ...]:
    names = rule.evidence or tuple(dict.fromkeys(n for n in _IDENT.findall(rule.condition) if n in ctx))
    out: list[Evidence] = []
    for n in names:
        ev = getattr(obj, "evidence", {}).get(n)
        if ev is None and n.startswith("switch_"):
            sw = host.switch_of(obj.name) if hasattr(obj, "pci_address") else None
            ev = sw.evidence.get(n.removeprefix("switch_")) if sw else None
        if ev is None and n.startswith("pcie_bandwidth"):
            ev = obj.evidence.get("pcie_speed_gts" if "capable" not in n else "pcie_speed_capable_gts")
        if ev is not None and ev not in out:
            out.append(ev)
    return tuple(out)


def _known_condition_facts(rule: Rule, ctx: dict[str, Any]) -> tuple[str, ...]:
    """The facts named in ``rule.condition`` that have a value on the object (guards such as
    ``geneve_rx_filter == null`` are left out): what the finding is about, for the capability matrix."""
    return tuple(dict.fromkeys(n for n in _IDENT.findall(rule.condition) if ctx.get(n) is not None))


#: A rule about overlay traffic on a pNIC whose overlay role is not known is lowered one step.
_LOWER = {Severity.ERROR: Severity.WARNING, Severity.WARNING: Severity.INFO, Severity.INFO: Severity.INFO}


def evaluate(rules: list[Rule], hosts: list[Host], compat: dict[int, Any] | None = None) -> list[Finding]:
    """Run every rule on every applicable object of every host: :func:`evaluate_admitting` with no document offers.
    Returns the findings."""
    return evaluate_admitting(rules, hosts, compat)[0]


def evaluate_admitting(rules: list[Rule], hosts: list[Host], compat: dict[int, Any] | None = None,
                       offers: Mapping[int, Sequence[Offer]] | None = None
                       ) -> tuple[list[Finding], list[tuple[Host, str]]]:
    """Run every rule on every applicable object of every host, once, on its facts.

    ``offers``: by ``id(pnic)``, the values documents offer for facts the pNIC did not read (:data:`Offer`). Each is
    set on the pNIC only when it makes no rule stop firing that fires on the facts as read (a document about a
    driver must not hide a warning about this NIC; :func:`_admit`), before the rules run; a rule that names such a
    fact is also evaluated on the facts as read, to know. Returns (the findings, (host, ``"vmnic2.geneve_rx_filter"``)
    for each offer set).

    ``compat``: each host's compatibility context by ``id(host)`` (:func:`nicadvisor.vcg.context.compat_contexts`,
    the judgement's one derivation of the release and the driver-catalogue facts); derived per context when absent.

    A rule with ``overlay: true`` (about overlay traffic) applies with its full severity to a pNIC that carries
    the overlay (:meth:`Host.overlay_role` ``carries``), lowered one step and worded "If <pNIC> will carry overlay
    traffic…" to one whose role is ``possible``, and not at all to one that carries none (a management port
    on a switch without TEP, a pNIC on no switch): issue 8 §4, so a report is not flooded with overlay errors on
    ports that will never carry Geneve.

    A condition that cannot be evaluated on an object (for example a comparison with an unknown
    value written without a ``!= null`` guard) does not match. Returns findings sorted by severity,
    host and target. The contexts of a host's objects are built once for all rules: linear in pNICs (an
    ``esxcfg-nics -l`` of 5,000 rows took over 150 s when each rule rebuilt them, each scanning every pNIC).
    """
    findings: list[Finding] = []
    admitted: list[tuple[Host, str]] = []
    for host in hosts:
        host_compat = compat.get(id(host)) if compat is not None else None
        contexts: dict[str, list[tuple[Any, dict[str, Any]]]] = {}  # built once per host, not once per rule
        known: dict[tuple[int, int], bool] = {}  # results the admission of offers already has
        if offers:
            contexts["pnic"], known = _pnic_targets(rules, host, host_compat, offers, admitted)
        for index, rule in enumerate(rules):
            if rule.applies_to not in contexts:
                contexts[rule.applies_to] = list(_targets(host, rule.applies_to, host_compat))
            for obj, ctx in contexts[rule.applies_to]:
                hit = known.get((index, id(obj)))
                if hit is None:
                    hit = _matches(rule, ctx)
                if not hit:
                    continue
                role = "" if not rule.overlay else (
                    host.switch_overlay_role(obj) if rule.applies_to == "switch" else host.overlay_role(obj))
                if role == OVERLAY_NONE:
                    continue
                values = {k: fact_text(v) for k, v in ctx.items()}
                # in the commands to run (recommendation, change, verify, rollback) an unread value is a placeholder to fill in,
                # never the word "unknown" typed into a command line ("esxcli ... set -v unknown")
                to_fill = {k: (fact_text(v) if v is not None else f"<{k.replace('_', ' ')}>") for k, v in ctx.items()}
                message = string.Template(rule.message).safe_substitute(values)
                severity, full, title = rule.severity, None, rule.title
                if role == OVERLAY_POSSIBLE:
                    title = f"{rule.title} (if it carries overlay)"
                    severity, full = _LOWER[rule.severity], rule.severity
                    message = (f"If {obj.name} will carry overlay traffic (no TEP or NSX host switch is known on it): "
                               f"{message}")
                findings.append(Finding(
                    rule_id=rule.id, title=title, severity=severity, host=host.name, obj="" if obj is host else obj.name,
                    message=message,
                    recommendation=" ".join(filter(None, (string.Template(rule.recommendation).safe_substitute(to_fill),
                                                          switch_port_advice(rule, host, obj)))),
                    references=rule.references, evidence=_evidence(rule, obj, ctx, host), category=rule.category,
                    facts=_known_condition_facts(rule, ctx), overlay_role=role, full_severity=full,
                    rollback=string.Template(rule.rollback).safe_substitute(to_fill),
                    change=string.Template(rule.change).safe_substitute(to_fill),
                    verify=string.Template(rule.verify).safe_substitute(to_fill),
                ))
    findings.sort(key=lambda f: (f.severity.rank, f.host, f.target, f.rule_id))
    return findings, admitted
