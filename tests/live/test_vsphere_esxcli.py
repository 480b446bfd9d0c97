"""esxcli over the vSphere API and LLDP/CDP (QueryNetworkHint), the calls: nicadvisor.collect.vsphere_esxcli (the
reading half: tests/parsers/api/test_api_esxcli.py; the allowlist: tests/collect/test_vsphere_esxcli_commands.py).

Sources of the test data (no device output is invented here):

* ``GOVMOMI_VM_PORT_LIST`` / ``GOVMOMI_HOSTNAME_GET``: copied verbatim from govmomi v0.46.3
  ``govc/host/esxcli/fixtures/network_vm_port_list.xml`` and ``system_hostname_get.xml`` (Apache-2.0; real
  ExecuteSoap ``response`` documents recorded by the govmomi authors).
* esxcli-over-API rows are built from REAL captures in ``shared/fixtures/captures`` at test time:
  ``esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt`` (PowerCLI ``Get-EsxCli -V2``: the API's own field
  names and values), and, with the esxcli field names written without spaces as the API sends them (govmomi
  ``response.go`` / ``simulator/esx/command_info.go``: ``Recv Q`` ↔ ``RecvQ``),
  ``esxi_esxcli_nic_get_i40en_x710_fw7.10.txt``, ``esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt``,
  ``esxi_g_esxcli_system_module_parameters_list_ixgbe_grep_esxi60_elatov.txt``,
  ``esxi_vmkping-d_message_too_long_mtu_mismatch.txt`` (ping summary; ``Recieved`` is the API's spelling used by
  public PowerCLI scripts) and ``esxi_esxcli_nic_get_igbn_i350_1g.txt`` (esxcli error text);
  LLDP parameters from ``esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt``.
* Live: govmomi's vcsim v0.46.3, which implements no esxcli namespace (``RetrieveManagedMethodExecuter`` →
  ``MethodNotFound``) and answers ``QueryNetworkHint`` with an empty list; both checked against govc.
"""
from __future__ import annotations

import json
import re
import ssl
import subprocess
from xml.sax.saxutils import escape

import pytest
from pyVmomi import SoapStubAdapter, vim
from pyVmomi.SoapAdapter import SoapResponseDeserializer

from capturetools import capture_path, merged
from esxcli_rows import nic_get_row, powercli_rows, rows_xml
from nicadvisor.collect import vsphere_esxcli as vx
from nicadvisor.collect.sources import read_capture
from nicadvisor.collect.tls_pinning import fetch_thumbprint
from nicadvisor.collect.vsphere import VsphereTarget, collect_vsphere
from nicadvisor.parsers.api import esxcli_soap as soap
from nicadvisor.model.capabilities import switch_port_cell
from nicadvisor.parsers.assemble import assemble_host
from vcsimtools import GOVC, PASSWORD, USER

needs_govc = pytest.mark.skipif(GOVC is None, reason="govc not installed")


# --- the SOAP exchange, through pyVmomi's own serializer/deserializer (no server) ---------------------------

_ENV = ('<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
        'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        '<soapenv:Body>{}</soapenv:Body></soapenv:Envelope>')
_MME_ANSWER = _ENV.format('<RetrieveManagedMethodExecuterResponse xmlns="urn:vim25"><returnval '
                          'type="ReflectManagedMethodExecuter">host-21</returnval></RetrieveManagedMethodExecuterResponse>')


def _soap_result(inner: str) -> str:
    return _ENV.format(f'<ExecuteSoapResponse xmlns="urn:vim25"><returnval>{inner}</returnval></ExecuteSoapResponse>')


class ReplayStub(SoapStubAdapter):
    """A stub that serialises each request with pyVmomi and answers it from canned SOAP envelopes."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(host="127.0.0.1", port=9, version="vim.version.version9", httpConnectionTimeout=30)
        self.answers = list(answers)
        self.requests: list[str] = []

    def InvokeMethod(self, mo, info, args, outerStub=None):  # noqa: N802 - pyVmomi's name
        self.requests.append(self.SerializeRequest(mo, info, args).decode())
        return SoapResponseDeserializer(self).Deserialize(self.answers.pop(0).encode(), info.result)


def test_execute_soap_exchange_through_pyvmomi():
    rows = powercli_rows()
    stub = ReplayStub([_MME_ANSWER, _soap_result(f"<response>{escape(rows_xml(rows))}</response>"),
                       _soap_result(f"<response>{escape(rows_xml([nic_get_row('esxi_esxcli_nic_get_i40en_x710_fw7.10.txt')]))}</response>")])
    ex = vx.EsxcliExecutor(stub, "HostSystem:host-21", "esx-a", origin="vcenter://vc:443", notes=("pinned",))
    ans = ex.run(("network", "nic", "list"), timeout=30)
    assert ans.problem is None and ans.rows == rows
    assert merged([ans.facts])[0]["vmnic4"]["pci_address"] == "0000:04:00.4"
    retrieve, execute = stub.requests
    assert '<RetrieveManagedMethodExecuter xmlns="urn:vim25"><_this versionId="5.5" type="HostSystem">host-21</_this>' in retrieve
    assert ('<ExecuteSoap xmlns="urn:vim25"><_this versionId="5.5" type="ReflectManagedMethodExecuter">host-21</_this>'
            '<moid versionId="5.5">ha-cli-handler-network-nic</moid><version versionId="5.5">urn:vim25/5.0</version>'
            '<method versionId="5.5">vim.EsxCLI.network.nic.list</method></ExecuteSoap>') in execute
    assert ans.capture.source == "vcenter://vc:443/host-21/esxcli/network-nic-list"
    assert ans.capture.command == ("vSphere API: esxcli network nic list "
                                   "(ExecuteSoap ha-cli-handler-network-nic vim.EsxCLI.network.nic.list)")
    assert (ans.capture.host, ans.capture.notes, ans.capture.origin) == ("esx-a", ("pinned",), "vcenter://vc:443")
    assert soap.facts_from_recording(ans.capture.text).pnics == ans.facts.pnics
    # second command: the executer is reused (no second RetrieveManagedMethodExecuter), the argument is sent
    ans = ex.run(("network", "nic", "get"), {"nic-name": "vmnic0"}, timeout=30)
    assert len(stub.requests) == 3 and "RetrieveManagedMethodExecuter" not in stub.requests[2]
    assert ("<argument><name>nicname</name><val>&lt;nicname&gt;vmnic0&lt;/nicname&gt;</val></argument>"
            in stub.requests[2])
    assert merged([ans.facts])[0]["vmnic0"]["firmware_version"] == "7.10 0x800075e5 19.5.12"
    assert ans.capture.source == "vcenter://vc:443/host-21/esxcli/network-nic-get/vmnic0"


def test_esxcli_fault_is_a_problem_naming_the_command():
    text = read_capture(capture_path("esxi_esxcli_nic_get_igbn_i350_1g.txt")).text
    message = re.search(r"^ERROR: (.+)$", text, re.M).group(1)
    detail = (f'<obj xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:vim25" versionId="5.0" '
              f'xsi:type="VimEsxCLICLIFault"><errMsg>{escape(message)}</errMsg></obj>')
    stub = ReplayStub([_MME_ANSWER, _soap_result(
        f"<fault><faultMsg>EsxCLI.CLIFault.summary</faultMsg><faultDetail>{escape(detail)}</faultDetail></fault>")])
    ans = vx.esxcli_over_api(stub, "host-21", ("network", "nic", "get"), {"nic-name": "vmnic9"}, 30, host_name="esx-a")
    assert ans.rows == [] and ans.unsupported is None and not ans.facts.understood
    assert ans.problem.message == (
        "host esx-a: 'esxcli network nic get --nic-name vmnic9' over the vSphere API (ha-cli-handler-network-nic, "
        "vim.EsxCLI.network.nic.get) failed: EsxCLI.CLIFault.summary: Vmnic specified doesn't exist or is unsupported")
    assert json.loads(ans.capture.text)["fault"]["faultMsg"] == "EsxCLI.CLIFault.summary"
    # an answer pyVmomi cannot map (newer vcsim names the executer type "ManagedMethodExecuter") is a problem too
    stub = ReplayStub([_MME_ANSWER.replace('type="ReflectManagedMethodExecuter"', 'type="ManagedMethodExecuter"')])
    ans = vx.esxcli_over_api(stub, "host-21", ("network", "nic", "list"), None, 30)
    assert "answer not understood by pyVmomi (KeyError" in ans.problem.message


# --- live against vcsim ---------------------------------------------------------------------------------

def _target(sim, **kw) -> VsphereTarget:
    kw.setdefault("thumbprint", fetch_thumbprint("127.0.0.1", sim.port, 10))
    kw.setdefault("timeout_s", 10)
    return VsphereTarget(host="127.0.0.1", port=sim.port, user=USER, password=PASSWORD, **kw)


def _login(sim, timeout: float = 10):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # test-only: vcsim's throw-away self-signed certificate on 127.0.0.1
    stub = SoapStubAdapter(host="127.0.0.1", port=sim.port, version="vim.version.version9", sslContext=ctx,
                           httpConnectionTimeout=timeout)
    si = vim.ServiceInstance("ServiceInstance", stub)
    si.RetrieveContent().sessionManager.Login(USER, PASSWORD)
    return si


@needs_govc
def test_vcsim_has_no_esxcli_the_failure_is_a_problem(vcsim):
    hosts = {p["name"]: moid for moid, p in vcsim.govc_collect("name").items()}
    with pytest.raises(subprocess.CalledProcessError) as err:
        vcsim.govc("host.esxcli", "-host", "DC0_H0", "network", "nic", "list")
    assert f"HostSystem:{hosts['DC0_H0']} does not implement: RetrieveManagedMethodExecuter" in err.value.stderr
    si = _login(vcsim)
    try:
        for timeout in (10, 4):  # the session's own timeout, then a sibling stub sharing the session
            ans = vx.esxcli_over_api(si, hosts["DC0_H0"], ("network", "nic", "list"), {}, timeout, host_name="DC0_H0")
            assert ans.rows == [] and ans.unsupported == "MethodNotFound (RetrieveManagedMethodExecuter)"
            assert ans.problem.message == (
                "host DC0_H0: 'esxcli network nic list' over the vSphere API (ha-cli-handler-network-nic, "
                "vim.EsxCLI.network.nic.list) failed: this server cannot run esxcli over the API: MethodNotFound: "
                f"HostSystem:{hosts['DC0_H0']} does not implement: RetrieveManagedMethodExecuter")
            doc = json.loads(ans.capture.text)
            assert doc["response"] is None and doc["error"].startswith("MethodNotFound")
            assert ans.capture.source == f"vcenter://127.0.0.1:{vcsim.port}/{hosts['DC0_H0']}/esxcli/network-nic-list"
        with pytest.raises(ValueError, match="not allowed"):
            vx.esxcli_over_api(si, hosts["DC0_H0"], ("system", "maintenanceMode", "set"), {}, 5)
    finally:
        si.RetrieveContent().sessionManager.Logout()
        si._stub.DropConnections()


@needs_govc
def test_collect_records_hints_and_reports_esxcli_once_per_vcenter(vcsim):
    gov = vcsim.govc_collect("name", "configManager.networkSystem")
    netsys = {p["name"]: p["configManager.networkSystem"]["value"] for p in gov.values()}
    for name in netsys:
        assert json.loads(vcsim.govc("host.vnic.hint", "-host", name, "-json")) == {"hint": None}
    col = collect_vsphere([_target(vcsim, esxcli=True)])
    esx = [p for p in col.problems if "esxcli" in p.message]
    assert [p.message for p in esx] == [
        f"vCenter 127.0.0.1:{vcsim.port}: esxcli over the vSphere API (esxcli network nic list, esxcli network nic get, "
        "esxcli network nic coalesce get, esxcli system module parameters list) not available on 4 host(s): "
        "MethodNotFound (RetrieveManagedMethodExecuter)"]
    assert all("driver modules" in p.message for p in col.problems if p not in esx)
    for hi in col.hosts:
        caps = {c.command: (c, r) for c, r in hi.parsed}
        cap, facts = caps["vSphere API: HostNetworkSystem.QueryNetworkHint"]
        doc = json.loads(cap.text)
        assert doc["hints"] == [] and doc["networkSystem"] == f"HostNetworkSystem:{netsys[hi.name]}"
        assert facts.records == [] and not facts.understood
        failed = [c for c in caps if c.startswith("vSphere API: esxcli network nic list")]
        assert len(failed) == 1 and json.loads(caps[failed[0]][0].text)["error"].startswith("MethodNotFound")
        host, problems, _ = assemble_host(hi)
        assert problems == [] and len(host.pnics) > 0  # esxcli unavailability is one vCenter-level problem
        # per host, what the SSH collector would have run and could not be run here, and why
        reasons = {n.command: (n.reason, n.detail) for n in host.not_run}
        moid = next(m for m, p in gov.items() if p["name"] == hi.name)
        assert reasons["esxcli network nic list"] == (
            "api", f"this server cannot run esxcli over the API: MethodNotFound: HostSystem:{moid} does not implement: "
                   "RetrieveManagedMethodExecuter")
        devices = sorted(p.name for p in host.pnics if p.name.startswith("vmnic"))
        for nic in devices:  # not tried after the server showed it has no esxcli; vsish: never over the API
            assert reasons[f"esxcli network nic get --nic-name {nic}"] == (
                "api", "not tried: MethodNotFound (RetrieveManagedMethodExecuter)")
            reason, detail = reasons[f"vsish -e get /net/pNics/{nic}/properties"]
            assert reason == "api" and "collector script" in detail and "geneve offload" in detail
        assert "esxcfg-nics -e" not in reasons  # the API reads the ENS facts itself
        # no hint answered: every switch port is "not known", with the read that tells it, never a failure
        assert all(p.neighbor_port is None and p.neighbor_name is None for p in host.pnics)
        assert switch_port_cell(host, host.pnics[0]) == ("not known: run vim-cmd hostsvc/net/query_networkhint "
                                                         "(the switch must send LLDP or CDP)")


@needs_govc
def test_hints_of_a_disconnected_host_are_a_problem(vcsim_factory):
    sim = vcsim_factory("-cluster", "0", "-host", "0", "-standalone-host", "1", "-vm", "0")
    gov = sim.govc_collect("name", "configManager.networkSystem")
    (moid, props), = gov.items()
    sim.govc("host.disconnect", f"/DC0/host/{props['name']}/{props['name']}")
    si = _login(sim)
    try:
        cap, facts, problem = vx.query_network_hints(si, props["configManager.networkSystem"]["value"], moid,
                                                     props["name"], 10)
    finally:
        si.RetrieveContent().sessionManager.Logout()
        si._stub.DropConnections()
    assert cap is None and facts.records == []
    assert problem.message.startswith(f"host {props['name']}: LLDP/CDP (QueryNetworkHint) not read: HostNotConnected")
    assert problem.source == f"vcenter://127.0.0.1:{sim.port}/{moid}/networkSystem"
    # the collector skips hosts that are not connected: no hint call, only the disconnected-host problem
    col = collect_vsphere([_target(sim)])
    hi, = col.hosts
    assert [c.command for c, _ in hi.parsed if "QueryNetworkHint" in c.command] == []
    assert any("disconnected" in p.message or "notResponding" in p.message for p in hi.problems)
