"""Issue 26 (round 3): every documented spelling of a catalogue command, every lspci form, and the fields admins use,
read from real public outputs of ``tests/parsers/captures/`` (each with its ``# source:``)."""
from __future__ import annotations

from capturetools import read_local_capture as read

from nicadvisor import commands
from nicadvisor.parsers.registry import normalise, parsers_for
from nicadvisor.parsers.base import CommandLine


# --- one mechanism for every command's long and short spellings ------------------------------------------------

def test_esxcfg_nics_long_option_is_read_as_the_short_one():
    pnics, *_ = read("esxi_esxcfg-nics_--list_long_option_ne1000_vusb0_uether_homelab_henvic.txt")
    assert pnics["vmnic0"]["driver"] == "ne1000" and pnics["vmnic0"]["mtu"] == 1500
    assert pnics["vmnic0"]["pci_address"] == "0000:00:1f.6"
    assert pnics["vusb0"]["is_physical"] is False


def test_every_documented_long_spelling_reaches_the_short_spellings_parser():
    for tool, spellings in commands.OPTION_SPELLINGS.items():
        for long_opt, short in spellings.items():
            assert normalise(f"{tool} {long_opt}") == f"{tool} {short}"
    # a command the catalogue reads in its short spelling is read in its long one by the same parser
    for written, short in (("esxcfg-vmknic --list", "esxcfg-vmknic -l"), ("ethtool --show-ring eth0", "ethtool -g eth0"),
                           ("esxcfg-module --get-options ixgben", "esxcfg-module -g ixgben"),
                           ("vmware --version --level", "vmware -vl"), ("vmware -v -l", "vmware -vl"),
                           ("esxcli network nic get --nic-name=vmnic0", "esxcli network nic get -n vmnic0"),
                           ("lspci -v -v -s 00:03.0", "lspci -vv -s 00:03.0"), ("lspci -nnvv", "lspci -vvnn")):
        ours = [f for f, _ in parsers_for(CommandLine.parse(normalise(written)))]
        assert ours and ours == [f for f, _ in parsers_for(CommandLine.parse(short))], written
