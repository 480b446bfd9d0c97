"""Reading a BMC's Redfish PCIe payloads (pure) and filling a pNIC's PCIe facts from them (issue 24 §1): DMTF's
public DSP2046 examples and the public-tower mockup (tests/collect/redfish_mockups, SOURCE.txt); matched by PCI
address or, failing that, by the four PCI IDs when they name one device; the value is marked as the BMC's in the
capability matrix; a reading taken on the host wins."""
from __future__ import annotations

import json
from pathlib import Path

from nicadvisor.model.capabilities import BMC_ORIGIN, CAPABILITIES, capability_matrix, cell_for
from nicadvisor.model.entities import Evidence, Host, PhysicalNic
from nicadvisor.parsers.api.redfish import PnicIdentity, load_payload, match_pnics, parse_device, parse_function
from nicadvisor.services.redfish import apply_devices, parse_pairing

MOCKUPS = Path(__file__).resolve().parents[2] / "collect" / "redfish_mockups"
PCIE = next(c for c in CAPABILITIES if c.key == "pcie")


def _json(rel: str) -> dict:
    return json.loads((MOCKUPS / rel).read_text())


def _nic_device(odata_id: str | None = None):
    """DSP2046's two-port NIC with DSP2046's PCIeFunction example as its function (IDs 0xABCD, FunctionId 2)."""
    dev = parse_device(_json("DSP2046-examples/PCIeDevice-v1-example.json"),
                       [parse_function(_json("DSP2046-examples/PCIeFunction-v1-example.json"))])
    if odata_id:
        dev.odata_id = odata_id
    return dev


def test_device_and_function_payloads():
    dev = _nic_device()
    assert (dev.pcie_type, dev.max_pcie_type, dev.speed_gts, dev.speed_capable_gts, dev.width, dev.width_capable) \
        == ("Gen2", "Gen3", 5.0, 8.0, 4, 4)
    f = dev.functions[0]
    assert f.ids == ("abcd", "abcd", "abcd", "abcd") and f.function_id == 2 and f.device_class == "NetworkController"
    assert f.pci_address is None  # the standard schema has none
    assert '"LanesInUse": 4' in dev.interface_text


def test_public_tower_device_without_functions():
    dev = parse_device(_json("public-tower/Chassis/Tower/PCIeDevices/Slot3/index.json"))
    assert (dev.speed_gts, dev.width, dev.speed_capable_gts, dev.width_capable) == (5.0, 2, 8.0, 4)
    assert dev.functions == []


def test_oem_pci_address_is_read_and_matches_first():
    payload = dict(_json("DSP2046-examples/PCIeFunction-v1-example.json"))
    payload["Oem"] = {"Vendor": {"SegmentNumber": 0, "BusNumber": 0x3b, "DeviceNumber": 0, "FunctionNumber": 1}}
    f = parse_function(payload)
    assert f.pci_address == "0000:3b:00.1"
    dev = _nic_device()
    dev.functions = [f]
    matches, notes = match_pnics([PnicIdentity("vmnic1", "0000:3b:00.1", None, None, None, None)], [dev])
    assert [(m.pnic, m.how) for m in matches] == [("vmnic1", "PCI address 0000:3b:00.1")] and notes == []


def test_ids_match_only_when_one_device_carries_them():
    nic = PnicIdentity("vmnic0", None, "abcd", "abcd", "abcd", "abcd")
    matches, notes = match_pnics([nic], [_nic_device()])
    assert [m.how for m in matches] == ["PCI IDs abcd:abcd abcd:abcd"] and notes == []
    twins = [_nic_device("/redfish/v1/Chassis/1/PCIeDevices/A"), _nic_device("/redfish/v1/Chassis/1/PCIeDevices/B")]
    matches, notes = match_pnics([nic], twins)
    assert matches == []
    assert "2 devices carry its PCI IDs" in notes[0] and "PCIeDevices/A" in notes[0] and "PCIeDevices/B" in notes[0]
    matches, notes = match_pnics([PnicIdentity("vmnic2", None, "abcd", None, None, None)], [_nic_device()])
    assert matches == [] and "were not all read on the host" in notes[0]


def test_bad_payloads_are_notes_not_crashes():
    assert load_payload("[1, 2]") == (None, "not a JSON object")
    assert load_payload("{")[0] is None
    assert parse_function({"VendorId": "0x12345", "DeviceId": 7}).vid is None  # not 4 hex digits / not text


def _host(**facts) -> Host:
    nic = PhysicalNic(name="vmnic0", vid="abcd", did="abcd", svid="abcd", ssid="abcd", link_up=True,
                      link_speed_mbps=10000, **facts)
    return Host(name="esx-a", kind="esxi", pnics=[nic])


def test_bmc_fills_the_pcie_cell_and_says_so():
    host = _host()
    filled, notes = apply_devices(host, [_nic_device()], "redfish://bmc-a")
    assert filled == ["vmnic0"] and notes == []
    nic = host.pnic("vmnic0")
    assert (nic.pcie_speed_gts, nic.pcie_width, nic.pcie_speed_capable_gts, nic.pcie_width_capable) == (5.0, 4, 8.0, 4)
    ev = nic.evidence["pcie_width"]
    assert ev.command.startswith(BMC_ORIGIN) and ev.source == "redfish://bmc-a" and "matched by PCI IDs" in ev.line
    cell = cell_for(host, nic, PCIE, [])
    assert BMC_ORIGIN in cell.text  # the matrix (GUI, PDF, HTML, JSON) shows where the value came from
    row = capability_matrix(host, [])[0]
    assert BMC_ORIGIN in row.cells["pcie"].text


def test_a_host_reading_wins_and_the_disagreement_is_a_note():
    host = _host()
    host.pnic("vmnic0").set_fact("pcie_width", 8, Evidence("lspci -vv", "LnkSta: Speed 8GT/s, Width x8", "cap"))
    filled, notes = apply_devices(host, [_nic_device()], "redfish://bmc-a")
    nic = host.pnic("vmnic0")
    assert nic.pcie_width == 8 and nic.evidence["pcie_width"].command == "lspci -vv"
    assert nic.pcie_speed_gts == 5.0  # what the host did not tell is filled
    assert any("host reads pcie width 8" in n and "LanesInUse says 4" in n for n in notes)


def test_pairing_syntax():
    assert parse_pairing("esx-a=https://bmc-a:8443") == ("esx-a", "https://bmc-a:8443")
    for bad in ("https://bmc-a", "=https://bmc", "esx-a="):
        try:
            parse_pairing(bad)
        except ValueError as exc:
            assert "HOST=https://BMC" in str(exc)
        else:
            raise AssertionError(bad)
