"""The vSphere API dumps of ESXi NIC data admins paste (parsers/api/dumps.py): ``govc object.collect -dump`` of
PhysicalNic and PciDevice, community.vmware ``vmware_host_vmnic_info`` results, on the real captures in
``shared/fixtures/captures`` (that no text makes them raise: tests/parsers/test_never_raise.py)."""
from __future__ import annotations

from capturetools import merged, only, parse_capture, records
from nicadvisor.parsers.api import dumps as api_dumps


def test_govc_dump_physicalnic_nvmxnet3():
    results = parse_capture("esxi_api_govc_dump_physicalnic_nvmxnet3_esxi802.txt")
    r = only(results, "govc object.collect dump")
    pnics = merged(results)[0]
    assert pnics["vmnic0"] == {"pci_address": "0000:0b:00.0", "driver": "nvmxnet3", "is_virtual_uplink": True,
                               "link_speed_mbps": 10000, "link_up": True, "duplex": "full", "mac": "00:0c:29:81:d8:a0"}
    assert pnics["vmnic1"]["pci_address"] == "0000:13:00.0"
    assert pnics["vmnic1"]["mac"] == "00:0c:29:81:d8:aa"
    assert r.pnics["vmnic0"]["driver"].line == 'Driver: "nvmxnet3",'
    assert "driver_version" not in pnics["vmnic0"]  # absent before API 8.0.0.1
    assert not r.notes


def test_govc_dump_pcidevice_vmxnet3_ids():
    results = parse_capture("esxi_api_govc_dump_pcidevice_vmxnet3.txt")
    pnics = merged(results)[0]
    assert sorted(pnics) == ["pci:0000:0b:00.0", "pci:0000:13:00.0"]
    dev = pnics["pci:0000:0b:00.0"]
    assert (dev["vid"], dev["did"], dev["svid"], dev["ssid"]) == ("15ad", "07b0", "15ad", "07b0")
    assert dev["description"] == "VMware Inc. vmxnet3 Virtual Ethernet Controller"
    assert dev["is_virtual_uplink"] is True
    # The cut-off PVSCSI struct at the top is not taken for a NIC.
    assert all("PVSCSI" not in str(rec) for rec in records(results, "vim.host.PciDevice"))


def test_govc_negative_int16_id_is_masked():
    """IDs are int16 in the API (0x8086 comes back as -32634, §14 item 1): the Go literal reads as a
    negative int and the PCI-ID helper masks it."""
    from nicadvisor.parsers.base import hex4

    assert api_dumps._go_scalar("-32634") == -32634
    assert hex4(api_dumps._go_scalar("-32634")) == "8086"
    assert api_dumps._go_scalar("types.NewBool(false)") is False
    assert api_dumps._go_scalar('"0000:0b:00.0"') == "0000:0b:00.0"


def test_ansible_vmnic_info_xxv710():
    results = parse_capture("esxi_api_ansible_vmnic_info_xxv710_i40en_25g_partial.txt")
    r = only(results, "vmware_host_vmnic_info")
    nic = merged(results)[0]["vmnic6"]
    assert nic == {"description": "Intel(R) Ethernet Controller XXV710 for 25GbE SFP28", "driver": "i40en",
                   "link_speed_mbps": 25000, "link_up": True, "duplex": "full", "pci_address": "0000:af:00.0",
                   "is_physical": True}
    assert r.pnics["vmnic6"]["link_speed_mbps"].line == '"actual_speed": 25000,'
    (rec,) = records(results, "vmnic_details")
    assert rec["sriov_status"] == "Disabled" and rec["passthru_capable"] is True


def test_ansible_vmnic_info_x540_with_dvswitch():
    results = parse_capture("esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt")
    pnics, _vmk, switches, _mods, _host = merged(results)
    assert pnics["vmnic0"] == {"description": "Intel(R) Ethernet Controller X540-AT2", "driver": "ixgbe",
                               "link_speed_mbps": 10000, "link_up": True, "duplex": "full"}
    assert switches["dvs2"] == {"kind": "distributed", "uplinks": ["vmnic0", "vmnic1"]}
    (rec,) = records(results, "vmnic_details")
    assert rec["lldp_info"] == {"Aggregated Port ID": "0", "Aggregation Status": "1"}
