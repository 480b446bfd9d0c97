"""The compatibility guide the user imported: kept, versioned, diffed and replaced atomically.

NIC Advisor ships no compatibility-guide data (no redistribution terms are published: vcg-data.md §1); the user
imports what they have — the vSAN HCL ``all.json``, saved Broadcom Compatibility Guide answers, answers of the older
VCG web API, or our exchange format (readers in :mod:`nicadvisor.vcg.guide_formats`).

Storage: ``<user data dir>/vcg/guide.json`` (``platformdirs.user_data_dir("nic-advisor")``), owner-only, one listing
a line::

    {"format": "nicadvisor-guide", "version": 3, "files": [...],      # version: +1 with every import that changes
    "listings":[                                                      #   something
    {GuideListing as a dict},
    ...
    ]}

``files`` are ``{"name", "sha256", "format", "data_date", "imported_at", "listings"}`` (:class:`ImportedFile`).

An import reads every given file first (nothing changes when one fails) and merges them with the current data: the
listings of one device (VID/DID/SVID/SSID) × release × kind of source (``GuideListing.source``: vSAN HCL, BCG
search answer, BCG details answer, old VCG API, unstated) that the new files name replace the earlier listings of
that same device × release × kind; everything else is kept. Two exceptions: a complete dump (the vSAN HCL
``all.json`` top-level layout, ``GuideFile.complete``) replaces all earlier data of its kind — devices it no longer
lists are removed, and the diff says so — and ``replace=True`` makes the new files the whole data. The diff lists
devices added, changed and removed, files added and dropped, and notes (a dump that replaced its kind, a current
guide that could not be read). A file imported again keeps its first import date. An import that changes nothing
writes nothing.

Bounds: an import that would store more than :data:`MAX_STORE_LISTINGS` listings or a file larger than
:data:`MAX_STORE_BYTES` (the limit a stored guide is read back with) is refused before anything is written
(:class:`GuideStoreError` naming the numbers). ``replace=True`` works even when the current guide cannot be read
(damaged, too large): it is then kept beside the new one, not loaded.

:func:`apply_import` writes the new version through a temporary file and ``os.replace`` (a crash leaves the old file
whole), keeps the previous one as ``guide.v<N>.json`` (the last :data:`KEEP_VERSIONS`), and first deletes temporary
files of the store that an interrupted import left (:func:`clean_stale_temp_files`: at once when their writer is
gone, else after :data:`STALE_TEMP_AFTER_S` seconds).

Age (as vSAN Health treats its HCL database): data older than :data:`WARN_AFTER_DAYS` days is a warning, older
than :data:`ERROR_AFTER_DAYS` days an error (:func:`staleness`). The age is that of the oldest file still in the
guide: its own data date (``timestamp`` of ``all.json``, ``generated_at``/``data_date`` of an exchange file), else —
for the formats that state none (BCG answers, the old VCG API, a vcfcheck snapshot) or a stated date later than the
import — its import date, and every text then says so ("date of the data not stated; imported on …").
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from nicadvisor.atomic_file import atomic_write
from nicadvisor.procinfo import process_start_ticks
from nicadvisor.vcg.guide_formats import GuideFile, GuideListing, read_guide_file

FORMAT = "nicadvisor-guide"
FILE_NAME = "guide.json"
KEEP_VERSIONS = 5
WARN_AFTER_DAYS = 90
ERROR_AFTER_DAYS = 180
#: The largest stored guide file read back (the vSAN HCL all.json is a few MB; its NIC part far less).
MAX_STORE_BYTES = 256 * 2**20
#: The most listings a stored guide may hold (memory stays bounded when it is read back).
MAX_STORE_LISTINGS = 500_000
#: Temporary files of the store (``.guide.*``) older than this are left over from an interrupted import (for a file
#: that does not name its writer; one that does is removed as soon as that process is gone).
STALE_TEMP_AFTER_S = 600
_TEMP_PREFIX = ".guide."
#: A temporary file's name after the prefix: the writer's pid and start time in clock ticks (``procinfo``).
_TEMP_OWNER = re.compile(r"(\d+)-(\d+)\.")
_LISTING_FIELDS = tuple(f.name for f in dataclasses.fields(GuideListing))
_KIND_TEXT = {"vsan-hcl": "vSAN HCL", "bcg-results": "Broadcom Compatibility Guide search answer",
              "bcg-details": "Broadcom Compatibility Guide details answer", "vcg-api": "VCG API answer"}


class GuideStoreError(Exception):
    """The stored guide cannot be read (the message names the file) or written, or an import would make it
    larger than it may be."""


def _date_of(text: str | None) -> _dt.date | None:
    if not text:
        return None
    try:
        return _dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


@dataclass(frozen=True)
class ImportedFile:
    """One imported file: its name (no folder), sha256, format (``vsan-hcl`` …), the date its data states
    (ISO, or None), when it was first imported (ISO UTC) and how many listings it gave."""

    name: str
    sha256: str
    format: str
    data_date: str | None
    imported_at: str
    listings: int

    def age_date(self) -> tuple[_dt.date | None, bool]:
        """``(date, stated)``: the data date the file states, or (``stated`` False) its import date when it
        states none or one later than its import (a clock or file error: never "fresher than imported")."""
        imported = _date_of(self.imported_at)
        stated = _date_of(self.data_date)
        if stated is not None and (imported is None or stated <= imported + _dt.timedelta(days=1)):
            return stated, True
        return imported, False

    def date_text(self) -> str:
        """``"data of 2026-10-01"``, or ``"date of the data not stated; imported on 2026-11-25"`` (a stated
        date later than the import is named and said not to be used)."""
        date, stated = self.age_date()
        if stated:
            return f"data of {date.isoformat()}"
        when = f"imported on {date.isoformat()}" if date else "import date unknown"
        if self.data_date:
            return f"stated data date {self.data_date[:10]} is later than its import, not used; {when}"
        return f"date of the data not stated; {when}"


@dataclass(frozen=True)
class GuideDataset:
    """The imported guide: ``version`` (1 for the first import), the files it came from, its listings."""

    version: int
    files: tuple[ImportedFile, ...]
    listings: tuple[GuideListing, ...]

    def age_basis(self) -> tuple[_dt.date, ImportedFile, bool] | None:
        """``(date, file, stated)`` of the oldest file (:meth:`ImportedFile.age_date`); None when no file has a
        readable date."""
        dated = [(d, f, stated) for f in self.files for d, stated in (f.age_date(),) if d is not None]
        return min(dated, key=lambda t: t[0]) if dated else None

    def data_date(self) -> _dt.date | None:
        """The oldest data date of its files (their import date when a file states none)."""
        basis = self.age_basis()
        return basis[0] if basis else None

    def describe(self) -> str:
        """``"all.json (vsan-hcl, data of 2026-10-01, sha256 3f2a…)"`` for each file (``date of the data not
        stated; imported on …`` for a file that states no date), ``; ``-joined: what a finding cites as its data."""
        return "; ".join(f"{f.name} ({f.format}, {f.date_text()}, sha256 {f.sha256[:12]}…)" for f in self.files)

    def for_device(self, vid: str, did: str) -> list[GuideListing]:
        """The listings of PCI device ``vid:did`` (any subsystem)."""
        return [g for g in self.listings if g.vid == vid and g.did == did]


@dataclass(frozen=True)
class GuideDiff:
    """What an import changes: devices (``vid:did svid:ssid model``) added, removed and changed (their
    listings differ), the number of listings added and removed, files added and dropped (``name (format,
    date)``), and notes that explain a change (a complete dump that replaced the data of its kind, a current guide
    that could not be read)."""

    devices_added: tuple[str, ...]
    devices_removed: tuple[str, ...]
    devices_changed: tuple[str, ...]
    listings_added: int
    listings_removed: int
    files_added: tuple[str, ...] = ()
    files_dropped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the import changes nothing (no device and no file record)."""
        return not (self.devices_added or self.devices_removed or self.devices_changed or self.files_added
                    or self.files_dropped)

    def lines(self, shown: int = 20) -> list[str]:
        """Human lines: one summary, then up to ``shown`` devices per kind, the files and the notes."""
        out = [f"{len(self.devices_added)} device(s) added, {len(self.devices_changed)} changed, "
               f"{len(self.devices_removed)} removed; {self.listings_added} listing(s) added, "
               f"{self.listings_removed} removed"]
        for sign, names in (("+", self.devices_added), ("~", self.devices_changed), ("-", self.devices_removed)):
            out += [f"  {sign} {n}" for n in names[:shown]]
            if len(names) > shown:
                out.append(f"  {sign} … and {len(names) - shown} more")
        out += [f"  + file {n}" for n in self.files_added] + [f"  - file {n}" for n in self.files_dropped]
        out += [f"note: {n}" for n in self.notes]
        return out


@dataclass(frozen=True)
class ImportPlan:
    """An import ready to apply: the current data (None before the first import, or when it could not be read and
    ``replace`` was asked), the new data, the diff, the files read and their warnings (skipped entries, each naming
    its file and JSON path or CSV line; doubtful readings). ``current_version`` is the version being replaced (0:
    none), ``unreadable`` why the current guide could not be read (then replaced whole, not loaded), ``keep_as``
    the name the current file is kept under, ``store_state`` what the guide file was when the plan was made (an
    import in between makes :func:`apply_import` refuse), ``stored_bytes`` the size the new guide file will have."""

    current: GuideDataset | None
    new: GuideDataset
    diff: GuideDiff
    read: tuple[GuideFile, ...]
    warnings: tuple[str, ...]
    current_version: int = 0
    unreadable: str | None = None
    keep_as: str | None = None
    store_state: tuple[int, int, int] | None = None
    stored_bytes: int = 0

    @property
    def unchanged(self) -> bool:
        """True when applying would change nothing (then nothing is written)."""
        return self.diff.empty and self.unreadable is None


def guide_dir() -> Path:
    """``<user data dir>/vcg`` (``platformdirs.user_data_dir("nic-advisor")``): persistent, unlike the cache
    database that is rebuilt from shipped data."""
    import platformdirs

    return Path(platformdirs.user_data_dir("nic-advisor")) / "vcg"


def _device_key(g: GuideListing) -> tuple[str, str, str | None, str | None]:
    return (g.vid, g.did, g.svid, g.ssid)


def _merge_key(g: GuideListing) -> tuple:
    """What a new listing renews: the same device × release × kind of source."""
    return (g.vid, g.did, g.svid, g.ssid, g.release, g.source)


def _device_name(key: tuple[str, str, str | None, str | None], model: str) -> str:
    vid, did, svid, ssid = key
    sub = f" {svid or '*'}:{ssid or '*'}" if svid or ssid else ""
    return f"{vid}:{did}{sub} {model}".strip()


def _listing_from_dict(d: dict[str, Any], where: str) -> GuideListing:
    try:
        values = {name: d.get(name) for name in _LISTING_FIELDS}
        for name in ("firmware", "features"):
            values[name] = tuple(str(x) for x in values[name] or ())
        for name in ("vid", "did", "vendor", "model"):
            if not isinstance(values[name], str):
                raise ValueError(f"{name} missing")
        return GuideListing(**values)
    except (TypeError, ValueError) as exc:
        raise GuideStoreError(f"{where}: not a guide listing ({exc})") from exc


def _chunks(ds: GuideDataset) -> Iterator[str]:
    """The stored guide file's text, a listing a chunk (what is written and what is counted before)."""
    head = json.dumps({"format": FORMAT, "version": ds.version, "files": [dataclasses.asdict(f) for f in ds.files]},
                      ensure_ascii=False)
    yield head[:-1] + ',\n"listings":['
    for i, g in enumerate(ds.listings):
        yield ("\n" if i == 0 else ",\n") + json.dumps({name: getattr(g, name) for name in _LISTING_FIELDS},
                                                        ensure_ascii=False, separators=(",", ":"))
    yield "\n]}\n"


def _stored_size(ds: GuideDataset) -> int:
    return sum(len(chunk.encode("utf-8")) for chunk in _chunks(ds))


_RECOVER = "import the guide again with: nic-advisor vcg import --replace FILE (the old file is kept beside it)"


def load_dataset(folder: Path | None = None) -> GuideDataset | None:
    """The imported guide in ``folder`` (default :func:`guide_dir`), or None when nothing was imported.

    Raises GuideStoreError for a file that is not ours, cannot be read, is larger than :data:`MAX_STORE_BYTES` or
    holds more than :data:`MAX_STORE_LISTINGS` listings (the message names it and says how to recover)."""
    path = (folder or guide_dir()) / FILE_NAME
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GuideStoreError(f"{path}: {exc.strerror or exc}") from exc
    if size > MAX_STORE_BYTES:
        raise GuideStoreError(f"{path}: {size} bytes, more than the {MAX_STORE_BYTES} a stored guide may have; "
                              f"{_RECOVER}")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise GuideStoreError(f"{path}: cannot be read as the imported guide ({exc}); {_RECOVER} (the previous "
                              f"versions are beside it)") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise GuideStoreError(f"{path}: not a NIC Advisor guide file (no \"format\": \"{FORMAT}\"); {_RECOVER}")
    raw_listings = doc.get("listings", [])
    if not isinstance(raw_listings, list) or len(raw_listings) > MAX_STORE_LISTINGS:
        raise GuideStoreError(f"{path}: listings is not a list of at most {MAX_STORE_LISTINGS}; {_RECOVER}")
    try:
        files = tuple(ImportedFile(**f) for f in doc.get("files", []))
    except TypeError as exc:
        raise GuideStoreError(f"{path}: files: {exc}") from exc
    listings = tuple(_listing_from_dict(d, f"{path}: listings[{i}]") for i, d in enumerate(raw_listings))
    return GuideDataset(int(doc.get("version", 0)), files, listings)


def diff_datasets(old: GuideDataset | None, new: GuideDataset, notes: Iterable[str] = ()) -> GuideDiff:
    """Devices, listings and files added, changed and removed from ``old`` to ``new``; ``notes`` are passed on."""
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
    old_files, new_files = set(old.files if old else ()), set(new.files)
    name = lambda f: f"{f.name} ({f.format}, {f.date_text()})"  # noqa: E731
    return GuideDiff(tuple(added), tuple(removed), tuple(changed), len(new_set - old_set), len(old_set - new_set),
                     tuple(name(f) for f in new.files if f not in old_files),
                     tuple(name(f) for f in (old.files if old else ()) if f not in new_files), tuple(notes))


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _store_state(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _peek_version(path: Path) -> int | None:
    """The ``version`` at the start of a stored guide that cannot be loaded (read without loading it), or None."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    m = re.search(r'"version"\s*:\s*(\d{1,9})\b', head)
    return int(m.group(1)) if m else None


def _kept_versions(base: Path) -> list[int]:
    return [v for v in (_version_of(p) for p in base.glob("guide.v*.json")) if v >= 0]


def _kind_text(kind: str | None) -> str:
    return _KIND_TEXT.get(kind or "", "unstated-source")


def plan_import(paths: Iterable[str | os.PathLike[str]], folder: Path | None = None, *,
                replace: bool = False, companion: str | os.PathLike[str] | None = None) -> ImportPlan:
    """Read ``paths`` and merge them with the current guide (see the module docstring); nothing is written.
    ``companion``: a saved Broadcom Compatibility Guide search answer naming the PCI IDs of a details answer that
    names none (:func:`nicadvisor.vcg.guide_formats.read_guide_file`).

    Raises :class:`nicadvisor.vcg.guide_formats.GuideFormatError` for a file that cannot be read as a guide
    (the message names it), GuideStoreError when the current guide cannot be read and ``replace`` is False, or
    when the new guide would hold more than :data:`MAX_STORE_LISTINGS` listings or :data:`MAX_STORE_BYTES` bytes,
    ValueError when no file is given or the files hold no listing at all."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("name at least one compatibility-guide file to import")
    base = folder or guide_dir()
    path = base / FILE_NAME
    state = _store_state(path)
    unreadable: str | None = None
    try:
        current = load_dataset(base)
    except GuideStoreError as exc:
        if not replace:
            raise
        current, unreadable = None, str(exc)
    peeked = _peek_version(path) if unreadable is not None else None
    if current is not None:
        current_version = current.version
    elif unreadable is not None:   # a damaged file's version, else the newest kept one's
        current_version = peeked if peeked is not None else max(_kept_versions(base), default=0)
    else:
        current_version = 0
    keep_as = None
    if state is not None:
        keep_as = (f"guide.v{current_version}.json" if current is not None or peeked is not None else
                   f"guide.unreadable-{_dt.datetime.now(_dt.timezone.utc):%Y%m%dT%H%M%S}.json")
    read: list[GuideFile] = []
    for p in paths:   # each file may give what the store has room for, so memory stays bounded while reading
        room = MAX_STORE_LISTINGS - sum(len(f.listings) for f in read)
        if room <= 0:
            raise GuideStoreError(f"the files give more than the {MAX_STORE_LISTINGS} listings a stored guide may "
                                  "hold; nothing was changed — import the part of the guide you need")
        read.append(read_guide_file(p, companion=companion, max_listings=room))
    fresh = [g for f in read for g in f.listings]
    if not fresh:  # say why each entry was refused (the column and its value), not only that nothing is left
        why = [w for f in read for w in f.warnings]
        shown = "; ".join(why[:8]) + (f"; and {len(why) - 8} more" if len(why) > 8 else "")
        raise ValueError("the files hold no device listing: " + ", ".join(str(p) for p in paths)
                         + (f". Every entry was skipped: {shown}" if why else ""))
    notes: list[str] = []
    dumps = [f for f in read if f.complete]
    dump_kinds = {f.format for f in dumps}
    old_listings = () if replace or current is None else current.listings
    old_files = () if replace or current is None else current.files
    # listings stored before they recorded their source can only come from the earlier files: when every one of
    # those is of a kind a dump replaces, they go with it
    all_old_replaced = bool(old_files) and all(f.format in dump_kinds for f in old_files)
    renewed = {_merge_key(g) for g in fresh}
    fresh_set = set(fresh)
    kept: list[GuideListing] = []
    dropped_by_dump = 0   # earlier listings a dump removes (not those it lists again)
    for g in old_listings:
        if g.source in dump_kinds or (g.source is None and all_old_replaced):
            dropped_by_dump += g not in fresh_set
        elif _merge_key(g) not in renewed:
            kept.append(g)
    listings = tuple(dict.fromkeys([*kept, *fresh]))
    now = _now()
    first_import = {f.sha256: f.imported_at for f in old_files}
    new_files = tuple(ImportedFile(Path(f.path).name, f.sha256, f.format,
                                   f.data_date.isoformat() if f.data_date else None,
                                   first_import.get(f.sha256, now), len(f.listings))
                      for f in read)
    names = {f.sha256 for f in new_files}
    kept_sources = {g.source for g in kept}
    replaced_files = [f for f in old_files if f.format in dump_kinds and f.sha256 not in names]

    def still_used(f: ImportedFile) -> bool:
        # listings do not name their file: a file stays while a kept listing may be one of its (its date keeps
        # counting for the age, the cautious side)
        if f.sha256 in names or f.format in dump_kinds:
            return False
        if f.format.startswith("exchange"):
            return bool(kept)
        return f.format in kept_sources or None in kept_sources

    files = tuple(f for f in old_files if still_used(f)) + new_files
    if dropped_by_dump or replaced_files:
        earlier = f" (file(s) {', '.join(f.name for f in replaced_files)})" if replaced_files else ""
        notes.append(f"{', '.join(Path(f.path).name for f in dumps)}: a complete {_kind_text(dumps[0].format)} "
                     f"dump replaces the earlier {_kind_text(dumps[0].format)} data{earlier}, "
                     f"{dropped_by_dump} listing(s): devices it no longer lists are removed")
    if unreadable is not None:
        notes.append(f"the current guide cannot be read ({unreadable}); --replace makes the new files the whole "
                     f"guide and keeps the unreadable file as {keep_as}")
    new = GuideDataset(current_version + 1, files, listings)
    if len(listings) > MAX_STORE_LISTINGS:
        raise GuideStoreError(f"the import would store {len(listings)} listings, more than the {MAX_STORE_LISTINGS} "
                              "a stored guide may hold; nothing was changed — import fewer files, or with --replace")
    size = _stored_size(new)
    if size > MAX_STORE_BYTES:
        raise GuideStoreError(f"the import would store {len(listings)} listings in {size} bytes, more than the "
                              f"{MAX_STORE_BYTES} bytes a stored guide may have (it could not be read back); nothing "
                              "was changed — import fewer or smaller files"
                              + ("" if replace or current is None else ", or with --replace"))
    warnings = tuple(w for f in read for w in f.warnings)
    return ImportPlan(current, new, diff_datasets(current, new, notes), tuple(read), warnings,
                      current_version=current_version, unreadable=unreadable, keep_as=keep_as, store_state=state, stored_bytes=size)


def _temp_prefix() -> str:
    """The name start of this process's temporary files: ``.guide.<pid>-<start ticks>.``."""
    pid = os.getpid()
    return f"{_TEMP_PREFIX}{pid}-{process_start_ticks(pid) or 0}."


def _writer_gone(name: str) -> bool | None:
    """Whether the process that wrote the temporary file ``name`` is gone (its pid runs no more, or runs another
    process); None when the name does not say who wrote it."""
    m = _TEMP_OWNER.match(name[len(_TEMP_PREFIX):])
    if m is None or not Path("/proc/self/stat").exists():
        return None
    ticks = process_start_ticks(int(m.group(1)))
    return ticks is None or str(ticks) != m.group(2)


def clean_stale_temp_files(folder: Path | None = None, older_than_s: float = STALE_TEMP_AFTER_S) -> list[Path]:
    """Delete the store's temporary files (``.guide.*``) left by an import that was killed while writing, and
    return them: at once when the file names its writer and that process is gone (a ``kill -9`` of ``vcg import
    --replace`` used to leave 7–59 MB behind for the next imports), else once it is older than ``older_than_s``
    seconds. The file of an import under way is kept."""
    base = folder or guide_dir()
    removed = []
    limit = time.time() - older_than_s
    for p in base.glob(f"{_TEMP_PREFIX}*"):
        try:
            gone = _writer_gone(p.name)
            if (p.is_file() or p.is_dir()) and (gone or (gone is None and p.stat().st_mtime < limit)):
                shutil.rmtree(p) if p.is_dir() else p.unlink()  # atomic_write's private folder, or an older file
                removed.append(p)
        except OSError:
            continue
    return removed


def apply_import(plan: ImportPlan, folder: Path | None = None) -> Path:
    """Write ``plan.new`` as the current guide, atomically, keeping the previous file as ``plan.keep_as``
    (``guide.v<N>.json``; the last :data:`KEEP_VERSIONS` are kept). Returns the guide file; writes nothing when
    ``plan.unchanged``. Stale temporary files of the store are deleted first (:func:`clean_stale_temp_files`).
    Raises GuideStoreError when the current guide changed since the plan was made (another import ran), OSError
    when the folder cannot be written."""
    base = folder or guide_dir()
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    clean_stale_temp_files(base)
    path = base / FILE_NAME
    if _store_state(path) != plan.store_state:
        raise GuideStoreError(f"{path} changed since this import was prepared; run the import again")
    if plan.unchanged:
        return path
    if plan.store_state is not None and plan.keep_as:
        previous = base / plan.keep_as
        previous.unlink(missing_ok=True)
        try:
            os.link(path, previous)   # the same bytes, not read into memory (the file may be a large one)
        except OSError:
            shutil.copyfile(path, previous)
        os.chmod(previous, 0o600)
        for old in sorted(base.glob("guide.v*.json"), key=lambda p: _version_of(p))[:-KEEP_VERSIONS]:
            old.unlink(missing_ok=True)

    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8") as fh:
            for chunk in _chunks(plan.new):
                fh.write(chunk)

    atomic_write(path, _write, private=True, temp_prefix=_temp_prefix())  # see clean_stale_temp_files
    return path


def _version_of(path: Path) -> int:
    try:
        return int(path.name.removeprefix("guide.v").removesuffix(".json"))
    except ValueError:
        return -1


def staleness(dataset: GuideDataset, today: _dt.date | None = None) -> tuple[str, str] | None:
    """``("warning" | "error", message)`` when the guide's data is older than :data:`WARN_AFTER_DAYS` /
    :data:`ERROR_AFTER_DAYS` days on ``today`` (default: today, UTC); None when fresh or undated. The message
    names the date the age is counted from and whether it is the data's own date or, the data stating none, its
    import date."""
    basis = dataset.age_basis()
    if basis is None:
        return None
    date, f, stated = basis
    today = today or _dt.datetime.now(_dt.timezone.utc).date()
    age = (today - date).days
    if age > ERROR_AFTER_DAYS:
        level = "error"
    elif age > WARN_AFTER_DAYS:
        level = "warning"
    else:
        return None
    when = (f"data of {date.isoformat()}" if stated else
            f"{f.name} states no date of its data: counted from its import on {date.isoformat()}, so the data may "
            "be older")
    return level, (f"the imported compatibility guide data is {age} days old ({when}; more than "
                   f"{ERROR_AFTER_DAYS if level == 'error' else WARN_AFTER_DAYS} days): listings added since are "
                   f"missing and withdrawn ones still count")
