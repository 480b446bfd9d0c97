"""Issue 26 (round 4), the families that had readers but no real output: an N-VDS's ``net-dvs -l`` (its MTU only
shows there), author-note arrows after values in blog pastes, and ethtool's long option spellings. Every input is a real public output stored verbatim under
``tests/parsers/captures/`` with its source in its header:

* ``esxi_net-dvs-l_nvds_overlay_opaquedvs_portset_mtu1600_nsxt251_author_arrow_blog.txt`` — an NSX-T 2.5.1 N-VDS
  (``com.vmware.common.opaqueDvs = true``, ``com.vmware.common.portset.mtu = 1600``, a ``(vswitch)`` block) with the
  author's ``<< -- This is where it is set`` after a line; its ``esxcfg-vswitch -l`` (the N-VDS without an MTU
  column) is ``esxi_esxcfg-vswitch-l_vss_and_nvds_overlay_no_mtu_column_nsxt251_blog.txt``;
* ``esxi_net-dvs-l_opaquedvs_true_no_mtu_nsx_qe_parser_doctest.txt`` — an opaque switch of an NSX test-automation
  parser's doctest (no MTU in its global properties);
* ``linux_ethtool_ifconfig_enp0s3_author_arrows_after_speed_duplex_pgyogesh_blog.txt`` — ``Speed: 10000Mb/s <===``,
  ``Duplex: Full <===`` and ``ifconfig eth0`` counters with ``<===``, under ``# command: ethtool eth0``;
* ``linux_ethtool_--show-ring_…``, ``linux_ethtool_--show-features_…``, ``linux_ethtool_--driver_…``: ethtool's long
  spellings of ``-g``, ``-k`` and ``-i`` as admins typed them.

Not found in any public source (searched: code, pages and issues corpora, exact strings): a Linux kernel log with a
``<N>`` log-level prefix after a date-time timestamp, and an ``<---``/``==>``/``‹--`` arrow after a NIC value.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from capturetools import merged
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.framing import unframe
from nicadvisor.parsers.registry import parse_output
from nicadvisor.services.audit import AuditRequest, run_audit

LOCAL = Path(__file__).parent / "captures"
NVDS = "esxi_net-dvs-l_nvds_overlay_opaquedvs_portset_mtu1600_nsxt251_author_arrow_blog.txt"
NVDS_VSWITCH = "esxi_esxcfg-vswitch-l_vss_and_nvds_overlay_no_mtu_column_nsxt251_blog.txt"
OPAQUE_DOCTEST = "esxi_net-dvs-l_opaquedvs_true_no_mtu_nsx_qe_parser_doctest.txt"
ARROWS = "linux_ethtool_ifconfig_enp0s3_author_arrows_after_speed_duplex_pgyogesh_blog.txt"


def _results(name: str):
    c = read_capture(LOCAL / name)
    return parse_output(c.command, c.text, c.notes)


def test_an_nvds_mtu_is_read_from_its_portset_property():
    (r,) = _results(NVDS)
    assert {k: {n: f.value for n, f in v.items()} for k, v in r.switches.items()} == {
        "NVDS-Overlay": {"kind": "opaque", "mtu": 1600}}
    assert r.switches["NVDS-Overlay"]["mtu"].line.strip() == "com.vmware.common.portset.mtu = 1600 , propType = CONFIG"
    assert not r.notes


def test_an_opaque_switch_without_an_mtu_property_says_so():
    (r,) = _results(OPAQUE_DOCTEST)
    assert {k: {n: f.value for n, f in v.items()} for k, v in r.switches.items()} == {"xxx": {"kind": "opaque"}}
    (note,) = r.notes
    assert "switch xxx" in note and "its MTU is left unknown" in note


def test_the_nvds_host_joins_its_uplinks_and_its_mtu(tmp_path):
    host = tmp_path / "host-192-168-109-153"
    host.mkdir()
    for name in (NVDS, NVDS_VSWITCH):
        shutil.copy(LOCAL / name, host / name)
    audit = run_audit(AuditRequest(capture_paths=(str(host),)))
    (h,) = audit.hosts
    nvds = next(s for s in h.switches if s.name == "NVDS-Overlay")
    assert (nvds.kind, nvds.mtu, nvds.uplinks) == ("opaque", 1600, ["vmnic1", "vmnic0"])
    assert nvds.evidence["mtu"].command == "net-dvs -l NVDS-Overlay"
    # 1600 is below the 1700 NSX recommends for an overlay switch
    assert [f for f in audit.findings if f.rule_id == "switch-mtu-below-1700" and f.obj == "NVDS-Overlay"]


def test_author_arrows_are_cut_off_the_lines_they_follow():
    c = read_capture(LOCAL / ARROWS)
    lines = unframe(c.text).splitlines()
    assert "\t   Speed: 10000Mb/s" in lines and "\t   Duplex: Full" in lines
    assert not [ln for ln in lines if "<===" in ln]
    nvds = unframe(read_capture(LOCAL / NVDS).text)
    assert "shotgun on failure;\n" in nvds and "This is where it is set" not in nvds


def test_arrows_never_reach_a_value_and_the_second_command_of_the_paste_is_read():
    pnics = merged(_results(ARROWS))[0]
    assert pnics["enp0s3"] == {"link_up": True, "link_speed_mbps": 10000, "duplex": "full"}
    # 'ifconfig eth0' after the ethtool output is read as itself, not dropped under the ethtool header
    assert pnics["eth0"] == {"mtu": 1500, "admin_up": True, "link_up": True, "mac": "08:00:27:9d:c7:fc"}


def test_arrow_like_text_inside_values_is_kept():
    # a lone '<' or '->' in an output is no author's note: only an arrow after a blank run, ending the line or
    # followed by a blank, is cut
    assert unframe("flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500") == \
        "flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500"
    assert unframe("link behavior = a -> b") == "link behavior = a -> b"
    assert unframe("rx_queue <-1>") == "rx_queue <-1>"


def test_ethtool_long_spellings_as_typed_are_read_like_the_short_ones():
    from capturetools import read_local_capture as read

    pnics, *_ = read("linux_ethtool_--show-ring_eth0_virtio_cloud_vm_rx_256_of_4096_long_option_bjdzliu.txt")
    assert pnics["eth0"] == {"rx_ring_size": 256, "tx_ring_size": 256, "rx_ring_max": 4096, "tx_ring_max": 4096}
    pnics, *_ = read("linux_ethtool_--show-features_grep_offload_eth0_lro_fixed_long_option_bjdzliu.txt")
    assert pnics["eth0"] == {"tso": True, "lro": False, "fixed_offloads": ["lro"]}
    pnics, *_ = read("linux_ethtool_--driver_eth0_forcedeth_0.61_long_option_ubuntu_forum_2008.txt")
    assert pnics["eth0"] == {"driver": "forcedeth", "driver_version": "0.61", "pci_address": "0000:00:0a.0",
                             "is_physical": True}  # the empty firmware-version is no value
