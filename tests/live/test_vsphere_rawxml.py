"""The raw-XML PropertyCollector reader (collect/vsphere_rawxml.py) against govmomi's vcsim.

Everything is checked against pyVmomi on the same simulator: the plain values must be *identical* to
``to_plain`` of pyVmomi's objects (whole structures compared), and ``collect_vsphere`` must record the
same Captures and facts with ``raw_xml`` on and off. Answers replayed by the small local HTTP server
below are real vcsim answers recorded during the test (compressed or altered where a test says so).
"""
from __future__ import annotations

import gc
import gzip
import http.client
import http.server
import json
import socket
import threading
from contextlib import contextmanager
from typing import Any, Iterator

import pytest
from pyVmomi import SoapStubAdapter, vim, vmodl

from nicadvisor.cancel import Cancelled
from nicadvisor.collect import vsphere
from nicadvisor.collect.tls_pinning import fetch_thumbprint, ssl_context_for
from nicadvisor.collect.vsphere import VsphereTarget, collect_vsphere, describe_error, negotiate_version, to_plain
from nicadvisor.collect.vsphere_rawxml import RawPropertyCollector, SoapResponseError
from vcsimtools import GOVC, PASSWORD, USER

pcq = vmodl.query.PropertyCollector


def target(sim, **kw) -> VsphereTarget:
    kw.setdefault("thumbprint", fetch_thumbprint("127.0.0.1", sim.port, 10))
    kw.setdefault("timeout_s", 10)
    kw.setdefault("modules", False)
    kw.setdefault("network_hints", False)
    return VsphereTarget(host="127.0.0.1", port=sim.port, user=USER, password=PASSWORD, **kw)


class Session:
    """A logged-in pyVmomi session on a vcsim, with helpers to build PropertyCollector specs."""

    def __init__(self, port: int, timeout: float = 10) -> None:
        ctx, _ = ssl_context_for("127.0.0.1", port, thumbprint=fetch_thumbprint("127.0.0.1", port, 10), timeout=timeout)
        self.stub = SoapStubAdapter(host="127.0.0.1", port=port, version=negotiate_version("127.0.0.1", port, ctx, timeout),
                                    sslContext=ctx, httpConnectionTimeout=timeout)
        self.content = vim.ServiceInstance("ServiceInstance", self.stub).RetrieveContent()
        self.content.sessionManager.Login(USER, PASSWORD)
        self.pc = self.content.propertyCollector

    def spec(self, types: list[type], paths: list[str]) -> Any:
        view = self.content.viewManager.CreateContainerView(self.content.rootFolder, types, True)
        traverse = pcq.TraversalSpec(name="traverseView", type=vim.view.ContainerView, path="view", skip=False)
        return pcq.FilterSpec(objectSet=[pcq.ObjectSpec(obj=view, skip=True, selectSet=[traverse])],
                              propSet=[pcq.PropertySpec(type=t, pathSet=paths) for t in types])

    def pyvmomi(self, spec: Any, page: int = 100) -> dict[str, dict]:
        """``{"Type:moid": {path: to_plain(val)}}`` through pyVmomi's deserializer."""
        out: dict[str, dict] = {}
        result = self.pc.RetrievePropertiesEx([spec], pcq.RetrieveOptions(maxObjects=page))
        while result is not None:
            for oc in result.objects:
                out[f"{oc.obj._wsdlName}:{oc.obj._moId}"] = {p.name: to_plain(p.val) for p in oc.propSet}
            result = self.pc.ContinueRetrievePropertiesEx(result.token) if result.token else None
        return out

    def raw(self, spec: Any, page: int = 100) -> tuple[dict[str, dict], int, list[str]]:
        """The same through RawPropertyCollector: (values, pages, conversion notes)."""
        raw = RawPropertyCollector(self.stub, self.pc)
        out: dict[str, dict] = {}
        notes: list[str] = []
        result = raw.retrieve([spec], pcq.RetrieveOptions(maxObjects=page))
        pages = 1
        while True:
            for oc in result.objects:
                out[oc.ref] = oc.all_plain()
            notes += result.notes
            if not result.token:
                return out, pages, notes
            result = raw.continue_retrieve(result.token)
            pages += 1

    def close(self) -> None:
        self.content.sessionManager.Logout()
        self.stub.DropConnections()


@pytest.fixture(scope="module")
def rich_sim(vcsim_factory):
    """vcsim with VMs and a second VDS (MTU 9000, one host member, a VLAN portgroup). (vcsim does not show
    vSwitches added with host.vswitch.add in HostSystem config.network, so none are added.)"""
    sim = vcsim_factory("-cluster", "1", "-host", "3", "-standalone-host", "1", "-vm", "2")
    if GOVC is not None:
        host = "/DC0/host/DC0_C0/DC0_C0_H1"
        sim.govc("dvs.create", "-mtu", "9000", "DVS9")
        sim.govc("dvs.add", "-dvs", "DVS9", "-pnic", "vmnic1", host)
        sim.govc("dvs.portgroup.add", "-dvs", "DVS9", "-vlan", "100", "PG-TEP")
    return sim


@pytest.fixture
def session(rich_sim) -> Iterator[Session]:
    s = Session(rich_sim.port)
    yield s
    s.close()


# --- identical plain values ---------------------------------------------------------------------------

@pytest.mark.parametrize("types, paths", [
    ([vim.HostSystem], list(vsphere.HOST_PATHS)),
    ([vim.HostSystem], ["config", "hardware", "summary", "runtime", "capability", "configManager", "datastore", "vm"]),
    ([vim.VirtualMachine], ["config", "runtime", "guest", "summary", "layoutEx", "storage", "capability"]),
    ([vim.DistributedVirtualSwitch, vim.dvs.DistributedVirtualPortgroup], ["name", "config", "summary"]),
    ([vim.ClusterComputeResource, vim.Datastore, vim.Folder], ["name", "summary", "childType", "host"]),
], ids=["host-paths", "host-whole-config", "vm-whole-config", "dvs", "misc"])
def test_raw_values_equal_pyvmomi_to_plain(session, types, paths):
    spec = session.spec(types, paths)
    want = session.pyvmomi(spec)
    got, _pages, notes = session.raw(spec)
    assert want and got == want
    assert notes == []


def test_raw_value_shapes(session):
    got, _, _ = session.raw(session.spec([vim.HostSystem], list(vsphere.HOST_PATHS)))
    by_name = {props["name"]: (ref, props) for ref, props in got.items()}
    ref, h = by_name["DC0_C0_H1"]
    assert ref.startswith("HostSystem:host-")
    assert h["summary.config.product.version"] == "8.0.2" and h["summary.config.product.build"] == "21997540"
    assert h["runtime.connectionState"] == "connected" and h["runtime.inMaintenanceMode"] is False
    assert [(p["device"], p["pci"], p["driver"], p["linkSpeed"]) for p in h["config.network.pnic"]] == [
        ("vmnic0", "0000:0b:00.0", "nvmxnet3", {"speedMb": 10000, "duplex": True}),
        ("vmnic1", "0000:13:00.0", "nvmxnet3", {"speedMb": 10000, "duplex": True})]
    intel = [d for d in h["hardware.pciDevice"] if d["vendorName"] == "Intel Corporation"]
    assert intel and {d["vendorId"] for d in intel} == {-32634}  # xsd:short, signed as sent (0x8086)
    assert isinstance(h["hardware.pciDevice"][0]["classId"], int)
    assert h["configManager.kernelModuleSystem"].startswith("HostKernelModuleSystem:")
    assert [(s["name"], s["mtu"]) for s in h["config.network.vswitch"]] == [("vSwitch0", 1500)]


# --- collect_vsphere: raw path == pyVmomi path ---------------------------------------------------------

def _snapshot(col) -> dict:
    return {
        "hosts": [(h.name, [(c.source, c.command, c.text, c.notes) for c, _ in h.parsed],
                   [(r.host, r.pnics, r.switches, r.vmknics, r.modules, r.notes) for _, r in h.parsed],
                   [p.message for p in h.problems]) for h in col.hosts],
        "problems": [p.message for p in col.problems],
    }


@pytest.mark.parametrize("page_size", [100, 2])
def test_collect_raw_equals_pyvmomi(rich_sim, page_size):
    raw = collect_vsphere([target(rich_sim, page_size=page_size)])
    ref = collect_vsphere([target(rich_sim, page_size=page_size, raw_xml=False)])
    assert raw.problems == [] and len(raw.hosts) == 4
    assert _snapshot(raw) == _snapshot(ref)
    props = {h.name: json.loads(h.parsed[0][0].text)["propSet"] for h in raw.hosts}
    # hardware.pciDevice is cut down to the pNICs' devices (network class 0x02xx) on both paths
    assert [d["id"] for d in props["DC0_H0"]["hardware.pciDevice"]] == ["0000:0b:00.0", "0000:13:00.0"]
    if GOVC is not None:
        dvs = {h.name: {d["name"]: d for d in json.loads(h.parsed[0][0].text)["dvs"]} for h in raw.hosts}
        assert sorted(dvs["DC0_C0_H1"]) == ["DVS0", "DVS9"] and sorted(dvs["DC0_C0_H0"]) == ["DVS0"]
        pgs = {p["name"]: p for p in dvs["DC0_C0_H1"]["DVS9"]["portgroups"]}
        assert pgs["PG-TEP"]["config.defaultPortConfig"]["vlan"]["vlanId"] == 100


def test_missing_properties_become_host_problems(rich_sim, monkeypatch):
    """vcsim answers an unknown path with a missingSet entry (InvalidProperty): same problem both ways."""
    monkeypatch.setattr(vsphere, "HOST_PATHS", vsphere.HOST_PATHS + ("config.bogusPath",))
    got = {}
    for raw_xml in (True, False):
        col = collect_vsphere([target(rich_sim, raw_xml=raw_xml)])
        got[raw_xml] = _snapshot(col)
        problems = {h.name: [p.message for p in h.problems] for h in col.hosts}
        assert problems["DC0_H0"] == ["host DC0_H0: property config.bogusPath not returned: "
                                      "InvalidProperty: vmodl.query.InvalidProperty"]
    assert got[True] == got[False]


# --- paging, cancel ------------------------------------------------------------------------------------

def test_paging_across_several_pages(session):
    spec = session.spec([vim.HostSystem], ["name", "config.network.pnic"])
    whole, pages_one, _ = session.raw(spec, page=100)
    paged, pages, _ = session.raw(spec, page=1)
    assert pages_one == 1 and pages == len(whole) == 4
    assert paged == whole == session.pyvmomi(spec, page=1)


def test_cancel_between_pages(rich_sim):
    cancel = threading.Event()
    seen: list[str] = []

    def progress(_f: float, message: str) -> None:
        seen.append(message)
        if message.endswith("read 1 hosts"):
            cancel.set()

    with pytest.raises(Cancelled):
        collect_vsphere([target(rich_sim, page_size=1)], progress=progress, cancel=cancel)
    assert not any(m.endswith("read 2 hosts") for m in seen)


# --- faults, timeouts ----------------------------------------------------------------------------------

def test_soap_fault_is_raised_like_pyvmomi(session):
    spec = pcq.FilterSpec(objectSet=[pcq.ObjectSpec(obj=vim.HostSystem("host-999", session.stub))],
                          propSet=[pcq.PropertySpec(type=vim.HostSystem, pathSet=["name"])])
    with pytest.raises(vmodl.fault.ManagedObjectNotFound) as want:
        session.pc.RetrievePropertiesEx([spec], pcq.RetrieveOptions())
    with pytest.raises(vmodl.fault.ManagedObjectNotFound) as got:
        RawPropertyCollector(session.stub, session.pc).retrieve([spec], pcq.RetrieveOptions())
    assert got.value.msg == want.value.msg == "The object has already been deleted or has not been completely created"


def test_soap_fault_mid_paging_is_a_problem(rich_sim, monkeypatch):
    """A token the server no longer knows (as after a vCenter restart) → vcsim's InvalidProperty fault on
    page 2 → one vCenter problem naming the stage; hosts are not half-returned. (pyVmomi cannot even read
    this vcsim fault: its xsi:type is "InvalidPropertyFault".)"""
    original = RawPropertyCollector.fetch_continue
    monkeypatch.setattr(RawPropertyCollector, "fetch_continue", lambda self, token: original(self, "expired-token"))
    col = collect_vsphere([target(rich_sim, page_size=2)])
    (p,) = col.problems
    assert p.message == (f"vCenter 127.0.0.1:{rich_sim.port}: reading distributed switches (page 2) failed: "
                         "InvalidProperty: vmodl.query.InvalidProperty")
    assert col.hosts == [] and col.sessions[0].error == p.message


def test_hanging_server_hits_the_timeout(vcsim_factory):
    slow = vcsim_factory("-cluster", "1", "-host", "4", "-standalone-host", "0", "-vm", "0",
                         "-method-delay", "ContinueRetrievePropertiesEx:3600000")  # an hour: only the timeout ends it
    col = collect_vsphere([target(slow, page_size=2, timeout_s=5)])  # page 1 answers within 5 s under load too
    (p,) = col.problems
    assert "(page 2) failed: no answer within 5 s" in p.message


@contextmanager
def silent_server() -> Iterator[int]:
    """A TCP port that accepts connections and never answers."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(4)
        yield srv.getsockname()[1]


def _offline_client(port: int, timeout: float) -> tuple[RawPropertyCollector, Any]:
    """A RawPropertyCollector on a plain-HTTP stub (negative port = http in pyVmomi) and a small spec."""
    stub = SoapStubAdapter(host="127.0.0.1", port=-port, version="vim.version.v8_0_3_0", httpConnectionTimeout=timeout)
    pc = vmodl.query.PropertyCollector("propertyCollector", stub)
    spec = pcq.FilterSpec(objectSet=[pcq.ObjectSpec(obj=vim.HostSystem("host-21", stub))],
                          propSet=[pcq.PropertySpec(type=vim.HostSystem, pathSet=["name"])])
    return RawPropertyCollector(stub, pc), spec


def test_silent_server_times_out():
    with silent_server() as port:
        raw, spec = _offline_client(port, 0.5)
        with pytest.raises((socket.timeout, TimeoutError)):  # the server never answers: only the timeout ends it
            raw.retrieve([spec], pcq.RetrieveOptions())


# --- replayed answers: gzip, HTTP errors, odd values ---------------------------------------------------

def _record_answer(session: Session, spec: Any) -> bytes:
    """The exact bytes vcsim answers to this RetrievePropertiesEx (no compression asked)."""
    body = session.stub.SerializeRequest(session.pc, session.pc._GetMethodInfo("RetrievePropertiesEx"),
                                         [[spec], pcq.RetrieveOptions()])
    conn = session.stub.GetConnection()
    try:
        conn.request("POST", session.stub.path, body, {"Cookie": session.stub.cookie, "SOAPAction": session.stub.versionId,
                                                       "Content-Type": "text/xml; charset=UTF-8"})
        resp = conn.getresponse()
        assert resp.status == 200
        return resp.read()
    finally:
        conn.close()


@contextmanager
def replay_server(status: int, body: bytes, headers: dict[str, str]) -> Iterator[int]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _replay(status: int, body: bytes, headers: dict[str, str] | None = None) -> dict[str, dict]:
    with replay_server(status, body, headers or {"Content-Type": "text/xml"}) as port:
        raw, spec = _offline_client(port, 5)
        result = raw.retrieve([spec], pcq.RetrieveOptions())
        return {oc.ref: oc.all_plain() for oc in result.objects} | {"notes": result.notes}  # type: ignore[dict-item]


def test_gzip_answer_reads_the_same(session):
    spec = session.spec([vim.HostSystem], list(vsphere.HOST_PATHS))
    answer = _record_answer(session, spec)
    plain = _replay(200, answer)
    assert plain.pop("notes") == []
    assert plain == session.pyvmomi(spec)
    zipped = _replay(200, gzip.compress(answer), {"Content-Type": "text/xml", "Content-Encoding": "gzip"})
    assert zipped.pop("notes") == [] and zipped == plain


def test_http_error_and_unreadable_answers(session):
    with replay_server(503, b"busy", {}) as port:
        raw, spec = _offline_client(port, 5)
        with pytest.raises(http.client.HTTPException, match="^503 Service Unavailable$"):
            raw.retrieve([spec], pcq.RetrieveOptions())
    answer = _record_answer(session, session.spec([vim.HostSystem], ["name"]))
    for broken in (b"<html>proxy error</html>", answer[: len(answer) // 2]):
        with replay_server(200, broken, {}) as port:
            raw, spec = _offline_client(port, 5)
            with pytest.raises(SoapResponseError):
                raw.retrieve([spec], pcq.RetrieveOptions())
    assert describe_error(SoapResponseError("answer is not readable XML"), target_stub()).startswith("SoapResponseError:")


def target_stub() -> VsphereTarget:
    return VsphereTarget(host="vc.example.com", user="u", password="p")


def test_odd_values_are_left_out_with_notes(session):
    """A real answer with two values altered: they are left out (unknown, not 0/False), noted, no exception."""
    answer = _record_answer(session, session.spec([vim.HostSystem], ["name", "config.network.pnic"]))
    assert answer.count(b"<speedMb>10000</speedMb>") > 0 and b"<duplex>true</duplex>" in answer
    altered = answer.replace(b"<speedMb>10000</speedMb>", b"<speedMb>fast</speedMb>", 1)
    altered = altered.replace(b"<duplex>true</duplex>", b"<duplex>maybe</duplex>", 1)
    got = _replay(200, altered)
    assert got.pop("notes") == ["speedMb: 'fast' is not an integer", "duplex: 'maybe' is not a boolean"]
    first = next(iter(got.values()))  # the first host of the answer holds both altered values
    nic = first["config.network.pnic"][0]
    # both are required properties: left out, NOT pyVmomi's defaults 0 / False
    assert nic["linkSpeed"] == {} and nic["device"] == "vmnic0"
    assert first["config.network.pnic"][1]["linkSpeed"] == {"speedMb": 10000, "duplex": True}


@pytest.mark.parametrize("enabled", [True, False])
def test_gc_state_is_restored(session, enabled):
    """The parse pauses the cyclic GC per chunk; whatever the state was, it is the same afterwards."""
    spec = session.spec([vim.HostSystem], ["name", "hardware.pciDevice"])
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        got, _, _ = session.raw(spec)
        assert len(got) == 4 and gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
