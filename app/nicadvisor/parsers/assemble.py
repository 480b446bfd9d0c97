"""Turning parsed outputs into model objects: one :class:`~nicadvisor.model.Host` per group of captures.

Merge policy: captures are applied in a stable order (as given); for each field the first source that
knows it wins and keeps its evidence (``set_fact``). pNICs first known only by PCI address
(``pci:0000:5e:00.0``) are joined to the named pNIC with that address once one is known; an address that
never gets a name becomes a pNIC of its own, named ``pci:<address>`` with ``pci_address`` set (the parsers
record only NIC lines by address: driver messages of NIC drivers, lspci of network controllers), so facts such
as an icen ITR setting or a PCIe link width are never dropped.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any
from dataclasses import dataclass, field

from nicadvisor.commands import CATALOGUE, kind_of_command, placeholders
from nicadvisor.parsers.capture_file import Capture, capture_time, not_run_of
from nicadvisor.model.conflicts import Conflict, ConflictValue, newer
from nicadvisor.model import CommandNotRun, Evidence, Host, InputProblem, KernelModule, PhysicalNic, Switch, VmkernelNic
from nicadvisor.model.text import mixed_scripts
from nicadvisor.parsers.base import Fact, ParseResult, natural_key
from nicadvisor.parsers.linux.kernel_log import KERNEL_LOG_COMMANDS
from nicadvisor.parsers.registry import normalise, parse_output



@dataclass
class HostInputs:
    """What describes one host: text captures (parsed here), results already parsed by a live
    collector (vSphere API, NSX Manager: ``parsed`` pairs the recorded response with its facts),
    problems found while collecting them, and ``not_run``: catalogue commands a collector could not run and that
    left no capture (the vSphere API path: what the API cannot run)."""

    name: str
    captures: list[Capture] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)
    parsed: list[tuple[Capture, ParseResult]] = field(default_factory=list)
    kind: str | None = None
    not_run: list[CommandNotRun] = field(default_factory=list)


#: Commands the collectors run that no parser reads (the catalogue's family None: the discovery ``ls /sys/class/net``,
#: whose names were used): the collector script records them, and they are never a problem.
_READ_BY_NO_PARSER = frozenset(c.text for c in CATALOGUE if c.family is None and c.run and not placeholders(c.text))


def _guess_kind(captures: list[Capture]) -> str | None:
    """The host kind the captures' commands tell (:func:`nicadvisor.commands.kind_of_command`; a kernel-log read is
    Linux): ESXi when one command tells ESXi, else Linux when one tells Linux, else None."""
    cmds = [normalise(c.command) for c in captures]  # without sudo/env prefixes, prompts and paths
    kinds = {kind_of_command(cmd) for cmd in cmds}
    if "esxi" in kinds:
        return "esxi"
    if "linux" in kinds or any(re.match(KERNEL_LOG_COMMANDS, cmd) for cmd in cmds):
        return "linux"
    return None


def assemble_host(inputs: HostInputs) -> tuple[Host, list[InputProblem], list[tuple[Capture, ParseResult]]]:
    """Parse every capture of ``inputs`` and build the Host.

    Returns (host, problems, parsed) where ``problems`` holds the inputs' own problems plus one
    entry per capture no parser understood, each message of an input once (two outputs of one capture that say the
    same give one note), and ``parsed`` pairs each capture with its results.
    A capture of a command that failed (:func:`~nicadvisor.parsers.capture_file.not_run_of`) goes to
    ``host.not_run`` (after ``inputs.not_run``) and is not parsed unless it printed an output (``partial``).
    Never raises on bad capture text; raises :class:`UnknownFactError` when a parser recorded a fact the model does
    not have (a bug of that parser).
    """
    host = Host(name=inputs.name, kind=inputs.kind or _guess_kind(inputs.captures))
    host.not_run.extend(inputs.not_run)
    problems = list(inputs.problems)
    scripts = mixed_scripts(inputs.name)
    if scripts:  # a homoglyph of another host's name (issue 29 §9): said in every view, with its code points
        where = inputs.captures[0].source if inputs.captures else inputs.name  # an input the host was read from
        problems.append(InputProblem(where, f"the host name {ascii(inputs.name)} mixes the scripts "
                                     f"{', '.join(s.title() for s in scripts)}: it may imitate another host's name"))
    parsed: list[tuple[Capture, ParseResult]] = []
    by_pci: dict[str, dict[str, tuple[Fact, Evidence]]] = {}
    names: dict[int, dict[str, Any]] = {}  # each of the host's lists indexed by name (see _get)
    when: dict[str, tuple[str, str] | None] = {}  # each source's capture date (issue 24 §3)
    for cap in inputs.captures:
        host.inputs.append(cap.source)
        when.setdefault(cap.source, cap.captured or capture_time(cap.source))
        failed = not_run_of(cap)
        if failed is not None:
            host.not_run.append(failed)
            if not failed.partial:
                continue
        results = parse_output(cap.command, cap.text, cap.notes)
        if not results and normalise(cap.command) in _READ_BY_NO_PARSER:
            continue  # a collector's discovery (ls /sys/class/net): its names were used, it holds no fact
        if not results:
            problems.append(InputProblem(cap.source, f"not understood: no parser for the command {cap.command!r}", cap.command))
            continue
        if not any(r.understood for r in results):
            why = "; ".join(n for r in results for n in r.notes) or "no recognisable output"
            problems.append(InputProblem(cap.source, f"not understood: {why}", cap.command))
            continue
        for r in results:
            parsed.append((cap, r))
            for note in r.notes:
                problems.append(InputProblem(cap.source, f"partly understood: {note}", cap.command))
            _apply(host, r, cap, by_pci, problems, names, when)
    for cap, r in inputs.parsed:
        host.inputs.append(cap.source)
        parsed.append((cap, r))
        for note in r.notes:
            problems.append(InputProblem(cap.source, f"note: {note}", cap.command))
        when.setdefault(cap.source, cap.captured or capture_time(cap.source))
        _apply(host, r, cap, by_pci, problems, names, when)
    _join_pci_facts(host, by_pci, names)
    _local_mtu_conflicts(host, parsed, when)
    host.pnics.sort(key=lambda p: natural_key(p.name))
    host.vmknics.sort(key=lambda v: natural_key(v.name))
    seen: set[tuple[str, str]] = set()  # one note once: two commands or two outputs of one input saying the same
    problems = [p for p in problems if (p.source, p.message) not in seen and not seen.add((p.source, p.message))]
    return host, problems, parsed


def _shown(value: Any) -> str:
    """A fact's value as a conflict shows it (``9000``, ``True``, ``'full'`` without quotes)."""
    return str(value)


#: The IPv4 + ICMP (IPv6 + ICMPv6) header bytes a ping frame adds to its payload (parsers/esxi/ping.py).
_PING_HEADERS = {False: 28, True: 48}


def _local_mtu_conflicts(host: Host, parsed: list[tuple[Capture, ParseResult]],
                         when: dict[str, tuple[str, str] | None]) -> None:
    """A don't-fragment ``vmkping`` that failed locally (``sendto() failed (Message too long)``: the sending vmknic's
    MTU was below the frame) beside an output that reads that vmknic's MTU at or above the frame, and its switch's
    MTU not below it (a switch below the frame explains the error): the two were captured at different times (an
    MTU change between them). Recorded as a :class:`Conflict` on the vmknic's
    ``mtu`` (``9000`` vs ``below 1528``). The sender is the ping's ``-I`` vmknic, else the only vmknic of the ping's
    netstack (default ``defaultTcpipStack``) among those read; none is assumed otherwise. When the ping is the newer
    capture its bound is the one used: the vmknic's MTU is set unknown (no number is invented)."""
    for cap, r in parsed:
        for rec in r.records:
            if rec.get("kind") != "vmkping" or not rec.get("df") or not isinstance(rec.get("size"), int):
                continue
            if "too long" not in str(rec.get("error") or "").lower():
                continue
            frame = rec["size"] + _PING_HEADERS["-6" in cap.command.split()]
            sender = rec.get("interface")
            how = "its -I interface"
            if not sender:
                stack = rec.get("netstack") or "defaultTcpipStack"
                on = [v for v in host.vmknics if (v.netstack or "defaultTcpipStack") == stack]
                if len(on) != 1:
                    continue
                sender, how = on[0].name, f"the only vmknic of the {stack} netstack read"
            vmk = next((v for v in host.vmknics if v.name == sender), None)
            if vmk is None or vmk.mtu is None or vmk.mtu < frame:
                continue
            switch = next((sw for sw in host.switches if sw.name == vmk.switch), None) if vmk.switch else None
            if switch is not None and switch.mtu is not None and switch.mtu < frame:
                continue  # its switch refused the frame: the two outputs agree
            ev = vmk.evidence.get("mtu")
            read = ConflictValue(_shown(vmk.mtu), ev.source if ev else "", ev.command if ev else "",
                                 ev.line if ev else "", *(when.get(ev.source if ev else "") or (None, None)))
            line = next((ln.strip() for ln in cap.text.splitlines() if "too long" in ln.lower()), "")
            ping = ConflictValue(f"below {frame} (a {frame}-byte frame got 'Message too long' from {sender}, {how})",
                                 cap.source, cap.command, line,
                                 *(when.get(cap.source) or (None, None)))
            c = Conflict(obj=sender, fact="mtu", values=(read, ping), kept=newer(read.captured, ping.captured))
            host.conflicts.append(c)
            if c.kept == 1:
                vmk.mtu = None
                vmk.evidence.pop("mtu", None)


def _get(items: list, cls, name: str, names: dict[int, dict[str, Any]]):
    """The object called ``name`` in ``items``, added (a ``cls``) when there is none. ``names`` holds an index by name
    of each list, built on its first lookup and kept as objects are added here (the only place these lists grow
    while a host is assembled): a lookup costs O(1), not a scan of the list (8,000 pNIC rows took 3 s)."""
    index = names.get(id(items))
    if index is None:
        index = names[id(items)] = {}
        for o in items:
            index.setdefault(o.name, o)
    obj = index.get(name)
    if obj is None:
        obj = cls(name=name)
        items.append(obj)
        index[name] = obj
    return obj


def _apply(host: Host, r: ParseResult, cap: Capture, by_pci: dict, problems: list[InputProblem],
           names: dict[int, dict[str, Any]], when: dict[str, tuple[str, str] | None]) -> None:
    def ev(f: Fact) -> Evidence:
        return Evidence(command=cap.command, line=f.line, source=cap.source)

    def conflict(obj, name: str, new, f: Fact) -> None:
        old = obj.evidence.get(name)
        problems.append(InputProblem(
            cap.source, f"conflict: {getattr(obj, 'name', '')} {name} is {getattr(obj, name)!r} in "
                        f"{old.source if old else 'an earlier output'} but {new!r} here ({f.line.strip()[:120]}); "
                        "the first value is kept", cap.command))

    def dated(obj, name: str, new, f: Fact) -> bool:
        """Two captures state ``name`` of ``obj`` differently: a Conflict on the host; True when this (newer)
        capture's value replaces the known one."""
        old = obj.evidence.get(name)
        was = when.get(old.source) if old is not None else None
        now = when.get(cap.source)
        first = ConflictValue(_shown(getattr(obj, name)), old.source if old else "", old.command if old else "",
                              old.line if old else "", *(was or (None, None)))
        second = ConflictValue(_shown(new), cap.source, cap.command, f.line, *(now or (None, None)))
        c = Conflict(obj=getattr(obj, "name", "") or host.name, fact=name, values=(first, second),
                     kept=newer(first.captured, second.captured))
        host.conflicts.append(c)  # shown per host in every view (not an input problem: both inputs were understood)
        return c.kept == 1

    def restated(obj, name: str) -> bool:
        """This capture states the known value of ``name`` again and is strictly newer than the capture it was read
        from: the value's evidence moves to it, so that a later conflict compares with the newest capture stating the
        value (of 100 captures, not with the oldest, which made an older contrary capture "the newer")."""
        old = obj.evidence.get(name)
        return old is not None and newer((when.get(old.source) or (None,))[0],
                                         (when.get(cap.source) or (None,))[0]) == 1

    for key, facts in r.pnics.items():
        if key.startswith("pci:"):
            slot = by_pci.setdefault(key[4:], {})
            for name, f in facts.items():
                slot.setdefault(name, (f, ev(f)))
            continue
        pnic = _get(host.pnics, PhysicalNic, key, names)
        addr = facts.get("pci_address")
        if addr is not None and pnic.pci_address is not None and addr.value != pnic.pci_address:
            # the output describes another PCI function under this name (different capture moments or
            # hosts): its facts belong to that address, not to this pNIC
            conflict(pnic, "pci_address", addr.value, addr)
            slot = by_pci.setdefault(addr.value, {})
            for name, f in facts.items():
                if name != "pci_address":
                    slot.setdefault(name, (f, ev(f)))
            continue
        for name, f in facts.items():
            _set(pnic, name, f.value, ev(f), lambda n, v, f=f: dated(pnic, n, v, f), lambda n: restated(pnic, n))
    for table, items, cls in ((r.vmknics, host.vmknics, VmkernelNic), (r.switches, host.switches, Switch),
                              (r.modules, host.modules, KernelModule)):
        for key, facts in table.items():
            obj = _get(items, cls, key, names)
            for name, f in facts.items():
                _set(obj, name, f.value, ev(f), lambda n, v, f=f, obj=obj: dated(obj, n, v, f),
                     lambda n, obj=obj: restated(obj, n))
    for name, f in r.host.items():
        if name != "name":
            _set(host, name, f.value, ev(f), lambda n, v, f=f: dated(host, n, v, f), lambda n: restated(host, n))


class UnknownFactError(ValueError):
    """A parser recorded a fact the model does not have: a programming error (a misspelt name, or a fact added to a
    parser but not to :mod:`nicadvisor.model.entities`), never bad input. The message names the object type, the
    fact and the command whose output it was read from."""


def _set(obj, name: str, value, evidence: Evidence, on_conflict=None, on_restated=None) -> None:
    """set_fact; ``on_conflict(name, value)`` is called when a known fact gets a different value from a later output,
    and the new value replaces the known one when it returns True (the later output was captured later); when an
    output states the known value again, ``on_restated(name)`` True moves the fact's evidence to it (it is newer).
    Raises :class:`UnknownFactError` for a field name the model does not have: fact names are declared once, as the
    model's dataclass fields, and a parser that sets another name is a bug to fix, not a value to drop."""
    if name not in _FIELDS.setdefault(type(obj), {f.name for f in dataclasses.fields(obj)}):
        raise UnknownFactError(f"{type(obj).__name__} has no fact {name!r} (read from {evidence.command!r}): "
                               "add it to nicadvisor.model.entities or fix the parser")
    if name == "duplex" and isinstance(value, str):
        value = value.lower()  # "Full" (esxcli) and "full" (sysfs) are one value
    known = getattr(obj, name)
    if known is not None and value is not None and known != value and on_conflict is not None:
        if on_conflict(name, value):  # a newer capture's value (issue 24 §3): it replaces the older one
            setattr(obj, name, None)
    elif known is not None and known == value and on_restated is not None and on_restated(name):
        obj.evidence[name] = evidence
        return
    obj.set_fact(name, value, evidence)


_FIELDS: dict[type, set[str]] = {}


def _join_pci_facts(host: Host, by_pci: dict[str, dict[str, tuple[Fact, Evidence]]],
                    names: dict[int, dict[str, Any]]) -> None:
    at: dict[str, list[PhysicalNic]] = {}
    for p in host.pnics:
        if p.pci_address:
            at.setdefault(p.pci_address, []).append(p)
    for addr, facts in by_pci.items():
        pnics = at.get(addr, [])
        if not pnics and "name" in facts:
            pnics = [_get(host.pnics, PhysicalNic, str(facts["name"][0].value), names)]
        if not pnics:  # known only by its address: a pNIC of its own, as docs/json-output.md describes
            pnic = _get(host.pnics, PhysicalNic, f"pci:{addr}", names)
            first = next(iter(facts.values()))
            _set(pnic, "pci_address", addr, first[1])
            pnics = [pnic]
        for pnic in pnics:
            for name, (f, e) in facts.items():
                if name != "name":
                    _set(pnic, name, f.value, e)
