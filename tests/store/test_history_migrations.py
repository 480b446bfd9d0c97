"""Versioned schema of the history file: forward migration with a backup, refusal of newer/foreign files."""
from __future__ import annotations

import dataclasses

import json
import sqlite3
from contextlib import closing
import stat

import pytest

from nicadvisor.store import SCHEMA_VERSION, AuditStore, HistorySchemaError
from nicadvisor.document import host_to_doc
from nicadvisor.store.migrations import MIGRATIONS, Migration, migrate, user_version


def _version(path) -> int:
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        return user_version(conn)


def _write_v1_file(path, audit) -> int:
    """A history file as version 1 of the schema wrote it (no summary columns), holding the demo audit."""
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, None, MIGRATIONS[:1])
    cur = conn.execute(
        "INSERT INTO audits (created_at, status, inputs, findings, benchmarks, tool_version, finished_at) "
        "VALUES (?, 'done', ?, ?, '[]', '0.1.0', '2026-11-21T10:01:00+00:00')",
        (audit.created_at, json.dumps(audit.inputs), json.dumps([f.to_dict() for f in audit.findings])))
    audit_id = cur.lastrowid
    for seq, host in enumerate(audit.hosts):
        conn.execute("INSERT INTO hosts (audit_id, seq, name, doc) VALUES (?, ?, ?, ?)",
                     (audit_id, seq, host.name, json.dumps(host_to_doc(host))))
    for seq, p in enumerate(audit.inputs_not_understood):
        conn.execute("INSERT INTO problems (audit_id, seq, source, message, command) VALUES (?, ?, ?, ?, ?)",
                     (audit_id, seq, p.source, p.message, p.command))
    conn.close()
    return audit_id


def test_schema_is_at_the_last_migration():
    assert SCHEMA_VERSION == MIGRATIONS[-1].version == 4
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def test_older_file_is_backed_up_then_migrated(tmp_path, audit):
    path = tmp_path / "history.sqlite3"
    audit_id = _write_v1_file(path, audit)
    assert _version(path) == 1
    with AuditStore(path) as store:
        assert store.backup_path == tmp_path / "history.sqlite3.v1.bak"
        line = store.summary(audit_id)
        assert (line.hosts, line.pnics, line.errors, line.warnings) == (10, 24, 5, 18)  # backfilled by step 2
        # a v1 audit has no stored verdict: the list says NOT READY from its backfilled errors, never READY
        assert line.verdict is None and line.verdict_of().label == "NOT READY"
        assert store.load(audit_id) == dataclasses.replace(audit, hosts_expected=None)  # not recorded in v1
        assert store.load(audit_id).verdict == audit.verdict
    assert _version(path) == SCHEMA_VERSION
    backup = tmp_path / "history.sqlite3.v1.bak"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert _version(backup) == 1
    with closing(sqlite3.connect(backup, isolation_level=None)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM hosts").fetchone()[0] == 10
        assert "pnics" not in [r[1] for r in conn.execute("PRAGMA table_info(hosts)")]
    # reopening an up-to-date file makes no further backup
    with AuditStore(path) as store:
        assert store.backup_path is None
    assert sorted(p.name for p in tmp_path.glob("*.bak")) == ["history.sqlite3.v1.bak"]


def test_second_backup_of_the_same_version_gets_a_new_name(tmp_path, audit):
    path = tmp_path / "history.sqlite3"
    _write_v1_file(path, audit)
    (tmp_path / "history.sqlite3.v1.bak").write_bytes(b"an earlier backup")
    with AuditStore(path) as store:
        assert store.backup_path == tmp_path / "history.sqlite3.v1-1.bak"
    assert (tmp_path / "history.sqlite3.v1.bak").read_bytes() == b"an earlier backup"


@pytest.mark.parametrize("existing", [None, b""])
def test_new_or_empty_v0_file_is_created_without_backup(tmp_path, existing):
    path = tmp_path / "history.sqlite3"
    if existing is not None:
        path.write_bytes(existing)
    with AuditStore(path) as store:
        assert store.backup_path is None
        assert store.list_audits() == []
    assert _version(path) == SCHEMA_VERSION
    assert list(tmp_path.glob("*.bak")) == []


def test_newer_file_is_refused_and_left_unchanged(tmp_path):
    path = tmp_path / "history.sqlite3"
    AuditStore(path).close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA user_version = 99")
    before = path.read_bytes()
    with pytest.raises(HistorySchemaError, match=r"schema version 99, but this NIC Advisor knows only up to "
                                                 rf"version {SCHEMA_VERSION}: it was written by a newer NIC Advisor"):
        AuditStore(path)
    assert path.read_bytes() == before
    assert list(tmp_path.glob("*.bak")) == []


@pytest.mark.parametrize("version", [0, 3])
def test_foreign_sqlite_file_is_refused(tmp_path, version):
    path = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("CREATE TABLE bookmarks (url TEXT)")
        conn.execute(f"PRAGMA user_version = {version}")
    before = path.read_bytes()
    with pytest.raises(HistorySchemaError, match="another program|not a NIC Advisor audit history"):
        AuditStore(path)
    assert path.read_bytes() == before


def test_not_a_database_is_refused_as_damaged_and_left_as_it_is(tmp_path):
    from nicadvisor.store import HistoryDamaged

    path = tmp_path / "history.sqlite3"
    text = b"this is not an SQLite file, just text that is long enough to have a header" * 4
    path.write_bytes(text)
    with pytest.raises(HistoryDamaged, match=rf"{path} is damaged \(file is not a database\)"):
        AuditStore(path)
    assert path.read_bytes() == text


def test_failing_step_is_rolled_back_and_backup_kept(tmp_path, audit):
    path = tmp_path / "history.sqlite3"
    _write_v1_file(path, audit)

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE audits ADD COLUMN half_done INTEGER")
        raise RuntimeError("step 2 failed")

    conn = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(RuntimeError, match="step 2 failed"):
        migrate(conn, path, (MIGRATIONS[0], Migration(2, "broken", broken)))
    assert user_version(conn) == 1
    assert "half_done" not in [r[1] for r in conn.execute("PRAGMA table_info(audits)")]
    conn.close()
    assert (tmp_path / "history.sqlite3.v1.bak").exists()
    with AuditStore(path) as store:  # the real step 2 still applies afterwards
        assert store.list_audits()[0].hosts == 10


def test_migrate_skips_steps_another_process_applied(tmp_path, monkeypatch):
    from nicadvisor.store import migrations

    path = tmp_path / "history.sqlite3"
    a = sqlite3.connect(path, isolation_level=None)
    b = sqlite3.connect(path, isolation_level=None)
    migrate(a, path)
    # b read version 0 just before a migrated (the race between the check and BEGIN IMMEDIATE)
    monkeypatch.setattr(migrations, "check_version", lambda conn, where, steps: 0)
    assert migrate(b, None) is None  # every step re-checks the version under the write lock: no error
    assert user_version(b) == SCHEMA_VERSION
    assert b.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 1
    a.close()
    b.close()
