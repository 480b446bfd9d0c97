"""The audit history: past and partial audits in one SQLite file (issue "Audit live estates" §5).

An audit is written as it runs: :meth:`AuditStore.begin` creates the row (status ``running``),
:meth:`AuditStore.add_host` commits each host as soon as it is assembled, :meth:`AuditStore.finish` adds the
findings and benchmarks and the final status. A crash or kill between two calls loses nothing already
written: every call is its own committed transaction (WAL journal, ``synchronous = FULL``). A ``running``
audit whose writing process is gone reads back as ``interrupted`` (with the hosts it has).

File: ``platformdirs.user_data_dir("nic-advisor")/history.sqlite3`` by default, created owner-only (0600,
folder 0700). Its schema is versioned by ``PRAGMA user_version`` and migrated forward on open after a backup
copy (``history.sqlite3.v<old>.bak``); a file of a newer NIC Advisor is refused (see
:mod:`nicadvisor.store.migrations`). Documents are the JSON-export shapes of :mod:`nicadvisor.document`.

Secrets: the model holds none, and the store also removes the password part of any
``scheme://user:password@host`` text before writing (:func:`nicadvisor.document.redact_secrets`).
Deleted audits are overwritten on disk (``PRAGMA secure_delete``).

Damage and full disks: a file SQLite finds damaged when it is opened (``PRAGMA quick_check``, run before anything
is written: truncated, a bad header, garbage) is refused with :class:`HistoryDamaged` and left exactly as it is; any
later SQLite error (a full disk, damage found while reading) is raised as :class:`HistoryError` naming the file.
Text that is not valid UTF-8 in a row reads back with ``�`` in its place, and text that holds lone surrogates (file
names that were not UTF-8) is written with them escaped (:func:`nicadvisor.model.text.escape_undecoded`).

Thread safety: one connection per store, every method serialised by a lock, so the GUI thread may list
audits while a worker thread writes. Several processes may open the same file (SQLite locking, 10 s busy
timeout).
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nicadvisor import __version__
from nicadvisor.model.audit import Audit
from nicadvisor.model.entities import Finding, Host, InputProblem
from nicadvisor.model.text import escape_undecoded
from nicadvisor.model.verdict import (
    COMPLETE, LABEL, NOT_RATED, NOT_READY, READY, Verdict, incomplete_verdict, inputs_not_read,
)
from nicadvisor.procinfo import process_start_ticks
from nicadvisor.document import (
    CodecError,
    benchmark_from_dict,
    benchmark_to_dict,
    finding_from_dict,
    finding_to_doc,
    host_from_dict,
    host_to_doc,
    problem_to_doc,
    redact_secrets,
)
from nicadvisor.store.migrations import (
    HistoryError,
    count_findings,
    count_pnics,
    migrate,
)

APP_DIR_NAME = "nic-advisor"
DEFAULT_FILE_NAME = "history.sqlite3"
#: Statuses :meth:`AuditStore.finish` accepts.
FINAL_STATUSES = ("done", "cancelled", "failed")
RUNNING = "running"
INTERRUPTED = "interrupted"
#: The status of an audit whose writing to the history failed (a full disk): not "interrupted" (issue 29 §15).
SAVE_FAILED = "save failed"
NOTHING_READ = "nothing read"


class HistoryDamaged(HistoryError):
    """SQLite finds the history file damaged (truncated, a bad header, garbage in its pages). Nothing was written
    to it: it is left as it was found, for whoever wants to rescue it."""


#: SQLite result codes of a damaged file (``sqlite3.Error.sqlite_errorname``).
_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def _history_error(path: Path, exc: sqlite3.Error) -> HistoryError:
    """The :class:`HistoryError` of an SQLite error on the history ``path``, in one sentence."""
    name = getattr(exc, "sqlite_errorname", "")
    if name in _DAMAGED or type(exc) is sqlite3.DatabaseError:
        return HistoryDamaged(f"the audit history {path} is damaged ({exc}); it was left as it is — move it aside to "
                              "start a new history")
    return HistoryError(f"the audit history {path} cannot be used ({exc})")


def _sqlite_errors(method):
    """Raise every ``sqlite3.Error`` of ``method`` — but a misuse such as a closed store (ProgrammingError), which
    is a bug, not the file's state — as the :class:`HistoryError` of :func:`_history_error`."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise
        except sqlite3.Error as exc:
            raise _history_error(self.path, exc) from exc
    return wrapper


def _lenient_text(raw: bytes) -> str:
    """A TEXT value as str: bytes that are not UTF-8 (a damaged row) become ``�`` instead of failing the read."""
    return raw.decode("utf-8", "replace")


class AuditNotFound(HistoryError, KeyError):
    """No audit with this id in the history (deleted, or never there)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "audit not found"


@dataclass(frozen=True)
class AuditSummary:
    """One line of the history list.

    Attributes:
        id: the audit id (:meth:`AuditStore.begin`).
        created_at: ISO 8601 time the audit started, as given to ``begin``.
        status: ``running``, ``done``, ``cancelled``, ``failed`` or ``interrupted`` (its process died).
        hosts: hosts stored so far.
        pnics: pNICs of those hosts that are physical or of unknown kind (pseudo devices such as ``vusb0``
            left out, as in the JSON ``summary``).
        errors: ``error`` findings, None until the audit is finished (rules not evaluated: unknown, not 0).
        warnings: ``warning`` findings, None until finished.
        inputs: the inputs named at ``begin`` (paths, ``local``, live targets; passwords removed).
        finished_at: ISO 8601 UTC time of ``finish``, None before.
        verdict, verdict_reason: the verdict stored by ``finish`` (``ready``/``not_ready``/``not_rated``), None
            before (or for an audit finished by a NIC Advisor older than verdicts).
        hosts_expected: how many hosts the inputs named, when known before reading them.
        name: the name the user gave the audit (:meth:`AuditStore.set_name`), ``""`` when none.
        unread: the inputs of a finished audit from which no host was read (a target that refused or failed, a path
            with nothing readable: :func:`~nicadvisor.model.verdict.inputs_not_read`), in the order given; empty for
            a READY or unfinished audit.
    """

    id: int
    created_at: str
    status: str
    hosts: int
    pnics: int
    errors: int | None
    warnings: int | None
    inputs: tuple[str, ...] = field(default_factory=tuple)
    finished_at: str | None = None
    verdict: str | None = None
    verdict_reason: str | None = None
    hosts_expected: int | None = None
    name: str = ""
    unread: tuple[str, ...] = ()

    @property
    def display_status(self) -> str:
        """The status as the history list shows it: ``nothing read`` for a finished audit in which no physical
        pNIC could be read (a failed audit, whatever ran to its end), else :attr:`status`."""
        return NOTHING_READ if self.status == "done" and self.pnics == 0 else self.status

    @property
    def completion(self) -> str:
        """The ``Audit.completion`` of this row: ``complete`` for ``done``, else the status itself."""
        return COMPLETE if self.status == "done" else self.status

    def verdict_of(self) -> Verdict:
        """The verdict shown in the history list: the one stored at ``finish``; for an audit that never finished,
        NOT RATED "interrupted after N of M hosts" (:func:`~nicadvisor.model.verdict.incomplete_verdict`); for a
        finished audit of an older NIC Advisor, NOT READY with errors, else NOT RATED until it is reopened."""
        if self.completion != COMPLETE:
            return incomplete_verdict(self.completion, self.hosts, self.hosts_expected, self.errors)
        if self.verdict in LABEL:
            return Verdict(self.verdict, self.verdict_reason or "")
        if self.errors:
            return Verdict(NOT_READY, f"{self.errors} error finding(s)")
        return Verdict(NOT_RATED, "saved by an older NIC Advisor: open it to compute its verdict")


def default_history_path() -> Path:
    """``platformdirs.user_data_dir("nic-advisor")/history.sqlite3`` (not created here)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_DIR_NAME)) / DEFAULT_FILE_NAME


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")



def _owner_gone(pid: int | None, start: int | None) -> bool:
    """True only when it is certain the recorded writer process no longer runs (Linux ``/proc``)."""
    if pid is None or not Path("/proc/self/stat").exists():
        return False
    ticks = process_start_ticks(int(pid))
    return ticks is None or (start is not None and ticks != int(start))


def _dumps(value: Any) -> str:
    return escape_undecoded(json.dumps(redact_secrets(value), ensure_ascii=False, allow_nan=False,
                                       separators=(",", ":")), in_json=True)


class AuditStore:
    """The audit history file.

    Attributes:
        path: the SQLite file (``None`` given: :func:`default_history_path`).
        backup_path: the copy made before migrating an older file at open, else None.

    Raises on open: :class:`~nicadvisor.store.migrations.HistorySchemaError` for a file of a newer NIC Advisor
    or of another program (the file is left unchanged), OSError when the folder cannot be created,
    :class:`HistoryDamaged` for a file SQLite finds damaged (left unchanged), :class:`HistoryError` for any other
    SQLite error (a full disk). Every method raises :class:`HistoryError` for an SQLite error.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_history_path()
        self._lock = threading.RLock()
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        except sqlite3.Error as exc:
            raise _history_error(self.path, exc) from exc
        self._conn.text_factory = _lenient_text
        try:
            self._check_intact()  # before anything is written: a damaged file is left as it was found
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA secure_delete = ON")
            self.backup_path = migrate(self._conn, self.path)  # checks the version before writing anything
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            self._mark_interrupted()
        except sqlite3.Error as exc:
            self._conn.close()
            raise _history_error(self.path, exc) from exc
        except BaseException:
            self._conn.close()
            raise

    def _check_intact(self) -> None:
        """Raise :class:`HistoryDamaged` unless SQLite's ``PRAGMA quick_check`` finds the file sound (it reads every
        page; it writes nothing)."""
        verdict = self._conn.execute("PRAGMA quick_check(1)").fetchone()
        if not verdict or verdict[0] != "ok":
            raise HistoryDamaged(f"the audit history {self.path} is damaged ({verdict[0] if verdict else 'no answer'});"
                                 " it was left as it is — move it aside to start a new history")

    # ------------------------------------------------------------ plumbing

    def close(self) -> None:
        """Close the connection (pending writes are already committed). Further calls raise sqlite3.Error."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> AuditStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, statements: Sequence[tuple[str, tuple[Any, ...]]]) -> None:
        """Run ``statements`` in one committed transaction (caller holds the lock)."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            for sql, params in statements:
                self._conn.execute(sql, params)
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _row(self, audit_id: int) -> tuple[Any, ...]:
        row = self._conn.execute(
            "SELECT id, created_at, status, inputs, findings, benchmarks, finished_at, errors, warnings, "
            "hosts_expected, target_nsx FROM audits WHERE id = ?", (int(audit_id),)).fetchone()
        if row is None:
            raise AuditNotFound(f"audit {audit_id} is not in the history {self.path}")
        return row

    @_sqlite_errors
    def _mark_interrupted(self) -> None:
        """Persist ``interrupted`` for running audits whose writer process is gone."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, owner_pid, owner_start FROM audits WHERE status = ?", (RUNNING,)).fetchall()
            gone = [(SAVE_FAILED if self._save_failed_mark(r[0]).exists() else INTERRUPTED, r[0], RUNNING)
                    for r in rows if _owner_gone(r[1], r[2])]
            if gone:
                self._write([("UPDATE audits SET status = ? WHERE id = ? AND status = ?", g) for g in gone])
                for _status, audit_id, _was in gone:
                    self._save_failed_mark(audit_id).unlink(missing_ok=True)

    def _save_failed_mark(self, audit_id: int) -> Path:
        return self.path.with_name(f"{self.path.name}.save-failed-{int(audit_id)}")

    def note_save_failed(self, audit_id: int) -> None:
        """Remember that writing audit ``audit_id`` failed (a full disk): an empty file beside the history, which
        needs no free block where a SQLite write does; the audit then lists as ``save failed``, not ``interrupted``,
        once its process is gone. Never raises."""
        try:
            os.close(os.open(self._save_failed_mark(audit_id), os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW,
                             0o600))
        except OSError:
            pass

    # ------------------------------------------------------------ writing

    @_sqlite_errors
    def begin(self, inputs: Iterable[str], created_at: str, *, target_nsx: str | None = None) -> int:
        """Start an audit of ``inputs`` (paths, ``local``, live targets) begun at ``created_at`` (ISO 8601), for the
        NSX version ``target_nsx`` (a scope field, or None).

        Returns the new audit id; its status is ``running`` until :meth:`finish`. Committed at once.
        """
        pid = os.getpid()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                cur = self._conn.execute(
                    "INSERT INTO audits (created_at, status, inputs, benchmarks, tool_version, owner_pid, "
                    "owner_start, target_nsx) VALUES (?, ?, ?, '[]', ?, ?, ?, ?)",
                    (str(created_at), RUNNING, _dumps([str(s) for s in inputs]), __version__, pid,
                     process_start_ticks(pid), target_nsx))
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
            return int(cur.lastrowid)

    def _problem_rows(self, audit_id: int, problems: Iterable[InputProblem]) -> list[tuple[str, tuple[Any, ...]]]:
        start = self._conn.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM problems WHERE audit_id = ?",
                                   (audit_id,)).fetchone()[0]
        out = []
        for i, p in enumerate(problems):
            d = redact_secrets(problem_to_doc(p))
            out.append(("INSERT INTO problems (audit_id, seq, source, message, command) VALUES (?, ?, ?, ?, ?)",
                        (audit_id, start + i, *(escape_undecoded(d[k]) for k in ("source", "message", "command")))))
        return out

    @_sqlite_errors
    def add_host(self, audit_id: int, host: Host, problems: Iterable[InputProblem] = ()) -> None:
        """Append ``host`` (and the input problems met while reading it) to the audit; committed at once.

        Hosts keep the order of the calls. Raises AuditNotFound for an unknown id, TypeError/ValueError if
        the host holds a value that is not JSON data.
        """
        doc = host_to_doc(host)
        text = _dumps(doc)
        with self._lock:
            self._row(audit_id)
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                seq = self._conn.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM hosts WHERE audit_id = ?",
                                         (audit_id,)).fetchone()[0]
                self._conn.execute(
                    "INSERT INTO hosts (audit_id, seq, name, doc, added_at, pnics) VALUES (?, ?, ?, ?, ?, ?)",
                    (audit_id, seq, escape_undecoded(redact_secrets(host.name)), text, _now(), count_pnics(doc)))
                for sql, params in self._problem_rows(audit_id, problems):
                    self._conn.execute(sql, params)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @_sqlite_errors
    def update_host(self, audit_id: int, host: Host) -> None:
        """Replace the stored document of the audit's host named ``host.name`` (a fact learnt after the audit, such as
        an MTU path check between hosts); committed at once. Raises AuditNotFound for an unknown audit, KeyError when
        the audit holds no host of that name, TypeError/ValueError as :meth:`add_host`."""
        doc = host_to_doc(host)
        text = _dumps(doc)
        name = escape_undecoded(redact_secrets(host.name))
        with self._lock:
            self._row(audit_id)
            if self._conn.execute("SELECT 1 FROM hosts WHERE audit_id = ? AND name = ?",
                                  (int(audit_id), name)).fetchone() is None:
                raise KeyError(f"audit #{audit_id} holds no host {host.name!r}")
            self._write([("UPDATE hosts SET doc = ?, pnics = ? WHERE audit_id = ? AND name = ?",
                          (text, count_pnics(doc), int(audit_id), name))])

    @_sqlite_errors
    def add_problems(self, audit_id: int, problems: Iterable[InputProblem]) -> None:
        """Append input problems not tied to one host (an unreadable path, a failed connection); committed at once.

        Raises AuditNotFound for an unknown id.
        """
        with self._lock:
            self._row(audit_id)
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in self._problem_rows(audit_id, problems):
                    self._conn.execute(sql, params)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @_sqlite_errors
    def finish(self, audit_id: int, findings: Iterable[Finding], benchmarks: Iterable[Any] = (),
               status: str = "done", verdict: Verdict | None = None) -> None:
        """Store the findings and benchmark results, the final ``status`` (``done``, ``cancelled``, ``failed``)
        and the audit's ``verdict`` (``Audit.verdict``: shown as it is in the history list); committed at once.
        May be called again (e.g. after a benchmark) to replace them.

        Raises ValueError for another status, AuditNotFound for an unknown id, TypeError for a benchmark
        result that cannot be converted (``report.json_export.benchmark_to_dict``).
        """
        if status not in FINAL_STATUSES:
            raise ValueError(f"status must be one of {', '.join(FINAL_STATUSES)}, not {status!r}")
        findings_json = _dumps([finding_to_doc(f) for f in findings])
        bench_json = _dumps([benchmark_to_dict(b) for b in benchmarks])
        errors, warnings = count_findings(findings_json)
        with self._lock:
            self._row(audit_id)
            self._write([(
                "UPDATE audits SET findings = ?, benchmarks = ?, status = ?, finished_at = ?, errors = ?, "
                "warnings = ?, verdict = ?, verdict_reason = ? WHERE id = ?",
                (findings_json, bench_json, status, _now(), errors, warnings,
                 verdict.status if verdict else None,
                 escape_undecoded(redact_secrets(verdict.reason)) if verdict else None,
                 int(audit_id)))])

    @_sqlite_errors
    def set_name(self, audit_id: int, name: str) -> None:
        """Name the audit (``"before the i40en update"``; ``""`` removes the name; at most 200 characters, control
        characters dropped). Raises AuditNotFound."""
        clean = "".join(ch for ch in str(name) if ch.isprintable())[:200].strip()
        with self._lock:
            self._row(audit_id)
            self._write([("UPDATE audits SET name = ? WHERE id = ?",
                          (escape_undecoded(redact_secrets(clean)) or None, int(audit_id)))])

    @_sqlite_errors
    def set_hosts_expected(self, audit_id: int, count: int) -> None:
        """Record how many hosts the inputs name (known before they are read), for "interrupted after N of M
        hosts". Raises AuditNotFound."""
        with self._lock:
            self._row(audit_id)
            self._write([("UPDATE audits SET hosts_expected = ? WHERE id = ?", (int(count), int(audit_id)))])

    @_sqlite_errors
    def set_benchmarks(self, audit_id: int, benchmarks: Iterable[Any]) -> None:
        """Replace the audit's benchmark results (run after the audit, e.g. from the Benchmark page).

        Raises AuditNotFound, TypeError as :meth:`finish`.
        """
        bench_json = _dumps([benchmark_to_dict(b) for b in benchmarks])
        with self._lock:
            self._row(audit_id)
            self._write([("UPDATE audits SET benchmarks = ? WHERE id = ?", (bench_json, int(audit_id)))])

    @_sqlite_errors
    def save(self, audit: Audit, status: str = "done") -> int:
        """Store a complete audit in one go (begin, problems, hosts, finish); returns its id."""
        audit_id = self.begin(audit.inputs, audit.created_at, target_nsx=getattr(audit, "target_nsx", None))
        if audit.hosts_expected is not None:
            self.set_hosts_expected(audit_id, audit.hosts_expected)
        self.add_problems(audit_id, audit.inputs_not_understood)
        for host in audit.hosts:
            self.add_host(audit_id, host, ())
        self.finish(audit_id, audit.findings, audit.benchmarks or (), status=status, verdict=audit.verdict)
        return audit_id

    @_sqlite_errors
    def delete(self, audit_id: int) -> None:
        """Remove the audit, its hosts and problems (overwritten on disk). Raises AuditNotFound."""
        with self._lock:
            self._row(audit_id)
            self._write([("DELETE FROM audits WHERE id = ?", (int(audit_id),))])

    # ------------------------------------------------------------ reading

    def _status(self, status: str, audit_id: int) -> str:
        if status != RUNNING:
            return status
        owner = self._conn.execute("SELECT owner_pid, owner_start FROM audits WHERE id = ?",
                                   (audit_id,)).fetchone()
        if owner and _owner_gone(owner[0], owner[1]):
            return SAVE_FAILED if self._save_failed_mark(audit_id).exists() else INTERRUPTED
        return status

    @_sqlite_errors
    def list_audits(self) -> list[AuditSummary]:
        """Every stored audit, newest first (highest id first)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT a.id, a.created_at, a.status, a.inputs, a.errors, a.warnings, a.finished_at, "
                "COUNT(h.id), COALESCE(SUM(h.pnics), 0), a.verdict, a.verdict_reason, a.hosts_expected, a.name "
                "FROM audits a LEFT JOIN hosts h ON h.audit_id = a.id GROUP BY a.id ORDER BY a.id DESC").fetchall()
            return [self._with_unread(self._summary(r)) for r in rows]

    def _with_unread(self, summary: AuditSummary) -> AuditSummary:
        """``summary`` with :attr:`AuditSummary.unread` filled (caller holds the lock). Only a finished audit that is
        not READY can have one (READY means every input was read), so the hosts' sources are read for those alone."""
        if summary.status != "done" or summary.verdict == READY or not summary.inputs:
            return summary
        # an input nothing was read from left a problem at it or under it: without one, no host document is parsed
        sources = [src for (src,) in self._conn.execute("SELECT DISTINCT source FROM problems WHERE audit_id = ?",
                                                        (summary.id,))]
        if not any(src == given or src.startswith((given.rstrip("/") + "/", given + ":"))
                   for given in summary.inputs for src in sources):
            return summary
        host_inputs: list[str] = []
        for (text,) in self._conn.execute("SELECT json_extract(doc, '$.inputs') FROM hosts WHERE audit_id = ?",
                                          (summary.id,)):
            try:
                sources = json.loads(text) if text else []
            except ValueError:
                continue
            host_inputs += [str(x) for x in sources] if isinstance(sources, list) else []
        unread = tuple(inputs_not_read(summary.inputs, host_inputs))
        return dataclasses.replace(summary, unread=unread) if unread else summary

    @_sqlite_errors
    def benchmark_runs(self, limit: int = 50) -> list[tuple[int, str, list[dict[str, Any]]]]:
        """The benchmark results stored with the ``limit`` newest audits that have any, newest first:
        ``(audit id, created_at, [result document, …])`` (documents as stored: ``BenchResult.to_dict()`` keys). A row
        whose results cannot be read is left out (its audit still loads and says why)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, created_at, benchmarks FROM audits WHERE benchmarks IS NOT NULL AND benchmarks != '[]' "
                "ORDER BY id DESC LIMIT ?", (int(limit),)).fetchall()
        out: list[tuple[int, str, list[dict[str, Any]]]] = []
        for audit_id, created_at, text in rows:
            try:
                docs = json.loads(text)
            except ValueError:
                continue
            if isinstance(docs, list):
                out.append((int(audit_id), str(created_at), [d for d in docs if isinstance(d, dict)]))
        return out

    def _summary(self, r: tuple[Any, ...]) -> AuditSummary:
        try:
            inputs = json.loads(r[3])
        except ValueError:
            inputs = []
        return AuditSummary(
            id=int(r[0]), created_at=r[1], status=self._status(r[2], int(r[0])), hosts=int(r[7]),
            pnics=int(r[8]), errors=r[4], warnings=r[5],
            inputs=tuple(str(s) for s in inputs) if isinstance(inputs, list) else (), finished_at=r[6],
            verdict=r[9], verdict_reason=r[10], hosts_expected=r[11], name=r[12] or "")

    @_sqlite_errors
    def summary(self, audit_id: int) -> AuditSummary:
        """The history line of one audit. Raises AuditNotFound."""
        with self._lock:
            self._row(audit_id)
            row = self._conn.execute(
                "SELECT a.id, a.created_at, a.status, a.inputs, a.errors, a.warnings, a.finished_at, "
                "COUNT(h.id), COALESCE(SUM(h.pnics), 0), a.verdict, a.verdict_reason, a.hosts_expected, a.name "
                "FROM audits a LEFT JOIN hosts h ON h.audit_id = a.id WHERE a.id = ? GROUP BY a.id",
                (int(audit_id),)).fetchone()
            return self._with_unread(self._summary(row))

    @_sqlite_errors
    def load(self, audit_id: int) -> Audit:
        """Rebuild the stored audit: hosts in the order they were added (with their evidence), input problems,
        findings and benchmarks (``BenchResult`` objects), ``created_at`` as given to ``begin``.

        ``audit.history_id`` is set to ``audit_id``; ``audit.completion`` is ``complete`` for a finished audit,
        else its status (``running``, ``interrupted``, ``cancelled``, ``failed``), ``audit.hosts_expected`` as
        recorded. A running or interrupted audit loads with the hosts it has and no findings (see
        ``nicadvisor.services.audit.reopen_audit``, which evaluates the rules on them). A stored part that cannot be
        read back is left out and named in ``inputs_not_understood`` (source ``history:<id>``). Raises
        AuditNotFound for an unknown id.
        """
        with self._lock:
            row = self._row(audit_id)
            hosts = self._conn.execute("SELECT seq, name, doc FROM hosts WHERE audit_id = ? ORDER BY seq",
                                       (int(audit_id),)).fetchall()
            problems = self._conn.execute(
                "SELECT source, message, command FROM problems WHERE audit_id = ? ORDER BY seq",
                (int(audit_id),)).fetchall()
        source = f"history:{int(audit_id)}"
        audit = Audit(created_at=row[1], hosts_expected=row[9])
        audit.target_nsx = row[10]
        audit.history_id = int(audit_id)
        status = self._status(row[2], int(audit_id))
        audit.completion = COMPLETE if status == "done" else status
        audit.inputs_not_understood = [InputProblem(source=s, message=m, command=c) for s, m, c in problems]
        audit.inputs = [str(s) for s in self._json_list(row[3], "inputs", source, audit)]
        for seq, name, doc in hosts:
            try:
                audit.hosts.append(host_from_dict(json.loads(doc), f"host {name!r}"))
            except ValueError as exc:  # JSON errors and CodecError
                audit.inputs_not_understood.append(
                    InputProblem(source, f"stored host {name!r} (#{seq}) could not be read back: {exc}"))
            except RecursionError:  # the C decoder recurses once per level: a damaged document nested too deep
                audit.inputs_not_understood.append(InputProblem(
                    source, f"stored host {name!r} (#{seq}) could not be read back: nested too deep"))
        for i, f in enumerate(self._json_list(row[4], "findings", source, audit)):
            try:
                audit.findings.append(finding_from_dict(f, f"findings[{i}]"))
            except CodecError as exc:
                audit.inputs_not_understood.append(InputProblem(source, f"stored finding could not be read: {exc}"))
        for i, b in enumerate(self._json_list(row[5], "benchmarks", source, audit)):
            try:
                audit.benchmarks.append(benchmark_from_dict(b, f"benchmarks[{i}]"))
            except CodecError as exc:
                audit.inputs_not_understood.append(InputProblem(source, f"stored benchmark could not be read: {exc}"))
        return audit

    @staticmethod
    def _json_list(text: str | None, what: str, source: str, audit: Audit) -> list[Any]:
        if text is None:
            return []
        try:
            value = json.loads(text)
        except ValueError as exc:
            audit.inputs_not_understood.append(InputProblem(source, f"stored {what} could not be read: {exc}"))
            return []
        except RecursionError:
            audit.inputs_not_understood.append(InputProblem(source, f"stored {what} could not be read: nested too "
                                                                    "deep"))
            return []
        if not isinstance(value, list):
            audit.inputs_not_understood.append(InputProblem(source, f"stored {what} is not a list"))
            return []
        return value
