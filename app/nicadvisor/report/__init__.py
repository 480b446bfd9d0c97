"""Exports of an :class:`~nicadvisor.model.Audit`: JSON (+ JSON Schema), CSV and the PDF tuning checklist.

* :func:`write_json` / :func:`audit_to_dict` — versioned JSON (``schema_version`` 1) that
  ``audit.schema.json`` validates; documented in ``docs/json-output.md``;
* :func:`write_csv` — the checklist, one row per finding; :func:`write_inventory_csv` — one row per pNIC;
* :func:`write_pdf` — the PDF checklist (cover, capability matrix per host, findings, benchmarks, appendix).

Pure: reads the model and writes files; no Qt, pyVmomi, paramiko or requests.
"""
from __future__ import annotations

import importlib
from typing import Any

#: Where each name lives: imported when first asked for (PEP 562), so that importing one report module (the wizard
#: reads ``report.remediation``'s step labels on its first page) does not load reportlab and the PDF writer with it.
_HOME = {
    "write_csv": "csv_export", "write_inventory_csv": "csv_export",
    "SCHEMA_VERSION": "json_export", "audit_to_dict": "json_export", "load_schema": "json_export",
    "read_json": "json_export", "validate_document": "json_export", "write_json": "json_export",
    "write_pdf": "pdf",
}

__all__ = [
    "SCHEMA_VERSION", "audit_to_dict", "load_schema", "read_json", "validate_document", "write_csv",
    "write_inventory_csv", "write_json", "write_pdf",
]


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
