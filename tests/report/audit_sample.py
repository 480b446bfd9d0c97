"""A hand-built Audit for the export tests (no parsers run: they belong to other modules).

Evidence lines are copied verbatim from real captures in ../shared/fixtures/captures (named in each
``source``); the benchmark figures are the netperf/agent numbers of
shared/design/research/performance-baselines.md §0 (veth pair).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nicadvisor.model import (
    Audit,
    Evidence,
    Finding,
    Host,
    InputProblem,
    KernelModule,
    PhysicalNic,
    Severity,
    Switch,
    VmkernelNic,
)

NIC_LIST = "captures/esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt"
NIC_LIST_CMD = "esxcli network nic list"
NIC_LIST_HEADER = ("Name    PCI Device    Driver  Admin Status  Link Status   Speed  Duplex  MAC Address         "
                   "MTU  Description")
VMNIC0 = ("vmnic0  0000:18:00.0  ixgben  Up            Up             1000  Full    00:00:00:00:00:00  1500  "
          "Intel(R) Ethernet Controller X550")
VMNIC2 = ("vmnic2  0000:5e:00.0  icen    Up            Up           100000  Full    00:00:00:00:00:00  1500  "
          "Intel(R) Ethernet Controller E810-C for QSFP")
VMNIC3 = ("vmnic3  0000:5e:00.1  icen    Up            Up           100000  Full    00:00:00:00:00:00  1500  "
          "Intel(R) Ethernet Controller E810-C for QSFP")
VSISH_CMD = 'vsish -e get /net/pNics/vmnic3/properties | grep ".*Activated.*Geneve"'
VSISH_SRC = "captures/esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt"
VSISH_LINES = ("Device Hardware Cap Activated:: 0x793c032b ->\nVMNET_CAP_SG VMNET_CAP_IP4_CSUM VMNET_CAP_HIGH_DMA\n"
               "VMNET_CAP_TSO VMNET_CAP_HW_TX_VLAN\nVMNET_CAP_HW_RX_VLAN VMNET_CAP_SG_SPAN_PAGES\n"
               "VMNET_CAP_IP6_CSUM VMNET_CAP_TSO6 VMNET_CAP_TSO256k\nVMNET_CAP_ENCAP VMNET_CAP_Geneve_OFFLOAD")
VMKNIC_SRC = "captures/esxi_esxcfg-vmknic-l_mtu_9000.txt"
VMK2 = ("vmk2       PGvmnic0                                IPv4      N/A                                     "
        "N/A             N/A             00:50:56:aa:bb:cc 9000    65535     true    NONE                "
        "defaultTcpipStack")
VSWITCH_SRC = "captures/esxi_esxcfg-vswitch-l_vss_and_dvs_mtu.txt"
VSWITCH0 = "vSwitch0         6690        5           128               1500    vmnic0"
DVS = "DSwitch_063LongName 6690        4           512               9000    vmnic3"
MODULE_SRC = "captures/esxi_esxcfg-module-i_i40en_2.6.0.30_params_itr.txt"
MODULE_LINE = "Version: 2.6.0.30-1OEM.800.1.0.20613240"
ETHTOOL_I_SRC = "captures/linux_ethtool-i_igb_enp2s0.txt"
ETHTOOL_K_SRC = "captures/linux_ethtool-k_igb_enp2s0.txt"
LSPCI_SRC = "captures/linux_lspci-vv_connectx6dx_lnkcap_partial.txt"
LNKCAP = ("LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM not supported, Exit Latency L0s unlimited, "
          "L1 <4us")
CX6_PCI = "pci:0000:b3:00.0"
UNDERSTOOD_SOURCE = "captures/esxi-b/odd_output.txt"


def ev(command: str, line: str, source: str) -> Evidence:
    return Evidence(command, line, source)


@dataclass
class FakeBench:
    """Stand-in for the bench helper's BenchResult: only ``to_dict()`` matters to the exports."""

    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)


def _esxi_host() -> Host:
    h = Host(name="esxi-a", kind="esxi", product_version="8.0.2", build="22380479",
             inputs=[NIC_LIST, VSISH_SRC, VMKNIC_SRC, VSWITCH_SRC, MODULE_SRC])
    rows = {"vmnic0": ("0000:18:00.0", "ixgben", 1000, VMNIC0, "Intel(R) Ethernet Controller X550"),
            "vmnic2": ("0000:5e:00.0", "icen", 100000, VMNIC2, "Intel(R) Ethernet Controller E810-C for QSFP"),
            "vmnic3": ("0000:5e:00.1", "icen", 100000, VMNIC3, "Intel(R) Ethernet Controller E810-C for QSFP")}
    for name, (pci, driver, speed, line, desc) in rows.items():
        p = PhysicalNic(name=name)
        e = ev(NIC_LIST_CMD, line, NIC_LIST)
        for field, value in (("pci_address", pci), ("driver", driver), ("link_speed_mbps", speed),
                             ("admin_up", True), ("link_up", True), ("duplex", "Full"), ("mtu", 1500),
                             ("mac", "00:00:00:00:00:00"), ("description", desc), ("is_physical", True)):
            p.set_fact(field, value, e)
        h.pnics.append(p)
    h.pnic("vmnic3").set_fact("geneve_offload", True, ev(VSISH_CMD, VSISH_LINES, VSISH_SRC))
    h.pnics.append(PhysicalNic(name="vusb0", is_physical=False, driver="cdce"))
    vmk = VmkernelNic(name="vmk2")
    for field, value in (("mtu", 9000), ("portgroup", "PGvmnic0"), ("netstack", "defaultTcpipStack"),
                         ("tso_mss", 65535)):
        vmk.set_fact(field, value, ev("esxcfg-vmknic -l", VMK2, VMKNIC_SRC))
    h.vmknics.append(vmk)
    for name, kind, mtu, uplink, line in (("vSwitch0", "standard", 1500, "vmnic0", VSWITCH0),
                                          ("DSwitch_063LongName", "distributed", 9000, "vmnic3", DVS)):
        s = Switch(name=name)
        for field, value in (("kind", kind), ("mtu", mtu), ("uplinks", [uplink])):
            s.set_fact(field, value, ev("esxcfg-vswitch -l", line, VSWITCH_SRC))
        h.switches.append(s)
    m = KernelModule(name="i40en")
    m.set_fact("version", "2.6.0.30-1OEM.800.1.0.20613240", ev("esxcfg-module -i i40en", MODULE_LINE, MODULE_SRC))
    m.set_fact("parameters", {"RxITR": "int"}, ev("esxcfg-module -i i40en", "RxITR: int", MODULE_SRC))
    h.modules.append(m)
    return h


def _linux_host() -> Host:
    h = Host(name="lnx-1", kind="linux", inputs=[ETHTOOL_I_SRC, ETHTOOL_K_SRC, LSPCI_SRC])
    p = PhysicalNic(name="enp2s0")
    for field, value, line in (("driver", "igb", "driver: igb"), ("driver_version", "5.4.0-k", "version: 5.4.0-k"),
                               ("firmware_version", "3.16.0", "firmware-version: 3.16.0"),
                               ("pci_address", "0000:02:00.0", "bus-info: 0000:02:00.0")):
        p.set_fact(field, value, ev("ethtool -i enp2s0", line, ETHTOOL_I_SRC))
    p.set_fact("is_physical", True, ev("ethtool -i enp2s0", "bus-info: 0000:02:00.0", ETHTOOL_I_SRC))
    p.set_fact("tso", True, ev("ethtool -k enp2s0", "tcp-segmentation-offload: on", ETHTOOL_K_SRC))
    p.set_fact("lro", False, ev("ethtool -k enp2s0", "large-receive-offload: off [fixed]", ETHTOOL_K_SRC))
    h.pnics.append(p)
    cx = PhysicalNic(name=CX6_PCI)
    cx.set_fact("pci_address", "0000:b3:00.0", ev("lspci -vv", "b3:00.0 Ethernet controller: Mellanox Technologies "
                                                  "MT2892 Family [ConnectX-6 Dx]", LSPCI_SRC))
    cx.set_fact("pcie_speed_capable_gts", 16.0, ev("lspci -vv", LNKCAP, LSPCI_SRC))
    cx.set_fact("pcie_width_capable", 16, ev("lspci -vv", LNKCAP, LSPCI_SRC))
    cx.set_fact("numa_node", 0, ev("lspci -vv", "NUMA node: 0", LSPCI_SRC))
    cx.set_fact("is_physical", True, ev("lspci -vv", "b3:00.0 Ethernet controller: Mellanox Technologies "
                                        "MT2892 Family [ConnectX-6 Dx]", LSPCI_SRC))
    h.pnics.append(cx)
    return h


def build_audit() -> Audit:
    esxi, lnx = _esxi_host(), _linux_host()
    findings = [
        Finding(rule_id="MTU-PNIC-001",
                title="pNIC MTU below the Geneve minimum",
                severity=Severity.ERROR,
                host="esxi-a",
                target="esxi-a/vmnic2",
                message="vmnic2 has MTU 1500 bytes; Geneve encapsulation needs at least 1600 bytes on every TEP uplink.",
                recommendation="Set the MTU of the switch carrying vmnic2 to 1700 bytes or more (9000 recommended) & check the "
                "physical switch ports.",
                references=("nic-data-sources.md §5", "nsx-t-performance-on-intel.txt §1.3.2"),
                evidence=(ev(NIC_LIST_CMD, NIC_LIST_HEADER + "\n" + VMNIC2, NIC_LIST),),
                category="mtu"),
        Finding(rule_id="LINK-SPEED-002",
                title="Uplink at 1 Gbit/s",
                severity=Severity.WARNING,
                host="esxi-a",
                target="esxi-a/vmnic0",
                message="vmnic0 links at 1000 Mbit/s; an overlay uplink below 10 Gbit/s limits TEP throughput.",
                recommendation="Move the overlay to a 10/25 Gbit/s port or check the cable and the switch port speed.",
                references=("nic-data-sources.md §4",),
                evidence=(ev(NIC_LIST_CMD, VMNIC0, NIC_LIST),),
                category="link"),
        Finding(rule_id="GENEVE-OFFLOAD-INFO",
                title="Geneve offload active",
                severity=Severity.INFO,
                host="esxi-a",
                target="esxi-a/vmnic3",
                message="vmnic3 advertises VMNET_CAP_Geneve_OFFLOAD.",
                recommendation="Nothing to change.",
                references=("nsx-t-performance-on-intel.txt §1.3.2",),
                evidence=(ev(VSISH_CMD, VSISH_LINES, VSISH_SRC),),
                category="geneve_offload"),
        Finding(rule_id="PCIE-LINK-003",
                title="PCIe link of the ConnectX-6 Dx not reported",
                severity=Severity.WARNING,
                host="lnx-1",
                target=f"lnx-1/{CX6_PCI}",
                message="Only LnkCap (16 GT/s x16) was captured; the negotiated LnkSta is missing, so a <x16 link "
                "cannot be ruled out.",
                recommendation="Collect `lspci -vv -s b3:00.0` as root and check LnkSta against LnkCap.",
                references=("nic-data-sources.md §10",),
                evidence=(ev("lspci -vv", LNKCAP, LSPCI_SRC),),
                category="pcie"),
        Finding(rule_id="INPUT-COVERAGE",
                title="No vSphere inventory",
                severity=Severity.INFO,
                host="",
                target="",
                message="The audit read captures only; vCenter was not queried.",
                recommendation="Add a vCenter connection to audit "
                "every host of a cluster.",
                references=(),
                evidence=(),
                category=""),
    ]
    return Audit(
        hosts=[esxi, lnx], findings=findings,
        inputs=[NIC_LIST, VSISH_SRC, VMKNIC_SRC, VSWITCH_SRC, MODULE_SRC, ETHTOOL_I_SRC, ETHTOOL_K_SRC, LSPCI_SRC],
        inputs_not_understood=[InputProblem(UNDERSTOOD_SOURCE, "no parser for command 'esxcli network nic foo'",
                                            "esxcli network nic foo")],
        benchmarks=[
            # between the two audited hosts: results that measured them (reports chart them)
            FakeBench({"test": "TCP_STREAM", "tool": "agent", "path": "veth pair (namespaces)",
                       "client": "esxi-a", "server": "lnx-1",
                       "throughput_gbps": 14.4, "transactions_per_s": None, "latency_us": None, "duration_s": 10.0,
                       "expected": {"value": 17.8, "unit": "Gbit/s",
                                    "basis": "netperf on the same veth pair (performance-baselines.md §0)"},
                       "raw": "", "command": ["nicadvisor-agent", "stream", "-t", "10"]}),
            FakeBench({"test": "TCP_RR", "tool": "netperf", "path": "veth pair (namespaces)",
                       "client": "esxi-a", "server": "lnx-1",
                       "throughput_gbps": None, "transactions_per_s": 17800.0, "latency_us": 56.0, "duration_s": 10.0,
                       "expected": {"value": 54.0, "unit": "µs",
                                    "basis": "netperf TCP_RR on loopback (performance-baselines.md §0)"},
                       "raw": "", "command": ["netperf", "-t", "TCP_RR", "-l", "10"]}),
        ],
        created_at="2026-11-21T10:00:00+00:00",
    )
