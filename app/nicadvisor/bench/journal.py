"""The crash-safe undo journal of every change a benchmark makes, on this machine or on a remote host.

One journal, one rule: every change is written *before* it is made (write-ahead), its row is deleted once the
change has been undone, and a run that crashed or was killed (``kill -9``) leaves its rows behind for the next run
to undo. Rows belong to a run and to its owner process (pid + start time,
:func:`nicadvisor.procinfo.process_start_ticks`), so a run never undoes the live changes of a concurrent one
(:func:`owner_gone`).

Where a change lives picks the backend that undoes it (``host`` of the row):

* :data:`LOCAL` (this machine; :mod:`nicadvisor.services.bench`): kind ``"netns"`` (``{"name"}``, journaled before
  ``ip netns add``) and ``"process"`` (``{"pid", "start_ticks", "argv"}``, right after ``Popen`` returns: a crash
  in between can only leak a process inside a journaled namespace, which deleting the namespace stops as well).
  Undone here by :func:`undo_local`; :func:`restore_from_journal` undoes what earlier local runs left.
* ``ssh://user@host:port`` (:mod:`nicadvisor.bench.remote`): kind ``"folder"`` (``{"path"}``) and ``"process"``
  (``{"argv", "pidfile", "pid", "start"}``; pid and start time filled in right after the process started, so a
  crash in between leaves the pid file to find it by). Undoing needs an SSH session, which this module does not
  open: :mod:`nicadvisor.bench.remote` passes its own ``undo`` to :func:`undo_rows`. No secret is ever stored.

File: ``<directory>/bench-journal.sqlite3`` (default ``platformdirs.user_state_dir("nic-advisor")``), schema version
in ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`; a newer file is refused, never rewritten), every write committed
with ``synchronous=FULL`` before the change is made. One row of table ``change``::

    id="9f0c…" run="3a1b…" owner_pid=1234 owner_start=56789 created="2026-11-21T10:00:00+00:00"
    host="local" kind="netns" data='{"name": "nicadv-1234-3a1b2ca"}'
    host="ssh://bench@10.0.0.2:22" kind="process"
    data='{"argv": ["netserver", "-D", ...], "pidfile": "/tmp/nicadv-bench-…/p3.pid", "pid": 4321, "start": 99887}'

Rows left by the two journals of earlier versions (``bench-journal.jsonl``, JSON lines of local changes, and
``bench-remote-journal.sqlite3``) are taken over at the first open and those files removed, so what a run of an
earlier version left is still undone.
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import os
import re
import sqlite3
import threading
import uuid
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

import platformdirs

from nicadvisor.procinfo import process_start_ticks

from .sysutil import IP, run_cmd, same_process_alive, stop_pid

DB_NAME = "bench-journal.sqlite3"
SCHEMA_VERSION = 1
#: The ``host`` of a change on this machine.
LOCAL = "local"
#: The journals of earlier versions, taken over at the first open (see the module docstring).
LEGACY_JSONL_NAME = "bench-journal.jsonl"
LEGACY_REMOTE_NAME = "bench-remote-journal.sqlite3"
NETNS_PREFIX = "nicadv-"
#: ``nicadv-<owner pid>-<run token><side>``, e.g. ``nicadv-1234-3a1b2ca``
NETNS_NAME_RE = re.compile(r"^nicadv-(\d+)-([0-9a-f]{6})([ab])$")
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
_COLUMNS = "id, run, owner_pid, owner_start, created, host, kind, data"

_ACTIVE_RUNS: set[str] = set()
_ACTIVE_LOCK = threading.Lock()


class JournalError(OSError):
    """The journal cannot be opened, read or written (the SQLite error is the cause)."""


class JournalVersionError(OSError):
    """The journal file was written by a newer NIC Advisor (its schema version is higher than
    :data:`SCHEMA_VERSION`); it is left untouched and no change is made without a journal."""


_F = TypeVar("_F", bound=Callable[..., Any])


def _as_oserror(fn: _F) -> _F:
    """Turn :class:`sqlite3.Error` into :class:`JournalError`, so callers handle one kind of failure."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as exc:
            raise JournalError(f"the benchmark undo journal cannot be used: {exc}") from exc
    return wrapper  # type: ignore[return-value]


def default_dir() -> Path:
    """``platformdirs.user_state_dir("nic-advisor")`` (created on first write)."""
    return Path(platformdirs.user_state_dir("nic-advisor"))


def _dir(directory: Path | str | None) -> Path:
    return Path(directory) if directory is not None else default_dir()


@dataclass(frozen=True)
class Entry:
    """One journaled change: ``host`` is :data:`LOCAL` or ``ssh://user@host:port``, ``kind`` what changed
    (``"netns"``, ``"process"``, ``"folder"``), ``data`` its JSON details (see the module docstring)."""

    id: str
    run: str
    owner_pid: int
    owner_start: int | None
    created: str
    host: str
    kind: str
    data: dict[str, Any]


@dataclass
class RestoreOutcome:
    """What undoing did: ``undone`` and ``failed`` are plain sentences (``"deleted network namespace
    nicadv-1234-3a1b2ca"``, ``"stopped process 4321 (netserver) on lab-b"``)."""

    undone: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


#: How a backend undoes one row: ``(done, sentence)``; a row not done stays in the journal.
Undo = Callable[[Entry], "tuple[bool, str]"]


# --- the file ----------------------------------------------------------------------------------------------------

def _connect(directory: Path) -> sqlite3.Connection:
    """Open (and create or check) the journal, taking over the files of earlier versions. Raises OSError,
    sqlite3.Error, JournalVersionError."""
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
        _take_over_legacy(conn, directory)
    except BaseException:
        conn.close()
        raise
    return conn


def _legacy_rows(directory: Path) -> list[tuple]:
    """The rows of the journals of earlier versions in ``directory`` (a torn JSON line, left by a crash while
    writing, carries nothing that can be undone and is skipped; a legacy file of another schema is left alone)."""
    rows: list[tuple] = []
    try:
        text = (directory / LEGACY_JSONL_NAME).read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    for line in text.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if not isinstance(doc, dict) or "id" not in doc or "kind" not in doc:
            continue
        head = {k: doc.pop(k, None) for k in ("id", "run", "owner_pid", "owner_start", "created", "kind")}
        owner = head["owner_pid"] if isinstance(head["owner_pid"], int) else 0
        start = head["owner_start"] if isinstance(head["owner_start"], int) else None
        rows.append((str(head["id"]), str(head["run"] or ""), owner, start, str(head["created"] or ""), LOCAL,
                     str(head["kind"]), json.dumps(doc, sort_keys=True)))
    remote = directory / LEGACY_REMOTE_NAME
    if remote.exists():
        with closing(sqlite3.connect(remote, timeout=10.0)) as old:
            if old.execute("PRAGMA user_version").fetchone()[0] == 1:
                rows += old.execute(f"SELECT {_COLUMNS} FROM change ORDER BY rowid").fetchall()
    return rows


def _take_over_legacy(conn: sqlite3.Connection, directory: Path) -> None:
    if not ((directory / LEGACY_JSONL_NAME).exists() or (directory / LEGACY_REMOTE_NAME).exists()):
        return
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(f"INSERT OR IGNORE INTO change ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         _legacy_rows(directory))
    for name in (LEGACY_JSONL_NAME, LEGACY_REMOTE_NAME):  # after the commit: taken over twice at worst, never lost
        try:
            (directory / name).unlink()
        except FileNotFoundError:
            pass


def _row(r: tuple) -> Entry:
    try:
        data = json.loads(r[7])
    except ValueError:
        data = {}
    return Entry(id=r[0], run=r[1], owner_pid=r[2], owner_start=r[3], created=r[4], host=r[5], kind=r[6],
                 data=data if isinstance(data, dict) else {})


@_as_oserror
def read_entries(directory: Path | str | None = None, host: str | None = None) -> list[Entry]:
    """Every row (of ``host`` only, when given), oldest first. A missing journal is an empty one.
    Raises JournalVersionError for a newer file, JournalError (an OSError) when it cannot be read."""
    d = _dir(directory)
    if not any((d / name).exists() for name in (DB_NAME, LEGACY_JSONL_NAME, LEGACY_REMOTE_NAME)):
        return []
    with closing(_connect(d)) as conn:
        sql = f"SELECT {_COLUMNS} FROM change"
        args: tuple = ()
        if host is not None:
            sql += " WHERE host = ?"
            args = (host,)
        return [_row(r) for r in conn.execute(sql + " ORDER BY rowid", args).fetchall()]


@_as_oserror
def forget(directory: Path | str | None, entry_id: str) -> None:
    """Delete row ``entry_id`` (its change has been undone). Raises OSError (JournalError)."""
    with closing(_connect(_dir(directory))) as conn, conn:
        conn.execute("DELETE FROM change WHERE id = ?", (entry_id,))


def owner_gone(entry: Entry) -> bool:
    """True when the run that wrote ``entry`` can no longer undo it itself: its owner process is gone (pid and
    start time), or it is this process but the run is no longer active."""
    if entry.owner_pid == os.getpid() and entry.owner_start == process_start_ticks(os.getpid()):
        with _ACTIVE_LOCK:
            return entry.run not in _ACTIVE_RUNS
    if entry.owner_pid <= 0:
        return True
    return not same_process_alive(entry.owner_pid, entry.owner_start)


def orphaned_entries(directory: Path | str | None = None, host: str | None = None) -> list[Entry]:
    """The rows (of ``host``, when given) that a crashed, killed or finished run left behind, oldest first: see
    :func:`owner_gone`."""
    return [e for e in read_entries(directory, host) if owner_gone(e)]


def undo_rows(directory: Path | str | None, rows: Iterable[Entry], undo: Undo) -> RestoreOutcome:
    """Undo ``rows`` in the order given with the backend ``undo``; each row undone is deleted from the journal
    (its sentence in ``undone``), one that is not stays (its sentence in ``failed``). Raises OSError
    (JournalError) when the journal cannot be written."""
    outcome = RestoreOutcome()
    for entry in rows:
        ok, sentence = undo(entry)
        if ok:
            forget(directory, entry.id)
            outcome.undone.append(sentence)
        else:
            outcome.failed.append(sentence)
    return outcome


# --- one run -------------------------------------------------------------------------------------------------------

class Journal:
    """The undo journal of one run. Use as a context manager: leaving it undoes what the run still holds on this
    machine (:meth:`undo_all`) and closes the run; rows on remote hosts are undone by their caller
    (:mod:`nicadvisor.bench.remote`) and, when it could not, stay for the next run.

    ``directory``: where the journal lives (default :func:`default_dir`). Raises JournalVersionError /
    OSError (JournalError) when the journal cannot be opened: a change that cannot be journaled must not be made.
    """

    @_as_oserror
    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = _dir(directory)
        with closing(_connect(self.directory)):
            pass
        self.run_id = uuid.uuid4().hex
        self._owner_pid = os.getpid()
        self._owner_start = process_start_ticks(self._owner_pid)
        with _ACTIVE_LOCK:
            _ACTIVE_RUNS.add(self.run_id)

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.undo_all()
        finally:
            self.close()

    def close(self) -> None:
        """Mark the run finished: the rows it still holds become :func:`orphaned_entries` of later runs."""
        with _ACTIVE_LOCK:
            _ACTIVE_RUNS.discard(self.run_id)

    @property
    def token(self) -> str:
        """Six hex digits naming this run's namespaces."""
        return self.run_id[:6]

    @_as_oserror
    def record(self, kind: str, *, host: str = LOCAL, **data: Any) -> str:
        """Write a row for a change of ``kind`` about to be made on ``host`` (:data:`LOCAL` or
        ``ssh://user@host:port``) and return its id; committed (fsynced) before returning. Raises OSError
        (JournalError): a change that cannot be journaled must not be made."""
        entry_id = uuid.uuid4().hex
        created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        with closing(_connect(self.directory)) as conn, conn:
            conn.execute(f"INSERT INTO change ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
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

    def entries(self, host: str | None = None) -> list[Entry]:
        """This run's rows still in the journal (of ``host``, when given), oldest first."""
        return [e for e in read_entries(self.directory, host) if e.run == self.run_id]

    def undo_all(self, undo: Undo | None = None, host: str | None = LOCAL) -> RestoreOutcome:
        """Undo this run's rows on ``host`` (None: on every host), newest first, with the backend ``undo`` (default
        :func:`undo_local`, for :data:`LOCAL`); rows that cannot be undone stay. Safe to call more than once."""
        return undo_rows(self.directory, reversed(self.entries(host)), undo or undo_local)


# --- the local backend ---------------------------------------------------------------------------------------------

def existing_netns() -> set[str]:
    """Names of the network namespaces ``ip netns list`` shows (empty if ``ip`` fails)."""
    res = run_cmd([IP, "netns", "list"])
    names = set()
    if res.ok:
        for line in res.stdout.splitlines():
            if line.strip():
                names.add(line.split()[0])
    return names


def delete_netns(name: str) -> bool:
    """Stop every process inside namespace ``name`` (they were started there by a bench run), then
    delete it. True when the namespace no longer exists."""
    if name not in existing_netns():
        return True
    pids = run_cmd([IP, "netns", "pids", name])
    if pids.ok:
        for tok in pids.stdout.split():
            if tok.isdigit():
                stop_pid(int(tok), process_start_ticks(int(tok)), grace_s=0.5)
    run_cmd([IP, "netns", "delete", name])
    return name not in existing_netns()


def undo_local(entry: Entry) -> tuple[bool, str]:
    """Undo one change on this machine: delete a ``nicadv-*`` namespace (stopping what runs inside), or stop a
    process that is still the one recorded (pid and start time). Returns (done, sentence). Unknown kinds and rows
    of another host are reported, not undone."""
    kind, data = entry.kind, entry.data
    if entry.host != LOCAL:
        return False, f"{kind} {entry.id} is on {entry.host}, not on this machine"
    if kind == "netns":
        name = str(data.get("name", ""))
        if not name.startswith(NETNS_PREFIX):
            return False, f"refused to delete namespace {name!r}: not a {NETNS_PREFIX}* namespace"
        ok = delete_netns(name)
        return ok, (f"deleted network namespace {name}" if ok else f"could not delete network namespace {name}")
    if kind == "process":
        pid = data.get("pid")
        if not isinstance(pid, int) or pid <= 1:
            return True, f"dropped process entry without a valid pid ({pid!r})"
        argv0 = (data.get("argv") or ["?"])[0]
        if not same_process_alive(pid, data.get("start_ticks")):
            return True, f"process {pid} ({argv0}) was already gone"
        ok = stop_pid(pid, data.get("start_ticks"))
        return ok, (f"stopped process {pid} ({argv0})" if ok else f"could not stop process {pid} ({argv0})")
    return False, f"unknown journal entry kind {kind!r} (id {entry.id})"


def restore_from_journal(directory: Path | str | None = None, *, sweep_orphans: bool = True) -> RestoreOutcome:
    """Undo whatever a crashed, killed or cancelled run left behind on this machine.

    Undoes (newest first) every :data:`LOCAL` row whose owner process is gone, or which belongs to this process but
    to a run that is no longer active. With ``sweep_orphans`` it also deletes ``nicadv-<pid>-<token>{a,b}``
    namespaces that no row mentions and whose owner pid is gone (e.g. after the journal file itself was lost).
    Never raises for a change that cannot be undone: it is listed in ``failed`` and stays in the journal; raises
    OSError (JournalError, JournalVersionError) when the journal cannot be read.
    """
    directory = _dir(directory)
    outcome = undo_rows(directory, reversed(orphaned_entries(directory, LOCAL)), undo_local)
    if sweep_orphans:
        journaled = {str(e.data.get("name")) for e in read_entries(directory, LOCAL) if e.kind == "netns"}
        with _ACTIVE_LOCK:
            active_tokens = {r[:6] for r in _ACTIVE_RUNS}
        for name in sorted(existing_netns()):
            m = NETNS_NAME_RE.match(name)
            if not m or name in journaled:
                continue
            pid, token = int(m.group(1)), m.group(2)
            if pid == os.getpid():
                gone = token not in active_tokens
            else:
                gone = process_start_ticks(pid) is None
            if gone:
                if delete_netns(name):
                    outcome.undone.append(f"deleted orphan network namespace {name}")
                else:
                    outcome.failed.append(f"could not delete orphan network namespace {name}")
    return outcome
