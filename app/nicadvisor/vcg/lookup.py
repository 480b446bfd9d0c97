"""Looking up a pNIC in the compatibility database: :class:`VcgDatabase`, :class:`VcgEntry`, :func:`vcg_notes`.

Matching (vcg-data.md §5.2):

* device rows with the same ``vid`` and either the same ``did`` or ``did`` NULL (family-level);
  a row's ``svid``/``ssid`` must equal the host's, or be NULL (any). A subsystem-specific row whose
  subsystem the caller did not give is kept as a *potential* match (shown last, never used by
  :meth:`VcgDatabase.feature`);
* order, most specific first: exact SVID+SSID, SVID only, device (any subsystem), family (any device),
  potential; then device / driver / firmware / feature entries; then higher trust; then file line;
  ``note`` entries come last;
* ``esxi_version`` given: listings stated for other releases are left out (a ``note`` counts them);
  listings without a release always apply. See :func:`nicadvisor.vcg.normalize.release_matches`;
* ``driver`` given: listings naming another driver (compared after :func:`normalise_driver`, so
  ``i40en_ens`` = ``i40en``) are left out (a ``note`` counts them). ``driver_version`` is compared with
  the listed minimum only for a listing of the same driver; ``firmware_version`` with listed firmware.

An unknown device gives ``[]``.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nicadvisor.vcg import db as _db
from nicadvisor.vcg import seed as _seed
from nicadvisor.parsers.base import hex4
from nicadvisor.vcg.normalize import (firmware_matches, normalise_driver, parse_host_version,
                                      release_matches, version_at_least)

ENTRY_KINDS = ("device", "driver", "firmware", "feature", "note")
MATCH_LEVELS = ("exact", "subsystem_vendor", "device", "family", "potential")
TRUST_LABELS = {
    "vcg": "compatibility guide data",
    "vendor-doc": "vendor documentation",
    "community": "community source",
    "unverified": "unverified source",
}


@dataclass(frozen=True)
class VcgEntry:
    """One fact from the compatibility database about a looked-up device.

    ``kind``: ``"device"`` (identity and physical facts), ``"driver"`` (driver named, minimum version,
    module parameters, max Rx queues per port), ``"firmware"``, ``"feature"`` (stated support of e.g.
    ``geneve_offload``, ``rss``, ``ens``), ``"note"`` (about the lookup itself: rows left out).
    ``summary``: one human sentence. ``source``: the citation (verbatim from ``nic_facts.csv``).
    ``trust``: ``vcg`` | ``vendor-doc`` | ``community`` | ``unverified``.
    ``data``: plain values — always ``match`` (a :data:`MATCH_LEVELS` value, absent for notes), ``vid``,
    ``did``, ``svid``, ``ssid`` (None = any), ``vendor``, ``model``, ``origin`` and ``origin_line`` (file and
    line of the seed row), ``releases`` (labels, ``[]`` = not stated); plus per kind: device
    ``pcie_gen``, ``pcie_width``, ``port_speed_gbps`` (Gbit/s), ``ports``; driver ``driver`` (normalised),
    ``driver_as_listed``, ``module``, ``version_min``, ``module_param``, ``max_rx_queues``,
    ``host_driver_version``, ``meets_minimum`` (True/False/None); firmware ``firmware_version``,
    ``additional_firmware_version``, ``driver``, ``host_firmware_version``, ``firmware_matches``;
    feature ``feature`` (code), ``supported`` (bool), ``derived_from`` (None or why it was inferred),
    ``driver``; note ``reason`` and ``origin_lines``.
    """

    kind: str
    summary: str
    source: str
    trust: str
    data: dict[str, Any]


def _ids(vid: str | None, did: str | None, svid: str | None = None, ssid: str | None = None) -> str:
    if not did:
        return f"{vid}:any device"
    if not svid:
        return f"{vid}:{did}, any subsystem"
    return f"{vid}:{did} subsystem {svid}:{ssid or 'any'}"


def _join(items: Iterable[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _hidden_phrase(n: int) -> tuple[str, str]:
    """("3 more statements about this device concern", "are") for a count of left-out listings."""
    if n == 1:
        return "1 more statement about this device concerns", "is"
    return f"{n} more statements about this device concern", "are"


class VcgDatabase:
    """A read-only view of an opened compatibility database (see :func:`open_database`).

    Thread-safe: queries are serialised by a lock. Close it with :meth:`close` or use it as a context
    manager.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path | None = None) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.path = path

    # -- housekeeping -----------------------------------------------------------------------------
    @property
    def connection(self) -> sqlite3.Connection:
        """The underlying connection (for maintenance and tests; lookups should use the methods)."""
        return self._conn

    def close(self) -> None:
        """Close the connection; the object must not be used afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "VcgDatabase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def info(self) -> dict[str, str]:
        """The ``meta`` table: ``format``, ``seed_sha256``, ``seed_file``, ``seed_rows``, ``seeded_at`` (ISO UTC)."""
        with self._lock:
            return {str(r["key"]): str(r["value"]) for r in self._conn.execute("SELECT key, value FROM meta")}

    def counts(self) -> dict[str, int]:
        """Row counts per data table (device, listing, release, driver, firmware, feature)."""
        with self._lock:
            return {t: int(self._conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                    for t in ("device", "listing", "release", "driver", "firmware", "feature")}

    def feature_code(self, name: str) -> str | None:
        """The feature code of ``name`` (a code such as ``geneve_offload`` or a guide spelling such as
        ``"Enhanced Datapath - Interrupt Mode"``, case-insensitive), or None when unknown."""
        with self._lock:
            row = self._conn.execute("SELECT code FROM feature_alias WHERE alias = ?", (name.strip(),)).fetchone()
        return None if row is None else str(row[0])

    # -- lookup -----------------------------------------------------------------------------------
    def match(self, vid: str | int | None, did: str | int | None, svid: str | int | None = None,
              ssid: str | int | None = None, driver: str | None = None, driver_version: str | None = None,
              firmware_version: str | None = None, esxi_version: str | None = None) -> list[VcgEntry]:
        """Everything the database says about a PCI device, most specific first (see the module docstring).

        IDs: 4 hex digits in any case, with or without ``0x``, or ints (pyVmomi's signed 16-bit values are
        masked). ``driver``: module name as esxcli prints it (``i40en_ens`` = ``i40en``).
        ``esxi_version``: e.g. ``"8.0.3"``, ``"8.0 U3"``, ``"7.0.3 build-18905247"``. Returns ``[]`` for
        unreadable IDs or an unknown device. Never raises on odd input text; raises sqlite3.Error if the
        database is unusable.
        """
        v, d = hex4(vid), hex4(did)
        if v is None or d is None:
            return []
        sv, ss = hex4(svid), hex4(ssid)
        host_driver = normalise_driver(driver)
        host_release = parse_host_version(esxi_version) if esxi_version else None
        with self._lock:
            devices = self._conn.execute(
                "SELECT * FROM device WHERE vid = ? AND (did IS NULL OR did = ?)", (v, d)).fetchall()
            candidates: list[tuple[int, sqlite3.Row]] = []
            for dev in devices:
                level = self._level(dev, sv, ss)
                if level is not None:
                    candidates.append((level, dev))
            if not candidates:
                return []
            trust_rank = {str(r["name"]): int(r["rank"]) for r in self._conn.execute("SELECT * FROM trust_level")}
            labels = {str(r["code"]): str(r["label"]) for r in self._conn.execute("SELECT * FROM feature_name")}
            ranked: list[tuple[tuple[Any, ...], VcgEntry]] = []
            hidden_release: list[sqlite3.Row] = []
            hidden_driver: list[tuple[sqlite3.Row, str]] = []
            for level, dev in candidates:
                ranked.append(((level, 0, -trust_rank.get(str(dev["trust"]), 0), ("", 0), ""),
                               self._device_entry(dev, level)))
                for listing in self._conn.execute(
                        "SELECT * FROM listing WHERE device_id = ? ORDER BY origin, origin_line",
                        (dev["device_id"],)).fetchall():
                    releases = self._conn.execute(
                        "SELECT r.* FROM listing_release lr JOIN release r USING (release_id) "
                        "WHERE lr.listing_id = ? ORDER BY r.major, ifnull(r.minor, -1), r.update_level",
                        (listing["listing_id"],)).fetchall()
                    if host_release is not None and releases and not any(
                            release_matches((r["major"], r["minor"], r["update_level"]), host_release)
                            for r in releases):
                        hidden_release.append(listing)
                        continue
                    drv = self._conn.execute("SELECT * FROM driver WHERE listing_id = ? ORDER BY driver_id",
                                             (listing["listing_id"],)).fetchone()
                    drv_name = str(drv["name"]) if drv is not None and drv["name"] else None
                    if host_driver and drv_name and drv_name != host_driver:
                        hidden_driver.append((listing, str(drv["name_as_listed"])))
                        continue
                    base = self._base(dev, level, listing, [str(r["label"]) for r in releases])
                    rank = -trust_rank.get(str(listing["trust"]), 0)
                    line = (str(listing["origin"]), int(listing["origin_line"] or 0))
                    if drv is not None:
                        ranked.append(((level, 1, rank, line, ""),
                                       self._driver_entry(base, drv, driver_version if host_driver else None)))
                    for fw in self._conn.execute("SELECT * FROM firmware WHERE listing_id = ? ORDER BY firmware_id",
                                                 (listing["listing_id"],)).fetchall():
                        fw_driver = drv
                        if fw["driver_id"] is not None:
                            fw_driver = self._conn.execute("SELECT * FROM driver WHERE driver_id = ?",
                                                           (fw["driver_id"],)).fetchone()
                        ranked.append(((level, 2, rank, line, str(fw["version"])),
                                       self._firmware_entry(base, fw, fw_driver, firmware_version)))
                    for feat in self._conn.execute("SELECT * FROM feature WHERE listing_id = ? ORDER BY feature_id",
                                                   (listing["listing_id"],)).fetchall():
                        ranked.append(((level, 3, rank, line, str(feat["code"])),
                                       self._feature_entry(base, feat, drv, labels)))
            notes = self._notes(esxi_version, host_release, hidden_release, hidden_driver, driver, trust_rank)
        ranked.sort(key=lambda item: item[0])
        return [entry for _, entry in ranked] + notes

    def feature(self, vid: str | int | None, did: str | int | None, name: str, *, svid: str | int | None = None,
                ssid: str | int | None = None, driver: str | None = None,
                esxi_version: str | None = None) -> bool | None:
        """Whether the database states support of feature ``name`` for the device: True, False, or None
        (nothing stated, or unknown device).

        ``name`` is a feature code (``geneve_offload``, ``geneve_rx_filter``, ``vxlan_offload``, ``rss``,
        ``ens``, ``ens_interrupt``, ``ens_poll``, ``netqueue``, ``sriov``, ``rdma_rocev2``) or a guide
        spelling (``"Geneve-Offload"``, ``"Enhanced Datapath - Interrupt Mode"``). The most specific, then
        most trusted, statement wins; potential (subsystem-unconfirmed) matches are ignored.
        Raises ValueError for an unknown feature name.
        """
        code = self.feature_code(name)
        if code is None:
            raise ValueError(f"unknown feature {name!r}")
        for entry in self.match(vid, did, svid, ssid, driver=driver, esxi_version=esxi_version):
            if entry.kind == "feature" and entry.data["feature"] == code and entry.data["match"] != "potential":
                return bool(entry.data["supported"])
        return None

    # -- helpers ----------------------------------------------------------------------------------
    @staticmethod
    def _level(dev: sqlite3.Row, svid: str | None, ssid: str | None) -> int | None:
        """Index into MATCH_LEVELS, or None when the row's subsystem contradicts the host's."""
        potential = False
        for column, host in (("svid", svid), ("ssid", ssid)):
            listed = dev[column]
            if listed is None:
                continue
            if host is None:
                potential = True
            elif host != listed:
                return None
        if potential:
            return MATCH_LEVELS.index("potential")
        if dev["ssid"] is not None:
            return MATCH_LEVELS.index("exact")
        if dev["svid"] is not None:
            return MATCH_LEVELS.index("subsystem_vendor")
        if dev["did"] is not None:
            return MATCH_LEVELS.index("device")
        return MATCH_LEVELS.index("family")

    @staticmethod
    def _identity(dev: sqlite3.Row, level: int) -> dict[str, Any]:
        return {"match": MATCH_LEVELS[level], "vid": dev["vid"], "did": dev["did"], "svid": dev["svid"],
                "ssid": dev["ssid"], "vendor": dev["vendor"], "model": dev["model"]}

    def _device_entry(self, dev: sqlite3.Row, level: int) -> VcgEntry:
        first = self._conn.execute("SELECT origin, origin_line FROM listing WHERE device_id = ? "
                                   "ORDER BY origin, origin_line LIMIT 1", (dev["device_id"],)).fetchone()
        data = self._identity(dev, level)
        data.update(origin=first["origin"] if first else None, origin_line=first["origin_line"] if first else None,
                    releases=[], pcie_gen=dev["pcie_gen"], pcie_width=dev["pcie_width"],
                    port_speed_gbps=dev["port_speed_gbps"], ports=dev["ports"])
        physical = []
        if dev["pcie_gen"] or dev["pcie_width"]:
            physical.append("PCIe" + (f" Gen{dev['pcie_gen']}" if dev["pcie_gen"] else "")
                            + (f" x{dev['pcie_width']}" if dev["pcie_width"] else ""))
        if dev["port_speed_gbps"]:
            count = f"{dev['ports']} × " if dev["ports"] else ""
            physical.append(f"{count}{dev['port_speed_gbps']} Gbit/s port{'s' if dev['ports'] != 1 else ''}")
        elif dev["ports"]:
            physical.append(f"{dev['ports']} port{'s' if dev['ports'] != 1 else ''}")
        prefix = "Potential match (subsystem not known): " if MATCH_LEVELS[level] == "potential" else ""
        summary = (f"{prefix}{dev['vendor']} {dev['model']} ({_ids(dev['vid'], dev['did'], dev['svid'], dev['ssid'])})"
                   f" is in the compatibility database" + (f": {', '.join(physical)}." if physical else "."))
        return VcgEntry("device", summary, str(dev["source"]), str(dev["trust"]), data)

    def _base(self, dev: sqlite3.Row, level: int, listing: sqlite3.Row, releases: list[str]) -> dict[str, Any]:
        data = self._identity(dev, level)
        data.update(origin=listing["origin"], origin_line=listing["origin_line"], releases=releases,
                    _source=str(listing["source"]), _trust=str(listing["trust"]))
        return data

    @staticmethod
    def _split(base: dict[str, Any]) -> tuple[dict[str, Any], str, str]:
        data = {k: v for k, v in base.items() if not k.startswith("_")}
        return data, base["_source"], base["_trust"]

    @staticmethod
    def _scope(data: dict[str, Any]) -> str:
        where = f" on {_join(data['releases'])}" if data["releases"] else ""
        prefix = "potentially (subsystem not known) " if data["match"] == "potential" else ""
        return f"{prefix}for {data['vendor']} {data['model']}{where}"

    def _driver_entry(self, base: dict[str, Any], drv: sqlite3.Row, host_version: str | None) -> VcgEntry:
        data, source, trust = self._split(base)
        meets = version_at_least(host_version, drv["version_min"]) if host_version and drv["version_min"] else None
        data.update(driver=drv["name"] or None, driver_as_listed=drv["name_as_listed"] or None,
                    module=drv["module"] or None, version_min=drv["version_min"], module_param=drv["module_param"],
                    max_rx_queues=drv["max_rx_queues"], host_driver_version=host_version, meets_minimum=meets)
        if drv["name_as_listed"]:
            text = f"Driver {drv['name_as_listed']}"
            if drv["version_min"]:
                text += f" {drv['version_min']} or later"
            text += f" is named {self._scope(data)}"
        else:
            text = f"The driver (not named) {self._scope(data)}"
            if drv["version_min"]:
                text += f" needs version {drv['version_min']} or later"
        extras = []
        if drv["module_param"]:
            extras.append(f"module parameters {drv['module_param']}")
        if drv["max_rx_queues"] is not None:
            extras.append(f"at most {drv['max_rx_queues']} Rx queues per port")
        if meets is True:
            extras.append(f"the host's version {host_version} meets this minimum")
        elif meets is False:
            extras.append(f"the host's version {host_version} is below this minimum")
        if extras:
            text += "; " + "; ".join(extras)
        return VcgEntry("driver", text + ".", source, trust, data)

    def _firmware_entry(self, base: dict[str, Any], fw: sqlite3.Row, drv: sqlite3.Row | None,
                        host_firmware: str | None) -> VcgEntry:
        data, source, trust = self._split(base)
        source, trust = str(fw["source"]), str(fw["trust"])
        matches = firmware_matches(host_firmware, fw["version"]) if host_firmware else None
        data.update(firmware_version=fw["version"], additional_firmware_version=fw["additional_version"],
                    driver=(drv["name"] or None) if drv is not None else None, host_firmware_version=host_firmware,
                    firmware_matches=matches)
        text = f"Firmware {fw['version']}"
        if fw["additional_version"]:
            text += f" (additional {fw['additional_version']})"
        if drv is not None and drv["name_as_listed"]:
            text += f" is listed with driver {drv['name_as_listed']}" + (
                f" {drv['version_min']}" if drv["version_min"] else "")
        else:
            text += " is listed"
        text += f" {self._scope(data)}"
        if matches is True:
            text += f"; the host's firmware {host_firmware} matches it"
        elif matches is False:
            text += f"; the host's firmware {host_firmware} differs"
        return VcgEntry("firmware", text + ".", source, trust, data)

    def _feature_entry(self, base: dict[str, Any], feat: sqlite3.Row, drv: sqlite3.Row | None,
                       labels: dict[str, str]) -> VcgEntry:
        data, source, trust = self._split(base)
        source, trust = str(feat["source"]), str(feat["trust"])
        supported = bool(feat["supported"])
        data.update(feature=feat["code"], supported=supported, derived_from=feat["derived_from"],
                    driver=(drv["name"] or None) if drv is not None else None)
        label = labels.get(str(feat["code"]), str(feat["code"]))
        text = f"{label} is stated as {'supported' if supported else 'not supported'} {self._scope(data)}"
        if drv is not None and drv["name_as_listed"]:
            text += f" with driver {drv['name_as_listed']}"
        if feat["derived_from"]:
            text += f" (inferred: {feat['derived_from']})"
        return VcgEntry("feature", text + ".", source, trust, data)

    def _notes(self, esxi_version: str | None, host_release: tuple[int, int, int | None] | None,
               hidden_release: list[sqlite3.Row], hidden_driver: list[tuple[sqlite3.Row, str]],
               driver: str | None, trust_rank: dict[str, int]) -> list[VcgEntry]:
        notes: list[VcgEntry] = []

        def note(reason: str, summary: str, listings: list[sqlite3.Row]) -> VcgEntry:
            lines = [int(x["origin_line"] or 0) for x in listings]
            origins = sorted({str(x["origin"]) for x in listings}) or [_seed.SEED_ORIGIN]
            trusts = [str(x["trust"]) for x in listings] or ["unverified"]
            best = max(trusts, key=lambda t: trust_rank.get(t, 0))
            source = f"{', '.join(origins)} line{'s' if len(lines) != 1 else ''} {', '.join(map(str, lines))}" \
                if lines else f"{origins[0]}"
            return VcgEntry("note", summary, source, best, {"reason": reason, "origin_lines": lines})

        if esxi_version and host_release is None:
            notes.append(note("esxi_version_unreadable",
                              f"ESXi version {esxi_version!r} was not understood, so facts for every release are "
                              f"shown.", []))
        if hidden_release:
            labels: list[str] = []
            for listing in hidden_release:
                for r in self._conn.execute(
                        "SELECT r.label FROM listing_release lr JOIN release r USING (release_id) "
                        "WHERE lr.listing_id = ? ORDER BY r.major, ifnull(r.minor, -1), r.update_level",
                        (listing["listing_id"],)):
                    if r["label"] not in labels:
                        labels.append(str(r["label"]))
            head, verb = _hidden_phrase(len(hidden_release))
            notes.append(note("other_release", f"{head} other releases ({_join(labels)}) and {verb} not shown for "
                                               f"ESXi version {esxi_version}.", hidden_release))
        if hidden_driver:
            names = list(dict.fromkeys(name for _, name in hidden_driver))
            head, verb = _hidden_phrase(len(hidden_driver))
            notes.append(note("other_driver", f"{head} other drivers ({_join(names)}) and {verb} not shown for "
                                              f"driver {driver}.", [x for x, _ in hidden_driver]))
        return notes


def vcg_notes(entries: Iterable[VcgEntry]) -> list[str]:
    """Report lines for ``entries``: each summary with its trust label and source, duplicates removed,
    order kept (``"<summary> [vendor documentation; source: <citation>]"``; notes without a citation
    keep only the summary). When any entry is not compatibility-guide data, a closing line says that
    these are document statements, not Broadcom Compatibility Guide certifications. Pure function.
    """
    lines: list[str] = []
    seen: set[str] = set()
    uncertified = False
    for entry in entries:
        if entry.kind == "note":
            line = entry.summary
        else:
            label = TRUST_LABELS.get(entry.trust, entry.trust)
            line = f"{entry.summary} [{label}; source: {entry.source}]"
            uncertified = uncertified or entry.trust != "vcg"
        if line not in seen:
            seen.add(line)
            lines.append(line)
    if uncertified:
        lines.append("Statements from vendor documentation or community sources are not Broadcom Compatibility "
                     "Guide certifications: check the guide for the exact device, driver and firmware.")
    return lines


def open_database(path: str | os.PathLike[str] | None = None, *, in_memory: bool = False,
                  csv_path: str | os.PathLike[str] | None = None) -> VcgDatabase:
    """Open the compatibility database, building or refreshing it from the shipped CSV when needed.

    ``path`` None: the default cache file (:func:`nicadvisor.vcg.db.default_database_path`, under
    ``platformdirs.user_cache_dir("nic-advisor")``). ``in_memory`` (or ``path=":memory:"``): a private
    in-memory database, built now. The seed runs only when the file is new or its recorded seed sha256
    differs from the CSV's (a few milliseconds). ``csv_path`` overrides the seed file (tests).
    Raises VcgSchemaError (newer or foreign database), VcgDataError (bad seed), OSError, sqlite3.Error.
    """
    memory = in_memory or (path is not None and os.fspath(path) == ":memory:")
    target: Path | None = None if memory else (Path(path) if path is not None else _db.default_database_path())
    conn = _db.connect(":memory:" if target is None else target)
    try:
        _db.migrate(conn, target)
        _seed.ensure_seeded(conn, Path(csv_path) if csv_path is not None else None)
    except BaseException:
        conn.close()
        raise
    return VcgDatabase(conn, target)
