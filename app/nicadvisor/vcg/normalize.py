"""Pure helpers shared by the seed and the lookup: PCI IDs, driver names, version keys, ESXi releases.

No I/O; nothing here raises on odd text: unreadable input gives None.
"""
from __future__ import annotations

import re

_DIGITS_RE = re.compile(r"\d+")
_RELEASE_RE = re.compile(r"^(?:ESXi?\s*)?(\d+)\.(x|\d+)(?:\s*U(?:pdate)?\s*(\d+))?$", re.I)
_HOST_VERSION_RE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_HOST_UPDATE_RE = re.compile(r"\bU(?:pdate)?\s*(\d+)", re.I)


def driver_module(text: str | None) -> str | None:
    """The module token of a driver cell: ``"i40en-ens"`` → ``"i40en_ens"``, ``"igb (async)"`` → ``"igb"``."""
    if not text:
        return None
    token = text.strip().split("(")[0].strip().split()
    if not token:
        return None
    return token[0].lower().replace("-", "_")


def normalise_driver(text: str | None) -> str | None:
    """A driver name for comparison: lower case, remark in parentheses and ``_ens``/``-ens`` suffix removed.

    ``"i40en_ens"``, ``"i40en-ens"``, ``"i40en_ens (Intel40en async)"`` and ``"i40en"`` all give ``"i40en"``;
    ``"nmlx5_core (inbox nmlx)"`` gives ``"nmlx5_core"``. None for empty text.
    """
    module = driver_module(text)
    if module is None:
        return None
    return module.removesuffix("_ens") or None


def is_ens_driver(text: str | None) -> bool:
    """True when the driver cell names an ENS/EDP driver (``i40en_ens``, ``ixgben-ens``, ``nenic_ens``)."""
    module = driver_module(text)
    return bool(module and module.endswith("_ens") and module != "_ens")


def version_key(version: str | None) -> str | None:
    """A text key that sorts like the version (vcg-data.md §5.3).

    The part before the first ``-`` is taken, every digit run is zero-padded to 5 digits and the runs are
    joined with ``.``: ``"1.11.2.6-1OEM.700.1.0.15843807"`` → ``"00001.00011.00002.00006"``. None when the
    version has no digits.
    """
    if not version:
        return None
    runs = _DIGITS_RE.findall(version.split("-")[0])
    if not runs:
        return None
    return ".".join(r[-5:].rjust(5, "0") for r in runs)


def version_at_least(version: str | None, minimum: str | None) -> bool | None:
    """True when ``version`` ≥ ``minimum`` by :func:`version_key` (missing trailing parts count as 0).

    None when either side has no digits.
    """
    have, need = version_key(version), version_key(minimum)
    if have is None or need is None:
        return None
    a = [int(x) for x in have.split(".")]
    b = [int(x) for x in need.split(".")]
    width = max(len(a), len(b))
    return a + [0] * (width - len(a)) >= b + [0] * (width - len(b))


def firmware_matches(host: str | None, listed: str | None) -> bool | None:
    """True when the listed firmware's numbers are a prefix of the host firmware's first token's numbers.

    Vendor strings differ (``"16.35.2000"``, ``"7.10 0x800075e5 19.5.12"``, ``"222.1.68.0/pkg ..."``), so only
    the first token is compared (vcg-data.md §5.2 rule 5): listed ``"38.11"`` matches host ``"38.11.38.06"``.
    None when either side is missing, ``N/A`` or has no digits.
    """
    if not host or not listed or listed.strip().upper() == "N/A" or host.strip().upper() == "N/A":
        return None
    h = _DIGITS_RE.findall(host.strip().split()[0].split("/")[0])
    listed_runs = _DIGITS_RE.findall(listed.strip().split()[0].split("/")[0])
    if not h or not listed_runs:
        return None
    return [int(x) for x in h[:len(listed_runs)]] == [int(x) for x in listed_runs]


def parse_release(text: str) -> tuple[int, int | None, int] | None:
    """A release as a source states it: ``"6.7"`` → (6, 7, 0), ``"7.0 U3"`` → (7, 0, 3), ``"4.x"`` → (4, None, 0).

    Returns (major, minor or None for any minor, update level, 0 when none is named); None if unreadable.
    """
    m = _RELEASE_RE.match(text.strip())
    if not m:
        return None
    minor = None if m.group(2).lower() == "x" else int(m.group(2))
    return int(m.group(1)), minor, int(m.group(3) or 0)


def release_label(major: int, minor: int | None, update: int) -> str:
    """Canonical label: ``"ESXi 7.0 U3"``, ``"ESXi 4.x"``; ESX 9 and later are named ``"ESX 9.0"``."""
    product = "ESX" if major >= 9 else "ESXi"
    label = f"{product} {major}.{'x' if minor is None else minor}"
    return f"{label} U{update}" if update else label


def parse_host_version(text: str | None) -> tuple[int, int, int | None] | None:
    """The (major, minor, update) of a host's ESXi version text, update None when not stated.

    Accepts ``"8.0.3"``, ``"7.0.3 build-18905247"``, ``"VMware ESXi 8.0 Update 3"``, ``"8.0 U3"``,
    ``"8.0U3b"``, ``"ESX 9.0.0.0"``. For 7.0 and later the third number is the update level; ESXi 6.x prints
    ``6.7.0`` for every update, so ``"6.7.0"`` reads as update 0 unless ``Update N``/``UN`` is given.
    None when no ``major.minor`` is found.
    """
    if not text:
        return None
    m = _HOST_VERSION_RE.search(text)
    if not m:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    update: int | None = int(m.group(3)) if m.group(3) is not None else None
    u = _HOST_UPDATE_RE.search(text[m.end():])
    if u:
        update = int(u.group(1))
    return major, minor, update


def release_matches(release: tuple[int, int | None, int], host: tuple[int, int, int | None]) -> bool:
    """True when a stated release covers the host version.

    Same major; same minor unless the release says ``x``; host update ≥ the release's update level (an
    unknown host update counts as 0). ``"ESXi 8.0"`` therefore covers 8.0 U1–U3, ``"ESXi 7.0 U3"`` covers
    7.0 U3 but not 7.0 U2, and no release covers another major version.
    """
    r_major, r_minor, r_update = release
    h_major, h_minor, h_update = host
    if r_major != h_major:
        return False
    if r_minor is not None and r_minor != h_minor:
        return False
    return (h_update or 0) >= r_update
