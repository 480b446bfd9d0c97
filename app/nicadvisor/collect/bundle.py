"""ESXi vm-support bundles (``esx-<host>-<YYYY-MM-DD>--<HH.MM>.tgz`` or the extracted folder).

Which bundle files are read, and as which command (layout and file-name rule:
shared/design/research/vm-support-bundles.md §1.3-§1.6, §2):

============================================  ==================================
bundle file                                   parsed as
============================================  ==================================
``commands/nicinfo.sh.txt``                   ``nicinfo.sh`` (nic list + per-NIC get blocks)
``commands/vmware_-vl.txt``                   ``vmware -vl``
``commands/esxcfg-vswitch_-l.txt``            ``esxcfg-vswitch -l``
``commands/esxcfg-vmknic_-l.txt``             ``esxcfg-vmknic -l``
``commands/esxcfg-nics_-l.txt``               ``esxcfg-nics -l``
``commands/lspci_-v.txt`` / ``lspci_-p.txt``  ``lspci -v`` / ``lspci -p``
``commands/localcli_<a>-<b>-<c>.txt``         ``esxcli <a> <b> <c>`` (nic list, hardware pci list,
                                              vswitch dvs vmware list, ip interface list, software vib list)
``var/run/log/vmkernel.log`` (``var/log/``)   ``cat /var/run/log/vmkernel.log``
============================================  ==================================

Other files are not read. Fragmented files (``*.FRAG-00000`` …) are joined in order.
"""
from __future__ import annotations

import re
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from nicadvisor.collect.capture_file import MAX_CAPTURE_BYTES, Capture

_NAMED = {
    "nicinfo.sh.txt": "nicinfo.sh",
    "vmware_-vl.txt": "vmware -vl",
    "esxcfg-vswitch_-l.txt": "esxcfg-vswitch -l",
    "esxcfg-vmknic_-l.txt": "esxcfg-vmknic -l",
    "esxcfg-nics_-l.txt": "esxcfg-nics -l",
    "esxcfg-nics_-e.txt": "esxcfg-nics -e",
    "lspci_-v.txt": "lspci -v",
    "lspci_-p.txt": "lspci -p",
}
_LOCALCLI = re.compile(r"^localcli_([a-z][a-z-]*)\.txt$")
_LOGS = ("var/run/log/vmkernel.log", "var/log/vmkernel.log")
_NAME_RE = re.compile(r"^esx-(?P<host>.+?)-\d{4}-\d{2}-\d{2}--\d{2}\.\d{2}")


class BundleError(ValueError):
    """The file is not a readable vm-support bundle (names the file)."""


@dataclass(frozen=True)
class BundleMember:
    """A bundle file path relative to the bundle root, and the command it is parsed as."""

    path: str
    command: str


def command_for(rel_path: str) -> str | None:
    """The command a bundle file holds the output of, or None if the file is not read."""
    rel = rel_path.replace("\\", "/")
    if rel in _LOGS:
        return f"cat /{rel}"
    if not rel.startswith("commands/"):
        return None
    name = rel.split("/", 1)[1]
    if name in _NAMED:
        return _NAMED[name]
    m = _LOCALCLI.match(name)
    if m:
        return "esxcli " + " ".join(m.group(1).split("-"))
    return None


def host_name_from_bundle(name: str) -> str:
    """``esx-prod-vmware01-2013-08-12--14.06.tgz`` → ``prod-vmware01``; otherwise the stem."""
    stem = re.sub(r"\.(tgz|tar\.gz|tar)$", "", name)
    m = _NAME_RE.match(stem)
    return m.group("host") if m else stem


def _strip_root(names: list[str]) -> dict[str, str]:
    """Map member name → path relative to the bundle root (the single top folder is dropped)."""
    out = {}
    for n in names:
        parts = n.strip("/").split("/")
        for i in range(len(parts)):
            rel = "/".join(parts[i:])
            if rel.startswith(("commands/", "var/")):
                out[n] = rel
                break
    return out


def read_bundle(path: Path) -> tuple[list[Capture], list[str]]:
    """Read the NIC-related outputs of a vm-support bundle (``.tgz`` file or extracted folder).

    Returns (captures, skipped) where ``skipped`` lists members that could not be read.
    Raises BundleError naming ``path`` when it is not a tar/gzip archive or holds no ``commands/``.
    """
    truncated = ""
    if path.is_dir():
        files = {str(p.relative_to(path)): p for p in path.rglob("*") if p.is_file()}
        rel = _strip_root(list(files))
        def read(member: str) -> bytes:
            return files[member].read_bytes()[:MAX_CAPTURE_BYTES]
        members = list(files)
    else:
        try:
            tar = tarfile.open(path, "r:*")
        except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
            raise BundleError(f"{path}: not a vm-support bundle (not a readable .tgz archive: {exc})") from exc
        infos: dict[str, tarfile.TarInfo] = {}
        try:
            for m in tar:
                if m.isfile():
                    infos[m.name] = m
        except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
            if not infos:
                raise BundleError(f"{path}: truncated or corrupt vm-support bundle: {exc}") from exc
            truncated = (f"{path}: the archive is truncated or corrupt after {len(infos)} files ({exc}); "
                         "the files before that point were read")
        rel = _strip_root(list(infos))
        def read(member: str) -> bytes:
            f = tar.extractfile(infos[member])
            return f.read(MAX_CAPTURE_BYTES) if f else b""
        members = list(infos)
    if not any(r.startswith("commands/") for r in rel.values()):
        raise BundleError(f"{path}: no commands/ folder, so not an ESXi vm-support bundle")
    # join fragments: name.FRAG-00000, name.FRAG-00001 ...
    groups: dict[str, list[str]] = {}
    for m in members:
        if m not in rel:
            continue
        r = rel[m]
        base = re.sub(r"\.FRAG-\d{5}$", "", r)
        groups.setdefault(base, []).append(m)
    captures: list[Capture] = []
    skipped: list[str] = [truncated] if truncated else []
    for base, parts in sorted(groups.items()):
        command = command_for(base)
        if command is None:
            continue
        try:
            data = b"".join(read(p) for p in sorted(parts))
        except (OSError, tarfile.TarError, EOFError, zlib.error) as exc:
            skipped.append(f"{path}:{base}: unreadable ({exc})")
            continue
        captures.append(Capture(source=f"{path}:{base}", command=command,
                                text=data.decode("utf-8", errors="replace")))
    return captures, skipped
