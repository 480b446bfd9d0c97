"""Use-case: the audit history as both front ends use it: open it (:func:`open_history`), reopen a past audit
(:func:`nicadvisor.services.audit.reopen_audit`) and compare two (:func:`compare_audits`). Listing, naming and
deleting audits are the store's own calls (:class:`nicadvisor.store.AuditStore`)."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nicadvisor.model.diff import AuditDiff
    from nicadvisor.store import AuditStore


def open_history(path: Path | str | None = None) -> tuple[Any, str]:
    """``(AuditStore, "")``, or ``(None, why it cannot be used)``: a newer or foreign history file (``HistoryError``), a
    folder that cannot be written (OSError), a file that is not a database. ``path``: the SQLite file (default: the
    user data folder's). Blocking (opens and migrates the file)."""
    from nicadvisor.store import AuditStore, HistoryError

    try:
        return AuditStore(path), ""
    except HistoryError as exc:
        return None, str(exc)
    except sqlite3.Error as exc:
        return None, f"the history file cannot be used: {type(exc).__name__}: {exc}"
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        return None, f"the history file cannot be created: {exc.strerror or exc}{where}"


def compare_audits(store: "AuditStore", before_id: int, after_id: int) -> "AuditDiff":
    """What changed from stored audit ``before_id`` to ``after_id`` (pNICs, facts, findings, verdict:
    :func:`nicadvisor.model.diff.diff_audits`), each reopened as :func:`~nicadvisor.services.audit.reopen_audit` does.
    Raises :class:`nicadvisor.store.AuditNotFound` for an unknown id."""
    from nicadvisor.model.diff import diff_audits
    # imported here: opening the history (the wizard's start-up) does not need the audit stack, whose import (the rules
    # engine builds its parser) competed with the first paint for the CPU
    from nicadvisor.services.audit import reopen_audit

    return diff_audits(reopen_audit(store, before_id), reopen_audit(store, after_id))
