"""Crash-safe undo journal for the changes a benchmark makes to the host.

Every change (a network namespace about to be created, a server process just started) is written
to a JSON-lines file *before* the run relies on it, and the line is removed once the change has
been undone. A run that crashes or is killed leaves its lines behind;
:func:`restore_from_journal` undoes them (deletes the namespaces, stops the recorded processes).

File: ``<directory>/bench-journal.jsonl`` (default directory
``platformdirs.user_state_dir("nic-advisor")``), guarded by ``fcntl.flock`` on
``bench-journal.lock`` so that concurrent runs do not lose each other's lines. One line is::

    {"id": "9f0c...", "kind": "netns", "run": "3a1b2c...", "owner_pid": 1234,
     "owner_start": 56789, "created": "2026-11-21T10:00:00+00:00", "name": "nicadv-1234-3a1b2ca"}
    {"id": "...", "kind": "process", ..., "pid": 4321, "start_ticks": 99887, "argv": ["netserver", ...]}

A namespace is journaled before ``ip netns add``; a process right after ``Popen`` returns (its pid
is not known before), so a crash in between can only leak a process inside a journaled namespace,
which deleting that namespace stops as well.

Entries belong to a run. :func:`restore_from_journal` only touches entries whose owner process is
gone (pid and start time), or that belong to this process but to no run still active here, so it
never undoes a concurrent run's live namespaces.
"""
from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import re
import threading
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import platformdirs

from nicadvisor.procinfo import process_start_ticks

from .sysutil import IP, run_cmd, same_process_alive, stop_pid

JOURNAL_NAME = "bench-journal.jsonl"
LOCK_NAME = "bench-journal.lock"
NETNS_PREFIX = "nicadv-"
#: ``nicadv-<owner pid>-<run token><side>``, e.g. ``nicadv-1234-3a1b2ca``
NETNS_NAME_RE = re.compile(r"^nicadv-(\d+)-([0-9a-f]{6})([ab])$")

_ACTIVE_RUNS: set[str] = set()
_ACTIVE_LOCK = threading.Lock()
_FILE_LOCK = threading.Lock()


def default_dir() -> Path:
    """``platformdirs.user_state_dir("nic-advisor")`` (created on first write)."""
    return Path(platformdirs.user_state_dir("nic-advisor"))


@dataclass
class RestoreOutcome:
    """What :func:`restore_from_journal` did: ``undone`` and ``failed`` are plain sentences
    (``"deleted network namespace nicadv-1234-3a1b2ca"``)."""

    undone: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


class Journal:
    """The undo journal of one run. Use as a context manager; ``undo_all()`` undoes what the run
    still holds (newest first) and is safe to call more than once.

    ``directory``: where the journal file lives (default :func:`default_dir`).
    """

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_dir()
        self.run_id = uuid.uuid4().hex
        self._owner_pid = os.getpid()
        self._owner_start = process_start_ticks(self._owner_pid)
        with _ACTIVE_LOCK:
            _ACTIVE_RUNS.add(self.run_id)

    # --- context manager -------------------------------------------------------------------
    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.undo_all()
        self.close()

    def close(self) -> None:
        """Mark the run as finished (its leftover entries become restorable by later runs)."""
        with _ACTIVE_LOCK:
            _ACTIVE_RUNS.discard(self.run_id)

    @property
    def token(self) -> str:
        """Six hex digits naming this run's namespaces."""
        return self.run_id[:6]

    # --- entries ---------------------------------------------------------------------------
    def record(self, kind: str, **data: Any) -> str:
        """Append an entry of ``kind`` (``"netns"`` with ``name=``, ``"process"`` with ``pid=``,
        ``start_ticks=``, ``argv=``) and return its id. Raises OSError when the journal cannot be
        written: a change that cannot be journaled must not be made."""
        entry = {
            "id": uuid.uuid4().hex,
            "kind": kind,
            "run": self.run_id,
            "owner_pid": self._owner_pid,
            "owner_start": self._owner_start,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            **data,
        }
        with _locked(self.directory):
            with open(self.directory / JOURNAL_NAME, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry, sort_keys=True) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        return str(entry["id"])

    def done(self, entry_id: str) -> None:
        """Remove entry ``entry_id`` (its change has been undone)."""
        _remove_entries(self.directory, {entry_id})

    def entries(self) -> list[dict[str, Any]]:
        """This run's entries still in the journal, oldest first."""
        return [e for e in read_entries(self.directory) if e.get("run") == self.run_id]

    def undo_all(self) -> RestoreOutcome:
        """Undo every entry of this run, newest first; entries that cannot be undone stay."""
        outcome = RestoreOutcome()
        for entry in reversed(self.entries()):
            _undo_and_forget(self.directory, entry, outcome)
        return outcome


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with _FILE_LOCK:
        with open(directory / LOCK_NAME, "a", encoding="utf-8") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def read_entries(directory: Path | str | None = None) -> list[dict[str, Any]]:
    """All entries in the journal, oldest first. Unreadable lines are skipped (a crash can leave a
    torn last line); a missing file is an empty journal."""
    path = (Path(directory) if directory is not None else default_dir()) / JOURNAL_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    out = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "id" in entry and "kind" in entry:
            out.append(entry)
    return out


def _remove_entries(directory: Path, ids: set[str]) -> None:
    with _locked(directory):
        path = directory / JOURNAL_NAME
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return
        keep = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn line carries nothing that can be undone
            if isinstance(entry, dict) and entry.get("id") in ids:
                continue
            keep.append(line)
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(line + "\n" for line in keep), encoding="utf-8")
        os.replace(tmp, path)


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


def undo_entry(entry: dict[str, Any]) -> tuple[bool, str]:
    """Undo one journal entry. Returns (done, sentence). Unknown kinds are reported, not undone."""
    kind = entry.get("kind")
    if kind == "netns":
        name = str(entry.get("name", ""))
        if not name.startswith(NETNS_PREFIX):
            return False, f"refused to delete namespace {name!r}: not a {NETNS_PREFIX}* namespace"
        ok = delete_netns(name)
        return ok, (f"deleted network namespace {name}" if ok else f"could not delete network namespace {name}")
    if kind == "process":
        pid = entry.get("pid")
        if not isinstance(pid, int) or pid <= 1:
            return True, f"dropped process entry without a valid pid ({pid!r})"
        argv0 = (entry.get("argv") or ["?"])[0]
        if not same_process_alive(pid, entry.get("start_ticks")):
            return True, f"process {pid} ({argv0}) was already gone"
        ok = stop_pid(pid, entry.get("start_ticks"))
        return ok, (f"stopped process {pid} ({argv0})" if ok else f"could not stop process {pid} ({argv0})")
    return False, f"unknown journal entry kind {kind!r} (id {entry.get('id')})"


def _undo_and_forget(directory: Path, entry: dict[str, Any], outcome: RestoreOutcome) -> None:
    ok, sentence = undo_entry(entry)
    if ok:
        _remove_entries(directory, {str(entry["id"])})
        outcome.undone.append(sentence)
    else:
        outcome.failed.append(sentence)


def _owner_gone(entry: dict[str, Any]) -> bool:
    pid = entry.get("owner_pid")
    if pid == os.getpid() and entry.get("owner_start") == process_start_ticks(os.getpid()):
        with _ACTIVE_LOCK:
            return entry.get("run") not in _ACTIVE_RUNS
    if not isinstance(pid, int):
        return True
    return not same_process_alive(pid, entry.get("owner_start"))


def restore_from_journal(directory: Path | str | None = None, *, sweep_orphans: bool = True) -> RestoreOutcome:
    """Undo whatever a crashed, killed or cancelled run left behind.

    Undoes (newest first) every journal entry whose owner process is gone, or which belongs to this
    process but to a run that is no longer active. With ``sweep_orphans`` it also deletes
    ``nicadv-<pid>-<token>{a,b}`` namespaces that no journal entry mentions and whose owner pid is
    gone (e.g. after the journal file itself was lost). Never raises; what could not be undone is
    listed in ``failed`` and stays in the journal.
    """
    directory = Path(directory) if directory is not None else default_dir()
    outcome = RestoreOutcome()
    entries = read_entries(directory)
    for entry in reversed(entries):
        if _owner_gone(entry):
            _undo_and_forget(directory, entry, outcome)
    if sweep_orphans:
        journaled = {str(e.get("name")) for e in read_entries(directory) if e.get("kind") == "netns"}
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
