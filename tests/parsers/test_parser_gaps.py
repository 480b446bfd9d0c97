"""Issue 16 §5: parser gaps seen on real outputs the parsers had never been shown, each fixed at its shared mechanism
and tested here on the real public outputs kept under ``tests/parsers/captures/`` (each with its ``# source:`` and
the caveats of the copy in its ``# note:`` lines).

Where a test reads a capture whose ``# command:`` header describes the command in words (a log excerpt, "(not
shown)"), the test names the command the header describes; the output itself is never changed. Gaps without a
public output are said so at their test (a transformation of a real capture stands in, named there).
"""
from __future__ import annotations

from pathlib import Path

from capturetools import merged
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.registry import normalise, parse_output, split_commands

LOCAL = Path(__file__).parent / "captures"


def cap(name: str):
    """A real capture of tests/parsers/captures."""
    return read_capture(LOCAL / name)


def read(name: str, command: str | None = None):
    """The merged facts ``(pnics, vmknics, switches, modules, host)`` of a capture, read as its header's command or
    as ``command`` (for a header that only describes the command)."""
    c = cap(name)
    return merged(parse_output(command or c.command, c.text, c.notes))


# --- 1. a command run through ssh [options] HOST '…' (or ip netns exec NS …) -------------------------------------

SSH_FABRIC = "linux_ssh_root_host_quoted_ip-d_link_fabric0_parentdev_abridged_doks_gpu_fabric_guide.txt"
NETNS_VLAN = "linux_ethtool-T-i_vlan_eno4.4000_and_parent_tg3_ip_netns_exec_prefix_email_quoted_netdev.txt"


def test_ssh_wrapped_commands_are_unwrapped_like_sudo():
    assert normalise('ssh root@134.209.13.101 "ip -d link show fabric0"') == "ip -d link show fabric0"
    assert normalise("ssh -p 2222 -i id_ed25519 -t admin@esx01 'sudo esxcfg-nics -l' | grep vmnic5") \
        == "esxcfg-nics -l | grep vmnic5"
    assert [c.target for c in split_commands("ssh -o BatchMode=yes esx01 'esxcfg-nics -l | grep vmnic5'")] \
        == ["vmnic5"]
    assert normalise("ip netns exec mytest ethtool -i eno4.4000") == "ethtool -i eno4.4000"
    assert normalise("ssh root@vm.yeh.cn") == "ssh root@vm.yeh.cn"  # an interactive login wraps nothing


def test_a_capture_of_ssh_wrapped_commands_is_read():
    """The DOKS guide ran `ip -d link show fabric0` through `ssh root@HOST "…"` (header and echoed prompt)."""
    pnics, *_ = read(SSH_FABRIC)
    assert pnics["fabric0"]["mtu"] == 4200 and pnics["fabric0"]["link_up"] is True


def test_ip_netns_exec_echoes_key_each_ethtool_output_by_its_interface():
    """netdev mail: `ip netns exec mytest ethtool -i eno4` then `… -i eno4.4000`, both echoed after a prompt."""
    pnics, *_ = read(NETNS_VLAN)
    assert pnics["eno4"]["driver"] == "tg3" and pnics["eno4"]["pci_address"] == "0000:01:00.1"
    assert pnics["eno4.4000"]["driver"] == "802.1Q VLAN Support" and pnics["eno4.4000"]["is_physical"] is False
