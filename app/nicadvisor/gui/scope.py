"""The audit scope of a vCenter as a set of hosts of its inventory tree (pure; no Qt, no I/O).

The tree is the one ``nicadvisor.collect.vsphere.list_inventory`` returns: datacenter nodes whose
children are clusters (``kind == "cluster"``) and standalone compute resources (``"standalone"``), whose
children are hosts. A scope is what ``VsphereTarget`` takes: ``datacenter`` / ``cluster`` names and
``host_names`` (all optional, "" / () for all), with the collector's semantics: the datacenter and the
cluster narrow where hosts are looked up (a cluster is a ClusterComputeResource: a standalone host is
never "a cluster"), ``host_names`` keeps the hosts of that name (case-insensitive).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


@dataclass(frozen=True)
class Scope:
    """``VsphereTarget``'s scope fields: ``datacenter`` and ``cluster`` names ("" for all) and
    ``host_names`` (() for all)."""

    datacenter: str = ""
    cluster: str = ""
    host_names: tuple[str, ...] = ()


def all_hosts(tree: Iterable[Any]) -> list[Any]:
    """Every host node of ``tree`` (datacenter nodes), in tree order."""
    return [h for dc in tree for h in dc.hosts()]


def hosts_in_scope(tree: Iterable[Any], scope: Scope) -> list[Any]:
    """The host nodes of ``tree`` an audit with ``scope`` reads, in tree order."""
    wanted = {n.lower() for n in scope.host_names}
    out = []
    for dc in tree:
        if scope.datacenter and dc.name != scope.datacenter:
            continue
        for compute in dc.children:
            if scope.cluster and (compute.kind != "cluster" or compute.name != scope.cluster):
                continue
            out.extend(h for h in compute.children if not wanted or h.name.lower() in wanted)
    return out


def scope_of_selection(tree: Iterable[Any], checked: set[str]) -> Scope | None:
    """The narrowest way to say "these hosts" (``checked``: host refs, ``"HostSystem:host-21"``): no filter
    when every host is checked; the datacenter when exactly one whole datacenter is; datacenter + cluster
    when exactly one whole cluster is; else the host names (in tree order). None when no host is checked."""
    tree = list(tree)
    hosts = all_hosts(tree)
    chosen = [h for h in hosts if h.ref in checked]
    if not chosen:
        return None
    if len(chosen) == len(hosts):
        return Scope()
    for dc in tree:
        dc_hosts = dc.hosts()
        if {h.ref for h in dc_hosts} == {h.ref for h in chosen}:
            return Scope(datacenter=dc.name)
        for compute in dc.children:
            if compute.kind == "cluster" and {h.ref for h in compute.children} == {h.ref for h in chosen}:
                return Scope(datacenter=dc.name, cluster=compute.name)
    return Scope(host_names=tuple(h.name for h in chosen))


def scope_text(datacenter: str, cluster: str, host_names: tuple[str, ...], tree: list[Any] | None) -> str:
    """The Scope column of a vCenter: ``"all hosts"`` / ``"DC0 / DC0_C0"`` / ``"2 named hosts"`` while the tree
    is unknown; with the tree, the count: ``"all hosts (5)"``, ``"DC0: 5 of 10 hosts"``, ``"3 of 10 hosts"``."""
    where = " / ".join(p for p in (datacenter, cluster) if p)
    if tree is None:
        names = f"{len(host_names)} named host{'s' if len(host_names) != 1 else ''}" if host_names else ""
        return " · ".join(p for p in (where, names) if p) or "all hosts"
    total = len(all_hosts(tree))
    n = len(hosts_in_scope(tree, Scope(datacenter, cluster, tuple(host_names))))
    if n == total and not (where or host_names):
        return f"all hosts ({total})"
    return f"{where + ': ' if where else ''}{n} of {total} host{'s' if total != 1 else ''}"


def host_state_text(host: Any) -> str:
    """``"connected"``, ``"disconnected"``, ``"not responding"``, ``"maintenance mode"`` (or
    ``"disconnected · maintenance mode"``); ``"state unknown"`` when vCenter did not say."""
    state = {"notResponding": "not responding"}.get(host.connection_state or "", host.connection_state or "")
    parts = [state] if state and (state != "connected" or not host.in_maintenance) else []
    if host.in_maintenance:
        parts.append("maintenance mode")
    return " · ".join(parts) or "state unknown"
