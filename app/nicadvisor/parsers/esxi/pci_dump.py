"""ESXi ``lspci -d`` (``--dump``, also ``vmkvsitools lspci -d``): the hex dump of every function's standard
configuration space, read into the PCIe link of each pNIC by :mod:`nicadvisor.parsers.pcie_config` (the decoder
shared with Linux ``lspci -x``; what was and was not verified is said there: no public ESXi output of this command
was found, so the reader takes the pciutils dump layout).

A function whose header line names its uplink (``[vmnic0]``, as ESXi's ``lspci`` and ``lspci -v`` end their lines)
is keyed by that name, else by ``pci:<address>``, which the assembler joins to the vmnic of that PCI address (read
from ``esxcli network nic list`` / ``esxcfg-nics -l``). Pure, never raises.
"""
from __future__ import annotations

from nicadvisor.parsers.base import CommandLine, ParseResult
from nicadvisor.parsers.pcie_config import record_dumps
from nicadvisor.parsers.registration import register


@register(r"^lspci\s+(?:-d|--dump)(?:\s+(?:-e|--extdump))?\s*$", "lspci -d")
def parse_lspci_dump(text: str, cmd: CommandLine) -> ParseResult:
    """ESXi ``lspci -d``: per network function ``pci_address``, ``is_physical``, ``vid``/``did``/``svid``/``ssid``
    and the PCIe link (``pcie_speed_gts``/``pcie_width`` from Link Status, ``pcie_speed_capable_gts``/
    ``pcie_width_capable`` from Link Capabilities), each with the dump row it was decoded from. (Linux's
    ``lspci -d VID:DID`` is a device filter with an argument: not this command.)"""
    result = ParseResult(family="lspci -d")
    record_dumps(text, result)
    return result
