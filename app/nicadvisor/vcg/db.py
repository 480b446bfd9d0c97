"""Opening and migrating the compatibility database file (stdlib ``sqlite3`` only).

The schema version lives in ``PRAGMA user_version``. :data:`MIGRATIONS` lists the steps in order; step N
takes a database from version N-1 to N inside one transaction. :func:`migrate`

* refuses a database whose version is newer than the code (:class:`VcgSchemaError`, nothing is touched);
* copies a non-empty database to ``<file>.v<old>.bak`` (``.v<old>-<n>.bak`` if that exists) before the first
  step, through the SQLite backup API so the copy is consistent;
* refuses a database that has a version but no ``meta.format = 'nicadvisor-vcg'`` row (another tool's file).

Files are created owner-only (0600), their folder 0700 (house style: Vorta ``umask(0o077)``).
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from nicadvisor.sqlite_migrations import backup_file

FORMAT = "nicadvisor-vcg"
APP_DIR_NAME = "nic-advisor"
DEFAULT_FILE_NAME = "vcg.sqlite3"


class VcgError(Exception):
    """Base class of the compatibility-database errors."""


class VcgSchemaError(VcgError):
    """The database file has a schema this code cannot use (newer version, or not ours)."""


class VcgDataError(VcgError):
    """The seed data is malformed (message names the file and line)."""


@dataclass(frozen=True)
class Migration:
    """One schema step: ``version`` is the ``user_version`` after it; ``apply`` runs inside a transaction.

    ``apply`` is either an SQL script (several statements) or a function taking the connection.
    """

    version: int
    description: str
    apply: str | Callable[[sqlite3.Connection], None]


def _schema_v1() -> str:
    return resources.files("nicadvisor.vcg").joinpath("schema.sql").read_text(encoding="utf-8")


def _apply_v1(conn: sqlite3.Connection) -> None:
    _run_script(conn, _schema_v1())


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema: devices, listings, releases, drivers, firmware, features, trust levels", _apply_v1),
)
SCHEMA_VERSION = MIGRATIONS[-1].version


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run the statements of ``script`` one by one (``executescript`` would COMMIT the open transaction)."""
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
        raise VcgSchemaError(f"incomplete SQL statement at the end of a migration script: {buffer.strip()[:80]!r}")


def default_database_path() -> Path:
    """``<user cache dir>/vcg.sqlite3``, the cache dir from ``platformdirs.user_cache_dir("nic-advisor")``.

    The file is a cache: it is rebuilt from the shipped CSV whenever it is missing or stale.
    """
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_DIR_NAME)) / DEFAULT_FILE_NAME


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open (creating if needed) the SQLite file at ``path``; ``":memory:"`` gives an in-memory database.

    The connection is in autocommit mode (transactions are explicit), has foreign keys on, returns
    :class:`sqlite3.Row` rows and may be used from another thread (callers serialise access).
    Raises OSError when the folder cannot be created, sqlite3.Error when the file cannot be opened.
    """
    target = os.fspath(path)
    if target != ":memory:":
        file = Path(target)
        file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not file.exists():
            fd = os.open(file, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
    conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def user_version(conn: sqlite3.Connection) -> int:
    """The ``PRAGMA user_version`` of the database (0 for a new file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _is_ours(conn: sqlite3.Connection) -> bool:
    has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
    if not has_meta:
        return False
    row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    return bool(row and row[0] == FORMAT)


def migrate(conn: sqlite3.Connection, path: str | os.PathLike[str] | None = None,
            migrations: Sequence[Migration] = MIGRATIONS) -> Path | None:
    """Bring the database up to the last version of ``migrations``; returns the backup file made, or None.

    ``path`` is the database file (None or ``":memory:"``: no backup). Steps run in order, each in its own
    transaction that also sets ``user_version``; a failing step is rolled back and its error raised.
    Raises VcgSchemaError when the database is newer than ``migrations`` or is not a NIC Advisor
    compatibility database.
    """
    target = migrations[-1].version if migrations else 0
    current = user_version(conn)
    where = os.fspath(path) if path is not None else "the database"
    if current > target:
        raise VcgSchemaError(
            f"{where} has compatibility-database schema version {current}, but this NIC Advisor knows only up "
            f"to version {target}. Use a newer NIC Advisor, or delete the file: it is rebuilt from the shipped data.")
    if current > 0 and not _is_ours(conn):
        raise VcgSchemaError(f"{where} has schema version {current} but is not a NIC Advisor compatibility "
                             f"database (no meta.format = {FORMAT!r} row)")
    pending = [m for m in migrations if m.version > current]
    if not pending:
        return None
    backup = None
    if path is not None and os.fspath(path) != ":memory:":
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
        if pages > 0:
            backup = backup_file(conn, Path(path), current)
    for step in pending:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if isinstance(step.apply, str):
                _run_script(conn, step.apply)
            else:
                step.apply(conn)
            conn.execute(f"PRAGMA user_version = {int(step.version)}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    return backup
