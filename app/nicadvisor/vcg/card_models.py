"""What a known card can do on PCIe: its own interface (generation and lanes) as a cited fact.

``resources/vcg/card_pcie.csv`` names, per PCI vendor:device ID, the card's PCIe generation and width and, where its
source names one, the throughput its PCIe interface limits it to (Gbit/s); each row quotes its source (the seed
reference ``nsx-t-performance-on-intel.txt``: "Intel® XL710s are PCIe Gen 3 x8 lane NICs. On x8 lane NICs, the max
throughput is limited to 64Gbps", §Single TEP vs Dual TEP; the E810-C 100 Gbit/s "is a PCIe Gen 4 x16 lane NIC",
§NIC Port Speed).

:func:`fill_card_capability` sets a physical pNIC's **capable** PCIe facts (``pcie_speed_capable_gts``,
``pcie_width_capable``: what the slot must give the card) from that table when the host did not report them, with
evidence ``command = "from the card-model table"`` and the row's source. It never sets the negotiated link
(``pcie_speed_gts``, ``pcie_width``): the PCIe decisive check still needs the link read on the host (``lspci -d``,
sysfs, ``lspci -vv``) or out of band. A value read on the host wins (:meth:`PhysicalNic.set_fact` keeps the first).
Generation → GT/s per lane: 1 = 2.5, 2 = 5.0, 3 = 8.0, 4 = 16.0, 5 = 32.0, 6 = 64.0 (PCI Express Base
Specification; the codes of :data:`nicadvisor.parsers.pcie_config.SPEED_GTS`).
"""
from __future__ import annotations

import csv
import functools
from dataclasses import dataclass

from nicadvisor.model import Evidence, Host, PhysicalNic
from nicadvisor.model.capabilities import CARD_ORIGIN
from nicadvisor.parsers.base import hex4
from nicadvisor.parsers.pcie_config import SPEED_GTS
from nicadvisor.paths import vcg_resource



@dataclass(frozen=True)
class CardPcie:
    """One card's PCIe interface: ``vid``/``did`` (4 lower-case hex digits), ``model``, ``gen`` (PCIe generation),
    ``width`` (lanes), ``speed_gts`` (GT/s per lane of that generation), ``budget_gbps`` (the throughput its source
    says the interface limits the card to, Gbit/s; None when the source names none) and ``source`` (the citation)."""

    vid: str
    did: str
    model: str
    gen: int
    width: int
    speed_gts: float
    budget_gbps: float | None
    source: str


@functools.lru_cache(maxsize=1)
def card_table() -> dict[tuple[str, str], CardPcie]:
    """The shipped table, by ``(vid, did)``. Raises FileNotFoundError when it is missing, ValueError on a row whose
    generation is not 1-6 or whose width is not a lane count."""
    out: dict[tuple[str, str], CardPcie] = {}
    path = vcg_resource("card_pcie.csv", "the card-model PCIe table")
    with path.open(encoding="utf-8", newline="") as f:
        for n, row in enumerate(csv.DictReader(f), start=2):
            gen, width = int(row["pcie_gen"]), int(row["pcie_width"])
            if gen not in SPEED_GTS or width not in (1, 2, 4, 8, 12, 16, 32):
                raise ValueError(f"{path.name} line {n}: PCIe Gen{gen} x{width} is not a PCIe interface")
            budget = float(row["budget_gbps"]) if row["budget_gbps"].strip() else None
            card = CardPcie(hex4(row["vid"]) or "", hex4(row["did"]) or "", row["model"], gen, width, SPEED_GTS[gen],
                            budget, row["source"])
            out[(card.vid, card.did)] = card
    return out


def card_of(vid: str | None, did: str | None) -> CardPcie | None:
    """The table's row for these PCI IDs, None when the card is not in it."""
    return card_table().get((hex4(vid) or "", hex4(did) or "")) if vid and did else None


def card_capability(pnic: PhysicalNic, card: CardPcie | None) -> list[str]:
    """Set ``pnic``'s unread capable PCIe facts from ``card`` (its row of the table, :func:`card_of`, as the
    judgement's context looked it up once; None: nothing to set). Returns ``"vmnic5.pcie_width_capable"``-style
    names of what was set."""
    if card is None or pnic.is_physical is False or pnic.is_virtual_uplink:
        return []
    budget = f", about {card.budget_gbps:g} Gbit/s" if card.budget_gbps else ""
    line = f"{card.model} ({card.vid}:{card.did}): PCIe Gen{card.gen} x{card.width}{budget}"
    filled = []
    for field, value in (("pcie_speed_capable_gts", card.speed_gts), ("pcie_width_capable", card.width)):
        if getattr(pnic, field) is None:
            pnic.set_fact(field, value, Evidence(CARD_ORIGIN, line, card.source))
            filled.append(f"{pnic.name}.{field}")
    return filled


def fill_card_capability(host: Host) -> list[str]:
    """Set the unread capable PCIe facts of ``host``'s physical pNICs whose IDs the table names (see the module
    docstring). Returns ``"vmnic5.pcie_width_capable"``-style names of what was set."""
    return [name for p in host.pnics if p.is_physical is not False and not p.is_virtual_uplink
            for name in card_capability(p, card_of(p.vid, p.did))]
