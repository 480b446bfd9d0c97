"""Crash-safe undo journal, in SQLite, for the changes a benchmark between audited hosts makes on
those hosts (a temporary folder created, an agent file copied into it, a benchmark process started).

The design follows :mod:`nicadvisor.bench.journal` (local changes): every change is written *before*
it is made, the row is deleted once the change has been undone, and a run that crashed or was killed
leaves its rows behind for the next run to undo. Rows belong to a run and to its owner process (pid +
start time, :func:`nicadvisor.procinfo.process_start_ticks`), so a later run never undoes the live
changes of a concurrent one (:func:`orphaned_entries`).

Undoing needs an SSH session to the host, which this module does not open: it only stores and reads
rows. :mod:`nicadvisor.bench.remote` undoes them (``RemoteBench.restore_leftovers``). No secret is
ever stored: a row names its host by ``ssh://user@host:port`` only.

File: ``<directory>/bench-remote-journal.sqlite3`` (default
``platformdirs.user_state_dir("nic-advisor")``), schema version in ``PRAGMA user_version``
(:data:`SCHEMA_VERSION`; a newer file is refused, never rewritten). One row of table ``change``::

    id="9f0c…" run="3a1b…" owner_pid=1234 owner_start=56789 created="2026-11-21T10:00:00+00:00"
    host="ssh://bench@10.0.0.2:22" kind="process"
    data='{"argv": ["netserver", "-D", ...], "pidfile": "/tmp/nicadv-bench-…/p3.pid", "pid": 4321, "start": 99887}'

Kinds written by :mod:`nicadvisor.bench.remote`: ``"folder"`` (``{"path"}``) and ``"process"``
(``{"argv", "pidfile", "pid", "start"}``; ``pid``/``start`` are filled in right after the process
started, so a crash in between leaves the pid file to find it by).
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import os
import sqlite3
import threading
import uuid
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

import platformdirs

from nicadvisor.procinfo import process_start_ticks

from .sysutil import same_process_alive

DB_NAME = "bench-remote-journal.sqlite3"
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS change (
    id TEXT PRIMARY KEY,
    run TEXT NOT NULL,
    owner_pid INTEGER NOT NULL,
    owner_start INTEGER,
    created TEXT NOT NULL,
    host TEXT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
)
"""

_ACTIVE_RUNS: set[str] = set()
_ACTIVE_LOCK = threading.Lock()


class JournalError(OSError):
    """The journal cannot be opened, read or written (the SQLite error is the cause)."""


_F = TypeVar("_F", bound=Callable[..., Any])


def _as_oserror(fn: _F) -> _F:
    """Turn :class:`sqlite3.Error` into :class:`JournalError`, so callers handle one kind of failure."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as exc:
            raise JournalError(f"the remote benchmark journal cannot be used: {exc}") from exc
    return wrapper  # type: ignore[return-value]


class JournalVersionError(OSError):
    """The journal file was written by a newer NIC Advisor (its schema version is higher than
    :data:`SCHEMA_VERSION`); it is left untouched and no change is made without a journal."""


def default_dir() -> Path:
    """``platformdirs.user_state_dir("nic-advisor")`` (created on first write)."""
    return Path(platformdirs.user_state_dir("nic-advisor"))


@dataclass(frozen=True)
class RemoteEntry:
    """One journaled change on a remote host: ``host`` is ``ssh://user@host:port``, ``kind``
    ``"folder"`` or ``"process"``, ``data`` its JSON details (see the module docstring)."""

    id: str
    run: str
    owner_pid: int
    owner_start: int | None
    created: str
    host: str
    kind: str
    data: dict[str, Any]


def _connect(directory: Path) -> sqlite3.Connection:
    """Open (and create or check) the journal. Raises OSError/sqlite3.Error, JournalVersionError."""
    directory.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(directory / DB_NAME, timeout=10.0, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous=FULL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalVersionError(f"{directory / DB_NAME} has schema version {version}, newer than this "
                                      f"NIC Advisor's {SCHEMA_VERSION}: use the newer version to undo its changes")
        if version < SCHEMA_VERSION:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(_SCHEMA)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        conn.close()
        raise
    return conn


def _row(r: tuple) -> RemoteEntry:
    try:
        data = json.loads(r[7])
    except ValueError:
        data = {}
    return RemoteEntry(id=r[0], run=r[1], owner_pid=r[2], owner_start=r[3], created=r[4], host=r[5], kind=r[6],
                       data=data if isinstance(data, dict) else {})


@_as_oserror
def read_entries(directory: Path | str | None = None, host: str | None = None) -> list[RemoteEntry]:
    """Every row (of ``host`` only, when given), oldest first. A missing journal is an empty one.
    Raises JournalVersionError for a newer file, JournalError (an OSError) when it cannot be read."""
    d = Path(directory) if directory is not None else default_dir()
    if not (d / DB_NAME).exists():
        return []
    with closing(_connect(d)) as conn:
        sql = "SELECT id, run, owner_pid, owner_start, created, host, kind, data FROM change"
        args: tuple = ()
        if host is not None:
            sql += " WHERE host = ?"
            args = (host,)
        return [_row(r) for r in conn.execute(sql + " ORDER BY rowid", args).fetchall()]


def owner_gone(entry: RemoteEntry) -> bool:
    """True when the run that wrote ``entry`` can no longer undo it itself: its owner process is gone
    (pid and start time), or it is this process but the run is no longer active."""
    if entry.owner_pid == os.getpid() and entry.owner_start == process_start_ticks(os.getpid()):
        with _ACTIVE_LOCK:
            return entry.run not in _ACTIVE_RUNS
    return not same_process_alive(entry.owner_pid, entry.owner_start)


def orphaned_entries(directory: Path | str | None = None, host: str | None = None) -> list[RemoteEntry]:
    """The rows (of ``host``, when given) that a crashed, killed or finished run left behind, oldest
    first: see :func:`owner_gone`."""
    return [e for e in read_entries(directory, host) if owner_gone(e)]


@_as_oserror
def forget(directory: Path | str | None, entry_id: str) -> None:
    """Delete row ``entry_id`` (its change has been undone). Raises OSError (JournalError)."""
    d = Path(directory) if directory is not None else default_dir()
    with closing(_connect(d)) as conn, conn:
        conn.execute("DELETE FROM change WHERE id = ?", (entry_id,))


class RemoteJournal:
    """The journal of one run. ``close()`` (or leaving the ``with`` block) marks the run finished;
    undoing is the caller's job (it needs SSH), see :mod:`nicadvisor.bench.remote`.

    ``directory``: where the SQLite file lives (default :func:`default_dir`). Raises
    JournalVersionError / OSError (JournalError) when the journal cannot be opened: a change that
    cannot be journaled must not be made.
    """

    @_as_oserror
    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()
        with closing(_connect(self.directory)):
            pass
        self.run_id = uuid.uuid4().hex
        self._owner_pid = os.getpid()
        self._owner_start = process_start_ticks(self._owner_pid)
        with _ACTIVE_LOCK:
            _ACTIVE_RUNS.add(self.run_id)

    def __enter__(self) -> "RemoteJournal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Mark the run finished: rows it still holds become :func:`orphaned_entries`."""
        with _ACTIVE_LOCK:
            _ACTIVE_RUNS.discard(self.run_id)

    @_as_oserror
    def record(self, host: str, kind: str, **data: Any) -> str:
        """Write a row for a change about to be made on ``host`` (``ssh://user@host:port``) and return
        its id; committed (fsynced) before returning. Raises OSError (JournalError)."""
        entry_id = uuid.uuid4().hex
        created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        with closing(_connect(self.directory)) as conn, conn:
            conn.execute("INSERT INTO change (id, run, owner_pid, owner_start, created, host, kind, data) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (entry_id, self.run_id, self._owner_pid, self._owner_start, created, host, kind,
                          json.dumps(data, sort_keys=True)))
        return entry_id

    @_as_oserror
    def update(self, entry_id: str, **data: Any) -> None:
        """Merge ``data`` into row ``entry_id``'s details (e.g. the pid once known)."""
        with closing(_connect(self.directory)) as conn, conn:
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute("SELECT data FROM change WHERE id = ?", (entry_id,)).fetchone()
            if row is None:
                return
            merged = {**json.loads(row[0]), **data}
            conn.execute("UPDATE change SET data = ? WHERE id = ?", (json.dumps(merged, sort_keys=True), entry_id))

    def done(self, entry_id: str) -> None:
        """Delete row ``entry_id`` (its change has been undone)."""
        forget(self.directory, entry_id)

    def entries(self, host: str | None = None) -> list[RemoteEntry]:
        """This run's rows still in the journal (of ``host``, when given), oldest first."""
        return [e for e in read_entries(self.directory, host) if e.run == self.run_id]
