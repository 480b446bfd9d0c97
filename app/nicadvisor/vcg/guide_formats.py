"""Readers for the compatibility-guide files an admin can import, and the writers of our exchange format.

:func:`read_guide_file` reads one file, detects its format from the content (never from the name) and
returns a :class:`GuideFile`: one :class:`GuideListing` per device × release × driver version, plus warnings
for every entry it had to skip (each naming the JSON path or CSV line) and for what it read with doubt (a release
label it does not understand, a duplicate JSON key, a driver version listed twice with other firmware, a data date
in the future). A file that cannot be read as any of the formats, or that fits two of them, raises
:class:`GuideFormatError` naming the file. Every listing records the kind of file it came from
(``GuideListing.source``): the vSAN HCL lists NICs certified for vSAN/RDMA, the Broadcom Compatibility Guide and the
old VCG API answer for the I/O program, so a finding can say which guide says what.

Formats (``GuideFile.format``) and where their layout was learned (public code; vcg-data.md §2)
    ``vsan-hcl``       the vSAN HCL ``all.json`` VMware/Broadcom publish for offline use (Broadcom KB 315556;
                       ``https://vvs.broadcom.com/service/vsan/all.json``): top level ``timestamp``,
                       ``jsonUpdatedTime``, ``data.{controller, ssd, hdd, nic}``; a NIC entry has ``id, vid, did,
                       svid, ssid, vcglink, releases``; ``releases["ESXi 8.0 U2"]`` holds ``vsanSupport`` /
                       ``deviceSupport`` and one key per driver: ``<driver>.<version>.{type, firmwares:
                       [{firmware, vsanSupport}]}`` (lamw/vmware-scripts
                       ``powershell/create_custom_vsan_esa_hcl_json.ps1``; the Go checker ``evaluateVsanPCI`` quoted
                       in vcg-data.md §2.3 reads ``data.nic``/``data.controller`` the same way). Only ``data.nic``
                       is read. A file of this top-level layout is the whole published dump (``GuideFile.complete``:
                       an import replaces the earlier vSAN HCL data with it). Also accepted: the trimmed snapshot ``vmware/vcfcheck``
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
                       PowerShell script, vcg-data.md §2.1). One row is one certification: its
                       ``additionalFirmwareVersion`` goes with its ``firmwareVersion`` (the legacy guide's
                       ``FirmwareVersion``/``AddlFirmwareVersion`` of one record, shown as two columns of one row by
                       arielsanchezmora/vDocumentation ``Get-ESXIODevice.ps1``), so it is kept as
                       ``GuideListing.additional_firmware``, not as another firmware that would do. The JSON key of the I/O "Features" list was not found in
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
     "data_date": "2025-01-01T00:00:00Z",             # optional: the date of the data, preferred to generated_at
     "source_note": "free text: where the listings came from",
     "listings": [{"vid": "14e4", "did": "16d7", "svid": "1028", "ssid": "0bdd",   # 4 lower-case hex or null
                   "vendor": "...", "model": "...",                                  # strings ("" = unknown)
                   "release": "ESX 9.0",                                             # or null
                   "driver": "bnxtroce", "driver_version": "238.1.122.0-1OEM.900",  # or null
                   "driver_type": "inbox" | "async" | null,
                   "firmware": ["38.11.38.06"],                                      # list of strings
                   "features": ["RoCE v2"],                                          # list of strings
                   "link": "https://..." | null,
                   "additional_firmware": "..." | null,          # optional: goes with the firmware listed
                   "source": "vsan-hcl" | "bcg-results" | "bcg-details" | "vcg-api" | null}]}  # optional

    A reader refuses another ``format`` or a ``format_version`` other than 1; a listing that does not fit
    the shape above is skipped with a warning naming ``listings[i]``; an unknown ``source`` is read as null with a
    warning (``source`` and ``additional_firmware`` are optional: files written before they existed still read).

Exchange format, CSV (UTF-8, RFC 4180 quoting)::

    # format: nic-advisor-vcg-exchange 1            <- optional comment lines, only before the header
    # generated_at: 2025-01-31T12:00:00Z            <- becomes GuideFile.data_date
    # data_date: 2025-01-01T00:00:00Z               <- optional: preferred to generated_at
    vid,did,svid,ssid,vendor,model,release,driver,driver_version,driver_type,firmware,features,link,additional_firmware,source
    14e4,16d7,1028,0bdd,,,ESX 9.0,bnxtroce,238.1.122.0-1OEM.900,,38.11.38.06,RoCE v2;vSAN;vSAN ESA,,,vsan-hcl

    The header must name every column of :data:`EXCHANGE_CSV_REQUIRED` (any order; ``additional_firmware`` and
    ``source`` are optional, other columns are ignored); the writer writes :data:`EXCHANGE_CSV_COLUMNS`. An empty cell is null (``vendor``/``model``: ""). ``firmware`` and ``features`` are lists joined
    with ``;`` — a value containing ``;`` cannot be written. A row that does not fit is skipped with a warning
    naming its file line.

Common rules: PCI IDs are normalised to 4 lower-case hex digits (``0x8086`` → ``8086``); IDs given as JSON
numbers are refused (their base is ambiguous). A missing or empty ``svid``/``ssid`` means "any". Releases are
normalised with :func:`normalise_release` ("8.0 U3" → "ESXi 8.0 U3", "9.0" → "ESX 9.0", "VMware ESXi 8.0 U2" →
"ESXi 8.0 U2", "ESXi 8.0.2" → "ESXi 8.0 U2"); a label that is not understood or ambiguous ("ESX 9.0.1": for ESX 9 the
third number is a maintenance release; "6.7.0": ESXi 6.x prints it for every update; "8.0 U3b") is kept as written,
with a warning (once per label and file): it then matches no host release. Driver names and versions, firmware and
feature names are kept exactly as written (features are de-duplicated and sorted for the guide formats). Files
larger than ``max_bytes`` are refused before they are read, files giving more than ``max_listings`` listings while
they are read. A data date more than a day in the future is not used (warning): the data is then aged from its
import date.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from dataclasses import dataclass
from datetime import date as date_type
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable

from nicadvisor.atomic_file import atomic_write
from nicadvisor.model.text import formula_escaped, formula_unescaped
from nicadvisor.parsers.base import hex4
from nicadvisor.vcg.normalize import parse_release, release_label

__all__ = [
    "EXCHANGE_CSV_COLUMNS", "EXCHANGE_CSV_REQUIRED", "EXCHANGE_FORMAT", "EXCHANGE_FORMAT_VERSION", "FORMATS",
    "SOURCES", "GuideFile", "GuideFormatError", "GuideListing", "detect_format", "detect_formats",
    "normalise_release", "read_guide_file", "release_reading", "write_exchange_csv", "write_exchange_json",
]

FORMATS = ("vsan-hcl", "bcg-results", "bcg-details", "vcg-api", "exchange-json", "exchange-csv")
EXCHANGE_FORMAT = "nic-advisor-vcg-exchange"
EXCHANGE_FORMAT_VERSION = 1
#: The columns an exchange CSV must have.
EXCHANGE_CSV_REQUIRED: tuple[str, ...] = (
    "vid", "did", "svid", "ssid", "vendor", "model", "release", "driver", "driver_version", "driver_type",
    "firmware", "features", "link",
)
#: The columns the writer writes: the required ones, then the optional ``additional_firmware`` and ``source``.
EXCHANGE_CSV_COLUMNS: tuple[str, ...] = EXCHANGE_CSV_REQUIRED + ("additional_firmware", "source")
#: The kinds of file a listing can come from (``GuideListing.source``): the vSAN HCL (NICs certified for vSAN/RDMA)
#: and the answers of the I/O guide (Broadcom Compatibility Guide search / details, the old VCG API).
SOURCES = ("vsan-hcl", "bcg-results", "bcg-details", "vcg-api")
DEFAULT_MAX_BYTES = 256 * 2**20
#: Most listings one file may give (memory stays bounded; the vSAN HCL's NIC part gives some tens of thousands).
DEFAULT_MAX_LISTINGS = 500_000
#: Most JSON values a file may hold (counted before it is parsed: every ``{``, ``[`` and ``,``). Python keeps a
#: parsed value in 24–72 bytes however short its text: a 120 MB file of empty objects (40 million ``{}``) took
#: 1.9 GB. Five million values stay under 400 MB; the vSAN HCL all.json is a few MB.
MAX_JSON_VALUES = 5_000_000
#: A data date later than now plus this is refused (clock skew allowed for).
FUTURE_TOLERANCE = timedelta(days=1)
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
    the guide spells them; ``link`` the guide's web link when the file gives one; ``additional_firmware`` the
    additional firmware version the guide lists together with ``firmware`` (viewDetails
    ``additionalFirmwareVersion``: one certification names both), or None; ``source`` the kind of file the listing
    came from (one of :data:`SOURCES`, None when unknown: an exchange file that does not say). Raises ValueError for
    an ID that is not 4 lower-case hex digits, a ``driver_type`` outside inbox/async/None or a ``source`` outside
    :data:`SOURCES`/None.
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
    additional_firmware: str | None = None
    source: str | None = None

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
        if self.source not in (None, *SOURCES):
            raise ValueError(f"GuideListing.source must be one of {', '.join(SOURCES)} or None, not {self.source!r}")
        if self.additional_firmware is not None and not isinstance(self.additional_firmware, str):
            raise ValueError("GuideListing.additional_firmware must be a string or None")


@dataclass(frozen=True)
class GuideFile:
    """One imported file: ``path`` as given, ``format`` (one of :data:`FORMATS`), ``sha256`` of its bytes (hex),
    ``data_date`` the time the data says it was produced (UTC, None when the file states none or states a time in
    the future), ``listings``, ``warnings`` (skipped entries with their JSON path or CSV line, doubtful readings;
    at most :data:`MAX_WARNINGS` + 1) and ``complete``: True when the file is a whole published dump of its source
    (the vSAN HCL ``all.json`` top-level layout), so that it replaces the earlier data of that source."""

    path: str
    format: str
    sha256: str
    data_date: datetime | None
    listings: tuple[GuideListing, ...]
    warnings: tuple[str, ...]
    complete: bool = False


class _Skip(Exception):
    """An entry that cannot be used; the message becomes a warning."""


class _Listings(list):
    """The listings read from one file: refuses to grow beyond its limit (memory stays bounded)."""

    def __init__(self, ctx: "_Ctx") -> None:
        super().__init__()
        self.ctx = ctx

    def append(self, item: GuideListing) -> None:  # type: ignore[override]
        self.ctx.count += 1
        if self.ctx.count > self.ctx.max_listings:
            raise self.ctx.error(f"gives more than {self.ctx.max_listings} listings; not read (a stored guide is "
                                 "bounded: import the part of the guide you need)")
        super().append(item)


class _Ctx:
    """Warnings collected while reading one file, the kind of source its listings get and their bound."""

    def __init__(self, path: str, max_listings: int = DEFAULT_MAX_LISTINGS) -> None:
        self.path = path
        self.warnings: list[str] = []
        self._dropped = 0
        self.source: str | None = None
        self.max_listings = max_listings
        self.count = 0
        self._labels_warned: set[str] = set()

    def out(self) -> _Listings:
        """A new list of listings counted against this file's bound."""
        return _Listings(self)

    def release(self, where: str, value: Any) -> str | None:
        """A release label read at ``where`` (:func:`release_reading`); warns once per label it keeps as written."""
        label, doubt = release_reading(value)
        if doubt and label not in self._labels_warned:
            self._labels_warned.add(label)
            self.warn(where, f"release {label!r} kept as written: {doubt}; it matches no host release (say the "
                             "release as the guide does, e.g. \"ESXi 8.0 U2\", \"ESX 9.0\")")
        return label

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


_PRODUCT_PREFIX_RE = re.compile(r"^(?:VMware\s+)?(?:vSphere\s+)?", re.I)
_DOTTED_RELEASE_RE = re.compile(r"^(?:ESXi?\s*)?(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?$", re.I)


def release_reading(text: Any) -> tuple[str | None, str | None]:
    """``(label, doubt)``: the release label in :func:`nicadvisor.vcg.normalize.release_label` form and None, or
    the text as written (stripped) and why it was not normalised; ``(None, None)`` for empty text and non-strings.

    Unambiguous spellings are normalised: ``"8.0 U3"``, ``"ESXi 8.0 Update 3"``, ``"VMware ESXi 8.0 U3"``,
    ``"ESXi 8.0.3"`` → ``"ESXi 8.0 U3"`` (for 7.x and 8.x the third number is the update); ``"9.0"``,
    ``"ESX 9.0.0.0"`` → ``"ESX 9.0"``. Ambiguous ones are kept: ``"6.7.0"`` (ESXi 6.x prints x.y.0 for every
    update), ``"ESX 9.0.1"`` (for ESX 9 the third number is a maintenance release, and which guide release names
    it is not known), ``"ESXi 8.0 U3b"`` (a patch), anything else that does not parse.
    """
    if not isinstance(text, str) or not text.strip():
        return None, None
    raw = text.strip()
    bare = _PRODUCT_PREFIX_RE.sub("", raw, count=1).strip()
    parsed = parse_release(bare)
    if parsed:
        return release_label(*parsed), None
    m = _DOTTED_RELEASE_RE.match(bare)
    if m:
        major, minor, third = int(m.group(1)), int(m.group(2)), int(m.group(3))
        fourth = m.group(4)
        if major in (7, 8) and fourth is None:
            return release_label(major, minor, third), None
        if major >= 9 and third == 0:
            return release_label(major, minor, 0), None
        if major <= 6:
            return raw, f"ESXi {major}.x prints {major}.{minor}.0 for every update, so the update is not known"
        if major >= 9:
            return raw, (f"for ESX {major} the third number is a maintenance release, and which guide release "
                         "names it is not known")
    return raw, "not a release label that is understood"


def normalise_release(text: Any) -> str | None:
    """A release label in :func:`nicadvisor.vcg.normalize.release_label` form (:func:`release_reading`).

    ``"8.0 U3"``, ``"ESXi 8.0 U3"``, ``"ESXi 8.0 Update 3"``, ``"VMware ESXi 8.0 U3"``, ``"ESXi 8.0.3"`` →
    ``"ESXi 8.0 U3"``; ``"7.0"`` → ``"ESXi 7.0"``; ``"9.0"`` / ``"ESX 9.0"`` → ``"ESX 9.0"``. Text that is not
    understood or ambiguous is returned stripped (the readers warn about it); empty text and non-strings give None.
    """
    return release_reading(text)[0]


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
                        features=fields.get("features", ()), link=fields.get("link"),
                        additional_firmware=fields.get("additional_firmware"), source=fields.get("source"))


# --------------------------------------------------------------------------------------------- detection


def detect_formats(doc: Any) -> list[str]:
    """Every format (of :data:`FORMATS` except ``exchange-csv``) whose marks a parsed JSON document has:
    ``format`` = the exchange format; ``data.fieldValues`` (list: bcg-results); ``data.details`` (object:
    bcg-details); ``data.nic``/``controller``/``ssd``/``hdd`` (list) or a top-level list of ``{vid, rel}``
    entries (vsan-hcl); ``matches``/``potentialMatches``/``searchResult`` (vcg-api). More than one means the
    file fits two formats and reading it as one would drop the other's part."""
    if isinstance(doc, list):
        # one well-formed entry among the first 50 is enough: malformed ones become warnings later
        return ["vsan-hcl"] if any(isinstance(e, dict) and "rel" in e and "vid" in e for e in doc[:50]) else []
    if not isinstance(doc, dict):
        return []
    found = []
    if doc.get("format") == EXCHANGE_FORMAT:
        found.append("exchange-json")
    data = doc.get("data")
    if isinstance(data, dict):
        if isinstance(data.get("fieldValues"), list):
            found.append("bcg-results")
        if isinstance(data.get("details"), dict):
            found.append("bcg-details")
        if any(isinstance(data.get(k), list) for k in ("nic", "controller", "ssd", "hdd")):
            found.append("vsan-hcl")
    if any(k in doc for k in ("matches", "potentialMatches")) or isinstance(doc.get("searchResult"), dict):
        found.append("vcg-api")
    return found


def detect_format(doc: Any) -> str | None:
    """The format of a parsed JSON document (one of :data:`FORMATS` except ``exchange-csv``), or None when it
    fits none or more than one (:func:`detect_formats`)."""
    found = detect_formats(doc)
    return found[0] if len(found) == 1 else None


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
    common = {"vendor": vendor, "model": model or "", "link": link, "source": ctx.source}
    for rel_key, rel_data in releases.items():
        rwhere = f"{where}.{'rel' if snapshot else 'releases'}[{rel_key!r}]"
        release = ctx.release(rwhere, rel_key)
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
    out = ctx.out()
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
    out = ctx.out()
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
            names = [ctx.release(f"{where}.supportedReleases[{k}]", r.get("name") if isinstance(r, dict) else r)
                     for k, r in enumerate(releases if isinstance(releases, list) else [])]
            names = [n for n in names if n] or [None]
            feats = _features(_strings(item.get("features")))
            link = _text(item.get("link")) or _text(item.get("vcgLink"))
            for name in dict.fromkeys(names):
                out.append(_listing(device.ids, vendor=device.vendor, model=device.model, release=name,
                                    features=feats, link=link, source=ctx.source))
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
    except (ValueError, RecursionError) as exc:   # e.g. a number of more digits than Python converts
        raise GuideFormatError(f"{cpath}: companion cannot be read as JSON ({exc})") from exc
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
    file_release = ctx.release("filterBy", doc.get("filterBy") or details.get("filterBy"))
    out = ctx.out()
    for where, row in rows:
        try:
            if device is None:
                row_device = _bcg_device(row, None)
                if row_device.ids is None:
                    raise _Skip("no PCI IDs")
            else:
                row_device = device
            release = ctx.release(where, row.get("productReleaseVersion") or row.get("release")) or file_release
            firmware = _firmware([row.get("firmwareVersion")])
            additional = _firmware([row.get("additionalFirmwareVersion")])
            if additional and not firmware:
                ctx.warn(where, f"additionalFirmwareVersion {additional[0]!r} without a firmwareVersion; not used")
            out.append(_listing(row_device.ids, vendor=row_device.vendor, model=row_device.model, release=release,
                                driver=_text(row.get("driverName")), driver_version=_text(row.get("driverVersion")),
                                driver_type=_driver_type(row.get("driverType")), firmware=firmware,
                                additional_firmware=additional[0] if additional and firmware else None,
                                features=_features(_strings(row.get("features"))),
                                link=_text(row.get("link")), source=ctx.source))
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
    default_release = ctx.release("searchOption", option.get("foundRelease") or option.get("releaseversion"))
    out = ctx.out()
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
                          "link": _text(match.get("vcgLink")), "source": ctx.source}
                records = match.get("features") or []
                if isinstance(records, dict):
                    records = list(records.values())
                if not isinstance(records, list):
                    raise _Skip("features is neither a list nor an object")
                release = ctx.release(where, match.get("releaseVersion")) or default_release
                if not records:
                    out.append(_listing(ids, release=release, **common))
                for k, rec in enumerate(records):
                    if not isinstance(rec, dict):
                        ctx.warn(f"{where}.features[{k}]", "not an object; skipped")
                        continue
                    out.append(_listing(ids, release=ctx.release(f"{where}.features[{k}]",
                                                                 rec.get("releaseVersion")) or release,
                                        driver=_text(rec.get("driverName")) or _text(rec.get("driver")),
                                        driver_version=_text(rec.get("driverVersion")),
                                        driver_type=_driver_type(rec.get("driverType")),
                                        firmware=_firmware([rec.get("firmwareVersion")]),
                                        features=_features(_strings(rec.get("featureNames"))), **common))
            except _Skip as exc:
                ctx.warn(where, f"{exc}; entry skipped")
    return None, out


# --------------------------------------------------------------------------------------------- exchange


def _exchange_record(rec: dict, ctx: _Ctx, where: str) -> GuideListing:
    """A GuideListing from an exchange-format record (JSON object or CSV row as dict of lists/strings)."""
    ids = _ids(rec)
    for name in ("vendor", "model"):
        if rec.get(name) is not None and not isinstance(rec.get(name), str):
            raise _Skip(f"{name} is not a string")
    strs: dict[str, str | None] = {}
    for name in ("release", "driver", "driver_version", "link", "additional_firmware", "source"):
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
    source = strs["source"]
    if source is not None and source not in SOURCES:
        ctx.warn(where, f"source {source!r} is not one of {', '.join(SOURCES)}; read as not stated")
        source = None
    return _listing(ids, vendor=(rec.get("vendor") or "").strip(), model=(rec.get("model") or "").strip(),
                    release=ctx.release(where, strs["release"]), driver=strs["driver"],
                    driver_version=strs["driver_version"], driver_type=driver_type,
                    firmware=lists["firmware"], features=lists["features"], link=strs["link"],
                    additional_firmware=strs["additional_firmware"] if lists["firmware"] else None, source=source)


def _read_exchange_json(doc: dict, ctx: _Ctx) -> tuple[datetime | None, list[GuideListing]]:
    if doc.get("format_version") != EXCHANGE_FORMAT_VERSION:
        raise ctx.error(f"exchange format_version {doc.get('format_version')!r} is not supported "
                        f"(this reader knows {EXCHANGE_FORMAT_VERSION})")
    records = doc.get("listings")
    if not isinstance(records, list):
        raise ctx.error("listings is missing or not a list")
    date = None
    for key in ("data_date", "generated_at"):
        if doc.get(key) not in (None, ""):
            date = _parse_date(doc.get(key))
            if date is not None:
                break
            ctx.warn(key, f"unreadable date {doc.get(key)!r}")
    out = ctx.out()
    for i, rec in enumerate(records):
        try:
            if not isinstance(rec, dict):
                raise _Skip("not an object")
            out.append(_exchange_record(rec, ctx, f"listings[{i}]"))
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
    try:
        return _exchange_csv_rows(reader, skipped, meta, ctx)
    except csv.Error as exc:  # a field longer than csv.field_size_limit() (128 KiB), a NUL …
        raise ctx.error(f"line {skipped + reader.reader.line_num}: not readable as CSV ({exc})") from None


def _exchange_csv_rows(reader: csv.DictReader, skipped: int, meta: dict[str, str],
                       ctx: _Ctx) -> tuple[datetime | None, list[GuideListing]]:
    """The listings of an exchange CSV whose first ``skipped`` lines (comments, read into ``meta``) are behind
    ``reader``. Raises csv.Error for text the csv module cannot read."""
    header = [h.strip() for h in (reader.fieldnames or [])]
    reader.fieldnames = header
    missing = [c for c in EXCHANGE_CSV_REQUIRED if c not in header]
    if not header or missing:
        raise ctx.error("not JSON, and not a CSV in the nic-advisor exchange format (line "
                        f"{skipped + 1} should be the header {','.join(EXCHANGE_CSV_COLUMNS)}"
                        + (f"; missing {', '.join(missing)}" if header else "") + ")")
    date = None
    for key in ("data_date", "generated_at"):
        if meta.get(key):
            date = _parse_date(meta[key])
            if date is not None:
                break
            ctx.warn(f"# {key}", f"unreadable date {meta[key]!r}")
    out = ctx.out()
    for row in reader:
        where = f"line {skipped + reader.line_num}"
        try:
            if None in row:
                raise _Skip("more cells than header columns")
            rec: dict[str, Any] = {k: formula_unescaped(row.get(k) or "") for k in EXCHANGE_CSV_COLUMNS}
            for name in ("firmware", "features"):
                rec[name] = [v for v in rec[name].split(_LIST_SEP)]
            for name in ("svid", "ssid", "release", "driver", "driver_version", "driver_type", "link"):
                rec[name] = rec[name] or None
            out.append(_exchange_record(rec, ctx, where))
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


class _DuplicateKeys:
    """``object_pairs_hook`` for json.loads: builds each object as json does (the last value of a repeated key
    wins) and counts the keys that were repeated."""

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.keys[key] = self.keys.get(key, 0) + 1
                seen.add(key)
        return obj


def _warn_conflicting_firmware(listings: Iterable[GuideListing], ctx: _Ctx) -> None:
    """Warn when one device × release × driver version is listed more than once with other firmware (a format whose
    listing holds every firmware of a driver version: vsan-hcl, exchange)."""
    seen: dict[tuple, tuple[str, ...]] = {}
    warned: set[tuple] = set()
    for g in listings:
        if not g.driver_version:
            continue
        key = (g.vid, g.did, g.svid, g.ssid, g.release, g.driver, g.driver_version)
        if key not in seen:
            seen[key] = g.firmware
        elif seen[key] != g.firmware and key not in warned:
            warned.add(key)
            sub = f" {g.svid or '*'}:{g.ssid or '*'}" if g.svid or g.ssid else ""
            ctx.warn(f"{g.vid}:{g.did}{sub} {g.release or '(no release)'} {g.driver} {g.driver_version}",
                     f"listed more than once with other firmware ({', '.join(seen[key]) or 'none'} | "
                     f"{', '.join(g.firmware) or 'none'}); both are kept, so the firmware of either counts as listed "
                     "— check the file")


def read_guide_file(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
                    companion: str | os.PathLike[str] | None = None,
                    max_listings: int = DEFAULT_MAX_LISTINGS) -> GuideFile:
    """Read one compatibility-guide file; the format is detected from the content (module docstring).

    ``max_bytes`` bounds the file (and the companion): a larger file is refused before it is read.
    ``max_listings`` bounds the listings it may give (checked while reading). ``companion`` is the viewResults
    answer a ``bcg-details`` file came from, used only when the details name no PCI IDs; it is ignored for other
    formats. Malformed entries and entries with unreadable IDs are skipped and reported in ``GuideFile.warnings``
    with their JSON path / CSV line; so are release labels kept as written, repeated JSON keys (json keeps the last
    value), a driver version listed twice with other firmware (vsan-hcl, exchange) and a data date more than
    :data:`FUTURE_TOLERANCE` in the future (not used: ``data_date`` is then None).

    Raises GuideFormatError (message starts with the file name) for an oversize, binary, non-UTF-8, invalid
    JSON (a number too long to convert included) or unrecognised file, a JSON file that fits two formats, an
    unsupported exchange ``format_version``, a bcg-details answer whose device cannot be identified, or more than
    ``max_listings`` listings; FileNotFoundError when the file does not exist.
    """
    p = Path(path)
    ctx = _Ctx(str(path), max_listings)
    raw = _read_bounded(p, max_bytes)
    sha = hashlib.sha256(raw).hexdigest()
    text = _decode(raw, ctx.path)
    del raw
    if not text.strip():
        raise ctx.error("empty file")
    complete = False
    if text.lstrip()[:1] in ("{", "["):
        values = text.count("{") + text.count("[") + text.count(",")
        if values > MAX_JSON_VALUES:
            raise ctx.error(f"about {values} JSON values, more than the {MAX_JSON_VALUES} a guide file may hold "
                            "(reading them would take more memory than this machine should give it); not read")
        duplicates = _DuplicateKeys()
        try:
            doc = json.loads(text, object_pairs_hook=duplicates)
        except json.JSONDecodeError as exc:
            raise ctx.error(f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from exc
        except RecursionError as exc:
            raise ctx.error("JSON nested too deeply") from exc
        except ValueError as exc:   # e.g. an integer of more digits than Python converts
            raise ctx.error(f"cannot be read as JSON ({exc})") from exc
        del text
        if duplicates.keys:
            shown = ", ".join(f"{k!r} ({n}×)" for k, n in list(duplicates.keys.items())[:10])
            more = f" and {len(duplicates.keys) - 10} more" if len(duplicates.keys) > 10 else ""
            ctx.warn("JSON", f"repeated keys in one object: {shown}{more}; only the last value of each was read — "
                             "the file may be damaged or joined by hand")
        found = detect_formats(doc)
        if not found:
            raise ctx.error("JSON, but not a recognised compatibility-guide format (expected a vSAN HCL all.json "
                            "or vcfcheck snapshot, a BCG viewResults/viewDetails answer, a VCG iodevices/search "
                            "answer or a nic-advisor exchange file)")
        if len(found) > 1:
            raise ctx.error(f"fits more than one format ({', '.join(found)}): reading it as one would drop the "
                            "other part; not imported — save each answer in a file of its own")
        fmt = found[0]
        ctx.source = fmt if fmt in SOURCES else None
        if fmt == "vsan-hcl":
            date, listings = _read_vsan_hcl(doc, ctx)
            complete = isinstance(doc, dict)
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
    if fmt in ("vsan-hcl", "exchange-json", "exchange-csv"):
        _warn_conflicting_firmware(listings, ctx)
    if date is not None and date > datetime.now(timezone.utc) + FUTURE_TOLERANCE:
        ctx.warn("data date", f"{date.isoformat()} is in the future; not used (the data is aged from its import "
                              "date instead)")
        date = None
    return GuideFile(path=ctx.path, format=fmt, sha256=sha, data_date=date, listings=tuple(listings),
                     warnings=ctx.final_warnings(), complete=complete)


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
    """Write ``text`` (UTF-8, line ends as given) to ``path`` through :func:`nicadvisor.atomic_file.atomic_write`."""
    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8", newline="") as fh:
            fh.write(text)

    atomic_write(path, _write)


def _date_text(value: datetime | date_type | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return value.isoformat()


def write_exchange_json(listings: Iterable[GuideListing], path: str | os.PathLike[str], *, source_note: str,
                        data_date: datetime | date_type | None = None) -> None:
    """Write listings as an exchange JSON file (module docstring), ``generated_at`` = now (UTC).

    ``source_note`` says where the listings came from and is required (non-empty). ``data_date``: the date of the
    data written (an export of an imported guide passes its data date, so that a re-import does not take the
    export time for the age of the data); written as ``data_date``, which a reader prefers to ``generated_at``.
    Raises TypeError for an item that is not a GuideListing, ValueError for an empty ``source_note``; OSError from
    writing. The file is replaced atomically.
    """
    items = _check_listings(listings)
    if not isinstance(source_note, str) or not source_note.strip():
        raise ValueError("source_note must say where the listings come from")
    doc = {
        "format": EXCHANGE_FORMAT, "format_version": EXCHANGE_FORMAT_VERSION, "generated_at": _now_utc(),
        **({"data_date": _date_text(data_date)} if data_date is not None else {}),
        "source_note": source_note.strip(),
        "listings": [{
            "vid": x.vid, "did": x.did, "svid": x.svid, "ssid": x.ssid, "vendor": x.vendor, "model": x.model,
            "release": x.release, "driver": x.driver, "driver_version": x.driver_version,
            "driver_type": x.driver_type, "firmware": list(x.firmware), "features": list(x.features),
            "link": x.link, "additional_firmware": x.additional_firmware, "source": x.source} for x in items],
    }
    _write_atomic(path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")


def write_exchange_csv(listings: Iterable[GuideListing], path: str | os.PathLike[str], *,
                       data_date: datetime | date_type | None = None) -> None:
    """Write listings as an exchange CSV file (module docstring) with ``# format`` and ``# generated_at``
    comment lines (``# data_date`` too when ``data_date`` is given: see :func:`write_exchange_json`) and the
    :data:`EXCHANGE_CSV_COLUMNS` header.

    Raises TypeError for an item that is not a GuideListing; ValueError when a firmware or feature value is
    empty, has surrounding spaces or contains ``;`` (the list separator); OSError from writing. The file is
    replaced atomically.
    """
    items = _check_listings(listings)
    buf = io.StringIO()
    buf.write(f"# format: {EXCHANGE_FORMAT} {EXCHANGE_FORMAT_VERSION}\r\n# generated_at: {_now_utc()}\r\n")
    if data_date is not None:
        buf.write(f"# data_date: {_date_text(data_date)}\r\n")
    writer = csv.writer(buf)
    writer.writerow(EXCHANGE_CSV_COLUMNS)
    for i, x in enumerate(items):
        for name in ("firmware", "features"):
            for value in getattr(x, name):
                if _LIST_SEP in value or not value.strip() or value != value.strip():
                    raise ValueError(f"listings[{i}].{name} value {value!r} cannot be written to CSV "
                                     f"(empty, padded or contains {_LIST_SEP!r})")
        writer.writerow([formula_escaped(v) for v in (  # no cell runs as a formula (issue 29 §15)
            x.vid, x.did, x.svid or "", x.ssid or "", x.vendor, x.model, x.release or "", x.driver or "",
            x.driver_version or "", x.driver_type or "", _LIST_SEP.join(x.firmware), _LIST_SEP.join(x.features),
            x.link or "", x.additional_firmware or "", x.source or "")])
    _write_atomic(path, buf.getvalue())
