"""What READY needs: the decisive checks, written down once (issue 16 §1).

A host is READY only when every check that could make it NOT READY was **decided** on the pNICs that carry its
overlay (or, with no known overlay role, on its candidates for it, :meth:`Host.overlay_candidates`, those not
already unfit): :data:`DECISIVE_CHECKS`. Each check says which capability-matrix columns it decides, when it
applies, why it can break Geneve traffic and the reference section behind it; the same table is in
``docs/json-output.md``, the README, the JSON (``readiness.decisive_checks``) and the report legends.

A check is *decided* when the facts that settle it were read (or stated by a source of knowledge NIC Advisor
trusts for it: the driver catalogue, the imported compatibility guide, each marked as such) — whatever the
outcome; an outcome that breaks the overlay is an error finding, and an error finding makes the host NOT READY
(:func:`nicadvisor.model.verdict.host_verdict`). A check that was not decided is a :class:`MissingCheck`, with the
exact read-only commands that decide it (pNIC and vmknic names filled in and quoted): together they are the
host's "Finish this audit" list (:func:`finish_commands`). The command texts come from one function,
:func:`commands_for`, which reads the command catalogue (:mod:`nicadvisor.commands`): every command it names is one
the SSH collector and the collector script run.

Pure: no I/O. Units: link speeds Mbit/s, PCIe budgets Gbit/s, MTUs bytes.
"""
from __future__ import annotations

import functools
import shlex
from dataclasses import dataclass
from typing import Any, Iterable

from nicadvisor.commands import NAME_ERE, advised, inventory, whole
from nicadvisor.model.capabilities import CAPABILITIES, UNKNOWN, Capability, capability_matrix
from nicadvisor.model.entities import OVERLAY_CARRIES, Finding, Host, PhysicalNic, Severity, findings_by_host


@dataclass(frozen=True)
class DecisiveCheck:
    """One decisive check.

    Attributes:
        key: its id (``"link"``, ``"mtu"``, ``"geneve_offload"``, ``"rx_filter_or_rss"``, ``"release"``,
            ``"driver"``, ``"pcie"``, ``"ens"``).
        title: how every view names it.
        columns: the capability-matrix columns (:data:`nicadvisor.model.capabilities.CAPABILITIES` keys) it decides.
        applies: when it applies, in words.
        why: why it can break Geneve overlay traffic.
        reference: the reference document and section behind it (``shared/reference``).
        kinds: the host kinds it applies to (``esxi``, ``linux``).
    """

    key: str
    title: str
    columns: tuple[str, ...]
    applies: str
    why: str
    reference: str
    kinds: tuple[str, ...] = ("esxi", "linux")

    def to_dict(self) -> dict[str, Any]:
        """``{"key", "title", "columns", "applies", "why", "reference", "kinds"}`` as in the JSON report."""
        return {"key": self.key, "title": self.title, "columns": list(self.columns), "applies": self.applies,
                "why": self.why, "reference": self.reference, "kinds": list(self.kinds)}


#: The ports' line rate (Gbit/s) at or below which no PCIe link can be their bottleneck: the usable budget of the
#: narrowest PCIe link, Gen1 x1 (2.5 GT/s with 8b/10b encoding: 2 Gbit/s per direction; PCI Express Base
#: Specification, as :func:`nicadvisor.rules_engine.context.pcie_bandwidth_gbps` computes it).
PCIE_MIN_BUDGET_GBPS = 2.0
#: Host-switch modes in which the switch runs ENS (Enhanced Datapath): ``Switch.ens_mode``.
ENS_MODES = ("ens", "ens_interrupt")

DECISIVE_CHECKS: tuple[DecisiveCheck, ...] = (
    DecisiveCheck(
        "link", "Link and speed", ("link",), "every overlay pNIC (or candidate)",
        "a port without link carries no overlay traffic, and its speed bounds the overlay's throughput",
        "nsx-t-performance-on-intel.txt §NIC Port Speed"),
    DecisiveCheck(
        "mtu", "MTU along the path (pNIC, switch, TEP)", ("mtu",),
        "every overlay pNIC, the switch it uplinks and the TEP vmknics on that switch (a passed vmkping -d path test "
        "decides it too)",
        "Geneve adds its header (and options) to every frame: a hop whose MTU is below 1600 bytes (1700 with room for "
        "Geneve options) drops or fragments overlay traffic",
        "nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput"),
    DecisiveCheck(
        "geneve_offload", "Geneve offload", ("geneve_offload",), "every overlay pNIC",
        "without it the host segments Geneve traffic in software: more CPU per Gbit/s and lower throughput",
        "nsx-t-performance-on-intel.txt §1.3 NIC Card Geneve Offload Capability"),
    DecisiveCheck(
        "rx_filter_or_rss", "Geneve Rx filters or RSS", ("rx_filter", "rss"), "every overlay pNIC",
        "without Geneve Rx filters and without RSS one core receives all overlay traffic of the port (RSS spreads it "
        "over several: about four times the throughput)",
        "nsx-t-performance-on-intel.txt §1.4 Benefits with RSS; §1.4.4 RSS and Rx Filters - Comparison"),
    DecisiveCheck(
        "release", "ESXi release (with its update)", ("driver",), "every ESXi host",
        "the compatibility guide lists drivers per ESXi release and update: without the release no driver listing "
        "can be checked",
        "nsx-t-performance-on-intel.txt §1.3.1 VMware's IO Compatibility Guide", kinds=("esxi",)),
    DecisiveCheck(
        "driver", "Driver (and firmware) listed for the release", ("driver",),
        "every overlay pNIC of an ESXi host (not a nested host's virtual uplink)",
        "a driver, or driver/firmware pair, the compatibility guide does not list for the host's release is not "
        "supported there and may lack the Geneve offload or Rx filters the guide lists for other versions",
        "nsx-t-performance-on-intel.txt §1.3.1 VMware's IO Compatibility Guide", kinds=("esxi",)),
    DecisiveCheck(
        "pcie", "PCIe link", ("pcie",),
        f"every overlay pNIC whose ports' line rate can exceed the slot's PCIe budget (above "
        f"{PCIE_MIN_BUDGET_GBPS:g} Gbit/s, the budget of the narrowest link, Gen1 x1, or not known; not a nested "
        "host's virtual uplink)",
        "a PCIe link slower or narrower than the ports caps the overlay below line rate (a PCIe Gen3 x8 NIC tops out "
        "near 64 Gbit/s)",
        "nsx-t-performance-on-intel.txt §Single TEP vs Dual TEP"),
    DecisiveCheck(
        "ens", "ENS (Enhanced Datapath) mode", ("ens",), "every overlay pNIC whose host switch runs ENS",
        "a host switch in Enhanced Datapath mode needs a pNIC driver that supports that mode",
        "nsx-t-performance-on-intel.txt §1.12.5 Checking whether a NIC is N-VDS Enhanced Data Path Capable",
        kinds=("esxi",)),
)
CHECKS_BY_KEY = {c.key: c for c in DECISIVE_CHECKS}


@dataclass(frozen=True)
class MissingCheck:
    """A decisive check not made on a host: ``check`` (a :data:`DECISIVE_CHECKS` key), ``title``, ``pnic`` (``""``
    for a host-level check), ``missing`` what was not read (one phrase: ``"the link speed of vmnic2"``) and
    ``commands`` the read-only commands that decide it (names filled in; a line starting with ``#`` says what no
    read-only command can read)."""

    check: str
    title: str
    pnic: str
    missing: str
    commands: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"check", "title", "pnic", "missing", "commands"}`` as in the JSON report."""
        return {"check": self.check, "title": self.title, "pnic": self.pnic, "missing": self.missing,
                "commands": list(self.commands)}


# ------------------------------------------------------------------------------------------- commands

_CAPS: dict[str, Capability] = {c.key: c for c in CAPABILITIES}
#: Host-level needs → (model object, facts): the command catalogue's advised reads of those facts decide them
#: (:func:`nicadvisor.commands.advised`: ``esxcfg-vswitch -l``, ``esxcfg-vmknic -l``, ``vmware -vl``, ``esxcli hardware
#: pci list`` on ESXi).
_HOST_NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "switch": ("switch", ("mtu",)), "tep": ("vmknic", ("mtu",)), "release": ("host", ("product_version",)),
    "pci_ids": ("pnic", ("vid", "did")),
}
#: Where an ESXi pNIC's PCIe link is read: not in ``lspci -v``, ``esxcli hardware pci list`` nor the vSphere API
#: (shared/design/research/nic-data-sources.md §10), but in the configuration-space dump of ``lspci -d`` (the advised
#: read of the four link facts in the command catalogue; esxi-public/8_pcie_link_on_esxi.md), and out of band.
ESXI_PCIE_WHERE = ("On ESXi the PCIe link (speed and width) is read from lspci -d, the dump of each function's "
                   "configuration space (its PCI Express capability's Link Capabilities and Link Status registers); "
                   "where no command can run on the host, read it out of band (the server's BMC: Redfish PCIeDevice "
                   "PCIeInterface LanesInUse and PCIeType)")


def _filled(text: str, pnic: PhysicalNic | None) -> str | None:
    """A catalogue command text with ``{nic}`` filled with ``pnic``'s name, every word shell-quoted (``shlex.join``),
    as the collectors send it; None when it needs a pNIC and none is given."""
    if "{nic}" in text and pnic is None:
        return None
    return shlex.join(w.replace("{nic}", pnic.name if pnic is not None else "") for w in _words(text))


@functools.lru_cache(maxsize=512)
def _words(text: str) -> tuple[str, ...]:
    """The shell words of a catalogue command text (a constant: split once)."""
    return tuple(shlex.split(text))


def commands_for(need: str, host: Host, pnic: PhysicalNic | None = None) -> tuple[str, ...]:
    """The read-only commands that read ``need`` on ``host`` (about ``pnic``): the one lookup of "Finish this audit",
    read from the command catalogue (:func:`nicadvisor.commands.advised`: the advised read of each fact, only
    commands the SSH collector and the collector script run), names filled in and every word shell-quoted.

    ``need`` is a matrix column key (``link``, ``mtu``, ``geneve_offload``, ``rx_filter``, ``rss``, ``ens``,
    ``pcie``, ``coalescing``, ``driver``: the column's facts), a host-level item (``switch``, ``tep``, ``release``,
    ``pci_ids``) or ``listing`` (the pNIC inventory, :func:`nicadvisor.commands.inventory`). A host of unknown kind
    gets the ESXi commands for a pNIC with an ESXi uplink name (:data:`nicadvisor.commands.NAME_ERE`), else the
    Linux ones. For a pNIC whose name the platform's pattern refuses (``pci:<address>``: known only by its PCI
    address) it is the listing that names the pNICs. Returns ``()`` when nothing applies to the host's kind (ENS on
    Linux). An ESXi pNIC's PCIe link is ``lspci -d`` (:data:`ESXI_PCIE_WHERE`)."""
    kind = host.kind if host.kind in ("esxi", "linux") else None
    if kind is None:  # not told by its inputs: the pNIC's name says which platform's command can read it
        esxi_name = pnic is None or whole(NAME_ERE["esxi"]["nic"]).match(pnic.name) is not None
        kind = "esxi" if esxi_name else "linux"
    if need == "listing" or (pnic is not None and not whole(NAME_ERE[kind]["nic"]).match(pnic.name)):
        # a pNIC known only by its PCI address (pci:0000:18:00.0), or by a name no collector would pass on: the
        # listing names it (never a command built from such a name)
        return (inventory(kind).text,)
    if need in _CAPS:
        obj, facts = "pnic", _CAPS[need].facts
    elif need in _HOST_NEEDS:
        obj, facts = _HOST_NEEDS[need]
    else:
        return ()
    return tuple(c for c in (_filled(t, pnic) for t in advised(facts, kind, obj)) if c is not None)


# ------------------------------------------------------------------------------------------- the overlay's pNICs

def overlay_fitness(host: Host, findings: list[Any], *, link: bool = True) -> tuple[dict[str, list[str]], list[str]]:
    """Before the overlay has a known place on ``host`` (no pNIC whose :meth:`Host.overlay_role` is ``carries``),
    which candidate pNICs a conditional error (a rule lowered from ``error`` because the role is only possible)
    makes unfit — ``{pNIC: [finding titles]}`` — and which candidates are fit (with ``link``: a candidate without
    link is unfit too). Both empty once the overlay's pNICs are known (their errors are then full errors)."""
    candidates = host.overlay_candidates()
    if not candidates or any(host.overlay_role(p) == OVERLAY_CARRIES for p in candidates):
        return {}, []
    unfit: dict[str, list[str]] = {}
    for f in findings:
        if f.host != host.name or getattr(f, "full_severity", None) is not Severity.ERROR:
            continue
        sw = next((s for s in host.switches if s.name == f.obj), None)
        for name in (sw.uplinks or []) if sw is not None else [f.obj]:
            unfit.setdefault(name, []).append(f.title)
    for p in candidates if link else ():  # a port without link carries nothing (pnic-link-down is only a warning)
        if p.link_up is False:
            unfit.setdefault(p.name, []).append("link down")
    fit = [p.name for p in candidates if p.name not in unfit]
    return {p.name: unfit[p.name] for p in candidates if p.name in unfit}, fit


def judged_pnics(host: Host, findings: list[Any]) -> list[PhysicalNic]:
    """The pNICs the decisive checks are made on: those that carry the overlay, or else the candidates for it that
    no conditional error or missing link makes unfit; every candidate when all are unfit (that host is NOT READY by
    its ``overlay-no-fit-pnic`` error, and what it still lacks is listed for each)."""
    _unfit, fit = overlay_fitness(host, findings)
    candidates = host.overlay_candidates()
    if not fit:
        return candidates
    return [p for p in candidates if p.name in fit]


OVERLAY_NO_FIT = "overlay-no-fit-pnic"


def _short(title: str) -> str:
    """A finding title without its explanation and its conditional mark: ``"pNIC MTU below 1600"``."""
    return title.split(" — ")[0].removesuffix(" (if it carries overlay)")


def unfit_overlay(host: Host, findings: list[Any]) -> dict[str, list[str]] | None:
    """``{pNIC: [why]}`` when the overlay has no known place on ``host`` yet and every candidate pNIC is unfit for it
    (each would fail a rule if it carried the overlay, or has no link), else None. A missing link counts only once
    the MTU of every candidate is known (or a ``vmkping -d`` path test passed): a port read alone (``esxcli network
    nic get`` of one down port) says nothing of the host's other ports, which a listing would show."""
    unfit, fit = overlay_fitness(host, findings, link=False)
    if unfit and not fit:
        return unfit
    if host.mtu_path_ok is not True and any(p.mtu is None and getattr(host.switch_of(p.name), "mtu", None) is None
                                            for p in host.overlay_candidates()):
        return None
    unfit, fit = overlay_fitness(host, findings)
    return unfit if unfit and not fit else None


def overlay_fit_findings(hosts: list[Host], findings: list[Any]) -> list[Finding]:
    """One ``overlay-no-fit-pnic`` **error** finding per host whose every overlay candidate is unfit
    (:func:`unfit_overlay`): the error that makes such a host NOT READY, as every error does. The message names each
    candidate and why. Linear in hosts and findings (each host's are read, grouped once)."""
    out = []
    of_host = findings_by_host(findings)
    for host in hosts:
        unfit = unfit_overlay(host, of_host.get(host.name, []))
        if not unfit:
            continue
        why = "; ".join(f"{name}: {', '.join(dict.fromkeys(_short(t) for t in titles))}" for name, titles in unfit.items())
        out.append(Finding(
            rule_id=OVERLAY_NO_FIT, title="No pNIC fit for the overlay", severity=Severity.ERROR, host=host.name,
            message=f"No TEP is known on {host.name} yet, and every pNIC that could carry the Geneve overlay would fail "
                    f"a rule if it did: {why}.",
            recommendation="Fix what the conditional findings name on the pNICs meant to carry the overlay (MTU at "
                           "least 1600 bytes, 1700 with Geneve options; link up), then audit again.",
            references=("nsx-t-performance-on-intel.txt §Jumbo MTU for Higher Throughput",)))
    return out


# ------------------------------------------------------------------------------------------- decided or missing

class _HostIndex:
    """One host's facts the decisive checks look up for every pNIC, gathered once (an ``esxcfg-nics -l`` of 5,000
    rows scanned every pNIC and every finding for each pNIC): ``ports`` PCIe device (``0000:5e:00``) → its pNICs;
    from ``findings`` (the host's): ``seen`` the ``(obj, rule_id, category)`` triples, ``on`` the ``(obj, rule_id)``
    pairs, ``rules`` the rule ids and ``message`` the first message of each rule id."""

    def __init__(self, host: Host, findings: list[Finding]) -> None:
        self.ports: dict[str, list[PhysicalNic]] = {}
        for p in host.pnics:
            if p.pci_address:
                self.ports.setdefault(p.pci_address.rsplit(".", 1)[0], []).append(p)
        self.seen = {(f.obj, f.rule_id, f.category) for f in findings if f.host == host.name}
        self.on = {(obj, rule) for obj, rule, _cat in self.seen}
        self.rules = {rule for _obj, rule in self.on}
        self.message: dict[str, str] = {}
        for f in findings:
            if f.host == host.name:
                self.message.setdefault(f.rule_id, f.message)

    def has(self, obj: str, rule_id: str, category: str | None = None) -> bool:
        """Whether a finding of ``rule_id`` (and ``category`` when given) is about ``obj``."""
        return (obj, rule_id, category) in self.seen if category is not None else (obj, rule_id) in self.on


def _applies(check: DecisiveCheck, host: Host, pnic: PhysicalNic | None, index: _HostIndex | None = None) -> bool:
    if host.kind is not None and host.kind not in check.kinds:
        return False
    if check.key == "release":
        return host.kind == "esxi"
    if check.key in ("driver", "pcie") and pnic is not None and pnic.is_virtual_uplink:
        return False  # a nested host's virtual uplink: no slot, no listing of its own
    if check.key == "driver":
        return host.kind == "esxi"
    if check.key == "ens":
        sw = host.switch_of(pnic.name) if pnic is not None else None
        return sw is not None and (sw.ens_mode or "").lower() in ENS_MODES
    if check.key == "pcie" and pnic is not None:
        rate = _ports_line_rate_gbps(host, pnic, index)
        return rate is None or rate > PCIE_MIN_BUDGET_GBPS
    return True


def _ports_line_rate_gbps(host: Host, pnic: PhysicalNic, index: _HostIndex | None = None) -> float | None:
    """Sum of the link speeds of the ports of ``pnic``'s PCIe device (Gbit/s; a port without link adds nothing);
    None when the speed of a port with link (or of unknown link) is not known. ``index``: the host's
    :class:`_HostIndex` (its ports by device), built here when not given."""
    device = pnic.pci_address.rsplit(".", 1)[0] if pnic.pci_address else None
    ports = ((index or _HostIndex(host, [])).ports.get(device) if device else None) or [pnic]
    if any(p.link_speed_mbps is None and p.link_up is not False for p in ports):
        return None
    return sum(p.link_speed_mbps or 0 for p in ports if p.link_up is not False) / 1000


def _missing(check: DecisiveCheck, host: Host, pnic: PhysicalNic | None, found: _HostIndex,
             cells: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """(what was not read, commands) for ``check`` on ``pnic`` (or the host); [] when decided. ``found``: the
    host's findings, indexed (:class:`_HostIndex`)."""
    if check.key == "release":
        if "esxi-release" in found.rules:
            return []
        why = found.message.get("esxi-release-unknown", f"the ESXi release of {host.name} was not judged")
        return [(why, commands_for("release", host))]
    assert pnic is not None
    n = pnic.name
    if check.key == "link":
        if pnic.link_up is False or (pnic.link_up is True and pnic.link_speed_mbps is not None):
            return []
        what = f"the link state of {n}" if pnic.link_up is None else f"the link speed of {n}"
        return [(what, commands_for("link", host, pnic))]
    if check.key == "mtu":
        if host.mtu_path_ok is True:
            return []
        out = []
        sw = host.switch_of(n)
        if pnic.mtu is None and (sw is None or sw.mtu is None):
            out.append((f"the MTU of {n}", commands_for("mtu", host, pnic)))
        if sw is not None and sw.mtu is None and pnic.mtu is None:
            out.append((f"the MTU of {sw.name}", commands_for("switch", host)))
        teps = [v for v in host.vmknics if v.is_tep and v.switch == (sw.name if sw else None) and v.mtu is None]
        if teps:
            out.append((f"the MTU of the TEP {', '.join(v.name for v in teps)}", commands_for("tep", host)))
        return out
    if check.key == "geneve_offload":
        if cells["geneve_offload"].status != UNKNOWN:
            return []
        return [(f"Geneve offload of {n}", commands_for("geneve_offload", host, pnic))]
    if check.key == "rx_filter_or_rss":
        rx, rss = pnic.geneve_rx_filter, pnic.rss
        if rx is None and found.has(n, "guide-feature-listed", "rx_filter"):
            rx = True  # the imported guide lists Geneve Rx filters for this device, release and driver
        if rx is True or rss is True or (rx is False and rss is False):
            return []
        out = []
        if rx is None:
            out.append((f"Geneve Rx filters of {n}", commands_for("rx_filter", host, pnic)))
        if rss is None:
            out.append((f"RSS of {n}", commands_for("rss", host, pnic)))
        return out
    if check.key == "driver":
        if cells["driver"].status != UNKNOWN:
            return []
        out = []
        if not (pnic.vid and pnic.did):
            out.append((f"the PCI IDs of {n}", commands_for("pci_ids", host)))
        if not (pnic.driver and pnic.driver_version) or (pnic.firmware_version is None and found.has(
                n, "guide-firmware-unknown")):
            out.append((f"the driver, its version and the firmware of {n}", commands_for("driver", host, pnic)))
        if "esxi-release-unknown" in found.rules:
            out.append((f"the ESXi release of {host.name}, which the driver listings of {n} are checked against",
                        commands_for("release", host)))
        if not out:
            out.append((f"a compatibility listing that confirms the {pnic.driver} {pnic.driver_version} driver of {n}",
                        (f"# {n}: {cells['driver'].reason}",)))
        return out
    if check.key == "pcie":
        if pnic.pcie_speed_gts is not None and pnic.pcie_width is not None:
            return []
        return [(f"the PCIe link of {n}", commands_for("pcie", host, pnic))]
    if check.key == "ens":
        sw = host.switch_of(n)
        fact = "ens_interrupt_capable" if sw is not None and sw.ens_mode == "ens_interrupt" else "ens_capable"
        if getattr(pnic, fact) is not None or cells["ens"].status != UNKNOWN:
            return []
        return [(f"the ENS capability of {n}", commands_for("ens", host, pnic))]
    return []


@dataclass(frozen=True)
class Readiness:
    """A host's decisive checks: ``pnics`` the pNICs they were made on, ``made`` how many applicable (check, pNIC)
    pairs were decided, ``applicable`` how many there are, ``missing`` the :class:`MissingCheck` list (in
    :data:`DECISIVE_CHECKS` order, pNIC by pNIC)."""

    pnics: tuple[str, ...]
    made: int
    applicable: int
    missing: tuple[MissingCheck, ...]


def readiness(host: Host, findings: list[Finding]) -> Readiness:
    """The decisive checks of ``host`` given the audit's ``findings`` (see the module docstring). Pure."""
    mine = [f for f in findings if f.host == host.name]
    pnics = judged_pnics(host, mine)
    rows = {r.pnic: r.cells for r in capability_matrix(host, mine)}
    found = _HostIndex(host, mine)
    missing: list[MissingCheck] = []
    made = applicable = 0
    for check in DECISIVE_CHECKS:
        targets: list[PhysicalNic | None] = [None] if check.key == "release" else list(pnics)
        for p in targets:
            if not _applies(check, host, p, found):
                continue
            applicable += 1
            gaps = _missing(check, host, p, found, rows.get(p.name, {}) if p is not None else {})
            if not gaps:
                made += 1
            for what, commands in gaps:
                missing.append(MissingCheck(check.key, check.title, p.name if p is not None else "", what, commands))
    return Readiness(tuple(p.name for p in pnics), made, applicable, tuple(missing))


def finish_commands(items: Iterable[MissingCheck], first: Iterable[str] = ()) -> tuple[str, ...]:
    """The "Finish this audit" block: ``first`` (a pNIC listing when the inventory is not whole), then every command
    of ``items``, each once, in order."""
    return tuple(dict.fromkeys([*first, *(c for m in items for c in m.commands)]))


@dataclass(frozen=True)
class ColumnShare:
    """How many capability cells of one matrix column were decided (status other than unknown) over all physical
    pNICs of an audit: ``column`` key, its ``title``, ``decided`` and ``cells``."""

    column: str
    title: str
    decided: int
    cells: int

    def to_dict(self) -> dict[str, Any]:
        """``{"column", "title", "decided", "cells"}`` as in the JSON report."""
        return {"column": self.column, "title": self.title, "decided": self.decided, "cells": self.cells}


def decided_shares(hosts: list[Host], findings: list[Finding]) -> list[ColumnShare]:
    """The share of decided cells per capability-matrix column over ``hosts`` (the audit summary's line). Linear in
    hosts and findings: each host's matrix reads its own findings."""
    counts = {c.key: [0, 0] for c in CAPABILITIES}
    of_host = findings_by_host(findings)
    for host in hosts:
        for row in capability_matrix(host, of_host.get(host.name, [])):
            for key, cell in row.cells.items():
                counts[key][1] += 1
                counts[key][0] += cell.status != UNKNOWN
    return [ColumnShare(c.key, c.title, *counts[c.key]) for c in CAPABILITIES]
