"""Linux parsers (ethtool, lspci -vv, dmesg, sysfs) on the real captures in shared/fixtures/captures.

ESXi ≤ 6.x also had ethtool: its captures go through the same parsers.
"""
from __future__ import annotations

import pytest

from capturetools import merged, parse_capture
from nicadvisor.parsers.base import CommandLine
from nicadvisor.parsers.linux.ethtool import PARSERS, features
from nicadvisor.parsers.linux.kernel_log import parse_dmesg
from nicadvisor.parsers.linux.pci import gts, link_fields
from nicadvisor.parsers.linux.sysfs import expand_braces, parse_ip_link_json, sysfs_target
from nicadvisor.parsers.registry import families, parse_output, parsers_for


def pnics(name: str) -> dict:
    return merged(parse_capture(name))[0]


def facts(name: str, key: str) -> dict:
    """The Fact objects (value + raw line) recorded for ``key``."""
    out: dict = {}
    for r in parse_capture(name):
        for k, f in r.pnics.get(key, {}).items():
            out.setdefault(k, f)
    return out


# --- ethtool -i ------------------------------------------------------------------------------------

def test_ethtool_i_ice_e810_in_tree_driver_reports_kernel_release():
    p = pnics("linux_ethtool-i_ice_e810_fw4.51.txt")
    assert p == {"em1": {
        "driver": "ice",
        "driver_version": "6.15.3-3.gdc.el9.x86_64",  # in-tree driver: the kernel release, kept as printed
        "firmware_version": "4.51 0x8001e501 23.0.8",
        "pci_address": "0000:63:00.0",
        "is_physical": True,
    }}
    assert facts("linux_ethtool-i_ice_e810_fw4.51.txt", "em1")["firmware_version"].line == "firmware-version: 4.51 0x8001e501 23.0.8"


def test_ethtool_i_igb():
    p = pnics("linux_ethtool-i_igb_enp2s0.txt")["enp2s0"]
    assert p["driver"] == "igb"
    assert p["driver_version"] == "5.4.0-k"
    assert p["firmware_version"] == "3.16.0"
    assert p["pci_address"] == "0000:02:00.0"
    assert p["is_physical"] is True
    assert "is_virtual_uplink" not in p


def test_ethtool_i_esxi41_indented_with_prompt():
    p = pnics("esxi_g_ethtool_-i_ixgbe_esxi41_elatov.txt")
    assert p == {"vmnic7": {
        "driver": "ixgbe", "driver_version": "3.1.17.1-NAPI", "firmware_version": "1.0-3",
        "pci_address": "0000:02:00.0", "is_physical": True,
    }}


def test_ethtool_i_real_physical_ports_get_no_software_device_note():
    for name in ("linux_ethtool-i_ice_e810_fw4.51.txt", "linux_ethtool-i_igb_enp2s0.txt"):
        assert not any("bond/VLAN" in n for r in parse_capture(name) for n in r.notes)


@pytest.mark.parametrize("driver", ["bonding", "802.1Q VLAN Support", "bridge", "veth", "team", "macvlan"])
def test_ethtool_i_software_devices_are_not_physical_format_only(driver):
    # FORMAT-ONLY: there is no real `ethtool -i bond0` / VLAN capture in shared/fixtures. The text is the
    # real igb capture with its `driver:` value replaced and `bus-info:` emptied (as bonds print it).
    from capturetools import capture_path
    lines = capture_path("linux_ethtool-i_igb_enp2s0.txt").read_text(encoding="utf-8").splitlines()
    body = [ln for ln in lines if not ln.startswith("#")]
    body = [f"driver: {driver}" if ln.startswith("driver:") else "bus-info:" if ln.startswith("bus-info:") else ln
            for ln in body]
    r = PARSERS["-i"]("\n".join(body), CommandLine.parse("ethtool -i bond0"))
    f = r.pnics["bond0"]
    assert f["is_physical"].value is False and f["is_physical"].line == f"driver: {driver}"
    assert f["driver"].value == driver and "pci_address" not in f
    stacked = driver in ("bonding", "802.1Q VLAN Support", "team", "macvlan")
    assert any("features read on a bond/VLAN: audit its member ports" in n for n in r.notes) is stacked


# --- ethtool -k ------------------------------------------------------------------------------------

def test_ethtool_k_ice_flattened_geneve_keys():
    p = pnics("linux_ethtool-k_ice_e810_kernel6.15_flattened.txt")["em1"]
    assert p["tso"] is True
    assert p["lro"] is False  # large-receive-offload: off [fixed]
    assert p["geneve_offload"] is True and p["vxlan_offload"] is True
    assert p["geneve_rx_filter"] is True  # rx-udp_tunnel-port-offload: on
    assert "rss" not in p
    f = facts("linux_ethtool-k_ice_e810_kernel6.15_flattened.txt", "em1")
    assert f["geneve_offload"].line == "tx-udp_tnl-segmentation: on\ntx-udp_tnl-csum-segmentation: on"
    assert f["lro"].line == "large-receive-offload: off [fixed]"


def test_ethtool_k_igb_tunnel_tso_via_gso_partial_but_no_rx_port_offload():
    p = pnics("linux_ethtool-k_igb_enp2s0.txt")["enp2s0"]
    # tx-udp_tnl-segmentation: on comes from GSO_PARTIAL (tx-gso-partial: on) on a NIC that cannot parse Geneve on
    # receive (rx-udp_tunnel-port-offload: off [fixed]): not Geneve offload in the compatibility guide's sense
    # (nsx-t-performance-on-intel.txt §1.3; issue 24 §3)
    assert p == {"tso": True, "lro": False, "geneve_rx_filter": False, "geneve_offload": False,
                 "vxlan_offload": False, "receive_hashing": True, "fixed_offloads": ["lro", "geneve_rx_filter"]}
    assert facts("linux_ethtool-k_igb_enp2s0.txt", "enp2s0")["geneve_rx_filter"].line == "rx-udp_tunnel-port-offload: off [fixed]"
    assert facts("linux_ethtool-k_igb_enp2s0.txt", "enp2s0")["geneve_offload"].line == (
        "tx-udp_tnl-segmentation: on\ntx-udp_tnl-csum-segmentation: on\ntx-gso-partial: on\n"
        "rx-udp_tunnel-port-offload: off [fixed]")


def test_ethtool_k_esxi60_old_offload_parameters_layout():
    # Old layout: "tcp segmentation offload: on", no LRO / UDP-tunnel keys -> those stay unknown.
    p = pnics("esxi_g_ethtool_-k_vmnic1_esxi60_sio4.txt")
    assert p == {"vmnic1": {"tso": True}}


def test_features_helper_reads_suffixes_and_single_line_layout():
    # Lines of linux_ethtool-k_ice_e810_kernel6.15_flattened.txt joined onto one line, as a fully
    # flattened copy would show them.
    line = ("Features for em1: tx-udp_tnl-segmentation: on tx-gso-list: off [fixed] "
            "rx-udp_tunnel-port-offload: on tcp segmentation offload: on")
    f = features([line])
    assert f["tx-udp_tnl-segmentation"] == (True, "tx-udp_tnl-segmentation: on")
    assert f["tx-gso-list"] == (False, "tx-gso-list: off [fixed]")
    assert f["rx-udp_tunnel-port-offload"][0] is True
    assert f["tcp-segmentation-offload"][0] is True


# --- ethtool -l ------------------------------------------------------------------------------------

def test_ethtool_l_ice_tabs_combined_64():
    assert pnics("linux_ethtool-l_ice_e810_100g_tabs.txt") == {
        "hge11": {"rx_queues": 64, "tx_queues": 64, "rx_queues_max": 64, "tx_queues_max": 64}}


def test_ethtool_l_ice_flattened_current_8_not_max_64():
    assert pnics("linux_ethtool-l_ice_e810_64max_8current_flattened.txt") == {
        "em1": {"rx_queues": 8, "tx_queues": 8, "rx_queues_max": 64, "tx_queues_max": 64}}  # in use 8 of 64


def test_ethtool_l_igb_spaces():
    assert pnics("linux_ethtool-l_igb_enp2s0.txt") == {
        "enp2s0": {"rx_queues": 4, "tx_queues": 4, "rx_queues_max": 4, "tx_queues_max": 4}}
    f = facts("linux_ethtool-l_igb_enp2s0.txt", "enp2s0")["rx_queues"]
    assert "Combined:       4" in f.line and "RX:             0" in f.line


# --- ethtool -x ------------------------------------------------------------------------------------

def test_ethtool_x_igb_table_over_4_rings():
    p = pnics("linux_ethtool-x_igb_enp2s0_4rings.txt")["enp2s0"]
    assert p == {"rx_queues": 4, "rss": True}
    assert "0, 1, 2, 3" in facts("linux_ethtool-x_igb_enp2s0_4rings.txt", "enp2s0")["rss"].line


# --- ethtool -c ------------------------------------------------------------------------------------

def test_ethtool_c_ice_static_itr_flattened_na_is_unknown():
    p = pnics("linux_ethtool-c_ice_e810_static_itr_flattened.txt")["em1"]
    assert p == {"coalesce_adaptive_rx": False, "coalesce_adaptive_tx": False, "coalesce_rx_usecs": 12,
                 "coalesce_tx_usecs": 28}
    # rx-frames / tx-frames are n/a -> not recorded; rx-usecs-high: 0 is another setting.


def test_ethtool_c_igb_zero_is_a_value_and_edited_key_is_not_read():
    p = pnics("linux_ethtool-c_igb_enp2s0.txt")["enp2s0"]
    assert p["coalesce_adaptive_rx"] is False
    assert p["coalesce_tx_usecs"] == 0
    assert p["coalesce_rx_frames"] == 0 and p["coalesce_tx_frames"] == 0
    assert "coalesce_rx_usecs" not in p  # the fixture prints 'rx-usecs.nic:' (edited key), not 'rx-usecs:'


# --- ethtool -g / plain ethtool ------------------------------------------------------------------------

def test_ethtool_g_ice_current_ring_8160():
    assert pnics("linux_ethtool-g_ice_e810_ring_8160_flattened.txt") == {"em1": {"rx_ring_size": 8160, "tx_ring_size": 8160,
                                                                               "rx_ring_max": 8160, "tx_ring_max": 8160}}


def test_ethtool_settings_ice_25g_dac():
    p = pnics("linux_ethtool_settings_ice_e810_25g_dac_flattened.txt")
    assert p == {"em1": {"link_up": True, "link_speed_mbps": 25000, "duplex": "full"}}
    f = facts("linux_ethtool_settings_ice_e810_25g_dac_flattened.txt", "em1")
    assert f["link_speed_mbps"].line == "Speed: 25000Mb/s"
    assert f["link_up"].line == "Link detected: yes"


# --- lspci -vv / dmesg / sysfs ---------------------------------------------------------------------------

def test_lspci_vv_connectx6dx_lnkcap_only():
    p = pnics("linux_lspci-vv_connectx6dx_lnkcap_partial.txt")
    assert p == {"pci:0000:b3:00.0": {
        "description": "Mellanox Technologies MT2892 Family [ConnectX-6 Dx]",
        "numa_node": 0,
        "pcie_speed_capable_gts": 16.0,
        "pcie_width_capable": 16,
    }}  # LnkSta is cut from the capture: current speed/width stay unknown


def test_link_fields_helper_on_real_lines():
    # LnkCap from linux_lspci-vv_connectx6dx_lnkcap_partial.txt
    assert link_fields("LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM not supported, Exit Latency L0s unlimited, "
                       "L1 <4us") == ("LnkCap", 16.0, 16)
    # Newer pciutils suffixes; line quoted from github.com/janhq/jan/issues/183
    assert link_fields("LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)") == ("LnkSta", 2.5, 16)
    assert link_fields("LnkSta: Speed unknown, Width x8") == ("LnkSta", None, 8)
    assert link_fields("DevSta: CorrErr- UncorrErr- FatalErr- UnsuppReq- AuxPwr- TransPend-") is None
    assert gts("8.0 GT/s PCIe") == 8.0 and gts("Unknown") is None


def test_dmesg_e810_wrapped_bandwidth_line():
    p = pnics("linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt")
    assert p == {"pci:0000:41:00.0": {
        "pcie_speed_gts": 16.0, "pcie_width": 16, "pcie_speed_capable_gts": 16.0, "pcie_width_capable": 16,
        "driver": "ice",  # the dev_info prefix 'ice 0000:41:00.0:' (issue 16 §5)
    }}
    (r,) = parse_capture("linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt")
    assert r.records[0]["ddp_package"] == "ICE COMMS Package version 1.3.45.0"
    assert r.pnics["pci:0000:41:00.0"]["pcie_width"].line == \
        "0000:41:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)"


def test_dmesg_limited_by_line_gives_current_and_capable():
    # Real kernel line quoted from github.com/geerlingguy/raspberry-pi-pcie-devices/issues/712.
    text = ("[    0.499779] pci 0000:01:00.0: 7.876 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x1 link "
            "at 0000:00:00.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)\n")
    r = parse_dmesg(text, CommandLine.parse("dmesg"))
    got = {k: f.value for k, f in r.pnics["pci:0000:01:00.0"].items()}
    assert got == {"pcie_speed_gts": 8.0, "pcie_width": 1, "pcie_speed_capable_gts": 8.0, "pcie_width_capable": 16}


def test_sysfs_current_link_speed_width_brace_command():
    p = pnics("linux_sysfs_current_link_speed_width.txt")
    # the capture's device is an NVMe disk (/sys/block): its PCIe link is read, and it is marked as no pNIC
    assert p == {"nvme0n1": {"pcie_speed_gts": 8.0, "pcie_width": 4, "is_physical": False}}


def test_sysfs_paths_and_braces():
    assert expand_braces("/sys/block/nvme0n1/device/device/current_link_{speed,width}") == [
        "/sys/block/nvme0n1/device/device/current_link_speed", "/sys/block/nvme0n1/device/device/current_link_width"]
    assert sysfs_target("/sys/class/net/eth0/mtu") == ("eth0", "net", "mtu")
    assert sysfs_target("/sys/class/net/eth0/device/vendor") == ("eth0", "pci", "vendor")
    assert sysfs_target("/sys/bus/pci/devices/0000:b3:00.0/max_link_width") == ("pci:0000:b3:00.0", "pci", "max_link_width")
    assert sysfs_target("/sys/class/net/eth0/statistics/rx_bytes") is None
    assert sysfs_target("/etc/passwd") is None


# --- registry routing and robustness -----------------------------------------------------------------------

def test_registry_routes_linux_commands():
    for fam in ("ethtool -i", "ethtool -k", "ethtool -l", "ethtool -x", "ethtool -c", "ethtool -g", "ethtool",
                "lspci -vv", "dmesg", "cat /sys", "readlink /sys/class/net", "ip -j link show"):
        assert fam in families()
    route = {"ethtool -k em1": "ethtool -k", "ethtool --show-features em1": "ethtool -k", "ethtool em1": "ethtool",
             "lspci -vvv -s 5e:00.0": "lspci -vv", "ip -d -j link show": "ip -j link show",
             "cat /sys/class/net/eth0/mtu": "cat /sys", "readlink /sys/class/net/eth0": "readlink /sys/class/net"}
    for command, family in route.items():
        found = [fam for fam, _ in parsers_for(CommandLine.parse(command))]
        assert found and found[0] == family, command
    # Setting commands are not read as outputs.
    assert not [f for f, _ in parsers_for(CommandLine.parse("ethtool -K em1 lro off")) if f.startswith("ethtool")]


@pytest.mark.parametrize("text", ["", "garbage\n\x00\x01", "Features for :\n: on", "RX flow hash indirection table for x with 9 RX ring(s):\n0: a b",
                                  "Current hardware settings:\nRX: n/a\nTX: n/a\nCombined: n/a", "[", "[{\"ifname\": 3}]",
                                  "Settings for em1:\nSpeed: Unknown!\nDuplex: Unknown! (255)\nLink detected: no"])
def test_parsers_never_raise_and_invent_nothing(text):
    cmd = CommandLine.parse("ethtool -x em1")
    for fn in PARSERS.values():
        r = fn(text, cmd)
        for facts_ in r.pnics.values():
            assert all(f.value is not None for f in facts_.values())
    parse_ip_link_json(text, CommandLine.parse("ip -d -j link show"))
    parse_dmesg(text, CommandLine.parse("dmesg"))
    for command in ("lspci -vv", "cat /sys/class/net/em1/speed", "readlink /sys/class/net/em1"):
        parse_output(command, text)


def test_link_down_settings_record_no_speed():
    # 'Speed: Unknown!' / 'Duplex: Unknown! (255)' as ethtool 6.1 prints them (seen on the test VM's virtio
    # eth0), here with 'Link detected: no': a down link records link_up False and nothing else.
    r = PARSERS[""]("Settings for em1:\nSpeed: Unknown!\nDuplex: Unknown! (255)\nLink detected: no\n",
                    CommandLine.parse("ethtool em1"))
    assert {k: f.value for k, f in r.pnics["em1"].items()} == {"link_up": False}


@pytest.mark.parametrize("name", [
    "esxi_g_ethtool_-i_ixgbe_esxi41_elatov.txt", "linux_ethtool-i_ice_e810_fw4.51.txt",
    "linux_ethtool-k_igb_enp2s0.txt", "linux_ethtool-l_igb_enp2s0.txt", "linux_ethtool-x_igb_enp2s0_4rings.txt",
    "linux_ethtool-c_ice_e810_static_itr_flattened.txt", "linux_ethtool-g_ice_e810_ring_8160_flattened.txt",
    "linux_ethtool_settings_ice_e810_25g_dac_flattened.txt", "linux_lspci-vv_connectx6dx_lnkcap_partial.txt",
    "linux_dmesg_ice_e810_pcie_bandwidth_16gts_x16_ddp.txt",
])
def test_fully_flattened_copy_reads_the_same(name):
    """A copy whose whole text collapsed to one line (mail/web flattening) gives the same facts."""
    from capturetools import capture_path
    from nicadvisor.collect.sources import read_capture

    cap = read_capture(capture_path(name))
    flat = " ".join(cap.text.split())
    assert merged(parse_output(cap.command, flat))[0] == pnics(name)
