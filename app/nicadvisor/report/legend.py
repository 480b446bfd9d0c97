"""What the report's legend says once, for the PDF and the HTML alike: how READY is decided — the decisive checks of
:data:`nicadvisor.model.readiness.DECISIVE_CHECKS`, each with why it can break Geneve traffic and the document behind
it, cited through the report's reference list (:class:`nicadvisor.report.remediation.ReferenceIndex`: title,
version, address; never the internal file name) — and how to use each host's "Finish this audit" block, so that the
host pages carry only what is their own (issue 16 §1-§2, issue 19 §1: say a thing once and refer to it). Pure.
"""
from __future__ import annotations

from dataclasses import dataclass

from nicadvisor.model.readiness import DECISIVE_CHECKS, ESXI_PCIE_WHERE, DecisiveCheck
from nicadvisor.model.references import Citation
from nicadvisor.report.remediation import ReferenceIndex

#: The rule the verdict follows (:mod:`nicadvisor.model.verdict`), above the table of decisive checks.
READY_RULE = ("A host is READY only when each of these was decided on its overlay pNICs (or, with no known role, its "
              "candidates) and no finding is an error; NOT READY comes from an error finding; otherwise it is NOT "
              "RATED, with the commands that decide what is missing.")

#: How to use a host page's "Finish this audit" block, said once here instead of on every host page.
FINISH_HOWTO = ("Each host page opens with the decisive checks not made on it, then “Finish this audit”: the "
                "read-only commands that decide them, with the host's pNIC names filled in. Run them on the host (ESXi "
                "Shell or SSH; a loop runs the same commands for each pNIC it names), then audit again with their "
                "outputs. A line that starts with # names what no read-only command shows.")

#: How to read a host page's switch ports, said once (:func:`nicadvisor.report.remediation.switch_ports`).
SWITCH_PORTS = ("Switch ports: where each physical pNIC is cabled, as the physical switch announces itself by LLDP or "
                "CDP (read through the vSphere API, vim-cmd hostsvc/net/query_networkhint, lldpctl or networkctl); "
                "a switch that sends neither leaves it unknown. An MTU or link finding names that port, where the "
                "same change is due on the switch.")

#: Where an ESXi pNIC's PCIe link is read (``lspci -d``, else out of band), said once beside the Finish blocks.
PCIE_ON_ESXI = ESXI_PCIE_WHERE


@dataclass(frozen=True)
class LegendRow:
    """One decisive check as the legend shows it: the check and its ``citations`` (number in the report's reference
    list, citation)."""

    check: DecisiveCheck
    citations: tuple[tuple[int, Citation], ...]


def decisive_rows(index: ReferenceIndex) -> list[LegendRow]:
    """The decisive checks in :data:`DECISIVE_CHECKS` order, each reference numbered in ``index`` (cited here first:
    the legend comes before the plan in both the PDF and the HTML). A reference naming several sections of one
    document (``"file §1.4 …; §1.4.4 …"``) is one citation with those sections."""
    return [LegendRow(c, tuple(index.cite([c.reference]))) for c in DECISIVE_CHECKS]
