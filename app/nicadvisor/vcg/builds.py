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
    gives None from :func:`release_of_build`, and :func:`guide_release` then uses the version text alone.
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
    if named is None or (named[0], named[1], named[2] or 0) != release:
        raise _fail(origin, line, f"label {cells['label']!r} does not name release {cells['update_label']!r}")
    version = parse_host_version(cells["version"])
    assert version is not None  # _VERSION_RE matched
    if version[:2] != release[:2] or (version[0] >= 7 and (version[2] or 0) != release[2]):
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
    ``version`` of the same major.minor (and, for 7.0 and later, the same update). Raises VcgDataError naming
    ``origin`` and the line.
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


def guide_release(product_version: str | None, build: int | str | None) -> str | None:
    """The compatibility-guide release of a host: ``"ESXi 8.0 U2"``, ``"ESXi 6.7 U3"``, ``"ESX 9.0"``.

    1. A known build gives its row's ``update_label`` (this is how 6.x hosts, which print ``6.7.0`` for every
       update, get their update level), unless a readable ``product_version`` names another major.minor: the
       build is then not trusted and the version decides.
    2. Otherwise the version text: ``"8.0.2"`` → ``"ESXi 8.0 U2"``, ``"7.0.0"`` → ``"ESXi 7.0"``,
       ``"6.7.0 Update 3"`` → ``"ESXi 6.7 U3"``, ``"9.0.0.0"`` → ``"ESX 9.0"``. A version without an update level
       reads as update 0 (:func:`nicadvisor.vcg.normalize.parse_host_version`): for 6.x pass the ``Update``
       field of ``esxcli system version get`` along (``"6.7.0 Update 3"``), or the result is the x.y base release.
    3. None when neither the build is known nor the version readable. Unknown builds are never placed by their
       neighbours.
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
    return release_label(major, minor, update or 0)
