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

A catalogue value never silences a rule (design)
    A catalogue value is *lower trust* than a reading: it states what a document says of a driver, not what this
    NIC does. It must never make a rule stop firing that fires on the facts read on the host — for example
    ``geneve_rx_filter = true`` from the catalogue would turn off ``no-rss`` ("RSS off and no Geneve Rx filter
    known") on an i40en host that reads ``rss = False``, hiding a warning behind a document about another NIC.
    This module only offers the values (:func:`catalogue_offers`); the judgement (:func:`nicadvisor.judgement.judge`)
    hands them to the rules engine, which sets a value **only where the rule outcome cannot become more
    reassuring** (:func:`nicadvisor.rules_engine.engine.evaluate_admitting`): a rule that names the fact is evaluated
    on the pNIC as read and with the value, and the value is kept only when every finding of the first is still
    there (a value may add a finding, never remove one). A value that would remove one is left unfilled: the fact
    stays unknown, the rule keeps firing, and the cell says what to read on the host. This is checked against the
    rules themselves, not a list of fields, so a new rule is protected without a change here.
    (The alternative, a rule context that reads catalogue values as unknown, would leave the rules module and the
    matrix disagreeing about the same fact.)

Device scope
    The catalogue keys a fact by driver (module, version, ESXi release), but some sources state a fact for one
    device only. :data:`DEVICE_SCOPE` keeps that scope: such a fact decides nothing for another device, or for a
    pNIC whose PCI IDs were not read (and is then neither filled nor reported as a conflict).
"""
from __future__ import annotations

import dataclasses
import functools
import re

from nicadvisor.model import Evidence, Finding, Host, PhysicalNic, Severity
from nicadvisor.parsers.base import hex4
from nicadvisor.vcg.builds import host_release
from nicadvisor.vcg.driver_catalogue import ORIGIN_LABEL, CatalogueFact, DriverCatalogue, load_catalogue

#: The catalogue capabilities that may decide a pNIC fact (capability → PhysicalNic field).
FILLED = {"geneve_offload": "geneve_offload", "geneve_rx_filter": "geneve_rx_filter", "ens": "ens_capable",
          "ens_interrupt": "ens_interrupt_capable", "max_rx_queues": "rx_queues_max"}

#: Catalogue facts whose source states them for some devices only: (os, driver family, capability) →
#: (PCI vendor:device IDs, lower-case hex, and what the source shows). Names from pci.ids (v2023.04.10).
#: * i40en ``geneve_rx_filter``: nsx-t-performance-on-intel.txt shows it on vmnic5 (§1.4.5, CLI 3), an
#:   "Intel Corporation Ethernet Controller XL710 for 40GbE QSFP+" on i40en (§1.5, CLI 4), and names "Intel XL710s"
#:   for the Rx filter gain (§1.8); it names no other i40en device (X710, XXV710, X722) and no driver version. pci.ids
#:   gives that name to 8086:1583 and 8086:1584.
DEVICE_SCOPE: dict[tuple[str, str, str], tuple[frozenset[tuple[str, str]], str]] = {
    ("esxi", "i40en", "geneve_rx_filter"): (
        frozenset({("8086", "1583"), ("8086", "1584")}),
        "the Intel XL710 for 40GbE QSFP+ (8086:1583, 8086:1584), the only NIC its source "
        "(nsx-t-performance-on-intel.txt §1.4.5, §1.5, §1.8) shows it on"),
}


@functools.lru_cache(maxsize=1)
def _shipped() -> DriverCatalogue:
    return load_catalogue()


def _os(host: Host) -> str | None:
    return host.kind if host.kind in ("esxi", "linux") else None


_DERIVE = object()


def catalogue_facts(host: Host, pnic: PhysicalNic, catalogue: DriverCatalogue | None = None, *,
                    release: str | None | object = _DERIVE) -> dict[str, CatalogueFact]:
    """The catalogue's facts for ``pnic``'s driver and version on ``host`` (``{}`` when the driver, the OS or the
    catalogue entry is unknown). A fact :data:`DEVICE_SCOPE` limits to other devices is returned undecided. The ESXi
    release given to the catalogue is the host's guide release (``release``, as the judgement's context derived it
    once; derived with :func:`nicadvisor.vcg.builds.host_release` when not given; 6.x: from the build) when known,
    else the version text. Raises DriverCatalogueError only if the shipped catalogue is broken."""
    os_name = _os(host)
    if os_name is None or not pnic.driver or pnic.is_physical is False:
        return {}
    cat = catalogue or _shipped()
    if release is _DERIVE:
        release = host_release(host)
    # the guide release ("ESXi 7.0 U3", from the build for 6.x) when known, else the version text as read
    esxi_version = (release or host.product_version) if os_name == "esxi" else None
    facts = cat.lookup(pnic.driver, pnic.driver_version, os_name, esxi_version=esxi_version)
    return {cap: _scoped(os_name, pnic, fact) for cap, fact in facts.items()}


def _scoped(os_name: str, pnic: PhysicalNic, fact: CatalogueFact) -> CatalogueFact:
    """``fact``, undecided when :data:`DEVICE_SCOPE` limits it to devices ``pnic`` is not (or not known to be)."""
    scope = DEVICE_SCOPE.get((os_name, fact.driver, fact.capability))
    if scope is None or not fact.decided:
        return fact
    ids, what = scope
    device = (hex4(pnic.vid), hex4(pnic.did))
    if device in ids:
        return fact
    why = (f"the source states this for {what}; {pnic.name} is {device[0]}:{device[1]}" if None not in device else
           f"the source states this for {what}; the PCI IDs of {pnic.name} were not read")
    return dataclasses.replace(fact, value=None, decided=False, reason=why)


def catalogue_offers(pnic: PhysicalNic, facts: dict[str, CatalogueFact]) -> list[tuple[str, object, Evidence]]:
    """What the catalogue offers for ``pnic``'s unknown capability facts (:data:`FILLED`), from its catalogue
    ``facts`` (:func:`catalogue_facts`, as the judgement's context holds them): ``(field, value, evidence)`` per
    decided fact, in the catalogue's order, with evidence ``command = "from the driver catalogue"``,
    ``line = <driver> <version>: <capability> = <value>`` and the fact's source. Sets nothing: the judgement sets an
    offer only where no rule stops firing (:func:`nicadvisor.rules_engine.engine.evaluate_admitting`)."""
    out: list[tuple[str, object, Evidence]] = []
    for cap, fact in facts.items():
        field = FILLED.get(cap)
        if field is None or not fact.decided or fact.value is None or getattr(pnic, field) is not None:
            continue
        line = f"{pnic.driver} {pnic.driver_version or '(version unknown)'}: {cap} = {fact.value}"
        out.append((field, fact.value, Evidence(ORIGIN_LABEL, line, fact.source)))
    return out


def from_catalogue(pnic: PhysicalNic, field: str) -> bool:
    """True when ``pnic``'s ``field`` was decided by the driver catalogue, not read on the host."""
    ev = pnic.evidence.get(field)
    return ev is not None and ev.command == ORIGIN_LABEL


def catalogue_conflicts(hosts: list[Host], catalogue: DriverCatalogue | None = None,
                        contexts: dict | None = None) -> list[Finding]:
    """``info`` findings where a capability read on the host differs from what the catalogue states for its driver
    (the host's value is the one used; the finding shows both, with the catalogue's source). ``contexts``: the
    judgement's one derivation (:func:`nicadvisor.vcg.context.compat_contexts`), whose catalogue facts are used;
    without it (or with another ``catalogue``) the facts are looked up here."""
    out = []
    for host in hosts:
        ctx = contexts.get(id(host)) if contexts is not None and catalogue is None else None
        for p in host.pnics:
            facts = ctx.of(p).catalogue if ctx is not None else catalogue_facts(host, p, catalogue)
            for cap, fact in facts.items():
                field = FILLED.get(cap)
                if field is None or not fact.decided or fact.value is None or from_catalogue(p, field):
                    continue
                read = getattr(p, field)
                if read is None or read == fact.value:
                    continue
                ev = p.evidence.get(field)
                out.append(Finding(
                    rule_id="driver-catalogue-conflict", title="Host reading differs from the driver catalogue",
                    severity=Severity.INFO, host=host.name, obj=p.name,
                    message=f"{p.name} reads {field.replace('_', ' ')} = {read} on the host, while the driver "
                            f"catalogue states {fact.value} for {p.driver} {p.driver_version or ''}".rstrip()
                            + f"{_release_used(host, ctx)}: the value read on the host is used.",
                    recommendation="Check the driver and firmware versions and the NIC model; the catalogue states "
                                   "the driver's capability, the host shows what this NIC does.",
                    references=(f"vendor: {fact.source}",), evidence=(ev,) if ev else (), category=_category(field)))
    return out


def _release_used(host: Host, ctx) -> str:
    """`` on ESXi 7.0 U3`` (the release the catalogue was asked for), ``""`` off ESXi or when it is not known."""
    if host.kind != "esxi":
        return ""
    release = ctx.release if ctx is not None else host_release(host)
    return f" on {release}" if release else " (ESXi release not known)"


def _category(field: str) -> str:
    return {"geneve_offload": "geneve_offload", "geneve_rx_filter": "rx_filter", "ens_capable": "ens",
            "ens_interrupt_capable": "ens", "rx_queues_max": "rss"}.get(field, "driver")


def rss_fact_without_command(host: Host, pnic: PhysicalNic, catalogue: DriverCatalogue | None = None,
                             facts: dict[str, CatalogueFact] | None = None) -> CatalogueFact | None:
    """The catalogue's RSS (or default-queue RSS) fact for ``pnic``'s driver when the catalogue has one but it
    gives no command to set RSS (qede: stated in code only; icen: a release-note line), so the advice can say so
    and cite it; None when a fact gives a command or the catalogue has no RSS fact for the driver. ``facts``: the
    pNIC's catalogue facts when already looked up (the judgement's context)."""
    facts = catalogue_facts(host, pnic, catalogue) if facts is None else facts
    rss = [facts[c] for c in ("rss", "drss") if c in facts]
    if not rss or any(f.set_command for f in rss):
        return None
    return rss[0]


def rss_commands(host: Host, pnic: PhysicalNic, previous: str | None, catalogue: DriverCatalogue | None = None,
                 facts: dict[str, CatalogueFact] | None = None) -> tuple[str | None, str | None]:
    """(command that enables RSS, command that restores what was there) for ``pnic``'s driver from the catalogue,
    or (None, None) when it states none. ``previous`` is what the audit read before the change (the driver's
    module parameter string on ESXi, the combined channel count on Linux); unknown → a placeholder naming it.
    On ESXi the rollback sets the parameter string read before the change (the catalogue's documented reset
    ``-p ""`` would clear every parameter of the driver, not only RSS). ``facts``: the pNIC's catalogue facts when
    already looked up (the judgement's context)."""
    facts = catalogue_facts(host, pnic, catalogue) if facts is None else facts
    fact = next((facts[c] for c in ("rss", "drss") if c in facts and facts[c].set_command), None)
    if fact is None:
        return None, None
    module = host.module(pnic.driver)
    driver = module.name if module is not None else pnic.driver
    if host.kind == "esxi":
        return _esxi_module_parameter_steps(host, pnic, fact, str(driver), previous)
    enable = fact.command("set", driver=driver, nic=pnic.name, value="<queues>")
    rollback = fact.command("rollback", driver=driver, nic=pnic.name,
                            previous=previous if previous is not None else "<the count read before>")
    return enable, rollback


_PARAM_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)")


def _esxi_module_parameter_steps(host: Host, pnic: PhysicalNic, fact: CatalogueFact, driver: str,
                                 previous: str | None) -> tuple[str, str]:
    """(change, roll-back) of an RSS module parameter on ESXi, safe to run as written (issue 24 §3):

    * ``esxcli system module parameters set -m DRIVER -p "…"`` replaces the driver's whole parameter string, so the
      change keeps the parameters already set (``previous``, read with ``esxcli system module parameters list -m``)
      and sets the new ones over them; when they were not read, it reads them first and uses ``--append``;
    * a per-port list (``DRSS=0,0``, ``RSS=…``) has one value per port of that driver on this host;
    * the change applies to every port of the driver and takes effect after a reboot (NSX-T 3.1 and the NVIDIA
      manuals: unload/reload the driver or reboot);
    * the ENS NetQ RSS recipe (the catalogue's note) says when it applies;
    * the roll-back sets the string read before the change (``-p ""`` would clear every parameter).
    """
    ports = sum(1 for p in host.pnics if p.driver == pnic.driver) or 1
    template = fact.command("set", driver=driver, nic=pnic.name, value="{value}") or ""
    wanted: dict[str, str] = {}
    for key, val in _PARAM_RE.findall(template.partition(" -p ")[2].strip('"')):
        per_port = "," in val or val == "{value}"
        item = "<queues>" if val == "{value}" else val.split(",")[0]
        wanted[key] = ",".join([item] * ports) if per_port else item
    new = " ".join(f"{k}={v}" for k, v in wanted.items())
    lines = [f"esxcli system module parameters list -m {driver}   (the parameters set now)"]
    if previous is not None:
        kept = dict(_PARAM_RE.findall(previous))
        kept.update(wanted)
        merged = " ".join(f"{k}={v}" for k, v in kept.items())
        lines.append(f'esxcli system module parameters set -m {driver} -p "{merged}"')
        restore = previous
    else:
        lines.append(f'esxcli system module parameters set --append -m {driver} -p "{new}"')
        restore = "<the parameters the list above showed>"
    lines.append(f"(-p replaces the whole parameter string of {driver}: the parameters already set are kept; one value "
                 f"per {driver} port, {ports} on this host; it applies to every {driver} port of the host)")
    lines.append("reboot (in maintenance mode): module parameters take effect when the driver loads")
    if (fact.note or "").startswith("NetQ RSS for the Enhanced Datapath"):
        since = f"ESXi {fact.esxi_release} or later, " if fact.esxi_release else ""
        lines.insert(0, f"Only for the ENS NetQ RSS recipe: a host switch in Enhanced Datapath mode ({since}the "
                        f"{'/'.join(fact.modules) or driver} driver); on a standard datapath leave {driver}'s "
                        f"parameters as they are.")
    rollback = (f'esxcli system module parameters set -m {driver} -p "{restore}"\n'
                "reboot (in maintenance mode)")
    return "\n".join(lines), rollback
