"""The PCIe link out of band: read each server's BMC over Redfish and fill its pNICs' PCIe facts.

A BMC is given for one audited host (``RedfishEntry.for_host``, the host's name as the audit knows it). Its PCIe
devices (:mod:`nicadvisor.collect.redfish`) are matched to that host's pNICs (:func:`nicadvisor.parsers.api.redfish.
match_pnics`: PCI address, else the four PCI IDs when they name exactly one device) and each match fills the pNIC's
``pcie_speed_gts``/``pcie_width`` (``PCIeType``/``LanesInUse``) and ``pcie_speed_capable_gts``/``pcie_width_capable``
(``MaxPCIeType``/``MaxLanes``) — the facts ``lspci -vv`` LnkSta/LnkCap fill on Linux — with evidence whose command
starts with :data:`nicadvisor.model.capabilities.BMC_ORIGIN`, so every view says the value came from the BMC.

A reading taken on the host wins: the BMC only fills what the host did not tell (:meth:`PhysicalNic.set_fact`);
where both know a value and disagree, an input note names both. A BMC that cannot be read, a host not in the audit,
a pNIC not matched (or matched ambiguously) are input notes (source ``redfish://bmc``), never a verdict by themselves.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from nicadvisor.model import InputProblem
from nicadvisor.model.capabilities import BMC_ORIGIN
from nicadvisor.model.entities import Evidence, Host
from nicadvisor.parsers.api.redfish import PnicIdentity, RedfishPcieDevice, match_pnics

#: PhysicalNic field ← RedfishPcieDevice attribute, and the Redfish property it comes from.
FIELDS = (("pcie_speed_gts", "speed_gts", "PCIeType"), ("pcie_width", "width", "LanesInUse"),
          ("pcie_speed_capable_gts", "speed_capable_gts", "MaxPCIeType"),
          ("pcie_width_capable", "width_capable", "MaxLanes"))


@dataclass(frozen=True)
class RedfishEntry:
    """A BMC as a front end gives it: ``url`` (``https://bmc``), ``for_host`` (the audited host it belongs to),
    ``user``, ``thumbprint`` (SHA-256 pin of a self-signed certificate) and ``ca_bundle``."""

    url: str
    for_host: str
    user: str
    thumbprint: str | None = None
    ca_bundle: str | None = None


def parse_pairing(spec: str) -> tuple[str, str]:
    """``"HOST=https://bmc[:port]"`` → ``(HOST, URL)``. Raises ValueError naming what is wrong."""
    host, sep, url = spec.partition("=")
    if not sep or not host.strip() or not url.strip() or "://" in host:
        raise ValueError(f"--redfish expects HOST=https://BMC (the audited host, then its BMC), not {spec!r}")
    return host.strip(), url.strip()


def redfish_target(entry: RedfishEntry, password: str, *, pins: Any = None, timeout_s: float | None = None) -> Any:
    """The collector target (:class:`nicadvisor.collect.redfish.RedfishTarget`) of ``entry``. Raises ValueError
    for a URL that is not https or has no host, or a malformed thumbprint."""
    from nicadvisor.collect.redfish import RedfishTarget
    from nicadvisor.services.targets import host_port, normalize_thumbprint

    host_port(entry.url)  # https only, a host, a numeric port
    thumb = normalize_thumbprint(entry.thumbprint) if entry.thumbprint else None
    return RedfishTarget(url=entry.url, for_host=entry.for_host, user=entry.user, password=password,
                         thumbprint=thumb, ca_bundle=entry.ca_bundle, pins=pins,
                         **({"timeout_s": timeout_s} if timeout_s else {}))


def _identity(pnic: Any) -> PnicIdentity:
    return PnicIdentity(pnic.name, pnic.pci_address, pnic.vid, pnic.did, pnic.svid, pnic.ssid)


def _host_named(hosts: list[Host], name: str) -> Host | None:
    wanted = name.strip().lower()
    exact = [h for h in hosts if h.name.lower() == wanted]
    if exact:
        return exact[0]
    short = [h for h in hosts if h.name.lower().split(".")[0] == wanted.split(".")[0]]
    return short[0] if len(short) == 1 else None


def apply_devices(host: Host, devices: list[RedfishPcieDevice], source: str) -> tuple[list[str], list[str]]:
    """Fill ``host``'s pNIC PCIe facts from the BMC ``devices`` (read from ``source``, ``redfish://bmc``).
    Returns (the pNICs filled, notes). Pure."""
    pnics = [p for p in host.pnics if p.is_physical is not False]
    matches, notes = match_pnics([_identity(p) for p in pnics], devices)
    filled: list[str] = []
    for m in matches:
        pnic = host.pnic(m.pnic)
        if pnic is None:
            continue
        ev = Evidence(f"{BMC_ORIGIN}: GET {m.device.odata_id}", f"{m.device.interface_text} (matched by {m.how})",
                      source)
        changed = False
        for name, attr, prop in FIELDS:
            value = getattr(m.device, attr)
            if value is None:
                continue
            have = getattr(pnic, name)
            if have is not None and have != value:
                notes.append(f"{pnic.name}: the host reads {name.replace('_', ' ')} {have:g}, the BMC's {prop} says "
                             f"{value:g} ({m.device.odata_id}); the host's reading is kept")
            changed |= pnic.set_fact(name, value, ev)
        if changed:
            filled.append(pnic.name)
    return filled, notes


def read_bmcs(targets: tuple, hosts: list[Host], cancel: threading.Event | None = None,
              report: Callable[[str], None] | None = None) -> tuple[list[Host], list[InputProblem]]:
    """Read each BMC of ``targets`` (:class:`~nicadvisor.collect.redfish.RedfishTarget`) and fill the PCIe facts of
    the host it is given for. Returns (the hosts changed, input notes). Never raises for a BMC that cannot be read
    (a note); raises :class:`nicadvisor.cancel.Cancelled` when ``cancel`` is set."""
    from nicadvisor.collect.redfish import RedfishError, read_bmc

    changed: list[Host] = []
    problems: list[InputProblem] = []
    for target in targets:
        host = _host_named(hosts, target.for_host)
        if host is None:
            problems.append(InputProblem(target.source, f"no audited host is called {target.for_host!r}: the BMC "
                                                        "was not read (name the host as the audit shows it)"))
            continue
        if report:
            report(f"Reading the PCIe links of {host.name} from its BMC {target.source}")
        try:
            reading = read_bmc(target, cancel)
        except RedfishError as exc:
            problems.append(InputProblem(target.source, f"{host.name}'s BMC could not be read: {exc}"))
            continue
        filled, notes = apply_devices(host, reading.devices, target.source)
        problems += [InputProblem(target.source, f"{host.name}: {n}") for n in reading.notes + notes]
        if filled:
            changed.append(host)
    return changed, problems
