"""Hosts that the report would describe alike, reported once: a fleet of 500 hosts of 10 configurations reads as 10
groups ("48 hosts: names…"), each with the facts in which its hosts differ, instead of 500 host pages (issue 19 §1).

Two hosts are alike when the report says the same of them: the same kind, release and build, the same verdict (its
reason with the host's own name taken out, the same decisive checks not made and the same "Finish this audit"
commands, so that a group's block holds for each of its hosts), the same pNICs, switches and vmknics by name and role, the same status
in every cell of the capability matrix, and the same findings (rule, object, severity). What still differs — a driver
or firmware version that no rule judged, an MTU of the same status — is listed per host under its group. MAC and IP
addresses and the input files differ on every host and say nothing about readiness: they are in the CSV and JSON,
which keep one row per host. Pure.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from nicadvisor.model.capabilities import CAPABILITIES, capability_matrix
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Finding, Host, findings_by_host
from nicadvisor.vcg.builds import host_release, release_text

#: Facts that differ on every host by nature; left out of the differences (the CSV/JSON hold them).
IDENTITY_FACTS = frozenset({"mac", "addresses", "evidence"})
#: Most differences listed per host (the rest are counted).
DIFFERENCES_SHOWN = 8


@dataclass(frozen=True)
class HostGroup:
    """Hosts the report describes alike.

    Attributes:
        hosts: the names, in audit order; ``host`` the first of them (its facts and evidence stand for the group).
        differences: per other host, ``"vmnic0 firmware_version 14.2 (esx01: 14.1)"`` lines where it differs from
            ``host`` (at most :data:`DIFFERENCES_SHOWN`, then ``"and N more"``); hosts that differ in nothing are
            absent.
    """

    hosts: tuple[str, ...]
    host: Host
    differences: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """How many hosts the group holds."""
        return len(self.hosts)


def _anonymous(text: str, name: str) -> str:
    return text.replace(name, "\x00") if name else text


def signature(host: Host, findings: list[Finding], verdict: Any | None, rows: list[Any] | None = None) -> tuple:
    """What the report says of ``host`` (its ``findings`` only; ``rows``: its capability matrix, computed when not
    given), without its name: equal signatures are alike."""
    rows = capability_matrix(host, findings) if rows is None else rows
    matrix = tuple((row.pnic, tuple(row.cells[c.key].status for c in CAPABILITIES)) for row in rows)
    return (
        host.kind, host.product_version, host.build, host.product_update, host.mtu_path_ok,
        (verdict.status, _anonymous(verdict.reason, host.name), tuple((m.check, m.pnic) for m in verdict.missing),
         tuple(_anonymous(c, host.name) for c in verdict.finish)) if verdict is not None else None,
        tuple((p.name, p.is_physical) for p in host.pnics),
        tuple((s.name, s.kind, tuple(s.uplinks or ()), s.nsx_host_switch) for s in host.switches),
        tuple((v.name, v.switch, v.netstack, v.is_tep) for v in host.vmknics),
        tuple((n.command, n.reason, n.partial) for n in host.not_run),
        matrix,
        tuple(sorted((f.rule_id, f.obj, f.severity.value, f.full_severity.value if f.full_severity else "")
                     for f in findings)),
    )


def _facts(host: Host) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, objects in (("", [host]), ("", host.pnics), ("", host.switches), ("", host.vmknics),
                           ("module ", host.modules)):
        for obj in objects:
            prefix = "" if obj is host else f"{label}{obj.name} "
            for f in dataclasses.fields(obj):
                if f.name in IDENTITY_FACTS or f.name in ("name", "pnics", "vmknics", "switches", "modules", "inputs"):
                    continue
                out[f"{prefix}{f.name}"] = getattr(obj, f.name)
    return out


def differences(first: Host, other: Host) -> tuple[str, ...]:
    """The facts of ``other`` that differ from ``first`` (same objects by name), as
    ``"vmnic0 firmware_version 14.2 (esx01: 14.1)"``; at most :data:`DIFFERENCES_SHOWN` then ``"and N more"``."""
    a, b = _facts(first), _facts(other)
    lines = [f"{k} {_text(b.get(k))} ({first.name}: {_text(a.get(k))})" for k in sorted(set(a) | set(b))
             if a.get(k) != b.get(k)]
    if len(lines) > DIFFERENCES_SHOWN:
        lines = lines[:DIFFERENCES_SHOWN] + [f"and {len(lines) - DIFFERENCES_SHOWN} more (CSV/JSON)"]
    return tuple(lines)


def _text(value: Any) -> str:
    from nicadvisor.model.text import fact_text

    return fact_text(value, "not read")


def host_groups(audit: Audit, by_host: dict[str, list[Finding]] | None = None,
                verdicts: dict[str, Any] | None = None,
                rows_of: Callable[[Host], list[Any]] | None = None) -> list[HostGroup]:
    """The hosts of ``audit`` in groups of alike hosts (:func:`signature`), in the order of each group's first host;
    a host like no other is a group of one. ``by_host`` (:func:`findings_by_host`), ``verdicts`` (host name →
    HostVerdict) and ``rows_of`` (host → its capability-matrix rows) are computed when not given. Linear in the
    hosts."""
    by_host = findings_by_host(list(audit.findings)) if by_host is None else by_host
    if verdicts is None:
        verdicts = {hv.host: hv for hv in audit.verdict.hosts}
    members: dict[tuple, list[Host]] = {}
    for host in audit.hosts:
        rows = rows_of(host) if rows_of is not None else None
        members.setdefault(signature(host, by_host.get(host.name, []), verdicts.get(host.name), rows), []).append(host)
    groups = []
    for hosts in members.values():
        first = hosts[0]
        diffs = {h.name: d for h in hosts[1:] if (d := differences(first, h))}
        groups.append(HostGroup(tuple(h.name for h in hosts), first, diffs))
    return groups


def group_label(group: HostGroup, shown: int = 3) -> str:
    """``"esx01"`` for a group of one, ``"esx01, esx02, esx03 and 45 more (48 alike hosts)"`` otherwise."""
    if group.size == 1:
        return group.hosts[0]
    names = list(group.hosts)
    listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
    return f"{listed} ({group.size} alike hosts)"


def row_labeller(group_of: dict[str, HostGroup]) -> Callable[[str], str | None]:
    """A function host → the label of its row in one plan item: the host's name, or its group's label for the first
    host of a group met, None for the others of that group (their row is the group's)."""
    seen: set[int] = set()

    def label(host: str) -> str | None:
        group = group_of.get(host)
        if group is None or group.size == 1:
            return host
        if id(group) in seen:
            return None
        seen.add(id(group))
        return group_label(group)

    return label


def kind_and_release(host: Host) -> str:
    """What a host row and a host page say of the system: ``"ESXi 7.0 U3 (7.0.3, build 22348816)"``,
    ``"ESXi release not read (run vmware -vl)"`` (:func:`nicadvisor.vcg.builds.release_text`), ``"Linux"``, or ``""``
    for a host of unknown kind."""
    if host.kind == "esxi":
        text = release_text(host)
        return text if text.startswith("ESXi") else f"ESXi release {text}"
    return "Linux" if host.kind == "linux" else (host.kind or "")


def release_label(host: Host) -> str:
    """The system and ESXi release of a host row, short: ``"ESXi 7.0 U3"``, ``"ESXi 6.7.0 build 8169922, update not
    known"``, ``"release not read"`` (the host page says what reads it); ``"Linux"``; ``""`` for a host of
    unknown kind."""
    if host.kind != "esxi":
        return "Linux" if host.kind == "linux" else ""
    release = host_release(host)
    if release is not None:
        return release
    read = " ".join(x for x in (host.product_version, f"build {host.build}" if host.build else "") if x)
    return f"ESXi {read}, update not known" if read else "release not read"


def host_title(group: HostGroup) -> str:
    """The heading of a host (group) page, its system and release included: ``"Host esx01 · ESXi 8.0 U2 (8.0.2,
    build 22380479)"``, ``"Hosts esx01 and 47 alike · ESXi release not read (run vmware -vl)"``."""
    host = group.host
    who = f"Host {host.name}" if group.size == 1 else f"Hosts {host.name} and {group.size - 1} alike"
    what = kind_and_release(host)
    return f"{who} · {what}" if what else who


_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """Sort key that orders numbers by value: ``esx-2`` before ``esx-10`` (text order put ``-1, -10, -100`` first)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower()) for part in _DIGITS.split(name) if part)


def compact_names(names: Iterable[str]) -> str:
    """Every name, in natural order, with runs of consecutive numbers that share the rest of the name written once:
    ``"esx-[1–48], esx-50, lab-a"`` (every member listed, none left out as "and N more"; the host index names each
    host in full)."""
    runs: list[list[Any]] = []  # [prefix, first, last, suffix, width]
    for name in sorted(dict.fromkeys(names), key=natural_key):
        m = re.match(r"^(.*?)(\d+)(\D*)$", name)
        if m is None or m.group(2).startswith("0"):  # no number, or one with leading zeros: written as it is
            runs.append([name, None, None, "", 0])
            continue
        prefix, number, suffix = m.group(1), int(m.group(2)), m.group(3)
        last = runs[-1] if runs else None
        if (last is not None and last[1] is not None and last[0] == prefix and last[3] == suffix
                and last[2] + 1 == number):
            last[2] = number
        else:
            runs.append([prefix, number, number, suffix, len(m.group(2))])
    out = []
    for prefix, first, last, suffix, _w in runs:
        if first is None:
            out.append(prefix)
        elif first == last:
            out.append(f"{prefix}{first}{suffix}")
        else:
            out.append(f"{prefix}[{first}–{last}]{suffix}")
    return ", ".join(out)


@dataclass(frozen=True)
class IndexRow:
    """One host of the host index: its ``host`` name, the number of its ``group`` (1-based, as its page is titled),
    its verdict ``status`` and ``label``, and its system and ``release``."""

    host: str
    group: int
    status: str
    label: str
    release: str


def host_index(groups: list[HostGroup], verdicts: dict[str, Any]) -> list[IndexRow]:
    """Every host with its group and verdict, in natural order (:func:`natural_key`): a reader finds any host of a
    fleet here, then its group's page."""
    rows = []
    for n, g in enumerate(groups, start=1):
        for name in g.hosts:
            hv = verdicts.get(name)
            rows.append(IndexRow(name, n, hv.status if hv else "not_rated", hv.label if hv else "NOT RATED",
                                 release_label(g.host)))
    return sorted(rows, key=lambda r: natural_key(r.host))


@dataclass(frozen=True)
class GroupedProblem:
    """Inputs not understood, grouped like the hosts: the same file (by its name in the host's folder), command and
    message on ``hosts`` of one ``group`` (0: not of a read host), said once; ``source`` and ``message`` the first
    one's (its own folder and host name, as read)."""

    group: int
    hosts: tuple[str, ...]
    source: str
    command: str
    message: str


def grouped_problems(audit: Audit, groups: list[HostGroup]) -> list[GroupedProblem]:
    """The audit's inputs not understood, one row per (host group, file name, command, message with the host's own
    name and folder taken out), in the order met: 500 alike hosts with the same unreadable file are one row naming
    them (:func:`compact_names`), not 500. Linear in problems and hosts."""
    import os

    folder_host: dict[str, str] = {}
    for h in audit.hosts:
        for i in h.inputs:
            if "://" not in i:
                folder_host.setdefault(os.path.dirname(i.split(":", 1)[0] if ":" in os.path.basename(i) else i),
                                       h.name)
    number = {name: n for n, g in enumerate(groups, start=1) for name in g.hosts}
    out: dict[tuple, list[Any]] = {}
    for p in audit.inputs_not_understood:
        path = p.source.split(":", 1)[0] if ":" in os.path.basename(p.source) else p.source
        host = folder_host.get(os.path.dirname(path))
        if host is None:
            key: tuple = (0, p.source, p.command or "", p.message)
        else:
            folder = os.path.dirname(path)
            message = p.message.replace(folder, "…").replace(host, "HOST")
            key = (number.get(host, 0), os.path.basename(p.source), p.command or "", message)
        entry = out.setdefault(key, [p.source, [], p.message])
        if host is not None:
            entry[1].append(host)
    # the first one's own message, as its source: the folder and name taken out only to group
    return [GroupedProblem(k[0], tuple(dict.fromkeys(v[1])), v[0], k[2], v[2]) for k, v in out.items()]
