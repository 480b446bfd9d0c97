"""The target NSX version against each host's ESXi release (issue 25 §1): which ESXi releases an NSX version
supports as a host transport node, read from a cited table (``resources/vcg/nsx_esxi_interop.json``: each entry names
the NSX release notes or the Broadcom interoperability listing it was read from), and the error finding
``esxi-release-unsupported-by-nsx`` for a host whose release the target version does not support.

An NSX version the table does not list is not judged ("not in the shipped interoperability table: check …"), and a
host whose release was not read says so: never a guess. The shipped table holds only cited entries.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from nicadvisor.model.entities import Finding, Host, Severity
from nicadvisor.paths import resources_dir
from nicadvisor.vcg.builds import host_release

RULE_ID = "esxi-release-unsupported-by-nsx"
SUPPORTED, UNSUPPORTED, UNKNOWN = "supported", "unsupported", "unknown"
_VERSION = re.compile(r"^\d{1,2}(\.\d{1,3}){0,3}$")


def valid_nsx_version(text: str) -> str:
    """``text`` stripped when it is an NSX version (``4.2``, ``4.2.1``, ``3.2.3.1``); raises ValueError otherwise."""
    text = (text or "").strip()
    if not _VERSION.match(text):
        raise ValueError(f"{text!r} is not an NSX version (for example 4.2 or 4.2.1)")
    return text


@dataclass(frozen=True)
class InteropTable:
    """NSX version → (the ESXi releases it supports, its source); ``check_at`` where to look for a version it does
    not list."""

    versions: dict[str, tuple[tuple[str, ...], str]]
    check_at: str

    def entry(self, target: str) -> tuple[tuple[str, ...], str] | None:
        """The entry of ``target`` or of the release line it belongs to (``4.2.1`` → ``4.2``), else None."""
        parts = target.split(".")
        for n in range(len(parts), 0, -1):
            hit = self.versions.get(".".join(parts[:n]))
            if hit is not None:
                return hit
        return None


def load_table(path: str | Path | None = None) -> InteropTable:
    """The interoperability table (``resources/vcg/nsx_esxi_interop.json`` unless ``path``). An entry without a
    ``source`` is refused (ValueError): every fact of it is cited."""
    doc = json.loads(Path(path or resources_dir() / "vcg" / "nsx_esxi_interop.json").read_text(encoding="utf-8"))
    versions: dict[str, tuple[tuple[str, ...], str]] = {}
    for e in doc.get("versions", []):
        if not e.get("source"):
            raise ValueError(f"NSX {e.get('nsx')}: an interoperability entry without its source")
        versions[valid_nsx_version(str(e["nsx"]))] = (tuple(str(r) for r in e["esxi"]), str(e["source"]))
    return InteropTable(versions, str(doc.get("check_at", "")))


@dataclass(frozen=True)
class HostSupport:
    """One host against the target NSX version: ``status`` supported / unsupported / unknown, ``release`` as shown,
    ``text`` one sentence, ``source`` the cited listing ("" when not judged)."""

    host: str
    release: str
    status: str
    text: str
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"host", "release", "status", "text", "source"}`` (JSON ``scope.target_nsx_hosts``)."""
        return {"host": self.host, "release": self.release, "status": self.status, "text": self.text,
                "source": self.source}


def _supports(listed: tuple[str, ...], release: str) -> bool:
    """Whether ``release`` (``ESXi 8.0 U2``) is one of ``listed`` (``8.0 U2``, or ``8.0`` for every update)."""
    short = release.removeprefix("ESXi ").strip()
    base = short.split(" U", 1)[0]
    return short in listed or base in listed


def host_support(hosts: Iterable[Host], target: str | None, table: InteropTable | None = None) -> list[HostSupport]:
    """Each ESXi host's release against NSX ``target`` (``[]`` without a target): supported or not per the cited
    ``table`` (:func:`load_table` when not given), unknown when the release was not read or the table does not list
    ``target``. Linux hosts are not transport nodes judged here."""
    if not target:
        return []
    table = table or load_table()
    entry = table.entry(target)
    out = []
    for h in hosts:
        if h.kind == "linux":
            continue
        release = host_release(h)
        if release is None:
            out.append(HostSupport(h.name, "release not read", UNKNOWN,
                                   f"ESXi release not read: run vmware -vl to check it against NSX {target}"))
        elif entry is None:
            out.append(HostSupport(h.name, release, UNKNOWN,
                                   f"NSX {target} is not in the shipped interoperability table: check {release} at "
                                   f"{table.check_at}"))
        elif _supports(entry[0], release):
            out.append(HostSupport(h.name, release, SUPPORTED, f"{release} is supported by NSX {target}", entry[1]))
        else:
            out.append(HostSupport(h.name, release, UNSUPPORTED,
                                   f"{release} is not supported by NSX {target} (it supports ESXi "
                                   f"{', '.join(entry[0])})", entry[1]))
    return out


def release_findings(rows: list[HostSupport], target: str | None) -> list[Finding]:
    """One ``esxi-release-unsupported-by-nsx`` error per host whose release NSX ``target`` does not support (an ESXi
    upgrade blocks the rollout), citing the listing."""
    return [Finding(
        rule_id=RULE_ID, title=f"ESXi release not supported by NSX {target}", severity=Severity.ERROR, host=r.host,
        message=f"{r.text}.", recommendation=f"Upgrade the host to an ESXi release NSX {target} supports before the "
                                             "rollout, or target an NSX version that supports this one.",
        references=(f"vendor: {r.source}",), category="release")
        for r in rows if r.status == UNSUPPORTED]
