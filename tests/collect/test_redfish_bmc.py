"""The PCIe link out of band (issue 24 §1): DMTF's redfish client reading a real Redfish service — sushy-tools'
static emulator serving DMTF's public mockup ``public-tower`` over HTTPS on 127.0.0.1 — under the vCenter TLS rules
(verified by default, self-signed only by pinned SHA-256 thumbprint, a changed certificate refused, every call
bounded), and the CLI's ``--redfish HOST=URL``."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redfish_bmc import StaticBmc  # noqa: E402
from tls_servers import SlowServer  # noqa: E402

from nicadvisor.collect.redfish import RedfishError, RedfishTarget, read_bmc  # noqa: E402
from nicadvisor.collect.tls_pins import TlsPins  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HOST_CAPTURES = ROOT / "resources" / "demo-lab" / "linux-igb-mfd"


@pytest.fixture(scope="module")
def bmc(tmp_path_factory):
    with StaticBmc(tmp_path_factory.mktemp("bmc")) as server:
        yield server


def _target(bmc, **kw) -> RedfishTarget:
    return RedfishTarget(url=bmc.url, for_host="linux-igb-mfd", user="admin", password="s3cret-bmc", **kw)


def test_reads_every_pcie_device_link_of_the_public_tower_mockup(bmc):
    reading = read_bmc(_target(bmc, ca_bundle=bmc.ca_file))
    got = {d.odata_id.rsplit("/", 1)[1]: (d.speed_gts, d.width, d.speed_capable_gts, d.width_capable)
           for d in reading.devices}
    # the mockup's PCIeInterface values (Chassis/Tower/PCIeDevices/*/index.json), as GT/s per lane and lanes
    assert got["IntegratedNIC"] == (5.0, 4, 8.0, 4)  # Gen2 x4 of a Gen3 x4 device: trained down
    assert got["Slot3"] == (5.0, 2, 8.0, 4)
    assert got["Slot1"] == (8.0, 16, 8.0, 16)
    assert len(got) == 9  # each once, though the Systems member lists them too
    assert reading.trust is not None and reading.trust.mode == "ca"
    assert "/redfish/v1/Chassis/Tower/PCIeDevices" in reading.requests


def test_an_untrusted_certificate_is_refused_with_its_thumbprint(bmc):
    with pytest.raises(RedfishError) as err:
        read_bmc(_target(bmc))  # trustme's CA is not in the system store
    assert "not trusted" in str(err.value) and bmc.thumbprint in str(err.value)


def test_a_pinned_thumbprint_is_trusted_and_a_wrong_one_refused(bmc, tmp_path):
    pins = TlsPins(tmp_path / "pins")
    reading = read_bmc(_target(bmc, thumbprint=bmc.thumbprint.lower().replace(":", ""), pins=pins))
    assert reading.trust.mode == "pinned" and len(reading.devices) == 9
    assert pins.get("127.0.0.1", bmc.port) == bmc.thumbprint  # saved once the read succeeded
    with pytest.raises(RedfishError) as err:
        read_bmc(_target(bmc, thumbprint="AA:" * 31 + "AA"))
    assert "mismatch" in str(err.value) and bmc.thumbprint in str(err.value)


def test_a_certificate_changed_since_it_was_pinned_is_refused(tmp_path):
    pins = TlsPins(tmp_path / "pins")
    with StaticBmc(tmp_path) as first:
        read_bmc(_target(first, thumbprint=first.thumbprint, pins=pins))
        port = first.port
    with StaticBmc(tmp_path, port=port) as second:  # same BMC address, another certificate
        assert second.port == port, "the port was taken meanwhile"
        with pytest.raises(RedfishError) as err:
            read_bmc(_target(second, pins=pins))
    assert "CHANGED" in str(err.value) and first.thumbprint in str(err.value) and second.thumbprint in str(err.value)


def test_http_is_refused_before_any_connection():
    with pytest.raises(RedfishError, match="only https"):
        read_bmc(RedfishTarget(url="http://127.0.0.1:9", for_host="h", user="u", password="p"))


def test_every_call_is_bounded_by_the_timeout(tmp_path):
    with SlowServer(tmp_path, interval=0.5) as slow:  # answers one byte every 0.5 s: only a whole-call bound ends it
        with pytest.raises(RedfishError, match="timeout"):
            read_bmc(RedfishTarget(url=slow.url, for_host="h", user="u", password="p", ca_bundle=slow.ca_file,
                                   timeout_s=2))


def test_cli_reads_the_bmc_for_the_named_host_and_says_why_nothing_matched(bmc, tmp_path):
    out = tmp_path / "audit.json"
    env = {"NIC_ADVISOR_REDFISH_PASSWORD": "s3cret-bmc", "PYTHONPATH": str(ROOT / "app"),
           "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from nicadvisor.cli import main; sys.exit(main())", "audit",
         "--capture", str(HOST_CAPTURES), "--no-history", "--json", str(out),
         "--redfish", f"linux-igb-mfd={bmc.url}", "--redfish-user", "admin", "--thumbprint", bmc.thumbprint],
        env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert out.exists(), run.stderr
    doc = json.loads(out.read_text())
    notes = [p for p in doc["inputs_not_understood"] if p["source"] == f"redfish://127.0.0.1:{bmc.port}"]
    # the mockup lists no PCIe function (so no PCI IDs): enp2s0 is not decided from the BMC, and the note says why
    assert any("enp2s0" in p["message"] and "lists no PCIe function" in p["message"] for p in notes), notes
    assert "s3cret-bmc" not in run.stdout + run.stderr + out.read_text()
    pnic = doc["hosts"][0]["pnics"][0]
    assert pnic["pcie_width"] is None  # nothing guessed


def test_cli_refuses_a_bad_pairing(tmp_path):
    env = {"PYTHONPATH": str(ROOT / "app"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from nicadvisor.cli import main; sys.exit(main())", "audit",
         "--capture", str(HOST_CAPTURES), "--no-history", "--redfish", "https://bmc.example.com", "--user", "u"],
        env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and "HOST=https://BMC" in run.stderr


def test_functions_are_walked_and_alike_devices_decide_nothing(tmp_path):
    """DMTF's public-cxl mockup: six PCIe devices, each with a PCIeFunctions collection whose function carries the
    same four IDs (0xABCD): every function is read over the wire, and a pNIC with those IDs is not decided."""
    from nicadvisor.model.entities import Host, PhysicalNic
    from nicadvisor.services.redfish import apply_devices

    with StaticBmc(tmp_path, mockup="public-cxl") as cxl:
        reading = read_bmc(RedfishTarget(url=cxl.url, for_host="h", user="u", password="p", ca_bundle=cxl.ca_file))
    assert len(reading.devices) == 6
    assert all([f.ids for f in d.functions] == [("abcd", "abcd", "abcd", "abcd")] for d in reading.devices)
    pooled = next(d for d in reading.devices if "PooledCXLType1" in d.odata_id)
    assert (pooled.speed_gts, pooled.width, pooled.width_capable) == (32.0, 4, 8)  # Gen5 x4 of x8
    assert pooled.functions[0].function_id == 1
    host = Host(name="h", kind="esxi", pnics=[PhysicalNic(name="vmnic0", vid="abcd", did="abcd", svid="abcd",
                                                          ssid="abcd")])
    filled, notes = apply_devices(host, reading.devices, "redfish://bmc")
    assert filled == [] and host.pnics[0].pcie_width is None
    assert "not decided from the BMC: 6 devices carry its PCI IDs" in notes[0]


def test_a_collection_in_pages_is_read_page_after_page_and_a_page_loop_ends(tmp_path):
    """A service that splits a collection into pages links the next one in ``Members@odata.nextLink`` (DSP0266,
    "Resource collections"). The test's own copy of DMTF's public-tower mockup puts its nine PCIe devices on three
    pages (the pages are this test's; every device file is DMTF's, unchanged); the last page links back to the
    first, which ends the chain with a note instead of a loop."""
    import shutil

    from redfish_bmc import MOCKUPS

    mockup = tmp_path / "paged-tower"
    shutil.copytree(MOCKUPS / "public-tower", mockup)
    collection = mockup / "Chassis" / "Tower" / "PCIeDevices"
    whole = json.loads((collection / "index.json").read_text())
    everyone = whole["Members"]
    base = "/redfish/v1/Chassis/Tower/PCIeDevices"
    pages = [everyone[0:4], everyone[4:7], everyone[7:]]
    for n, part in enumerate(pages):
        page = dict(whole, Members=part, **{"@odata.id": base if n == 0 else f"{base}/Page{n + 1}"})
        page["Members@odata.nextLink"] = f"{base}/Page{n + 2}" if n + 1 < len(pages) else base
        folder = collection if n == 0 else collection / f"Page{n + 1}"
        folder.mkdir(exist_ok=True)
        (folder / "index.json").write_text(json.dumps(page))
    systems = mockup / "Systems"  # only the paged collection lists the devices
    for index in systems.rglob("index.json"):
        payload = json.loads(index.read_text())
        payload.pop("PCIeDevices", None)
        index.write_text(json.dumps(payload))
    with StaticBmc(tmp_path, mockup=mockup) as server:
        reading = read_bmc(RedfishTarget(url=server.url, for_host="h", user="admin", password="p",
                                         ca_bundle=server.ca_file))
    assert sorted(d.odata_id.rsplit("/", 1)[1] for d in reading.devices) == sorted(
        m["@odata.id"].rsplit("/", 1)[1] for m in everyone)
    assert f"{base}/Page2" in reading.requests and f"{base}/Page3" in reading.requests
    assert reading.requests.count(base) == 1
    assert any("link back to" in n and base in n for n in reading.notes), reading.notes


def test_a_huge_answer_is_refused_while_it_is_read(tmp_path):
    """A service answering every GET with 6 MB of JSON (a real HTTPS server on 127.0.0.1): refused at 4 MB."""
    import http.server
    import ssl
    import threading

    import trustme

    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)
    body = b'{"x": "' + b"a" * (6 * 1024 * 1024) + b'"}'

    class Huge(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:
                pass  # the client stopped reading: the point

        def log_message(self, *_args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Huge)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with pytest.raises(RedfishError, match="larger than 4194304 bytes"):
            read_bmc(RedfishTarget(url=f"https://127.0.0.1:{server.server_address[1]}", for_host="h", user="u",
                                   password="p", ca_bundle=str(ca_file)))
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
