"""Use-case: the expectation of each result of a benchmark between audited hosts, from their audited facts.

A result between two hosts is compared only with a band for that path (``host-to-host``,
:func:`nicadvisor.bench.expected.expected_band`), built from:

* the audit of each host (the newest stored audit that holds it, or the one the user names): link speed, MTU, PCIe
  of the pNIC the test address lives on (:func:`nicadvisor.bench.expected.endpoint_facts`); on ESXi, of the uplinks
  of the test vmknic's switch, with the vmknic's MTU (the host-to-host band of the vmknic path);
* what the benchmark's read-only probe saw on the host just before the test (:class:`~nicadvisor.bench.remote.HostProbe`):
  the interface holding the test address, its MTU now, a ``tc tbf`` qdisc shaping what it sends and one on the ifb
  device its ingress is redirected to, shaping what it receives (the slower of the sender's and the receiver's is the
  line rate of that direction: Linux net/sched/sch_tbf.c).

Where no band fits, the result says why and how to get one (``no_expectation``): a host that was not audited, an
interface that is not a pNIC the audit read (bond, VLAN, bridge, veth), a link speed not reported, or a test the
references publish figures for only between VMs (TCP_CRR; a TCP_RR is judged against the path's own ICMP echo
round trip, :mod:`nicadvisor.bench.path_rtt`). Pure except :func:`find_audit`, which reads the
history.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable

from nicadvisor.bench.expected import PATH_HOSTS, EndpointFacts, endpoint_facts, expected_band, no_band_reason
from nicadvisor.bench.results import BenchResult

if TYPE_CHECKING:
    from nicadvisor.bench.path_rtt import PathRtt
    from nicadvisor.bench.remote import HostProbe
    from nicadvisor.bench.stack_cost import StackCost
    from nicadvisor.model.audit import Audit
    from nicadvisor.model.entities import Host
    from nicadvisor.store.history import AuditStore

#: How many of the newest stored audits :func:`find_audit` looks through.
SEARCH_DEPTH = 50


@dataclass(frozen=True)
class PathEnd:
    """One benchmarked host as an end of a test path.

    ``name``: the host's name in the benchmark; ``facts``: its :class:`EndpointFacts` (audited facts of the pNIC
    holding the test address, with the MTU the probe read; only the probed MTU when the host or pNIC was not audited);
    ``audited``: True when ``facts`` come from an audit; ``why_not``: when not, why (a sentence naming what to do);
    ``tbf_rate_mbit``: a tbf rate shaping what this host sends (Mbit/s), None when none; ``origin``: where the facts
    come from, for the basis (``"audit #12 of 2026-11-25T10:00:00"``); ``ingress_rate_mbit``/``ingress_at``: a tbf
    shaping what this host receives (Mbit/s) and where, in words (:attr:`HostProbe.ingress_at`); ``ingress_notes``
    redirects of what it receives that are named but not counted (:attr:`HostProbe.ingress_notes`)."""

    name: str
    facts: EndpointFacts
    audited: bool
    why_not: str = ""
    tbf_rate_mbit: float | None = None
    origin: str = ""
    ingress_rate_mbit: float | None = None
    ingress_at: str = ""
    ingress_notes: tuple[str, ...] = ()


def audit_label(audit: "Audit") -> str:
    """``"audit #12 of 2026-11-25T10:00:00"`` (``"this audit"`` when it was not stored)."""
    if audit.history_id is None:
        return "this audit"
    when = f" of {audit.created_at}" if getattr(audit, "created_at", None) else ""
    return f"audit #{audit.history_id}{when}"


def audited_host(hosts: Iterable["Host"], name: str, source: str) -> "Host | None":
    """The audited host a benchmark host is: the one read from the same SSH ``source`` (``ssh://user@host:port``,
    kept in ``Host.inputs``), else the one with the same ``name`` (case-insensitive); None when there is none."""
    hosts = list(hosts)
    for h in hosts:
        if source and source in h.inputs:
            return h
    for h in hosts:
        if h.name.lower() == name.lower():
            return h
    return None


def path_end(probe: "HostProbe", audit: "Audit | None", *, source_hint: str = "") -> PathEnd:
    """The :class:`PathEnd` of a probed host, from ``audit`` (None: no audit holds it). Never raises: what is missing
    becomes ``why_not``. ``source_hint``: the target as the user wrote it, for the advice."""
    end = _path_end(probe, audit, source_hint)
    return replace(end, ingress_rate_mbit=probe.ingress_rate_mbit, ingress_at=probe.ingress_at,
                   ingress_notes=probe.ingress_notes)


def _path_end(probe: "HostProbe", audit: "Audit | None", source_hint: str) -> PathEnd:
    iface = probe.interface
    where = f"{probe.name}/{iface}" if iface else probe.name
    bare = EndpointFacts(name=where, mtu=probe.mtu)
    target = source_hint or probe.source
    if audit is None:
        return PathEnd(probe.name, bare, False, f"{probe.name} was not audited: audit it first (nic-advisor audit "
                       f"--ssh {target}) so that its link speed, MTU and PCIe set the expected throughput",
                       probe.tbf_rate_mbit)
    label = audit_label(audit)
    host = audited_host(audit.hosts, probe.name, probe.source)
    if host is None:
        return PathEnd(probe.name, bare, False, f"{probe.name} is not in {label}: audit it (nic-advisor audit --ssh "
                       f"{target}) so that its link speed, MTU and PCIe set the expected throughput",
                       probe.tbf_rate_mbit, label)
    if not iface:
        return PathEnd(probe.name, bare, False, f"the interface holding {probe.address or 'the test address'} on "
                       f"{probe.name} was not found: name it with --interface", probe.tbf_rate_mbit, label)
    if getattr(probe, "kind", "linux") == "esxi":
        return _vmknic_end(probe, host, iface, bare, label)
    pnic = host.pnic(iface)
    if pnic is None or pnic.is_physical is False:
        known = ", ".join(p.name for p in host.pnics if p.is_physical is not False) or "none"
        if pnic is not None:  # a software interface: no line rate, but its TSO and queues still slow a test
            bare = replace(bare, tso=pnic.tso, rx_queues=pnic.rx_queues)
        return PathEnd(probe.name, bare, False, f"{where} is not a pNIC of {label} (a bond, VLAN, bridge, veth or "
                       f"other software interface, or one the audit did not read; its pNICs: {known}): the link speed "
                       "of the traffic's pNIC is not known", probe.tbf_rate_mbit, label)
    facts = replace(endpoint_facts(host, pnic.name, encapsulation=None), name=where)
    if probe.mtu:
        facts = replace(facts, mtu=min(probe.mtu, facts.mtu) if facts.mtu else probe.mtu)
    return PathEnd(probe.name, facts, True, "", probe.tbf_rate_mbit, label)


def _vmknic_end(probe: "HostProbe", host: "Host", vmk: str, bare: EndpointFacts, label: str) -> PathEnd:
    """An ESXi end: the test runs from vmknic ``vmk``, so its band is that of the uplinks of the vmknic's switch (line
    rate, PCIe: :func:`nicadvisor.bench.expected.endpoint_facts` of an uplink; plain TCP, not encapsulated), with the
    smallest MTU of the vmknic, its switch and the uplink. When the uplinks differ in speed (or one is not read), which
    one a flow takes is not known: no band, said why (never the faster, which a degraded path would fail, nor the
    slower, which it would pass)."""
    where = f"{probe.name}/{vmk}"
    v = next((x for x in host.vmknics if x.name == vmk), None)
    if v is None:
        return PathEnd(probe.name, bare, False, f"{vmk} is not a vmknic of {probe.name} in {label}: its switch and "
                       "uplinks, which set the line rate, are not known", None, label)
    sw = next((x for x in host.switches if x.name == v.switch), None) if v.switch else None
    if sw is None or not sw.uplinks:
        return PathEnd(probe.name, bare, False, f"the switch of {vmk} on {probe.name} and its uplinks are not known from "
                       f"{label} (they set the line rate): audit it with esxcfg-vswitch -l, esxcli network vswitch dvs "
                       "vmware list or the NSX API", None, label)
    ups = [p for p in (host.pnic(u) for u in sw.uplinks) if p is not None and p.link_up is not False]
    speeds = {p.link_speed_mbps for p in ups}
    if not ups or None in speeds or len(speeds) != 1:
        told = ", ".join(f"{p.name} {p.link_speed_mbps or '?'} Mbit/s" for p in ups) or "none with link"
        return PathEnd(probe.name, bare, False, f"the uplinks of {sw.name} ({told}) are not one known speed: which one "
                       f"a flow from {vmk} takes is not known", None, label)
    facts = endpoint_facts(host, ups[0].name, encapsulation=None)
    mtus = [m for m in (v.mtu, facts.mtu, probe.mtu) if m]
    facts = replace(facts, name=where, mtu=min(mtus) if mtus else None)
    return PathEnd(probe.name, facts, True, "", None, label)


def _streams(result: BenchResult) -> int:
    return max(1, int(result.streams or 1))


def path_conditions(a: PathEnd, b: PathEnd) -> str:
    """What shaped the path from ``a`` to ``b`` when it was probed: the sender's tbf rate, the receiver's ingress
    tbf and both ends' MTU (``"tc tbf 200 Mbit/s on lab-a; MTU 1500 on lab-a, 1500 on lab-b"``), "" when nothing
    was read. Pure."""
    parts = [f"tc tbf {a.tbf_rate_mbit:g} Mbit/s on {a.name}"] if a.tbf_rate_mbit else []
    if b.ingress_rate_mbit:
        parts.append(f"tc tbf {b.ingress_rate_mbit:g} Mbit/s {b.ingress_at}")
    mtus = [f"{e.facts.mtu} on {e.name}" for e in (a, b) if e.facts.mtu]
    if mtus:
        parts.append("MTU " + ", ".join(mtus))
    return "; ".join(parts)


def attach_expectations(results: Iterable[BenchResult], ends: dict[str, PathEnd],
                        rtts: "dict[tuple[str, str], PathRtt | str] | None" = None,
                        stack: "StackCost | None" = None) -> list[BenchResult]:
    """``results`` (between hosts: ``client``/``server`` set) with ``expected`` = the host-to-host band of each, or
    ``no_expectation`` = why none fits. The slower of the sender's tbf and the receiver's ingress tbf, when the
    probe saw one, is the line rate of the path (Linux net/sched/sch_tbf.c), named in the band; ``rtts`` maps
    ``(client, server, test name)`` (or ``(client, server)`` for every test of the pair) to the path's ICMP echo
    round trip measured right before that test (:class:`~nicadvisor.bench.path_rtt.PathRtt`, what a TCP_RR is judged
    against) or to why it is not known; ``stack`` the per-transaction stack cost calibrated on this machine's loopback
    (:func:`nicadvisor.bench.stack_cost.measure_stack_cost`), which a TCP_RR band adds to the echo; the basis names
    where the facts came from. A result whose ends are not in
    ``ends`` is returned unchanged. Pure."""
    out: list[BenchResult] = []
    rtts = rtts or {}
    for r in results:
        a, b = ends.get(r.client), ends.get(r.server)
        if a is None or b is None or r.not_measurable:
            out.append(r)
            continue
        r = replace(r, path_conditions=path_conditions(a, b))
        rate, rate_at = a.tbf_rate_mbit, ""
        if b.ingress_rate_mbit and (rate is None or b.ingress_rate_mbit < rate):  # the receiver shapes tighter
            rate, rate_at = b.ingress_rate_mbit, b.ingress_at
        got = rtts.get((r.client, r.server, r.spec or r.test), rtts.get((r.client, r.server)))
        rtt = got if got is not None and not isinstance(got, str) else None
        rtt_problem = got if isinstance(got, str) else ""
        payload = r.payload_bytes or 1
        band = expected_band(r.test, a.facts, b.facts, path=PATH_HOSTS, rate_mbit=rate, payload=payload,
                             streams=_streams(r), path_rtt=rtt, direction=r.direction or "send", rate_at=rate_at,
                             stack=stack,
                             datagram=r.payload_bytes if r.test == "UDP_STREAM" and r.payload_bytes else None)
        if band is None:
            missing = [e.why_not for e in (a, b) if e.why_not]
            why = "; ".join(missing) if missing and r.test.endswith("_STREAM") else \
                no_band_reason(r.test, a.facts, b.facts, path=PATH_HOSTS, rate_mbit=rate, payload=payload,
                               path_rtt=rtt, rtt_problem=rtt_problem, direction=r.direction or "send")
            out.append(replace(r, expected=None, no_expectation=why))
            continue
        origin = []
        if rate and r.test != "TCP_RR":  # a TCP_RR band is the path's echo round trip, which already crossed the tbf
            origin.append(f"tc tbf {rate:g} Mbit/s read on " + (f"{b.name} before the test ({rate_at})" if rate_at
                                                                 else f"{a.facts.name} before the test"))
        audited = sorted({e.origin for e in (a, b) if e.audited and e.origin})
        if audited:
            origin.append("audited facts of " + " and ".join(audited))
        unaudited = [e.why_not for e in (a, b) if e.why_not and r.test != "TCP_RR"]
        expected = band.to_expected()
        basis = expected.basis + ("; " + "; ".join(origin) if origin else "")
        shaped = b.ingress_notes if r.test != "TCP_RR" else ()  # what may shape the stream, unevaluated
        notes = expected.notes + tuple(unaudited) + shaped
        out.append(replace(r, expected=replace(expected, basis=basis, notes=notes), no_expectation=""))
    return out


def find_audit(store: "AuditStore", sources: Iterable[str], names: Iterable[str]) -> "Audit | None":
    """The newest stored, finished audit (among the :data:`SEARCH_DEPTH` newest) that holds the most of the hosts
    read from ``sources`` (``ssh://user@host:port``) or named ``names``; None when none holds any. Audits whose inputs
    name one of ``sources`` are searched first (from their summaries, without loading the others). Raises
    :class:`nicadvisor.store.HistoryError` when the history cannot be read."""
    sources, names = set(sources), {n.lower() for n in names}
    best, best_count = None, 0
    finished = [s for s in store.list_audits()[:SEARCH_DEPTH] if s.status == "done" and s.hosts]
    # audits that named these SSH targets first (their summaries say so: no load), then any by host name
    by_source = [s for s in finished if sources & set(s.inputs)]
    for summary in by_source or finished:
        audit = store.load(summary.id)
        count = sum(1 for h in audit.hosts if sources & set(h.inputs) or h.name.lower() in names)
        if count > best_count:
            best, best_count = audit, count
    return best
