"""Schema versioning of the compatibility database: PRAGMA user_version, ordered migrations, backups, refusals."""
from __future__ import annotations

import sqlite3

import pytest

from nicadvisor.vcg import (MIGRATIONS, SCHEMA_VERSION, Migration, VcgSchemaError, build_database,
                            open_database)
from nicadvisor.vcg.db import connect, migrate, user_version


def _version(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def test_a_new_file_gets_the_current_schema_without_backup(tmp_path):
    path = build_database(tmp_path / "vcg.sqlite3")
    assert SCHEMA_VERSION == 1 == MIGRATIONS[-1].version
    assert _version(path) == SCHEMA_VERSION
    assert list(tmp_path.glob("*.bak")) == []


def test_a_newer_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "vcg.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(VcgSchemaError, match=r"schema version 99, but this NIC Advisor knows only up to version 1"):
        open_database(path)
    with pytest.raises(VcgSchemaError):
        build_database(path)
    assert path.read_bytes() == before and _version(path) == 99
    assert list(tmp_path.glob("*.bak")) == []


def test_a_foreign_database_with_a_version_is_refused(tmp_path):
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE device (x)")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with pytest.raises(VcgSchemaError, match="not a NIC Advisor compatibility database"):
        open_database(path)


def test_an_existing_v0_database_is_backed_up_then_migrated(tmp_path):
    path = tmp_path / "vcg.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE legacy_note (text TEXT)")
    conn.execute("INSERT INTO legacy_note VALUES ('written before versioning')")
    conn.commit()
    conn.close()
    assert _version(path) == 0
    build_database(path)
    backup = tmp_path / "vcg.sqlite3.v0.bak"
    assert backup.exists()
    assert _version(backup) == 0
    old = sqlite3.connect(backup)
    try:
        assert old.execute("SELECT text FROM legacy_note").fetchall() == [("written before versioning",)]
        assert old.execute("SELECT count(*) FROM sqlite_master WHERE name = 'listing'").fetchone()[0] == 0
    finally:
        old.close()
    assert _version(path) == SCHEMA_VERSION
    with open_database(path) as db:
        assert db.counts()["listing"] == 41
        assert db.match("8086", "1572")[0].data["model"] == "Ethernet Controller X710 for 10GbE SFP+"
    # a second old file of the same version does not overwrite the first backup
    path2 = tmp_path / "second" / "vcg.sqlite3"
    path2.parent.mkdir()
    sqlite3.connect(path2).execute("CREATE TABLE t (x)").connection.close()
    (tmp_path / "second" / "vcg.sqlite3.v0.bak").write_bytes(b"")
    build_database(path2)
    assert (tmp_path / "second" / "vcg.sqlite3.v0-1.bak").exists()


def test_a_v1_database_migrates_through_a_later_step_in_order_with_a_backup(tmp_path):
    path = build_database(tmp_path / "vcg.sqlite3")
    applied: list[int] = []

    def step3(conn: sqlite3.Connection) -> None:
        applied.append(3)
        conn.execute("INSERT INTO extra (x) VALUES (3)")

    later = (*MIGRATIONS, Migration(2, "test: add a table", "CREATE TABLE extra (x INTEGER);"),
             Migration(3, "test: fill it", step3))
    conn = connect(path)
    try:
        backup = migrate(conn, path, later)
        assert backup == tmp_path / "vcg.sqlite3.v1.bak"
        assert user_version(conn) == 3 and applied == [3]
        assert conn.execute("SELECT x FROM extra").fetchall()[0][0] == 3
        assert migrate(conn, path, later) is None                    # nothing left to do
    finally:
        conn.close()
    assert _version(backup) == 1
    with pytest.raises(VcgSchemaError, match="version 3"):             # this code knows only version 1
        open_database(path)


def test_a_failing_step_is_rolled_back(tmp_path):
    path = build_database(tmp_path / "vcg.sqlite3")
    broken = (*MIGRATIONS, Migration(2, "test: fails half-way",
                                     "CREATE TABLE half (x INTEGER);\nSELECT * FROM no_such_table;"))
    conn = connect(path)
    try:
        with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
            migrate(conn, path, broken)
        assert user_version(conn) == 1
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half'").fetchone()[0] == 0
    finally:
        conn.close()
    with open_database(path) as db:                                     # still usable
        assert db.counts()["listing"] == 41
