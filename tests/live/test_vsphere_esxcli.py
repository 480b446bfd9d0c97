"""esxcli over the vSphere API and LLDP/CDP (QueryNetworkHint): nicadvisor.collect.vsphere_esxcli.

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

from capturetools import capture_path, merged, parse_capture
from nicadvisor.collect import vsphere_esxcli as vx
from nicadvisor.collect import vsphere_esxcli_commands as allow
from nicadvisor.parsers import rows as api_rows
from nicadvisor.parsers.api import esxcli_soap as soap
from nicadvisor.parsers.api import network_hints
from nicadvisor.parsers.esxi import coalesce, esxcli_nic, module, ping
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.collect.sources import read_capture
from nicadvisor.collect.tls_pinning import fetch_thumbprint
from nicadvisor.collect.vsphere import VsphereTarget, collect_vsphere
from vcsimtools import GOVC, PASSWORD, USER

needs_govc = pytest.mark.skipif(GOVC is None, reason="govc not installed")

# govmomi v0.46.3 govc/host/esxcli/fixtures/network_vm_port_list.xml (verbatim)
GOVMOMI_VM_PORT_LIST = """<obj xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:vim25" versionId="5.0" xsi:type="ArrayOfDataObject">
 <DataObject xsi:type="VimEsxCLInetworkvmportlistPort">
  <DVPortID></DVPortID>
  <IPAddress>192.168.247.149</IPAddress>
  <MACAddress>00:0c:29:12:b2:cf</MACAddress>
  <PortID>33554438</PortID>
  <Portgroup>VM Network</Portgroup>
  <TeamUplink>vmnic0</TeamUplink>
  <UplinkPortID>33554434</UplinkPortID>
  <vSwitch>vSwitch0</vSwitch>
 </DataObject>
</obj>"""

# govmomi v0.46.3 govc/host/esxcli/fixtures/system_hostname_get.xml (verbatim)
GOVMOMI_HOSTNAME_GET = """<obj xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:vim25" versionId="5.0" xsi:type="VimEsxCLIsystemhostnamegetFullyQualifiedHostName">
 <DomainName>localdomain</DomainName>
 <FullyQualifiedDomainName>esxbox.localdomain</FullyQualifiedDomainName>
 <HostName>esxbox</HostName>
</obj>"""

_OBJ_HEAD = ('<obj xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xmlns="urn:vim25" versionId="5.0" xsi:type="ArrayOfDataObject">')


# --- rows from the real captures -----------------------------------------------------------------------

def powercli_rows() -> list[dict[str, str]]:
    """The ``Key : Value`` records of the PowerCLI nic list capture, one dict per uplink."""
    text = read_capture(capture_path("esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt")).text
    rows = []
    for block in re.split(r"\n\s*\n", text.strip()):
        row = {}
        for line in block.splitlines():
            key, _, value = line.partition(":")
            row[key.strip()] = value.strip()
        rows.append(row)
    return rows


def nic_get_row(name: str) -> dict:
    """An ``esxcli network nic get`` capture as the API row: keys without spaces, ``Driver Info`` nested."""
    text = read_capture(capture_path(name)).text
    row: dict = {}
    info: dict = {}
    for line in text.splitlines():
        if ":" not in line:
            continue
        key, _, value = line.partition(":")
        indent = len(key) - len(key.lstrip())
        k = key.strip().replace(" ", "")
        if k == "DriverInfo":
            row[k] = info
        elif indent > 6:
            info[k] = value.strip()
        else:
            row[k] = value.strip()
    return row


def table_rows(name: str, header_re: str) -> list[dict[str, str]]:
    """A fixed-width esxcli table of a capture as API rows (column names without spaces)."""
    from nicadvisor.parsers.base import columns_from_header, cut, is_rule

    lines = [ln.lstrip("\t") for ln in read_capture(capture_path(name)).text.splitlines()]
    h = next(i for i, ln in enumerate(lines) if re.match(header_re, ln))
    rule = lines[h + 1] if is_rule(lines[h + 1]) else None
    cols = columns_from_header(lines[h], rule)
    rows = []
    for ln in lines[h + (2 if rule else 1):]:
        if not ln.strip() or ln.lstrip().startswith("["):
            break
        rows.append({n.replace(" ", ""): cut(ln, s, e) for n, s, e in cols})
    return rows


def rows_xml(rows: list[dict]) -> str:
    """Rows serialised in the layout of the govmomi fixtures (``<obj …ArrayOfDataObject><DataObject>``)."""
    def body(d: dict) -> str:
        return "".join(f"<{k}>{body(v) if isinstance(v, dict) else escape(v)}</{k}>" for k, v in d.items())
    return _OBJ_HEAD + "".join(f"<DataObject>{body(r)}</DataObject>" for r in rows) + "</obj>"


# --- allowlist and validation -----------------------------------------------------------------------------

def test_allowlist_and_argument_validation():
    assert sorted(" ".join(w) for w in allow.ALLOWED) == [
        "network diag ping", "network nic coalesce get", "network nic get", "network nic list",
        "system module parameters list"]
    spec, values = allow.validate(("network", "diag", "ping"), {"host": "192.168.6.1", "size": 8972, "df": True,
                                                             "interface": "vmk10", "netstack": "vxlan", "count": 3})
    assert (spec.moid, spec.method) == ("ha-cli-handler-network-diag", "vim.EsxCLI.network.diag.ping")
    assert allow.command_text(spec, values) == (
        "esxcli network diag ping --host 192.168.6.1 --size 8972 --df --interface vmk10 --netstack vxlan --count 3")
    assert allow.soap_arguments(values) == [
        {"name": "host", "val": "<host>192.168.6.1</host>"}, {"name": "size", "val": "<size>8972</size>"},
        {"name": "df", "val": "<df>true</df>"}, {"name": "interface", "val": "<interface>vmk10</interface>"},
        {"name": "netstack", "val": "<netstack>vxlan</netstack>"}, {"name": "count", "val": "<count>3</count>"}]
    _, values = allow.validate(["network", "diag", "ping"], {"host": "esx-tep.example.com", "df": False})
    assert allow.soap_arguments(values) == [{"name": "host", "val": "<host>esx-tep.example.com</host>"}]
    spec, values = allow.validate(("network", "nic", "get"), {"nic-name": "vmnic1000202"})
    assert spec.moid == "ha-cli-handler-network-nic" and values[0][0].param == "nicname"
    assert allow.validate(("system", "module", "parameters", "list"), {"module": "i40en"})[1][0][0].param == "module"
    bad = [
        (("system", "shutdown", "reboot"), {}, "not allowed over the vSphere API"),
        (("network", "nic", "list"), {"nic-name": "vmnic0"}, "unknown option(s) --nic-name (it takes none)"),
        (("network", "nic", "get"), {}, "--nic-name is required"),
        (("network", "nic", "get"), {"nic-name": "vmnic0; reboot"}, "--nic-name must be an uplink name"),
        (("system", "module", "parameters", "list"), {"module": "<x/>"}, "--module must be a driver module name"),
        (("network", "diag", "ping"), {"host": "10.0.0.1 -c 99"}, "--host must be an IP address or a host name"),
        (("network", "diag", "ping"), {"host": "999.1.1.1"}, "--host must be an IP address"),
        (("network", "diag", "ping"), {"host": "h", "size": 65508}, "--size must be an integer from 1 to 65507"),
        (("network", "diag", "ping"), {"host": "h", "size": True}, "--size must be an integer"),
        (("network", "diag", "ping"), {"host": "h", "count": 11}, "--count must be an integer from 1 to 10"),
        (("network", "diag", "ping"), {"host": "h", "df": "yes"}, "--df must be True or False"),
        (("network", "diag", "ping"), {"host": "h", "interface": "eth0"}, "--interface must be a VMkernel interface"),
        (("network", "diag", "ping"), {"host": "h", "netstack": "a b"}, "--netstack must be a netstack name"),
        (("network", "diag", "ping"), {"host": "h", "ttl": 2}, "unknown option(s) --ttl"),
    ]
    for command, args, message in bad:
        with pytest.raises(ValueError, match=re.escape(message)):
            allow.validate(command, args)


# --- response XML → rows ---------------------------------------------------------------------------------

def test_response_rows_on_govmomi_fixtures():
    rows, kind, err = soap.response_rows(GOVMOMI_VM_PORT_LIST)
    assert err is None and kind == "VimEsxCLInetworkvmportlistPort"
    assert rows == [{"DVPortID": "", "IPAddress": "192.168.247.149", "MACAddress": "00:0c:29:12:b2:cf",
                     "PortID": "33554438", "Portgroup": "VM Network", "TeamUplink": "vmnic0",
                     "UplinkPortID": "33554434", "vSwitch": "vSwitch0"}]
    rows, kind, err = soap.response_rows(GOVMOMI_HOSTNAME_GET)
    assert (rows, kind, err) == ([{"DomainName": "localdomain", "FullyQualifiedDomainName": "esxbox.localdomain",
                                   "HostName": "esxbox"}], "VimEsxCLIsystemhostnamegetFullyQualifiedHostName", None)
    assert api_rows.row_line(rows[0]) == "DomainName=localdomain; FullyQualifiedDomainName=esxbox.localdomain; HostName=esxbox"
    assert soap.response_rows("")[2] == "empty response"
    assert soap.response_rows("<obj><unclosed></obj>")[2].startswith("response is not XML")
    assert "DOCTYPE" in soap.response_rows('<!DOCTYPE x [<!ENTITY a "b">]><obj>&a;</obj>')[2]
    # an unknown command's rows are not turned into facts, just noted
    assert soap.facts_for(("network", "vm", "port", "list"), rows).notes == ["no converter for 'esxcli network vm port list'"]


# --- rows → facts, against the text parsers on the same real captures --------------------------------------

def test_nic_list_rows_match_the_capture_and_the_text_parser():
    rows = powercli_rows()
    facts = esxcli_nic.nic_list_facts(rows)
    assert facts.notes == [] and facts.family == "vSphere API esxcli network nic list"
    pnics = merged([facts])[0]
    assert sorted(pnics) == ["vmnic0", "vmnic1", "vmnic4", "vmnic5"]
    assert pnics["vmnic0"] == {"pci_address": "0000:04:00.0", "is_physical": True, "driver": "bnx2x", "admin_up": True,
                               "link_up": True, "link_speed_mbps": 10000, "duplex": "full", "mac": "fc:15:b4:15:14:60",
                               "mtu": 1500,
                               "description": "Broadcom Corporation QLogic 57810 10 Gigabit Ethernet Adapter"}
    assert pnics["vmnic5"]["pci_address"] == "0000:04:00.5" and pnics["vmnic5"]["mac"] == "fc:15:b4:15:14:66"
    assert facts.pnics["vmnic0"]["mtu"].line.startswith("AdminStatus=Up; Description=Broadcom Corporation")
    # the esxcli text parser reads the same PowerCLI records into the same facts
    assert merged(parse_capture("esxi_powercli_esxcli_nic_list_bnx2x_qlogic57810.txt"))[0] == pnics


def test_nic_get_row_matches_the_text_parser():
    row = nic_get_row("esxi_esxcli_nic_get_i40en_x710_fw7.10.txt")
    assert row["DriverInfo"] == {"BusInfo": "0000:19:00:0", "Driver": "i40en",
                                 "FirmwareVersion": "7.10 0x800075e5 19.5.12", "Version": "1.8.6"}
    facts = esxcli_nic.nic_get_facts([row], {"nic-name": "vmnic0"})
    pnics = merged([facts])[0]
    assert pnics == {"vmnic0": {"pci_address": "0000:19:00.0", "is_physical": True, "driver": "i40en",
                                "driver_version": "1.8.6", "firmware_version": "7.10 0x800075e5 19.5.12",
                                "link_up": False}}
    assert merged(parse_capture("esxi_esxcli_nic_get_i40en_x710_fw7.10.txt"))[0] == pnics
    fields = facts.records[0]["fields"]
    assert facts.records[0]["nic"] == "vmnic0" and fields["VirtualAddress"] == "00:50:56:56:d8:de"
    assert fields["AdvertisedLinkModes"] == "Auto, 1000BaseX/Full, 10000BaseX/Full" and "DriverInfo" not in fields


def test_coalesce_rows_match_the_text_parser():
    rows = table_rows("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt", r"^NIC\s+RX microseconds")
    assert rows[2] == {"NIC": "vmnic1000202", "RXmicroseconds": "3", "RXmaximumframes": "15", "TXmicroseconds": "0",
                       "TXMaximumframes": "1", "AdaptiveRX": "Off", "AdaptiveTX": "Off", "Sampleintervalseconds": "0"}
    facts = coalesce.coalesce_facts(rows)
    pnics = merged([facts])[0]
    assert pnics == {"vmnic1000202": {"coalesce_rx_usecs": 3, "coalesce_rx_frames": 15, "coalesce_tx_usecs": 0,
                                      "coalesce_tx_frames": 1, "coalesce_adaptive_rx": False},
                     "vmnic2": {"coalesce_rx_usecs": 3, "coalesce_rx_frames": 15, "coalesce_tx_usecs": 0,
                                "coalesce_tx_frames": 1, "coalesce_adaptive_rx": False}}  # N/A rows: nothing
    assert merged(parse_capture("esxi_esxcli_nic_coalesce_get_mellanox_connectx3.txt"))[0] == pnics
    assert [r["nic"] for r in facts.records] == ["vmnic0", "vmnic1", "vmnic1000202", "vmnic2"]
    assert facts.records[2] == {"kind": "coalesce", "nic": "vmnic1000202", "adaptive_tx": False, "sample_interval_s": 0}


def test_module_parameters_rows():
    rows = table_rows("esxi_g_esxcli_system_module_parameters_list_ixgbe_grep_esxi60_elatov.txt", r"^Name\s+Type")
    assert rows == [{"Name": "LRO", "Type": "array of int", "Value": "0",
                     "Description": "Large Receive Offload (0,1), default 1 = on"}]
    facts = module.module_parameters_facts(rows, {"module": "ixgbe"})
    mods = merged([facts])[3]
    assert mods == {"ixgbe": {"parameters": {"LRO": "Large Receive Offload (0,1), default 1 = on"}, "options": {"LRO": "0"}}}
    assert facts.records == [{"kind": "module_parameter", "module": "ixgbe", "name": "LRO", "type": "array of int",
                              "value": "0", "description": "Large Receive Offload (0,1), default 1 = on"}]
    unset = [dict(rows[0], Value="")]
    assert merged([module.module_parameters_facts(unset, {"module": "ixgbe"})])[3]["ixgbe"]["options"] == {}
    assert module.module_parameters_facts(rows, {}).notes == [
        "esxcli system module parameters list (API): module name unknown"]


def test_ping_summary_record():
    text = read_capture(capture_path("esxi_vmkping-d_message_too_long_mtu_mismatch.txt")).text
    m = re.search(r"(\d+) packets transmitted, (\d+) packets received, (\d+)% packet loss", text)
    row = {"Summary": {"HostAddr": "192.168.6.1", "Transmitted": m.group(1), "Recieved": m.group(2),
                       "PacketLost": m.group(3)}}
    facts = ping.ping_facts([row], {"host": "192.168.6.1", "size": 1500, "df": True})
    assert facts.records == [{"kind": "vmkping", "via": "vSphere API", "size": 1500, "df": True, "target": "192.168.6.1",
                              "sent": 3, "received": 0, "loss_pct": 100.0, "error": None, "interface": None,
                              "netstack": None, "rtt_avg_us": None, "rtt_min_us": None, "rtt_max_us": None}]
    assert not facts.pnics and not facts.vmknics
    assert ping.ping_facts([]).notes == ["esxcli network diag ping (API): empty answer"]


def test_lldp_hint_records():
    text = read_capture(capture_path("esxi_api_ansible_vmnic_info_x540_ixgbe_lldp_partial.txt")).text
    params = [{"key": k, "value": v} for k, v in re.findall(r'"(Aggregat[^"]+)": "([^"]*)"', text)]
    assert params == [{"key": "Aggregated Port ID", "value": "0"}, {"key": "Aggregation Status", "value": "1"}]
    hints = [{"device": "vmnic0", "lldpInfo": {"parameter": params}}, {"device": "vmnic1"}, "junk", {"device": 3}]
    facts = network_hints.hint_facts(hints)
    assert facts.records == [{"kind": "lldp", "nic": "vmnic0", "chassis_id": None, "port_id": None, "ttl_s": None,
                              "system_name": None,
                              "parameters": {"Aggregated Port ID": "0", "Aggregation Status": "1"}}]
    assert not facts.pnics and facts.notes == []
    # recorded and replayed
    text = network_hints.hints_recording("HostSystem:host-21", "HostNetworkSystem:hostnetworksystem-15", hints[:2], "vc:443")
    assert network_hints.facts_from_recording(text).records == facts.records


def test_recording_replays_into_the_same_facts():
    rows = powercli_rows()
    xml = rows_xml(rows)
    assert soap.response_rows(xml)[0] == rows
    spec, values = allow.validate(("network", "nic", "list"))
    text = soap.esxcli_recording("HostSystem:host-21", spec.words, {}, spec.moid, spec.method, [], xml, None, None, "vc:443")
    doc = json.loads(text)
    assert (doc["kind"], doc["moid"], doc["method"], doc["version"]) == (
        "esxcli", "ha-cli-handler-network-nic", "vim.EsxCLI.network.nic.list", "urn:vim25/5.0")
    assert soap.facts_from_recording(text).pnics == esxcli_nic.nic_list_facts(rows).pnics
    failed = soap.esxcli_recording("HostSystem:host-21", spec.words, {}, spec.moid, spec.method, [], None, None,
                                 "MethodNotFound: x", None)
    assert soap.facts_from_recording(failed).notes == ["esxcli network nic list: no response recorded (MethodNotFound: x)"]
    assert soap.facts_from_recording("not json").notes[0].startswith("not an esxcli-over-API recording")
    assert soap.facts_from_recording("[1]").notes == ["not an esxcli-over-API recording (no kind/command)"]


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
