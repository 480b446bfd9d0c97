"""Every rule on facts from real captures (issue 8 §4): where a real capture (a file of ../shared/fixtures/captures or
of tests/parsers/captures, audited alone as one host folder, or a host of the bundled demo lab) makes a rule fire, that
is its positive test; where a real capture holds the facts the rule reads for another object and the rule stays
silent, that is its negative test. Rules no real capture can fire are listed with why, so that a new rule must be
placed in one of the lists."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from capturetools import capture_path
from nicadvisor.rules_engine import load_rules
from nicadvisor.services.audit import AuditRequest, run_audit

#: rule → (capture that fires it, the target it fires on; "DEMO" = the bundled demo lab)
POSITIVE = {
    "coalescing-on": ("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt", "h/vmnic1000202"),
    "ens-capable-not-enabled": ("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt", "h/vmnic5"),
    "fabric-mtu-for-overlay": ("DEMO", "esxi-sio4-nsxv/vDS-C-Transport"),
    "legacy-vmklinux-driver": ("esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt", "h/vmnic0"),
    "link-below-10g": ("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt", "h/vmnic4"),
    "link-below-rated-speed": ("DEMO", "esxi-h0062-x722-cx4lx/vmnic3"),
    "linux-coalescing-on": ("linux_ethtool-c_ice_e810_static_itr_flattened.txt", "h/em1"),
    "linux-pnic-mtu-below-1600": ("linux_ip-l_x550t_ixgbe_enp5s0f0_mtu1500.txt", "h/enp5s0f0"),
    # the only public Linux capture of a pNIC at 1600-1699 bytes; its repository is unknown (see its header)
    "linux-pnic-mtu-below-1700": ("unattributed_linux_ip-a_grep_ethtool-i_ixgbe_82599_ovs_mtu1600_node-1.txt",
                                  "h/enp59s0f0"),
    "no-geneve-offload": ("linux_ethtool-k_grep_seg_e1000e_eno1_no_udp_tnl_systemd6854.txt", "h/eno1"),
    "no-geneve-rx-filter": ("linux_ethtool-k_igb_enp2s0.txt", "h/enp2s0"),
    "not-ens-capable": ("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt", "h/vmnic0"),
    "pcie-link-downgraded": ("linux_dmesg_fm10k_pcie_limited_x4_of_x8_renamed_enp2s0.txt", "h/enp2s0"),
    "pnic-link-down": ("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt", "h/vmnic14"),
    "pnic-mtu-below-1600": ("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt", "h/vmnic0"),
    "pnic-mtu-below-1700": ("nsx_edge_cli_get_physical-ports_vmxnet3_pmd_flattened.txt", "h/fp-eth1"),
    "pnic-mtu-not-jumbo": ("linux_ip-a-s_eno3np2_connectx5_mtu4200_spiderpool_doc.txt", "h/eno3np2"),
    "single-rx-queue": ("nsx_edge_cli_get_physical-ports_vmxnet3_pmd_flattened.txt", "h/fp-eth0"),
    "switch-mtu-below-1600": ("esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt", "h/vSwitch0"),
    "switch-mtu-below-1700": ("esxi_g_esxcfg-vswitch_-l_vss_and_dvs_esxi60_sio4.txt", "h/vDS-C-Transport"),
    "switch-mtu-below-1700-no-tep": ("DEMO", "esxi-sio4-nsxv/DSwitch"),
    "tep-mtu-below-1700": ("esxi_g_esxcfg-vmknic_-l_netstack_esxi60_sio4.txt", "h/vmk2"),
    # 'tcp-segmentation-offload: off' on an e1000e port (issue 28 §1: TSO off on a sender is named as a finding)
    "tso-off": ("linux_ethtool-k_grep_seg_e1000e_eno1_no_udp_tnl_systemd6854.txt", "h/eno1"),
    # 'tcp-segmentation-offload: off [fixed]' of a hi3531-dwmac (stmmac) port: never told to run ethtool -K (issue 26)
    "tso-off-fixed": ("linux_ethtool-k_eth0_tso_off_fixed_hi3531-dwmac_stmmac_excerpt.txt", "h/eth0"),
    "virtual-uplink-offload": ("esxi_api_govc_dump_pcidevice_vmxnet3.txt", "h/pci:0000:0b:00.0"),
}
#: More real captures that fire a rule of POSITIVE through another parser: (rule, capture, target).
ALSO_POSITIVE = [
    # lspci -vv 'LnkSta: ... Width x4 (downgraded)' against 'LnkCap: ... Width x8' (POSITIVE reads a dmesg line)
    ("pcie-link-downgraded", "linux_lspci-vvs_connectx4lx_mcx4121a_gen3_x4_of_x8_downgraded.txt", "h/pci:0000:08:00.0"),
]
#: rule → (capture holding the facts the rule reads for this target, on which the rule does not fire)
NEGATIVE = {
    "coalescing-on": ("linux_ethtool-c_ice_e810_static_itr_flattened.txt", "h/em1"),
    "ens-capable-not-enabled": ("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt", "h/vmnic0"),
    "fabric-mtu-for-overlay": ("DEMO", "esxi-sio4-nsxv/DSwitch"),  # carries no TEP
    "legacy-vmklinux-driver": ("esxi_api_ansible_vmnic_info_xxv710_i40en_25g_partial.txt", "h/vmnic6"),
    "link-below-10g": ("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt", "h/vmnic0"),
    # a 10 GbE X550 port at 10 Gbit/s, advertising nothing faster
    "link-below-rated-speed": ("esxi_esxcli_nic_get_ixgben_x550_10gbaset_nbaset.txt", "h/vmnic0"),
    "linux-coalescing-on": ("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt", "h/vmnic2"),
    "linux-pnic-mtu-below-1600": ("linux_ip-a-s_eno3np2_connectx5_mtu4200_spiderpool_doc.txt", "h/eno3np2"),
    "linux-pnic-mtu-below-1700": ("linux_ip-l_x550t_ixgbe_enp5s0f0_mtu1500.txt", "h/enp5s0f0"),  # 1500: the 1600 rule
    "no-geneve-offload": ("nsx_edge_cli_get_physical-ports_vmxnet3_pmd_flattened.txt", "h/fp-eth0"),  # virtual uplink
    "no-geneve-rx-filter": ("esxi_api_ansible_vmnic_info_xxv710_i40en_25g_partial.txt", "h/vmnic6"),
    "tso-off": ("linux_ethtool-k_igb_enp2s0.txt", "h/enp2s0"),  # 'tcp-segmentation-offload: on'
    # 'tcp-segmentation-offload: off' without [fixed]: TSO can be turned on (the tso-off rule's case)
    "tso-off-fixed": ("linux_ethtool-k_grep_seg_e1000e_eno1_no_udp_tnl_systemd6854.txt", "h/eno1"),
    "not-ens-capable": ("esxi_esxcfg-nics-e_ens_capability_igbn_ixgben_i40en.txt", "h/vmnic4"),
    # the sibling host interface of the same card, at its full Gen3 x8
    "pcie-link-downgraded": ("linux_dmesg_fm10k_pcie_limited_x4_of_x8_renamed_enp2s0.txt", "h/enp1s0"),
    "pnic-link-down": ("esxi_esxcfg-nics-l_e810_x710_bcm57416_i350_82599.txt", "h/vmnic0"),
    "pnic-mtu-below-1600": ("esxi_esxcfg-nics-l_nvmxnet3_nested_mixed_mtu.txt", "h/vmnic0"),
    "pnic-mtu-below-1700": ("nsx_edge_cli_get_physical-ports_vmxnet3_pmd_flattened.txt", "h/fp-eth0"),
    "pnic-mtu-not-jumbo": ("linux_ip-l_x550t_ixgbe_enp5s0f0_mtu1500.txt", "h/enp5s0f0"),
    "single-rx-queue": ("esxi_localcli_networkinternal_nic_privstats_32q.txt", "h/vmnic1"),
    "switch-mtu-below-1600": ("esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt", "h/DSwitch_063LongName"),
    "switch-mtu-below-1700": ("esxi_g_esxcfg-vswitch_-l_vss_and_dvs_esxi60_sio4.txt", "h/vSwitch0"),
}
#: Rules no single real capture nor demo host makes fire, and where they are proven instead.
ELSEWHERE = {
    "nsx-ens-mode-pnic-not-ens-capable": "the real NSX Manager API answers of ../shared/fixtures/nsx-api (tests/nsx)",
    "nsx-ens-interrupt-pnic-not-interrupt-capable": "the real NSX Manager API answers (tests/nsx)",
    "nsx-ens-mode-not-realized": "the real NSX Manager API answers (tests/nsx)",
    "switch-mtu-above-pnic-mtu": "the real NSX Manager API answers (tests/nsx)",
    "mtu-path-test-failed": "no public capture of a don't-fragment ping on the TEP netstack whose frame of at most "
                            "1600 bytes could not leave or cross (the only local error on record is on the default "
                            "netstack, which says nothing about the TEP path): tests/rules/test_rules.py",
    "mtu-path-test-failed-linux": "a real ping -M do between namespace hosts over SSH (tests/bench/test_bench_remote.py)",
    "ens-mode-for-general-workloads": "no public capture of a VDS/N-VDS in Enhanced Datapath mode: facts set in tests",
    "vds-ipfix-enabled": "no public capture of a VDS with IPFIX on (vSphere API or net-dvs): facts set in tests",
    "uplink-link-down": "no public capture of a switch uplink without link: facts set in tests",
    "tep-mtu-below-1600": "no public capture of a TEP vmknic below 1600 bytes (the code index's esxcfg-vmknic -l "
                          "vxlan rows are at 1600 and 1700): facts set in tests",
    "no-rx-filter-no-rss": "no public capture of a physical pNIC read without both (no ethtool -k with "
                           "rx-udp_tunnel-port-offload off beside an ethtool -x of one RX ring): facts set in tests",
    "no-rss": "no public capture of a physical pNIC read without RSS (public ethtool -x outputs of one RX ring are "
              "of virtio_net; vsish rxqueues info only with RSS): facts set in tests",
    "pcie-budget-below-line-rate": "no public capture gives a NIC's PCIe link, its port speed and the PCI address "
                                   "tying them together (the downgraded ConnectX-4 Lx lspci of tests/parsers/captures "
                                   "has no ethtool speed): facts set in tests",
    "single-tep-with-spare-uplinks": "no public capture of a host with one TEP and spare uplinks: facts set in tests",
}
_AUDITS: dict[str, object] = {}
#: The project's own real captures (public outputs kept verbatim with their source in the header).
LOCAL_CAPTURES = Path(__file__).resolve().parents[1] / "parsers" / "captures"


def _capture(source: str) -> Path:
    """A real capture of tests/parsers/captures, else of ../shared/fixtures/captures."""
    local = LOCAL_CAPTURES / source
    return local if local.exists() else capture_path(source)


def _audit(source: str, tmp_path_factory):
    if source not in _AUDITS:
        if source == "DEMO":
            _AUDITS[source] = run_audit(AuditRequest(demo=True))
        else:
            folder = tmp_path_factory.mktemp("rulecase") / "h"
            folder.mkdir()
            shutil.copy(_capture(source), folder / source)  # byte-identical: the real capture, alone
            _AUDITS[source] = run_audit(AuditRequest(capture_paths=(str(folder),)))
    return _AUDITS[source]


@pytest.mark.parametrize("rule_id", sorted(POSITIVE))
def test_the_rule_fires_on_a_real_capture(rule_id, tmp_path_factory):
    source, target = POSITIVE[rule_id]
    audit = _audit(source, tmp_path_factory)
    assert [f for f in audit.findings if f.rule_id == rule_id and f.target == target], (rule_id, source, target)


@pytest.mark.parametrize("rule_id, source, target", ALSO_POSITIVE)
def test_the_rule_fires_on_another_real_capture(rule_id, source, target, tmp_path_factory):
    assert rule_id in POSITIVE
    audit = _audit(source, tmp_path_factory)
    assert [f for f in audit.findings if f.rule_id == rule_id and f.target == target], (rule_id, source, target)


@pytest.mark.parametrize("rule_id", sorted(NEGATIVE))
def test_the_rule_stays_silent_on_a_real_capture_that_holds_its_facts(rule_id, tmp_path_factory):
    source, target = NEGATIVE[rule_id]
    audit = _audit(source, tmp_path_factory)
    host_name, _, obj_name = target.partition("/")
    host = next(h for h in audit.hosts if h.name == host_name)
    assert obj_name in {o.name for o in [*host.pnics, *host.switches, *host.vmknics]}  # the object was read
    assert not [f for f in audit.findings if f.rule_id == rule_id and f.target == target], (rule_id, source, target)


def test_every_rule_is_proven_on_real_captures_or_says_where_it_is():
    ids = {r.id for r in load_rules(user=False)}
    assert set(POSITIVE) | set(ELSEWHERE) == ids
    assert not set(POSITIVE) & set(ELSEWHERE)
