"""The PCIe link of a server's devices as its BMC reports them over Redfish: pure reading of the JSON payloads.

What is read (DMTF DSP0268 Redfish schema guide; schemas ``PCIeDevice`` v1.x and ``PCIeFunction`` v1.x, public
mockups in DMTF/Redfish-Publications ``mockups/public-tower/Chassis/Tower/PCIeDevices/*`` and
``mockups/DSP2046-examples/PCIeDevice-v1-example.json`` / ``PCIeFunction-v1-example.json``):

* ``PCIeDevice.PCIeInterface``: ``PCIeType`` (the negotiated generation), ``MaxPCIeType`` (the highest the device
  supports), ``LanesInUse`` (negotiated width), ``MaxLanes`` (the device's width);
* each ``PCIeFunction`` of the device (``PCIeDevice.PCIeFunctions`` collection): ``VendorId``, ``DeviceId``,
  ``SubsystemVendorId``, ``SubsystemId`` (``"0x8086"`` → ``"8086"``, the model's 4 lower-case hex digits),
  ``FunctionId`` (the PCI function number), ``DeviceClass``, and, where the service gives one, the function's PCI
  address: an OEM block holding ``BusNumber``, ``DeviceNumber`` and ``FunctionNumber`` (with ``SegmentNumber``)
  — the standard schema has no PCI address.

The generation is turned into the per-lane rate the host outputs give (``LnkSta: Speed 8GT/s``): Gen1 2.5, Gen2 5,
Gen3 8, Gen4 16, Gen5 32, Gen6 64 GT/s (PCI Express Base Specification, one rate per generation; the Redfish
``PCIeTypes`` enumeration names Gen1…Gen6).

Matching a BMC device to a pNIC (:func:`match_pnics`): by PCI address when the function gives one, else by the
four PCI IDs when exactly one device of the BMC carries them (a dual-port card's functions share their IDs, so two
ports on one device match that device; two devices with the same IDs are ambiguous and decide nothing: a note says
so). Pure: payload text in, facts and notes out; never raises on a payload.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from nicadvisor.parsers.pci_address import normalise_pci

#: GT/s per lane of each Redfish ``PCIeTypes`` value (PCI Express Base Specification rates).
GEN_GTS = {"Gen1": 2.5, "Gen2": 5.0, "Gen3": 8.0, "Gen4": 16.0, "Gen5": 32.0, "Gen6": 64.0}
#: Longest payload read (bytes of text): a BMC resource is a few kB; more is not a PCIe resource.
MAX_PAYLOAD_CHARS = 1_000_000


@dataclass(frozen=True)
class RedfishFunction:
    """One ``PCIeFunction``: ``odata_id``, IDs as 4 lower-case hex digits (None when absent or not hex),
    ``function_id`` (the PCI function number) and ``pci_address`` (``dddd:bb:dd.f`` from an OEM block, else None)."""

    odata_id: str
    vid: str | None = None
    did: str | None = None
    svid: str | None = None
    ssid: str | None = None
    function_id: int | None = None
    device_class: str | None = None
    pci_address: str | None = None

    @property
    def ids(self) -> tuple[str | None, str | None, str | None, str | None]:
        """(VID, DID, SVID, SSID)."""
        return (self.vid, self.did, self.svid, self.ssid)


@dataclass
class RedfishPcieDevice:
    """One ``PCIeDevice``: ``odata_id``, ``name``/``model``, the link (``pcie_type``/``max_pcie_type`` as written,
    ``speed_gts``/``speed_capable_gts`` in GT/s per lane, ``width``/``width_capable`` in lanes) and its
    ``functions``. ``interface_text`` is the ``PCIeInterface`` object as the BMC sent it (the evidence line)."""

    odata_id: str
    name: str = ""
    model: str = ""
    pcie_type: str | None = None
    max_pcie_type: str | None = None
    speed_gts: float | None = None
    speed_capable_gts: float | None = None
    width: int | None = None
    width_capable: int | None = None
    interface_text: str = ""
    functions: list[RedfishFunction] = field(default_factory=list)


def load_payload(text: str) -> tuple[dict | None, str | None]:
    """(the JSON object, None) or (None, why it is not one). Bounded by :data:`MAX_PAYLOAD_CHARS`."""
    if len(text) > MAX_PAYLOAD_CHARS:
        return None, f"answer of {len(text)} characters is larger than {MAX_PAYLOAD_CHARS}: not read"
    try:
        value = json.loads(text)
    except ValueError as exc:
        return None, f"not JSON ({exc})"
    except RecursionError:  # the C decoder recurses once per level: a few hundred kB of "[[[[…" exceed the limit
        return None, "not read: JSON nested deeper than Python's recursion limit (not a Redfish resource)"
    if not isinstance(value, dict):
        return None, "not a JSON object"
    return value, None


def links(payload: dict, key: str) -> list[str]:
    """The ``@odata.id`` values under ``key``: a navigation object (``{"@odata.id": …}``) or an array of them
    (``Members``, ``Links.PCIeFunctions``)."""
    value = payload.get(key)
    items = value if isinstance(value, list) else [value]
    return [i["@odata.id"] for i in items if isinstance(i, dict) and isinstance(i.get("@odata.id"), str)]


def _hex_id(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    text = text[2:] if text.startswith("0x") else text
    if not text or len(text) > 4 or any(c not in "0123456789abcdef" for c in text):
        return None
    return text.rjust(4, "0")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


#: Most lanes a PCIe link has (x32, PCI Express Base Specification): a larger ``LanesInUse``/``MaxLanes`` is no width.
MAX_LANES = 32
#: Longest text kept of a ``PCIeInterface`` value for the evidence line (the real ones are ``"Gen3"``, ``8``).
MAX_EVIDENCE_VALUE_CHARS = 40


def _lanes(value: object) -> int | None:
    lanes = _int(value)
    return lanes if lanes is not None and 1 <= lanes <= MAX_LANES else None


def _scalar(value: object) -> object:
    """A ``PCIeInterface`` value as the evidence shows it: a short string or a number; anything else (a nested
    object, a 400-digit number) by its type only."""
    if isinstance(value, str):
        return value if len(value) <= MAX_EVIDENCE_VALUE_CHARS else value[:MAX_EVIDENCE_VALUE_CHARS] + "…"
    if isinstance(value, bool) or value is None or (isinstance(value, (int, float)) and abs(value) < 1e6):
        return value
    return f"<{type(value).__name__}>"


def _oem_address(payload: dict) -> str | None:
    oem = payload.get("Oem")
    if not isinstance(oem, dict):
        return None
    for block in oem.values():
        if not isinstance(block, dict):
            continue
        bus, dev, fn = (_int(block.get(k)) for k in ("BusNumber", "DeviceNumber", "FunctionNumber"))
        if bus is None or dev is None or fn is None:
            continue
        seg = _int(block.get("SegmentNumber")) or 0
        return normalise_pci(f"{seg:04x}:{bus:02x}:{dev:02x}.{fn}").normalised
    return None


def parse_function(payload: dict) -> RedfishFunction:
    """A ``PCIeFunction`` payload → :class:`RedfishFunction`."""
    return RedfishFunction(
        odata_id=str(payload.get("@odata.id") or ""), vid=_hex_id(payload.get("VendorId")),
        did=_hex_id(payload.get("DeviceId")), svid=_hex_id(payload.get("SubsystemVendorId")),
        ssid=_hex_id(payload.get("SubsystemId")), function_id=_int(payload.get("FunctionId")),
        device_class=payload.get("DeviceClass") if isinstance(payload.get("DeviceClass"), str) else None,
        pci_address=_oem_address(payload))


def parse_device(payload: dict, functions: list[RedfishFunction] | None = None) -> RedfishPcieDevice:
    """A ``PCIeDevice`` payload (and its functions, read by the caller) → :class:`RedfishPcieDevice`. A
    ``PCIeType`` outside :data:`GEN_GTS` leaves the speed None (kept as written in ``pcie_type``); a lane count
    outside 1…:data:`MAX_LANES` leaves the width None. The evidence line keeps each value short (a nested object
    or a huge number by its type)."""
    iface = payload.get("PCIeInterface") if isinstance(payload.get("PCIeInterface"), dict) else {}
    kept = {k: _scalar(iface[k]) for k in ("PCIeType", "MaxPCIeType", "LanesInUse", "MaxLanes") if k in iface}
    ptype = iface.get("PCIeType") if isinstance(iface.get("PCIeType"), str) else None
    mtype = iface.get("MaxPCIeType") if isinstance(iface.get("MaxPCIeType"), str) else None
    return RedfishPcieDevice(
        odata_id=str(payload.get("@odata.id") or ""), name=str(payload.get("Name") or ""),
        model=str(payload.get("Model") or ""), pcie_type=ptype, max_pcie_type=mtype,
        speed_gts=GEN_GTS.get(ptype or ""), speed_capable_gts=GEN_GTS.get(mtype or ""),
        width=_lanes(iface.get("LanesInUse")), width_capable=_lanes(iface.get("MaxLanes")),
        interface_text="PCIeInterface " + json.dumps(kept, sort_keys=True), functions=list(functions or ()))


@dataclass(frozen=True)
class PnicIdentity:
    """What the host told of a pNIC: ``name``, ``pci_address`` (``dddd:bb:dd.f`` or None) and its four IDs."""

    name: str
    pci_address: str | None
    vid: str | None
    did: str | None
    svid: str | None
    ssid: str | None


@dataclass(frozen=True)
class Match:
    """``pnic`` (name) is ``device``, matched ``how`` (``"PCI address 0000:3b:00.0"`` / ``"PCI IDs 8086:1572
    8086:0000"``)."""

    pnic: str
    device: RedfishPcieDevice
    how: str


def match_pnics(pnics: list[PnicIdentity], devices: list[RedfishPcieDevice]) -> tuple[list[Match], list[str]]:
    """Each pNIC's BMC device: by PCI address when a function gives one, else by the four IDs when exactly one
    device carries them. Returns (matches, notes); a pNIC not matched has a note saying why (ambiguous IDs name
    the devices). Linear in pNICs × functions."""
    by_address = {f.pci_address: d for d in devices for f in d.functions if f.pci_address}
    by_ids: dict[tuple, list[RedfishPcieDevice]] = {}
    for d in devices:
        for ids in {f.ids for f in d.functions if all(f.ids)}:
            by_ids.setdefault(ids, []).append(d)
    matches: list[Match] = []
    notes: list[str] = []
    none = "" if any(d.functions for d in devices) else " (the BMC lists no PCIe function for any device)"
    for p in pnics:
        if p.pci_address and p.pci_address in by_address:
            matches.append(Match(p.name, by_address[p.pci_address], f"PCI address {p.pci_address}"))
            continue
        ids = (p.vid, p.did, p.svid, p.ssid)
        shown = f"{p.vid}:{p.did} {p.svid}:{p.ssid}"
        if not all(ids):
            notes.append(f"{p.name}: not matched to a BMC device: its PCI address is not among the BMC's and its "
                         "four PCI IDs (VID, DID, SVID, SSID) were not all read on the host" + none)
            continue
        found = by_ids.get(ids, [])
        if len(found) == 1:
            matches.append(Match(p.name, found[0], f"PCI IDs {shown}"))
        elif found:
            notes.append(f"{p.name}: not decided from the BMC: {len(found)} devices carry its PCI IDs {shown} ("
                         + ", ".join(d.odata_id for d in found) + ") and no PCI address tells them apart")
        else:
            notes.append(f"{p.name}: not matched to a BMC device: none has a PCIe function with its PCI IDs "
                         f"{shown}{none}")
    return matches, notes
