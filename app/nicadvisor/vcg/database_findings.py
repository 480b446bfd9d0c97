"""Compatibility-database entries of each pNIC as findings (category ``driver``).

For every physical pNIC with known VID/DID, the entries :meth:`VcgDatabase.match` returns become one
``info`` finding listing them (``vcg-entries``, with trust level and source), and a ``warning`` when the host's
driver is below the minimum version a listing states. Sources are the citations of ``resources/vcg/nic_facts.csv``.

A listing *confirms* the driver (``vcg-driver-meets-minimum``, info: the capability matrix passes its Driver / VCG
cell on it) only when all of this is known and holds:

* the host's ESXi release **with its update level** (:func:`nicadvisor.vcg.builds.host_release`; a 6.x build that
  is not in the build table leaves it unknown) and the listing states releases that cover it;
* the host's driver version, at or above the minimum version the listing states for the same driver.

Otherwise, for a device the database lists, ``vcg-driver-unconfirmed`` (info) says what is missing and the
read-only command that tells it (``esxcli network nic get -n vmnic2`` for the driver version, ``vmware -vl`` for
the release), or why the listing cannot confirm it. A listing naming the device is no statement that the host's
driver on the host's release is compatible.
"""
from __future__ import annotations

from nicadvisor.change_commands import driver_update_steps
from nicadvisor.model import Finding, Host, PhysicalNic, Severity
from nicadvisor.vcg.builds import release_unknown_reason
from nicadvisor.vcg.context import HostCompat, contexts_for
from nicadvisor.vcg.lookup import TRUST_LABELS, VcgDatabase, VcgEntry, vcg_notes
from nicadvisor.vcg.normalize import parse_host_version, parse_release, release_matches

_HOST_EVIDENCE = ("product_version", "build")


def _evidence(pnic, host: Host | None = None):
    own = tuple(pnic.evidence[k] for k in ("vid", "did", "svid", "ssid", "driver", "driver_version")
                if k in pnic.evidence)
    if host is None:
        return own
    return own + tuple(host.evidence[k] for k in _HOST_EVIDENCE if k in host.evidence)


def _covers(entry: VcgEntry, release: str) -> bool:
    """True when one of the releases ``entry`` states covers the host's guide ``release``."""
    host = parse_host_version(release)
    if host is None:
        return False
    for label in entry.data.get("releases") or ():
        stated = parse_release(label)
        if stated is not None and release_matches(stated, host):
            return True
    return False


def confirming_entries(host: Host, p: PhysicalNic, entries: list[VcgEntry], release: str | None) -> list[VcgEntry]:
    """The driver listings of ``entries`` that confirm ``p``'s driver on ``host`` (see the module docstring)."""
    if release is None or host.kind != "esxi" or not p.driver_version:
        return []
    return [e for e in entries if e.kind == "driver" and e.data.get("match") != "potential"
            and e.data.get("meets_minimum") is True and _covers(e, release)]


def _learn_driver(host: Host, p: PhysicalNic) -> str:
    return f"ethtool -i {p.name}" if host.kind == "linux" else f"esxcli network nic get -n {p.name}"


def unconfirmed_reasons(host: Host, p: PhysicalNic, entries: list[VcgEntry], release: str | None) -> list[str]:
    """Why no listing of ``entries`` confirms ``p``'s driver: what was not read (with the command that reads it),
    or what the listings lack. Empty when one confirms it."""
    if confirming_entries(host, p, entries, release):
        return []
    if host.kind == "linux":
        return [f"its listings are for ESXi releases and drivers; {host.name} is a Linux host, so none can confirm "
                f"the {p.driver or 'driver'} driver of {p.name}"]
    why: list[str] = []
    if release is None:
        why.append(release_unknown_reason(host))
    if not p.driver:
        why.append(f"the driver of {p.name} was not read (run {_learn_driver(host, p)})")
    elif not p.driver_version:
        why.append(f"the {p.driver} driver version of {p.name} was not read (run {_learn_driver(host, p)})")
    if why:
        return why
    drivers = [e for e in entries if e.kind == "driver" and e.data.get("match") != "potential"]
    hidden = [e.summary for e in entries if e.kind == "note" and e.data.get("reason") in ("other_release",
                                                                                          "other_driver")]
    if not drivers:
        return [f"no listing names {p.driver} for {release}" + (f" ({' '.join(hidden)})" if hidden else "")]
    minimums = [e for e in drivers if e.data.get("version_min")]
    if not minimums:
        return [f"the listing of {p.driver} names no minimum driver version to check {p.driver_version} against"]
    dated = [e for e in minimums if e.data.get("releases")]
    if not dated:
        return [f"the listing of {p.driver} {minimums[0].data['version_min']} or later states no ESXi release, so it "
                f"says nothing about {release}"]
    if any(e.data.get("meets_minimum") is None for e in dated):
        return [f"the version {p.driver_version} could not be compared with the listed minimum "
                f"{dated[0].data['version_min']}"]
    return [f"no listing of {p.driver} for {release} is met by {p.driver_version}"]


def _release_used(release: str | None, reason: str) -> str:
    """The sentence every database finding ends with: the ESXi release it used, or why none was."""
    return f" Release used: {release}." if release else f" Release used: none ({reason})." if reason else ""


def findings_for_hosts(hosts: list[Host], db: VcgDatabase | None = None,
                       contexts: dict[int, HostCompat] | None = None) -> list[Finding]:
    """Findings for every pNIC of ``hosts`` the database knows, each naming the ESXi release it used. ``contexts``:
    the judgement's one derivation of each host's release and database entries
    (:func:`nicadvisor.vcg.context.compat_contexts`); derived here when not given (a private in-memory database,
    built from the shipped CSV in a few ms, unless ``db`` is given). Raises VcgError/sqlite3.Error only if the
    shipped seed is broken."""
    out: list[Finding] = []
    for ctx in contexts_for(hosts, contexts, db=db):
        host = ctx.host
        # the guide release with its update ("ESXi 6.7 U3"), never "6.7.0" read as GA: an unknown update shows
        # the listings of every release, and confirms none
        release = ctx.release
        used = _release_used(release, ctx.release_reason)
        for p in host.pnics:
            if p.is_physical is False or not (p.vid and p.did):
                continue
            entries = list(ctx.of(p).entries)
            facts = [e for e in entries if e.kind != "note"]
            if not facts:
                continue
            model = facts[0].data.get("model") or f"{p.vid}:{p.did}"
            sources = tuple(dict.fromkeys(f"vendor: {e.source}" for e in facts if e.source))
            out.append(Finding(
                rule_id="vcg-entries", title=f"Compatibility database: {model}", severity=Severity.INFO,
                host=host.name, obj=p.name,
                message=" ".join(vcg_notes(entries)) + used,
                recommendation="Check the listed driver, firmware and features against the VMware (Broadcom) "
                               "Compatibility Guide for this ESXi release before the rollout.",
                references=sources, evidence=_evidence(p), category="driver"))
            below = False
            for e in facts:
                if e.kind == "driver" and e.data.get("meets_minimum") is False:
                    below = True
                    out.append(Finding(
                        rule_id="vcg-driver-below-minimum", title="Driver below the listed minimum version",
                        severity=Severity.WARNING, host=host.name, obj=p.name,
                        message=f"{p.name} runs {p.driver} {p.driver_version}; {e.summary}.{used}",
                        recommendation=f"Update {p.driver} to at least {e.data.get('version_min')} "
                                       f"(and the firmware the vendor pairs with it).",
                        references=(f"vendor: {e.source}",), evidence=_evidence(p, host), category="driver",
                        **driver_update_steps(host, p, e.data.get("version_min"))))
            confirming = confirming_entries(host, p, facts, release)
            if confirming:
                e = confirming[0]
                out.append(Finding(
                    rule_id="vcg-driver-meets-minimum", title="Driver meets the listed minimum for this release",
                    severity=Severity.INFO, host=host.name, obj=p.name,
                    message=f"{p.name} runs {p.driver} {p.driver_version} on {release}: {e.summary} "
                            f"[{TRUST_LABELS.get(e.trust, e.trust)}; source: {e.source}]",
                    recommendation="Nothing to change for the listing; check the firmware the vendor pairs with "
                                   "this driver.",
                    references=(f"vendor: {e.source}",), evidence=_evidence(p, host), category="driver"))
            elif not below:
                why = unconfirmed_reasons(host, p, facts + [e for e in entries if e.kind == "note"], release)
                out.append(Finding(
                    rule_id="vcg-driver-unconfirmed", title="Driver not confirmed by the compatibility database",
                    severity=Severity.INFO, host=host.name, obj=p.name,
                    message=f"{model} is in the compatibility database, but no listing confirms the driver of "
                            f"{p.name}: {'; '.join(why)}.{used if release else ''}",
                    recommendation="Read what is missing with the command named, and audit again; or check the "
                                   "driver in the VMware (Broadcom) Compatibility Guide.",
                    references=sources, evidence=_evidence(p, host), category="driver"))
    return out
