"""esxcli answers over the vSphere API for the tests, built from REAL outputs (test helper, not a test module).

Sources (no device output is invented here):

* ``GOVMOMI_VM_PORT_LIST`` / ``GOVMOMI_HOSTNAME_GET``: copied verbatim from govmomi v0.46.3
  ``govc/host/esxcli/fixtures/network_vm_port_list.xml`` and ``system_hostname_get.xml`` (Apache-2.0; real
  ExecuteSoap ``response`` documents recorded by the govmomi authors).
* rows built from REAL captures in ``shared/fixtures/captures`` at test time: ``esxi_powercli_esxcli_nic_list_bnx2x_
  qlogic57810.txt`` (PowerCLI ``Get-EsxCli -V2``: the API's own field names and values), and, with the esxcli field
  names written without spaces as the API sends them (govmomi ``response.go`` / ``simulator/esx/command_info.go``:
  ``Recv Q`` ↔ ``RecvQ``), any ``esxcli … get`` key/value capture (:func:`nic_get_row`) or fixed-width table
  (:func:`table_rows`).
"""
from __future__ import annotations

import re
from xml.sax.saxutils import escape

from capturetools import capture_path
from nicadvisor.collect.sources import read_capture

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

OBJ_HEAD = ('<obj xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
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
    return OBJ_HEAD + "".join(f"<DataObject>{body(r)}</DataObject>" for r in rows) + "</obj>"
