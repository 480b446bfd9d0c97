"""Backing up a SQLite database before a schema migration (shared by the audit history and the
compatibility database)."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path


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
