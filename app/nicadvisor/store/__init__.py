"""The audit history: past and partial audits kept in a versioned SQLite file.

* :class:`AuditStore` (``history``): ``begin`` / ``add_host`` / ``add_problems`` / ``finish`` while an audit
  runs (each committed at once), ``list_audits`` / ``load`` / ``delete`` to reopen or drop past audits.
* the documents it stores are those of :mod:`nicadvisor.document` (``audit_from_dict`` also reopens a JSON export).
* ``migrations``: the ``PRAGMA user_version`` schema steps, backup before migrating, refusal of newer files.

No Qt here; the GUI and ``services.audit`` call it.
"""
from nicadvisor.document import CodecError, audit_from_dict, host_from_dict, redact_secrets
from nicadvisor.store.history import (
    FINAL_STATUSES,
    INTERRUPTED,
    RUNNING,
    AuditNotFound,
    AuditStore,
    AuditSummary,
    HistoryDamaged,
    default_history_path,
)
from nicadvisor.store.migrations import SCHEMA_VERSION, HistoryError, HistorySchemaError

__all__ = [
    "FINAL_STATUSES", "INTERRUPTED", "RUNNING", "SCHEMA_VERSION", "AuditNotFound", "AuditStore", "AuditSummary",
    "CodecError", "HistoryDamaged", "HistoryError", "HistorySchemaError", "audit_from_dict", "default_history_path",
    "host_from_dict", "redact_secrets",
]
