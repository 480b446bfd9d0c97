"""VLAN sub-interfaces ``<parent>.<vlan-id>`` and bonds are pseudo devices in every Linux reader, not only in
``ip link``.

Real public outputs of ``tests/parsers/captures/`` (:func:`capturetools.read_local_capture`).
"""
from __future__ import annotations

import pytest

from capturetools import CAPTURES, local_capture as cap
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.registry import parse_output

# --- VLAN sub-interfaces <parent>.<vlan-id> and bonds are pseudo devices in every Linux reader ----------------

BOND_ETHTOOL = ("linux_ethtool-i_bond0_bonding_3.5.0_truncated_paste_bold_prompt_ifconfig_master_slave_ubuntuforums_"
                "2011.txt")


def test_a_bond_read_by_plain_ethtool_is_no_pnic():
    """Ubuntu Forums 2011: the tail of `sudo ethtool bond0` ('Link detected: yes') read alone."""
    c = cap(BOND_ETHTOOL)
    (r,) = parse_output("ethtool bond0", c.text.split("driver:")[0])
    assert r.pnics["bond0"]["link_up"].value is True and r.pnics["bond0"]["is_physical"].value is False


#: The real Linux captures of a reader that names its interface and says nothing of what the device is (ethtool -i
#: is left out: a VLAN's answer names its driver '802.1Q VLAN Support', which it already reads as a software device).
NAMED_LINUX_READERS = sorted(p.name for p in CAPTURES.glob("linux_ethtool*.txt") if "ethtool-i_" not in p.name)


@pytest.mark.parametrize("name", NAMED_LINUX_READERS)
def test_every_linux_reader_takes_a_vlan_sub_interface_for_a_pseudo_device(name):
    """Transformation of each real Linux ethtool capture (no public ethtool -k/-l/-g/-c/-x or plain ethtool output of
    a VLAN sub-interface was found): the interface renamed <name>.100, as a VLAN on it is named."""
    c = read_capture(CAPTURES / name)
    (key,) = {k for r in parse_output(c.command, c.text) for k in r.pnics}
    vlan = f"{key}.100"
    renamed = parse_output(c.command.replace(key, vlan), c.text.replace(key, vlan))
    facts = {n: f.value for r in renamed for n, f in r.pnics.get(vlan, {}).items()}
    assert facts["is_physical"] is False and len(facts) > 1
