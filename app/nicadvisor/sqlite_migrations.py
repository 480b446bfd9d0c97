"""The one schema-migration runner of NIC Advisor's SQLite files (the audit history, the compatibility database), and
the backup made before a migration.

A file's schema version lives in ``PRAGMA user_version`` (architecture-anchors.md §3.6: qutebrowser ``UserVersion``,
Vorta ``backup_current_db``). A file kind lists its :class:`Migration` steps in order; step N takes the file from
version N-1 to N. :func:`migrate` checks the file first with the kind's own ``check`` (a newer version, or another
program's file, is refused before anything is written), copies a non-empty file to ``<file>.v<old>.bak`` through the
SQLite backup API, then runs every pending step in its own ``BEGIN IMMEDIATE`` transaction that also sets
``user_version`` (a step another process applied meanwhile is skipped; a failing step is rolled back and raised).
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Migration:
    """One schema step: ``version`` is the ``user_version`` after it; ``apply`` runs inside the step's transaction,
    either an SQL script (several statements, :func:`run_script`) or a function taking the connection."""

    version: int
    description: str
    apply: str | Callable[[sqlite3.Connection], None]


def user_version(conn: sqlite3.Connection) -> int:
    """The ``PRAGMA user_version`` of the file (0 for a new file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def tables(conn: sqlite3.Connection) -> set[str]:
    """The names of the file's own tables (SQLite's ``sqlite_*`` tables left out)."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(r[0]).startswith("sqlite_")}


def has_format(conn: sqlite3.Connection, fmt: str) -> bool:
    """True when the file has a ``meta`` table whose ``format`` row is ``fmt`` (``nicadvisor-history``,
    ``nicadvisor-vcg``): a NIC Advisor file of that kind, not another program's."""
    if "meta" not in tables(conn):
        return False
    row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    return bool(row and row[0] == fmt)


def run_script(conn: sqlite3.Connection, script: str, error: type[Exception] = ValueError) -> None:
    """Run the statements of ``script`` one by one (``executescript`` would COMMIT the open transaction). Raises
    ``error`` for an incomplete statement at the end, sqlite3.Error for a failing one."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            buffer = ""
            if statement and not all(part.strip().startswith("--") or not part.strip()
                                     for part in statement.splitlines()):
                conn.execute(statement)
    if buffer.strip() and not all(p.strip().startswith("--") or not p.strip() for p in buffer.splitlines()):
        raise error(f"incomplete SQL statement at the end of a migration script: {buffer.strip()[:80]!r}")


def backup_file(conn: sqlite3.Connection, path: Path, old: int) -> Path:
    """Copy the open database to ``<path>.v<old>.bak`` (or ``.v<old>-<n>.bak``), owner-only (0600).

    Uses the SQLite backup API, so the copy is consistent even in WAL mode. Returns the backup path;
    raises OSError/sqlite3.Error if it cannot be written.
    """
    target = path.with_name(f"{path.name}.v{old}.bak")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.v{old}-{n}.bak")
        n += 1
    fd = os.open(target, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    os.close(fd)
    dest = sqlite3.connect(target)
    try:
        conn.backup(dest)
    finally:
        dest.close()
    return target


#: ``check(conn, where, migrations) -> current version``: the file kind's refusals (raise to refuse; writes nothing).
Check = Callable[[sqlite3.Connection, str, Sequence[Migration]], int]


def migrate(conn: sqlite3.Connection, path: str | os.PathLike[str] | None, migrations: Sequence[Migration],
            check: Check, where: str, script_error: type[Exception] = ValueError) -> Path | None:
    """Bring the file up to the last of ``migrations``; returns the backup made, or None (new or empty file, in
    memory, or up to date).

    ``conn`` must be in autocommit mode (``isolation_level=None``); ``path`` None or ``":memory:"``: no backup.
    ``check`` is called first (it raises the kind's schema error for a newer or foreign file) and gives the current
    version; ``where`` names the file in its messages. Raises what ``check`` raises, the error of a failing step
    (rolled back; the backup stays), ``script_error`` for a broken SQL script.
    """
    current = check(conn, where, migrations)
    pending = [m for m in migrations if m.version > current]
    if not pending:
        return None
    backup = None
    if path is not None and os.fspath(path) != ":memory:" and int(conn.execute("PRAGMA page_count").fetchone()[0]):
        backup = backup_file(conn, Path(path), current)
    for step in pending:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if user_version(conn) >= step.version:  # another process migrated while we waited for the lock
                conn.execute("COMMIT")
                continue
            if isinstance(step.apply, str):
                run_script(conn, step.apply, script_error)
            else:
                step.apply(conn)
            conn.execute(f"PRAGMA user_version = {int(step.version)}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    return backup
