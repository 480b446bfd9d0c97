"""The compatibility guide the user imported: kept, versioned, diffed and replaced atomically.

NIC Advisor ships no compatibility-guide data (no redistribution terms are published: vcg-data.md §1); the user
imports what they have — the vSAN HCL ``all.json``, saved Broadcom Compatibility Guide answers, answers of the older
VCG web API, or our exchange format (readers in :mod:`nicadvisor.vcg.guide_formats`).

Storage: ``<user data dir>/vcg/guide.json`` (``platformdirs.user_data_dir("nic-advisor")``), owner-only::

    {"format": "nicadvisor-guide", "version": 3,            # increases by one with every import
     "files": [{"name", "sha256", "format", "data_date", "imported_at", "listings"}],
     "listings": [GuideListing as a dict, ...]}

An import reads every given file first (nothing changes when one fails), merges them with the current data — the
listings of a device (VID/DID/SVID/SSID) that the new files name replace that device's earlier listings, other
devices keep theirs (``replace=True``: the new files are the whole data) — and computes the diff (devices and
listings added, changed, removed). :func:`apply_import` writes the new version through a temporary file and
``os.replace`` (a crash leaves the old file whole) and keeps the previous one as ``guide.v<N>.json`` (the last
:data:`KEEP_VERSIONS`).

Age (as vSAN Health treats its HCL database): data older than :data:`WARN_AFTER_DAYS` days is a warning, older
than :data:`ERROR_AFTER_DAYS` days an error (:func:`staleness`). The age is that of the oldest file's own data date
(``timestamp`` of ``all.json``), else its import date.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from nicadvisor.vcg.guide_formats import GuideFile, GuideListing, read_guide_file

FORMAT = "nicadvisor-guide"
FILE_NAME = "guide.json"
KEEP_VERSIONS = 5
WARN_AFTER_DAYS = 90
ERROR_AFTER_DAYS = 180
#: The largest stored guide file read back (the vSAN HCL all.json is a few MB; its NIC part far less).
MAX_STORE_BYTES = 256 * 2**20


class GuideStoreError(Exception):
    """The stored guide cannot be read (the message names the file) or written."""


@dataclass(frozen=True)
class ImportedFile:
    """One imported file: its name (no folder), sha256, format (``vsan-hcl`` …), the date its data states
    (ISO, or None), when it was imported (ISO UTC) and how many listings it gave."""

    name: str
    sha256: str
    format: str
    data_date: str | None
    imported_at: str
    listings: int


@dataclass(frozen=True)
class GuideDataset:
    """The imported guide: ``version`` (1 for the first import), the files it came from, its listings."""

    version: int
    files: tuple[ImportedFile, ...]
    listings: tuple[GuideListing, ...]

    def data_date(self) -> _dt.date | None:
        """The oldest data date of its files (their import date when a file states none)."""
        dates = []
        for f in self.files:
            text = f.data_date or f.imported_at
            try:
                dates.append(_dt.date.fromisoformat(text[:10]))
            except ValueError:
                continue
        return min(dates) if dates else None

    def describe(self) -> str:
        """``"all.json (vsan-hcl, data of 2026-10-01, sha256 3f2a…)"`` for each file, ``; ``-joined: what a
        finding cites as its data."""
        return "; ".join(f"{f.name} ({f.format}, data of {(f.data_date or f.imported_at)[:10]}, sha256 "
                         f"{f.sha256[:12]}…)" for f in self.files)

    def for_device(self, vid: str, did: str) -> list[GuideListing]:
        """The listings of PCI device ``vid:did`` (any subsystem)."""
        return [g for g in self.listings if g.vid == vid and g.did == did]


@dataclass(frozen=True)
class GuideDiff:
    """What an import changes: devices (``vid:did svid:ssid model``) added, removed and changed (their
    listings differ), and the number of listings added and removed."""

    devices_added: tuple[str, ...]
    devices_removed: tuple[str, ...]
    devices_changed: tuple[str, ...]
    listings_added: int
    listings_removed: int

    @property
    def empty(self) -> bool:
        """True when the import changes nothing."""
        return not (self.devices_added or self.devices_removed or self.devices_changed)

    def lines(self, shown: int = 20) -> list[str]:
        """Human lines: one summary, then up to ``shown`` devices per kind."""
        out = [f"{len(self.devices_added)} device(s) added, {len(self.devices_changed)} changed, "
               f"{len(self.devices_removed)} removed; {self.listings_added} listing(s) added, "
               f"{self.listings_removed} removed"]
        for sign, names in (("+", self.devices_added), ("~", self.devices_changed), ("-", self.devices_removed)):
            out += [f"  {sign} {n}" for n in names[:shown]]
            if len(names) > shown:
                out.append(f"  {sign} … and {len(names) - shown} more")
        return out


@dataclass(frozen=True)
class ImportPlan:
    """An import ready to apply: the current data (None before the first import), the new data, the diff, the
    files read and their warnings (skipped entries, each naming its file and JSON path or CSV line)."""

    current: GuideDataset | None
    new: GuideDataset
    diff: GuideDiff
    read: tuple[GuideFile, ...]
    warnings: tuple[str, ...]


def guide_dir() -> Path:
    """``<user data dir>/vcg`` (``platformdirs.user_data_dir("nic-advisor")``): persistent, unlike the cache
    database that is rebuilt from shipped data."""
    import platformdirs

    return Path(platformdirs.user_data_dir("nic-advisor")) / "vcg"


def _device_key(g: GuideListing) -> tuple[str, str, str | None, str | None]:
    return (g.vid, g.did, g.svid, g.ssid)


def _device_name(key: tuple[str, str, str | None, str | None], model: str) -> str:
    vid, did, svid, ssid = key
    sub = f" {svid or '*'}:{ssid or '*'}" if svid or ssid else ""
    return f"{vid}:{did}{sub} {model}".strip()


def _listing_from_dict(d: dict[str, Any], where: str) -> GuideListing:
    try:
        values = {f.name: d.get(f.name) for f in dataclasses.fields(GuideListing)}
        for name in ("firmware", "features"):
            values[name] = tuple(str(x) for x in values[name] or ())
        for name in ("vid", "did", "vendor", "model"):
            if not isinstance(values[name], str):
                raise ValueError(f"{name} missing")
        return GuideListing(**values)
    except (TypeError, ValueError) as exc:
        raise GuideStoreError(f"{where}: not a guide listing ({exc})") from exc


def _dataset_to_json(ds: GuideDataset) -> dict[str, Any]:
    return {"format": FORMAT, "version": ds.version, "files": [dataclasses.asdict(f) for f in ds.files],
            "listings": [dataclasses.asdict(g) for g in ds.listings]}


def load_dataset(folder: Path | None = None) -> GuideDataset | None:
    """The imported guide in ``folder`` (default :func:`guide_dir`), or None when nothing was imported.

    Raises GuideStoreError for a file that is not ours or cannot be read (the message names it)."""
    path = (folder or guide_dir()) / FILE_NAME
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GuideStoreError(f"{path}: {exc.strerror or exc}") from exc
    if size > MAX_STORE_BYTES:
        raise GuideStoreError(f"{path}: {size} bytes, more than the {MAX_STORE_BYTES} a stored guide may have")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GuideStoreError(f"{path}: cannot be read as the imported guide ({exc}); import the guide again "
                              f"(the previous versions are beside it)") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise GuideStoreError(f"{path}: not a NIC Advisor guide file (no \"format\": \"{FORMAT}\")")
    try:
        files = tuple(ImportedFile(**f) for f in doc.get("files", []))
    except TypeError as exc:
        raise GuideStoreError(f"{path}: files: {exc}") from exc
    listings = tuple(_listing_from_dict(d, f"{path}: listings[{i}]") for i, d in enumerate(doc.get("listings", [])))
    return GuideDataset(int(doc.get("version", 0)), files, listings)


def diff_datasets(old: GuideDataset | None, new: GuideDataset) -> GuideDiff:
    """Devices and listings added, changed and removed from ``old`` to ``new``."""
    def by_device(ds: GuideDataset | None) -> dict[tuple, set[GuideListing]]:
        out: dict[tuple, set[GuideListing]] = {}
        for g in ds.listings if ds else ():
            out.setdefault(_device_key(g), set()).add(g)
        return out

    before, after = by_device(old), by_device(new)
    models = {k: next(iter(v)).model for k, v in {**before, **after}.items()}
    added = sorted(_device_name(k, models[k]) for k in after.keys() - before.keys())
    removed = sorted(_device_name(k, models[k]) for k in before.keys() - after.keys())
    changed = sorted(_device_name(k, models[k]) for k in after.keys() & before.keys() if after[k] != before[k])
    old_set = set().union(*before.values()) if before else set()
    new_set = set().union(*after.values()) if after else set()
    return GuideDiff(tuple(added), tuple(removed), tuple(changed), len(new_set - old_set), len(old_set - new_set))


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def plan_import(paths: Iterable[str | os.PathLike[str]], folder: Path | None = None, *,
                replace: bool = False, companion: str | os.PathLike[str] | None = None) -> ImportPlan:
    """Read ``paths`` and merge them with the current guide (see the module docstring); nothing is written.
    ``companion``: a saved Broadcom Compatibility Guide search answer naming the PCI IDs of a details answer that
    names none (:func:`nicadvisor.vcg.guide_formats.read_guide_file`).

    Raises :class:`nicadvisor.vcg.guide_formats.GuideFormatError` for a file that cannot be read as a guide
    (the message names it), GuideStoreError when the current guide cannot be read, ValueError when no file is
    given or the files hold no listing at all."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("name at least one compatibility-guide file to import")
    current = load_dataset(folder)
    read = [read_guide_file(p, companion=companion) for p in paths]
    fresh = [g for f in read for g in f.listings]
    if not fresh:
        raise ValueError("the files hold no device listing: " + ", ".join(str(p) for p in paths))
    renewed = {_device_key(g) for g in fresh}
    kept = () if replace or current is None else tuple(g for g in current.listings
                                                       if _device_key(g) not in renewed)
    listings = tuple(dict.fromkeys(kept + tuple(fresh)))
    now = _now()
    new_files = tuple(ImportedFile(Path(f.path).name, f.sha256, f.format,
                                   f.data_date.isoformat() if f.data_date else None, now, len(f.listings))
                      for f in read)
    names = {f.sha256 for f in new_files}
    # earlier files stay named while any of their listings is kept (listings do not record their file: an earlier
    # file's date keeps counting for the age, the cautious side)
    old_files = () if replace or current is None or not kept else tuple(
        f for f in current.files if f.sha256 not in names)
    new = GuideDataset((current.version if current else 0) + 1, old_files + new_files, listings)
    warnings = tuple(w for f in read for w in f.warnings)
    return ImportPlan(current, new, diff_datasets(current, new), tuple(read), warnings)


def apply_import(plan: ImportPlan, folder: Path | None = None) -> Path:
    """Write ``plan.new`` as the current guide, atomically, keeping the previous version as ``guide.v<N>.json``
    (the last :data:`KEEP_VERSIONS`). Returns the file written. Raises GuideStoreError when the current guide
    changed since the plan was made (another import ran), OSError when the folder cannot be written."""
    base = folder or guide_dir()
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = base / FILE_NAME
    now = load_dataset(base)
    if (now.version if now else 0) != (plan.current.version if plan.current else 0):
        raise GuideStoreError(f"{path} changed since this import was prepared (version "
                              f"{now.version if now else 0}); run the import again")
    if plan.current is not None and path.exists():
        previous = base / f"guide.v{plan.current.version}.json"
        previous.write_bytes(path.read_bytes())
        os.chmod(previous, 0o600)
        for old in sorted(base.glob("guide.v*.json"), key=lambda p: _version_of(p))[:-KEEP_VERSIONS]:
            old.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".guide.", dir=base)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(_dataset_to_json(plan.new), fh, indent=1, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _version_of(path: Path) -> int:
    try:
        return int(path.name.removeprefix("guide.v").removesuffix(".json"))
    except ValueError:
        return -1


def staleness(dataset: GuideDataset, today: _dt.date | None = None) -> tuple[str, str] | None:
    """``("warning" | "error", message)`` when the guide's data is older than :data:`WARN_AFTER_DAYS` /
    :data:`ERROR_AFTER_DAYS` days on ``today`` (default: today, UTC); None when fresh or undated."""
    date = dataset.data_date()
    if date is None:
        return None
    today = today or _dt.datetime.now(_dt.timezone.utc).date()
    age = (today - date).days
    if age > ERROR_AFTER_DAYS:
        level = "error"
    elif age > WARN_AFTER_DAYS:
        level = "warning"
    else:
        return None
    return level, (f"the imported compatibility guide data is {age} days old (data of {date.isoformat()}; "
                   f"more than {ERROR_AFTER_DAYS if level == 'error' else WARN_AFTER_DAYS} days): listings added "
                   f"since are missing and withdrawn ones still count")
