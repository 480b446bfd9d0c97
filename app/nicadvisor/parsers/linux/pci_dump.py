"""Linux ``lspci -x`` / ``-xxx`` / ``-xxxx`` (pciutils): the hex dump of each function's configuration space, read
into the PCIe link of each network function by :mod:`nicadvisor.parsers.pcie_config` (the decoder shared with
ESXi's ``lspci -d``). With ``-v``/``-vv`` in the same command the decoded text is read first by
:func:`nicadvisor.parsers.linux.pci.parse_lspci_vv`; this reader runs when that one understood nothing.

Facts are keyed ``pci:<address>``; the assembler joins them to the interface with that address. ``-x`` alone shows
64 bytes, which end before the PCI Express capability: a note says to dump the whole standard space (``-xxx``,
root). Pure, never raises.
"""
from __future__ import annotations

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.pcie_config import record_dumps
from nicadvisor.parsers.registration import register


# a lookahead, so that the match is short and a -vv form of the same command is tried first (registry.parsers_for)
@register(r"^lspci\b(?=.*\s-[A-Za-z]*x)", "lspci -xxx")
def parse_lspci_hex(text: str, cmd: CommandLine) -> ParseResult:
    """Linux ``lspci -xxx`` (any ``-x`` form): per network function (class code 0x02) ``pci_address``,
    ``is_physical``, ``vid``/``did``/``svid``/``ssid`` and the four PCIe link facts, each with its dump row."""
    result = ParseResult(family="lspci -xxx")
    record_dumps(text, result)
    return result
