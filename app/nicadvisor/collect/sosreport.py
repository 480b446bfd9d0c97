"""Reading a sosreport (an extracted ``sosreport-…/`` folder, or its ``.tar.xz``/``.tar.gz``/``.tar`` archive) into
captures: one host, its NIC outputs only. Which files are read and as which command is
:mod:`nicadvisor.parsers.sosreport`; this module does the bounded I/O, as :mod:`nicadvisor.collect.bundle` does for
vm-support bundles (the same per-file, per-report and per-archive budgets).
"""
from __future__ import annotations

import os
from pathlib import Path

from nicadvisor.collect.bundle import (
    ARCHIVE_ERRORS, MAX_BUNDLE_BYTES, BundleError, _folder_members, _open_archive, archive_members,
)
from nicadvisor.parsers.capture_file import MAX_CAPTURE_BYTES, Capture
from nicadvisor.parsers.sosreport import HOSTNAME_FILES, READ_FOLDERS, SOS_COMMANDS, command_for, host_name

#: The first folders of a report's own files: an archive member below one of them is of a report packed without its
#: folder (``tar cJf x.tar.xz sos_commands proc …`` run inside it).
_REPORT_TOPS = frozenset(f.split("/", 1)[0] for f in READ_FOLDERS)
#: The most interfaces whose ``ethtool`` outputs are read from one report: a host's ports, bonds, VLANs, bridges and
#: a few hundred container ``veth`` ends fit; a report naming 200,000 (a small archive of tiny files) cost minutes.
MAX_INTERFACES = 1024
#: The most of a ``hostname`` file read (bytes): a host name is at most 253 characters.
_MAX_HOSTNAME_BYTES = 1024


def _kind(path: Path) -> str:
    """``file`` for a regular file (links followed), else ``other``, never raising (a folder that cannot be read)."""
    try:
        return "file" if path.is_file() else "other"
    except OSError:
        return "other"


def is_sosreport_folder(path: Path) -> bool:
    """Whether ``path`` is an extracted sosreport: a folder holding ``sos_commands/`` (no link followed). False for a
    folder that cannot be looked into (its reader names it: Path.is_dir raises PermissionError there, which ended
    the audit with exit 3)."""
    sub = path / SOS_COMMANDS
    try:
        return path.is_dir() and sub.is_dir() and not sub.is_symlink()
    except OSError:
        return False


def _wanted(rel: str) -> bool:
    return rel in HOSTNAME_FILES or command_for(rel) is not None


def read_sosreport(path: Path) -> tuple[str, list[Capture], list[str]]:
    """The host name, the captures and what was not read of the sosreport ``path`` (a folder or an archive).

    Each file :func:`~nicadvisor.parsers.sosreport.command_for` names becomes a capture of that command, its source
    ``<path>:<file below the report root>``; only :data:`~nicadvisor.parsers.sosreport.READ_FOLDERS` are walked in a
    folder. Budgets as for a vm-support bundle: a file over
    :data:`~nicadvisor.parsers.capture_file.MAX_CAPTURE_BYTES` is cut there, the report stops at
    :data:`~nicadvisor.collect.bundle.MAX_BUNDLE_BYTES`, an archive at :data:`~nicadvisor.collect.bundle.MAX_MEMBERS`
    members; links are not followed out of the report. Every file not read says why in the returned list.
    Raises BundleError naming ``path`` when it is not a readable folder or archive or holds no ``sos_commands/``.
    """
    if path.is_dir():
        return _read_folder(path)
    return _read_archive(path)


def _read_folder(path: Path) -> tuple[str, list[Capture], list[str]]:
    if not is_sosreport_folder(path):
        raise BundleError(f"{path}: no {SOS_COMMANDS}/ folder, so not a sosreport")
    skipped: list[str] = []
    files: dict[str, Path] = {}
    for folder in READ_FOLDERS:
        sub = path / folder
        try:
            if sub.is_symlink():  # said, as a folder link inside a bundle is: its files are not the report's
                skipped.append(f"{sub}: skipped: a folder link inside the report is not followed")
            elif sub.is_dir():
                files.update({f"{folder}/{rel.replace(os.sep, '/')}": p
                              for rel, p in _folder_members(sub, skipped).items()})
        except OSError as exc:  # a folder above it that cannot be looked into (chmod 0): named, the rest read
            skipped.append(f"{sub}: skipped: cannot be read ({exc.strerror or exc})")
    base = path.resolve()
    for name in HOSTNAME_FILES:  # the report root's own ``hostname`` (a link into sos_commands/ in sos 3 and 4)
        if "/" not in name and _kind(path / name) == "file" and base in (path / name).resolve().parents:
            files.setdefault(name, path / name)

    def read(rel: str, limit: int) -> bytes:
        with open(files[rel], "rb") as fh:
            return fh.read(limit)

    return _captures(path, path.name, sorted(r for r in files if _wanted(r)), read, skipped)


def _read_archive(path: Path) -> tuple[str, list[Capture], list[str]]:
    try:
        tar = _open_archive(path)
    except ARCHIVE_ERRORS + (ValueError,) as exc:
        raise BundleError(f"{path}: not a sosreport (not a readable archive: {exc})") from exc
    skipped: list[str] = []
    data: dict[str, bytes] = {}
    root = ""
    has_sos = False
    total = seen = 0
    try:
        for m in archive_members(tar, path, skipped):
            seen += 1
            top, _, rel = m.name.strip("/").partition("/")
            if not rel or top in _REPORT_TOPS:  # the report folder itself, or a report packed without one
                top, rel = "", m.name.strip("/")
            has_sos = has_sos or rel == SOS_COMMANDS or rel.startswith(SOS_COMMANDS + "/")
            if not _wanted(rel):
                continue
            root = root or top
            if top != root:
                skipped.append(f"{path}:{m.name}: skipped: a second report folder in one archive is not read")
                continue
            if not m.isfile():
                skipped.append(f"{path}:{m.name}: skipped: not a regular file (a link member is not followed)")
                continue
            # a host name file is read only as far as a host name goes: 16 MB ones spent the report's budget
            limit = _MAX_HOSTNAME_BYTES if command_for(rel) is None else MAX_CAPTURE_BYTES + 1
            if total + min(m.size, limit) > MAX_BUNDLE_BYTES:
                skipped.append(f"{path}:{m.name}: not read: the report already gave {total} bytes "
                               f"(at most {MAX_BUNDLE_BYTES})")
                continue
            f = tar.extractfile(m)
            data[rel] = f.read(min(m.size, limit)) if f else b""
            total += len(data[rel])
    except ARCHIVE_ERRORS + (ValueError,) as exc:
        if not data:
            raise BundleError(f"{path}: truncated or corrupt sosreport archive: {exc}") from exc
        skipped.append(f"{path}: the archive is truncated or corrupt after {seen} members ({exc}); the files "
                       "before that point were read")
    finally:
        tar.close()
        tar.fileobj.close()  # tarfile does not close a file object it was given
    if not has_sos:
        raise BundleError(f"{path}: no {SOS_COMMANDS}/ folder, so not a sosreport")
    name = root or path.name.split(".tar", 1)[0]
    return _captures(path, name, sorted(data), lambda rel, limit: data[rel][:limit], skipped)


def _captures(path: Path, root_name: str, rels: list[str], read, skipped: list[str]) -> tuple[str, list[Capture],
                                                                                              list[str]]:
    """The host name and captures of the report files ``rels`` (``read(rel, limit)`` gives at most ``limit``
    bytes of one)."""
    hostname = None
    for name in HOSTNAME_FILES:
        if name in rels:
            try:
                hostname = read(name, _MAX_HOSTNAME_BYTES).decode("utf-8", errors="replace")
            except OSError as exc:
                skipped.append(f"{path}:{name}: unreadable ({exc.strerror or exc})")
                continue
            break
    host = host_name(root_name, hostname)
    captures: list[Capture] = []
    total = 0
    nics: set[str] = set()
    left_out = 0
    for rel in rels:
        command = command_for(rel)
        if command is None:
            continue
        if command.startswith("ethtool "):
            nic = command.rsplit(" ", 1)[-1]
            if nic not in nics and len(nics) >= MAX_INTERFACES:
                left_out += 1
                continue
            nics.add(nic)
        where = f"{path}:{rel}"
        try:
            raw = read(rel, MAX_CAPTURE_BYTES + 1)
        except OSError as exc:
            skipped.append(f"{where}: unreadable ({exc.strerror or exc})")
            continue
        if len(raw) > MAX_CAPTURE_BYTES:
            skipped.append(f"{where}: more than {MAX_CAPTURE_BYTES} bytes; the rest is not read")
            raw = raw[:MAX_CAPTURE_BYTES]
        if total + len(raw) > MAX_BUNDLE_BYTES:
            skipped.append(f"{where}: not read: the report already gave {total} bytes (at most {MAX_BUNDLE_BYTES})")
            continue
        total += len(raw)
        captures.append(Capture(source=where, command=command, text=raw.decode("utf-8", errors="replace"),
                                host=host))
    if left_out:  # one message, not one per file: the count is what a hostile report makes large
        skipped.append(f"{path}: ethtool outputs of more than {MAX_INTERFACES} interfaces: {left_out} files of the "
                       f"interfaces past the first {MAX_INTERFACES} (in name order) were not read")
    return host, captures, skipped
