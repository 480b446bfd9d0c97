"""From paths given by the user to groups of captures, one group per host.

How a path is read (also documented in the README, "Capture folders"):

* a ``.tgz``/``.tar.gz``/``.tar`` file, or a folder holding ``commands/``: one ESXi vm-support bundle = one host,
  named from the bundle name (``esx-<host>-<date>--<time>.tgz``);
* a single capture file: one host, named by its ``# host:`` header, else by the file's folder;
* a folder holding capture files: one host named after the folder — unless files carry a
  ``# host:`` header, which puts them on the host of that name;
* a lab folder: each sub-folder (and each bundle) inside is read as above.

Files starting with ``.`` and ``README*`` files are ignored. Every file that is not a readable capture
becomes an :class:`~nicadvisor.model.InputProblem` naming it; nothing raises for bad input.
"""
from __future__ import annotations

from pathlib import Path

from nicadvisor.collect.assemble import HostInputs
from nicadvisor.collect.bundle import BundleError, host_name_from_bundle, read_bundle
from nicadvisor.collect.capture_file import CaptureError, read_capture
from nicadvisor.model import InputProblem

_BUNDLE_SUFFIXES = (".tgz", ".tar.gz", ".tar")


def _ignored(p: Path) -> bool:
    return p.name.startswith(".") or p.name.upper().startswith("README")


def _is_bundle(p: Path) -> bool:
    return (p.is_file() and p.name.endswith(_BUNDLE_SUFFIXES)) or (p.is_dir() and (p / "commands").is_dir())


def _bundle_host(p: Path, hosts: dict[str, HostInputs], problems: list[InputProblem]) -> None:
    try:
        captures, skipped = read_bundle(p)
    except BundleError as exc:
        problems.append(InputProblem(str(p), str(exc)))
        return
    name = host_name_from_bundle(p.name)
    group = hosts.setdefault(name, HostInputs(name))
    group.captures.extend(captures)
    group.problems.extend(InputProblem(s.split(": ")[0], s) for s in skipped)
    if not captures:
        problems.append(InputProblem(str(p), "vm-support bundle holds none of the NIC outputs NIC Advisor reads"))


def _file_into(p: Path, default_host: str, hosts: dict[str, HostInputs], problems: list[InputProblem]) -> None:
    try:
        cap = read_capture(p)
    except (CaptureError, OSError) as exc:
        problems.append(InputProblem(str(p), f"not a capture: {exc}"))
        return
    name = cap.host or default_host
    hosts.setdefault(name, HostInputs(name)).captures.append(cap)


def _folder_into(folder: Path, hosts: dict[str, HostInputs], problems: list[InputProblem]) -> None:
    entries = sorted(e for e in folder.iterdir() if not _ignored(e))
    if not entries:
        problems.append(InputProblem(str(folder), "empty: no capture files found here"))
        return
    files = [e for e in entries if e.is_file() and not _is_bundle(e)]
    for f in files:
        _file_into(f, folder.name, hosts, problems)
    for e in entries:
        if _is_bundle(e):
            _bundle_host(e, hosts, problems)
        elif e.is_dir():
            _folder_into(e, hosts, problems)


def gather(paths: list[Path]) -> tuple[list[HostInputs], list[InputProblem]]:
    """Group the captures found under ``paths`` by host.

    Returns (host groups in a stable order, problems with paths that gave nothing). A missing path,
    an empty folder, a non-capture file or a broken bundle is a problem, never an exception.
    """
    hosts: dict[str, HostInputs] = {}
    problems: list[InputProblem] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            problems.append(InputProblem(str(p), "no such file or folder"))
            continue
        if _is_bundle(p):
            _bundle_host(p, hosts, problems)
        elif p.is_file():
            _file_into(p, p.resolve().parent.name, hosts, problems)
        else:
            _folder_into(p, hosts, problems)
    return list(hosts.values()), problems
