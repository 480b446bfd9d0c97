"""ESXi build number → release, from the shipped, cited table ``resources/vcg/esxi_builds.csv``.

Hosts report a version and a build (vSphere API ``AboutInfo.version``/``AboutInfo.build``, ``esxcli system
version get`` "Build: Releasebuild-22380479", ``vmware -vl`` "VMware ESXi 8.0.2 build-22380479"); the
compatibility guide names releases ("ESXi 8.0 U2", "ESXi 7.0 U3"). :func:`guide_release` turns the first into
the second, using the build when the table knows it and the version text otherwise.

The table (one row per build, sorted by build, no duplicates)
    ``build``         ESXi build number (int).
    ``version``       the release's version string in the shape of the host's ``AboutInfo.version``:
                      ``x.y.u`` for 7.0/8.0, the third number being the update level (Broadcom KB 395110
                      "Unified VCF Versioning in ESXi Release", https://knowledge.broadcom.com/external/article/395110:
                      ``<major>.<minor>.<update>-…``, e.g. 8.0 U2 = ``8.0.2-0.0.22380479``); ``x.y.0`` for 6.x, whose
                      hosts print ``6.7.0`` for every update (``VMware ESXi 6.7.0 build-14320388`` is the 6.7 U3
                      build in github.com/CronUp/EnAnalisis ``2023-02-03_Ransomware_VMwareESXi_Versions``);
                      ``x.y.z.a`` for ESX 9 (KB 395110).
    ``label``         the release as its source names it, "Update N" shortened to "UN" (``ESXi 8.0 U2b``,
                      ``ESXi 7.0b``, ``ESX 9.0.0.0100``).
    ``update_label``  the compatibility-guide release it belongs to, in
                      :func:`nicadvisor.vcg.normalize.release_label` form: a patch maps to its update
                      (``ESXi 7.0 U3c`` → ``ESXi 7.0 U3``), ``7.0b`` to ``ESXi 7.0``, an ESX 9 patch to its x.y
                      (``ESX 9.0.0.0100`` → ``ESX 9.0``).
    ``release_date``  ISO date the source states, empty when the source states none.
    ``source``        where the row was read (URL or repository + path + commit); several joined with `` ; ``.

Where the rows come from (every row names its own source)
    * ESXi 6.0 / 6.5 / 6.7 / 7.0 GA–U2a: VMware KB 2143832 "Build numbers and versions of VMware ESXi/ESX" (now
      Broadcom KB 316595), as transcribed on 2021-05-07 in
      ``dominikzorgnotti/vmware_product_releases_machine-readable``.
      Only releases whose KB name states the update level are kept (``ESXi 6.5 U2c``, ``ESXi 6.0 Update 1b``,
      ``ESXi 6.5.0d``); express patches and patches named only ``EP nn``/``Pnn`` are left out, because the KB does
      not say which update they belong to (for example ``ESXi 6.0 Update 1 (VMSA-2017-0006)``, build 5251621, was
      released after 6.0 U3 for the U1 line).
    * ESXi 8.0: ``vmware/vcfcheck`` ``Data/MarketingVersionAliases/EsxMarketingVersionAliases.json``.
    * Later 7.0 and some 8.0 patches: VMware's own CVE records (CNA "vmware", ``CVEProject/cvelistV5``), whose
      "fixed in" names carry the build (``ESXi70U3s-24585291``), and the IBM Cloud VMware Solutions BOM page.
    * ESX 9.0: Broadcom VCF 9.0 / ESX 9.0.0.0100 release notes.

Unknown builds
    A build that is not in the table is **not** placed by its neighbours: build numbers of different lines
    interleave (6.0 U1 build 5251621 is higher than 6.0 U3's 5050593), so a gap says nothing. An unknown build
    gives None from :func:`release_of_build`, and :func:`guide_release` then uses the version text alone — which
    names the update only for 7.0 and 8.0 (``7.0.3``). A 6.x host prints ``6.7.0`` for every update, so a 6.x
    build that is not in the table (a patch after 6.7 U3 such as 17700523, "ESXi 6.7 P05", whose KB name states
    no update) gives None, "update unknown", never the GA release; the ``Update N`` line ``vmware -vl`` prints
    (``VMware ESXi 6.7.0 Update 3``: the host's ``product_update``, which :func:`host_release` passes as ``level``)
    decides it when it was read. The vSphere API gives no such level (``AboutInfo`` has version and build; its
    ``patchLevel`` exists only from vSphere API 7.0.2, whose versions carry the update already).

ESX 9 releases
    ESX 9 is versioned ``major.minor.maintenance.patch`` (KB 395110): a maintenance release (``9.0.1.0``) or an
    express patch (``9.0.0.0100``) belongs to its ``major.minor`` release, and the compatibility guide names only
    those (``ESX 9.0``, ``ESX 9.1``: :func:`nicadvisor.vcg.guide_formats.normalise_release`). ``9.0.1.0`` is
    therefore ``ESX 9.0``, never "ESX 9.0 U1", a label no guide uses.
"""
from __future__ import annotations

import csv
import datetime as _dt
import functools
import io
import re
from dataclasses import dataclass
from pathlib import Path

from nicadvisor.paths import vcg_resource
from nicadvisor.vcg.db import VcgDataError
from nicadvisor.vcg.normalize import parse_host_version, parse_release, release_label

BUILDS_FILE_NAME = "esxi_builds.csv"
COLUMNS = ("build", "version", "label", "update_label", "release_date", "source")

_BUILD_RE = re.compile(r"^\s*(?:(?:release)?build[-\s:]*)?(\d{1,12})\s*$", re.I)
_VERSION_RE = re.compile(r"^\d+\.\d+\.\d+(?:\.\d+)?$")
#: The release level ``vmware -vl`` prints on its second line (``GA``, ``Update 3``, ``U3``), or in a version text.
_LEVEL_RE = re.compile(r"^\s*(?:GA|U(?:pdate)?\s*(\d+)[a-z]?)\s*$", re.I)
_UPDATE_IN_TEXT_RE = re.compile(r"\b(?:GA\b|U(?:pdate)?\s*\d+)", re.I)


@dataclass(frozen=True)
class EsxiBuild:
    """One row of ``esxi_builds.csv``.

    ``build`` ESXi build number; ``version`` the release's version string (``"8.0.2"``, ``"6.7.0"``,
    ``"9.0.0.0100"``); ``label`` the release as the source names it (``"ESXi 8.0 U2b"``); ``update_label`` the
    compatibility-guide release (``"ESXi 8.0 U2"``); ``release_date`` the date the source states, or None;
    ``source`` the citation.
    """

    build: int
    version: str
    label: str
    update_label: str
    release_date: _dt.date | None
    source: str


def parse_build(value: int | str | None) -> int | None:
    """The build number of ``22380479``, ``"22380479"``, ``"build-22380479"`` or ``"Releasebuild-22380479"``.

    Case and surrounding blanks are ignored. None for anything else (empty, other text, zero, negative, bool).
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    m = _BUILD_RE.match(str(value))
    if not m:
        return None
    number = int(m.group(1))
    return number if number > 0 else None


def builds_csv_path() -> Path:
    """The ``esxi_builds.csv`` the application ships.

    Looked up like the NIC seed data: a frozen bundle (``sys._MEIPASS/resources/vcg``), the data folder of
    :func:`nicadvisor.paths.find_project_root` (``resources/vcg``), package data (``nicadvisor/vcg``).
    Raises FileNotFoundError naming every place tried.
    """
    return vcg_resource(BUILDS_FILE_NAME, "the ESXi build table")


def _fail(origin: str, line: int, message: str) -> VcgDataError:
    return VcgDataError(f"{origin} line {line}: {message}")


def _row(raw: dict[str, str], origin: str, line: int) -> EsxiBuild:
    """One validated row; raises VcgDataError naming ``origin`` and ``line``."""
    cells = {k: (raw.get(k) or "").strip() for k in COLUMNS}
    if not cells["build"].isdigit() or int(cells["build"]) <= 0:
        raise _fail(origin, line, f"build {cells['build']!r} is not a positive number")
    if not _VERSION_RE.match(cells["version"]):
        raise _fail(origin, line, f"version {cells['version']!r} is not x.y.z or x.y.z.a")
    for column in ("label", "update_label", "source"):
        if not cells[column]:
            raise _fail(origin, line, f"{column} is empty")
    release = parse_release(cells["update_label"])
    if release is None or release[1] is None or release_label(*release) != cells["update_label"]:
        raise _fail(origin, line, f"update_label {cells['update_label']!r} is not a canonical release label")
    named = parse_host_version(cells["label"])
    if named is None or named[:2] != release[:2] or (named[0] < 9 and (named[2] or 0) != release[2]):
        raise _fail(origin, line, f"label {cells['label']!r} does not name release {cells['update_label']!r}")
    version = parse_host_version(cells["version"])
    assert version is not None  # _VERSION_RE matched
    if version[:2] != release[:2] or (7 <= version[0] < 9 and (version[2] or 0) != release[2]):
        raise _fail(origin, line, f"version {cells['version']!r} contradicts {cells['update_label']!r}")
    date: _dt.date | None = None
    if cells["release_date"]:
        try:
            date = _dt.date.fromisoformat(cells["release_date"])
        except ValueError:
            raise _fail(origin, line, f"release_date {cells['release_date']!r} is not YYYY-MM-DD") from None
    return EsxiBuild(int(cells["build"]), cells["version"], cells["label"], cells["update_label"], date,
                     cells["source"])


def read_builds(text: str, origin: str = BUILDS_FILE_NAME) -> tuple[EsxiBuild, ...]:
    """Parse and check the CSV text: header exactly :data:`COLUMNS`, builds strictly increasing.

    Every row must be consistent: ``update_label`` a canonical release label, ``label`` naming that release,
    ``version`` of the same major.minor (and, for 7.0 and 8.0, the same update; an ESX 9 maintenance release such
    as ``9.0.1.0`` belongs to ``ESX 9.0``). Raises VcgDataError naming ``origin`` and the line.
    """
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise _fail(origin, 1, f"header {reader.fieldnames!r} is not {','.join(COLUMNS)}")
    rows: list[EsxiBuild] = []
    for raw in reader:
        row = _row(raw, origin, reader.line_num)
        if rows and row.build <= rows[-1].build:
            raise _fail(origin, reader.line_num, f"build {row.build} is not above {rows[-1].build} (sorted, unique)")
        rows.append(row)
    return tuple(rows)


@functools.lru_cache(maxsize=1)
def load_builds() -> tuple[EsxiBuild, ...]:
    """The shipped table (:func:`builds_csv_path`), read once. Raises FileNotFoundError or VcgDataError."""
    path = builds_csv_path()
    return read_builds(path.read_text(encoding="utf-8"), str(path))


@functools.lru_cache(maxsize=1)
def _by_build() -> dict[int, EsxiBuild]:
    return {row.build: row for row in load_builds()}


def release_of_build(build: int | str | None) -> EsxiBuild | None:
    """The table row of an exact build (any form :func:`parse_build` accepts), or None when unknown.

    No neighbour guessing: a build between two known ones is unknown (see the module docstring).
    """
    number = parse_build(build)
    return None if number is None else _by_build().get(number)


def parse_level(text: str | None) -> int | None:
    """The update level of a release-level text: ``"GA"`` → 0, ``"Update 3"`` / ``"U3"`` / ``"Update 3b"`` → 3;
    None for anything else (empty, unreadable)."""
    if not text:
        return None
    m = _LEVEL_RE.match(str(text))
    if not m:
        return None
    return int(m.group(1)) if m.group(1) is not None else 0


def level_from_records(records) -> str | None:
    """The release level (``"Update 3"``, ``"GA"``) a ``vmware -vl`` output states, from the ``records`` of its
    :class:`nicadvisor.parsers.base.ParseResult` (``{"family": "vmware -vl", "fields": {"version", "level"}}``);
    None when none does. Other records are ignored."""
    for record in records or ():
        if isinstance(record, dict) and record.get("family") == "vmware -vl":
            level = (record.get("fields") or {}).get("level")
            if parse_level(level) is not None:
                return str(level)
    return None


def guide_release(product_version: str | None, build: int | str | None, level: str | None = None) -> str | None:
    """The compatibility-guide release of a host: ``"ESXi 8.0 U2"``, ``"ESXi 6.7 U3"``, ``"ESX 9.0"``; None when
    the release **with its update level** is not known.

    1. A known build gives its row's ``update_label`` (this is how 6.x hosts, which print ``6.7.0`` for every
       update, get their update level), unless a readable ``product_version`` names another major.minor: the
       build is then not trusted and the version decides.
    2. Otherwise the version text, when it states the update: 7.0 / 8.0 versions carry it as their third number
       (``"8.0.2"`` → ``"ESXi 8.0 U2"``, ``"7.0.0"`` → ``"ESXi 7.0"``), which a ``level`` does not override (the
       two come from different lines, possibly of different outputs); any version may name it (``"6.7.0 Update
       3"`` → ``"ESXi 6.7 U3"``); ``level`` is the release level ``vmware -vl`` printed (``"Update 3"``, ``"GA"``,
       :attr:`nicadvisor.model.Host.product_update`, see :func:`level_from_records`) and decides it for a 6.x
       version. ESX 9: the ``major.minor`` release (``"9.0.1.0"`` → ``"ESX 9.0"``, see the module docstring).
    3. None otherwise: a 6.x version without a known build or level (``"6.7.0"`` with build 17700523, a patch of
       6.7 U3 the table does not hold) has an unknown update — it is **not** taken for the GA release —, and
       nothing readable gives None. Unknown builds are never placed by their neighbours.
    """
    host = parse_host_version(product_version)
    row = release_of_build(build)
    if row is not None:
        row_release = parse_release(row.update_label)
        if host is None or (row_release is not None and row_release[:2] == host[:2]):
            return row.update_label
    if host is None:
        return None
    major, minor, update = host
    if major >= 9:
        return release_label(major, minor, 0)
    if major >= 7 and update is not None:
        return release_label(major, minor, update)     # 7.0 / 8.0: the third number is the update level
    stated = parse_level(level)
    if stated is None and product_version and _UPDATE_IN_TEXT_RE.search(product_version):
        stated = update if update is not None else 0   # "6.7.0 Update 3", "VMware ESXi 8.0 Update 3", "6.7.0 GA"
    if stated is None and major >= 7:
        stated = update                                 # 7.0 / 8.0: the third number is the update level
    return None if stated is None else release_label(major, minor, stated)


def host_release(host, level: str | None = None) -> str | None:
    """:func:`guide_release` of an audited :class:`nicadvisor.model.Host`: its ``product_version``, ``build`` and
    ``product_update`` (the release level ``vmware -vl`` printed, e.g. ``"Update 3"``), or the ``level`` given
    instead. The one place that turns a host into its compatibility-guide release. None for a host that is not
    ESXi, and when the release with its update is not known (:func:`release_unknown_reason` says why)."""
    if getattr(host, "kind", None) not in ("esxi", None):
        return None
    if level is None:
        level = getattr(host, "product_update", None)
    return guide_release(host.product_version, host.build, level)


def release_unknown_reason(host) -> str:
    """Why :func:`host_release` is None for ``host``: what was read, what is missing, and the read-only command
    that tells it (``vmware -vl``, whose second line names the update level: ``VMware ESXi 6.7.0 Update 3``)."""
    version, build = host.product_version, host.build
    update = getattr(host, "product_update", None)
    if not version and not build:
        return (f"the ESXi release of {host.name} was not read (run vmware -vl: it prints the version, the build "
                f"and the update level)")
    parsed = parse_host_version(version) if version else None
    if version and parsed is None:
        return f"the ESXi version {version!r} of {host.name} was not understood (run vmware -vl)"
    example = f"'VMware ESXi {version or '6.7.0'} Update 3'"
    read = f"ESXi {version}" + (f", build {build}" if build else "") if version else f"ESXi build {build}"
    if update and parse_level(update) is None:
        return (f"the version of {host.name} was read ({read}), but its update level {update!r} was not understood "
                f"(run vmware -vl: its second line names the update, e.g. {example})")
    if not version:
        what = "version" if update else "version and update level"
        return (f"the build of {host.name} was read ({read}), but not its {what}: build {build} is not in the build "
                f"table (run vmware -vl: it prints the version, the build and the update level)")
    missing: list[str] = []
    if parsed and parsed[0] < 7:
        missing.append(f"ESXi {parsed[0]}.x prints {version} for every update")
    row = release_of_build(build) if build else None
    if not build:
        missing.append("no build was read")
    elif row is None:
        missing.append(f"build {build} is not in the build table")
    else:
        missing.append(f"build {build} is that of {row.label} (not ESXi {version})")
    missing.append("no update level was read")
    return (f"the version of {host.name} was read ({read}), but its update level was not: "
            f"{', '.join(missing[:-1])} and {missing[-1]} (run vmware -vl: its second line names the update, e.g. "
            f"{example})")


def release_text(host) -> str:
    """The ESXi release of ``host`` as every host row and page shows it: ``"ESXi 7.0 U3 (7.0.3, build 22348816)"``
    when :func:`host_release` knows it; ``"ESXi 6.7.0, build 17700523 — update not known (run vmware -vl)"`` when only
    part was read; ``"not read (run vmware -vl)"`` when nothing was; ``""`` for a host that is not ESXi."""
    if getattr(host, "kind", None) != "esxi":
        return ""
    read = ", ".join(x for x in (host.product_version, f"build {host.build}" if host.build else "",
                                 getattr(host, "product_update", None) or "") if x)
    release = host_release(host)
    if release is not None:
        return f"{release} ({read})"
    if not read:
        return "not read (run vmware -vl)"
    return f"ESXi {read} — update not known (run vmware -vl)"
