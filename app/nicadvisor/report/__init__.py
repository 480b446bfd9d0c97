"""Exports of an :class:`~nicadvisor.model.Audit`: JSON (+ JSON Schema), CSV and the PDF tuning checklist.

* :func:`write_json` / :func:`audit_to_dict` — versioned JSON (``schema_version`` 1) that
  ``audit.schema.json`` validates; documented in ``docs/json-output.md``;
* :func:`write_csv` — the checklist, one row per finding; :func:`write_inventory_csv` — one row per pNIC;
* :func:`write_pdf` — the PDF checklist (cover, capability matrix per host, findings, benchmarks, appendix).

Pure: reads the model and writes files; no Qt, pyVmomi, paramiko or requests.
"""
from nicadvisor.report.csv_export import write_csv, write_inventory_csv
from nicadvisor.report.json_export import (
    SCHEMA_VERSION,
    audit_to_dict,
    load_schema,
    read_json,
    validate_document,
    write_json,
)
from nicadvisor.report.pdf import write_pdf

__all__ = [
    "SCHEMA_VERSION", "audit_to_dict", "load_schema", "read_json", "validate_document", "write_csv",
    "write_inventory_csv", "write_json", "write_pdf",
]
