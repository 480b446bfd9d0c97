"""Linux kernel log lines as real outputs give them: the driver from the ``<driver> <PCI address>:`` prefix, the
driver version from the module's load banner, the link speed from the driver's "link is up" message (the last event
wins), the older i40e wording of the PCIe link, never a driver function taken for an interface, and the mlx5 driver
and firmware.

Real public outputs of ``tests/parsers/captures/`` (:func:`capturetools.read_local_capture`).
"""
from __future__ import annotations

from capturetools import read_local_capture as read

# --- Linux kernel logs; the mlx5 driver and firmware from its kernel log lines ---------------------------

BNXT = "linux_dmesg_bnxt_en_link_up_25000_fec_interleaved_lkml_swiotlb.txt"
I40E_OOT = "linux_kernlog_i40e_2.2.4_banner_fw_link40g_old_pcie_wording_ptp_func_pfring277.txt"
I40E_X710 = "linux_dmesg_grep_i40e_x710_old_pcie_wording_blockquote_prompt_pfring346.txt"
I40E_BANNER = "linux_dmesg_i40e_2.8.20-k_banner_markdown_italic_underscore_esos266.txt"
MLX5_CX5 = "linux_dmesg_grep_mlx5_core_connectx5_fw16.27_pcie_func_arm64_geerlingguy-armnas16.txt"
MLX5_CX4 = "linux_dmesg_grep_mlx5_core_connectx4lx_fw14.32_handle_hca_cap_func_tinycore-redpill9.txt"
IGB_BOLD = "linux_dmesg_igb_link_up_markdown_bold_inside_lines_lede9894.txt"
ICE_IAVF = "linux_dmesg_ice_iavf_link_down_up_25g_email_quoted_twice_netdev_ptp.txt"
ICE_OOT = "linux_dmesg_ice_oot_1.12.7_banner_pcie_limited_x8_link25g_ocp_kmm_notes.txt"
ICE_DOUBLED = "linux_dmesg_grep_ice_e810_blank_line_after_each_wrapped_flowed_iwl_cloudflare.txt"
BNX2_BBCODE = "linux_kernlog_grep_bnx2_link_down_up_bbcode_font_tags_inside_lines_ubuntuforums.txt"
BNX2_LOGWATCH = "linux_logwatch_kernel_bnx2_banner_v2.2.3_link_up_time_s_prefix_sorted_ubuntuforums.txt"
BNX2X_POWER = "linux_syslog_bnx2x_power_bond0_bond1_vlan_bond0.11_bond1.19_ifupdown_ubuntuforums.txt"


def test_the_driver_is_read_from_the_dev_info_prefix():
    pnics, *_ = read(BNXT)
    assert pnics["eno2np0"]["driver"] == pnics["eno3np1"]["driver"] == "bnxt_en"
    pnics, *_ = read(BNX2X_POWER, "dmesg")  # syslog lines, PCI domain 0004, a predictable name with 'P'
    assert pnics["enP4p1s0f0"]["driver"] == "bnx2x" and pnics["enP4p1s0f0"]["pci_address"] == "0004:01:00.0"


def test_the_driver_version_is_read_from_the_modules_load_banner():
    pnics, _v, _s, modules, _h = read(I40E_OOT, "dmesg")
    assert pnics["eth10"]["driver_version"] == modules["i40e"]["version"] == "2.2.4"
    pnics, _v, _s, modules, _h = read(ICE_OOT, "dmesg")
    assert {p["driver_version"] for p in pnics.values()} == {"1.12.7_dirty"} and len(pnics) == 8
    # logwatch sorted the banner after the link line and prefixed ' 1 Time(s): ' to both
    pnics, _v, _s, modules, _h = read(BNX2_LOGWATCH, "dmesg")
    assert pnics["eth0"]["driver_version"] == "2.2.3" and pnics["eth0"]["driver"] == "bnx2"
    # the probe failed: no device to credit, the module's version is still known
    pnics, _v, _s, modules, _h = read(I40E_BANNER)
    assert modules["i40e"]["version"] == "2.8.20-k" and pnics == {}


def test_the_link_speed_is_read_from_the_drivers_link_up_message():
    pnics, *_ = read(BNXT)  # 'NIC Link is Up, 25000 Mbps full duplex', inside interleaved console lines
    assert (pnics["eno3np1"]["link_up"], pnics["eno3np1"]["link_speed_mbps"], pnics["eno3np1"]["duplex"]) == \
        (True, 25000, "full")
    pnics, *_ = read(I40E_OOT, "dmesg")  # 'NIC Link is Up, 40 Gbps Full Duplex'
    assert pnics["eth10"]["link_speed_mbps"] == 40000
    pnics, *_ = read(ICE_DOUBLED)  # a blank line after every line, the link line wrapped over three
    assert pnics["ext0"]["link_speed_mbps"] == 25000 and pnics["ext0"]["pci_address"] == "0000:c1:00.0"
    pnics, *_ = read(IGB_BOLD)  # '**' inside the line: 'igb 0000:06:11.0 **eth1: igb: eth1 NIC Link is Up …**'
    assert pnics["eth1"]["link_speed_mbps"] == 1000 and pnics["eth0"]["link_speed_mbps"] == 1000


def test_the_last_link_event_of_a_port_wins():
    pnics, *_ = read(ICE_IAVF, "dmesg")  # quoted '>>' under a '>' reply
    assert pnics["ens1f1"]["link_up"] is False and "link_speed_mbps" not in pnics["ens1f1"]
    assert pnics["ens1f2"]["link_up"] is True and pnics["ens1f2"]["link_speed_mbps"] == 25000
    pnics, *_ = read(BNX2_BBCODE, "dmesg")  # BBCode tags split 'NIC Copper[/FONT][FONT=Arial] Link is Down'
    assert pnics["eth1"]["link_up"] is True and pnics["eth1"]["link_speed_mbps"] == 1000  # down, then up


def test_the_older_i40e_wording_of_the_pcie_link():
    pnics, *_ = read(I40E_X710)  # 'i40e 0000:03:00.0: PCI-Express: Speed 8.0GT/s Width x8'
    assert {k: (p["pcie_speed_gts"], p["pcie_width"]) for k, p in pnics.items()} == {
        f"pci:0000:0{b}:00.{f}": (8.0, 8) for b in (3, 6) for f in (0, 1)}
    pnics, *_ = read(I40E_OOT, "dmesg")  # Gen2 x8 under a 40 Gbit/s port, as the driver then warns
    assert (pnics["eth10"]["pcie_speed_gts"], pnics["eth10"]["pcie_width"]) == (5.0, 8)


def test_a_driver_function_after_the_address_is_never_an_interface_name():
    for name, command in ((I40E_OOT, "dmesg"), (MLX5_CX5, None), (MLX5_CX4, None)):
        pnics, *_ = read(name, command)
        assert not any("_" in key for key in pnics), sorted(pnics)  # i40e_ptp_stop, mlx5_pcie_event, handle_hca_cap
    pnics, *_ = read(I40E_OOT, "dmesg")
    assert sorted(pnics) == ["eth10"]  # 04:00.1 only logged 'i40e_ptp_stop: removed PHC on eth16'


def test_the_mlx5_driver_and_firmware_from_its_kernel_log_lines():
    pnics, *_ = read(MLX5_CX5)
    for fn in (0, 1):
        p = pnics[f"pci:0004:01:00.{fn}"]
        assert (p["driver"], p["firmware_version"], p["pcie_speed_gts"], p["pcie_width"]) == \
            ("mlx5_core", "16.27.2048", 8.0, 8)
    pnics, *_ = read(MLX5_CX4)
    assert pnics == {"pci:0000:03:00.0": {"driver": "mlx5_core", "firmware_version": "14.32.1010"}}
    pnics, *_ = read(I40E_OOT, "dmesg")  # i40e's 'fw … api … nvm 6.01 0x800034a4 1.1747.0' (ethtool's string)
    assert pnics["eth10"]["firmware_version"] == "6.01 0x800034a4 1.1747.0"
