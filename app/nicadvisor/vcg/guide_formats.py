"""Readers for the compatibility-guide files an admin can import, and the writers of our exchange format.

:func:`read_guide_file` reads one file, detects its format from the content (never from the name) and
returns a :class:`GuideFile`: one :class:`GuideListing` per device × release × driver version, plus warnings
for every entry it had to skip (each naming the JSON path or CSV line). A file that cannot be read as any of
the formats raises :class:`GuideFormatError` naming the file.

Formats (``GuideFile.format``) and where their layout was learned (public code; vcg-data.md §2)
    ``vsan-hcl``       the vSAN HCL ``all.json`` VMware/Broadcom publish for offline use (Broadcom KB 315556;
                       ``https://vvs.broadcom.com/service/vsan/all.json``): top level ``timestamp``,
                       ``jsonUpdatedTime``, ``data.{controller, ssd, hdd, nic}``; a NIC entry has ``id, vid, did,
                       svid, ssid, vcglink, releases``; ``releases["ESXi 8.0 U2"]`` holds ``vsanSupport`` /
                       ``deviceSupport`` and one key per driver: ``<driver>.<version>.{type, firmwares:
                       [{firmware, vsanSupport}]}`` (lamw/vmware-scripts
                       ``powershell/create_custom_vsan_esa_hcl_json.ps1``; the Go checker ``evaluateVsanPCI`` quoted
                       in vcg-data.md §2.3 reads ``data.nic``/``data.controller`` the same way). Only ``data.nic``
                       is read. Also accepted: the trimmed snapshot ``vmware/vcfcheck``
                       ``Data/VsanHcl/VsanHclCompatibility.json`` — a top-level list of ``{id, vid, did, ssid, svid,
                       rel: {"8.0 U3": {vs: [...], drv: {<driver>: {<version>: {fws: [{fw, vs}]}}}}}}``; it mixes
                       storage controllers and RDMA NICs and names no vendor, model or link.
                       Features = the ``vsanSupport``/``vs`` strings of the listed firmwares ("RoCE v2", "vSAN ESA").
    ``bcg-results``    a saved answer of the Broadcom Compatibility Guide search
                       ``POST compatibilityguide.broadcom.com/compguide/programs/viewResults`` (program ``io``):
                       ``data.fieldValues[]`` with ``uuid, brandName, model.name, deviceType,
                       supportedReleases[].name`` (lamw/vmware-scripts
                       ``powershell/broadcom-compatibility-guide-api.ps1``).
                       One listing per supported release, without driver. PCI IDs are taken from the item's
                       ``vid``/``did``/``svid``/``ssid`` keys (the names of the search filters; *not* seen in a saved
                       answer — unverified) or, failing that, from a saved request body kept in the file
                       (``filters[]`` or ``request.filters[]`` with ``displayKey`` vid/did/svid/ssid/maxSsid and
                       ``filterValues``, the body the public scripts send).
    ``bcg-details``    a saved answer of
                       ``POST .../compguide/programs/viewDetails?programId=io&id=<uuid>&filterBy=<release>``:
                       ``data.details.subsections[].fieldValues[]`` with ``driverName, driverVersion,
                       firmwareVersion, additionalFirmwareVersion`` (a public "ESXi Upgrade Compatibility Tool"
                       PowerShell script, vcg-data.md §2.1). The JSON key of the I/O "Features" list was not found in
                       public code; ``features`` is read when present (unverified). The release is read from a
                       row's ``productReleaseVersion``/``release`` key or the file's ``filterBy`` (unverified keys).
                       Such an answer usually names no PCI IDs: pass the viewResults answer it came from as
                       ``companion``; without IDs and without a usable companion :class:`GuideFormatError` is raised.
    ``vcg-api``        a saved answer of the retired VMware API gateway
                       ``GET apigw.vmware.com/m4/compatibility/v1/compatible/iodevices/search?vid=..&did=..``:
                       ``matches[]`` / ``potentialMatches[]`` each with ``vcgLink`` and ``features`` (a list, or an
                       object of records) of ``{driverVersion, firmwareVersion, ...}``; ``searchResult.{status,
                       matchResult, warnings}``; ``searchOption.foundRelease`` (vmware/PowerCLI-Example-Scripts
                       ``Modules/VMware.VCGChecker/Get-VCGStatus.ps1``; a public HW-report script, vcg-data.md §2.2).
                       The driver name (``driverName``/``driver``), the IDs (``vid``/``did``/``svid``/``ssid`` on the
                       match, or for ``matches`` on ``searchOption``) and vendor/model keys are unverified guesses;
                       an entry without readable IDs is skipped with a warning.
    ``exchange-json``  / ``exchange-csv``: our own format, written by ``nic-advisor vcg export``
                       (:func:`write_exchange_json`, :func:`write_exchange_csv`), described below.

Exchange format, JSON (UTF-8)::

    {"format": "nic-advisor-vcg-exchange", "format_version": 1,
     "generated_at": "2025-01-31T12:00:00Z",          # ISO 8601 UTC; becomes GuideFile.data_date
     "source_note": "free text: where the listings came from",
     "listings": [{"vid": "14e4", "did": "16d7", "svid": "1028", "ssid": "0bdd",   # 4 lower-case hex or null
                   "vendor": "...", "model": "...",                                  # strings ("" = unknown)
                   "release": "ESX 9.0",                                             # or null
                   "driver": "bnxtroce", "driver_version": "238.1.122.0-1OEM.900",  # or null
                   "driver_type": "inbox" | "async" | null,
                   "firmware": ["38.11.38.06"],                                      # list of strings
                   "features": ["RoCE v2"],                                          # list of strings
                   "link": "https://..." | null}]}

    A reader refuses another ``format`` or a ``format_version`` other than 1; a listing that does not fit
    the shape above is skipped with a warning naming ``listings[i]``.

Exchange format, CSV (UTF-8, RFC 4180 quoting)::

    # format: nic-advisor-vcg-exchange 1            <- optional comment lines, only before the header
    # generated_at: 2025-01-31T12:00:00Z            <- becomes GuideFile.data_date
    vid,did,svid,ssid,vendor,model,release,driver,driver_version,driver_type,firmware,features,link
    14e4,16d7,1028,0bdd,,,ESX 9.0,bnxtroce,238.1.122.0-1OEM.900,,38.11.38.06,RoCE v2;vSAN;vSAN ESA,

    The header must name every column of :data:`EXCHANGE_CSV_COLUMNS` (any order; other columns are
    ignored). An empty cell is null (``vendor``/``model``: ""). ``firmware`` and ``features`` are lists joined
    with ``;`` — a value containing ``;`` cannot be written. A row that does not fit is skipped with a warning
    naming its file line.

Common rules: PCI IDs are normalised to 4 lower-case hex digits (``0x8086`` → ``8086``); IDs given as JSON
numbers are refused (their base is ambiguous). A missing or empty ``svid``/``ssid`` means "any". Releases are
normalised with :func:`normalise_release` ("8.0 U3" → "ESXi 8.0 U3", "9.0" → "ESX 9.0"); a label that does not
parse is kept as written. Driver names and versions, firmware and feature names are kept exactly as written
(features are de-duplicated and sorted for the guide formats). Files larger than ``max_bytes`` are refused before
they are read.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from nicadvisor.parsers.base import hex4
from nicadvisor.vcg.normalize import parse_release, release_label

__all__ = [
    "EXCHANGE_CSV_COLUMNS", "EXCHANGE_FORMAT", "EXCHANGE_FORMAT_VERSION", "FORMATS", "GuideFile",
    "GuideFormatError", "GuideListing", "detect_format", "normalise_release", "read_guide_file",
    "write_exchange_csv", "write_exchange_json",
]

FORMATS = ("vsan-hcl", "bcg-results", "bcg-details", "vcg-api", "exchange-json", "exchange-csv")
EXCHANGE_FORMAT = "nic-advisor-vcg-exchange"
EXCHANGE_FORMAT_VERSION = 1
EXCHANGE_CSV_COLUMNS: tuple[str, ...] = (
    "vid", "did", "svid", "ssid", "vendor", "model", "release", "driver", "driver_version", "driver_type",
    "firmware", "features", "link",
)
DEFAULT_MAX_BYTES = 256 * 2**20
MAX_WARNINGS = 500
_LIST_SEP = ";"
_HEX4 = frozenset("0123456789abcdef")
# all.json keys under a release that are not driver names (lamw script; Go checker evaluateVsanPCI).
_VSAN_RELEASE_META = ("vsanSupport", "deviceSupport")
_NO_FIRMWARE = ("", "N/A", "NA", "-")


class GuideFormatError(ValueError):
    """A file that cannot be read as any compatibility-guide format; the message names the file and,
    where known, the JSON path or CSV line."""


@dataclass(frozen=True)
class GuideListing:
    """One device × release × driver version as a compatibility guide lists it.

    ``vid``/``did`` are 4 lower-case hex digits; ``svid``/``ssid`` too, or None for "any subsystem".
    ``release`` is normalised (:func:`normalise_release`) or None when the entry names none; ``driver`` is the
    module name as listed; ``driver_type`` is "inbox", "async" or None; ``firmware`` the firmware versions listed
    with that driver version (empty = no firmware constraint given); ``features`` the feature names exactly as
    the guide spells them; ``link`` the guide's web link when the file gives one. Raises ValueError for an ID
    that is not 4 lower-case hex digits or a ``driver_type`` outside inbox/async/None.
    """

    vid: str
    did: str
    svid: str | None
    ssid: str | None
    vendor: str
    model: str
    release: str | None
    driver: str | None
    driver_version: str | None
    driver_type: str | None
    firmware: tuple[str, ...]
    features: tuple[str, ...]
    link: str | None

    def __post_init__(self) -> None:
        for name in ("vid", "did", "svid", "ssid"):
            value = getattr(self, name)
            if value is None and name in ("svid", "ssid"):
                continue
            if not isinstance(value, str) or len(value) != 4 or not set(value) <= _HEX4:
                raise ValueError(f"GuideListing.{name} must be 4 lower-case hex digits, not {value!r}")
        if self.driver_type not in (None, "inbox", "async"):
            raise ValueError(f"GuideListing.driver_type must be 'inbox', 'async' or None, not {self.driver_type!r}")
        if not isinstance(self.firmware, tuple) or not isinstance(self.features, tuple):
            raise ValueError("GuideListing.firmware and .features must be tuples of strings")


@dataclass(frozen=True)
class GuideFile:
    """One imported file: ``path`` as given, ``format`` (one of :data:`FORMATS`), ``sha256`` of its bytes (hex),
    ``data_date`` the time the data says it was produced (UTC, None when the file states none), ``listings``
    and ``warnings`` (skipped entries with their JSON path or CSV line, at most :data:`MAX_WARNINGS` + 1)."""

    path: str
    format: str
    sha256: str
    data_date: datetime | None
    listings: tuple[GuideListing, ...]
    warnings: tuple[str, ...]


class _Skip(Exception):
    """An entry that cannot be used; the message becomes a warning."""


class _Ctx:
    """Warnings collected while reading one file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.warnings: list[str] = []
        self._dropped = 0

    def warn(self, where: str, message: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(f"{where}: {message}")
        else:
            self._dropped += 1

    def error(self, message: str) -> GuideFormatError:
        return GuideFormatError(f"{self.path}: {message}")

    def final_warnings(self) -> tuple[str, ...]:
        extra = [f"... {self._dropped} more warnings not shown"] if self._dropped else []
        return tuple(self.warnings + extra)


# --------------------------------------------------------------------------------------------- helpers


def normalise_release(text: Any) -> str | None:
    """A release label in :func:`nicadvisor.vcg.normalize.release_label` form.

    ``"8.0 U3"``, ``"ESXi 8.0 U3"``, ``"ESXi 8.0 Update 3"`` → ``"ESXi 8.0 U3"``; ``"7.0"`` → ``"ESXi 7.0"``;
    ``"9.0"`` / ``"ESX 9.0"`` → ``"ESX 9.0"``. Text that does not parse is returned stripped; empty text and
    non-strings give None.
    """
    if not isinstance(text, str) or not text.strip():
        return None
    parsed = parse_release(text.strip())
    return release_label(*parsed) if parsed else text.strip()


def _text(value: Any) -> str | None:
    """A non-empty stripped string, or None (non-strings other than int/float are None)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value or None


def _id(value: Any, name: str, required: bool) -> str | None:
    """A PCI ID from JSON/CSV text; raises _Skip for an unreadable one (or a missing required one)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise _Skip(f"no {name}")
        return None
    if not isinstance(value, str):
        raise _Skip(f"unreadable {name} {value!r} (PCI IDs must be hex text)")
    out = hex4(value)
    if out is None:
        raise _Skip(f"unreadable {name} {value!r}")
    return out


def _ids(obj: dict, *, required: bool = True) -> tuple[str, str, str | None, str | None] | None:
    """(vid, did, svid, ssid) from an object's ``vid``/``did``/``svid``/``ssid`` keys.

    None when the object has neither vid nor did and ``required`` is False; raises _Skip when IDs are present
    but unreadable, or missing and required.
    """
    if not required and obj.get("vid") in (None, "") and obj.get("did") in (None, ""):
        return None
    return (_id(obj.get("vid"), "vid", True), _id(obj.get("did"), "did", True),
            _id(obj.get("svid"), "svid", False), _id(obj.get("ssid"), "ssid", False))


def _driver_type(value: Any) -> str | None:
    """``"inbox"``/``"VMware Inbox"`` → "inbox", ``"async"``/``"VMware Async"`` → "async", else None."""
    text = (_text(value) or "").lower()
    if "inbox" in text:
        return "inbox"
    if "async" in text:
        return "async"
    return None


def _strings(value: Any) -> list[str]:
    """Strings of a JSON value: a string, a list of strings, or an object whose values are such (flattened)."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [item.strip() for item in value if isinstance(item, str) and item.strip()]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def _features(values: Iterable[str]) -> tuple[str, ...]:
    """Unique feature names, spelling kept, sorted case-insensitively (stable across files)."""
    return tuple(sorted(set(values), key=lambda s: (s.casefold(), s)))


def _firmware(values: Iterable[Any]) -> tuple[str, ...]:
    """Firmware versions in listed order, de-duplicated; "N/A"/empty (= no constraint) dropped."""
    out: list[str] = []
    for value in values:
        text = _text(value)
        if text and text.upper() not in _NO_FIRMWARE and text not in out:
            out.append(text)
    return tuple(out)


def _parse_date(value: Any) -> datetime | None:
    """A data date: epoch seconds or milliseconds (number or digit string), or ISO 8601 text
    (``2024-11-24 12:00:00``, ``2025-01-31T12:00:00Z``); naive times are taken as UTC. None if unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    return None


def _listing(ids: tuple[str, str, str | None, str | None], **fields: Any) -> GuideListing:
    vid, did, svid, ssid = ids
    return GuideListing(vid=vid, did=did, svid=svid, ssid=ssid, vendor=fields.get("vendor") or "",
                        model=fields.get("model") or "", release=fields.get("release"),
                        driver=fields.get("driver"), driver_version=fields.get("driver_version"),
                        driver_type=fields.get("driver_type"), firmware=fields.get("firmware", ()),
                        features=fields.get("features", ()), link=fields.get("link"))


# --------------------------------------------------------------------------------------------- detection


def detect_format(doc: Any) -> str | None:
    """The format of a parsed JSON document (one of :data:`FORMATS` except ``exchange-csv``), or None."""
    if isinstance(doc, list):
        # one well-formed entry among the first 50 is enough: malformed ones become warnings later
        if any(isinstance(e, dict) and "rel" in e and "vid" in e for e in doc[:50]):
            return "vsan-hcl"
        return None
    if not isinstance(doc, dict):
        return None
    if doc.get("format") == EXCHANGE_FORMAT:
        return "exchange-json"
    data = doc.get("data")
    if isinstance(data, dict):
        if isinstance(data.get("fieldValues"), list):
            return "bcg-results"
        if isinstance(data.get("details"), dict):
            return "bcg-details"
        if any(isinstance(data.get(k), list) for k in ("nic", "controller", "ssd", "hdd")):
            return "vsan-hcl"
    if any(k in doc for k in ("matches", "potentialMatches")) or isinstance(doc.get("searchResult"), dict):
        return "vcg-api"
    return None


# --------------------------------------------------------------------------------------------- vsan-hcl


def _vsan_entry(entry: Any, where: str, ctx: _Ctx, out: list[GuideListing]) -> None:
    if not isinstance(entry, dict):
        raise _Skip("not an object")
    ids = _ids(entry)
    vendor = _text(entry.get("vendor")) or _text(entry.get("partnername")) or ""
    model_value = entry.get("model")
    model = _text(model_value.get("name")) if isinstance(model_value, dict) else _text(model_value)
    link = _text(entry.get("vcglink")) or _text(entry.get("vcgLink"))
    snapshot = "rel" in entry and "releases" not in entry     # the vcfcheck trimmed layout
    releases = entry.get("rel") if snapshot else entry.get("releases")
    if not isinstance(releases, dict):
        raise _Skip(f"no releases object ({'rel' if snapshot else 'releases'})")
    common = {"vendor": vendor, "model": model or "", "link": link}
    for rel_key, rel_data in releases.items():
        rwhere = f"{where}.{'rel' if snapshot else 'releases'}[{rel_key!r}]"
        release = normalise_release(rel_key)
        if not isinstance(rel_data, dict):
            ctx.warn(rwhere, "release entry is not an object; skipped")
            continue
        if snapshot:
            drivers = rel_data.get("drv") or {}
            rel_features = _strings(rel_data.get("vs"))
        else:
            drivers = {k: v for k, v in rel_data.items() if k not in _VSAN_RELEASE_META}
            rel_features = _strings(rel_data.get("vsanSupport"))
        if not isinstance(drivers, dict):
            ctx.warn(rwhere, "driver list is not an object; skipped")
            continue
        if not drivers:
            out.append(_listing(ids, release=release, features=_features(rel_features), **common))
            continue
        for driver, versions in drivers.items():
            dwhere = f"{rwhere}{'.drv' if snapshot else ''}[{driver!r}]"
            if not isinstance(versions, dict) or not _text(driver):
                ctx.warn(dwhere, "driver entry is not an object of versions; skipped")
                continue
            for version, info in versions.items():
                vwhere = f"{dwhere}[{version!r}]"
                if not isinstance(info, dict):
                    ctx.warn(vwhere, "driver version entry is not an object; skipped")
                    continue
                fws = info.get("fws" if snapshot else "firmwares") or []
                if not isinstance(fws, list):
                    ctx.warn(vwhere, "firmware list is not a list; skipped")
                    continue
                firmware: list[Any] = []
                feats: list[str] = []
                for k, fw in enumerate(fws):
                    if not isinstance(fw, dict):
                        ctx.warn(f"{vwhere}.{'fws' if snapshot else 'firmwares'}[{k}]", "not an object; skipped")
                        continue
                    firmware.append(fw.get("fw" if snapshot else "firmware"))
                    feats += _strings(fw.get("vs" if snapshot else "vsanSupport"))
                out.append(_listing(ids, release=release, driver=_text(driver), driver_version=_text(version),
                                    driver_type=_driver_type(info.get("type")), firmware=_firmware(firmware),
                                    features=_features(feats or rel_features), **common))


def _read_vsan_hcl(doc: Any, ctx: _Ctx) -> tuple[datetime | None, list[GuideListing]]:
    out: list[GuideListing] = []
    date = None
    if isinstance(doc, list):
        entries, prefix = doc, ""
    else:
        for key in ("timestamp", "jsonUpdatedTime"):
            if doc.get(key) not in (None, ""):
                date = _parse_date(doc.get(key))
                if date is not None:
                    break
                ctx.warn(key, f"unreadable date {doc.get(key)!r}")
        entries = doc["data"].get("nic")
        prefix = "data.nic"
        if entries is None:
            ctx.warn("data", "no data.nic list (only NIC entries are read)")
            entries = []
        elif not isinstance(entries, list):
            raise ctx.error("data.nic is not a list")
    for i, entry in enumerate(entries):
        where = f"{prefix}[{i}]"
        try:
            _vsan_entry(entry, where, ctx, out)
        except _Skip as exc:
            ctx.warn(where, f"{exc}; entry skipped")
    return date, out


# --------------------------------------------------------------------------------------------- BCG


def _request_ids(doc: dict) -> tuple[str, str, str | None, str | None] | None:
    """IDs from a saved viewResults request body (``filters`` or ``request.filters``), or None."""
    request = doc.get("request") if isinstance(doc.get("request"), dict) else doc
    filters = request.get("filters")
    if not isinstance(filters, list):
        return None
    found: dict[str, Any] = {}
    for f in filters:
        if isinstance(f, dict) and isinstance(f.get("filterValues"), list) and len(f["filterValues"]) == 1:
            key = {"maxSsid": "ssid"}.get(f.get("displayKey"), f.get("displayKey"))
            if key in ("vid", "did", "svid", "ssid"):
                found[key] = f["filterValues"][0]
    try:
        return _ids(found, required=False)
    except _Skip:
        return None


@dataclass
class _BcgDevice:
    uuid: str | None
    ids: tuple[str, str, str | None, str | None] | None
    vendor: str
    model: str


def _bcg_device(item: dict, fallback_ids: Any) -> _BcgDevice:
    model_value = item.get("model")
    model = _text(model_value.get("name")) if isinstance(model_value, dict) else _text(model_value)
    ids = _ids(item, required=False) or fallback_ids
    return _BcgDevice(uuid=_text(item.get("uuid")), ids=ids, vendor=_text(item.get("brandName"))
                      or _text(item.get("partnerName")) or "", model=model or "")


def _read_bcg_results(doc: dict, ctx: _Ctx) -> tuple[datetime | None, list[GuideListing]]:
    out: list[GuideListing] = []
    request_ids = _request_ids(doc)
    for i, item in enumerate(doc["data"]["fieldValues"]):
        where = f"data.fieldValues[{i}]"
        try:
            if not isinstance(item, dict):
                raise _Skip("not an object")
            device = _bcg_device(item, request_ids)
            if device.ids is None:
                raise _Skip("no PCI IDs (vid/did on the item or in a saved request's filters)")
            releases = item.get("supportedReleases") or []
            names = [normalise_release(r.get("name") if isinstance(r, dict) else r)
                     for r in (releases if isinstance(releases, list) else [])]
            names = [n for n in names if n] or [None]
            feats = _features(_strings(item.get("features")))
            link = _text(item.get("link")) or _text(item.get("vcgLink"))
            for name in dict.fromkeys(names):
                out.append(_listing(device.ids, vendor=device.vendor, model=device.model, release=name,
                                    features=feats, link=link))
        except _Skip as exc:
            ctx.warn(where, f"{exc}; entry skipped")
    return None, out


def _companion_device(details: dict, companion: str | os.PathLike[str], max_bytes: int,
                      ctx: _Ctx) -> _BcgDevice:
    """The device a viewDetails answer belongs to, from the viewResults answer it came from."""
    cpath = str(companion)
    raw = _read_bounded(Path(companion), max_bytes)
    try:
        cdoc = json.loads(_decode(raw, cpath))
    except json.JSONDecodeError as exc:
        raise GuideFormatError(f"{cpath}: companion is not valid JSON (line {exc.lineno} column {exc.colno}: "
                               f"{exc.msg})") from exc
    if detect_format(cdoc) != "bcg-results":
        raise ctx.error(f"companion {cpath} is not a viewResults (bcg-results) answer")
    request_ids = _request_ids(cdoc)
    devices = [_bcg_device(item, request_ids) for item in cdoc["data"]["fieldValues"] if isinstance(item, dict)]
    devices = [d for d in devices if d.ids is not None]
    wanted = next((_text(details.get(k)) for k in ("uuid", "id", "productId") if _text(details.get(k))), None)
    if wanted:
        chosen = [d for d in devices if d.uuid == wanted]
        if chosen:
            return chosen[0]
    if len({d.ids for d in devices}) == 1:
        return devices[0]
    raise ctx.error(f"names no PCI IDs and the companion {cpath} lists {len(devices)} devices with PCI IDs"
                    + (f", none with uuid {wanted!r}" if wanted else " and the details name no product uuid")
                    + "; cannot tell which device the details belong to")


def _read_bcg_details(doc: dict, ctx: _Ctx, companion: Any, max_bytes: int) -> tuple[None, list[GuideListing]]:
    data = doc["data"]
    details = data["details"]
    subsections = details.get("subsections")
    if not isinstance(subsections, list):
        raise ctx.error("data.details.subsections is missing or not a list")
    rows: list[tuple[str, dict]] = []
    for j, sub in enumerate(subsections):
        if not isinstance(sub, dict) or not isinstance(sub.get("fieldValues", []), list):
            ctx.warn(f"data.details.subsections[{j}]", "not an object with a fieldValues list; skipped")
            continue
        for k, row in enumerate(sub.get("fieldValues", [])):
            where = f"data.details.subsections[{j}].fieldValues[{k}]"
            if not isinstance(row, dict):
                ctx.warn(where, "not an object; skipped")
            elif not any(_text(row.get(key)) for key in ("driverName", "driverVersion", "firmwareVersion")):
                ctx.warn(where, "no driverName, driverVersion or firmwareVersion; skipped")
            else:
                rows.append((where, row))
    try:
        own_ids = _ids(details, required=False)
    except _Skip as exc:
        raise ctx.error(f"data.details: {exc}") from exc
    device: _BcgDevice | None = None
    if own_ids is not None:
        device = _bcg_device(details, own_ids)
    elif not any(_text(row.get("vid")) for _, row in rows):
        if companion is None:
            raise ctx.error("this viewDetails answer names no PCI IDs (no vid/did at data.details or in "
                            "data.details.subsections[].fieldValues[]); import it together with the viewResults "
                            "answer it came from (companion file)")
        device = _companion_device(details, companion, max_bytes, ctx)
    file_release = normalise_release(doc.get("filterBy") or details.get("filterBy"))
    out: list[GuideListing] = []
    for where, row in rows:
        try:
            if device is None:
                row_device = _bcg_device(row, None)
                if row_device.ids is None:
                    raise _Skip("no PCI IDs")
            else:
                row_device = device
            release = normalise_release(row.get("productReleaseVersion") or row.get("release")) or file_release
            out.append(_listing(row_device.ids, vendor=row_device.vendor, model=row_device.model, release=release,
                                driver=_text(row.get("driverName")), driver_version=_text(row.get("driverVersion")),
                                driver_type=_driver_type(row.get("driverType")),
                                firmware=_firmware([row.get("firmwareVersion"), row.get("additionalFirmwareVersion")]),
                                features=_features(_strings(row.get("features"))),
                                link=_text(row.get("link"))))
        except _Skip as exc:
            ctx.warn(where, f"{exc}; entry skipped")
    return None, out


# --------------------------------------------------------------------------------------------- old VCG API


def _read_vcg_api(doc: dict, ctx: _Ctx) -> tuple[None, list[GuideListing]]:
    option = doc.get("searchOption") if isinstance(doc.get("searchOption"), dict) else {}
    try:
        option_ids = _ids(option, required=False)
    except _Skip as exc:
        ctx.warn("searchOption", f"{exc}; not used")
        option_ids = None
    default_release = normalise_release(option.get("foundRelease") or option.get("releaseversion"))
    out: list[GuideListing] = []
    for key in ("matches", "potentialMatches"):
        entries = doc.get(key) or []
        if not isinstance(entries, list):
            ctx.warn(key, "not a list; skipped")
            continue
        for i, match in enumerate(entries):
            where = f"{key}[{i}]"
            try:
                if not isinstance(match, dict):
                    raise _Skip("not an object")
                # A potential match need not have the searched subsystem: only its own IDs are trusted.
                ids = _ids(match, required=False) or (option_ids if key == "matches" else None)
                if ids is None:
                    raise _Skip("no PCI IDs (vid/did on the entry" + (" or searchOption)" if key == "matches" else ")"))
                common = {"vendor": _text(match.get("vendor")) or _text(match.get("brandName")) or "",
                          "model": _text(match.get("model")) or "",
                          "link": _text(match.get("vcgLink"))}
                records = match.get("features") or []
                if isinstance(records, dict):
                    records = list(records.values())
                if not isinstance(records, list):
                    raise _Skip("features is neither a list nor an object")
                release = normalise_release(match.get("releaseVersion")) or default_release
                if not records:
                    out.append(_listing(ids, release=release, **common))
                for k, rec in enumerate(records):
                    if not isinstance(rec, dict):
                        ctx.warn(f"{where}.features[{k}]", "not an object; skipped")
                        continue
                    out.append(_listing(ids, release=normalise_release(rec.get("releaseVersion")) or release,
                                        driver=_text(rec.get("driverName")) or _text(rec.get("driver")),
                                        driver_version=_text(rec.get("driverVersion")),
                                        driver_type=_driver_type(rec.get("driverType")),
                                        firmware=_firmware([rec.get("firmwareVersion")]),
                                        features=_features(_strings(rec.get("featureNames"))), **common))
            except _Skip as exc:
                ctx.warn(where, f"{exc}; entry skipped")
    return None, out


# --------------------------------------------------------------------------------------------- exchange


def _exchange_record(rec: dict) -> GuideListing:
    """A GuideListing from an exchange-format record (JSON object or CSV row as dict of lists/strings)."""
    ids = _ids(rec)
    for name in ("vendor", "model"):
        if rec.get(name) is not None and not isinstance(rec.get(name), str):
            raise _Skip(f"{name} is not a string")
    strs: dict[str, str | None] = {}
    for name in ("release", "driver", "driver_version", "link"):
        value = rec.get(name)
        if value is not None and not isinstance(value, str):
            raise _Skip(f"{name} is not a string")
        strs[name] = value.strip() or None if isinstance(value, str) else None
    driver_type = rec.get("driver_type")
    driver_type = driver_type.strip() or None if isinstance(driver_type, str) else driver_type
    if driver_type not in (None, "inbox", "async"):
        raise _Skip(f"driver_type {driver_type!r} is not inbox, async or empty")
    lists: dict[str, tuple[str, ...]] = {}
    for name in ("firmware", "features"):
        value = rec.get(name) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Skip(f"{name} is not a list of strings")
        lists[name] = tuple(v.strip() for v in value if v.strip())
    return _listing(ids, vendor=(rec.get("vendor") or "").strip(), model=(rec.get("model") or "").strip(),
                    release=normalise_release(strs["release"]), driver=strs["driver"],
                    driver_version=strs["driver_version"], driver_type=driver_type,
                    firmware=lists["firmware"], features=lists["features"], link=strs["link"])


def _read_exchange_json(doc: dict, ctx: _Ctx) -> tuple[datetime | None, list[GuideListing]]:
    if doc.get("format_version") != EXCHANGE_FORMAT_VERSION:
        raise ctx.error(f"exchange format_version {doc.get('format_version')!r} is not supported "
                        f"(this reader knows {EXCHANGE_FORMAT_VERSION})")
    records = doc.get("listings")
    if not isinstance(records, list):
        raise ctx.error("listings is missing or not a list")
    date = _parse_date(doc.get("generated_at"))
    if date is None and doc.get("generated_at") not in (None, ""):
        ctx.warn("generated_at", f"unreadable date {doc.get('generated_at')!r}")
    out: list[GuideListing] = []
    for i, rec in enumerate(records):
        try:
            if not isinstance(rec, dict):
                raise _Skip("not an object")
            out.append(_exchange_record(rec))
        except _Skip as exc:
            ctx.warn(f"listings[{i}]", f"{exc}; entry skipped")
    return date, out


def _read_exchange_csv(text: str, ctx: _Ctx) -> tuple[datetime | None, list[GuideListing]]:
    lines = text.splitlines(keepends=True)
    meta: dict[str, str] = {}
    skipped = 0
    while skipped < len(lines) and (lines[skipped].lstrip().startswith("#") or not lines[skipped].strip()):
        comment = lines[skipped].strip().lstrip("#").strip()
        if ":" in comment:
            key, _, value = comment.partition(":")
            meta[key.strip().lower()] = value.strip()
        skipped += 1
    reader = csv.DictReader(io.StringIO("".join(lines[skipped:])))
    header = [h.strip() for h in (reader.fieldnames or [])]
    reader.fieldnames = header
    missing = [c for c in EXCHANGE_CSV_COLUMNS if c not in header]
    if not header or missing:
        raise ctx.error("not JSON, and not a CSV in the nic-advisor exchange format (line "
                        f"{skipped + 1} should be the header {','.join(EXCHANGE_CSV_COLUMNS)}"
                        + (f"; missing {', '.join(missing)}" if header else "") + ")")
    date = _parse_date(meta.get("generated_at")) if meta.get("generated_at") else None
    if meta.get("generated_at") and date is None:
        ctx.warn("# generated_at", f"unreadable date {meta['generated_at']!r}")
    out: list[GuideListing] = []
    for row in reader:
        where = f"line {skipped + reader.line_num}"
        try:
            if None in row:
                raise _Skip("more cells than header columns")
            rec: dict[str, Any] = {k: (row.get(k) or "") for k in EXCHANGE_CSV_COLUMNS}
            for name in ("firmware", "features"):
                rec[name] = [v for v in rec[name].split(_LIST_SEP)]
            for name in ("svid", "ssid", "release", "driver", "driver_version", "driver_type", "link"):
                rec[name] = rec[name] or None
            out.append(_exchange_record(rec))
        except _Skip as exc:
            ctx.warn(where, f"{exc}; row skipped")
    return date, out


# --------------------------------------------------------------------------------------------- reading


def _read_bounded(path: Path, max_bytes: int) -> bytes:
    """The file's bytes; GuideFormatError when it is not a regular file or is larger than ``max_bytes``
    (checked before reading). FileNotFoundError when it does not exist."""
    size = path.stat().st_size
    if not path.is_file():
        raise GuideFormatError(f"{path}: not a regular file")
    if size > max_bytes:
        raise GuideFormatError(f"{path}: {size} bytes is larger than the limit of {max_bytes} bytes; not read")
    with path.open("rb") as fh:
        raw = fh.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise GuideFormatError(f"{path}: grew beyond the limit of {max_bytes} bytes while being read")
    return raw


def _decode(raw: bytes, where: str) -> str:
    if b"\x00" in raw[:8192]:
        raise GuideFormatError(f"{where}: binary data, not a JSON or CSV compatibility-guide file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GuideFormatError(f"{where}: not UTF-8 text (byte {exc.start}); not a JSON or CSV "
                               "compatibility-guide file") from exc


def read_guide_file(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
                    companion: str | os.PathLike[str] | None = None) -> GuideFile:
    """Read one compatibility-guide file; the format is detected from the content (module docstring).

    ``max_bytes`` bounds the file (and the companion): a larger file is refused before it is read.
    ``companion`` is the viewResults answer a ``bcg-details`` file came from, used only when the details name no
    PCI IDs; it is ignored for other formats. Malformed entries and entries with unreadable IDs are skipped and
    reported in ``GuideFile.warnings`` with their JSON path / CSV line.

    Raises GuideFormatError (message starts with the file name) for an oversize, binary, non-UTF-8, invalid
    JSON or unrecognised file, an unsupported exchange ``format_version``, or a bcg-details answer whose device
    cannot be identified; FileNotFoundError when the file does not exist.
    """
    p = Path(path)
    ctx = _Ctx(str(path))
    raw = _read_bounded(p, max_bytes)
    sha = hashlib.sha256(raw).hexdigest()
    text = _decode(raw, ctx.path)
    if not text.strip():
        raise ctx.error("empty file")
    if text.lstrip()[:1] in ("{", "["):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ctx.error(f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from exc
        except RecursionError as exc:
            raise ctx.error("JSON nested too deeply") from exc
        fmt = detect_format(doc)
        if fmt is None:
            raise ctx.error("JSON, but not a recognised compatibility-guide format (expected a vSAN HCL all.json "
                            "or vcfcheck snapshot, a BCG viewResults/viewDetails answer, a VCG iodevices/search "
                            "answer or a nic-advisor exchange file)")
        if fmt == "vsan-hcl":
            date, listings = _read_vsan_hcl(doc, ctx)
        elif fmt == "bcg-results":
            date, listings = _read_bcg_results(doc, ctx)
        elif fmt == "bcg-details":
            date, listings = _read_bcg_details(doc, ctx, companion, max_bytes)
        elif fmt == "vcg-api":
            date, listings = _read_vcg_api(doc, ctx)
        else:
            date, listings = _read_exchange_json(doc, ctx)
    else:
        fmt = "exchange-csv"
        date, listings = _read_exchange_csv(text, ctx)
    return GuideFile(path=ctx.path, format=fmt, sha256=sha, data_date=date, listings=tuple(listings),
                     warnings=ctx.final_warnings())


# --------------------------------------------------------------------------------------------- writing


def _check_listings(listings: Iterable[GuideListing]) -> list[GuideListing]:
    out = list(listings)
    for i, item in enumerate(out):
        if not isinstance(item, GuideListing):
            raise TypeError(f"listings[{i}] is a {type(item).__name__}, not a GuideListing")
    return out


def _now_utc() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to a temporary file next to ``path`` and rename it over ``path``."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_exchange_json(listings: Iterable[GuideListing], path: str | os.PathLike[str], *, source_note: str) -> None:
    """Write listings as an exchange JSON file (module docstring), ``generated_at`` = now (UTC).

    ``source_note`` says where the listings came from and is required (non-empty). Raises TypeError for an item
    that is not a GuideListing, ValueError for an empty ``source_note``; OSError from writing. The file is
    replaced atomically.
    """
    items = _check_listings(listings)
    if not isinstance(source_note, str) or not source_note.strip():
        raise ValueError("source_note must say where the listings come from")
    doc = {
        "format": EXCHANGE_FORMAT, "format_version": EXCHANGE_FORMAT_VERSION, "generated_at": _now_utc(),
        "source_note": source_note.strip(),
        "listings": [{
            "vid": x.vid, "did": x.did, "svid": x.svid, "ssid": x.ssid, "vendor": x.vendor, "model": x.model,
            "release": x.release, "driver": x.driver, "driver_version": x.driver_version,
            "driver_type": x.driver_type, "firmware": list(x.firmware), "features": list(x.features),
            "link": x.link} for x in items],
    }
    _write_atomic(path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")


def write_exchange_csv(listings: Iterable[GuideListing], path: str | os.PathLike[str]) -> None:
    """Write listings as an exchange CSV file (module docstring) with ``# format`` and ``# generated_at``
    comment lines and the :data:`EXCHANGE_CSV_COLUMNS` header.

    Raises TypeError for an item that is not a GuideListing; ValueError when a firmware or feature value is
    empty, has surrounding spaces or contains ``;`` (the list separator); OSError from writing. The file is
    replaced atomically.
    """
    items = _check_listings(listings)
    buf = io.StringIO()
    buf.write(f"# format: {EXCHANGE_FORMAT} {EXCHANGE_FORMAT_VERSION}\r\n# generated_at: {_now_utc()}\r\n")
    writer = csv.writer(buf)
    writer.writerow(EXCHANGE_CSV_COLUMNS)
    for i, x in enumerate(items):
        for name in ("firmware", "features"):
            for value in getattr(x, name):
                if _LIST_SEP in value or not value.strip() or value != value.strip():
                    raise ValueError(f"listings[{i}].{name} value {value!r} cannot be written to CSV "
                                     f"(empty, padded or contains {_LIST_SEP!r})")
        writer.writerow([x.vid, x.did, x.svid or "", x.ssid or "", x.vendor, x.model, x.release or "",
                         x.driver or "", x.driver_version or "", x.driver_type or "",
                         _LIST_SEP.join(x.firmware), _LIST_SEP.join(x.features), x.link or ""])
    _write_atomic(path, buf.getvalue())
