"""ESXi vm-support bundles (``esx-<host>-<YYYY-MM-DD>--<HH.MM>.tgz`` or the extracted folder).

Which bundle files are read, and as which command: those the command catalogue names in its ``bundle_files``
(:func:`nicadvisor.commands.bundle_command`: ``commands/nicinfo.sh.txt`` as ``nicinfo.sh``, ``commands/vmware_-vl.txt``
as ``vmware -vl``, ``commands/esxcfg-vswitch_-l.txt``, ``esxcfg-vmknic_-l.txt``, ``esxcfg-nics_-l.txt``/``_-e.txt``,
``lspci_-v.txt``/``lspci_-p.txt``, ``localcli_network-nic-list.txt`` …, and ``var/run/log/vmkernel.log`` (or
``var/log/``) as ``cat /var/run/log/vmkernel.log``), and every other ``commands/localcli_<a>-<b>-<c>.txt`` as
``esxcli <a> <b> <c>`` (vm-support's file-name rule for the esxcli commands it runs). Layout and file-name rule:
shared/design/research/vm-support-bundles.md §1.3-§1.6, §2.

Other files are not read. Fragmented files (``*.FRAG-00000`` …) are joined in order.
"""
from __future__ import annotations

import gzip
import lzma
import os
import re
import stat
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from nicadvisor import commands
from nicadvisor.parsers.capture_file import MAX_CAPTURE_BYTES, Capture

_LOCALCLI = re.compile(r"^localcli_([a-z][a-z-]*)\.txt$")
_NAME_RE = re.compile(r"^esx-(?P<host>.+?)-\d{4}-\d{2}-\d{2}--\d{2}\.\d{2}")


#: What reading a corrupt or truncated tar, gzip or xz archive raises.
ARCHIVE_ERRORS = (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError)


class BundleError(ValueError):
    """The file is not a readable vm-support bundle (names the file)."""


@dataclass(frozen=True)
class BundleMember:
    """A bundle file path relative to the bundle root, and the command it is parsed as."""

    path: str
    command: str


def command_for(rel_path: str) -> str | None:
    """The command a bundle file (``rel_path`` below the bundle root) holds the output of, or None if the file is
    not read (see the module docstring)."""
    rel = rel_path.replace("\\", "/")
    named = commands.bundle_command(rel)
    if named is not None:
        return named
    if not rel.startswith("commands/"):
        return None
    m = _LOCALCLI.match(rel.split("/", 1)[1])
    if m:
        return "esxcli " + " ".join(m.group(1).split("-"))
    return None


def host_name_from_bundle(name: str) -> str:
    """``esx-prod-vmware01-2013-08-12--14.06.tgz`` → ``prod-vmware01``; otherwise the stem."""
    stem = re.sub(r"\.(tgz|tar\.gz|tar\.xz|tar)$", "", name)
    m = _NAME_RE.match(stem)
    return m.group("host") if m else stem


#: The most capture text one bundle may yield (bytes, after joining fragments): past it the rest is not read.
MAX_BUNDLE_BYTES = 64 * 1024 * 1024
#: The largest single read the archive may ask for: a member of MAX_CAPTURE_BYTES plus its headers. A long-name
#: (GNU LongLink) or PAX header announcing more (a "header bomb": 1 MB of gzip claiming GBs) is refused.
MAX_READ_BYTES = MAX_CAPTURE_BYTES + 1024 * 1024
#: The suffix vm-support gives the parts of a file split in fragments (``name.FRAG-00000``, ``name.FRAG-00001`` …).
_FRAG_RE = re.compile(r"\.FRAG-\d{5}$")
#: At most this many fragments (``*.FRAG-NNNNN``) are joined into one file.
MAX_FRAGMENTS = 64
#: Folders deeper than this inside an extracted bundle are not read.
MAX_BUNDLE_DEPTH = 16
#: At most this many archive members are looked at (a real ESXi 7/8 vm-support bundle holds tens of thousands):
#: a small archive of a million empty members would otherwise cost a gigabyte and most of a minute.
MAX_MEMBERS = 200_000
#: An archive is unpacked to at most this many bytes, or :data:`MAX_UNPACKED_RATIO` times its own size when that is
#: more, while it is read: skipping a member means unpacking it (gzip and xz streams cannot be skipped), and a 10 MB
#: ``.tar.xz`` of zeros unpacks to 64 GiB (minutes of CPU). Real support bundles compress their logs about 10:1.
MAX_UNPACKED_BYTES = 1 << 30
#: See :data:`MAX_UNPACKED_BYTES`: a real bundle is far below 100:1, a compression bomb far above.
MAX_UNPACKED_RATIO = 100


class _BoundedReader:
    """A file object for :mod:`tarfile` that refuses any read larger than :data:`MAX_READ_BYTES` (so a header that
    announces gigabytes fails at once instead of being allocated)."""

    def __init__(self, raw) -> None:
        self.raw = raw

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > MAX_READ_BYTES:
            raise tarfile.HeaderError(f"the archive asks to read {'all' if size is None or size < 0 else size} "
                                      f"bytes at once (more than {MAX_READ_BYTES}): a corrupt or hostile header")
        return self.raw.read(size)

    def seek(self, *args):
        return self.raw.seek(*args)

    def tell(self):
        return self.raw.tell()

    def close(self) -> None:
        self.raw.close()


def _strip_root(names: list[str]) -> dict[str, tuple[str, str]]:
    """Map member name → (root folder, path relative to that bundle root): ``commands/…``/``var/…`` and what is above
    them (``esx-a-2026-…/``, or ``""`` when the archive has no top folder)."""
    out = {}
    for n in names:
        parts = n.strip("/").split("/")
        for i in range(len(parts)):
            rel = "/".join(parts[i:])
            if rel.startswith(("commands/", "var/")):
                out[n] = ("/".join(parts[:i]), rel)
                break
    return out


def _open_archive(path: Path):
    """A streaming :mod:`tarfile` reader of a plain, gzip or xz (a sosreport's ``.tar.xz``) tar archive, every read
    bounded by :class:`_BoundedReader`."""
    with open(path, "rb") as fh:
        magic = fh.read(6)
    if magic[:2] == b"\x1f\x8b":
        raw = gzip.open(path, "rb")
    elif magic == b"\xfd7zXZ\x00":
        raw = lzma.open(path, "rb")
    else:
        raw = open(path, "rb")
    try:
        return tarfile.open(fileobj=_BoundedReader(raw), mode="r:")
    except BaseException:
        raw.close()
        raise


def archive_members(tar: tarfile.TarFile, path: Path, skipped: list[str]):
    """The members of the streaming archive ``tar`` (of ``path``), in order, at most :data:`MAX_MEMBERS` (past them
    ``skipped`` says the rest was not read), and none past the first member that ends beyond
    :data:`MAX_UNPACKED_BYTES` (or :data:`MAX_UNPACKED_RATIO` times the archive's size) unpacked. Headers are not kept: tarfile keeps every header it read, and a bundle
    holds tens of thousands; only what the caller keeps is kept."""
    seen = 0
    try:
        limit = max(MAX_UNPACKED_BYTES, MAX_UNPACKED_RATIO * os.path.getsize(path))
    except OSError:
        limit = MAX_UNPACKED_BYTES
    while (m := tar.next()) is not None:
        tar.members.clear()
        seen += 1
        if seen > MAX_MEMBERS:
            skipped.append(f"{path}: more than {MAX_MEMBERS} members: the rest of the archive was not read")
            return
        yield m
        if m.offset_data + m.size > limit:  # the next header lies past it: unpacking to it would cost the whole size
            skipped.append(f"{path}: unpacks to more than {limit} bytes (a compression bomb, or a member "
                           f"{m.name!r} of {m.size} bytes): the rest of the archive after it was not read")
            return


def _folder_members(path: Path, skipped: list[str]) -> dict[str, Path]:
    """Regular files of an extracted bundle folder, walked without following folder links; a file link that leaves
    the bundle, FIFOs and devices are skipped with a message naming them."""
    base = path.resolve()
    files: dict[str, Path] = {}
    def unreadable(exc: OSError) -> None:  # os.walk left an unreadable sub-folder out silently
        skipped.append(f"{exc.filename}: skipped: the folder cannot be read ({exc.strerror or exc})")

    for top, dirs, names in os.walk(path, followlinks=False, onerror=unreadable):
        depth = len(Path(top).relative_to(path).parts)
        if depth >= MAX_BUNDLE_DEPTH:
            skipped.append(f"{top}: skipped: more than {MAX_BUNDLE_DEPTH} folders deep in the bundle")
            dirs[:] = []
        for d in list(dirs):
            if os.path.islink(os.path.join(top, d)):
                skipped.append(f"{os.path.join(top, d)}: skipped: a folder link inside the bundle is not followed")
                dirs.remove(d)
        for name in names:
            p = Path(top) / name
            try:
                real = p.resolve(strict=True)
                mode = real.stat().st_mode
            except (OSError, RuntimeError) as exc:
                skipped.append(f"{p}: skipped: {getattr(exc, 'strerror', None) or exc}")
                continue
            if p.is_symlink() and base not in real.parents:
                skipped.append(f"{p}: skipped: a link to {real}, outside the bundle")
                continue
            if not stat.S_ISREG(mode):
                skipped.append(f"{p}: skipped: not a regular file")
                continue
            files[str(p.relative_to(path))] = p
    return files


def read_bundle(path: Path) -> tuple[list[Capture], list[str]]:
    """Read the NIC-related outputs of a vm-support bundle (``.tgz`` file or extracted folder).

    Returns (captures, skipped) where ``skipped`` lists what was not read, each naming the member and why: an
    unreadable member, a link (in an archive; in a folder, one leaving the bundle), a FIFO or device, a member or
    bundle over its byte budget (:data:`MAX_CAPTURE_BYTES` per file, :data:`MAX_BUNDLE_BYTES` per bundle,
    :data:`MAX_FRAGMENTS` fragments per file, :data:`MAX_MEMBERS` members per archive), a corrupt tail. An archive holding several bundle roots
    (``esx-a-…/commands``, ``esx-b-…/commands``) gives captures whose ``host`` is each root's host name.
    Raises BundleError naming ``path`` when it is not a tar/gzip archive or holds no ``commands/``.
    """
    skipped: list[str] = []
    has_commands: bool | None = None  # an archive: whether it has commands/ (only the files read are kept)
    if path.is_dir():
        files = _folder_members(path, skipped)

        def read(member: str) -> bytes:
            with open(files[member], "rb") as fh:
                return fh.read(MAX_CAPTURE_BYTES + 1)

        names = list(files)
        tar = None
    else:
        try:
            tar = _open_archive(path)
        except ARCHIVE_ERRORS as exc:
            raise BundleError(f"{path}: not a vm-support bundle (not a readable .tgz archive: {exc})") from exc
        infos: dict[str, tarfile.TarInfo] = {}
        has_commands = False
        try:
            for m in archive_members(tar, path, skipped):
                if m.isfile():
                    rel = _strip_root([m.name]).get(m.name)
                    if rel is None:
                        continue
                    has_commands = has_commands or rel[1].startswith("commands/")
                    if command_for(_FRAG_RE.sub("", rel[1])) is not None:
                        infos[m.name] = m  # only the files read are kept: a bundle holds tens of thousands
                elif (m.issym() or m.islnk()) and _strip_root([m.name]):
                    skipped.append(f"{path}:{m.name}: skipped: a link member ({'symbolic' if m.issym() else 'hard'} "
                                   f"link to {m.linkname}) is not followed")
        except ARCHIVE_ERRORS as exc:
            if not infos:
                tar.close()
                tar.fileobj.close()
                raise BundleError(f"{path}: truncated or corrupt vm-support bundle: {exc}") from exc
            skipped.append(f"{path}: the archive is truncated or corrupt after {len(infos)} files ({exc}); "
                           "the files before that point were read")

        def read(member: str) -> bytes:
            f = tar.extractfile(infos[member])
            return f.read(min(infos[member].size, MAX_CAPTURE_BYTES + 1)) if f else b""  # bounded by its size

        names = list(infos)
    try:
        return _captures(path, names, read, skipped, has_commands,
                         offset=None if tar is None else (lambda m: infos[m].offset_data))
    finally:
        if tar is not None:
            tar.close()
            tar.fileobj.close()  # tarfile does not close a file object it was given


def _captures(path: Path, names: list[str], read, skipped: list[str],
              has_commands: bool | None = None, offset=None) -> tuple[list[Capture], list[str]]:
    """The captures of the bundle members ``names`` (``has_commands``: whether the bundle has a ``commands/`` folder,
    when ``names`` holds only the members that are read; None: look in ``names``). ``offset(member)``: where an
    archive member's data starts; the files are then read in archive order, since a gzip stream read backwards is
    decompressed again from its start (8,000 members took minutes); the captures keep the order of their names."""
    rel = _strip_root(names)
    if has_commands is None:
        has_commands = any(r.startswith("commands/") for _root, r in rel.values())
    if not has_commands:
        if skipped:  # there was a commands/ folder, but nothing in it could be read: say why
            raise BundleError(f"{path}: nothing readable in commands/: " + "; ".join(skipped[:3]))
        raise BundleError(f"{path}: no commands/ folder, so not an ESXi vm-support bundle")
    roots = sorted({root for root, _r in rel.values()})
    # join fragments: name.FRAG-00000, name.FRAG-00001 ...
    groups: dict[tuple[str, str], list[str]] = {}
    for m in names:
        if m not in rel:
            continue
        root, r = rel[m]
        groups.setdefault((root, _FRAG_RE.sub("", r)), []).append(m)
    captures: list[tuple[tuple[str, str], Capture]] = []
    total = 0
    order = sorted(groups.items())
    if offset is not None:
        order.sort(key=lambda item: min(offset(m) for m in item[1]))
    for (root, base), parts in order:
        command = command_for(base)
        if command is None:
            continue
        where = f"{path}:{root + '/' if root and len(roots) > 1 else ''}{base}"
        if len(parts) > MAX_FRAGMENTS:
            skipped.append(f"{where}: {len(parts)} fragments; only the first {MAX_FRAGMENTS} are joined")
            parts = sorted(parts)[:MAX_FRAGMENTS]
        data = bytearray()
        try:
            for part in sorted(parts):
                data += read(part)
                if len(data) > MAX_CAPTURE_BYTES:
                    skipped.append(f"{where}: more than {MAX_CAPTURE_BYTES} bytes; the rest is not read")
                    del data[MAX_CAPTURE_BYTES:]
                    break
        except ARCHIVE_ERRORS as exc:
            skipped.append(f"{where}: unreadable ({exc})")
            continue
        if total + len(data) > MAX_BUNDLE_BYTES:
            skipped.append(f"{where}: not read: the bundle already gave {total} bytes (at most {MAX_BUNDLE_BYTES})")
            continue
        total += len(data)
        host = host_name_from_bundle(root.rsplit("/", 1)[-1]) if len(roots) > 1 and root else None
        captures.append(((root, base), Capture(source=where, command=command,
                                               text=bytes(data).decode("utf-8", errors="replace"), host=host)))
    return [c for _key, c in sorted(captures, key=lambda kc: kc[0])], skipped


#: The most capture text a tarball of capture files may yield (bytes), as for a vm-support bundle.
MAX_ARCHIVE_CAPTURE_BYTES = MAX_BUNDLE_BYTES


def read_capture_archive(path: Path) -> tuple[list[Capture], list[str]]:
    """The captures of a ``.tgz``/``.tar.gz``/``.tar`` of capture files or collection files (a collector script's
    folder, ``tar czf host.tgz nic-advisor-HOST-DATE``), read in place without extracting: each regular member whose
    name does not start with ``.`` is read as :func:`~nicadvisor.parsers.capture_file.parse_capture_text` or, when it
    starts with the collection mark, :func:`~nicadvisor.parsers.capture_file.parse_collection_text`; its source is
    ``<archive>:<member>``. Returns (captures, what was not read: links, members that are no captures, members or an
    archive over its budget, a corrupt tail). Raises BundleError naming ``path`` when it is not a tar/gzip archive."""
    from nicadvisor.parsers.capture_file import CaptureError, is_collection, parse_capture_text, parse_collection_text

    try:
        tar = _open_archive(path)
    except ARCHIVE_ERRORS as exc:
        raise BundleError(f"{path}: not a readable .tgz archive: {exc}") from exc
    captures: list[Capture] = []
    skipped: list[str] = []
    members: list[tuple[str, bytes]] = []
    total = seen = 0
    try:
        for m in archive_members(tar, path, skipped):
            seen += 1
            where = f"{path}:{m.name}"
            if m.issym() or m.islnk():
                skipped.append(f"{where}: skipped: a link member is not followed")
                continue
            if not m.isfile() or m.name.rpartition("/")[2].startswith("."):
                continue
            if m.size > 4 * MAX_CAPTURE_BYTES or total + m.size > MAX_ARCHIVE_CAPTURE_BYTES:
                skipped.append(f"{where}: not read: {m.size} bytes is over the archive's budget")
                continue
            f = tar.extractfile(m)
            # exactly the member's size (already bounded above), never a 64 MB request per member: 100,000 small
            # members under a 2 GB address-space cap died with MemoryError (issue 29 §12)
            data = f.read(m.size) if f else b""
            total += len(data)
            members.append((m.name, data))
    except ARCHIVE_ERRORS as exc:
        skipped.append(f"{path}: the archive is truncated or corrupt after {seen} members ({exc}); the members "
                       "before that point were read")
    finally:
        tar.close()
        tar.fileobj.close()
    for name, data in sorted(members):  # in name order, as a folder is read (the first reading of a fact wins)
        where = f"{path}:{name}"
        try:
            if is_collection(data):
                more, unread = parse_collection_text(where, data)
                captures += more
                skipped += unread
            elif len(data) > MAX_CAPTURE_BYTES:
                skipped.append(f"{where}: {len(data)} bytes is too large for a command capture")
            else:
                captures.append(parse_capture_text(where, data))
        except CaptureError as exc:
            skipped.append(f"not a capture: {exc}")
    return captures, skipped
