"""The capability matrix: one row per pNIC, one column per NSX-readiness capability.

A cell's status is the worst of the findings about that pNIC in that column **and** about its path: the switch
it uplinks and the TEP vmknics on that switch (for the MTU column: categories ``mtu`` and ``tep``; a failed path
test between hosts is a finding on the vmknic at each end, :mod:`nicadvisor.model.path_tests`). A finding belongs to a
pNIC's column when its ``category`` is the column, or when it read one of the column's capability facts as "no" (``no-rx-filter-no-rss`` decides both the RSS and the Rx filter column).

* ``fail`` with an ``error`` finding, ``warn`` with a ``warning`` or with a *conditional* one (an overlay rule
  lowered to ``info`` because the pNIC's role is not known: its title says "if it carries overlay"; other ``info``
  findings never downgrade a cell);
* ``n/a`` ("not judged") when no finding decided the cell and a capability was read as "no" (a "no" never
  passes), when the pNIC is known to carry no overlay (:meth:`Host.overlay_role` ``none``: its switch carries
  no TEP while others do, or it uplinks no switch), or for
  ENS on Linux (an ESXi datapath);
* ``pass`` from the imported compatibility guide when none of the column's facts was read but the guide lists the
  feature for the pNIC's device, the host's release and its driver version (``guide-feature-listed``: Geneve offload,
  Geneve Rx filters, the ENS mode; marked "from the compatibility guide", a lower trust than a reading, which wins);
  a listing that does not name the feature warns (``guide-feature-not-listed``), never a "no";
* ``pass`` when the column's facts were read (for the PCIe column all four: negotiated and capable speed and
  width, or nobody can tell whether the link trained down) and no finding objects (for the Driver column: only when a listing
  confirms the driver — ``vcg-driver-meets-minimum``: the host's release, with its update, and the driver version
  are known and meet a listing of the compatibility database; or ``guide-listed`` from the imported guide. A
  ``vcg-entries`` finding only says the database knows the device and never passes the cell);
* ``unknown`` otherwise, with :attr:`Cell.reason` saying why and how to learn it (for the Driver column: what was
  not read, with its command — ``esxcli network nic get -n vmnic2`` for the driver version, ``vmware -vl`` for the
  release —, as the ``vcg-driver-unconfirmed`` / ``guide-release-*`` findings state it; "not in the compatibility
  database" only when nothing lists the device and the driver version was read).

Pure: used by the GUI, the PDF and the JSON alike.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from nicadvisor.commands import how_to_learn
from nicadvisor.model.entities import OVERLAY_NONE, Evidence, Finding, Host, PhysicalNic, Severity

#: Evidence ``command`` of a fact decided by the driver catalogue (nicadvisor.vcg.driver_catalogue.ORIGIN_LABEL; the
#: model cannot import vcg).
CATALOGUE_ORIGIN = "from the driver catalogue"
#: Evidence ``command`` prefix of a fact read from the server's BMC over Redfish (``"from the server's BMC (Redfish):
#: GET /redfish/v1/Chassis/…/PCIeDevices/…"``, :mod:`nicadvisor.services.redfish`): out of band, not on the host.
BMC_ORIGIN = "from the server's BMC (Redfish)"
#: Evidence ``command`` prefix of a fact a person checked by hand and recorded (``"attested by alice on 2026-11-30"``,
#: :mod:`nicadvisor.model.attestations`): never a reading taken on the host.
ATTESTED_ORIGIN = "attested by"


def origin_of(evidence: Evidence | None) -> str:
    """How a fact was learnt when not read on the host: :data:`CATALOGUE_ORIGIN`, :data:`BMC_ORIGIN`, or the
    attestation's own words (``"attested by alice on 2026-11-30"``); ``""`` for a reading taken on the host."""
    if evidence is None:
        return ""
    cmd = evidence.command
    if cmd == CATALOGUE_ORIGIN:
        return CATALOGUE_ORIGIN
    if cmd.startswith(BMC_ORIGIN):
        return BMC_ORIGIN
    if cmd.startswith(ATTESTED_ORIGIN + " "):
        return cmd
    return ""


@dataclass(frozen=True)
class Capability:
    """A matrix column.

    Attributes:
        key: the column id (= rule ``category``).
        title: the header.
        facts: the pNIC facts it shows.
        confirmed_by: finding ids one of which must be present for the cell to pass (else it is ``unknown``), for
            columns whose facts alone prove nothing (a driver name is no compatibility statement).
        explained_by: finding ids whose message says why such a column is not confirmed (shown as the reason).
        negative: boolean facts whose ``False`` is a "no" (a cell never passes on one).
        path_categories: finding categories on the pNIC's switch, that switch's TEP vmknics and the host that
            also decide this column.
        overlay: True when the column matters only for a pNIC that carries overlay traffic.
        needs_all: facts that must all be known for the cell to pass (one alone proves nothing: a PCIe link's
            negotiated speed and width say whether it trained down only beside what the device is capable of).
        decided_by: finding ids that decide the cell (``pass``) when none of its facts was read: a source of
            knowledge other than the host (the imported compatibility guide's ``guide-feature-listed``).
    """

    key: str
    title: str
    facts: tuple[str, ...]
    confirmed_by: tuple[str, ...] = ()
    explained_by: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    path_categories: tuple[str, ...] = ()
    overlay: bool = True
    needs_all: tuple[str, ...] = ()
    decided_by: tuple[str, ...] = ()

    @property
    def learn_esxi(self) -> str:
        """The read-only ESXi command(s) that report the column's facts (``{nic}`` is the pNIC name), from the
        command catalogue (:func:`nicadvisor.commands.how_to_learn`), shown in an unknown cell's reason; ``""`` when
        no ESXi command does."""
        return how_to_learn(self.facts, "esxi")

    @property
    def learn_linux(self) -> str:
        """Like :attr:`learn_esxi`, on Linux (``""`` for ENS, an ESXi datapath)."""
        return how_to_learn(self.facts, "linux")


#: The finding of the imported compatibility guide that decides a feature cell (nicadvisor.vcg.guide_findings).
GUIDE_LISTED = ("guide-feature-listed",)
#: How a cell decided by the guide is marked (nicadvisor.vcg.guide_findings.GUIDE_ORIGIN).
GUIDE_ORIGIN = "from the compatibility guide"
#: How a capable PCIe fact taken from the card-model table is marked (nicadvisor.vcg.card_models.CARD_ORIGIN): what
#: the card can do, with its source; never the negotiated link.
CARD_ORIGIN = "from the card-model table"

CAPABILITIES: tuple[Capability, ...] = (
    Capability("link", "Link", ("link_up", "link_speed_mbps"), negative=("link_up",), overlay=False,
               needs_all=("link_up", "link_speed_mbps")),
    Capability("mtu", "MTU", ("mtu",), path_categories=("mtu", "tep")),
    Capability("geneve_offload", "Geneve offload", ("geneve_offload",), negative=("geneve_offload",),
               decided_by=GUIDE_LISTED),
    Capability("rx_filter", "Geneve Rx filter", ("geneve_rx_filter",), negative=("geneve_rx_filter",),
               decided_by=GUIDE_LISTED),
    Capability("rss", "RSS / queues", ("rss", "rx_queues"), negative=("rss",)),
    Capability("ens", "ENS / EDP", ("ens_capable", "ens_enabled", "ens_mode"), negative=("ens_capable",),
               decided_by=GUIDE_LISTED),
    Capability("pcie", "PCIe link", ("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable"),
               overlay=False,
               needs_all=("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable")),
    Capability("coalescing", "Coalescing", ("coalesce_adaptive_rx", "coalesce_rx_usecs"), overlay=False),
    Capability("driver", "Driver / VCG", ("driver", "driver_version", "firmware_version"),
               confirmed_by=("vcg-driver-meets-minimum", "guide-listed"),
               explained_by=("vcg-driver-unconfirmed", "guide-release-unknown", "guide-release-not-imported",
                             "guide-release-not-stated", "guide-driver-unchecked", "guide-firmware-unknown",
                             "guide-firmware-unclear"),
               overlay=False),
)

#: Columns whose facts the vSphere API does not report (a vCenter-only audit leaves them unknown).
NOT_IN_VSPHERE_API = ("geneve_offload", "rx_filter", "rss", "ens", "pcie", "coalescing")

PASS, WARN, FAIL, UNKNOWN, NOT_JUDGED = "pass", "warn", "fail", "unknown", "n/a"
#: Statuses from worst to best (sort order of the matrix).
STATUS_ORDER = (FAIL, WARN, UNKNOWN, NOT_JUDGED, PASS)
STATUS_SYMBOL = {PASS: "✔", WARN: "▲", FAIL: "✖", UNKNOWN: "?", NOT_JUDGED: "–"}
STATUS_TEXT = {PASS: "pass", WARN: "warn", FAIL: "fail", UNKNOWN: "unknown", NOT_JUDGED: "n/a"}


@dataclass(frozen=True)
class Cell:
    """One matrix cell: ``status`` (pass/warn/fail/unknown/n/a), a short ``text`` of the values, the
    ``evidence`` of those values, the ``findings`` that decided the status (the pNIC's own first, then those
    of its switch, TEP vmknics and host), and ``reason``: why the status, in one sentence (for ``unknown``
    also how to learn the facts)."""

    status: str
    text: str
    evidence: tuple[Evidence, ...] = ()
    findings: tuple[Finding, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class Row:
    """One pNIC's row: ``cells`` maps a Capability.key to its Cell."""

    host: str
    pnic: str
    cells: dict[str, Cell] = field(default_factory=dict)


def _fmt(name: str, value: object) -> str:
    if isinstance(value, bool):
        return f"{name.replace('_', ' ')} {'yes' if value else 'no'}"
    if name == "link_speed_mbps" and isinstance(value, int):
        return f"{value / 1000:g} Gbit/s" if value >= 1000 else f"{value} Mbit/s"
    if name.endswith("_gts"):
        return f"{value:g} GT/s"
    if "width" in name:
        return f"x{value}"
    return f"{name.replace('_', ' ')} {value}"


def _path_targets(host: Host, pnic: PhysicalNic) -> set[str]:
    """Finding objects (:attr:`Finding.obj`) on the pNIC's path: its switch and the TEP vmknics on that switch. A
    path test that failed is judged on the vmknic or interface at each end (:mod:`nicadvisor.model.path_tests`), so
    it reaches the uplinks of that vmknic's switch only; one whose vmknic is not known (a host-level
    ``mtu-path-test-failed`` from a ``vmkping`` without ``-I``) marks no pNIC: it stays a finding of the host (one
    failed vmkping on the management netstack once marked all six pNICs of a host failed, four at MTU 9000)."""
    targets: set[str] = set()
    sw = host.switch_of(pnic.name)
    if sw is not None:
        targets.add(sw.name)
        targets |= {v.name for v in host.vmknics if v.is_tep and v.switch == sw.name}
    return targets


def _decides(f: Finding, pnic: PhysicalNic, cap: Capability) -> bool:
    return f.category == cap.key or any(n in cap.negative and getattr(pnic, n) is False for n in f.facts)


def _source_kind(host: Host) -> str:
    if host.inputs and all(s.startswith("vcenter://") for s in host.inputs):
        return "vcenter"
    return "other"


def _learn(host: Host, pnic: PhysicalNic, cap: Capability) -> str:
    if host.kind not in ("esxi", "linux"):  # an NSX Edge, or a host whose kind no input told: name both
        both = [f"{c.replace('{nic}', pnic.name)} on {k}" for k, c in (("ESXi", cap.learn_esxi),
                                                                        ("Linux", cap.learn_linux)) if c]
        return ("not in the inputs (the host's kind was not read): run " + " or ".join(both)) if both else \
            "not in the inputs"
    command = (cap.learn_linux if host.kind == "linux" else cap.learn_esxi).replace("{nic}", pnic.name)
    if _source_kind(host) == "vcenter" and cap.key in NOT_IN_VSPHERE_API:
        return ("not readable through the vSphere API: audit this host with --esxcli-over-api or over SSH"
                + (f" ({command})" if command else ""))
    return f"not in the inputs: run {command}" if command else "not in the inputs"


def cell_for(host: Host, pnic: PhysicalNic, cap: Capability, findings: list[Finding],
             path: set[str] | None = None) -> Cell:
    """The cell of ``pnic`` in column ``cap`` given all ``findings`` of the audit (see the module docstring), or
    those on the pNIC and its path, with ``path`` its :func:`_path_targets` (as :func:`capability_matrix` does)."""
    if path is None:
        path = _path_targets(host, pnic) if cap.path_categories else set()
    elif not cap.path_categories:
        path = set()
    own = [f for f in findings if f.host == host.name and f.obj == pnic.name and _decides(f, pnic, cap)]
    around = [f for f in findings if f.host == host.name and f.obj in path and f.category in cap.path_categories]
    mine = tuple(own + [f for f in around if f not in own])
    known = [(n, getattr(pnic, n)) for n in cap.facts if getattr(pnic, n) is not None]
    evidence = tuple(pnic.evidence[n] for n, _ in known if n in pnic.evidence)
    text = ", ".join(_fmt(n, v) for n, v in known) or "not reported"
    # the server's BMC, a person's attestation (not read on the host): said in the cell and its reason
    elsewhere = [o for o in dict.fromkeys(origin_of(pnic.evidence.get(n)) for n, _ in known) if o
                 and o != CATALOGUE_ORIGIN]
    text += "".join(f" · {o}" for o in elsewhere)
    # a value the driver catalogue decided (not read on the host): said in the cell and its reason
    catalogued = [n for n, _ in known if n in pnic.evidence and pnic.evidence[n].command == CATALOGUE_ORIGIN]
    if catalogued:
        text += f" · {CATALOGUE_ORIGIN}"
    carded = [n for n, _ in known if n in pnic.evidence and pnic.evidence[n].command == CARD_ORIGIN]
    if carded:
        text += f" · capability {CARD_ORIGIN} ({pnic.evidence[carded[0]].source})"
    severities = {f.severity for f in mine}
    noes = [n for n in cap.negative if getattr(pnic, n) is False]
    no_overlay = cap.overlay and host.overlay_role(pnic) == OVERLAY_NONE
    sw = host.switch_of(pnic.name)
    none_why = (f"it uplinks {sw.name}, which carries no overlay (the host's TEPs are on other switches)" if sw
                else "it is an uplink of no virtual switch of this host")
    # a rule lowered to info only because the pNIC's overlay role is not known still objects: never a pass
    conditional = [f for f in mine if f.severity is Severity.INFO
                   and getattr(f, "full_severity", None) in (Severity.ERROR, Severity.WARNING)]
    missing = [n for n in cap.needs_all if getattr(pnic, n) is None]
    if Severity.ERROR in severities or Severity.WARNING in severities:
        status = FAIL if Severity.ERROR in severities else WARN
        worst = Severity.ERROR if status == FAIL else Severity.WARNING
        titles = list(dict.fromkeys(f.title for f in mine if f.severity is worst))  # conditional ones say so
        reason = "; ".join(titles)
        if not known:  # decided by the path (switch, TEP) alone: the pNIC's own values are still to be read
            reason += f"; {pnic.name}'s own values were not reported — {_learn(host, pnic, cap)}"
    elif conditional:
        status = WARN
        reason = "; ".join(dict.fromkeys(f.title for f in conditional))
    elif cap.key == "ens" and host.kind == "linux":
        status, reason = NOT_JUDGED, "ENS / Enhanced Data Path is an ESXi datapath: it does not apply to Linux hosts"
    elif noes:
        status = NOT_JUDGED
        infos = [f.title for f in mine if f.severity is Severity.INFO]
        why = ("; ".join(infos) if infos else
               f"it carries no overlay traffic ({none_why})" if no_overlay else
               "no rule judged it on this pNIC")
        reason = f"read as “no” ({', '.join(n.replace('_', ' ') for n in noes)}), not judged: {why}"
    elif no_overlay and known:
        status = NOT_JUDGED
        reason = f"{none_why}: it carries no overlay traffic now"
    elif known and missing:
        status = UNKNOWN
        reason = (f"{', '.join(n.replace('_', ' ') for n in missing)} not reported: the values read alone cannot "
                  f"show whether this column passes — {_learn(host, pnic, cap)}")
    elif known and (not cap.confirmed_by or any(f.rule_id in cap.confirmed_by for f in mine)):
        status, reason = PASS, "the values read pass every rule of this column"
        if elsewhere:
            reason += f" (values {' and '.join(elsewhere)}, not read on the host)"
        if catalogued:
            reason = (f"decided {CATALOGUE_ORIGIN} for {pnic.driver} {pnic.driver_version or ''}".rstrip()
                      + f" (not read on the host: {_learn(host, pnic, cap)}); it passes every rule of this column")
    elif known:  # confirmed_by: the facts alone prove nothing
        status = UNKNOWN
        suffix, reason = _unconfirmed(host, pnic, cap, mine)
        text += f" · {suffix}"
    elif listed := [f for f in mine if f.rule_id in cap.decided_by]:
        status = PASS
        text = f"listed · {GUIDE_ORIGIN}"
        reason = (f"decided {GUIDE_ORIGIN}: {listed[0].message} Not read on the host: {_learn(host, pnic, cap)}")
    else:
        status = UNKNOWN
        reason = f"none of this column's facts was reported — {_learn(host, pnic, cap)}"
        if no_overlay:
            reason += f" ({none_why})"
    return Cell(status=status, text=text, evidence=evidence, findings=mine, reason=reason)


def _unconfirmed(host: Host, pnic: PhysicalNic, cap: Capability, mine: tuple[Finding, ...]) -> tuple[str, str]:
    """(text suffix, reason) of a column whose facts were read but that no ``confirmed_by`` finding confirms: what
    is missing and how to learn it, from the ``explained_by`` findings and the pNIC's own facts. "Not in the
    compatibility database" only when nothing explains it and the driver version was read."""
    why: list[str] = []
    for f in mine:
        if f.rule_id not in cap.explained_by:
            continue
        if f.rule_id == "guide-release-unknown":
            text = (f"the imported compatibility guide lists the device, but the ESXi release of {host.name} (with "
                    f"its update level) is not known, so its listing cannot be checked: run vmware -vl")
        elif f.rule_id == "guide-release-not-imported":
            text = f"{f.message} {f.recommendation}".strip()
        else:
            text = f.message
        if text not in why:
            why.append(text)
    read_version = f"run {_command(host, pnic, cap)}"
    if pnic.driver_version is None and not any("driver version" in w for w in why):
        why.insert(0, f"the driver version of {pnic.name} was not read, so no compatibility listing can be checked: "
                      f"{read_version}")
    if why:
        suffix = "driver version not read" if pnic.driver_version is None else "not confirmed by a listing"
        return suffix, "; ".join(why)
    return "not in the compatibility database", (
        "the device is not in the compatibility database: import the compatibility guide for it "
        "(nic-advisor vcg import) or check it in the VMware (Broadcom) Compatibility Guide")


def _command(host: Host, pnic: PhysicalNic, cap: Capability) -> str:
    return (cap.learn_linux if host.kind == "linux" else cap.learn_esxi).replace("{nic}", pnic.name)


def capability_matrix(host: Host, findings: list[Finding]) -> list[Row]:
    """Rows for the physical pNICs of ``host`` (pseudo devices such as ``vusb0`` are left out). Linear in pNICs and
    findings: the findings are indexed by object once (5,000 pNICs used to cost minutes, each cell scanning every
    finding and every pNIC)."""
    on: dict[str, list[tuple[int, Finding]]] = {}  # object → (position in findings, finding) of this host's
    for i, f in enumerate(findings):
        if f.host == host.name:
            on.setdefault(f.obj, []).append((i, f))
    rows = []
    for pnic in host.pnics:
        if pnic.is_physical is False:
            continue
        path = _path_targets(host, pnic)
        near = sorted({i: f for t in {pnic.name, *path} for i, f in on.get(t, ())}.items())
        mine = [f for _, f in near]  # in the audit's order, as if all findings were scanned
        rows.append(Row(host.name, pnic.name, {c.key: cell_for(host, pnic, c, mine, path) for c in CAPABILITIES}))
    return rows


#: Capability columns / rule categories whose fix also lies on the physical switch port a pNIC is cabled to (its MTU,
#: its link): their findings and tooltips name that port when LLDP/CDP told it (PhysicalNic ``neighbor_*``).
SWITCH_PORT_CATEGORIES = ("mtu", "link")


def switch_port_cell(host: Host, pnic: PhysicalNic) -> str:
    """Where ``pnic`` is cabled, for an inventory cell or a tooltip: ``"switch leaf-01 port swp12 (LLDP)"``, with the
    MTU and VLAN the port advertises when it does (``"; advertises MTU 9216, VLAN 1"``); when no LLDP/CDP neighbour was
    read, ``"not known: run <command>"`` naming the catalogue's read on the host's kind (``vim-cmd
    hostsvc/net/query_networkhint`` on ESXi, ``lldpctl -f json`` on Linux; both for a host of unknown kind)."""
    where = pnic.switch_port_text()
    if where:
        extra = ", ".join(x for x in (f"MTU {pnic.neighbor_mtu}" if pnic.neighbor_mtu else "",
                                      f"VLAN {pnic.neighbor_vlan}" if pnic.neighbor_vlan else "") if x)
        proto = f" ({pnic.neighbor_protocol})" if pnic.neighbor_protocol else ""
        return f"{where}{proto}" + (f"; advertises {extra}" if extra else "")
    kinds = [host.kind] if host.kind in ("esxi", "linux") else ["esxi", "linux"]
    runs = [how_to_learn(("neighbor_port",), k).replace("{nic}", pnic.name) for k in kinds]
    return "not known: run " + " or ".join(r for r in runs if r) + " (the switch must send LLDP or CDP)"
