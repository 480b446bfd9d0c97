"""What the shipped driver catalogue (:mod:`nicadvisor.vcg.driver_catalogue`) decides for an audited pNIC.

A pNIC whose driver (and version) is known but whose capability was not read — the vSphere API does not report
Geneve offload or Rx filters — gets the catalogue's value for the *capabilities* it states, with evidence
``command = "from the driver catalogue"``, ``line = <driver> <version>: <capability> = <value>`` and
``source = <document and section>``, so every view can say where the value came from (the capability matrix marks the
cell "from the driver catalogue"). A value read on the host always wins (:meth:`PhysicalNic.set_fact` keeps the
first value); a read value that contradicts the catalogue is reported by :func:`catalogue_conflicts`.

Only capabilities are filled: Geneve offload, Geneve Rx filters, Enhanced Datapath capability (any / interrupt
mode) and the maximum Rx queues. RSS is **not** filled: the catalogue says a driver *can* do RSS, while the pNIC's
``rss`` fact says whether it is *on* (a module parameter); taking one for the other would pass a host whose RSS is
off. For RSS the catalogue gives the exact command to enable it and to roll it back (:func:`rss_commands`).
"""
from __future__ import annotations

import functools

from nicadvisor.model import Evidence, Finding, Host, PhysicalNic, Severity
from nicadvisor.vcg.driver_catalogue import ORIGIN_LABEL, CatalogueFact, DriverCatalogue, load_catalogue

#: The catalogue capabilities that may decide a pNIC fact (capability → PhysicalNic field).
FILLED = {"geneve_offload": "geneve_offload", "geneve_rx_filter": "geneve_rx_filter", "ens": "ens_capable",
          "ens_interrupt": "ens_interrupt_capable", "max_rx_queues": "rx_queues_max"}


@functools.lru_cache(maxsize=1)
def _shipped() -> DriverCatalogue:
    return load_catalogue()


def _os(host: Host) -> str | None:
    return host.kind if host.kind in ("esxi", "linux") else None


def catalogue_facts(host: Host, pnic: PhysicalNic, catalogue: DriverCatalogue | None = None) -> dict[str, CatalogueFact]:
    """The catalogue's facts for ``pnic``'s driver and version on ``host`` (``{}`` when the driver, the OS or the
    catalogue entry is unknown). Raises DriverCatalogueError only if the shipped catalogue is broken."""
    os_name = _os(host)
    if os_name is None or not pnic.driver or pnic.is_physical is False:
        return {}
    cat = catalogue or _shipped()
    return cat.lookup(pnic.driver, pnic.driver_version, os_name,
                      esxi_version=host.product_version if os_name == "esxi" else None)


def fill_from_driver_catalogue(host: Host, catalogue: DriverCatalogue | None = None) -> list[str]:
    """Set the unknown capability facts (:data:`FILLED`) of ``host``'s physical pNICs from the catalogue's decided
    facts; returns ``"vmnic2.geneve_rx_filter"``-style names of what was set."""
    filled = []
    for p in host.pnics:
        for cap, fact in catalogue_facts(host, p, catalogue).items():
            field = FILLED.get(cap)
            if field is None or not fact.decided or fact.value is None:
                continue
            line = f"{p.driver} {p.driver_version or '(version unknown)'}: {cap} = {fact.value}"
            if p.set_fact(field, fact.value, Evidence(ORIGIN_LABEL, line, fact.source)):
                filled.append(f"{p.name}.{field}")
    return filled


def from_catalogue(pnic: PhysicalNic, field: str) -> bool:
    """True when ``pnic``'s ``field`` was decided by the driver catalogue, not read on the host."""
    ev = pnic.evidence.get(field)
    return ev is not None and ev.command == ORIGIN_LABEL


def catalogue_conflicts(hosts: list[Host], catalogue: DriverCatalogue | None = None) -> list[Finding]:
    """``info`` findings where a capability read on the host differs from what the catalogue states for its driver
    (the host's value is the one used; the finding shows both, with the catalogue's source)."""
    out = []
    for host in hosts:
        for p in host.pnics:
            for cap, fact in catalogue_facts(host, p, catalogue).items():
                field = FILLED.get(cap)
                if field is None or not fact.decided or fact.value is None or from_catalogue(p, field):
                    continue
                read = getattr(p, field)
                if read is None or read == fact.value:
                    continue
                ev = p.evidence.get(field)
                out.append(Finding(
                    rule_id="driver-catalogue-conflict", title="Host reading differs from the driver catalogue",
                    severity=Severity.INFO, host=host.name, target=f"{host.name}/{p.name}",
                    message=f"{p.name} reads {field.replace('_', ' ')} = {read} on the host, while the driver "
                            f"catalogue states {fact.value} for {p.driver} {p.driver_version or ''}".rstrip()
                            + ": the value read on the host is used.",
                    recommendation="Check the driver and firmware versions and the NIC model; the catalogue states "
                                   "the driver's capability, the host shows what this NIC does.",
                    references=(f"vendor: {fact.source}",), evidence=(ev,) if ev else (), category=_category(field)))
    return out


def _category(field: str) -> str:
    return {"geneve_offload": "geneve_offload", "geneve_rx_filter": "rx_filter", "ens_capable": "ens",
            "ens_interrupt_capable": "ens", "rx_queues_max": "rss"}.get(field, "driver")


def rss_commands(host: Host, pnic: PhysicalNic, previous: str | None,
                 catalogue: DriverCatalogue | None = None) -> tuple[str | None, str | None]:
    """(command that enables RSS, command that restores what was there) for ``pnic``'s driver from the catalogue,
    or (None, None) when it states none. ``previous`` is what the audit read before the change (the driver's
    module parameter string on ESXi, the combined channel count on Linux); unknown → a placeholder naming it.
    On ESXi the rollback sets the parameter string read before the change (the catalogue's documented reset
    ``-p ""`` would clear every parameter of the driver, not only RSS)."""
    facts = catalogue_facts(host, pnic, catalogue)
    fact = next((facts[c] for c in ("rss", "drss") if c in facts and facts[c].set_command), None)
    if fact is None:
        return None, None
    module = host.module(pnic.driver)
    driver = module.name if module is not None else pnic.driver
    value = "<queues per port, one value per port>" if host.kind == "esxi" else "<queues>"
    enable = fact.command("set", driver=driver, nic=pnic.name, value=value)
    if host.kind == "esxi":
        restore = previous if previous is not None else "<the parameters 'esxcli system module parameters list' showed>"
        rollback = f'esxcli system module parameters set -m {driver} -p "{restore}"'
    else:
        rollback = fact.command("rollback", driver=driver, nic=pnic.name,
                                previous=previous if previous is not None else "<the count read before>")
    return enable, rollback
