"""The VCG-style compatibility database (SQLite, stdlib ``sqlite3`` only), version 1.

Use::

    from nicadvisor.vcg import open_database, vcg_notes
    with open_database() as vcg:                       # cache file, built from the shipped CSV on first use
        entries = vcg.match("8086", "1572", driver="i40en_ens", driver_version="1.8.6", esxi_version="8.0.3")
        lines = vcg_notes(entries)
        vcg.feature("8086", "1572", "rss")             # True / False / None (nothing stated)

Where the data comes from
    ``resources/vcg/nic_facts.csv`` — 41 rows of NIC/driver facts collected from VMware/Broadcom and vendor
    documents, blogs and one vSAN HCL snapshot (``shared/design/research/vcg-data.md`` §4; evidence per line in
    ``resources/vcg/nic_facts_notes.md``; provenance table in ``resources/vcg/SOURCES.md``). They are
    statements of documents, **not** Broadcom Compatibility Guide (BCG) certifications: no public data set of
    VCG I/O entries with NSX features exists (vcg-data.md §1). Every row keeps its citation (``source``) and a
    ``trust`` level, so reports can say where a fact comes from. An empty CSV cell is unknown, never "no".

Tables (``schema.sql``; version in ``PRAGMA user_version``, migrations in :mod:`nicadvisor.vcg.db`)
    ``meta``            key/value: ``format`` = ``nicadvisor-vcg``, ``seed_sha256``/``seed_file``/``seed_rows``/
                        ``seeded_at`` of the CSV the database was built from (a changed CSV triggers a re-seed).
    ``trust_level``     ``vcg`` (100, certification data), ``vendor-doc`` (50), ``community`` (20),
                        ``unverified`` (10) — vcg-data.md §5.1 trust ranks.
    ``release``         ESXi releases a source names: label (``ESXi 7.0 U3``, ``ESXi 4.x``, ``ESX 9.0``),
                        major, minor (NULL = any), update level.
    ``device``          PCI identity ``vid``/``did``/``svid``/``ssid`` (4 lower-case hex; ``did`` NULL = the whole
                        vendor family, ``svid``/``ssid`` NULL = any subsystem), vendor, model, PCIe generation and
                        width, port speed (Gbit/s), ports; with the source and trust of the row that named it.
    ``listing``         one statement of one source about one device = one CSV row (``origin``,
                        ``origin_line`` = file and line), with ``source`` and ``trust``.
    ``listing_release`` the releases a listing is stated for (none = not stated, applies to every release).
    ``driver``          driver named by a listing: normalised ``name`` (``_ens`` stripped), ``module``,
                        ``name_as_listed``, minimum version (+ sortable key), module-parameter syntax (RSS/DRSS),
                        max Rx queues per port.
    ``firmware``        firmware listed with a driver (empty in v1: the CSV has no firmware column).
    ``feature_name``    vocabulary: ``geneve_offload``, ``geneve_rx_filter``, ``vxlan_offload``, ``rss``, ``ens``,
                        ``ens_interrupt``, ``ens_poll``, ``netqueue``, ``sriov``, ``rdma_rocev2`` with the guide's
                        spelling (``Enhanced Datapath - Interrupt Mode``, vcg-data.md §2.4).
    ``feature_alias``   other spellings → code (``Geneve-Offload``, ``EDP``, ``Enhanced Datapath Standard``...).
    ``feature``         a listing's stated support (1) or non-support (0) of a feature; ``derived_from`` is set
                        for inferred rows (``ens`` from an ENS driver name or from ``ens_poll=yes``).

Modules: :mod:`.db` (connect, migrations, backup, refusal of newer files), :mod:`.seed` (CSV → rows,
``build_database``), :mod:`.lookup` (``VcgDatabase.match``/``feature``, ``vcg_notes``, ``open_database``),
:mod:`.normalize` (pure helpers: IDs, driver names, version keys, releases).
"""
from __future__ import annotations

from nicadvisor.vcg.db import (MIGRATIONS, SCHEMA_VERSION, Migration, VcgDataError, VcgError, VcgSchemaError,
                               default_database_path)
from nicadvisor.vcg.lookup import VcgDatabase, VcgEntry, open_database, vcg_notes
from nicadvisor.vcg.seed import build_database, shipped_csv_path

__all__ = [
    "MIGRATIONS", "SCHEMA_VERSION", "Migration", "VcgDataError", "VcgError", "VcgSchemaError", "VcgDatabase",
    "VcgEntry", "build_database", "default_database_path", "open_database", "shipped_csv_path", "vcg_notes",
]
