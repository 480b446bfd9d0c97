"""ESXi host/system facts: ``vmware -vl`` and ``esxcli system version get`` (product version, build, update level),
``esxcli software vib list``
(NIC driver VIB versions) and NVIDIA MFT ``flint -d <bdf> q`` (ConnectX firmware).

Formats: ``shared/design/research/nic-data-sources.md`` §2 (VIB version differs from the driver module's
own version string; flint gives ``FW Version`` and ``PSID``), §13 (version caveats). Pure functions, never
raise on malformed text.
"""
from __future__ import annotations

import re
from typing import Any

from nicadvisor.parsers.base import CommandLine, ParseResult, columns_from_header, cut, norm_pci
from nicadvisor.parsers.esxi.esxcli_nic import clean, rule_after, table_after
from nicadvisor.parsers.registration import register

ESXI_NIC_DRIVERS = frozenset({
    "atlantic", "bnx2x", "bnxtnet", "cdce", "elxnet", "i40en", "i40en_ens", "icen", "icen_ens", "igbn", "ionic_en",
    "ixgbe", "ixgben", "ixgben_ens", "ne1000", "nenic", "nmlx4_en", "nmlx5_core", "ntg3", "nvmxnet3",
    "nvmxnet3_ens", "qedentv", "qfle3", "r8152", "tg3",
})
"""ESXi NIC driver module names seen in the captures and in nic-data-sources.md (§2, §15). A VIB whose name
is exactly one of these is that driver's package; ``net-bnx2x``-style vmklinux VIB names are not mapped."""

# --- vmware -vl / -lv / -v / -l ---------------------------------------------------------------------------

_VERSION_RE = re.compile(r"^\s*VMware (ESXi?)\s+(\d+(?:\.\d+)+)\s+build-(\d+)\s*$")
_LEVEL_RE = re.compile(r"^\s*VMware ESXi?\s+(\d+(?:\.\d+)+)\s+(GA|Update\s+\d+\w*|U\d+\w*)\s*$")


@register(r"^vmware\s+-[lv]{1,2}$", "vmware -vl")
def parse_vmware_version(text: str, cmd: CommandLine) -> ParseResult:
    """``vmware -vl`` (= ``-lv``): ``VMware ESXi 7.0.3 build-22348816`` / ``VMware ESXi 7.0 Update 3``
    (vm-support member ``commands/vmware_-vl.txt``: ``VMware ESXi 5.1.0 build-799733`` / ``… 5.1.0 GA``).

    Host facts: ``product_version`` (``"5.1.0"``), ``build`` (digits, ``"799733"``, as the vSphere API's
    ``about.build``), ``kind`` ``"esxi"`` for an ESXi product line, and ``product_update``: the release level of
    the second line as printed (``"GA"``, ``"Update 3"``), which a 6.x host's version (``6.7.0`` for every update)
    does not carry. The level line is also a record ``{"family", "fields": {"version", "level"}}``. A level line
    whose major.minor is not the build line's (two hosts' outputs pasted together) gives no ``product_update``, and
    a note. Prompt or prose lines around are ignored. Never raises."""
    result = ParseResult(family="vmware -vl")
    levels: list[tuple[str, str, str]] = []   # (version, level, line)
    for raw in text.splitlines():
        m = _VERSION_RE.match(raw)
        if m:
            result.host_fact("product_version", m.group(2), raw)
            result.host_fact("build", m.group(3), raw)
            if m.group(1) == "ESXi":
                result.host_fact("kind", "esxi", raw)
            continue
        m = _LEVEL_RE.match(raw)
        if m:
            result.records.append({"family": result.family, "fields": {"version": m.group(1), "level": m.group(2)}})
            levels.append((m.group(1), m.group(2), raw))
    if levels:
        level_version, level, raw = levels[0]
        version = result.host.get("product_version")
        if version is not None and level_version.split(".")[:2] != str(version.value).split(".")[:2]:
            result.notes.append(f"vmware -vl: the release level line {raw.strip()!r} is for another version than "
                                f"{version.line.strip()!r}; the update level was not taken")
        else:
            result.host_fact("product_update", level, raw)
    if "build" not in result.host:
        result.notes.append("vmware -vl: no 'VMware ESXi <version> build-<n>' line found")
    return result


# --- esxcli system version get ----------------------------------------------------------------------------

_SV_FIELD_RE = re.compile(r"^\s*(Product|Version|Build|Update|Patch|Maintenance):[ \t]*(.*?)\s*$")
_SV_BUILD_RE = re.compile(r"^(?:Releasebuild-)?(\d{1,12})$", re.I)
_SV_VERSION_RE = re.compile(r"^\d+(?:\.\d+){1,3}$")


@register(r"^esxcli system version get$", "esxcli system version get")
def parse_system_version(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli system version get`` (also ``localcli``, the vm-support member ``commands/localcli_system-version-get.txt``)::

           Product: VMware ESXi
           Version: 6.0.0
           Build: Releasebuild-3073146
           Update: 1
           Patch: 20

    (ESX 9 adds ``Maintenance: 0``). Host facts: ``product_version`` (``"6.0.0"``), ``build`` (the digits,
    ``"3073146"``, as ``vmware -vl`` and the vSphere API give it), ``kind`` ``"esxi"`` for a ``VMware ESXi`` product
    and ``product_update`` in the form ``vmware -vl`` prints it (``"Update 1"``; ``Update: 0`` is ``"GA"``) — the
    update level a 6.x version (``6.0.0`` for every update) does not carry. The fields go to one record
    ``{"family", "fields"}``. Prompt or prose lines around are ignored; a second block (two hosts pasted together)
    is not read over the first. Never raises."""
    result = ParseResult(family="esxcli system version get")
    fields: dict[str, tuple[str, str]] = {}
    for raw in text.splitlines():
        m = _SV_FIELD_RE.match(raw)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = (m.group(2), raw)
    product, version, build = (fields.get(k, ("", ""))[0] for k in ("Product", "Version", "Build"))
    if not version or not _SV_VERSION_RE.match(version):
        result.notes.append("esxcli system version get: no 'Version: x.y.z' line found")
        return result
    result.records.append({"family": result.family, "fields": {k: v for k, (v, _) in fields.items()}})
    result.host_fact("product_version", version, fields["Version"][1])
    bm = _SV_BUILD_RE.match(build)
    if bm:
        result.host_fact("build", bm.group(1), fields["Build"][1])
    if product.startswith("VMware ESXi"):
        result.host_fact("kind", "esxi", fields["Product"][1])
    update = fields.get("Update", ("", ""))[0]
    if update.isdigit():
        result.host_fact("product_update", "GA" if int(update) == 0 else f"Update {int(update)}", fields["Update"][1])
    return result


# --- esxcli software vib list -----------------------------------------------------------------------------

_VIB_HEADER_RE = re.compile(r"^\s*Name\s+Version\s+Vendor\s+Acceptance Level\b")
_VIB_ROW_RE = re.compile(r"^\s*(?P<name>[A-Za-z0-9][\w.+-]*)\s+(?P<version>\S+)\s+(?P<vendor>\S+)\s+"
                         r"(?P<acceptance>VMwareCertified|VMwareAccepted|PartnerSupported|CommunitySupported)"
                         r"\s+(?P<date>\d{4}-\d{2}-\d{2})(?:\s+(?P<platforms>\S+))?\s*$")


@register(r"^esxcli software vib list\b", "esxcli software vib list")
def parse_vib_list(text: str, cmd: CommandLine) -> ParseResult:
    """``esxcli software vib list`` (also ``| grep <drv>`` without header): ``Name  Version  Vendor
    Acceptance Level  Install Date [Platforms]`` (captures ``esxi_esxcli_software_vib_list_ixgben_atlantic.txt``,
    ``esxi_g_esxcli_network_nic_get_and_module_parameters_list_bnx2x_esxi60_pasek.txt``).

    Every row becomes a record ``{"family", "vib", "version", "vendor", "acceptance", "install_date"}``. When
    the VIB name is exactly an ESXi NIC driver name (:data:`ESXI_NIC_DRIVERS`), its VIB version string
    (``1.12.3.0-1OEM.700.1.0.15843807``) is also recorded as that module's ``version``: it is the package
    version, whose leading part is the driver version (§2). Never raises."""
    result = ParseResult(family="esxcli software vib list")
    lines = text.splitlines()
    rows: list[tuple[dict[str, Any], str]] = []
    seen: set[int] = set()
    for h, line in enumerate(lines):
        if not _VIB_HEADER_RE.match(line):
            continue
        rule = rule_after(lines, h)
        cols = columns_from_header(line, rule)
        for i, raw in table_after(lines, h):
            seen.add(i)
            m = _VIB_ROW_RE.match(raw)
            if m:
                rows.append((m.groupdict(), raw))
                continue
            row = {n: cut(raw, s, e) for n, s, e in cols}
            vib, version = row.get("Name", ""), row.get("Version", "")
            if vib and version and " " not in vib:
                rows.append(({"name": vib, "version": version, "vendor": row.get("Vendor"),
                              "acceptance": row.get("Acceptance Level"), "date": row.get("Install Date")}, raw))
            else:
                result.notes.append(f"esxcli software vib list: row not understood: {raw.strip()!r}")
    for i, raw in enumerate(lines):
        if i not in seen:
            m = _VIB_ROW_RE.match(raw)
            if m:
                rows.append((m.groupdict(), raw))
    for row, raw in rows:
        result.records.append({"family": result.family, "vib": row["name"], "version": row["version"],
                               "vendor": clean(row.get("vendor")), "acceptance": clean(row.get("acceptance")),
                               "install_date": clean(row.get("date"))})
        if row["name"] in ESXI_NIC_DRIVERS:
            result.module(row["name"], "version", row["version"], raw)
    if not rows:
        result.notes.append("esxcli software vib list: no VIB rows found")
    return result


# --- flint -d <bdf> q -------------------------------------------------------------------------------------

_FLINT_KV_RE = re.compile(r"^([A-Z][A-Za-z ]*?):\s+(.*?)\s*$")


@register(r"^(?:flint|mstflint)\s.*\bq(?:uery)?(?:\s+full)?$", "flint q")
def parse_flint_query(text: str, cmd: CommandLine) -> ParseResult:
    """NVIDIA MFT ``/opt/mellanox/bin/flint -d <bdf> q`` on ESXi (capture
    ``unattributed_smtx_esxi_flint_q_connectx4lx_fw14.22.txt``): ``FW Version:  14.22.1002`` → pNIC
    ``firmware_version`` for key ``"pci:<bdf>"`` (the ``-d`` address, normalised ``0000:bb:dd.f``); all keys
    (``PSID`` — ``MT_…`` retail vs OEM —, ``Orig PSID``, ``Product Version``, ``Rom Info`` with its
    continuation lines, ``Base MAC``) go to one record ``{"family", "pci", "device", "fields"}``. With ``-d``
    naming an mst device (``mt4121_pciconf0``) instead of an address the firmware cannot be attributed: note."""
    result = ParseResult(family="flint q")
    device = None
    argv = list(cmd.argv)
    for i, word in enumerate(argv):
        if word in ("-d", "--device") and i + 1 < len(argv):
            device = argv[i + 1]
    pci = norm_pci(device)
    fields: dict[str, str] = {}
    lines: dict[str, str] = {}
    last = None
    for raw in text.splitlines():
        m = _FLINT_KV_RE.match(raw)
        if m:
            last = m.group(1)
            fields.setdefault(last, m.group(2))
            lines.setdefault(last, raw.rstrip())
        elif last and raw.startswith((" ", "\t")) and raw.strip():
            fields[last] = f"{fields[last]}; {raw.strip()}"
        else:
            last = None
    if "FW Version" not in fields:
        result.notes.append("flint q: no 'FW Version:' line found")
        return result
    result.records.append({"family": result.family, "pci": pci, "device": device, "fields": fields})
    if pci:
        result.pnic(f"pci:{pci}", "firmware_version", clean(fields["FW Version"]), lines["FW Version"])
    else:
        result.notes.append(f"flint q: device {device!r} is not a PCI address; firmware not attributed to a pNIC")
    return result
