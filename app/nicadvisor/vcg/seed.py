"""Seeding the compatibility database from the shipped ``resources/vcg/nic_facts.csv``.

One CSV row becomes one ``listing`` (file line kept in ``origin_line``) of one ``device``, with its
releases (``esxi_release``, ``;``-separated), at most one ``driver`` and one ``feature`` row per
non-empty feature cell. ``source`` is the row's ``source_url_or_repo_path`` cell verbatim on every row;
``trust`` comes from its first citation that is not pci.ids (:func:`classify_trust`, table in
``resources/vcg/SOURCES.md``).

Derived rows (``feature.derived_from`` says why): ``ens`` = yes when ``ens_interrupt`` or ``ens_poll`` is
yes, or when the driver cell names an ENS driver (``i40en-ens``, ``i40en_ens``, ``nenic_ens``,
``vmxnet3_ens``), since such a driver exists only for the Enhanced Datapath (nic_facts_notes.md lines 2–5, 41).

Column formats (from the CSV header): IDs 4 hex digits or empty (empty ``did`` = whole vendor family);
``pcie_gen``/``pcie_width``/``port_speed_gbps`` (Gbit/s)/``ports``/``max_rx_queues`` integers; feature
cells ``yes``/``no``/empty (empty = unknown, no row).
"""
from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import io
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from nicadvisor.paths import vcg_resource
from nicadvisor.vcg import db as _db
from nicadvisor.parsers.base import hex4
from nicadvisor.vcg.normalize import (driver_module, is_ens_driver, normalise_driver, parse_release,
                                      release_label, version_key)

SEED_FILE_NAME = "nic_facts.csv"
SEED_ORIGIN = SEED_FILE_NAME

COLUMNS = (
    "vendor", "model", "vid", "did", "svid", "ssid", "pcie_gen", "pcie_width", "port_speed_gbps", "ports",
    "driver", "driver_version_min", "esxi_release", "geneve_offload", "geneve_rx_filter", "vxlan_offload", "rss",
    "ens_interrupt", "ens_poll", "max_rx_queues", "rss_module_param", "source_url_or_repo_path",
)
FEATURE_COLUMNS = ("geneve_offload", "geneve_rx_filter", "vxlan_offload", "rss", "ens_interrupt", "ens_poll")

# First citation → trust level. Checked in order; the first rule whose text occurs in the citation wins.
TRUST_RULES: tuple[tuple[str, str], ...] = (
    ("github:vmware/vcfcheck", "vcg"),              # vSAN HCL snapshot (certification records)
    ("compatibilityguide.broadcom.com", "vcg"),
    ("vmware.com/resources/compatibility", "vcg"),
    ("docs.vmware.com", "vendor-doc"),
    ("techdocs.broadcom.com", "vendor-doc"),
    ("knowledge.broadcom.com", "vendor-doc"),
    ("docs.nvidia.com", "vendor-doc"),
    ("release_note_irdman", "vendor-doc"),           # Intel's release note inside the VMware driver package
    ("servethehome.com", "community"),
    ("vcdx200.uw.cz", "community"),
    ("nielshagoort.com", "community"),
    ("geminustech.com", "community"),
)


@dataclass
class SeedRow:
    """One CSV row, parsed. ``line`` is the file line (1 = header). IDs are :func:`hex4` or None."""

    line: int
    vendor: str
    model: str
    vid: str
    did: str | None
    svid: str | None
    ssid: str | None
    pcie_gen: int | None
    pcie_width: int | None
    port_speed_gbps: int | None
    ports: int | None
    driver: str | None
    driver_version_min: str | None
    releases: list[tuple[int, int | None, int]]
    features: dict[str, bool]
    max_rx_queues: int | None
    module_param: str | None
    source: str
    trust: str
    derived: dict[str, str] = field(default_factory=dict)


def shipped_csv_path() -> Path:
    """The ``nic_facts.csv`` the application ships.

    Looked up in order: a frozen bundle (``sys._MEIPASS/resources/vcg``), the shipped data folder
    (:func:`nicadvisor.paths.find_project_root`: the repository's ``resources/vcg`` or an installed wheel's
    ``nicadvisor/data/resources/vcg``), package data (``nicadvisor/vcg/nic_facts.csv``). Raises FileNotFoundError
    naming every place tried.
    """
    return vcg_resource(SEED_FILE_NAME, "the compatibility seed data")


def classify_trust(source: str) -> str:
    """Trust level of a CSV ``source_url_or_repo_path`` cell (``vcg``, ``vendor-doc``, ``community``,
    ``unverified``), decided by its first ``;``-separated citation that is not ``/usr/share/misc/pci.ids``."""
    citations = [c.strip() for c in source.split(" ; ") if c.strip()]
    primary = next((c for c in citations if "pci.ids" not in c), citations[0] if citations else "")
    for needle, level in TRUST_RULES:
        if needle in primary:
            return level
    return "unverified"


def _int(value: str, column: str, where: str) -> int | None:
    text = value.strip()
    if not text:
        return None
    if not text.isdigit():
        raise _db.VcgDataError(f"{where}: column {column} must be an integer, not {text!r}")
    return int(text)


def _id(value: str, column: str, where: str) -> str | None:
    if not value.strip():
        return None
    out = hex4(value)
    if out is None:
        raise _db.VcgDataError(f"{where}: column {column} must be a 4-digit hex PCI ID, not {value!r}")
    return out


def read_seed_rows(text: str, origin: str = SEED_FILE_NAME) -> list[SeedRow]:
    """Parse the CSV text (header required, columns :data:`COLUMNS`) into :class:`SeedRow` objects.

    Raises VcgDataError naming ``origin`` and the line for a missing column, a bad PCI ID, integer or
    feature value, an unreadable release, an empty vendor/model/vid or source.
    """
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise _db.VcgDataError(f"{origin}: header lacks column(s) {', '.join(missing)}")
    rows: list[SeedRow] = []
    for record in reader:
        where = f"{origin} line {reader.line_num}"
        cells = {k: (record.get(k) or "").strip() for k in COLUMNS}
        if not cells["vendor"] or not cells["model"] or not cells["vid"] or not cells["source_url_or_repo_path"]:
            raise _db.VcgDataError(f"{where}: vendor, model, vid and source_url_or_repo_path are required")
        releases = []
        for part in cells["esxi_release"].split(";"):
            if not part.strip():
                continue
            rel = parse_release(part)
            if rel is None:
                raise _db.VcgDataError(f"{where}: esxi_release {part.strip()!r} is not 'x.y', 'x.y Un' or 'x.x'")
            releases.append(rel)
        features: dict[str, bool] = {}
        for column in FEATURE_COLUMNS:
            value = cells[column].lower()
            if value in ("yes", "no"):
                features[column] = value == "yes"
            elif value:
                raise _db.VcgDataError(f"{where}: column {column} must be yes, no or empty, not {value!r}")
        row = SeedRow(
            line=reader.line_num, vendor=cells["vendor"], model=cells["model"],
            vid=_id(cells["vid"], "vid", where) or "", did=_id(cells["did"], "did", where),
            svid=_id(cells["svid"], "svid", where), ssid=_id(cells["ssid"], "ssid", where),
            pcie_gen=_int(cells["pcie_gen"], "pcie_gen", where),
            pcie_width=_int(cells["pcie_width"], "pcie_width", where),
            port_speed_gbps=_int(cells["port_speed_gbps"], "port_speed_gbps", where),
            ports=_int(cells["ports"], "ports", where), driver=cells["driver"] or None,
            driver_version_min=cells["driver_version_min"] or None, releases=releases, features=features,
            max_rx_queues=_int(cells["max_rx_queues"], "max_rx_queues", where),
            module_param=cells["rss_module_param"] or None, source=cells["source_url_or_repo_path"],
            trust=classify_trust(cells["source_url_or_repo_path"]),
        )
        if row.did is None and (row.svid or row.ssid):
            raise _db.VcgDataError(f"{where}: svid/ssid need a did")
        if row.ssid and not row.svid:
            raise _db.VcgDataError(f"{where}: ssid needs an svid")
        if "ens" not in row.features:
            if row.features.get("ens_interrupt") or row.features.get("ens_poll"):
                which = "ens_interrupt" if row.features.get("ens_interrupt") else "ens_poll"
                row.features["ens"] = True
                row.derived["ens"] = f"{which}=yes"
            elif row.driver and is_ens_driver(row.driver):
                row.features["ens"] = True
                row.derived["ens"] = f"{row.driver.split('(')[0].strip()} is an ENS (Enhanced Datapath) driver"
        rows.append(row)
    return rows


def _release_id(conn: sqlite3.Connection, rel: tuple[int, int | None, int]) -> int:
    label = release_label(*rel)
    conn.execute("INSERT OR IGNORE INTO release (label, major, minor, update_level) VALUES (?, ?, ?, ?)",
                 (label, rel[0], rel[1], rel[2]))
    return int(conn.execute("SELECT release_id FROM release WHERE label = ?", (label,)).fetchone()[0])


def _device_id(conn: sqlite3.Connection, row: SeedRow) -> int:
    key = (row.vid, row.did, row.svid, row.ssid, row.vendor, row.model,
           row.pcie_gen, row.pcie_width, row.port_speed_gbps, row.ports)
    found = conn.execute(
        "SELECT device_id FROM device WHERE vid = ? AND did IS ? AND svid IS ? AND ssid IS ? AND vendor = ? "
        "AND model = ? AND pcie_gen IS ? AND pcie_width IS ? AND port_speed_gbps IS ? AND ports IS ?", key).fetchone()
    if found:
        return int(found[0])
    cur = conn.execute(
        "INSERT INTO device (vid, did, svid, ssid, vendor, model, pcie_gen, pcie_width, port_speed_gbps, ports, "
        "source, trust) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (*key, row.source, row.trust))
    return int(cur.lastrowid or 0)


def seed_rows(conn: sqlite3.Connection, rows: list[SeedRow], origin: str = SEED_ORIGIN) -> int:
    """Replace the rows of ``origin`` with ``rows``, inside the caller's transaction; returns the listings added.

    Devices no longer used by any listing are deleted; releases stay (they are vocabulary).
    """
    conn.execute("DELETE FROM listing WHERE origin = ?", (origin,))
    conn.execute("DELETE FROM device WHERE device_id NOT IN (SELECT device_id FROM listing)")
    for row in rows:
        device_id = _device_id(conn, row)
        listing_id = int(conn.execute(
            "INSERT INTO listing (device_id, origin, origin_line, source, trust) VALUES (?, ?, ?, ?, ?)",
            (device_id, origin, row.line, row.source, row.trust)).lastrowid or 0)
        for rel in row.releases:
            conn.execute("INSERT OR IGNORE INTO listing_release (listing_id, release_id) VALUES (?, ?)",
                         (listing_id, _release_id(conn, rel)))
        if row.driver:
            conn.execute(
                "INSERT INTO driver (listing_id, name, module, name_as_listed, version_min, version_key, "
                "module_param, max_rx_queues, source, trust) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (listing_id, normalise_driver(row.driver), driver_module(row.driver), row.driver,
                 row.driver_version_min, version_key(row.driver_version_min), row.module_param,
                 row.max_rx_queues, row.source, row.trust))
        elif row.module_param or row.max_rx_queues is not None or row.driver_version_min:
            # No driver named: keep the module-parameter / queue facts on a driver row without a name.
            conn.execute(
                "INSERT INTO driver (listing_id, name, module, name_as_listed, version_min, version_key, "
                "module_param, max_rx_queues, source, trust) VALUES (?, '', '', '', ?, ?, ?, ?, ?, ?)",
                (listing_id, row.driver_version_min, version_key(row.driver_version_min), row.module_param,
                 row.max_rx_queues, row.source, row.trust))
        for code, supported in row.features.items():
            conn.execute(
                "INSERT INTO feature (listing_id, code, supported, derived_from, source, trust) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (listing_id, code, int(supported), row.derived.get(code), row.source, row.trust))
    return len(rows)


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def ensure_seeded(conn: sqlite3.Connection, csv_path: Path | None = None, *, force: bool = False) -> bool:
    """Seed a migrated database from ``csv_path`` (default :func:`shipped_csv_path`) unless it already holds
    exactly that file (same sha256 in ``meta.seed_sha256``); returns True when it (re)seeded.

    All-or-nothing: one transaction. Raises VcgDataError for malformed CSV, OSError when it cannot be read.
    """
    path = csv_path or shipped_csv_path()
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if not force and _meta(conn, "seed_sha256") == digest:
        return False
    rows = read_seed_rows(data.decode("utf-8"), origin=path.name)
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not force and _meta(conn, "seed_sha256") == digest:  # another process seeded meanwhile
            conn.execute("ROLLBACK")
            return False
        count = seed_rows(conn, rows, origin=SEED_ORIGIN)
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        for key, value in (("seed_sha256", digest), ("seed_file", path.name), ("seed_rows", str(count)),
                           ("seeded_at", now)):
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return True


def build_database(path: str | os.PathLike[str] | None = None, csv_path: str | os.PathLike[str] | None = None,
                   *, force: bool = False) -> Path:
    """Create or update the database file at ``path`` (default :func:`nicadvisor.vcg.db.default_database_path`)
    and return its path.

    Migrates the schema (backing up an existing older file, refusing a newer one) and seeds it from
    ``csv_path`` (default: the shipped ``resources/vcg/nic_facts.csv``) when the file's sha256 differs from
    the one recorded, or when ``force``. Raises VcgSchemaError, VcgDataError, OSError, sqlite3.Error.
    """
    target = Path(path) if path is not None else _db.default_database_path()
    conn = _db.connect(target)
    try:
        _db.migrate(conn, target)
        ensure_seeded(conn, Path(csv_path) if csv_path is not None else None, force=force)
    finally:
        conn.close()
    return target
