"""pyVmomi values as plain JSON-able data: the shapes every vSphere reader records and the parsers read.

One module below both :mod:`nicadvisor.collect.vsphere` (the inventory read) and
:mod:`nicadvisor.collect.vsphere_esxcli` (esxcli over the API, network hints), so neither imports the other.
"""
from __future__ import annotations

import base64
import datetime as _dt
from typing import Any

from pyVmomi.VmomiSupport import DataObject, ManagedObject


def ref_string(obj: ManagedObject) -> str:
    """``"HostSystem:host-21"`` for a managed-object reference (the form govc prints)."""
    return f"{obj._wsdlName}:{obj._moId}"


def to_plain(value: Any) -> Any:
    """A pyVmomi value as JSON-able plain data: data objects → dicts of their set properties (by vSphere
    property name), references → :func:`ref_string`, enums → str, binary → base64 text, datetimes → ISO."""
    if value is None or isinstance(value, (bool, str)):
        return str(value) if isinstance(value, str) and type(value) is not str else value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, ManagedObject):
        return ref_string(value)
    if isinstance(value, DataObject):
        out = {}
        for prop in value._GetPropertyList():
            if prop.name in ("dynamicType", "dynamicProperty"):
                continue
            v = getattr(value, prop.name, None)
            if v is None or (isinstance(v, list) and not v):
                continue
            out[prop.name] = to_plain(v)
        return out
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    return str(value)
