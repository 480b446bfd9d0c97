"""ESXi inventory parsers (esxcli network nic *, esxcfg-nics -l/-e, lspci -p/-n/-v, vmkchdev -l,
esxcli hardware pci list, vmware -vl, esxcli software vib list, flint q) on the real captures in
shared/fixtures/captures (and one vm-support bundle member), dispatched through the registry.

Every expected value below was read in the named capture file."""
from __future__ import annotations

import pytest

from capturetools import CAPTURES, FIXTURES, merged, parse_capture

from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.registry import families, parse_output, parsers_for, split_commands


def one(name: str, family: str):
    """The single ParseResult of ``family`` for capture ``name`` (asserting the registry picked it)."""
    results = [r for r in parse_capture(name) if r.family == family]
    assert len(results) == 1, [r.family for r in parse_capture(name)]
    return results[0]


def pnics(name: str):
    return merged(parse_capture(name))[0]


# --- registry ---------------------------------------------------------------------------------------------

def test_families_registered():
    fams = set(families())
    for fam in ("esxcli network nic list", "esxcli network nic get", "esxcli network nic tso get",
                "esxcli network nic ring current get", "esxcli network nic ring preset get",
                "esxcli network nic stats get", "esxcli network nic pauseParams list", "esxcfg-nics -l",
                "esxcfg-nics -e", "lspci -p", "lspci -n", "lspci -v", "vmkchdev -l", "esxcli hardware pci list",
                "vmware -vl", "esxcli software vib list", "flint q"):
        assert fam in fams


@pytest.mark.parametrize("name,expected", [
    ("esxi_g_esxcfg-nics_-l_and_esxcli_hardware_pci_list_ionic_en_esxi67_pensando-guide.txt",
     ["esxcfg-nics -l", "esxcli hardware pci list"]),
    ("esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_esxi41_elatov.txt", ["esxcfg-nics -l", "vmkchdev -l", "vmware -vl"]),
    ("unattributed_esxi703_nic_list_x722_connectx4lx_vmkchdev.txt",
     ["esxcli network nic list", "vmkchdev -l", "esxcli network nic get"]),
    ("unattributed_esxi9_nested_nvmxnet3_nic_list_get.txt", ["esxcli network nic list", "esxcli network nic get"]),
    ("esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt", ["esxcli network nic list"]),
    ("esxi_g_lspci_-p_vmkvsitools_header_igbn_atlantic-nodriver_esxi702_skyao.txt", ["lspci -p"]),
    ("esxi_lspci-v_aquantia_aqc108_shows_no_pcie_caps.txt", ["lspci -v"]),
    ("unattributed_smtx_esxi_flint_q_connectx4lx_fw14.22.txt", ["flint q"]),
])
def test_multi_command_dispatch(name, expected):
    assert [r.family for r in parse_capture(name)] == expected


# --- esxcli network nic list ------------------------------------------------------------------------------

def test_nic_list_x550_e810_100g():
    p = pnics("esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt")
    assert sorted(p) == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
    assert p["vmnic0"] == {
        "pci_address": "0000:18:00.0", "is_physical": True, "driver": "ixgben", "admin_up": True, "link_up": True,
        "link_speed_mbps": 1000, "duplex": "full", "mtu": 1500, "description": "Intel(R) Ethernet Controller X550",
    }  # MAC 00:00:00:00:00:00 (anonymised) is not a value
    assert p["vmnic1"]["link_up"] is False
    assert "link_speed_mbps" not in p["vmnic1"] and "duplex" not in p["vmnic1"]  # "Down 0 Half"
    assert p["vmnic2"]["link_speed_mbps"] == 100000
    assert p["vmnic3"]["description"] == "Intel(R) Ethernet Controller E810-C for QSFP"
    assert p["vmnic3"]["driver"] == "icen"


def test_nic_list_igbn_esxi702():
    p = pnics("esxi_g_esxcli_network_nic_list_igbn_esxi702_skyao.txt")
    assert sorted(p) == ["vmnic0", "vmnic1"]
    assert p["vmnic1"]["pci_address"] == "0000:05:00.0"
    assert p["vmnic1"]["mac"] == "04:d4:c4:5a:e2:77"
    assert p["vmnic0"]["description"] == "Intel Corporation I210 Gigabit Network Connection"


def test_nic_list_pseudo_usb_nic_is_not_physical():
    p = pnics("esxi_g_esxcli_network_nic_list_ne1000_r8152_esxi65_elatov.txt")
    assert p["vmnic0"]["pci_address"] == "0000:00:1f.6"
    assert p["vmnic0"]["driver"] == "ne1000"
    assert p["vmnic0"]["description"] == "Intel Corporation Ethernet Connection (2) I219-V"
    assert "mac" not in p["vmnic0"]  # masked 70:5a:0f:XX:XX:XX
    v32 = p["vmnic32"]
    assert v32["is_physical"] is False and "pci_address" not in v32
    assert v32["driver"] == "r8152" and v32["mtu"] == 9000 and v32["link_speed_mbps"] == 1000
    assert "description" not in v32  # "Unknown Unknown"


def test_nic_list_tab_indented_tg3_ixgbe():
    p = pnics("esxi_g_esxcli_network_nic_list_tg3_ixgbe_esxi60_elatov.txt")
    assert p["vmnic0"]["driver"] == "tg3"
    assert p["vmnic0"]["description"] == "Broadcom Corporation NetXtreme BCM57766 Gigabit Ethernet"
    assert p["vmnic1"]["pci_address"] == "0000:09:00.0"
    assert p["vmnic1"]["mtu"] == 9000 and p["vmnic1"]["link_speed_mbps"] == 10000
    assert p["vmnic1"]["mac"] == "00:30:93:0c:05:c6"


def test_nic_list_powercli_records():
    p = pnics("esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt")
    assert sorted(p) == ["vmnic0", "vmnic1", "vmnic4", "vmnic5"]
    assert p["vmnic4"] == {
        "pci_address": "0000:04:00.4", "is_physical": True, "driver": "bnx2x", "admin_up": True, "link_up": True,
        "link_speed_mbps": 10000, "duplex": "full", "mac": "fc:15:b4:15:14:62", "mtu": 1500,
        "description": "Broadcom Corporation QLogic 57810 10 Gigabit Ethernet Adapter",
    }


def test_nic_list_bcm5720_ocp3_link_down():
    p = pnics("unattributed_esxi_esxcli_nic_list_bcm5720_ntg3_bnxtnet_ocp3_25g.txt")
    assert len(p) == 6
    assert p["vmnic0"]["driver"] == "ntg3" and p["vmnic0"]["link_up"] is False
    assert "link_speed_mbps" not in p["vmnic0"]
    assert p["vmnic2"]["link_speed_mbps"] == 25000
    assert p["vmnic2"]["description"] == "Broadcom NetXtreme E-Series Dual-port 25Gb SFP28 Ethernet OCP 3.0 Adapter"
    assert p["vmnic5"]["pci_address"] == "0000:c4:00.1" and p["vmnic5"]["mac"] == "14:23:f3:f5:21:51"


def test_nic_list_respaced_single_space_columns():
    p = pnics("unattributed_smtx_esxi_esxcli_nic_list_connectx5ex_100g_i350_respaced.txt")
    assert p["vmnic2"]["driver"] == "nmlx5_core"
    assert p["vmnic2"]["link_speed_mbps"] == 100000
    assert p["vmnic2"]["description"] == "Mellanox Technologies MT28800 Family [ConnectX-5 Ex]"
    assert p["vmnic3"]["link_up"] is False and "link_speed_mbps" not in p["vmnic3"]
    assert p["vmnic0"]["pci_address"] == "0000:81:00.0" and p["vmnic0"]["mac"] == "0c:c4:7a:e3:5c:20"


def test_nic_list_and_vmkchdev_and_get_x722_connectx4lx():
    name = "unattributed_esxi703_nic_list_x722_connectx4lx_vmkchdev.txt"
    lst = one(name, "esxcli network nic list").pnics
    assert sorted(lst) == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
    assert lst["vmnic2"]["link_speed_mbps"].value == 10000  # 25GbE ConnectX-4 Lx negotiated at 10G
    assert lst["vmnic2"]["description"].value.endswith("(MCX4121A-ACA)")
    chdev = one(name, "vmkchdev -l").pnics
    assert {k: (v["vid"].value, v["did"].value, v["svid"].value, v["ssid"].value) for k, v in chdev.items()} == {
        "vmnic0": ("8086", "37d1", "15d9", "37d1"), "vmnic1": ("8086", "37d1", "15d9", "37d1"),
        "vmnic2": ("15b3", "1015", "15b3", "0003"), "vmnic3": ("15b3", "1015", "15b3", "0003"),
    }
    assert chdev["vmnic2"]["pci_address"].value == "0000:5e:00.0"
    get = one(name, "esxcli network nic get").pnics
    assert list(get) == ["vmnic3"]  # the table rows above are not nic get keys
    assert get["vmnic3"]["pci_address"].value == "0000:5e:00.1"
    assert get["vmnic3"]["driver"].value == "nmlx5_core"
    assert get["vmnic3"]["firmware_version"].value == "14.30.1004"
    assert get["vmnic3"]["driver_version"].value == "4.21.71.101"


def test_nic_list_and_get_nested_esxi9_vmxnet3():
    p = pnics("unattributed_esxi9_nested_nvmxnet3_nic_list_get.txt")
    v = p["vmnic0"]
    assert v["driver"] == "nvmxnet3" and v["is_virtual_uplink"] is True
    assert v["pci_address"] == "0000:02:01.0" and v["mac"] == "00:50:56:b3:b9:89"
    assert v["driver_version"] == "2.0.0.31" and v["firmware_version"] == "7"
    rec = one("unattributed_esxi9_nested_nvmxnet3_nic_list_get.txt", "esxcli network nic get").records[0]
    assert rec["fields"]["Backing DPUId"] == "N/A" and rec["fields"]["Virtual Address"] == "00:50:56:5f:1b:e1"


# --- esxcli network nic get -------------------------------------------------------------------------------

def test_nic_get_i40en_link_down():
    r = one("esxi_esxcli_nic_get_i40en_x710_fw7.10.txt", "esxcli network nic get")
    v = {k: f.value for k, f in r.pnics["vmnic0"].items()}
    assert v == {"pci_address": "0000:19:00.0", "is_physical": True, "driver": "i40en", "driver_version": "1.8.6",
                 "firmware_version": "7.10 0x800075e5 19.5.12", "link_up": False,
                 "link_speed_max_mbps": 10000}  # the fastest advertised link mode (10000BaseX/Full)
    assert r.pnics["vmnic0"]["firmware_version"].line.strip() == "Firmware Version: 7.10 0x800075e5 19.5.12"
    assert r.records[0]["fields"]["Advertised Link Modes"] == "Auto, 1000BaseX/Full, 10000BaseX/Full"
    assert "mac" not in v  # "Virtual Address" is the VMkernel's virtual MAC


def test_nic_get_flattened_bnx2x():
    p = pnics("esxi_esxcli_nic_get_bnx2x_qlogic57810_flattened.txt")
    assert p["vmnic4"] == {"pci_address": "0000:05:00.0", "is_physical": True, "driver": "bnx2x",
                           "driver_version": "2.713.10.v60.4", "firmware_version": "bc 7.13.75", "link_up": True,
                           "link_speed_max_mbps": 10000}


def test_nic_get_ixgben_nbaset():
    r = one("esxi_esxcli_nic_get_ixgben_x550_10gbaset_nbaset.txt", "esxcli network nic get")
    v = {k: f.value for k, f in r.pnics["vmnic0"].items()}
    assert v["firmware_version"] == "1.55 0x80000a42, 1.1767.0"
    assert v["driver_version"] == "1.12.3.0" and v["pci_address"] == "0000:18:00.0" and v["link_up"] is True
    assert r.records[0]["fields"]["Cable Type"] == "Twisted Pair"
    assert r.records[0]["fields"]["Pause RX"] == "true"


def test_nic_get_ne1000_tab_indented():
    p = pnics("esxi_g_esxcli_network_nic_get_ne1000_esxi65u1_elatov.txt")
    assert p["vmnic0"]["pci_address"] == "0000:00:1f.6"
    assert p["vmnic0"]["driver"] == "ne1000" and p["vmnic0"]["driver_version"] == "0.8.0"
    assert p["vmnic0"]["firmware_version"] == "0.8-4"


def test_nic_get_bnx2x_with_prose_and_vib_grep():
    name = "esxi_g_esxcli_network_nic_get_and_module_parameters_list_bnx2x_esxi60_pasek.txt"
    get = one(name, "esxcli network nic get")
    assert list(get.pnics) == ["vmnic4"]
    assert get.pnics["vmnic4"]["firmware_version"].value == "bc 7.13.75"
    assert get.pnics["vmnic4"]["link_up"].value is True  # "Link Status: Up " (trailing space)
    vib = one(name, "esxcli software vib list")
    assert vib.records == [{"family": "esxcli software vib list", "vib": "net-bnx2x",
                            "version": "2.713.10.v60.4-1OEM.600.0.0.2494585", "vendor": "QLogic",
                            "acceptance": "VMwareCertified", "install_date": "2017-05-10"}]
    assert vib.modules == {}  # "net-bnx2x" is not a driver name


def test_nic_get_error_answer_is_a_note():
    # The capture holds only esxcli's error answer (despite its file name).
    r = one("esxi_esxcli_nic_get_igbn_i350_1g.txt", "esxcli network nic get")
    assert not r.understood
    assert any("Vmnic specified doesn't exist" in n for n in r.notes)


# --- tso / ring / stats / pauseParams ---------------------------------------------------------------------

def test_tso_get_single_nic_with_prompts():
    p = pnics("esxi_g_esxcli_network_nic_tso_get_-n_vmnic1_esxi60_sio4.txt")
    assert p == {"vmnic1": {"tso": True}}


def test_tso_get_all_nics():
    p = pnics("esxi_g_esxcli_network_nic_tso_get_ne1000_r8152_esxi65u1_elatov.txt")
    assert p == {"vmnic0": {"tso": False}, "vmnic32": {"tso": False}}


def test_ring_current_sets_ring_sizes():
    r = one("esxi_g_esxcli_network_nic_ring_current_get_i40en_intel-mfd.txt", "esxcli network nic ring current get")
    assert {k: f.value for k, f in r.pnics["vmnic1"].items()} == {"rx_ring_size": 1024, "tx_ring_size": 1024}
    assert r.records[0]["fields"] == {"RX": 1024, "RX Mini": 0, "RX Jumbo": 0, "TX": 1024}


def test_ring_preset_is_records_only():
    r = one("esxi_g_esxcli_network_nic_ring_preset_get_i40en_intel-mfd.txt", "esxcli network nic ring preset get")
    assert r.pnics == {}
    assert r.records == [{"family": "esxcli network nic ring preset get", "nic": "vmnic1",
                          "fields": {"Max RX": 4096, "Max RX Mini": 0, "Max RX Jumbo": 0, "Max TX": 4096}}]


def test_stats_get_records():
    r = one("esxi_esxcli_nic_stats_get.txt", "esxcli network nic stats get")
    assert r.understood and r.pnics == {}
    rec = r.records[0]
    assert rec["nic"] == "vmnic9"
    assert rec["fields"]["Bytes received"] == 5271156 and rec["fields"]["Bytes sent"] == 39259722
    assert rec["fields"]["Broadcast packets sent"] == 98241 and rec["fields"]["Transmit window errors"] == 0
    assert len(rec["fields"]) == 23


def test_pause_params_records():
    r = one("unattributed_smtx_esxi_esxcli_nic_pauseParams_list.txt", "esxcli network nic pauseParams list")
    assert [rec["nic"] for rec in r.records] == ["vmnic1", "vmnic2"]
    assert r.records[0]["fields"] == {
        "Pause Params Supported": True, "Pause RX": True, "Pause TX": True, "Auto Negotiation": False,
        "Auto Negotiation Resolution Avail": False, "RX Auto Negotiation Resolution": False,
        "TX Auto Negotiation Resolution": False,
    }


# --- esxcfg-nics -l / -e ----------------------------------------------------------------------------------

def test_esxcfg_nics_l_dedent_shifted_rows():
    p = pnics("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt")
    assert len(p) == 16
    assert p["vmnic0"]["pci_address"] == "0000:4b:00.0" and p["vmnic0"]["link_speed_mbps"] == 25000
    assert p["vmnic0"]["description"] == "Intel(R) Ethernet Controller E810-C for SFP"
    assert p["vmnic14"]["driver"] == "bnxtnet" and p["vmnic14"]["link_up"] is False
    assert "link_speed_mbps" not in p["vmnic14"]  # "Down 0Mbps Half"
    assert p["vmnic10"]["description"] == "Intel(R) Ethernet Controller X710 for 10GbE SFP+"
    assert p["vmnic9"]["mtu"] == 1500 and p["vmnic8"]["driver"] == "ixgben"


def test_esxcfg_nics_l_connectx5_esxi703():
    p = pnics("esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt")
    assert p["vmnic1"] == {
        "pci_address": "0000:0f:00.1", "is_physical": True, "driver": "nmlx5_core", "link_up": True,
        "link_speed_mbps": 25000, "duplex": "full", "mac": "88:e9:a4:6b:b8:55", "mtu": 1500,
        "description": "Mellanox Technologies MT27800 Family [ConnectX-5]",
    }


def test_esxcfg_nics_l_nested_vmxnet3_mixed_mtu():
    p = pnics("esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt")
    assert {k: v["mtu"] for k, v in p.items()} == {
        "vmnic0": 9000, "vmnic1": 1500, "vmnic2": 1500, "vmnic3": 9000, "vmnic4": 9000, "vmnic5": 9000}
    assert all(v["is_virtual_uplink"] is True and v["driver"] == "nvmxnet3" for v in p.values())
    assert p["vmnic5"]["pci_address"] == "0000:02:07.0"


def test_esxcfg_nics_l_grep_wrapped_line():
    r = one("esxi_esxcfg-nics-l_xl710_mtu9000_vmnic5_seed.txt", "esxcfg-nics -l")
    v = {k: f.value for k, f in r.pnics["vmnic5"].items()}
    assert v == {"pci_address": "0000:84:00.0", "is_physical": True, "driver": "i40en", "link_up": True,
                 "link_speed_mbps": 40000, "duplex": "full", "mac": "3c:fd:fe:9d:2b:d0", "mtu": 9000,
                 "description": "Intel Corporation Ethernet Controller XL710 for 40GbE QSFP+"}


def test_esxcfg_nics_l_smtx_ocp():
    p = pnics("unattributed_smtx_esxi_esxcfg-nics-l_connectx4lx_ocp_mcx4421a_i350.txt")
    assert sorted(p) == ["vmnic1", "vmnic2", "vmnic3", "vmnic4"]
    assert p["vmnic2"]["description"] == (
        "Mellanox Technologies ConnectX-4 Lx EN NIC; OCP; 25GbE; dual-port SFP28; (MCX4421A-ACQ)")
    assert p["vmnic3"]["driver"] == "igbn" and p["vmnic3"]["link_speed_mbps"] == 1000
    assert p["vmnic4"]["link_up"] is False and "link_speed_mbps" not in p["vmnic4"]


def test_esxcfg_nics_l_and_hardware_pci_list_pensando():
    name = "esxi_g_esxcfg-nics_-l_and_esxcli_hardware_pci_list_ionic_en_esxi67_pensando-guide.txt"
    nics = one(name, "esxcfg-nics -l").pnics
    assert sorted(nics) == ["vmnic0", "vmnic1", "vmnic2", "vmnic3", "vmnic4"]
    assert nics["vmnic2"]["driver"].value == "ionic_en" and nics["vmnic2"]["link_speed_mbps"].value == 100000
    assert nics["vmnic4"]["description"].value == "Pensando Systems, Inc Pensando Ethernet Management"
    assert nics["vmnic1"]["pci_address"].value == "0000:65:00.1"
    pci = one(name, "esxcli hardware pci list")
    # the guide's single pci record names vmnic1 at bus 03 (another moment/host than the table above)
    v = {k: f.value for k, f in pci.pnics["vmnic1"].items()}
    assert v == {"pci_address": "0000:03:00.0", "is_physical": True, "vid": "1dd8", "did": "1002", "svid": "1dd8",
                 "ssid": "4001", "driver": "ionic_en", "description": "Pensando Systems, Inc Pensando Ethernet PF"}
    assert pci.records[0]["fields"]["Passthru Capable"] is False
    assert pci.records[0]["fields"]["Parent Device"] == "PCI 0:2:0:0"


def test_esxcfg_nics_l_grep_flattened_esx41_with_vmkchdev():
    name = "esxi_g_esxcfg-nics_-l_grep_and_vmware_-lv_esxi41_elatov.txt"
    nics = one(name, "esxcfg-nics -l").pnics["vmnic7"]
    assert {k: f.value for k, f in nics.items()} == {
        "driver": "ixgbe", "link_up": True, "link_speed_mbps": 10000, "duplex": "full",
        "description": "Intel Corporation Ethernet X520 10GbE Dual Port KX4-KR Mezz"}  # no PCI column as rendered
    chdev = {k: f.value for k, f in one(name, "vmkchdev -l").pnics["vmnic7"].items()}
    assert chdev == {"pci_address": "0000:02:00.0", "is_physical": True, "vid": "8086", "did": "10f8",
                     "svid": "8086", "ssid": "000c"}
    version = one(name, "vmware -vl")  # the capture ends before the vmware -lv output
    assert not version.understood and version.notes


def test_esxcfg_nics_e_ens_capability():
    p = pnics("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt")
    assert len(p) == 10
    assert p["vmnic0"] == {"driver": "igbn", "ens_capable": False, "ens_enabled": False,
                           "ens_interrupt_capable": False, "ens_mode": "standard"}
    assert p["vmnic4"] == {"driver": "ixgben", "ens_capable": True, "ens_enabled": True,
                           "ens_interrupt_capable": False, "ens_mode": "ens"}
    assert p["vmnic5"]["ens_enabled"] is False and p["vmnic5"]["ens_mode"] == "standard"
    assert p["vmnic6"]["ens_interrupt_capable"] is True and p["vmnic6"]["driver"] == "i40en"
    r = one("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt", "esxcfg-nics -e")
    assert [rec["fields"]["INTR Enabled"] for rec in r.records][6:8] == [True, False]


# --- lspci / vmkchdev -------------------------------------------------------------------------------------

def test_lspci_p_driverless_aqtion():
    p = pnics("esxi_g_lspci_-p_vmkvsitools_header_igbn_atlantic-nodriver_esxi702_skyao.txt")
    assert p["vmnic0"] == {"pci_address": "0000:04:00.0", "is_physical": True, "vid": "8086", "did": "1533",
                           "svid": "1043", "ssid": "8557", "driver": "igbn"}
    assert p["vmnic2"] == {"pci_address": "0000:06:00.0", "is_physical": True, "vid": "1d6a", "did": "d108",
                           "svid": "1d6a", "ssid": "0001"}  # empty Module column: no driver


def test_lspci_n_class0200_and_vfs():
    r = one("esxi_lspci-n_class0200_mixed_i350_e810_bcm57416_82599_x710.txt", "lspci -n")
    assert len(r.pnics) == 16
    v = {k: f.value for k, f in r.pnics["vmnic14"].items()}
    assert v == {"pci_address": "0000:98:00.0", "is_physical": True, "vid": "14e4", "did": "16d8"}
    assert r.pnics["vmnic0"]["did"].value == "1593" and r.pnics["vmnic13"]["pci_address"].value == "0000:ca:00.3"
    assert [rec["vf"] for rec in r.records] == ["PF_0.202.0_VF_0", "PF_0.202.0_VF_1", "PF_0.202.1_VF_0",
                                               "PF_0.202.1_VF_1"]
    assert r.records[2]["pci"] == "0000:cb:00.0" and r.records[2]["did"] == "154c"


def test_lspci_v_grep_vmnic():
    p = pnics("esxi_g_lspci_-v_grep_vmnic_esxi702_skyao.txt")
    assert p["vmnic2"] == {"pci_address": "0000:06:00.0", "is_physical": True,
                           "description": "Marvell AQtion 5Gbit Network Adapter"}
    assert p["vmnic0"]["description"] == "Intel Corporation I210 Gigabit Network Connection"


def test_lspci_v_aquantia_class_line():
    p = pnics("esxi_lspci-v_aquantia_aqc108_shows_no_pcie_caps.txt")
    assert p == {"vmnic1": {
        "pci_address": "0000:04:00.0", "is_physical": True, "vid": "1d6a", "did": "d108",
        "description": "Aquantia Corp. AQC108 NBase-T/IEEE 802.3bz Ethernet Controller [AQtion]"}}
    assert "pcie_speed_gts" not in p["vmnic1"]  # ESXi lspci -v prints no PCIe caps


# --- vmware -vl / vib list / flint ------------------------------------------------------------------------

def test_vmware_vl_from_vm_support_bundle():
    cap = read_capture(FIXTURES / "vm-support" / "bundle_commands_vmware_-vl.txt_esxi510_elatov.txt")
    (r,) = parse_output("vmware -vl", cap.text)
    assert {k: f.value for k, f in r.host.items()} == {"product_version": "5.1.0", "build": "799733", "kind": "esxi",
                                                       "product_update": "GA"}
    assert r.records == [{"family": "vmware -vl", "fields": {"version": "5.1.0", "level": "GA"}}]
    (r2,) = parse_output("vmware -lv", cap.text)
    assert r2.host["build"].value == "799733"


def test_vib_list_driver_vibs_become_module_versions():
    r = one("esxi_esxcli_software_vib_list_ixgben_atlantic.txt", "esxcli software vib list")
    assert [rec["vib"] for rec in r.records] == ["ixgben", "itp_tools", "atlantic"]
    assert r.records[1] == {"family": "esxcli software vib list", "vib": "itp_tools", "version": "2.0.8",
                            "vendor": "Intel", "acceptance": "VMwareCertified", "install_date": "2023-05-05"}
    assert {k: v["version"].value for k, v in r.modules.items()} == {
        "ixgben": "1.12.3.0-1OEM.700.1.0.15843807", "atlantic": "1.0.3.0-8vmw.703.0.20.19193900"}


def test_flint_query_firmware_by_pci_address():
    r = one("unattributed_smtx_esxi_flint_q_connectx4lx_fw14.22.txt", "flint q")
    assert {k: {f: x.value for f, x in v.items()} for k, v in r.pnics.items()} == {
        "pci:0000:18:00.0": {"firmware_version": "14.22.1002"}}
    fields = r.records[0]["fields"]
    assert fields["PSID"] == "MT_2420110034" and fields["Orig PSID"] == "HUA0000000001"
    assert fields["Rom Info"] == "type=UEFI version=14.15.19 cpu=AMD64,AARCH64; type=PXE version=3.5.403 cpu=AMD64"


# --- robustness -------------------------------------------------------------------------------------------

_MINE = ["esxcli network nic list", "esxcli network nic get -n vmnic0", "esxcli network nic tso get",
         "esxcli network nic ring current get -n vmnic0", "esxcli network nic ring preset get -n vmnic0",
         "esxcli network nic stats get -n vmnic0", "esxcli network nic pauseParams list", "esxcfg-nics -l",
         "esxcfg-nics -l | grep vmnic5", "esxcfg-nics -e", "lspci -p", "lspci -n", "lspci -v", "vmkchdev -l",
         "esxcli hardware pci list", "vmware -vl", "esxcli software vib list", "flint -d 0000:18:00.0 q"]


@pytest.mark.parametrize("command", _MINE)
def test_other_outputs_never_raise_nor_give_facts(command):
    """Every capture fed to these parsers: no exception; and no fact is invented from another command's
    output (the parsers pick their own table/block out of multi-command text)."""
    for path in sorted(CAPTURES.glob("*.txt")):
        cap = read_capture(path)
        own = {fam for c in split_commands(cap.command) for fam, _fn in parsers_for(c)[:1]}
        for r in parse_output(command, cap.text):
            assert not any("failed on" in n for n in r.notes), (path.name, r.notes)
            if r.family not in own:
                assert not r.understood, (path.name, r.family)
