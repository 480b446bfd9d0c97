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


# --- lspci: -k, and the machine-readable -vmm / -vmmkn / -nnmmv / -mmv ------------------------------------------

def test_lspci_k_names_the_driver_in_use():
    pnics, *_ = read("linux_lspci-k_thinkpad_x240_i218lm_e1000e_insights-core.txt")
    assert pnics == {"pci:0000:00:19.0": {"description": "Intel Corporation Ethernet Connection I218-LM",
                                          "driver": "e1000e"}}  # the audio, graphics … functions are no NICs
    pnics, *_ = read("linux_lspci-k_hyperv_connectx4lx_vf_domain_1a06_insights-core.txt")
    assert pnics["pci:1a06:00:02.0"]["driver"] == "mlx5_core"


def test_lspci_vmmkn_records_give_ids_driver_and_numa_node():
    pnics, *_ = read("linux_lspci-vmmkn_thinkpad_x240_i218lm_e1000e_insights-core.txt")
    assert pnics == {"pci:0000:00:19.0": {"pci_address": "0000:00:19.0", "vid": "8086", "did": "155a",
                                          "svid": "17aa", "ssid": "2214", "driver": "e1000e"}}
    pnics, *_ = read("linux_lspci-vmmkn_hyperv_connectx4lx_vf_domain_1a06_numa0_insights-core.txt")
    p = pnics["pci:1a06:00:02.0"]
    assert (p["vid"], p["did"], p["svid"], p["ssid"], p["driver"], p["numa_node"]) == \
        ("15b3", "1016", "15b3", "0190", "mlx5_core", 0)


def test_lspci_nnmmv_gives_names_and_ids_and_mmv_names_only():
    pnics, *_ = read("linux_lspci-nnmmv_vmware_guest_82545em_names_and_ids_jc.txt")
    assert pnics == {"pci:0000:02:01.0": {
        "pci_address": "0000:02:01.0", "vid": "8086", "did": "100f", "svid": "15ad", "ssid": "0750",
        "description": "Intel Corporation 82545EM Gigabit Ethernet Controller (Copper)"}}
    pnics, *_ = read("linux_lspci-mmv_vmware_guest_82545em_names_only_jc.txt")
    assert pnics == {"pci:0000:02:01.0": {
        "pci_address": "0000:02:01.0", "description": "Intel Corporation 82545EM Gigabit Ethernet Controller (Copper)"}}


# --- fields admins use: ring maximums, adaptive TX, [fixed] features, a Linux interface's master ---------------

def test_ethtool_g_pre_set_maximums_beside_the_rings_in_use():
    pnics, *_ = read("linux_ethtool-g_eth2_rx_200_of_2047_tx_511_of_511_insights-core.txt")
    p = pnics["eth2"]
    assert (p["rx_ring_size"], p["rx_ring_max"], p["tx_ring_size"], p["tx_ring_max"]) == (200, 2047, 511, 511)


def test_adaptive_tx_is_read_from_ethtool_c_and_esxcli_coalesce():
    from capturetools import merged, parse_capture
    pnics, *_ = merged(parse_capture("linux_ethtool-c_ice_e810_static_itr_flattened.txt"))  # Adaptive RX: off TX: off
    assert pnics["em1"]["coalesce_adaptive_tx"] is False
    pnics, *_ = merged(parse_capture("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt"))  # Adaptive TX: Off
    assert pnics["vmnic2"]["coalesce_adaptive_tx"] is False


def test_fixed_ethtool_k_features_are_named():
    from capturetools import merged, parse_capture
    pnics, *_ = merged(parse_capture("linux_ethtool-k_igb_enp2s0.txt"))
    # igb: 'large-receive-offload: off [fixed]', 'rx-udp_tunnel-port-offload: off [fixed]'; TSO can be changed
    assert pnics["enp2s0"]["fixed_offloads"] == ["lro", "geneve_rx_filter"]
    assert "tso" not in pnics["enp2s0"]["fixed_offloads"]


def test_ip_addr_master_and_tunnels_by_link_type():
    pnics, *_ = read("linux_ip_addr_eth7_master_bond1_ipip_tunl0_ip.tun2_insights-core.txt")
    assert pnics["eth7"]["master"] == "bond1"
    assert pnics["ip.tun2"]["is_physical"] is False  # 'link/ipip 10.192.4.203 peer …': no name tells it
    pnics, *_ = read("linux_ip-s_link_bridge_members_master_virbr0_tun0_link_none_ppp0_insights-core.txt")
    assert (pnics["vnet0"]["master"], pnics["virbr0-nic"]["master"]) == ("virbr0", "virbr0")
    assert pnics["ppp0"]["is_physical"] is False and pnics["tun0"]["is_physical"] is False
    assert "is_physical" not in pnics["enp0s25"] and "master" not in pnics["enp0s25"]


# --- classic Linux listings: /proc/net/bonding, netstat -i, nmcli device show ---------------------------------

def test_proc_net_bonding_members_link_speed_duplex_and_master():
    pnics, *_ = read("linux_proc_net_bonding_bond0_round-robin_eno1_eno2_1000_full_insights-core.txt")
    assert pnics["bond0"] == {"is_physical": False}
    for nic in ("eno1", "eno2"):
        assert pnics[nic] == {"master": "bond0", "link_up": True, "link_speed_mbps": 1000, "duplex": "full"}
    pnics, *_ = read("linux_proc_net_bonding_bond0_802.3ad_enp0s9_up_enp0s8_down_unknown_speed_insights-core.txt")
    assert pnics["enp0s8"] == {"master": "bond0", "link_up": False}  # 'Speed: Unknown', 'Duplex: Unknown'
    assert pnics["enp0s9"]["link_speed_mbps"] == 1000


def test_netstat_i_mtu_up_running_and_the_bonds_master_flag():
    pnics, *_ = read("linux_netstat-i_centos77_ens33_docker0_bmu_jc.txt")
    assert pnics["ens33"] == {"mtu": 1500, "admin_up": True, "link_up": True}
    assert (pnics["docker0"]["admin_up"], pnics["docker0"]["link_up"]) == (True, False)  # BMU: up, not running
    assert "lo" not in pnics
    pnics, *_ = read("linux_netstat-i_met_column_bond0_bond1_master_flag_eth0-3_slaves_insights-core.txt")
    assert pnics["bond0"]["is_physical"] is False and pnics["eth2"] == {"mtu": 1500, "admin_up": True, "link_up": True}


def test_nmcli_device_show_mac_mtu_carrier_and_type():
    pnics, *_ = read("linux_nmcli_device_show_centos77_ens33_docker0_bridge_jc.txt")
    assert pnics["ens33"] == {"mac": "00:0c:29:3b:58:0e", "mtu": 1500, "link_up": True}
    assert pnics["docker0"]["is_physical"] is False and "lo" not in pnics


# --- net-dvs -l: a distributed or opaque switch's MTU from its global properties ------------------------------

def test_net_dvs_global_properties_give_the_switch_kind_and_mtu():
    from capturetools import local_capture
    from nicadvisor.parsers.registry import parse_output
    c = local_capture("esxi_net-dvs-l_vds_compute_vds_global_properties_mtu1500_opaquedvs_false_sneaku.txt")
    results = parse_output(c.command, c.text, c.notes)
    assert [r.family for r in results] == ["net-dvs -l"]
    sw = results[0].switches["Compute_VDS"]
    assert (sw["kind"].value, sw["mtu"].value) == ("distributed", 1500)  # opaqueDvs = false: a VDS, not an N-VDS
    assert "com.vmware.etherswitch.mtu = 1500" in sw["mtu"].line


# --- link events in old log layouts ----------------------------------------------------------------------------

def test_vmklinux_be2net_link_down_and_up_lines():
    pnics, *_ = read("esxi5_vmkernel_log_be2net_vmnic_space_colon_bus_link_down_up_flex10_elatov.txt",
                     "grep Link /var/log/vmkernel.log")
    # 'vmnic0 : 02:00.0 Link Down' at 05:42, '… Link Up - 10 Gbps Full Duplex' at 05:51: the last event wins
    for nic in ("vmnic0", "vmnic2", "vmnic4"):
        assert pnics[nic] == {"link_up": True, "link_speed_mbps": 10000, "duplex": "full"}
    assert not any(k.startswith("pci:") for k in pnics)  # the lpfc820 FCoE lines are no NIC


def test_old_kernel_driver_ifname_function_link_line():
    pnics, *_ = read("linux_dmesg_grep_eth_old_e1000_driver_ifname_function_prefix_no_pci_ubuntuforums.txt", "dmesg")
    assert pnics["eth1"] == {"link_up": True, "link_speed_mbps": 1000, "duplex": "full", "driver": "e1000"}
    assert "eth0" not in pnics  # its probe line says no link


# --- framing: a TAB inside a cell that is not a key -------------------------------------------------------------

def test_tab_inside_the_broadcast_cell_keeps_the_row_with_a_note():
    from capturetools import local_capture
    from nicadvisor.parsers.registry import parse_output
    c = local_capture("esxi55_esxcfg-vmknic-l_tab_inside_broadcast_cell_nsxv_vtep_vmk3_mtu1600_blog.txt")
    (r,) = parse_output(c.command, c.text, c.notes)
    vmk = {k: {f: fact.value for f, fact in v.items()} for k, v in r.vmknics.items()}
    assert vmk["vmk3"] == {"addresses": ["192.168.150.52"], "mtu": 1600, "tso_mss": 65535}
    assert set(vmk) == {"vmk0", "vmk1", "vmk2", "vmk3"}
    assert len(r.notes) == 4 and all("Broadcast cell was not understood" in n for n in r.notes)


# --- one note, once ---------------------------------------------------------------------------------------------

def test_the_same_note_of_one_input_is_listed_once():

    from capturetools import local_capture
    from nicadvisor.parsers.assemble import HostInputs, assemble_host

    # two pasted outputs ('dmesg | grep PCIe', 'dmesg | grep ixgbe') both name eth0 for four igb ports
    cap = local_capture("linux_dmesg_igb_pcie_gbs_and_gts_pfring283.txt")
    _host, problems, _parsed = assemble_host(HostInputs(name="h", captures=[cap]))
    eth0 = [p for p in problems if "the log names eth0 for 4 devices" in p.message]
    assert len(eth0) == 1


# --- text extracted from a PDF: dashes lost, values on the next line; two hosts' prompts ------------------------

PDF_I = "rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_summit_pdf.txt"
PDF_CGK = "rhel5_ethtool-c-g-k_cxgb3_eth2_dashes_lost_values_on_next_line_redhat_summit_pdf.txt"


def test_pdf_copy_without_dashes_is_read():
    pnics, *_ = read(PDF_CGK)
    p = pnics["eth2"]  # 'ethtool c eth2', 'rxusecs: 5', 'Preset maximums:' then 'RX:' / '16384'
    assert (p["coalesce_rx_usecs"], p["coalesce_adaptive_rx"], p["coalesce_adaptive_tx"]) == (5, False, False)
    assert (p["rx_ring_size"], p["rx_ring_max"], p["tx_ring_size"], p["tx_ring_max"]) == (1024, 16384, 1024, 16384)
    assert p["tso"] is True  # 'tcp segmentation offload: on' of 'ethtool k eth2'


def test_two_hosts_prompts_are_not_one_host():
    from capturetools import local_capture
    from nicadvisor.parsers.registry import parse_output
    pnics, *_ = read(PDF_I)
    # [root@perf10 ~]# ethtool i eth2 → cxgb3 ('firmwareversion:', 'businfo:'); [root@dhcp47154 ~]# ethtool i eth2 is
    # another host's Neterion card: never merged into perf10's eth2
    assert pnics["eth2"] == {"driver": "cxgb3", "driver_version": "1.0ko", "firmware_version": "T 5.0.0 TP 1.1.0",
                             "pci_address": "0000:06:00.0", "is_physical": True}
    assert pnics["eth3"]["driver"] == "ixgbe"
    c = local_capture(PDF_I)
    notes = [n for r in parse_output(c.command, c.text, c.notes) for n in r.notes]
    assert any("host dhcp47154" in n and "perf10" in n for n in notes)


# --- two commands in one header, no prompt between their outputs ------------------------------------------------

def test_standard_and_dvs_listings_under_one_header_keep_their_kinds():
    switches = read("esxi_esxcli_vswitch_standard_list_and_dvs_vmware_list_no_prompt_between_ja_notes.txt")[2]
    assert switches["vSwitch0"] == {"kind": "standard", "mtu": 1500, "uplinks": []}
    assert switches["TEST"] == {"kind": "distributed", "mtu": 1500, "uplinks": ["vmnic0"]}


def test_netstat_ie_in_both_ifconfig_layouts():
    pnics, *_ = read("linux_netstat-ie_new_ifconfig_layout_ens33_flags_ether_ubuntu_notes.txt")
    assert pnics == {"ens33": {"mtu": 1500, "admin_up": True, "link_up": True, "mac": "00:0c:29:fc:90:72"}}
    pnics, *_ = read("linux_netstat-i_and_netstat-ie_old_ifconfig_layout_eth1_vboxnet0_crazygit.txt")
    assert pnics["eth1"] == {"mtu": 1500, "admin_up": True, "link_up": True, "mac": "44:39:c4:8d:d9:64"}
    assert pnics["vboxnet0"]["mac"] == "0a:00:27:00:00:00" and "lo" not in pnics


# --- nothing dropped silently: an echoed command no parser reads ----------------------------------------------

def test_output_of_an_echoed_command_no_parser_reads_gets_a_note():
    from capturetools import local_capture
    from nicadvisor.parsers.registry import parse_output
    c = local_capture("linux_pasted_session_ethtool-c-k_kernel4.10_enp6s0f1.txt")
    notes = [n for r in parse_output(c.command, c.text, c.notes) for n in r.notes]
    assert any("'sudo sysctl net.core.busy_read'" in n and "is not read" in n for n in notes)
    assert any("'sudo sysctl net.core.busy_poll'" in n and "is not read" in n for n in notes)
