"""Hostile review (Redfish): a malicious or broken BMC — answers nested deeper than Python's recursion limit, links
(``@odata.id``) and redirects that point at another server, one resource linked thousands of times, a lane count of
400 digits, a service root that is not JSON but holds terminal escape sequences — served over HTTPS on 127.0.0.1 by
:mod:`redfish_server` from a mockup tree written by each test (an attack payload, not device output). The BMC read
must end with a clear note or error (never a traceback), send nothing to any server but the BMC, and read each
resource once."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redfish_server import HostileBmc  # noqa: E402

from nicadvisor.collect.redfish import RedfishError, RedfishTarget, read_bmc  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HOST_CAPTURES = ROOT / "resources" / "demo-lab" / "linux-igb-mfd"
SERVICE_ROOT = {"@odata.id": "/redfish/v1", "Chassis": {"@odata.id": "/redfish/v1/Chassis"},
                "Links": {"Sessions": {"@odata.id": "/redfish/v1/SessionService/Sessions"}}}
DEEP = "[" * 100_000 + "]" * 100_000  # 200 kB: far below the size cap, far above the recursion limit


def _target(bmc: HostileBmc, **kw) -> RedfishTarget:
    return RedfishTarget(url=bmc.url, for_host="h", user="admin", password="s3cret-bmc", ca_bundle=bmc.ca_file, **kw)


def _one_device_tree(device: dict, function: dict | None = None) -> dict:
    tree = {"/redfish/v1": SERVICE_ROOT,
            "/redfish/v1/Chassis": {"Members": [{"@odata.id": "/redfish/v1/Chassis/C"}]},
            "/redfish/v1/Chassis/C": {"PCIeDevices": {"@odata.id": "/redfish/v1/Chassis/C/PCIeDevices"}},
            "/redfish/v1/Chassis/C/PCIeDevices": {"Members": [{"@odata.id": "/redfish/v1/Chassis/C/PCIeDevices/D"}]},
            "/redfish/v1/Chassis/C/PCIeDevices/D": {"@odata.id": "/redfish/v1/Chassis/C/PCIeDevices/D", **device}}
    if function is not None:
        tree["/redfish/v1/Chassis/C/PCIeDevices/D/F"] = {"@odata.id": "/redfish/v1/Chassis/C/PCIeDevices/D/F",
                                                        **function}
    return tree


def test_an_answer_nested_deeper_than_the_recursion_limit_is_a_note(tmp_path):
    tree = {**_one_device_tree({"PCIeInterface": {"PCIeType": "Gen3", "LanesInUse": 8}}),
            "/redfish/v1/Chassis/C/PCIeDevices": DEEP}
    with HostileBmc(tmp_path, tree) as bmc:
        reading = read_bmc(_target(bmc))
    assert reading.devices == []
    assert any(n.startswith("GET /redfish/v1/Chassis/C/PCIeDevices:") and "nested" in n for n in reading.notes), \
        reading.notes


def test_a_link_naming_another_server_is_not_followed(tmp_path):
    with HostileBmc(tmp_path / "other") as other:
        elsewhere = f"@127.0.0.1:{other.port}/redfish/v1/Chassis/X"  # base URL + this = a URL of another server
        tree = {"/redfish/v1": SERVICE_ROOT, "/redfish/v1/Chassis": {"Members": [{"@odata.id": elsewhere}]}}
        with HostileBmc(tmp_path / "bmc", tree, ca=other.ca) as bmc:
            reading = read_bmc(_target(bmc))
    assert other.requests == []
    assert any(elsewhere in n and "not a path on this BMC" in n for n in reading.notes), reading.notes


def test_a_login_link_naming_another_server_is_not_asked(tmp_path):
    """What held: the library checks the credentials with a GET of the login URL it took when the client was made
    (``check_connectivity=False``: the standard ``/redfish/v1/SessionService/Sessions``), not of the service root's
    ``Links.Sessions``, so a BMC naming another server there has it asked nothing."""
    with HostileBmc(tmp_path / "other") as other:
        root = {**SERVICE_ROOT, "Links": {"Sessions": {"@odata.id": f"@127.0.0.1:{other.port}/redfish/v1/S"}}}
        with HostileBmc(tmp_path / "bmc", {"/redfish/v1": root}, ca=other.ca) as bmc:
            read_bmc(_target(bmc))
    assert other.requests == [] and "/redfish/v1/SessionService/Sessions" in bmc.requests


def test_a_redirect_to_another_server_is_not_followed(tmp_path):
    with HostileBmc(tmp_path / "other") as other:
        answers = {"/redfish/v1/Chassis": (302, {"Location": f"{other.url}/redfish/v1/Chassis"}, b"")}
        with HostileBmc(tmp_path / "bmc", {"/redfish/v1": SERVICE_ROOT}, answers=answers, ca=other.ca) as bmc:
            reading = read_bmc(_target(bmc))
    assert other.requests == []
    assert any("/redfish/v1/Chassis" in n and "redirect" in n and f"127.0.0.1:{other.port}" in n
               for n in reading.notes), reading.notes


def test_a_redirect_within_the_bmc_is_followed(tmp_path):
    """What held: a service that moved a collection (same scheme, host and port) is still read."""
    tree = _one_device_tree({"PCIeInterface": {"PCIeType": "Gen3", "LanesInUse": 8}})
    tree["/redfish/v1/Chassis-moved"] = tree.pop("/redfish/v1/Chassis")
    with HostileBmc(tmp_path, tree) as bmc:
        bmc.answers["/redfish/v1/Chassis"] = (301, {"Location": f"{bmc.url}/redfish/v1/Chassis-moved"}, b"")
        reading = read_bmc(_target(bmc))
    assert [(d.speed_gts, d.width) for d in reading.devices] == [(8.0, 8)]


def test_a_resource_linked_thousands_of_times_is_read_once(tmp_path):
    """A link loop: the Chassis collection lists itself 3,000 times, and a chassis lists its devices collection
    twice; each resource is asked for once (3,000 requests of one path took 37 s before)."""
    tree = _one_device_tree({"PCIeInterface": {"PCIeType": "Gen4", "LanesInUse": 16}})
    tree["/redfish/v1/Chassis"] = {"Members": [{"@odata.id": "/redfish/v1/Chassis"}] * 3000
                                   + [{"@odata.id": "/redfish/v1/Chassis/C"}] * 2}
    with HostileBmc(tmp_path, tree) as bmc:
        reading = read_bmc(_target(bmc))
    assert [(d.speed_gts, d.width) for d in reading.devices] == [(16.0, 16)]
    assert sorted(bmc.requests) == sorted(set(bmc.requests)), "a resource was asked for twice"


def test_a_lane_count_of_400_digits_is_no_width(tmp_path):
    from nicadvisor.model.entities import Host, PhysicalNic
    from nicadvisor.services.redfish import apply_devices

    ids = {"VendorId": "0x8086", "DeviceId": "0x1572", "SubsystemVendorId": "0x8086", "SubsystemId": "0x0000"}
    device = {"PCIeInterface": {"PCIeType": "Gen3", "LanesInUse": 10 ** 400, "MaxLanes": -8},
              "Links": {"PCIeFunctions": [{"@odata.id": "/redfish/v1/Chassis/C/PCIeDevices/D/F"}]}}
    with HostileBmc(tmp_path, _one_device_tree(device, ids)) as bmc:
        reading = read_bmc(_target(bmc))
    (got,) = reading.devices
    assert (got.speed_gts, got.width, got.width_capable) == (8.0, None, None)
    host = Host(name="h", kind="esxi", pnics=[PhysicalNic(name="vmnic0", vid="8086", did="1572", svid="8086",
                                                          ssid="0000", pcie_width=8)])
    filled, notes = apply_devices(host, reading.devices, "redfish://bmc")
    assert host.pnics[0].pcie_width == 8 and host.pnics[0].pcie_speed_gts == 8.0 and filled == ["vmnic0"]


def test_a_service_root_of_escape_sequences_is_a_short_error_and_no_log(tmp_path, capsys):
    """The redfish library logs an invalid service root whole (a 4 MB answer, ESC sequences as they came) and puts it
    in its exception: the error names the BMC and stays short, nothing reaches stderr."""
    junk = "\x1b]0;pwned\x07" + "x" * 500_000
    with HostileBmc(tmp_path, {"/redfish/v1": junk}) as bmc:
        with pytest.raises(RedfishError) as err:
            read_bmc(_target(bmc))
    message = str(err.value)
    assert message.startswith(f"127.0.0.1:{bmc.port}:") and "JSON" in message
    assert len(message) < 1000 and "\x1b" not in message
    captured = capsys.readouterr()
    assert "pwned" not in captured.err + captured.out


def test_the_cli_audit_carries_on_past_a_hostile_bmc(tmp_path, cli):
    """End to end: the host's audit is written, the BMC's problem is an input note, no traceback (conftest's cli
    asserts it), and no exit 3."""
    import json

    tree = {**_one_device_tree({"PCIeInterface": {"PCIeType": "\x1b[2J\u202eGen3", "LanesInUse": 10 ** 400}}),
            "/redfish/v1/Chassis/C/PCIeDevices": DEEP}
    with HostileBmc(tmp_path / "bmc", tree) as bmc:
        out = tmp_path / "audit.json"
        run = cli("audit", "--capture", HOST_CAPTURES, "--no-history", "--json", out,
                  "--redfish", f"linux-igb-mfd={bmc.url}", "--redfish-user", "admin", "--thumbprint", bmc.thumbprint,
                  env={"NIC_ADVISOR_REDFISH_PASSWORD": "s3cret-bmc", "PYTHONPATH": str(ROOT / "app")})
    assert run.code != 3 and out.exists(), run.err[-3000:]
    doc = json.loads(out.read_text())
    notes = [p["message"] for p in doc["inputs_not_understood"] if p["source"] == f"redfish://127.0.0.1:{bmc.port}"]
    assert any("nested" in n for n in notes), notes


def test_wrong_types_everywhere_are_read_as_nothing(tmp_path):
    """What held: a service whose every property has the wrong type (Members a string, links numbers, the
    PCIeInterface a list, IDs numbers, ``Members@odata.nextLink`` pointing at itself for ever) is read without an
    exception: nothing decided, the next page never asked for."""
    tree = {"/redfish/v1": {**SERVICE_ROOT, "Systems": [{"@odata.id": 5}, "x"]},
            "/redfish/v1/Chassis": {"Members": "all of them", "Members@odata.nextLink": "/redfish/v1/Chassis",
                                    "Members@odata.count": 10 ** 9},
            }
    with HostileBmc(tmp_path, tree) as bmc:
        reading = read_bmc(_target(bmc))
    assert reading.devices == [] and bmc.requests.count("/redfish/v1/Chassis") == 1
    device = {"PCIeInterface": ["Gen3", 8], "Links": [1, 2], "PCIeFunctions": {"@odata.id": ["/x"]},
              "Name": {"a": 1}, "@odata.id": 7}
    from nicadvisor.parsers.api.redfish import parse_device, parse_function

    got = parse_device(device, [parse_function({"VendorId": 32902, "DeviceId": None, "FunctionId": True,
                                                "Oem": {"V": {"BusNumber": "3", "DeviceNumber": 0,
                                                              "FunctionNumber": 0}}})])
    assert (got.speed_gts, got.width, got.odata_id) == (None, None, "7")
    assert got.functions[0].ids == (None, None, None, None) and got.functions[0].pci_address is None


def test_a_bmc_answering_every_resource_slowly_is_read_for_a_bounded_time(tmp_path):
    """250 devices, each answered 0.2 s late (well within the 1.5 s request timeout, so no request fails): the walk
    stops after READ_BUDGET_TIMEOUTS × 1.5 s = 30 s with a note instead of asking for all of them (50 s; at the
    default 15 s timeout, a BMC answering 2,000 resources just in time held the audit for over 8 hours)."""
    from nicadvisor.collect.redfish import READ_BUDGET_TIMEOUTS

    tree = _one_device_tree({"PCIeInterface": {"PCIeType": "Gen3", "LanesInUse": 8}})
    tree["/redfish/v1/Chassis/C/PCIeDevices"] = {
        "Members": [{"@odata.id": f"/redfish/v1/Chassis/C/PCIeDevices/D{i}"} for i in range(250)]}
    with HostileBmc(tmp_path, tree, delay_s=0.2) as bmc:
        reading = read_bmc(_target(bmc, timeout_s=1.5))
    # at most 30 s / 0.2 s = 150 slow answers fit in the budget (fewer on a loaded machine): never all 250
    assert len(bmc.requests) < 200, len(bmc.requests)
    assert any(n.startswith("stopped after") and f"{READ_BUDGET_TIMEOUTS * 1.5:g} s" in n for n in reading.notes), \
        reading.notes
