"""Issue 24 §1 "What the card can do": where the PCI IDs name a known card (the seed reference's XL710: PCIe Gen 3 x8,
about 64 Gbit/s), its capability is a cited fact. It says what the slot must give; it never replaces the negotiated
link. Host facts are model values (test values)."""
from __future__ import annotations

from nicadvisor.model import Evidence, Host, PhysicalNic
from nicadvisor.model.capabilities import capability_matrix
from nicadvisor.model.readiness import readiness
from nicadvisor.vcg.card_models import CARD_ORIGIN, card_of, fill_card_capability
from nicadvisor.judgement import judge


def _xl710(**read) -> Host:
    p = PhysicalNic("vmnic5")
    for k, v in dict(vid="8086", did="1583", driver="i40en", link_up=True, link_speed_mbps=40000, mtu=9000,
                     is_physical=True, **read).items():
        p.set_fact(k, v, Evidence("test value", f"{k} = {v}", "tests/vcg/test_card_models.py"))
    return Host("esx-xl710", kind="esxi", pnics=[p])


def test_the_xl710_is_gen3_x8_as_the_seed_reference_says():
    card = card_of("8086", "1583")
    assert (card.gen, card.width, card.speed_gts, card.budget_gbps) == (3, 8, 8.0, 64.0)
    assert "nsx-t-performance-on-intel.txt §Single TEP vs Dual TEP" in card.source and "64Gbps" in card.source
    assert card_of("8086", "1572") is None  # the X710: its source states no PCIe interface


def test_the_card_capability_is_a_cited_fact_and_never_the_negotiated_link():
    h = _xl710()
    assert sorted(fill_card_capability(h)) == ["vmnic5.pcie_speed_capable_gts", "vmnic5.pcie_width_capable"]
    p = h.pnic("vmnic5")
    assert (p.pcie_speed_capable_gts, p.pcie_width_capable) == (8.0, 8)
    ev = p.evidence["pcie_width_capable"]
    assert ev.command == CARD_ORIGIN and "PCIe Gen3 x8, about 64 Gbit/s" in ev.line
    assert ev.source.startswith("nsx-t-performance-on-intel.txt")
    assert p.pcie_speed_gts is None and p.pcie_width is None  # the negotiated link is still to be read
    assert "pcie" in {m.check for m in readiness(h, judge([h], guide=None)).missing}


def test_a_negotiated_link_below_what_the_card_can_do_is_named_with_the_cards_source():
    h = _xl710(pcie_speed_gts=8.0, pcie_width=4)  # read on the host: Gen3 x4
    fill_card_capability(h)
    findings = judge([h], guide=None)
    assert "pcie-link-downgraded" in {f.rule_id for f in findings if f.obj == "vmnic5"}
    (row,) = capability_matrix(h, findings)
    assert CARD_ORIGIN in row.cells["pcie"].text and "nsx-t-performance-on-intel.txt" in row.cells["pcie"].text


def test_a_capability_read_on_the_host_wins_over_the_table():
    h = _xl710(pcie_speed_capable_gts=8.0, pcie_width_capable=16)
    assert fill_card_capability(h) == []
    assert h.pnic("vmnic5").pcie_width_capable == 16
