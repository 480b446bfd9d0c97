"""Schema of the audit history file and its ordered migrations (stdlib ``sqlite3``).

The schema version lives in ``PRAGMA user_version`` (architecture-anchors.md §3.6: qutebrowser
``UserVersion``, Vorta ``backup_current_db``). :data:`MIGRATIONS` lists the steps in order; step N takes the
file from version N-1 to N inside one transaction that also sets ``user_version``. :func:`migrate`

* refuses a file whose version is newer than the code (:class:`HistorySchemaError`, nothing is written);
* refuses a file that is not a NIC Advisor history (version > 0 without the ``meta.format`` row, or
  version 0 holding other tables);
* copies a non-empty file to ``<file>.v<old>.bak`` (``.v<old>-<n>.bak`` if that exists), owner-only,
  through the SQLite backup API, before the first step.

Tables (version 2)::

    meta(key TEXT PRIMARY KEY, value TEXT)              -- format = 'nicadvisor-history'
    audits(id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT, status TEXT, inputs TEXT (JSON list),
           findings TEXT (JSON list, NULL until finished), benchmarks TEXT (JSON list), tool_version TEXT,
           owner_pid INTEGER, owner_start INTEGER, finished_at TEXT,
           errors INTEGER, warnings INTEGER)            -- v2: finding counts, NULL until finished
    hosts(id INTEGER PRIMARY KEY, audit_id -> audits ON DELETE CASCADE, seq INTEGER, name TEXT,
          doc TEXT (JSON host document, nicadvisor/document.py), added_at TEXT,
          pnics INTEGER)                                -- v2: physical (or unknown-kind) pNIC count
    problems(id INTEGER PRIMARY KEY, audit_id -> audits ON DELETE CASCADE, seq INTEGER,
             source TEXT, message TEXT, command TEXT)

``owner_pid``/``owner_start`` identify the process writing a ``running`` audit (pid and its start time in
clock ticks from ``/proc/<pid>/stat``), so a reader can tell an audit still being written from one whose
process died (shown as ``interrupted``).
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from nicadvisor.sqlite_migrations import Migration, has_format, tables, user_version
from nicadvisor.sqlite_migrations import migrate as run_migrations

FORMAT = "nicadvisor-history"


class HistoryError(Exception):
    """Base class of the audit-history errors."""


class HistorySchemaError(HistoryError):
    """The history file has a schema this code cannot use (newer version, or not a NIC Advisor history)."""


_V1 = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    f"INSERT INTO meta (key, value) VALUES ('format', '{FORMAT}')",
    """CREATE TABLE audits (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        status TEXT NOT NULL,
        inputs TEXT NOT NULL DEFAULT '[]',
        findings TEXT,
        benchmarks TEXT NOT NULL DEFAULT '[]',
        tool_version TEXT,
        owner_pid INTEGER,
        owner_start INTEGER,
        finished_at TEXT)""",
    """CREATE TABLE hosts (
        id INTEGER PRIMARY KEY,
        audit_id INTEGER NOT NULL REFERENCES audits(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        name TEXT NOT NULL,
        doc TEXT NOT NULL,
        added_at TEXT,
        UNIQUE (audit_id, seq))""",
    """CREATE TABLE problems (
        id INTEGER PRIMARY KEY,
        audit_id INTEGER NOT NULL REFERENCES audits(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        source TEXT NOT NULL,
        message TEXT NOT NULL,
        command TEXT NOT NULL DEFAULT '',
        UNIQUE (audit_id, seq))""",
)


def _apply_v1(conn: sqlite3.Connection) -> None:
    for statement in _V1:
        conn.execute(statement)


def count_pnics(host_doc: dict) -> int:
    """pNICs of a host document counted as ``report.json_export.summarize`` does: physical or unknown kind
    (``is_physical`` not False), so pseudo devices such as ``vusb0`` are left out."""
    return sum(1 for p in host_doc.get("pnics") or [] if isinstance(p, dict) and p.get("is_physical") is not False)


def count_findings(findings_json: str | None) -> tuple[int | None, int | None]:
    """``(errors, warnings)`` of a stored findings list, ``(None, None)`` when not evaluated (NULL) or unreadable."""
    if findings_json is None:
        return None, None
    try:
        findings = json.loads(findings_json)
    except ValueError:
        return None, None
    if not isinstance(findings, list):
        return None, None
    sev = [f.get("severity") for f in findings if isinstance(f, dict)]
    return sev.count("error"), sev.count("warning")


def _apply_v2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE audits ADD COLUMN errors INTEGER")
    conn.execute("ALTER TABLE audits ADD COLUMN warnings INTEGER")
    conn.execute("ALTER TABLE hosts ADD COLUMN pnics INTEGER NOT NULL DEFAULT 0")
    conn.execute("CREATE INDEX hosts_by_audit ON hosts (audit_id, seq)")
    conn.execute("CREATE INDEX problems_by_audit ON problems (audit_id, seq)")
    for row_id, doc in conn.execute("SELECT id, doc FROM hosts").fetchall():
        try:
            parsed = json.loads(doc)
        except ValueError:
            continue  # an unreadable host keeps 0; load() reports it
        conn.execute("UPDATE hosts SET pnics = ? WHERE id = ?",
                     (count_pnics(parsed) if isinstance(parsed, dict) else 0, row_id))
    for row_id, findings in conn.execute("SELECT id, findings FROM audits").fetchall():
        errors, warnings = count_findings(findings)
        conn.execute("UPDATE audits SET errors = ?, warnings = ? WHERE id = ?", (errors, warnings, row_id))


def _apply_v3(conn: sqlite3.Connection) -> None:
    # Older finished audits keep NULL: their verdict is computed again when they are opened.
    conn.execute("ALTER TABLE audits ADD COLUMN verdict TEXT")
    conn.execute("ALTER TABLE audits ADD COLUMN verdict_reason TEXT")
    conn.execute("ALTER TABLE audits ADD COLUMN hosts_expected INTEGER")
    conn.execute("ALTER TABLE audits ADD COLUMN name TEXT")


def _apply_v4(conn: sqlite3.Connection) -> None:
    # Older audits keep NULL: no target NSX version was given.
    conn.execute("ALTER TABLE audits ADD COLUMN target_nsx TEXT")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "audits, hosts (JSON documents) and input problems", _apply_v1),
    Migration(2, "summary columns for the history list: pNIC count per host, error/warning counts per audit",
              _apply_v2),
    Migration(3, "the verdict (READY / NOT READY / NOT RATED and why), the number of hosts expected and a name",
              _apply_v3),
    Migration(4, "the audit's scope: the NSX version the rollout targets", _apply_v4),
)
SCHEMA_VERSION = MIGRATIONS[-1].version


def check_version(conn: sqlite3.Connection, where: str, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Return the file's version after checking it can be used; writes nothing.

    Raises HistorySchemaError for a newer version or for a file that is not a NIC Advisor history.
    """
    target = migrations[-1].version if migrations else 0
    current = user_version(conn)
    if current > 0 and not has_format(conn, FORMAT):
        raise HistorySchemaError(f"{where} has schema version {current} but is not a NIC Advisor audit history "
                                 f"(no meta.format = {FORMAT!r} row); the file was left unchanged.")
    if current > target:
        raise HistorySchemaError(
            f"{where} has audit-history schema version {current}, but this NIC Advisor knows only up to "
            f"version {target}: it was written by a newer NIC Advisor. Update NIC Advisor, or choose another "
            f"history file; the file was left unchanged.")
    if current == 0 and tables(conn):
        raise HistorySchemaError(f"{where} is an SQLite file of another program (it has tables "
                                 f"{sorted(tables(conn))} but no NIC Advisor schema version); "
                                 f"the file was left unchanged.")
    return current


def migrate(conn: sqlite3.Connection, path: Path | None,
            migrations: Sequence[Migration] = MIGRATIONS) -> Path | None:
    """Bring the history file up to the last of ``migrations`` with the one runner
    (:func:`nicadvisor.sqlite_migrations.migrate`); returns the backup made, or None. ``conn`` in autocommit mode;
    ``path`` None: no backup (in-memory). Raises HistorySchemaError as :func:`check_version` does, and the error of a
    failing step (rolled back; the backup stays)."""
    where = str(path) if path is not None else "the history database"
    return run_migrations(conn, path, migrations, lambda c, w, m: check_version(c, w, m), where)
