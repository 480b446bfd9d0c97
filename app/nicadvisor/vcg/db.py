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
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from nicadvisor.sqlite_migrations import Migration, has_format, run_script, user_version
from nicadvisor.sqlite_migrations import migrate as run_migrations

FORMAT = "nicadvisor-vcg"
APP_DIR_NAME = "nic-advisor"
DEFAULT_FILE_NAME = "vcg.sqlite3"


class VcgError(Exception):
    """Base class of the compatibility-database errors."""


class VcgSchemaError(VcgError):
    """The database file has a schema this code cannot use (newer version, or not ours)."""


class VcgDataError(VcgError):
    """The seed data is malformed (message names the file and line)."""


def _schema_v1() -> str:
    return resources.files("nicadvisor.vcg").joinpath("schema.sql").read_text(encoding="utf-8")


def _apply_v1(conn: sqlite3.Connection) -> None:
    run_script(conn, _schema_v1(), VcgSchemaError)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema: devices, listings, releases, drivers, firmware, features, trust levels", _apply_v1),
)
SCHEMA_VERSION = MIGRATIONS[-1].version


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


def _check(conn: sqlite3.Connection, where: str, migrations: Sequence[Migration]) -> int:
    """The database's version after checking it can be used (writes nothing); raises VcgSchemaError for a newer
    version or for a file that has a version but is not a NIC Advisor compatibility database."""
    target = migrations[-1].version if migrations else 0
    current = user_version(conn)
    if current > target:
        raise VcgSchemaError(
            f"{where} has compatibility-database schema version {current}, but this NIC Advisor knows only up "
            f"to version {target}. Use a newer NIC Advisor, or delete the file: it is rebuilt from the shipped data.")
    if current > 0 and not has_format(conn, FORMAT):
        raise VcgSchemaError(f"{where} has schema version {current} but is not a NIC Advisor compatibility "
                             f"database (no meta.format = {FORMAT!r} row)")
    return current


def migrate(conn: sqlite3.Connection, path: str | os.PathLike[str] | None = None,
            migrations: Sequence[Migration] = MIGRATIONS) -> Path | None:
    """Bring the database up to the last version of ``migrations`` with the one runner
    (:func:`nicadvisor.sqlite_migrations.migrate`); returns the backup file made, or None.

    ``path`` is the database file (None or ``":memory:"``: no backup). Steps run in order, each in its own
    transaction that also sets ``user_version``; a failing step is rolled back and its error raised.
    Raises VcgSchemaError when the database is newer than ``migrations`` or is not a NIC Advisor
    compatibility database.
    """
    where = os.fspath(path) if path is not None else "the database"
    return run_migrations(conn, path, migrations, _check, where, VcgSchemaError)
