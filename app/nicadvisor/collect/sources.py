"""From paths given by the user to groups of captures, one group per host.

How a path is read (also documented in the README, "Capture folders"):

* a ``.tgz``/``.tar.gz``/``.tar`` file, or a folder holding ``commands/``: one ESXi vm-support bundle = one host,
  named from the bundle name (``esx-<host>-<date>--<time>.tgz``); a ``.tgz`` without ``commands/`` is read as a
  sosreport when it holds ``sos_commands/``, else as a tarball of capture files (a collector script's folder:
  ``tar czf esxi01.tgz nic-advisor-esxi01-…``);
* a folder holding ``sos_commands/`` or a ``.tar.xz`` file: one Linux sosreport = one host, named by its
  ``hostname`` output (:mod:`nicadvisor.collect.sosreport`); a ``.tar.xz`` without ``sos_commands/`` is read as a
  tarball of capture files;
* a single capture file: one host, named by its ``# host:`` header, else by the file's folder — unless the shell
  prompts of its pasted session name two or more hosts that each printed an output (``[root@a ~]#`` …
  ``[root@b ~]#``; :func:`nicadvisor.parsers.registry.session_hosts`): then each of those hosts gets the outputs after
  its own prompts, named as its prompts name it (the first by a ``# host:`` header that names none of them), and a
  note says that the file held that many hosts;
* a collection file (many captures in one file, as the collector script writes them with ``--stdout``:
  :func:`nicadvisor.parsers.capture_file.parse_collection_text`): read as that many capture files in its folder;
* a folder holding capture files: one host named after the folder — unless files carry a
  ``# host:`` header, which puts them on the host of that name;
* a lab folder: each sub-folder (and each bundle) inside is read as above.

Files starting with ``.`` and ``README*`` files are ignored. Every file that is not a readable capture
becomes an :class:`~nicadvisor.model.InputProblem` naming it; nothing raises for bad input.
"""
from __future__ import annotations

import dataclasses
import os
import re
import stat
from pathlib import Path

from nicadvisor.parsers.assemble import HostInputs
from nicadvisor.collect.bundle import BundleError, host_name_from_bundle, read_bundle, read_capture_archive
from nicadvisor.collect.sosreport import is_sosreport_folder, read_sosreport
from nicadvisor.parsers.capture_file import (
    MAX_CAPTURE_BYTES, Capture, CaptureError, is_collection, parse_capture_text, parse_collection_text,
)
from nicadvisor.parsers.registry import session_hosts
from nicadvisor.model import InputProblem

_BUNDLE_SUFFIXES = (".tgz", ".tar.gz", ".tar", ".tar.xz")


#: Folders deeper than this below a given path are not read (said, not silently): a capture lab is two or three
#: levels deep; 1,200 nested folders used to end the audit with a RecursionError.
MAX_DEPTH = 32
#: At most this many entries are looked at below one given path (bounded time on a huge share).
MAX_ENTRIES = 50_000
#: The most capture text one audit reads from files and bundles (characters); inputs past it are not read.
MAX_AUDIT_CHARS = 256 * 1024 * 1024


#: A pasted session is cut into the hosts its prompts name only while the audit holds fewer hosts than this: one
#: 40 KB paste names up to 1,000 hosts (registry.MAX_ECHO_LINES), and eight such files were 8,000 hosts (over a
#: minute of CPU). Past it the paste is read as one host, the other hosts' outputs named as not read.
MAX_SESSION_HOSTS = 2000

#: The largest collection file read (bytes): a collector script's output of a large host, vmkernel.log lines included.
MAX_COLLECTION_BYTES = 4 * MAX_CAPTURE_BYTES


def read_captures(path: Path) -> tuple[list[Capture], list[str]]:
    """The captures of a capture file (one) or of a collection file (many; see
    :func:`~nicadvisor.parsers.capture_file.parse_collection_text`), and what of a collection could not be read.
    Raises CaptureError (or OSError) naming the file for a file that is neither, or too large: over
    :data:`~nicadvisor.parsers.capture_file.MAX_CAPTURE_BYTES` (a collection: :data:`MAX_COLLECTION_BYTES`), refused
    before it is read."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(64)
    if not is_collection(head):
        return [read_capture(path)], []
    if size > MAX_COLLECTION_BYTES:
        raise CaptureError(f"{path}: {size} bytes is too large for a collection (at most {MAX_COLLECTION_BYTES})")
    return parse_collection_text(str(path), path.read_bytes())


def read_capture(path: Path, source: str | None = None) -> Capture:
    """Read a capture file (:mod:`nicadvisor.parsers.capture_file` gives its format). Raises CaptureError (or
    OSError) with the file named in the message; a file over :data:`~nicadvisor.parsers.capture_file.MAX_CAPTURE_BYTES`
    is refused before it is read."""
    size = path.stat().st_size
    if size > MAX_CAPTURE_BYTES:
        raise CaptureError(f"{path}: {size} bytes is too large for a command capture")
    return parse_capture_text(source or str(path), path.read_bytes())


def _ignored(p: Path) -> bool:
    return p.name.startswith(".") or p.name.upper().startswith("README")


def _kind(p: Path) -> str:
    """``file``, ``dir``, ``missing`` or what else the path is (``FIFO``, ``character device`` …), links followed."""
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    for test, word in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return word
    return "special file"


def _is_bundle(p: Path, kind: str | None = None) -> bool:
    kind = kind or _kind(p)
    return (kind == "file" and p.name.endswith(_BUNDLE_SUFFIXES)) or (
        kind == "dir" and (_kind(p / "commands") == "dir" or is_sosreport_folder(p)))


def _bundle_host(p: Path, hosts: dict[str, HostInputs], problems: list[InputProblem]) -> None:
    if is_sosreport_folder(p):
        _sosreport_host(p, hosts, problems)
        return
    if p.name.endswith(".tar.xz"):  # a sosreport, or a collector script's folder packed with xz
        if not (_sosreport_host(p, hosts, problems, quiet=True) or _capture_archive(p, hosts, problems)):
            problems.append(InputProblem(str(p), "neither a sosreport (no sos_commands/ folder) nor an archive of "
                                                 "capture files"))
        return
    try:
        captures, skipped = read_bundle(p)
    except BundleError as exc:
        if p.is_dir() or not (_sosreport_host(p, hosts, problems, quiet=True) or _capture_archive(p, hosts, problems)):
            problems.append(InputProblem(str(p), str(exc)))
        return
    name = host_name_from_bundle(p.name)
    for cap in captures:  # an archive of several bundles: each root is a host of its own
        hosts.setdefault(cap.host or name, HostInputs(cap.host or name)).captures.append(cap)
    group = hosts.setdefault(name, HostInputs(name)) if not captures or any(c.host is None for c in captures) \
        else hosts[captures[0].host]
    group.problems.extend(InputProblem(s.split(": ")[0], s) for s in skipped)
    if not captures:
        problems.append(InputProblem(str(p), "vm-support bundle holds none of the NIC outputs NIC Advisor reads"))


def _sosreport_host(p: Path, hosts: dict[str, HostInputs], problems: list[InputProblem], quiet: bool = False) -> bool:
    """A sosreport (folder or archive) as one host of its ``hostname``; False when ``p`` is none (said in
    ``problems`` unless ``quiet``: then the caller tries another reading)."""
    try:
        name, captures, skipped = read_sosreport(p)
    except BundleError as exc:
        if not quiet:
            problems.append(InputProblem(str(p), str(exc)))
        return False
    group = hosts.setdefault(name, HostInputs(name))
    group.captures.extend(captures)
    group.problems.extend(InputProblem(s.split(": ")[0], s) for s in skipped)
    if not captures:
        problems.append(InputProblem(str(p), "sosreport holds none of the NIC outputs NIC Advisor reads"))
    return True


def _capture_archive(p: Path, hosts: dict[str, HostInputs], problems: list[InputProblem]) -> bool:
    """A tarball of capture files (a collector script's folder): its captures to the hosts of their ``# host:``
    header, else the archive's name; False when it holds none (then it is reported as a broken bundle)."""
    try:
        captures, skipped = read_capture_archive(p)
    except BundleError:
        return False
    if not captures:
        return False
    name = host_name_from_bundle(p.name)
    for cap in captures:
        hosts.setdefault(cap.host or name, HostInputs(cap.host or name)).captures.append(cap)
    problems.extend(InputProblem(s.split(": ")[0], s) for s in skipped)
    return True


def _file_into(p: Path, default_host: str, hosts: dict[str, HostInputs], problems: list[InputProblem]) -> None:
    try:
        captures, unread = read_captures(p)
    except (CaptureError, OSError) as exc:
        problems.append(InputProblem(str(p), f"not a capture: {exc}"))
        return
    problems.extend(InputProblem(u.split(": ")[0], u) for u in unread)
    for cap in captures:
        parts = session_hosts(cap.text)
        if parts and len(hosts) + len(parts) > MAX_SESSION_HOSTS:
            problems.append(InputProblem(cap.source, f"the file held {len(parts)} hosts' prompts, but the audit "
                                                     f"already holds {len(hosts)} hosts (at most {MAX_SESSION_HOSTS} "
                                                     "from pastes): read as one host; audit the rest separately",
                                         cap.command))
            parts = []
        if parts:  # one paste, several hosts' prompts: each host its own outputs (issue 26)
            names = [h for h, _ in parts]
            listed = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
            problems.append(InputProblem(cap.source, f"the file held {len(parts)} hosts ({listed}: the "
                                                     "hosts its shell prompts name): read as that many hosts, each "
                                                     "with the outputs after its own prompts", cap.command))
            own = cap.host if cap.host and cap.host not in names else None  # a "# host:" naming none of them
            for i, (host, text) in enumerate(parts):
                part = dataclasses.replace(cap, text=text, host=own if i == 0 and own else host, prompt_host=True)
                hosts.setdefault(part.host, HostInputs(part.host)).captures.append(part)
            continue
        name = cap.host or default_host
        hosts.setdefault(name, HostInputs(name)).captures.append(cap)


def _walk(root: Path, hosts: dict[str, HostInputs], problems: list[InputProblem]) -> None:
    """Read the folder ``root`` and its sub-folders, iteratively (no recursion, any depth): capture files go to the
    host of their folder, bundles are hosts of their own. A folder reached again through a link (a loop, or a link
    back into the tree) and a link to a folder outside ``root`` are skipped with a message, as are FIFOs, devices
    and sockets, unreadable folders, folders deeper than :data:`MAX_DEPTH`, and entries past :data:`MAX_ENTRIES`."""
    base = root.resolve()
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[Path, int]] = [(root, 0)]
    budget = MAX_ENTRIES
    while stack:
        folder, depth = stack.pop()
        try:
            st = folder.stat()
            with os.scandir(folder) as it:  # closed even when reading the folder fails half-way
                entries = sorted(folder / e.name for e in it if not _ignored(Path(e.name)))
        except OSError as exc:
            problems.append(InputProblem(str(folder), f"folder cannot be read: {exc.strerror or exc}"))
            continue
        if (st.st_dev, st.st_ino) in seen:
            problems.append(InputProblem(str(folder), "skipped: a link leads back to a folder already read"))
            continue
        seen.add((st.st_dev, st.st_ino))
        if not entries:
            problems.append(InputProblem(str(folder), "empty: no capture files found here"))
            continue
        if len(entries) > budget:
            problems.append(InputProblem(str(folder), f"more than {MAX_ENTRIES} entries under {root}: the rest is "
                                                      "not read"))
            entries = entries[:budget]
        budget -= len(entries)
        kinds = [(e, _kind(e)) for e in entries]
        for e, kind in kinds:
            if kind == "file" and not _is_bundle(e, kind):
                _file_into(e, folder.name, hosts, problems)
        subfolders = []
        for e, kind in kinds:
            if kind == "file":
                if _is_bundle(e, kind):
                    _bundle_host(e, hosts, problems)
            elif kind == "dir":
                if e.is_symlink() and not _inside(e.resolve(), base):
                    problems.append(InputProblem(str(e), f"skipped: a link to a folder outside {root}"))
                elif _is_bundle(e, kind):
                    _bundle_host(e, hosts, problems)
                elif depth + 1 > MAX_DEPTH:
                    problems.append(InputProblem(str(e), f"skipped: more than {MAX_DEPTH} folders deep"))
                else:
                    subfolders.append((e, depth + 1))
            elif kind != "missing":
                problems.append(InputProblem(str(e), f"skipped: not a regular file or folder ({kind})"))
            else:
                problems.append(InputProblem(str(e), "skipped: a link to nothing"))
        stack.extend(reversed(subfolders))  # read in name order


def _inside(path: Path, base: Path) -> bool:
    return path == base or base in path.parents


def gather(paths: list[Path]) -> tuple[list[HostInputs], list[InputProblem]]:
    """Group the captures found under ``paths`` by host.

    Returns (host groups in a stable order, problems with paths that gave nothing). A missing path, an empty
    folder, a non-capture file, a FIFO or device, a broken bundle or a link loop is a problem naming the path, never
    an exception: the other paths are still read. Past :data:`MAX_AUDIT_CHARS` of capture text, further paths are
    named as not read.
    """
    hosts: dict[str, HostInputs] = {}
    problems: list[InputProblem] = []
    for raw in paths:
        p = Path(raw)
        read = sum(len(c.text) for h in hosts.values() for c in h.captures)
        if read > MAX_AUDIT_CHARS:
            problems.append(InputProblem(str(p), f"not read: the audit already holds {read} characters of captures "
                                                 f"(at most {MAX_AUDIT_CHARS}); audit the rest separately"))
            continue
        kind = _kind(p)
        if kind == "missing":
            problems.append(InputProblem(str(p), "no such file or folder"))
        elif _is_bundle(p, kind):
            _bundle_host(p, hosts, problems)
        elif kind == "file":
            _file_into(p, p.resolve().parent.name, hosts, problems)
        elif kind == "dir":
            _walk(p, hosts, problems)
        else:
            problems.append(InputProblem(str(p), f"not a capture file or folder: a {kind}"))
    _claims_of_other_collections(hosts, problems)
    return list(hosts.values()), problems


_COLLECTION_MEMBER = re.compile(r"^(?P<file>.+):#\d+$")
_ARCHIVE_MEMBER = re.compile(r"^(?P<file>.+?\.(?:tgz|tar\.gz|tar\.xz|tar)):")


def _collection_of(source: str) -> str:
    """The collection a capture came from, by its source: the collection file (``file:#N``), the archive
    (``x.tgz:member``), else the folder of the capture file."""
    m = _COLLECTION_MEMBER.match(source) or _ARCHIVE_MEMBER.match(source)
    return m.group("file") if m else os.path.dirname(source)


def _claims_of_other_collections(hosts: dict[str, HostInputs], problems: list[InputProblem]) -> None:
    """Flag captures whose ``# host:`` names another host than the one whose collection holds them (the host most of
    that collection's captures name): a ``# host: esxB`` inside esxA's collection overrode esxB's own facts, the
    result depending on the order of the arguments (issue 29 §10). Each such capture is an input problem; when esxB
    has a collection of its own answering the same command, both are left out, so the check they decide stays
    undecided rather than depending on the order. Linear in captures."""
    members: dict[str, list[Capture]] = {}
    for group in hosts.values():
        for cap in group.captures:
            if cap.host and not cap.prompt_host:  # a host its own prompts name claims nothing
                members.setdefault(_collection_of(cap.source), []).append(cap)
    owner: dict[str, str] = {}
    for where, caps in members.items():
        counts: dict[str, int] = {}
        for cap in caps:
            counts[cap.host or ""] = counts.get(cap.host or "", 0) + 1
        owner[where] = max(counts, key=lambda h: counts[h])  # the first of the most named, in reading order
    claimed = [(cap, where) for where, caps in members.items() for cap in caps if cap.host != owner[where]]
    for cap, where in claimed:
        group = hosts.get(cap.host or "")
        if group is None:
            continue
        own = [c for c in group.captures if c.command == cap.command and c is not cap
               and owner.get(_collection_of(c.source)) == cap.host]
        said = (f"this capture in {owner[where]}'s collection {where} says it is of host {cap.host} (# host: "
                f"{cap.host})")
        if own:
            drop = {id(cap), *(id(c) for c in own)}
            group.captures = [c for c in group.captures if id(c) not in drop]
            problems.append(InputProblem(cap.source, f"{said}, and {cap.host}'s own collection answers {cap.command} "
                                                     "too: neither is read, what they decide stays undecided",
                                         cap.command))
        else:
            problems.append(InputProblem(cap.source, f"{said}: read as {cap.host}'s; check that it is", cap.command))
