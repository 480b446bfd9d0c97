"""Compatibility-database entries of each pNIC as findings (category ``driver``).

For every physical pNIC with known VID/DID, the entries :meth:`VcgDatabase.match` returns become one
``info`` finding listing them (with trust level and source), and a ``warning`` when the host's driver is
below the minimum version a listing states. Sources are the citations of ``resources/vcg/nic_facts.csv``.
"""
from __future__ import annotations

from nicadvisor.model import Finding, Host, Severity
from nicadvisor.vcg.lookup import VcgDatabase, open_database, vcg_notes


def _evidence(pnic):
    return tuple(pnic.evidence[k] for k in ("vid", "did", "svid", "ssid", "driver", "driver_version")
                 if k in pnic.evidence)


def findings_for_hosts(hosts: list[Host], db: VcgDatabase | None = None) -> list[Finding]:
    """Findings for every pNIC of ``hosts`` the database knows. Opens a private in-memory database
    (built from the shipped CSV in a few ms) unless ``db`` is given. Raises VcgError/sqlite3.Error
    only if the shipped seed is broken."""
    own = db is None
    db = db or open_database(in_memory=True)
    out: list[Finding] = []
    try:
        for host in hosts:
            for p in host.pnics:
                if p.is_physical is False or not (p.vid and p.did):
                    continue
                entries = [e for e in db.match(p.vid, p.did, p.svid, p.ssid, driver=p.driver,
                                               driver_version=p.driver_version,
                                               firmware_version=p.firmware_version,
                                               esxi_version=host.product_version if host.kind == "esxi" else None)]
                facts = [e for e in entries if e.kind != "note"]
                if not facts:
                    continue
                target = f"{host.name}/{p.name}"
                model = facts[0].data.get("model") or f"{p.vid}:{p.did}"
                sources = tuple(dict.fromkeys(f"vendor: {e.source}" for e in facts if e.source))
                out.append(Finding(
                    rule_id="vcg-entries", title=f"Compatibility database: {model}", severity=Severity.INFO,
                    host=host.name, target=target,
                    message=" ".join(vcg_notes(entries)),
                    recommendation="Check the listed driver, firmware and features against the VMware (Broadcom) "
                                   "Compatibility Guide for this ESXi release before the rollout.",
                    references=sources, evidence=_evidence(p), category="driver"))
                for e in facts:
                    if e.kind == "driver" and e.data.get("meets_minimum") is False:
                        out.append(Finding(
                            rule_id="vcg-driver-below-minimum", title="Driver below the listed minimum version",
                            severity=Severity.WARNING, host=host.name, target=target,
                            message=f"{p.name} runs {p.driver} {p.driver_version}; {e.summary}",
                            recommendation=f"Update {p.driver} to at least {e.data.get('version_min')} "
                                           f"(and the firmware the vendor pairs with it).",
                            references=(f"vendor: {e.source}",), evidence=_evidence(p), category="driver"))
    finally:
        if own:
            db.close()
    return out
