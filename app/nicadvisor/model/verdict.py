"""The audit's verdict: READY, NOT READY or NOT RATED, with the reason, computed in one place.

Every view (the wizard's banner, the CLI summary and exit code, the JSON ``verdict``, the PDF cover, the HTML, the
CSV and the history list) shows what :func:`verdict_of` returns and nothing else, so they can never disagree. One
rule decides each host (:func:`host_verdict`), in this order:

* **NOT READY** when at least one finding about the host has severity ``error``. That includes
  ``overlay-no-fit-pnic``: before the overlay has a known place on a host (no TEP: before the NSX rollout), every pNIC
  that could carry it would fail a rule if it did (a *conditional* error) or has no link
  (:func:`nicadvisor.model.readiness.overlay_fit_findings`). NOT READY comes from an error finding, and only from
  one.
* **NOT RATED** when the host cannot be judged or a decisive check was not made: no physical pNIC read; a pNIC
  inventory that is not whole (:func:`inventory_gap`: filtered through ``grep``, missing an uplink a switch names,
  or without the link state of an overlay candidate); a file beside its captures that could not be read
  (:func:`unread_inputs_of`); or one of the decisive checks of :data:`nicadvisor.model.readiness.DECISIVE_CHECKS`
  not decided on its overlay pNICs (or candidates): "N decisive checks not made on HOST: run …", with the exact
  read-only commands (:attr:`HostVerdict.missing`, :attr:`HostVerdict.finish`).
* **READY** only when every decisive check was decided on its overlay pNICs and no finding about it is an error.

The audit is NOT RATED when it did not run to its end (interrupted, cancelled or failed: "interrupted after N of M
hosts"), when no physical pNIC could be read, or when an input or live target yielded no host; otherwise NOT READY
when any host is NOT READY (an error finding), NOT RATED when any host is NOT RATED, READY when every host is READY.
An incomplete audit is never more than NOT RATED (its errors are listed in the reason).

Exit codes (``nic-advisor audit``/``demo``/``history ID``): READY 0, NOT READY 1, NOT RATED 2.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, Protocol

from nicadvisor.model.capabilities import ATTESTED_ORIGIN, origin_of
from nicadvisor.model.changes import Change, changes_of, changes_sentence
from nicadvisor.model.entities import Host, Severity, findings_by_host
from nicadvisor.model.readiness import (DECISIVE_CHECKS, ColumnShare, MissingCheck, commands_for, decided_shares,
                                         finish_commands, overlay_fitness, readiness, unfit_overlay)


class AuditRead(Protocol):
    """What the verdict reads of an audit (:class:`nicadvisor.model.audit.Audit`, which imports this module, never
    the other way): its hosts, findings, inputs and the inputs not understood (:class:`InputProblem` rows), whether
    any physical pNIC was read (``rated``); ``completion`` and ``hosts_expected`` are read when present."""

    hosts: list[Host]
    findings: list[Any]
    inputs: list[str]
    inputs_not_understood: list[Any]

    @property
    def rated(self) -> bool: ...


READY, NOT_READY, NOT_RATED = "ready", "not_ready", "not_rated"
#: How each verdict is written in every view.
LABEL = {READY: "READY", NOT_READY: "NOT READY", NOT_RATED: "NOT RATED"}
#: The glyph shown beside the label (all in DejaVu Sans, the PDF font).
SYMBOL = {READY: "✔", NOT_READY: "✖", NOT_RATED: "?"}
#: ``nic-advisor`` exit code per verdict.
EXIT_CODE = {READY: 0, NOT_READY: 1, NOT_RATED: 2}
#: Audit completion states (``Audit.completion``); only ``complete`` can be READY or NOT READY.
COMPLETE, RUNNING, INTERRUPTED, CANCELLED, FAILED = "complete", "running", "interrupted", "cancelled", "failed"
COMPLETIONS = (COMPLETE, RUNNING, INTERRUPTED, CANCELLED, FAILED)
#: At most this many causes are named in a reason line (all are in ``Verdict.causes``).
REASON_NAMES = 3


@dataclass(frozen=True)
class HostVerdict:
    """One host's verdict: ``status`` (``ready``/``not_ready``/``not_rated``) and why, in one sentence.

    ``missing``: the decisive checks not made on it (:class:`nicadvisor.model.readiness.MissingCheck`, also on a
    NOT READY host: what else is unknown); ``finish``: "Finish this audit", the exact read-only commands still
    needed, each once (a line starting with ``#`` says what no read-only command reads); ``checks``: (decided,
    applicable) decisive checks; ``changes``: what its error findings ask to change, each setting once
    (:class:`nicadvisor.model.changes.Change`: configuration the rollout sets apart from what blocks it)."""

    host: str
    status: str
    reason: str
    missing: tuple[MissingCheck, ...] = ()
    finish: tuple[str, ...] = ()
    checks: tuple[int, int] = (0, 0)
    changes: tuple[Change, ...] = ()

    @property
    def label(self) -> str:
        """``"READY"``, ``"NOT READY"`` or ``"NOT RATED"``."""
        return LABEL[self.status]

    def to_dict(self) -> dict[str, Any]:
        """``{"host", "status", "label", "reason", "missing": [MissingCheck.to_dict()], "finish": [command],
        "checks_made", "checks_applicable", "changes": [Change.to_dict()]}`` as in the JSON report."""
        return {"host": self.host, "status": self.status, "label": self.label, "reason": self.reason,
                "missing": [m.to_dict() for m in self.missing], "finish": list(self.finish),
                "checks_made": self.checks[0], "checks_applicable": self.checks[1],
                "changes": [c.to_dict() for c in self.changes]}


@dataclass(frozen=True)
class Verdict:
    """The audit's verdict.

    Attributes:
        status: ``ready``, ``not_ready`` or ``not_rated``.
        reason: why, in one sentence (``"3 error findings on 2 hosts"``, ``"interrupted after 4 of 10 hosts"``).
        causes: what kept the audit from being rated, most important first (inputs that yielded nothing with
            their messages, hosts that could not be rated); empty when READY or NOT READY on a complete audit.
        hosts: one :class:`HostVerdict` per host, in audit order.
        changes: what the error findings ask to change, each setting once (a VDS once for all its member hosts):
            the configuration the rollout itself sets first, then what blocks it (:mod:`nicadvisor.model.changes`).
    """

    status: str
    reason: str
    causes: tuple[str, ...] = ()
    hosts: tuple[HostVerdict, ...] = ()
    changes: tuple[Change, ...] = ()

    @property
    def blockers(self) -> tuple[Change, ...]:
        """The changes that block the rollout (hardware, ESXi release, driver/firmware, physical network)."""
        return tuple(c for c in self.changes if not c.configuration)

    @property
    def configuration(self) -> tuple[Change, ...]:
        """The changes the rollout itself sets (VDS/vSwitch MTU, TEP MTU, uplink profile)."""
        return tuple(c for c in self.changes if c.configuration)

    @property
    def label(self) -> str:
        """``"READY"``, ``"NOT READY"`` or ``"NOT RATED"``."""
        return LABEL[self.status]

    @property
    def symbol(self) -> str:
        """``✔``, ``✖`` or ``?``."""
        return SYMBOL[self.status]

    @property
    def headline(self) -> str:
        """``"NOT RATED: no physical NIC could be read from the inputs"``: the line every view shows."""
        return f"{self.label}: {self.reason}"

    @property
    def exit_code(self) -> int:
        """0 READY, 1 NOT READY, 2 NOT RATED."""
        return EXIT_CODE[self.status]

    @property
    def ready(self) -> bool:
        """True only for READY (the JSON ``summary.ready``)."""
        return self.status == READY

    def to_dict(self) -> dict[str, Any]:
        """``{"status", "label", "reason", "causes", "hosts": [HostVerdict.to_dict()], "changes":
        [Change.to_dict()]}`` as in the JSON report."""
        return {"status": self.status, "label": self.label, "reason": self.reason, "causes": list(self.causes),
                "hosts": [h.to_dict() for h in self.hosts], "changes": [c.to_dict() for c in self.changes]}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _names(items: list[str]) -> str:
    shown = ", ".join(items[:REASON_NAMES])
    return shown + (f" and {len(items) - REASON_NAMES} more" if len(items) > REASON_NAMES else "")


def incomplete_verdict(completion: str, hosts_read: int, hosts_expected: int | None = None,
                       errors: int | None = None) -> Verdict:
    """The verdict of an audit that did not run to its end (``completion`` other than ``complete``):
    always NOT RATED, ``"interrupted after 4 of 10 hosts"`` (``"… after 4 hosts"`` when the total is not
    known), plus the error findings seen on what was read when ``errors`` is given. Used by :func:`verdict_of`
    and by the history list, which has the counts but not the audit."""
    word = {RUNNING: "still running", INTERRUPTED: "interrupted", CANCELLED: "cancelled", FAILED: "failed"}.get(
        completion, completion)
    if completion == RUNNING:
        reason = f"still running: {_plural(hosts_read, 'host')} read so far"
    else:
        total = f" of {hosts_expected}" if hosts_expected is not None and hosts_expected >= hosts_read else ""
        reason = f"{word} after {hosts_read}{total} host{'' if hosts_read == 1 and not total else 's'}"
    if errors:
        reason += f" ({_plural(errors, 'error finding')} on what was read)"
    return Verdict(NOT_RATED, reason, (f"the audit was {word} before every input was read",))


def host_verdict(host: Host, findings: list[Any]) -> HostVerdict:
    """The verdict of one host given the audit's ``findings`` (the rule of the module docstring): NOT READY with an
    error finding on it; NOT RATED with no physical pNIC, a pNIC listing that is not whole (:func:`inventory_gap`)
    or a decisive check not made (:func:`nicadvisor.model.readiness.readiness`); READY otherwise. Every verdict
    carries the missing checks and the "Finish this audit" commands."""
    mine = [f for f in findings if f.host == host.name]
    phys = [p for p in host.pnics if p.is_physical is not False]
    gap = inventory_gap(host) if phys else ""
    listing = (_listing(host),) if gap or not phys else ()
    ready = readiness(host, mine) if phys else None
    missing = ready.missing if ready is not None else ()
    extra = dict(missing=missing, finish=finish_commands(missing, listing),
                 checks=(ready.made, ready.applicable) if ready is not None else (0, 0))
    errors = [f for f in mine if f.severity is Severity.ERROR]
    if errors:  # each setting once, the configuration the rollout sets apart from what blocks it
        changes = tuple(changes_of([host], lambda _h: mine, unfit_overlay))
        return HostVerdict(host.name, NOT_READY, changes_sentence(list(changes), one_host=True), **extra,
                           changes=changes)
    if not phys:
        return HostVerdict(host.name, NOT_RATED, f"no physical NIC was read on this host (run {_listing(host)})",
                           **extra)
    if gap:
        return HostVerdict(host.name, NOT_RATED, gap, **extra)
    assert ready is not None
    unfit_all = unfit_overlay(host, mine)
    if unfit_all:  # an audit judged before the overlay-no-fit-pnic error existed: never READY
        return HostVerdict(host.name, NOT_RATED, f"{_unfit_reason(unfit_all)}, but no error finding says so: "
                                                 "evaluate the audit again", **extra)
    unfit, fit = overlay_fitness(host, mine)
    if missing:
        return HostVerdict(host.name, NOT_RATED, _missing_reason(host, missing), **extra)
    also = ""
    if unfit:
        also = (f"; no TEP is known yet: carry the overlay on {_names(fit)}, not on {_names(list(unfit))} "
                "(conditional errors)")
    on = _names(list(ready.pnics))
    attested = _attested_checks(host, ready.pnics)
    if attested:
        also += (f"; {_plural(len(attested), 'check')} rest on a person's attestation, not on a reading taken on "
                 f"the host: {', '.join(attested)}")
    return HostVerdict(host.name, READY, f"all {_plural(ready.applicable, 'decisive check')} made on {on} "
                                         f"({_pnic_count(phys)}), no error finding{also}", **extra)


def _attested_checks(host: Host, pnics: tuple[str, ...]) -> list[str]:
    """``["pcie on vmnic0 (attested by alice on 2026-11-30)"]``: the decisive checks of the judged pNICs (and the
    host's release) decided by an attestation (:mod:`nicadvisor.model.attestations`) rather than by an output of the
    host, so a READY that rests on them says so in its own sentence, not only on the board's page. Empty when every
    fact was read on the host."""
    from nicadvisor.model.attestations import CHECK_FACTS, HOST_CHECKS

    def attested(objs: list[Any], checks: Any) -> list[str]:
        out = []
        for obj in objs:
            for check, facts in CHECK_FACTS.items():
                if (check in HOST_CHECKS) != (obj is host) or check not in checks:
                    continue
                who = next((origin_of(obj.evidence.get(f)) for f in facts
                            if origin_of(obj.evidence.get(f)).startswith(ATTESTED_ORIGIN)), "")
                if who:
                    out.append(f"{check} on {getattr(obj, 'name', host.name)} ({who})")
        return out

    judged = [p for p in host.pnics if p.name in set(pnics)]
    return attested([host], HOST_CHECKS) + attested(judged, CHECK_FACTS)


#: How many of the commands that would decide a host's missing checks its verdict sentence names; the rest are in its
#: "Finish this audit" (:attr:`HostVerdict.finish`), every view's copyable block.
REASON_COMMANDS = 1


def _missing_reason(host: Host, missing: tuple[MissingCheck, ...]) -> str:
    """``"3 decisive checks not made on esxi-a: run esxcli network nic list and 2 more commands"``: the first
    :data:`REASON_COMMANDS` commands (all of them are the host's "Finish this audit"); the checks no read-only
    command decides are named."""
    checks = list(dict.fromkeys((m.check, m.pnic) for m in missing))
    commands = [c for c in finish_commands(missing) if not c.startswith("#")]
    unreadable = [m.missing for m in missing if m.commands and all(c.startswith("#") for c in m.commands)]
    more = len(commands) - REASON_COMMANDS
    run = f": run {'; '.join(commands[:REASON_COMMANDS])}" if commands else ""
    if more > 0:
        run += f" and {_plural(more, 'more command')}"
    if unreadable:
        run += f"{';' if commands else ':'} no read-only command decides {_names(unreadable)}"
    if unreadable:
        run += " (see Finish this audit)"
    return f"{_plural(len(checks), 'decisive check')} not made on {host.name}{run}"


#: Commands whose output lists a host's pNICs (their normalised start): filtered through a pipe, they list only some.
_INVENTORY_COMMANDS = ("esxcfg-nics -l", "esxcli network nic list", "localcli network nic list", "ip link", "ip l ",
                       "ip addr", "ip a ", "ip -")
_FILTERS = ("grep", "egrep", "fgrep", "head", "tail", "awk", "sed", "cut")
_ESXI_UPLINK = re.compile(r"^vmnic\d{1,4}$")


def _listing(host: Host) -> str:
    """The read-only command that lists ``host``'s pNICs with their link state and MTU (the catalogue's inventory
    command: :func:`nicadvisor.model.readiness.commands_for` ``listing``)."""
    return commands_for("listing", host)[0]


def _listings(command: str) -> list[bool]:
    """For each pNIC listing in ``command`` (a recorded command line, possibly several joined by ``;`` or ``&&``):
    True when it is piped through a filter (``esxcfg-nics -l | grep vmnic5``), False when it lists every pNIC."""
    out = []
    for part in re.split(r";|&&", command):
        head, bar, tail = part.partition("|")
        words = head.split()
        while words and ("/" in words[0] or words[0] in ("sudo", "env")):  # /bin/esxcli, sudo ip link
            words[0] = words[0].rpartition("/")[2]
            if words[0] in ("sudo", "env"):
                words.pop(0)
            else:
                break
        if not (" ".join(words) + " ").startswith(_INVENTORY_COMMANDS):
            continue
        filt = tail.split()[:1]
        out.append(bool(bar) and bool(filt) and filt[0].rpartition("/")[2] in _FILTERS)
    return out


def inventory_gap(host: Host) -> str:
    """Why ``host``'s pNIC inventory cannot be trusted to be whole, or ``""``; one sentence with the command to run.

    * the only pNIC listing read was filtered (``esxcfg-nics -l | grep vmnic5``): the pNICs it left out were never
      seen;
    * a virtual switch names an uplink (``vmnicN``) that no pNIC listing holds;
    * a pNIC that may carry the overlay has no link state read: no listing (``esxcfg-nics -l``, ``esxcli network nic
      list``, ``ip link``, the vSphere API) reported it, so nothing says it is up (a ``tso get`` alone names it).
    Pure."""
    how = _listing(host)
    commands = list(dict.fromkeys(e.command for p in host.pnics for e in p.evidence.values()))
    listings = {c: _listings(c) for c in commands}
    filtered = [c for c, kinds in listings.items() if any(kinds)]
    if filtered and not any(not k for kinds in listings.values() for k in kinds):
        pipe = "|" + filtered[0].split("|", 1)[1].split(";")[0].rstrip()
        return f"pNIC list filtered ({pipe.strip()}): run {how}"
    named = {p.name for p in host.pnics}
    absent = [u for s in host.switches for u in (s.uplinks or []) if _ESXI_UPLINK.match(u) and u not in named]
    if absent:
        return f"uplinks {_names(list(dict.fromkeys(absent)))} not listed: run {how}"
    blind = [p.name for p in host.overlay_candidates() if p.link_up is None]
    if blind:
        return f"the link state of {_names(blind)} was not read (no pNIC listing): run {how}"
    return ""


def _pnic_count(pnics: list[Any]) -> str:
    """``"4 pNICs"`` (a pNIC is a physical NIC: "1 physical pNIC" said it twice), or ``"6 pNICs, 6 of them virtual
    uplinks (a nested host or a VM: their offloads are virtual)"`` when some are vmxnet3-style uplinks
    (``is_virtual_uplink``): READY then says what it judged."""
    virtual = sum(1 for p in pnics if p.is_virtual_uplink)
    if not virtual:
        return _plural(len(pnics), "pNIC")
    return (f"{_plural(len(pnics), 'pNIC')}, {virtual} of them virtual uplinks (a nested host or a VM: their "
            "offloads are virtual)")


def _unfit_reason(unfit: dict[str, list[str]]) -> str:
    """``"no pNIC fit for the overlay: pNIC MTU below 1600; link down"``: what makes every candidate unfit."""
    titles = dict.fromkeys(t.split(" — ")[0].removesuffix(" (if it carries overlay)") for ts in unfit.values()
                           for t in ts)
    return f"no pNIC fit for the overlay: {'; '.join(titles)}"


def _norm(text: str) -> str:
    if "://" not in text:
        return os.path.normpath(text)
    scheme, _, rest = text.rstrip("/").partition("://")
    netloc, slash, path = rest.partition("/")
    if netloc.endswith(":443"):  # an NSX Manager is named with and without its default port
        netloc = netloc[:-4]
    return f"{scheme}://{netloc}{slash}{path}"


_SEPARATOR = re.compile(r"[/:]")


class _ReadSources:
    """The normalised sources the hosts were read from (``Host.inputs``), indexed so that asking whether one of
    them is a path or lies under it (``path/…``, a bundle's ``path:member``) costs a set lookup, not a scan of them
    all: a bundle of 8,000 members, each a source and a problem, took 40 s."""

    def __init__(self, sources: Iterable[str]) -> None:
        self.all = [_norm(s) for s in sources]
        self.exact = set(self.all)
        self.before_slash: set[str] = set()  # every r[:i] where r[i] is "/"
        self.before_colon: set[str] = set()  # every r[:i] where r[i] is ":"
        for r in self.exact:
            for m in _SEPARATOR.finditer(r):
                (self.before_slash if m.group() == "/" else self.before_colon).add(r[:m.start()])

    def under(self, folder: str, *, strip: bool = True) -> bool:
        """Whether a source read is ``folder`` or lies under it (:func:`_under` of any of them); ``strip``: a
        trailing ``/`` of ``folder`` is ignored (``/`` holds every absolute path)."""
        return (folder in self.exact or (folder.rstrip("/") if strip else folder) in self.before_slash
                or folder in self.before_colon)


def inputs_without_host(audit: AuditRead) -> list[str]:
    """Inputs of ``audit.inputs`` from which no host was read: a capture path that no host's ``Host.inputs`` lies
    under, a live target (``vcenter://``, ``ssh://``) no host came from, an NSX Manager whose transport nodes
    joined no audited host (the facts asked of it are missing)."""
    return inputs_not_read(audit.inputs, (s for h in audit.hosts for s in h.inputs))


def inputs_not_read(inputs: Iterable[str], host_inputs: Iterable[str]) -> list[str]:
    """The ``inputs`` (given paths, live targets) that none of ``host_inputs`` (the sources the hosts were read from,
    ``Host.inputs``) is or lies under, in the order given: what :func:`inputs_without_host` finds, for callers that
    hold no :class:`Audit` (the history list). Pure; linear in the sources."""
    read = _ReadSources(host_inputs)
    return [given for given in inputs if not read.under(_norm(given), strip=False)]


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/") or path.startswith(folder + ":")


def unread_parts(audit: AuditRead) -> list[str]:
    """Sources of input problems inside a given input that belong to no host that was read: a host folder that was
    empty, unreadable or held only files that are no captures, a bundle that could not be opened, a link to
    nothing. A problem belongs to a read host when a host's input lies under its source (a folder of that host), or
    when it is a file beside the loose capture files a host was read from, or a member of a bundle a host was read
    from. Live targets are judged by :func:`inputs_without_host`. Pure; in the order the problems were met; linear
    in problems and sources."""
    sources = _ReadSources(s for h in audit.hosts for s in h.inputs)
    read = sources.all
    loose = {os.path.dirname(s) for s in read if "://" not in s and ":" not in s.rpartition("/")[2]}
    bundles = {s.split(":", 1)[0] for s in read if "://" not in s and ":" in s.rpartition("/")[2]}
    out: dict[str, None] = {}
    for p in audit.inputs_not_understood:
        src = _norm(p.source)
        if "://" in src or src in out or src == "local":
            continue
        member_of = src.split(":", 1)[0] if ":" in src.rpartition("/")[2] else None
        if member_of is not None and member_of in bundles:
            continue
        if sources.under(src) or os.path.dirname(src) in loose:
            continue
        out[src] = None
    return list(out)


def _problem_of(audit: AuditRead, given: str) -> str:
    base = _norm(given)
    for p in audit.inputs_not_understood:
        if p.source == base or p.source.startswith(base + "/") or p.source.startswith(base + ":"):
            return p.message
    return "nothing could be read from it"


#: Input problems that mean a file given for a host held something that was not read (as opposed to a stray file
#: that is no capture, a FIFO or a link, which hold no command output): its facts may be the ones that decide.
_UNREAD_MARKS = ("bytes is too large for a command capture", "unreadable (", "more than ", "truncated or corrupt")


def unread_inputs_of(audit: AuditRead, host: Host) -> list[str]:
    """Inputs beside ``host``'s captures (in a folder it was read from, or in the bundle it came from) that could not
    be read although they may hold its command outputs: too large, unreadable, a bundle cut short. Pure."""
    folders = {os.path.dirname(_norm(s)) for s in host.inputs if "://" not in s}
    bundles = {_norm(s).split(":", 1)[0] for s in host.inputs if "://" not in s and ":" in s.rpartition("/")[2]}
    out = []
    for p in audit.inputs_not_understood:
        src = _norm(p.source)
        near = os.path.dirname(src) in folders or src.split(":", 1)[0] in bundles or src in bundles
        if near and any(m in p.message for m in _UNREAD_MARKS) and src not in out:
            out.append(src)
    return out


def unread_inputs(audit: AuditRead) -> tuple[list[str], list[str]]:
    """What of ``audit``'s inputs could not be read, as the verdict counts it: ``(inputs no host was read from
    (:func:`inputs_without_host`), parts inside other inputs (:func:`unread_parts`) not already under one of
    those)``. Pure."""
    top = inputs_without_host(audit)
    parts = [part for part in unread_parts(audit)
             if part not in top and not any(_under(part, _norm(given)) for given in top)]
    return top, parts


def verdict_of(audit: AuditRead) -> Verdict:
    """The verdict of ``audit`` (see the module docstring for the rules). Pure; never raises."""
    findings = list(audit.findings)
    of_host = findings_by_host(findings)  # each host's verdict reads its own findings: linear in hosts
    hosts = tuple(host_verdict(h, of_host.get(h.name, [])) for h in audit.hosts)
    # a READY host beside a file of its own that could not be read (too large, unreadable) is not rated: that file
    # may hold the outputs that decide it
    by_name = {h.name: h for h in audit.hosts}
    hosts = tuple(dataclasses.replace(hv, status=NOT_RATED, reason=f"{_names([os.path.basename(u) for u in unread])} "
                                                                   "could not be read: see the inputs not understood")
                  if hv.status == READY and (unread := unread_inputs_of(audit, by_name[hv.host])) else hv
                  for hv in hosts)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    completion = getattr(audit, "completion", COMPLETE)
    if completion != COMPLETE:
        v = incomplete_verdict(completion, len(audit.hosts), getattr(audit, "hosts_expected", None), len(errors))
        return Verdict(v.status, v.reason, v.causes, hosts)
    top, parts = unread_inputs(audit)
    failed = top + parts
    causes = [f"{given}: {_problem_of(audit, given)}" for given in failed]
    if not audit.rated:
        if not causes:
            causes = [f"{p.source}: {p.message}" for p in audit.inputs_not_understood]
        return Verdict(NOT_RATED, "no physical NIC could be read from the inputs", tuple(causes), hosts)
    unrated = [h for h in hosts if h.status == NOT_RATED]
    causes += [f"{h.host}: {h.reason}" for h in unrated]
    if errors:
        by_name = {h.name: h for h in audit.hosts}
        changes = tuple(changes_of([by_name[h.host] for h in hosts if h.status == NOT_READY and h.host in by_name],
                                   lambda h: of_host.get(h.name, []), unfit_overlay))
        reason = changes_sentence(list(changes)) or f"{_plural(len(errors), 'error finding')}"
        if failed:
            reason += f"; {_plural(len(failed), 'input')} could not be read"
        if unrated:
            reason += f"; {_plural(len(unrated), 'host')} could not be rated"
        return Verdict(NOT_READY, reason, tuple(causes), hosts, changes)
    if failed:
        what = [f"{len(top)} of {len(audit.inputs)} inputs"] if top else []
        what += [_plural(len(parts), "part") + " of the inputs"] if parts else []
        return Verdict(NOT_RATED, f"{' and '.join(what)} could not be read: {_names(failed)}", tuple(causes), hosts)
    if unrated:
        return Verdict(NOT_RATED, f"{len(unrated)} of {_plural(len(hosts), 'host')} could not be rated: "
                                  f"{_names([h.host for h in unrated])}", tuple(causes), hosts)
    pnics = [p for h in audit.hosts for p in h.pnics if p.is_physical is not False]
    made = sum(h.checks[0] for h in hosts)
    attested = sum(len(_attested_checks(h, tuple(p.name for p in h.overlay_candidates()))) for h in audit.hosts)
    also = (f"; {_plural(attested, 'check')} rest on a person's attestation, not on a reading taken on the host"
            if attested else "")
    return Verdict(READY, f"all {_plural(made, 'decisive check')} made on {_plural(len(hosts), 'host')} and "
                          f"{_pnic_count(pnics)}, no error finding{also}", (), hosts)


@dataclass(frozen=True)
class Coverage:
    """What the audit could decide (the audit summary's line): ``columns`` the share of decided capability cells per
    matrix column (:func:`nicadvisor.model.readiness.decided_shares`), ``hosts_rated`` how many hosts could be rated
    (READY or NOT READY) of ``hosts``."""

    columns: tuple[ColumnShare, ...]
    hosts_rated: int
    hosts: int

    @property
    def text(self) -> str:
        """``"Decided cells: Link 20/24, MTU 18/24, …; hosts rated: 6 of 10"``."""
        cols = ", ".join(f"{c.title} {c.decided}/{c.cells}" for c in self.columns)
        return f"Decided cells: {cols}; hosts rated: {self.hosts_rated} of {self.hosts}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``readiness`` object: ``{"decisive_checks": [DecisiveCheck.to_dict()], "columns":
        [ColumnShare.to_dict()], "hosts_rated", "hosts"}``."""
        return {"decisive_checks": [c.to_dict() for c in DECISIVE_CHECKS],
                "columns": [c.to_dict() for c in self.columns], "hosts_rated": self.hosts_rated, "hosts": self.hosts}


def coverage_of(audit: AuditRead, verdict: Verdict | None = None) -> Coverage:
    """The :class:`Coverage` of ``audit`` (``verdict``: its :func:`verdict_of`, computed when not given). Pure."""
    verdict = verdict or verdict_of(audit)
    rated = sum(1 for h in verdict.hosts if h.status != NOT_RATED)
    return Coverage(tuple(decided_shares(audit.hosts, list(audit.findings))), rated, len(verdict.hosts))
