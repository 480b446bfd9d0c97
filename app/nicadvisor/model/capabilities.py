"""The capability matrix: one row per pNIC, one column per NSX-readiness capability.

A cell's status comes from the findings of the rules in that column (``category`` of the rule):
an ``error`` finding makes it ``fail``, a ``warning`` makes it ``warn``, no finding with the
column's facts known makes it ``pass``, and no finding with the facts unknown makes it ``unknown``
(``info`` findings do not downgrade a cell). Pure: used by the GUI, the PDF and the JSON alike.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from nicadvisor.model.entities import Evidence, Finding, Host, PhysicalNic, Severity


@dataclass(frozen=True)
class Capability:
    """A matrix column: ``key`` (= rule ``category``), header ``title``, pNIC ``facts`` it shows.
    ``confirmed_by``: a finding id that must be present for the cell to pass (else it is ``unknown``),
    for columns whose facts alone prove nothing (a driver name is no compatibility statement)."""

    key: str
    title: str
    facts: tuple[str, ...]
    confirmed_by: str | None = None


CAPABILITIES: tuple[Capability, ...] = (
    Capability("link", "Link", ("link_up", "link_speed_mbps")),
    Capability("mtu", "MTU", ("mtu",)),
    Capability("geneve_offload", "Geneve offload", ("geneve_offload",)),
    Capability("rx_filter", "Geneve Rx filter", ("geneve_rx_filter",)),
    Capability("rss", "RSS / queues", ("rss", "rx_queues")),
    Capability("ens", "ENS / EDP", ("ens_capable", "ens_enabled", "ens_mode")),
    Capability("pcie", "PCIe link", ("pcie_speed_gts", "pcie_width", "pcie_speed_capable_gts", "pcie_width_capable")),
    Capability("coalescing", "Coalescing", ("coalesce_adaptive_rx", "coalesce_rx_usecs")),
    Capability("driver", "Driver / VCG", ("driver", "driver_version", "firmware_version"), confirmed_by="vcg-entries"),
)

PASS, WARN, FAIL, UNKNOWN = "pass", "warn", "fail", "unknown"
STATUS_SYMBOL = {PASS: "✔", WARN: "▲", FAIL: "✖", UNKNOWN: "?"}
STATUS_TEXT = {PASS: "pass", WARN: "warn", FAIL: "fail", UNKNOWN: "unknown"}


@dataclass(frozen=True)
class Cell:
    """One matrix cell: ``status`` (pass/warn/fail/unknown), a short ``text`` of the values,
    the ``evidence`` of those values and the ``findings`` that decided the status."""

    status: str
    text: str
    evidence: tuple[Evidence, ...] = ()
    findings: tuple[Finding, ...] = ()


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


def cell_for(host: Host, pnic: PhysicalNic, cap: Capability, findings: list[Finding]) -> Cell:
    """The cell of ``pnic`` in column ``cap`` given all ``findings`` of the audit."""
    target = f"{host.name}/{pnic.name}"
    mine = tuple(f for f in findings if f.target == target and f.category == cap.key)
    known = [(n, getattr(pnic, n)) for n in cap.facts if getattr(pnic, n) is not None]
    evidence = tuple(pnic.evidence[n] for n, _ in known if n in pnic.evidence)
    text = ", ".join(_fmt(n, v) for n, v in known) or "not reported"
    severities = {f.severity for f in mine}
    if Severity.ERROR in severities:
        status = FAIL
    elif Severity.WARNING in severities:
        status = WARN
    elif known and (cap.confirmed_by is None or any(f.rule_id == cap.confirmed_by for f in mine)):
        status = PASS
    else:
        status = UNKNOWN
        if known and cap.confirmed_by:
            text += " · not in the compatibility database"
    return Cell(status=status, text=text, evidence=evidence, findings=mine)


def capability_matrix(host: Host, findings: list[Finding]) -> list[Row]:
    """Rows for the physical pNICs of ``host`` (pseudo devices such as ``vusb0`` are left out)."""
    rows = []
    for pnic in host.pnics:
        if pnic.is_physical is False:
            continue
        rows.append(Row(host.name, pnic.name, {c.key: cell_for(host, pnic, c, findings) for c in CAPABILITIES}))
    return rows
