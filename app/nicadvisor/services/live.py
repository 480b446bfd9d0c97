"""Live sources of an audit: vCenter/ESXi (vSphere API), ESXi and Linux over SSH, NSX Manager.

Each collector runs its own worker threads (one vSphere session per vCenter, a bounded pool of SSH
clients) and returns host groups plus problems; nothing here raises for a target that fails. NSX
transport nodes are joined with the hosts of the other sources by name (:func:`join_nsx`).
"""
from __future__ import annotations

import ipaddress
import threading
from typing import Callable

from nicadvisor.collect.assemble import HostInputs
from nicadvisor.model import InputProblem

Progress = Callable[[float, str], None]


def collect_live(request, progress: Progress, cancel: threading.Event | None,
                 groups: list[HostInputs], problems: list[InputProblem]) -> None:
    """Read the live targets of ``request`` (an AuditRequest) into ``groups`` and ``problems``.
    Raises :class:`nicadvisor.cancel.Cancelled` when cancelled."""
    if request.vsphere:
        from nicadvisor.collect.vsphere import collect_vsphere

        col = collect_vsphere(list(request.vsphere), progress, cancel)
        groups.extend(col.hosts)
        problems.extend(col.problems)
    if request.ssh:
        from nicadvisor.collect.ssh import collect_ssh

        col = collect_ssh(list(request.ssh), lambda msg: progress(0.05, msg), cancel,
                          known_hosts=request.known_hosts, ask=request.ask_host_key)
        groups.extend(col.hosts)
        problems.extend(col.problems)
        if request.save_captures:
            from nicadvisor.collect.ssh import save_captures

            save_captures(col.hosts, request.save_captures)
    for target in request.nsx:
        from nicadvisor.collect.nsx import collect_nsx

        col = collect_nsx(target, lambda msg: progress(0.08, msg), cancel)
        problems.extend(col.problems)
        join_nsx(groups, col.hosts, col.aliases)


def _names(name: str) -> set[str]:
    """A host name and its short form (``esx1.example.com`` → ``esx1``); an IP address only as itself."""
    low = name.lower()
    try:
        ipaddress.ip_address(low.strip("[]"))
        return {low}
    except ValueError:
        return {low, low.split(".")[0]}


def join_nsx(groups: list[HostInputs], nsx_hosts: list[HostInputs], aliases: dict[str, list[str]]) -> None:
    """Append each NSX transport node's facts to the host of another source it names (any alias equal
    to that host's name or short name, case-insensitively), after that host's own outputs so values read
    from the device win; a transport node no other source knows stays a host of its own."""
    for nsx_host in nsx_hosts:
        wanted = set().union(*(_names(a) for a in [nsx_host.name, *aliases.get(nsx_host.name, [])]))
        match = next((g for g in groups if _names(g.name) & wanted), None)
        if match is None:
            groups.append(nsx_host)
            continue
        match.parsed.extend(nsx_host.parsed)
        match.problems.extend(nsx_host.problems)
        match.kind = match.kind or nsx_host.kind
