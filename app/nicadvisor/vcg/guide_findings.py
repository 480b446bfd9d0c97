"""Findings from the compatibility guide the user imported (:mod:`nicadvisor.vcg.guide_store`), per ESXi pNIC.

For a physical pNIC with known VID/DID on an ESXi host, against the host's release (:func:`nicadvisor.vcg.builds.
host_release`: "ESXi 8.0 U2" from the build, the version, or the update level ``vmware -vl`` printed,
``Host.product_update``):

* ``guide-release-unknown`` (info): the release with its update level is not known (a 6.x host prints ``6.7.0``
  for every update; a build the build table does not hold leaves the update unknown). The finding says what was
  read and what is missing, which releases of the host's major.minor list the device, and how to learn the update:
  ``vmware -vl``. When no listing of the device names the host's major.minor at all, it still says only that the
  update level decides (the imported data may hold the device for no update of that line, or not cover the one the
  host runs): never "not listed for this release";
* ``guide-device-not-listed``: the guide lists the device, but not for the host's release, while imported data of
  the same kind (``GuideListing.source``) covers that release for other devices. An **error** when an I/O-guide
  answer (Broadcom Compatibility Guide, old VCG API) or an exchange file that does not name its source says so; a
  **warning** worded for what it is when only the vSAN HCL says so — the vSAN HCL lists NICs certified for
  vSAN/RDMA, so a NIC missing there for a release is not "not certified" for general networking;
* ``guide-release-not-stated`` (info): some listing of the device names no release, or a release label that was
  not understood (kept as written at import): the guide then does not decide whether the device is listed for the
  host's release, and nothing is claimed;
* ``guide-release-not-imported`` (info): the data that lists the device has no listing for the host's release at
  all (a file saved for other releases): its absence says nothing;
* ``guide-driver-unchecked`` (info): the device is listed for the release, but the imported data names no driver
  for it (a search answer): driver and firmware were not checked;
* ``guide-driver-not-listed`` (warning): the device is listed for the release, but not with the host's driver
  module and version. Modules are compared exactly (``i40en`` is not ``i40en_ens``: ENS and non-ENS drivers are
  listed apart; ``-``/``_`` and a remark in parentheses do not count); versions by their numbers, and by the whole
  text, build suffix included (``1.0-1OEM.700`` is not ``1.0-2vmw.800``), when host and listing both give one;
* ``guide-firmware-unknown`` (info): the driver version is listed with firmware versions but the host's firmware
  was not read (the finding says how: ``esxcli network nic get -n vmnicX``);
* ``guide-firmware-unclear`` (info): the firmware read and the one listed agree only as far as the shorter goes
  (listed ``14``, read ``14.30.1004``), or the listing pairs the firmware with an additional firmware version the
  firmware text read does not show;
* ``guide-firmware-not-listed`` (warning): the driver version is listed with firmware versions and the host's
  firmware is none of them. Firmware texts are compared token by token (the first token, and the next ones when
  the listing gives them; ``/pkg …`` tails dropped), each token by whole dot-separated components (numbers as
  numbers, trailing zero components ignored): listed ``14`` does not match ``14.30.1004``;
* ``guide-newer-driver-adds-feature`` (info): a newer listed version of the same driver module adds a feature
  (Geneve offload, Geneve Rx filters, Enhanced Datapath) that the host's listed version does not have;
* ``guide-listed`` (info, what makes the driver column pass): device, driver module and version, and firmware (when
  the listing names any) match a listing (the listing's features named; a build suffix not compared is said).

A device the guide does not list at all gives nothing: the files a user imports need not cover every device (the
vSAN HCL lists only vSAN/RDMA NICs), so absence proves nothing. A device listed only for other subsystems (SVID/SSID)
is left alone unless the host's subsystem is known. Every finding cites the imported files (name, format, data date
or "date of the data not stated; imported on …", sha256) and says "compatibility guide data (imported)". When the
data is older than 90 / 180 days, one ``guide-data-stale`` warning / error per audited ESXi host says so (as vSAN
Health does for its HCL database).
"""
from __future__ import annotations

import datetime as _dt

from nicadvisor.change_commands import (
    driver_update_steps, firmware_update_steps, guide_import_steps, release_change_steps,
)
from nicadvisor.model import Finding, Host, PhysicalNic, Severity
from nicadvisor.model.readiness import commands_for
from nicadvisor.vcg.builds import host_release, release_unknown_reason
from nicadvisor.vcg.context import HostCompat, subsystem_ok, contexts_for
from nicadvisor.vcg.guide_formats import GuideListing
from nicadvisor.vcg.guide_store import GuideDataset, staleness
from nicadvisor.vcg.normalize import (driver_module, normalise_driver, parse_host_version, parse_release,
                                      release_label, version_key)

#: Features whose absence matters for the overlay, by how the guide may spell them (lower case) → label.
#: Spellings: "Geneve-Offload and Geneve-Rx Filters" and "Geneve-RxFilters" (nsx-t-performance-on-intel.txt §1.3.1,
#: §1.10.1), "N-VDS Enhanced Data Path" (§1.12.5), "Enhanced Datapath - Interrupt Mode" / "- Poll Mode" (NSX 4.0
#: installation guide, shared/design/research/vcg-data.md §2.4).
_FEATURES = {"geneve-offload": "Geneve offload", "geneve offload": "Geneve offload",
             "geneve-rx filters": "Geneve Rx filters", "geneve-rx filter": "Geneve Rx filters",
             "geneve-rxfilters": "Geneve Rx filters", "geneve rx filters": "Geneve Rx filters",
             "geneve rx filter": "Geneve Rx filters", "enhanced datapath - interrupt mode": "ENS interrupt mode",
             "enhanced datapath - poll mode": "ENS poll mode", "n-vds enhanced datapath": "Enhanced Datapath",
             "n-vds enhanced data path": "Enhanced Datapath"}

TRUST = "compatibility guide data (imported)"
_KIND = {"vsan-hcl": "the vSAN HCL", "bcg-results": "a Broadcom Compatibility Guide search answer",
         "bcg-details": "a Broadcom Compatibility Guide details answer", "vcg-api": "a VCG API answer",
         None: "an exchange file that does not name its source"}


def _features(listings: list[GuideListing]) -> set[str]:
    return {_FEATURES[f.lower()] for g in listings for f in g.features if f.lower() in _FEATURES}


def _has_suffix(version: str) -> bool:
    return "-" in version.strip().strip("-")


def _same_version(listed: str | None, host: str | None) -> bool:
    """Same numbers (:func:`version_key`), and the same whole text, build suffix included, when both give one."""
    if not (listed and host) or version_key(listed) != version_key(host):
        return False
    if _has_suffix(listed) and _has_suffix(host):
        return listed.strip().casefold() == host.strip().casefold()
    return True


def _understood(release: str | None) -> bool:
    return release is not None and parse_release(release) is not None


def _fw_tokens(text: str) -> list[str]:
    return [t.split("/")[0] for t in text.split() if t.split("/")[0]]


def _components(token: str) -> list[int | str]:
    parts: list[int | str] = [int(c) if c.isdigit() else c.casefold() for c in token.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return parts


def _token_match(host: str, listed: str) -> str:
    """"yes" (same components), "partial" (one is a component prefix of the other) or "no"."""
    h, g = _components(host), _components(listed)
    if h == g:
        return "yes"
    shorter = min(len(h), len(g))
    return "partial" if h[:shorter] == g[:shorter] else "no"


def firmware_match(host: str | None, listed: str | None) -> str | None:
    """How the host's firmware text compares with a listed one: "yes", "partial" (they agree only as far as the
    shorter goes: listed ``14``, host ``14.30.1004``; or the host shows fewer tokens than listed), "no", or None
    when either is missing or ``N/A``. Tokens (whitespace-separated, ``/…`` tails dropped) are compared in order,
    as many as the listing gives, each by whole dot-separated components."""
    if not host or not listed or host.strip().upper() in ("N/A", "NA") or listed.strip().upper() in ("N/A", "NA"):
        return None
    h, g = _fw_tokens(host), _fw_tokens(listed)
    if not h or not g:
        return None
    result = "yes"
    for i, token in enumerate(g):
        if i >= len(h):
            result = "partial"
            continue
        m = _token_match(h[i], token)
        if m == "no":
            return "no"
        if m == "partial":
            result = "partial"
    return result


def _shows(host: str, additional: str) -> bool:
    """True when every token of ``additional`` is one of the host firmware text's tokens."""
    have = _fw_tokens(host)
    return all(any(_token_match(h, a) == "yes" for h in have) for a in _fw_tokens(additional))


def _coverage(data: GuideDataset) -> set[tuple[str | None, str | None]]:
    """(source, release) pairs the data has listings for."""
    return {(g.source, g.release) for g in data.listings}


def _said_by(listings: list[GuideListing]) -> str:
    kinds = {g.source for g in listings}
    return "the vSAN HCL" if kinds == {"vsan-hcl"} else "the guide"


_DERIVE = object()


def _driver_listings(listings: list[GuideListing], p: PhysicalNic) -> tuple[list[GuideListing], list[GuideListing],
                                                                             list[GuideListing]]:
    """(listings naming a driver, those of ``p``'s driver module, those of its module and version) among
    ``listings`` (one release's)."""
    module = driver_module(p.driver)
    with_driver = [g for g in listings if g.driver]
    same_driver = [g for g in with_driver if driver_module(g.driver) == module] if module else []
    return with_driver, same_driver, [g for g in same_driver if _same_version(g.driver_version, p.driver_version)]


def findings_for_pnic(host: Host, p: PhysicalNic, data: GuideDataset,
                      coverage: set[tuple[str | None, str | None]] | None = None, *,
                      release: str | None | object = _DERIVE,
                      listings: tuple[GuideListing, ...] | None = None) -> list[Finding]:
    """The guide findings of one pNIC (see the module docstring); [] when the guide does not list it.
    ``coverage``: the (source, release) pairs of ``data`` (computed when not given; :func:`guide_findings` passes
    it once for all pNICs). ``release`` and ``listings``: the host's guide release and the device's listings as the
    judgement's context derived them once (:mod:`nicadvisor.vcg.context`); derived here when not given."""
    if p.is_physical is False or not (p.vid and p.did) or host.kind != "esxi":
        return []
    listed = list(listings) if listings is not None else [
        g for g in data.for_device(p.vid.lower(), p.did.lower()) if subsystem_ok(g, p)]
    if not listed:
        return []
    refs = (f"compatibility guide (imported): {data.describe()}",)
    evidence = tuple(p.evidence[k] for k in ("vid", "did", "svid", "ssid", "driver", "driver_version",
                                             "firmware_version") if k in p.evidence)
    model = _model(listed, p)
    if release is _DERIVE:
        release = host_release(host)

    def finding(rule_id: str, title: str, severity: Severity, message: str, recommendation: str,
                steps: dict[str, str] | None = None) -> Finding:
        """``steps``: the ``change`` / ``verify`` / ``rollback`` of a finding to act on
        (:mod:`nicadvisor.change_commands`)."""
        steps = steps or {}
        return Finding(rule_id=rule_id, title=title, severity=severity, host=host.name, obj=p.name,
                       message=f"{message} [{TRUST}]", recommendation=recommendation, references=refs,
                       evidence=evidence, category="driver", **steps)

    if release is None:
        return [_release_unknown(host, listed, model, finding)]
    for_release = [g for g in listed if g.release == release]
    if not for_release:
        return [_not_for_release(host, p, data, listed, release, model, finding,
                                 _coverage(data) if coverage is None else coverage)]
    said = _said_by(for_release)
    module = driver_module(p.driver)
    with_driver, same_driver, mine = _driver_listings(for_release, p)
    if module and not with_driver:
        kinds = sorted({_KIND[g.source] for g in for_release})
        return [finding("guide-driver-unchecked", "Listed for the release; no driver data imported", Severity.INFO,
                        f"{model} is listed for {release} ({said}), but the imported data ("
                        f"{', '.join(kinds)}) names no driver or firmware for it, so {p.driver} "
                        f"{p.driver_version or ''}".rstrip() + " and the firmware of " + p.name + " were not checked.",
                        f"Import the guide's details for {model} on {release} (a Broadcom Compatibility Guide details "
                        "answer, with its search answer as --companion), or check the driver/firmware pair there.")]
    out: list[Finding] = []
    if module and p.driver_version and not mine:
        versions = sorted({g.driver_version for g in same_driver if g.driver_version}, key=lambda v: version_key(v) or "")
        other = sorted({f"{g.driver} {g.driver_version or ''}".rstrip() for g in with_driver
                        if driver_module(g.driver) != module})
        listed_text = (f"lists {p.driver} {', '.join(versions)}" if versions else
                       f"lists other drivers ({', '.join(other[:6])})" if other else "lists no driver")
        twins = sorted({g.driver for g in with_driver if driver_module(g.driver) != module
                        and normalise_driver(g.driver) == normalise_driver(p.driver)})
        apart = (f" {', '.join(twins)} is another module than {p.driver}: ENS and non-ENS drivers are listed apart."
                 if twins else "")
        out.append(finding("guide-driver-not-listed", "Driver version not listed for this NIC and release",
                           Severity.WARNING,
                           f"{p.name} runs {p.driver} {p.driver_version}; for {model} on {release} {said} "
                           f"{listed_text}.{apart}",
                           f"Install a driver version {said} lists for {model} on {release}"
                           + (f" ({p.driver} {versions[-1]})" if versions else "") + ", with its listed firmware.",
                           driver_update_steps(host, p, versions[-1] if versions else None)))
    if not mine:
        return out
    firmware_ok = True
    constrained = [g for g in mine if g.firmware]
    firmwares = list(dict.fromkeys(fw for g in constrained for fw in g.firmware))
    if constrained and not p.firmware_version:
        firmware_ok = False
        out.append(finding("guide-firmware-unknown", "Firmware not read: the listed pair cannot be checked",
                           Severity.INFO,
                           f"{model} with {p.driver} {p.driver_version} is listed for {release} with firmware "
                           f"{', '.join(firmwares[:8])} only; the firmware of {p.name} was not read, so whether it is "
                           "a listed pair is not known.",
                           f"Read the firmware on {host.name} with esxcli network nic get -n {p.name} (Driver Info: "
                           "Firmware Version) and audit again."))
    elif constrained:
        results = []
        for g in constrained:
            for fw in g.firmware:
                m = firmware_match(p.firmware_version, fw)
                if m == "yes" and g.additional_firmware and not _shows(p.firmware_version, g.additional_firmware):
                    m = "additional"
                results.append((m, fw, g))
        if not any(m == "yes" for m, _, _ in results):
            firmware_ok = False
            unclear = [(m, fw, g) for m, fw, g in results if m in ("partial", "additional", None)]
            if unclear:
                why = "; ".join(
                    f"{fw} with additional firmware {g.additional_firmware}, which the firmware text read does not "
                    "show" if m == "additional" else
                    f"{fw}, which agrees with it only as far as the shorter goes" if m == "partial" else
                    f"{fw}, which cannot be compared with it"
                    for m, fw, g in unclear[:4])
                out.append(finding("guide-firmware-unclear", "Firmware: the listed pair cannot be confirmed",
                                   Severity.INFO,
                                   f"{p.name} has firmware {p.firmware_version}; with {p.driver} {p.driver_version} "
                                   f"on {release} {said} lists {why}.",
                                   f"Compare the full firmware of {p.name} (esxcli network nic get -n {p.name}, or the "
                                   f"vendor's tool) with the guide's entry for {model}."))
            else:
                out.append(finding("guide-firmware-not-listed", "Firmware not the listed driver/firmware pair",
                                   Severity.WARNING,
                                   f"{p.name} has firmware {p.firmware_version}; with {p.driver} {p.driver_version} "
                                   f"on {release} {said} lists firmware {', '.join(firmwares[:8])}.",
                                   f"Update the firmware of {p.name} to a version listed with {p.driver} "
                                   f"{p.driver_version} (or move both to another listed pair).",
                                   firmware_update_steps(p)))
    have = _features(mine)
    newer = [g for g in same_driver if (version_key(g.driver_version) or "") > (version_key(p.driver_version) or "")]
    adds: dict[str, str] = {}
    for g in sorted(newer, key=lambda g: version_key(g.driver_version) or ""):
        for feature in _features([g]) - have:
            adds.setdefault(feature, g.driver_version or "")
    for feature, version in adds.items():
        out.append(finding("guide-newer-driver-adds-feature", f"A newer listed driver adds {feature}",
                           Severity.INFO,
                           f"{p.name} runs {p.driver} {p.driver_version}, listed without {feature}; {said} "
                           f"lists {p.driver} {version} with {feature} for {model} on {release}.",
                           f"Update {p.driver} to {version} (with its listed firmware) to get {feature}."))
    if firmware_ok:
        feats = sorted(have)
        suffixes = sorted({g.driver_version for g in mine if g.driver_version and _has_suffix(g.driver_version)})
        build_note = (f" (the guide lists {', '.join(suffixes)}; {p.name} reports {p.driver_version} without a build "
                      "suffix, so the build was not compared)"
                      if suffixes and not _has_suffix(p.driver_version or "") else "")
        fw_note = "" if constrained else " (the listing names no firmware)"
        out.append(finding("guide-listed", "Listed in the compatibility guide", Severity.INFO,
                           f"{model} with {p.driver} {p.driver_version} is listed for {release} in {said}"
                           + (f" with {', '.join(feats)}" if feats else "") + build_note + fw_note + ".",
                           "Nothing to change for the listing."))
    return out


def _model(listed: list[GuideListing], p: PhysicalNic) -> str:
    return f"{listed[0].model} ({p.vid}:{p.did})" if listed[0].model else f"the device {p.vid}:{p.did}"


def _release_order(label: str) -> tuple:
    parsed = parse_release(label)
    return (parsed[0], -1 if parsed[1] is None else parsed[1], parsed[2]) if parsed else (999, 999, 999)


def _release_unknown(host: Host, listed: list[GuideListing], model: str, finding) -> Finding:
    """``guide-release-unknown``: what was read of the host's release and what is missing (its update level, most
    often), the releases of its major.minor the device is listed for, and the command that tells the update."""
    why = release_unknown_reason(host)
    read = parse_host_version(host.product_version)
    releases = sorted({g.release for g in listed if _understood(g.release)}, key=_release_order)
    if read is None:
        message = (f"{model} is in the imported guide (for {', '.join(releases) or 'releases not stated'}); "
                   f"{why}, so which listing applies cannot be checked.")
        recommendation = (f"Run vmware -vl on {host.name} (read-only: it prints the version, the build and the "
                          "update level, e.g. 'VMware ESXi 6.7.0 build-17700523' / 'VMware ESXi 6.7.0 Update 3') "
                          "and audit again with its output.")
        return finding("guide-release-unknown", "Compatibility guide: host release unknown", Severity.INFO,
                       message, recommendation)
    major, minor, _update = read
    line = release_label(major, minor, 0)
    same_line = [r for r in releases if parse_release(r)[:2] in ((major, minor), (major, None))]
    others = [r for r in releases if r not in same_line]
    if same_line:
        message = (f"The imported guide lists {model} for {', '.join(same_line)}"
                   + (f" (and {', '.join(others)})" if others else "")
                   + f"; {why}, so which of these listings applies to {host.name}, if any, is not known.")
    else:
        message = (f"The imported guide lists {model}"
                   + (f" for {', '.join(others)}" if others else " without a release it understands")
                   + f" and for no release of {line}; {why}. The guide lists devices per update ({line}, "
                   f"{line} U1, …), so the update level decides which listing applies: the device is not reported "
                   "as unlisted for a release that is not known.")
    recommendation = (f"Learn the update level of {host.name}: run vmware -vl there (read-only; its second line "
                      f"names it, e.g. 'VMware ESXi {host.product_version} Update 3') and audit again with its output.")
    return finding("guide-release-unknown", "Compatibility guide: host update level unknown", Severity.INFO,
                   message, recommendation)


def _not_for_release(host: Host, p: PhysicalNic, data: GuideDataset, listed: list[GuideListing], release: str,
                     model: str, finding, coverage: set[tuple[str | None, str | None]]) -> Finding:
    """The finding for a device the imported data lists, but not for the host's release (module docstring)."""
    named = sorted({g.release for g in listed if _understood(g.release)})
    vague = [g for g in listed if not _understood(g.release)]
    if vague:
        labels = sorted({repr(g.release) for g in vague if g.release})
        how = ("without a release" if not labels else
               f"for release label(s) not understood ({', '.join(labels)})")
        kinds = sorted({_KIND[g.source] for g in vague})
        return finding("guide-release-not-stated", "Compatibility guide: release of the listing not stated",
                       Severity.INFO,
                       f"{model} is in the imported guide data {how} ({', '.join(kinds)})"
                       + (f", and for {', '.join(named)}" if named else "")
                       + f": the data does not say whether it is listed for {release}, which {host.name} runs.",
                       f"Check {model} for {release} in the compatibility guide, or import a file that names its "
                       "releases (a Broadcom Compatibility Guide search answer lists supportedReleases).")
    deciding = sorted({g.source for g in listed if (g.source, release) in coverage}, key=lambda k: k or "")
    if not deciding:
        kinds = sorted({_KIND[g.source] for g in listed})
        return finding("guide-release-not-imported", "Compatibility guide: host release not in the imported data",
                       Severity.INFO,
                       f"The imported guide data that lists {model} ({', '.join(kinds)}) has no "
                       f"listing for {release} at all, so whether it is listed for {release} cannot be told from it.",
                       f"Import the guide's data for {release} (nic-advisor vcg import FILE).")
    general = [k for k in deciding if k != "vsan-hcl"]
    if general:
        return finding("guide-device-not-listed", "NIC not listed for this ESXi release", Severity.ERROR,
                       f"{model} is listed in the compatibility guide for "
                       f"{', '.join(named) or 'other releases'}, not for {release}, which {host.name} runs "
                       f"({', '.join(_KIND[k] for k in general)} lists other devices for {release}).",
                       f"Run {host.name} on a release the guide lists for this NIC, or replace the NIC with one "
                       f"listed for {release}.", release_change_steps(host))
    vsan = sorted({g.release for g in listed if g.source == "vsan-hcl" and g.release})
    return finding("guide-device-not-listed", "NIC not in the vSAN HCL for this ESXi release", Severity.WARNING,
                   f"The vSAN HCL (imported) lists {model} for {', '.join(vsan)}, not for {release}, "
                   f"which {host.name} runs: it is not certified there for vSAN/RDMA use on {release}. The vSAN HCL "
                   "lists NICs certified for vSAN/RDMA only, so this says nothing about its certification for general "
                   "networking.",
                   f"If {host.name} uses this NIC for vSAN or RDMA, run a release the vSAN HCL lists for it; for "
                   f"general networking check the I/O program of the Broadcom Compatibility Guide for {release}.",
                   release_change_steps(host))


def guide_findings(hosts: list[Host], data: GuideDataset | None, today: _dt.date | None = None,
                   contexts: dict[int, HostCompat] | None = None) -> list[Finding]:
    """The findings of every physical pNIC of the ESXi ``hosts`` against the imported guide ``data`` (None: not
    imported → []), plus one ``guide-data-stale`` finding per ESXi host when the data is old. ``contexts``: the
    judgement's one derivation of each host's release and listings (:func:`nicadvisor.vcg.context.compat_contexts`
    with this ``data``); derived here when not given."""
    if data is None:
        return []
    out: list[Finding] = []
    stale = staleness(data, today)
    coverage = _coverage(data)
    for ctx in contexts_for(hosts, contexts, guide=data):
        host = ctx.host
        for p in host.pnics:
            out.extend(findings_for_pnic(host, p, data, coverage, release=ctx.release,
                                         listings=ctx.of(p).listings))
        if stale is not None and host.kind == "esxi":
            level, message = stale
            out.append(Finding(
                rule_id="guide-data-stale", title="Compatibility guide data out of date",
                severity=Severity.ERROR if level == "error" else Severity.WARNING, host=host.name,
                message=f"{message[0].upper()}{message[1:]}.",
                recommendation="Import a current copy of the guide (nic-advisor vcg import FILE) and audit again.",
                references=(f"compatibility guide (imported): {data.describe()}",), category="driver",
                **guide_import_steps()))
    return out


#: The guide features that decide a capability-matrix cell: label → (matrix column, the pNIC fact a host reading
#: gives). A host switch in ENS (poll) mode needs "Enhanced Datapath" or "ENS poll mode" listed, one in ENS
#: interrupt mode "ENS interrupt mode" (nsx-t-performance-on-intel.txt §1.12.5: the guide is where ENS capability
#: is looked up).
FEATURE_CELLS = {"Geneve offload": ("geneve_offload", "geneve_offload"),
                 "Geneve Rx filters": ("rx_filter", "geneve_rx_filter"),
                 "ENS poll mode": ("ens", "ens_capable"), "ENS interrupt mode": ("ens", "ens_interrupt_capable")}
_ENS_NEEDS = {"ens": ("ENS poll mode", ("ENS poll mode", "Enhanced Datapath")),
              "ens_interrupt": ("ENS interrupt mode", ("ENS interrupt mode",))}


def _reading(need: str, host: Host, p: PhysicalNic) -> str:
    """The read-only command that reads ``need`` on the host (:func:`nicadvisor.model.readiness.commands_for`)."""
    return " and ".join(commands_for(FEATURE_CELLS[need][0], host, p))


def _needed_features(host: Host, p: PhysicalNic) -> list[tuple[str, tuple[str, ...]]]:
    """(feature label, labels that satisfy it) the overlay would need of ``p``: Geneve offload and Geneve Rx filters
    on every physical pNIC (a pNIC free today is often the one NSX takes, issue 24 §1); the ENS mode its host switch
    runs, if any."""
    out: list[tuple[str, tuple[str, ...]]] = [("Geneve offload", ("Geneve offload",)),
                                              ("Geneve Rx filters", ("Geneve Rx filters",))]
    sw = host.switch_of(p.name)
    mode = (sw.ens_mode or "").lower() if sw is not None else ""
    if mode in _ENS_NEEDS:
        out.append(_ENS_NEEDS[mode])
    return out


def _feature_listings(ctx: HostCompat, p: PhysicalNic) -> list[GuideListing]:
    """The guide's listings of ``p``'s device for its host's release and installed driver that can name NSX features
    (the vSAN HCL's cannot); [] off ESXi or when the release is not known."""
    if ctx.host.kind != "esxi" or ctx.release is None:
        return []
    _all, _same, mine = _driver_listings([g for g in ctx.of(p).listings if g.release == ctx.release], p)
    return [g for g in mine if g.source != "vsan-hcl"]


def guide_listed_facts(ctx: HostCompat, p: PhysicalNic) -> set[str]:
    """The pNIC facts (``geneve_offload``, ``ens_capable``…) whose overlay feature the imported guide lists for ``p``
    (device, release, installed driver): the cells :func:`feature_findings` decides from the guide when the host did
    not read them. Certification data outranks the driver catalogue's documents (trust ranks, :mod:`nicadvisor.vcg`),
    so the judgement offers no catalogue value for them."""
    mine = _feature_listings(ctx, p)
    if not mine:
        return set()
    have = _features(mine)
    return {FEATURE_CELLS[need][1] for need, satisfied_by in _needed_features(ctx.host, p)
            if any(f in have for f in satisfied_by)}


def feature_findings(hosts: list[Host], data: GuideDataset | None,
                     contexts: dict[int, HostCompat] | None = None) -> list[Finding]:
    """What the imported guide says about the overlay features of each ESXi pNIC whose device, release and driver
    version it lists (the listings :func:`findings_for_pnic` matches as the host's driver): the cells it decides.

    For each feature the pNIC needs (Geneve offload and Geneve Rx filters on every physical pNIC the listing matches,
    whether or not it is an uplink today; the ENS mode its host switch runs), with the host's own reading of the
    matching fact:

    * ``guide-feature-listed`` (info): listed, and the host did not read the fact: the cell is decided "from the
      compatibility guide (file, date)" (:data:`GUIDE_ORIGIN`), at a lower trust than a reading;
    * ``guide-feature-not-listed`` (warning): the listing names other features or none, and the host did not read
      the fact: "not listed for Geneve offload", never a "no" (the fact stays unknown); only on a pNIC that carries or
      may carry the overlay (one that cannot is not warned about what it will not do);
    * ``guide-feature-conflict`` (info): the host read the opposite of what the listing says: the host's reading is
      used, the finding shows both.

    Listings of the vSAN HCL alone are skipped: it lists vSAN/RDMA certifications, never NSX features. ``contexts``:
    the judgement's one derivation (:mod:`nicadvisor.vcg.context`); derived here when not given."""
    if data is None:
        return []
    out: list[Finding] = []
    refs = (f"compatibility guide (imported): {data.describe()}",)
    for ctx in contexts_for(hosts, contexts, guide=data):
        host, release = ctx.host, ctx.release
        if host.kind != "esxi" or release is None:
            continue
        for p in host.pnics:
            if p.is_physical is False:
                continue
            listed = list(ctx.of(p).listings)
            mine = _feature_listings(ctx, p)
            if not mine:
                continue
            have = _features(mine)
            model = _model(listed, p)
            evidence = tuple(p.evidence[k] for k in ("vid", "did", "svid", "ssid", "driver", "driver_version")
                             if k in p.evidence)
            where = f"{model} with {p.driver} {p.driver_version} on {release}"
            for need, satisfied_by in _needed_features(host, p):
                column, fact = FEATURE_CELLS[need]
                read = getattr(p, fact)
                listed_it = any(f in have for f in satisfied_by)
                base = dict(host=host.name, obj=p.name, references=refs, evidence=evidence, category=column,
                            facts=(fact,) if read is not None else ())
                if listed_it and read is None:
                    out.append(Finding(
                        rule_id="guide-feature-listed", title=f"Listed for {need} in the compatibility guide",
                        severity=Severity.INFO,
                        message=f"{where} is listed with {need} [{TRUST}; {data.describe()}]; {p.name} did not "
                                "report it itself, so the cell is decided from the guide (a reading on the host "
                                "would win).",
                        recommendation=f"Confirm it on the host when you can ({_reading(need, host, p)}).", **base))
                elif not listed_it and read is None:
                    if host.overlay_role(p) == "none" and column != "ens":
                        continue
                    out.append(Finding(
                        rule_id="guide-feature-not-listed", title=f"Not listed for {need} in the compatibility guide",
                        severity=Severity.WARNING,
                        message=f"{where} is listed in the compatibility guide, but not for {need} (listed: "
                                f"{', '.join(sorted(have)) or 'no overlay feature'}) [{TRUST}; {data.describe()}]: "
                                f"not certified for it; whether {p.name} does it is not known.",
                        recommendation=f"Read it on the host ({_reading(need, host, p)}), or use a driver the guide "
                                       f"lists with {need} for {release}.", **base))
                elif listed_it != bool(read):
                    out.append(Finding(
                        rule_id="guide-feature-conflict", title=f"Host reading differs from the guide: {need}",
                        severity=Severity.INFO,
                        message=f"{p.name} reads {fact.replace('_', ' ')} = {read} on the host, while {where} is "
                                + ("listed with" if listed_it else "not listed for") + f" {need} in the compatibility "
                                f"guide [{TRUST}; {data.describe()}]: the value read on the host is used.",
                        recommendation="Check the driver and firmware versions against the guide's listing.", **base))
    return out

