"""nicadvisor.parsers.api.vsphere_objects (pure conversion) on the real govmomi dumps in shared/fixtures/captures.

Values asserted are those printed in esxi_api_govc_dump_physicalnic_nvmxnet3_esxi802.txt (nested
ESXi 8.0.2, two nvmxnet3 uplinks) and esxi_api_govc_dump_pcidevice_vmxnet3.txt (their PCI devices).
"""
from __future__ import annotations

import copy

import pytest

from capturetools import capture_path
from godump import read_structs
from nicadvisor.parsers.api import vsphere_objects as vf
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.base import ParseResult

PNIC_DUMP = "esxi_api_govc_dump_physicalnic_nvmxnet3_esxi802.txt"
PCI_DUMP = "esxi_api_govc_dump_pcidevice_vmxnet3.txt"


@pytest.fixture(scope="module")
def pnics() -> list[dict]:
    (pnic_list,) = read_structs(read_capture(capture_path(PNIC_DUMP)).text)
    return pnic_list


@pytest.fixture(scope="module")
def pci_devices() -> list[dict]:
    return read_structs(read_capture(capture_path(PCI_DUMP)).text)


def _values(table: dict) -> dict:
    return {k: {f: fact.value for f, fact in facts.items()} for k, facts in table.items()}


def test_dump_reader_reads_both_uplinks(pnics, pci_devices):
    assert [p["device"] for p in pnics] == ["vmnic0", "vmnic1"]
    assert [d["id"] for d in pci_devices] == ["0000:0b:00.0", "0000:13:00.0"]


def test_pnic_facts_from_real_dumps(pnics, pci_devices):
    r = ParseResult(family=vf.FAMILY_HOST)
    vf.pnic_facts(r, pnics, pci_devices)
    got = _values(r.pnics)
    assert got["vmnic0"] == {
        "pci_address": "0000:0b:00.0", "driver": "nvmxnet3", "vid": "15ad", "did": "07b0", "svid": "15ad",
        "ssid": "07b0", "description": "VMware Inc. vmxnet3 Virtual Ethernet Controller",
        "link_speed_mbps": 10000, "link_up": True, "duplex": "full", "mac": "00:0c:29:81:d8:a0",
        "is_virtual_uplink": True,
    }
    assert got["vmnic1"]["pci_address"] == "0000:13:00.0"
    assert got["vmnic1"]["mac"] == "00:0c:29:81:d8:aa"
    assert got["vmnic1"]["did"] == "07b0"
    # driverVersion/firmwareVersion/ENS flags are absent from this 8.0.2 dump: unknown, not False
    for field in ("driver_version", "firmware_version", "ens_capable", "ens_interrupt_capable", "mtu", "is_physical"):
        assert field not in got["vmnic0"]
    assert r.pnics["vmnic0"]["link_speed_mbps"].line == "pnic[vmnic0].linkSpeed.speedMb = 10000"
    assert r.pnics["vmnic0"]["vid"].line == "pciDevice[0000:0b:00.0].vendorId = 5549 (0x15ad)"


def test_unset_link_speed_is_link_down(pnics):
    """A pNIC without linkSpeed is link down, as the vSphere API documents; its speed stays None, never 0, and
    the evidence says that a LAG move can show the same (§14 item 2)."""
    nic = copy.deepcopy(pnics[0])
    del nic["linkSpeed"]
    r = ParseResult(family=vf.FAMILY_HOST)
    vf.pnic_facts(r, [nic])
    facts = r.pnics["vmnic0"]
    assert "link_speed_mbps" not in facts
    assert facts["link_up"].value is False and "linkSpeed = unset" in facts["link_up"].line
    assert "LAG" in facts["link_up"].line
    assert facts["driver"].value == "nvmxnet3"


def test_signed_pci_ids_are_masked(pnics, pci_devices):
    """The dump's note: IDs are int16, Intel 0x8086 comes back as -32634 (§14 item 1)."""
    dev = copy.deepcopy(pci_devices[0])
    dev["vendorId"] = -32634
    nic = dict(pnics[0], driver="ixgben")
    r = ParseResult(family=vf.FAMILY_HOST)
    vf.pnic_facts(r, [nic], [dev])
    facts = _values(r.pnics)["vmnic0"]
    assert facts["vid"] == "8086"
    assert facts["is_physical"] is True and facts["is_virtual_uplink"] is False


def test_host_facts_and_recording_replay(pnics, pci_devices):
    props = {"name": "esxi-nested", "config.network.pnic": pnics, "hardware.pciDevice": pci_devices}
    text = vf.inventory_recording("HostSystem:ha-host", props)
    direct = vf.host_facts(props, host_ref="HostSystem:ha-host")
    replay = vf.facts_from_recording(text)
    assert _values(replay.pnics) == _values(direct.pnics)
    assert _values(replay.pnics)["vmnic1"]["link_speed_mbps"] == 10000


@pytest.mark.parametrize("junk", [None, 5, "x", [1, "a", None], {"config.network.pnic": "nope"},
                                  {"config.network.pnic": [{"device": 7, "linkSpeed": "fast"}]},
                                  {"config.network.vswitch": [{"name": "vSwitch0", "mtu": "big", "pnic": [3]}]},
                                  {"config.network.vnic": [{"device": "vmk0", "spec": []}]}])
def test_odd_values_never_raise(junk):
    r = vf.host_facts(junk if isinstance(junk, dict) else {"config.network.pnic": junk})
    assert not r.pnics or all(isinstance(k, str) for k in r.pnics)


def test_recording_that_is_not_json_is_a_note():
    r = vf.facts_from_recording("Pnic: []types.PhysicalNic{")
    assert not r.understood and "not a vSphere API recording" in r.notes[0]
