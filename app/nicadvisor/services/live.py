"""Live sources of an audit: vCenter/ESXi (vSphere API), ESXi and Linux over SSH, NSX Manager.

Each collector runs its own worker threads (one vSphere session per vCenter, a bounded pool of SSH
clients) and returns host groups plus problems; nothing here raises for a target that fails. NSX
transport nodes are joined with the hosts of the other sources by name (:func:`join_nsx`).
"""
from __future__ import annotations

import dataclasses
import ipaddress
import threading
from pathlib import Path
from typing import Callable

from nicadvisor.parsers.assemble import HostInputs, assemble_host
from nicadvisor.model import InputProblem
from nicadvisor.model.text import SecretScrubber

Progress = Callable[[float, str], None]


class HostSink:
    """Where hosts go as soon as they are complete (issue "Audit live estates" §5: "each audit is written to
    SQLite host by host as results arrive"): :meth:`add` assembles a host group
    (:func:`~nicadvisor.parsers.assemble.assemble_host`), appends the Host and its problems to ``audit`` and
    commits it with ``store.add_host`` at once, so a kill loses nothing already collected.

    Thread-safe: collectors call :meth:`add` from their worker threads; one lock serialises assembling,
    the audit's lists and the store (assembling is CPU-bound, the lock costs no parallelism).

    NSX joins (:meth:`rejoin`) add facts to hosts already assembled. :class:`~nicadvisor.store.AuditStore` has
    no way to replace a stored host, so with ``defer`` set (an audit with NSX targets and a store without
    ``replace_host(audit_id, name, host, problems)``) hosts are held in memory and committed by
    :meth:`flush` once NSX was joined (or the audit is cancelled / fails): such audits are written at the end.

    ``save_folder``: when set, :meth:`add` with ``save=True`` and :meth:`save_nsx` write the host's captures,
    including the recording of each parsed API response, as replayable capture files
    (:func:`nicadvisor.collect.ssh.save_captures`, ``# host:`` = the audited host name); an OSError becomes
    an InputProblem (source = the folder), the audit goes on.

    ``scrub`` (:class:`~nicadvisor.model.text.SecretScrubber`): the secrets sent to the live targets are scrubbed
    from each host, its problems and its saved captures before they are kept, stored or written: a server may echo
    them (an NSX 403 page echoing the login form).
    """

    def __init__(self, audit, store=None, *, defer: bool = False, save_folder: str | None = None,
                 problems: Callable[[list[InputProblem]], None] | None = None,
                 scrub: SecretScrubber | None = None) -> None:
        self.audit = audit
        self.scrub = scrub or SecretScrubber()
        self.store = store
        self.defer = defer and store is not None and not hasattr(store, "replace_host")
        self.save_folder = save_folder
        self._problems = problems or audit.inputs_not_understood.extend
        self._lock = threading.RLock()
        self._index: dict[int, int] = {}  # id(HostInputs) → index in audit.hosts
        self._host_problems: list[list[InputProblem]] = []
        self._pending: list[int] = []  # indexes not yet stored (defer)
        self._groups: list[HostInputs] = []

    @property
    def groups(self) -> list[HostInputs]:
        """The host groups added so far, in the order of ``audit.hosts``."""
        with self._lock:
            return list(self._groups)

    def add(self, group: HostInputs, save: bool = False) -> None:
        """Assemble ``group``, append it to the audit and store it (or hold it, ``defer``); with ``save``,
        also write its captures to ``save_folder``. Raises what ``store.add_host`` raises."""
        with self._lock:
            host, host_problems, _parsed = assemble_host(group)
            host, host_problems = self._scrubbed(host, host_problems)
            self._index[id(group)] = len(self.audit.hosts)
            self._groups.append(group)
            self.audit.hosts.append(host)
            self._host_problems.append(list(host_problems))
            if self.defer:  # its problems join the audit when it is stored: same order in memory and history
                self._pending.append(len(self.audit.hosts) - 1)
            else:
                self.audit.inputs_not_understood.extend(host_problems)
                if self.store is not None:
                    self.store.add_host(self.audit.history_id, host, host_problems)
            if save and self.save_folder:
                self._save([group], self.save_folder)

    def rejoin(self, group: HostInputs) -> None:
        """``group`` (already added) got NSX facts: assemble it again and replace its Host; only the new
        problems are added. Stored again with ``store.replace_host`` when the store has it, else held (defer)."""
        with self._lock:
            i = self._index[id(group)]
            host, host_problems, _parsed = assemble_host(group)
            host, host_problems = self._scrubbed(host, host_problems)
            remaining = list(self._host_problems[i])
            new = []
            for p in host_problems:
                if p in remaining:
                    remaining.remove(p)
                else:
                    new.append(p)
            self.audit.hosts[i] = host
            self._host_problems[i] = list(host_problems)
            if i in self._pending:
                return
            self.audit.inputs_not_understood.extend(new)
            if self.store is not None:
                replace = getattr(self.store, "replace_host", None)
                if replace is not None:
                    replace(self.audit.history_id, host.name, host, new)

    def flush(self) -> None:
        """Commit the hosts held by ``defer`` (in audit order). Called once NSX was joined, and on cancel."""
        with self._lock:
            pending, self._pending = self._pending, []
            for i in pending:
                self.audit.inputs_not_understood.extend(self._host_problems[i])
                if self.store is not None:
                    self.store.add_host(self.audit.history_id, self.audit.hosts[i], self._host_problems[i])

    def save_nsx(self, joined: list[tuple[HostInputs, HostInputs | None]], sub: str) -> None:
        """Write the NSX recordings of ``joined`` ((NSX host, host it joined or None)) under
        ``save_folder/sub``, each under the name of the host it joined, so a replay joins them the same way."""
        if not self.save_folder:
            return
        named = [HostInputs(name=(m or n).name, parsed=list(n.parsed)) for n, m in joined]
        with self._lock:
            self._save(named, str(Path(self.save_folder) / sub))

    def _scrubbed(self, host, problems: list[InputProblem]):
        """``host`` and ``problems`` without the session's secrets (the host rebuilt from its scrubbed document,
        only when a secret was in it)."""
        if not self.scrub:
            return host, problems
        from nicadvisor.document import host_from_dict, host_to_doc

        doc = host_to_doc(host)
        clean = self.scrub.data(doc)
        if clean != doc:
            host = host_from_dict(clean, f"host {host.name!r}")
        return host, [scrub_problem(p, self.scrub) for p in problems]

    def _scrubbed_capture(self, c, host: str):
        """Capture ``c`` as saved for ``host``: every line of the file it becomes (source, command, host, each note
        holding the command's stderr, and the output) without the session's secrets (issue 29 §3)."""
        scrub = self.scrub
        return dataclasses.replace(c, host=scrub(host), text=scrub(c.text), command=scrub(c.command),
                                   source=scrub(c.source), notes=tuple(map(scrub, c.notes)),
                                   origin=None if c.origin is None else scrub(c.origin))

    def _save(self, groups: list[HostInputs], folder: str) -> None:
        from nicadvisor.collect.ssh import save_captures

        copies = [HostInputs(name=g.name, captures=[self._scrubbed_capture(c, g.name)
                                                    for c in [*g.captures, *(c for c, _r in g.parsed)]])
                  for g in groups]
        try:
            save_captures(copies, folder)
        except OSError as exc:
            self._problems([InputProblem(folder, f"--save-captures: could not write the captures of "
                                                 f"{', '.join(g.name for g in groups)}: {exc}")])


def scrub_problem(p: InputProblem, scrub: SecretScrubber) -> InputProblem:
    """``p`` without the session's secrets (``scrub``)."""
    return InputProblem(scrub(p.source), scrub(p.message), scrub(p.command)) if scrub else p


def targets_scrubber(targets, basic=()) -> SecretScrubber:
    """The :class:`~nicadvisor.model.text.SecretScrubber` of the passwords sent to ``targets`` (collector targets:
    vCenter, SSH, NSX), those of ``basic`` (NSX) also as their HTTP Basic header."""
    return SecretScrubber([getattr(t, "password", None) or "" for t in targets],
                          [(t.user, t.password) for t in basic if getattr(t, "password", None)])


def session_scrubber(request) -> SecretScrubber:
    """The :func:`targets_scrubber` of the live targets of ``request`` (an AuditRequest)."""
    bmcs = tuple(getattr(request, "redfish", ()))  # Basic auth, as NSX's: its base64 form is scrubbed too
    return targets_scrubber([*request.vsphere, *request.ssh, *request.nsx, *bmcs], (*request.nsx, *bmcs))


def collect_live(request, progress: Progress, cancel: threading.Event | None, sink: HostSink,
                 problems: list[InputProblem]) -> None:
    """Read the live targets of ``request`` (an AuditRequest): each host goes to ``sink`` (:class:`HostSink`)
    as soon as it is complete (vSphere: from that vCenter's worker thread; SSH: as each host finishes),
    target-level problems to ``problems``. NSX Manager runs last; its transport nodes are joined with the
    hosts already in ``sink`` (:func:`join_nsx`, :meth:`HostSink.rejoin`), the others added as hosts.
    With ``request.save_captures`` every live host's outputs and API recordings are saved as capture files
    (the NSX ones under ``~nsx<N>/``). Raises :class:`nicadvisor.cancel.Cancelled` when cancelled."""
    def live_host(group: HostInputs) -> None:
        sink.add(group, save=bool(request.save_captures))

    if request.vsphere:
        from nicadvisor.collect.vsphere import collect_vsphere

        col = collect_vsphere(list(request.vsphere), progress, cancel, on_host=live_host)
        problems.extend(col.problems)
    if request.ssh:
        from nicadvisor.collect.ssh import collect_ssh

        col = collect_ssh(list(request.ssh), lambda msg: progress(0.05, msg), cancel,
                          known_hosts=request.known_hosts, ask=request.ask_host_key, on_host=live_host)
        problems.extend(col.problems)
    for n, target in enumerate(request.nsx, 1):
        from nicadvisor.collect.nsx import collect_nsx

        col = collect_nsx(target, lambda msg: progress(0.08, msg), cancel)
        problems.extend(col.problems)
        groups = sink.groups
        joined = join_nsx(groups, col.hosts, col.aliases)
        for nsx_host, match in joined:
            if match is None:
                sink.add(nsx_host)
            else:
                sink.rejoin(match)
        sink.save_nsx(joined, f"~nsx{n}")


def _same_host(a: str, b: str) -> bool:
    """Whether two names denote one host: equal ignoring case, or one is the other's short name
    (``esx01`` and ``esx01.site-a.example``). Two different FQDNs never match on their short names
    (``esx01.site-a`` is not ``esx01.site-b``); IP addresses match only in full."""
    a, b = a.lower().strip("[]"), b.lower().strip("[]")
    if a == b:
        return True
    for name in (a, b):
        try:
            ipaddress.ip_address(name)
            return False
        except ValueError:
            continue
    if "." in a and "." in b:
        return False
    return a.split(".")[0] == b.split(".")[0]


def join_nsx(groups: list[HostInputs], nsx_hosts: list[HostInputs],
             aliases: dict[str, list[str]]) -> list[tuple[HostInputs, HostInputs | None]]:
    """Append each NSX transport node's facts to the host of another source it names (any alias equal
    to that host's name or short name, case-insensitively), after that host's own outputs so values read
    from the device win; a transport node no other source knows stays a host of its own (appended to
    ``groups``). Returns (NSX host, the group it joined or None when appended) per NSX host, in order."""
    out: list[tuple[HostInputs, HostInputs | None]] = []
    for nsx_host in nsx_hosts:
        names = [nsx_host.name, *aliases.get(nsx_host.name, [])]
        match = next((g for g in groups if any(_same_host(g.name, n) for n in names)), None)
        out.append((nsx_host, match))
        if match is None:
            groups.append(nsx_host)
            continue
        match.parsed.extend(nsx_host.parsed)
        match.problems.extend(nsx_host.problems)
        match.kind = match.kind or nsx_host.kind
    return out
