"""Findings from the compatibility guide the user imported (:mod:`nicadvisor.vcg.guide_store`), per ESXi pNIC.

For a physical pNIC with known VID/DID on an ESXi host whose release is known (:func:`nicadvisor.vcg.builds.
guide_release`: "ESXi 8.0 U2" from the build or the version):

* ``guide-device-not-listed`` (error): the guide lists the device, but not for the host's release, while the
  imported data does cover that release (other devices are listed for it) — the release the host runs is not
  certified for this NIC; ``guide-release-not-imported`` (info) when no imported listing names that release at all;
* ``guide-driver-not-listed`` (warning): the device is listed for the release, but not with the host's driver
  version (the listed versions of that driver are named);
* ``guide-firmware-not-listed`` (warning): the driver version is listed, with firmware versions, and the host's
  firmware is none of them;
* ``guide-newer-driver-adds-feature`` (info): a newer listed version of the same driver adds a feature (Geneve
  offload, Geneve Rx filters, Enhanced Datapath) that the host's listed version does not have;
* ``guide-listed`` (info): the device, driver and firmware match a listing (the listing's features named).

A device the guide does not list at all gives nothing: the files a user imports need not cover every device (the
vSAN HCL lists only vSAN/RDMA NICs), so absence proves nothing. A device listed only for other subsystems (SVID/SSID)
is left alone unless the host's subsystem is known. Every finding cites the imported files (name, format, data date,
sha256) and says "compatibility guide data (imported)". When the data is older than 90 / 180 days, one
``guide-data-stale`` warning / error per audited ESXi host says so (as vSAN Health does for its HCL database).
"""
from __future__ import annotations

import datetime as _dt

from nicadvisor.model import Finding, Host, PhysicalNic, Severity
from nicadvisor.vcg.builds import guide_release
from nicadvisor.vcg.guide_formats import GuideListing
from nicadvisor.vcg.guide_store import GuideDataset, staleness
from nicadvisor.vcg.normalize import firmware_matches, normalise_driver, version_key

#: Features whose absence matters for the overlay, by how the guide may spell them (lower case) → label.
_FEATURES = {"geneve-offload": "Geneve offload", "geneve offload": "Geneve offload",
             "geneve-rx filters": "Geneve Rx filters", "geneve-rx filter": "Geneve Rx filters",
             "geneve rx filter": "Geneve Rx filters", "enhanced datapath - interrupt mode": "ENS interrupt mode",
             "enhanced datapath - poll mode": "ENS poll mode", "n-vds enhanced datapath": "Enhanced Datapath"}
TRUST = "compatibility guide data (imported)"


def _subsystem_ok(g: GuideListing, p: PhysicalNic) -> bool:
    """The listing names the host's subsystem, or any subsystem; False when it names another or the host's is
    unknown (a potential match decides nothing)."""
    for listed, host in ((g.svid, p.svid), (g.ssid, p.ssid)):
        if listed is None:
            continue
        if host is None or listed != host.lower():
            return False
    return True


def _features(listings: list[GuideListing]) -> set[str]:
    return {_FEATURES[f.lower()] for g in listings for f in g.features if f.lower() in _FEATURES}


def _same_version(a: str | None, b: str | None) -> bool:
    return bool(a and b) and version_key(a) == version_key(b)


def findings_for_pnic(host: Host, p: PhysicalNic, data: GuideDataset) -> list[Finding]:
    """The guide findings of one pNIC (see the module docstring); [] when the guide does not list it."""
    if p.is_physical is False or not (p.vid and p.did) or host.kind != "esxi":
        return []
    listed = [g for g in data.for_device(p.vid.lower(), p.did.lower()) if _subsystem_ok(g, p)]
    if not listed:
        return []
    target = f"{host.name}/{p.name}"
    refs = (f"compatibility guide (imported): {data.describe()}",)
    evidence = tuple(p.evidence[k] for k in ("vid", "did", "svid", "ssid", "driver", "driver_version",
                                             "firmware_version") if k in p.evidence)
    model = listed[0].model
    release = guide_release(host.product_version, host.build)

    def finding(rule_id: str, title: str, severity: Severity, message: str, recommendation: str) -> Finding:
        return Finding(rule_id=rule_id, title=title, severity=severity, host=host.name, target=target,
                       message=f"{message} [{TRUST}]", recommendation=recommendation, references=refs,
                       evidence=evidence, category="driver")

    if release is None:
        return [finding("guide-release-unknown", "Compatibility guide: host release unknown", Severity.INFO,
                        f"{model} ({p.vid}:{p.did}) is in the imported guide, but the ESXi release of {host.name} "
                        "was not read, so its listing cannot be checked.",
                        "Audit the host with esxcli system version get (or through vCenter) so its release is known.")]
    for_release = [g for g in listed if g.release == release]
    if not for_release and not any(g.release == release for g in data.listings):
        # the imported files hold no listing of this release at all (a file saved for one release only): its
        # absence says nothing about this device
        return [finding("guide-release-not-imported", "Compatibility guide: host release not in the imported data",
                        Severity.INFO,
                        f"The imported guide has no listing for {release} at all, so whether {model} ({p.vid}:{p.did}) "
                        f"is listed for it cannot be told from it.",
                        f"Import the guide's data for {release} (nic-advisor vcg import FILE).")]
    if not for_release:
        others = sorted({g.release for g in listed if g.release})
        return [finding("guide-device-not-listed", "NIC not listed for this ESXi release", Severity.ERROR,
                        f"{model} ({p.vid}:{p.did}) is listed in the compatibility guide for "
                        f"{', '.join(others) or 'other releases'}, not for {release}, which {host.name} runs.",
                        f"Run {host.name} on a release the guide lists for this NIC, or replace the NIC with one "
                        f"listed for {release}.")]
    driver = normalise_driver(p.driver)
    same_driver = [g for g in for_release if normalise_driver(g.driver) == driver] if driver else []
    mine = [g for g in same_driver if _same_version(g.driver_version, p.driver_version)]
    out: list[Finding] = []
    if driver and p.driver_version and not mine:
        versions = sorted({g.driver_version for g in same_driver if g.driver_version}, key=lambda v: version_key(v) or "")
        other = sorted({f"{g.driver} {g.driver_version}" for g in for_release if g.driver} - {
            f"{g.driver} {g.driver_version}" for g in same_driver})
        listed_text = (f"lists {p.driver} {', '.join(versions)}" if versions else
                       f"lists other drivers ({', '.join(other[:6])})" if other else "lists no driver")
        out.append(finding("guide-driver-not-listed", "Driver version not listed for this NIC and release",
                           Severity.WARNING,
                           f"{p.name} runs {p.driver} {p.driver_version}; for {model} on {release} the guide "
                           f"{listed_text}.",
                           f"Install a driver version the guide lists for {model} on {release}"
                           + (f" ({p.driver} {versions[-1]})" if versions else "") + ", with its listed firmware."))
    if mine:
        firmwares = sorted({fw for g in mine for fw in g.firmware})
        if firmwares and p.firmware_version and not any(firmware_matches(p.firmware_version, fw) for fw in firmwares):
            out.append(finding("guide-firmware-not-listed", "Firmware not the listed driver/firmware pair",
                               Severity.WARNING,
                               f"{p.name} has firmware {p.firmware_version}; with {p.driver} {p.driver_version} on "
                               f"{release} the guide lists firmware {', '.join(firmwares[:8])}.",
                               f"Update the firmware of {p.name} to a version listed with {p.driver} "
                               f"{p.driver_version} (or move both to another listed pair)."))
        have = _features(mine)
        newer = [g for g in same_driver if (version_key(g.driver_version) or "") > (version_key(p.driver_version) or "")]
        adds: dict[str, str] = {}
        for g in sorted(newer, key=lambda g: version_key(g.driver_version) or ""):
            for feature in _features([g]) - have:
                adds.setdefault(feature, g.driver_version or "")
        for feature, version in adds.items():
            out.append(finding("guide-newer-driver-adds-feature", f"A newer listed driver adds {feature}",
                               Severity.INFO,
                               f"{p.name} runs {p.driver} {p.driver_version}, listed without {feature}; the guide "
                               f"lists {p.driver} {version} with {feature} for {model} on {release}.",
                               f"Update {p.driver} to {version} (with its listed firmware) to get {feature}."))
        if not out:
            feats = sorted(have)
            out.append(finding("guide-listed", "Listed in the compatibility guide", Severity.INFO,
                               f"{model} with {p.driver} {p.driver_version} is listed for {release}"
                               + (f" with {', '.join(feats)}" if feats else "") + ".",
                               "Nothing to change for the listing."))
    return out


def guide_findings(hosts: list[Host], data: GuideDataset | None, today: _dt.date | None = None) -> list[Finding]:
    """The findings of every physical pNIC of the ESXi ``hosts`` against the imported guide ``data`` (None: not
    imported → []), plus one ``guide-data-stale`` finding per ESXi host when the data is old."""
    if data is None:
        return []
    out: list[Finding] = []
    stale = staleness(data, today)
    for host in hosts:
        for p in host.pnics:
            out.extend(findings_for_pnic(host, p, data))
        if stale is not None and host.kind == "esxi":
            level, message = stale
            out.append(Finding(
                rule_id="guide-data-stale", title="Compatibility guide data out of date",
                severity=Severity.ERROR if level == "error" else Severity.WARNING, host=host.name, target=host.name,
                message=f"{message[0].upper()}{message[1:]}.",
                recommendation="Import a current copy of the guide (nic-advisor vcg import FILE) and audit again.",
                references=(f"compatibility guide (imported): {data.describe()}",), category="driver"))
    return out
