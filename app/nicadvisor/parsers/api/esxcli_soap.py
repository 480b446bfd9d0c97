"""esxcli over the vSphere API: an ``ExecuteSoap`` answer (XML) → rows, the rows → facts by the reader of that
command family (registered with :func:`nicadvisor.parsers.registration.register_rows` in the module that reads the same
command's text: ``network nic coalesce get`` in :mod:`nicadvisor.parsers.esxi.coalesce`), and the recording a live
audit keeps of each call with its replay. No pyVmomi, no I/O (the calls themselves are in
:mod:`nicadvisor.collect.vsphere_esxcli`, whose docstring gives the sources of the formats; the allowlist is
:mod:`nicadvisor.collect.vsphere_esxcli_commands`)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any, Iterable, Mapping

from nicadvisor.parsers.base import ParseResult
from nicadvisor.parsers.registration import rows_reader
from nicadvisor.parsers.rows import ESXCLI_API_FAMILY, esxcli_api_family, load_recording

SOAP_VERSION = "urn:vim25/5.0"
"""The ``version`` argument of ExecuteSoap: the only one govmomi sends; the esxcli dynamic types live there."""


# --- response XML → rows (pure) -------------------------------------------------------------------------

def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _xsi_type(elem: ET.Element) -> str | None:
    for k, v in elem.attrib.items():
        if _local(k) == "type":
            return v
    return None


def _value(elem: ET.Element) -> Any:
    children = list(elem)
    if not children:
        return (elem.text or "").strip()
    out: dict[str, Any] = {}
    for child in children:
        key, val = _local(child.tag), _value(child)
        if key in out:
            prev = out[key]
            out[key] = (prev if isinstance(prev, list) else [prev]) + [val]
        else:
            out[key] = val
    return out


def response_rows(xml_text: str | None) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """An ExecuteSoap ``response`` document as rows: ``(rows, xsi type, error)``.

    ``ArrayOfDataObject`` → one dict per ``DataObject``; a single data object → one row; a scalar
    (``xsd:string``, ``xsd:boolean``) → ``[{"value": text}]``. Keys are the element names as sent
    (``PCIDevice``, ``DriverInfo``), leaf values the text as sent (strings), nested objects dicts, repeated
    elements lists. The type is the document's ``xsi:type`` (``ArrayOfDataObject``) or, for an array, the first
    item's (``VimEsxCLInetworkvmportlistPort``). Never raises: unreadable XML (or a DOCTYPE, refused) gives
    ``([], None, reason)``.
    """
    if not xml_text or not xml_text.strip():
        return [], None, "empty response"
    if "<!DOCTYPE" in xml_text or "<!ENTITY" in xml_text:
        return [], None, "response refused: it declares a DOCTYPE/ENTITY"
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        return [], None, f"response is not XML: {exc}"
    kind = _xsi_type(root)
    children = list(root)
    if kind and kind.startswith("ArrayOf"):
        rows = []
        for child in children:
            v = _value(child)
            rows.append(v if isinstance(v, dict) else {"value": v})
        first = _xsi_type(children[0]) if children else None
        return rows, first or kind, None
    if not children:
        return [{"value": (root.text or "").strip()}], kind, None
    v = _value(root)
    return [v if isinstance(v, dict) else {"value": v}], kind, None


def fault_text(fault_msg: str | None, fault_detail: str | None) -> str:
    """A one-line reason from an ExecuteSoap ``fault``: the ``errMsg`` lines of a ``VimEsxCLICLIFault``
    detail when readable, else the ``faultMsg`` (``EsxCLI.CLIFault.summary``)."""
    msgs: list[str] = []
    if fault_detail and "<!DOCTYPE" not in fault_detail and "<!ENTITY" not in fault_detail:
        try:
            root = ET.fromstring(fault_detail)
            msgs = [(e.text or "").strip() for e in root.iter() if _local(e.tag) == "errMsg" and (e.text or "").strip()]
            kind = _xsi_type(root)
            if not msgs and kind:
                msgs = [kind]
        except ET.ParseError:
            msgs = [fault_detail.strip()[:300]]
    text = "; ".join(msgs)
    if fault_msg and fault_msg not in text:
        text = f"{fault_msg}: {text}" if text else fault_msg
    return text or "esxcli fault without a message"


def facts_for(command: Iterable[str], rows: list[dict[str, Any]], args: Mapping[str, Any] | None = None) -> ParseResult:
    """``rows`` of ``esxcli <command>`` read by the reader its command family registered
    (:func:`nicadvisor.parsers.registration.rows_reader`; ``args``: the options it was sent with); a command no module
    reads gives an empty result with a note. Never raises (a reader that raises is a bug, reported as a note)."""
    words = tuple(command)
    reader = rows_reader(words)
    if reader is None:
        result = ParseResult(family=esxcli_api_family(words))
        result.notes.append(f"no converter for 'esxcli {' '.join(words)}'")
        return result
    try:
        return reader(rows, dict(args or {}))
    except Exception as exc:  # noqa: BLE001 - a reader bug must not end the audit
        result = ParseResult(family=esxcli_api_family(words))
        result.notes.append(f"reader of esxcli {' '.join(words)} rows failed: {type(exc).__name__}: {exc}")
        return result


# --- recordings ---------------------------------------------------------------------------------------

def esxcli_recording(host_ref: str, command: Iterable[str], args: Mapping[str, Any], moid: str, method: str,
                     arguments: list[dict[str, str]], response: str | None, fault: dict[str, Any] | None,
                     error: str | None, vcenter: str | None = None) -> str:
    """The Capture text of one ExecuteSoap: one JSON line ``{"kind": "esxcli", "vcenter", "obj":
    "HostSystem:host-21", "command": [...], "args": {...}, "moid", "method", "version", "arguments":
    [{"name", "val"}], "response": XML text or null, "fault": {"faultMsg", "faultDetail"} or null,
    "error": text or null}``."""
    doc = {"kind": "esxcli", "vcenter": vcenter, "obj": host_ref, "command": list(command), "args": dict(args),
           "moid": moid, "method": method, "version": SOAP_VERSION, "arguments": arguments,
           "response": response, "fault": fault, "error": error}
    return json.dumps(doc, sort_keys=True, default=str, separators=(",", ":")) + "\n"


def facts_from_recording(text: str) -> ParseResult:
    """Replay an :func:`esxcli_recording` text into its ParseResult (the same facts the live call produced). Never
    raises: anything else (also a QueryNetworkHint recording: :mod:`nicadvisor.parsers.api.network_hints`) gives
    an empty result with a note."""
    doc, failed = load_recording(text, ESXCLI_API_FAMILY, "an esxcli-over-API recording")
    if failed is not None:
        return failed
    command = doc.get("command")
    if doc.get("kind") != "esxcli" or not isinstance(command, list):
        r = ParseResult(family=ESXCLI_API_FAMILY)
        r.notes.append("not an esxcli-over-API recording (no kind/command)")
        return r
    words = tuple(str(w) for w in command)
    args = doc.get("args") if isinstance(doc.get("args"), dict) else {}
    if not isinstance(doc.get("response"), str):
        r = ParseResult(family=esxcli_api_family(words))
        r.notes.append(f"esxcli {' '.join(words)}: no response recorded ({doc.get('error') or 'fault'})")
        return r
    rows, _kind, err = response_rows(doc["response"])
    if err:
        r = ParseResult(family=esxcli_api_family(words))
        r.notes.append(f"esxcli {' '.join(words)}: {err}")
        return r
    return facts_for(words, rows, args)
