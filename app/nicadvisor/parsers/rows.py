"""Rows of an API answer (esxcli over the vSphere API, PowerCLI ``Get-EsxCli`` records): the helpers every command
family module uses to read them the way it reads the command's text; and :func:`load_recording`, the first step of
replaying the JSON recording a live audit keeps of an API answer.

An esxcli answer over the API names its fields as esxcli prints them without spaces (``RXmicroseconds`` for
``RX microseconds``, ``PCIDevice`` for ``PCI Device``; govmomi ``govc/host/esxcli/response.go``), nested objects
as dicts (``DriverInfo``) and values as text; see :mod:`nicadvisor.parsers.api.esxcli_soap` for the XML.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from nicadvisor.parsers.base import ParseResult

#: The family prefix of facts read from esxcli rows over the vSphere API (``vSphere API esxcli network nic list``).
ESXCLI_API_FAMILY = "vSphere API esxcli"


def esxcli_api_family(words: Iterable[str]) -> str:
    """``("network", "nic", "list")`` → ``"vSphere API esxcli network nic list"`` (the ``ParseResult.family`` of
    rows read over the API, told apart from the same command's text)."""
    return f"{ESXCLI_API_FAMILY} {' '.join(words)}"


def norm_key(key: str) -> str:
    """A field name as a lookup key: ``"RX microseconds"``, ``"RXmicroseconds"`` → ``"rxmicroseconds"``."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


def norm_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with its keys as :func:`norm_key` gives them (values unchanged)."""
    return {norm_key(k): v for k, v in row.items()}


def text(value: Any) -> str | None:
    """``value`` when it is text, else None (a nested object or a list is no field value)."""
    return value if isinstance(value, str) else None


def row_line(row: Mapping[str, Any], prefix: str = "") -> str:
    """The evidence line of a row: ``Name=vmnic0; PCIDevice=0000:04:00.0; …`` (nested keys dotted)."""
    parts = []
    for k, v in row.items():
        if isinstance(v, dict):
            inner = row_line(v, f"{prefix}{k}.")
            if inner:
                parts.append(inner)
        elif isinstance(v, list):
            parts.append(f"{prefix}{k}=[{', '.join(str(x) for x in v if not isinstance(x, dict))}]")
        else:
            parts.append(f"{prefix}{k}={v}")
    return "; ".join(parts)


def load_recording(text: str, family: str, what: str) -> tuple[dict[str, Any], ParseResult | None]:
    """The JSON object a recording holds (``{}`` for JSON that is not an object) and None; or, for text that is not
    JSON, ``({}, result)`` where ``result`` (of ``family``) notes ``"not <what> (JSON error: …)"``
    (``what``: ``"a vSphere API recording"``). Never raises."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        r = ParseResult(family=family)
        r.notes.append(f"not {what} (JSON error: {exc})")
        return {}, r
    return (doc if isinstance(doc, dict) else {}), None
