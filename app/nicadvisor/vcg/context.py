"""Each audited host's compatibility context, derived once per judgement (:func:`nicadvisor.judgement.judge`).

For one host: its ESXi release with the update level (:func:`nicadvisor.vcg.builds.host_release`, or why it is not
known), and for each physical pNIC what the three sources of compatibility knowledge say about it: the entries of
the shipped compatibility database (:meth:`nicadvisor.vcg.lookup.VcgDatabase.match`, for that release), the
listings of the imported compatibility guide (:meth:`nicadvisor.vcg.guide_store.GuideDataset.for_device`, subsystem
checked), the facts of the driver catalogue (:func:`nicadvisor.vcg.knowledge.catalogue_facts`) and the card-model
table's row (:func:`nicadvisor.vcg.card_models.card_of`): each source consulted once per pNIC. The rules
engine (RSS commands), the database findings, the catalogue conflicts and the guide findings all read this one
context instead of walking the hosts and deriving the release again.

Pure once the database, the guide and the catalogue are given; :func:`compat_contexts` opens a private in-memory
database when none is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from nicadvisor.model import Host, PhysicalNic
from nicadvisor.vcg.builds import host_release, release_unknown_reason
from nicadvisor.vcg.card_models import CardPcie, card_of
from nicadvisor.vcg.driver_catalogue import CatalogueFact, DriverCatalogue
from nicadvisor.vcg.guide_formats import GuideListing
from nicadvisor.vcg.guide_store import GuideDataset
from nicadvisor.vcg.lookup import VcgDatabase, VcgEntry, open_database


@dataclass(frozen=True)
class PnicCompat:
    """What the compatibility sources say about one physical pNIC: ``entries`` of the shipped database (notes
    included; empty without VID/DID), ``listings`` of the imported guide for its device and subsystem (empty without
    a guide, or on a host that is not ESXi), ``catalogue`` the driver catalogue's facts by capability, ``card`` the
    card-model table's row for its PCI IDs (:func:`nicadvisor.vcg.card_models.card_of`; None when not listed)."""

    pnic: PhysicalNic
    entries: tuple[VcgEntry, ...] = ()
    listings: tuple[GuideListing, ...] = ()
    catalogue: dict[str, CatalogueFact] = field(default_factory=dict)
    card: CardPcie | None = None


@dataclass(frozen=True)
class HostCompat:
    """One host's compatibility context: ``release`` the compatibility-guide release with its update
    (``"ESXi 7.0 U3"``; None when not known or not ESXi), ``release_reason`` why it is not known (``""`` when it is,
    or for a host that is not ESXi), ``pnics`` by pNIC name (physical pNICs only), ``guide`` the imported guide
    (None when none was imported)."""

    host: Host
    release: str | None
    release_reason: str
    pnics: dict[str, PnicCompat]
    guide: GuideDataset | None = None

    @property
    def esxi(self) -> bool:
        """True for an ESXi host (the only kind compatibility listings are for)."""
        return self.host.kind == "esxi"

    def of(self, pnic: PhysicalNic) -> PnicCompat:
        """The context of ``pnic`` (an empty one for a pseudo device)."""
        return self.pnics.get(pnic.name) or PnicCompat(pnic)


def subsystem_ok(g: GuideListing, p: PhysicalNic) -> bool:
    """The listing names the pNIC's subsystem, or any subsystem; False when it names another or the pNIC's is
    unknown (a potential match decides nothing)."""
    for listed, own in ((g.svid, p.svid), (g.ssid, p.ssid)):
        if listed is None:
            continue
        if own is None or listed != own.lower():
            return False
    return True


def host_compat(host: Host, db: VcgDatabase, guide: GuideDataset | None,
                catalogue: DriverCatalogue | None = None) -> HostCompat:
    """The context of one host (see the module docstring). Raises VcgError/sqlite3.Error only if the database is
    broken, DriverCatalogueError only if the shipped catalogue is."""
    from nicadvisor.vcg.knowledge import catalogue_facts

    esxi = host.kind == "esxi"
    release = host_release(host) if esxi else None
    reason = release_unknown_reason(host) if esxi and release is None else ""
    pnics: dict[str, PnicCompat] = {}
    for p in host.pnics:
        if p.is_physical is False:
            continue
        entries: tuple[VcgEntry, ...] = ()
        listings: tuple[GuideListing, ...] = ()
        if p.vid and p.did:
            entries = tuple(db.match(p.vid, p.did, p.svid, p.ssid, driver=p.driver, driver_version=p.driver_version,
                                     firmware_version=p.firmware_version, esxi_version=release))
            if guide is not None and esxi:
                listings = tuple(g for g in guide.for_device(p.vid.lower(), p.did.lower()) if subsystem_ok(g, p))
        pnics[p.name] = PnicCompat(p, entries, listings, catalogue_facts(host, p, catalogue, release=release),
                                   None if p.is_virtual_uplink else card_of(p.vid, p.did))
    return HostCompat(host, release, reason, pnics, guide)


def compat_contexts(hosts: list[Host], *, db: VcgDatabase | None = None, guide: GuideDataset | None = None,
                    catalogue: DriverCatalogue | None = None) -> dict[int, HostCompat]:
    """The context of every host, keyed by ``id(host)`` (host names need not be unique across inputs). Opens a
    private in-memory database (built from the shipped CSV in a few ms) unless ``db`` is given."""
    own = db is None
    db = db or open_database(in_memory=True)
    try:
        return {id(h): host_compat(h, db, guide, catalogue) for h in hosts}
    finally:
        if own:
            db.close()


def contexts_for(hosts: list[Host], contexts: dict[int, HostCompat] | None, *, db: VcgDatabase | None = None,
                 guide: GuideDataset | None = None) -> list[HostCompat]:
    """The contexts of ``hosts`` in their order: taken from ``contexts`` (the judgement's one derivation) when given,
    else derived now (a caller that judges one part alone, as the tests do)."""
    if contexts is None:
        contexts = compat_contexts(hosts, db=db, guide=guide)
    return [contexts[id(h)] if id(h) in contexts else compat_contexts([h], db=db, guide=guide)[id(h)] for h in hosts]
