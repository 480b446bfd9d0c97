"""The audit history store: round trip, incremental commits, crash survival, listing, deletion, secrets."""
from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

import pytest

from nicadvisor.bench.results import BenchResult
from nicadvisor.model import Host, InputProblem, PhysicalNic
from nicadvisor.report.json_export import summarize
from nicadvisor.store import (
    INTERRUPTED,
    RUNNING,
    SCHEMA_VERSION,
    AuditNotFound,
    AuditStore,
    AuditSummary,
    default_history_path,
)

HERE = Path(__file__).resolve().parent


@pytest.fixture
def store(tmp_path):
    with AuditStore(tmp_path / "history.sqlite3") as s:
        yield s


def test_save_and_load_round_trip(store, audit, bench_result):
    audit.benchmarks = [bench_result]
    audit_id = store.save(audit)
    back = store.load(audit_id)
    assert back == audit
    assert isinstance(back.benchmarks[0], BenchResult)
    assert [h.name for h in back.hosts] == [h.name for h in audit.hosts]
    assert back.hosts[0].pnic("vmnic0").evidence["driver"].line.strip() == "Driver: ne1000"
    expected = summarize(audit)
    summary = store.summary(audit_id)
    assert (summary.hosts, summary.pnics, summary.errors, summary.warnings) == (10, 24, 5, 18)  # MTU errors on pNICs not yet carrying overlay are conditional warnings, plus one
    # overlay-no-fit-pnic error on each of the 4 hosts whose every candidate would fail them
    assert (summary.hosts, summary.pnics, summary.errors, summary.warnings) == (
        expected["hosts"], expected["pnics"], expected["errors"], expected["warnings"])
    assert summary.status == "done" and summary.created_at == audit.created_at and summary.finished_at
    assert summary.inputs == tuple(audit.inputs)


def test_file_and_folder_are_owner_only_and_wal(tmp_path):
    path = tmp_path / "new" / "history.sqlite3"
    AuditStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_default_path_is_under_user_data_dir(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_data_dir", lambda app: str(tmp_path / app))
    assert default_history_path() == tmp_path / "nic-advisor" / "history.sqlite3"


def test_each_call_is_visible_to_another_connection_before_finish(store, audit):
    audit_id = store.begin(audit.inputs, audit.created_at)
    with AuditStore(store.path) as other:
        assert other.summary(audit_id).status == RUNNING
        assert other.load(audit_id).hosts == []
        store.add_problems(audit_id, audit.inputs_not_understood[:1])
        store.add_host(audit_id, audit.hosts[0], [])
        store.add_host(audit_id, audit.hosts[5], audit.inputs_not_understood[1:])
        partial = other.load(audit_id)
        assert [h.name for h in partial.hosts] == ["esxi-elatov-z2mini", "esxi-pasek-bnx2x"]
        assert partial.hosts[1] == audit.hosts[5]
        assert partial.inputs_not_understood == audit.inputs_not_understood  # kept in call order
        assert partial.findings == []
        line = other.summary(audit_id)
        assert (line.status, line.hosts, line.pnics, line.errors, line.warnings) == (RUNNING, 2, 2, None, None)
        store.finish(audit_id, audit.findings, status="cancelled")
        assert other.summary(audit_id).status == "cancelled"
        assert other.load(audit_id).findings == audit.findings
    # a raw reader sees committed rows too (nothing buffered in the writer)
    with closing(sqlite3.connect(store.path, isolation_level=None)) as raw:
        assert raw.execute("SELECT COUNT(*) FROM hosts WHERE audit_id = ?", (audit_id,)).fetchone()[0] == 2


def test_crash_after_two_hosts_keeps_them(tmp_path, audit):
    path = tmp_path / "history.sqlite3"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    child = subprocess.run([sys.executable, str(HERE / "history_crash_child.py"), str(path)],
                           capture_output=True, text=True, timeout=60, env=env, check=False)
    assert child.returncode == 9, child.stderr
    audit_id = int(child.stdout.split()[0])
    assert (tmp_path / "history.sqlite3-wal").exists()  # the child never checkpointed nor closed
    with AuditStore(path) as store:
        line = store.summary(audit_id)
        assert line.status in (RUNNING, INTERRUPTED)
        assert line.status == INTERRUPTED  # the writer (pid + start time) is gone, on Linux
        assert (line.hosts, line.pnics, line.errors) == (2, 5, None)
        back = store.load(audit_id)
        assert back.hosts == audit.hosts[:2]
        assert [p.name for p in back.hosts[1].pnics] == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
        assert back.inputs_not_understood == audit.inputs_not_understood[:1]
        assert back.findings == []
        # the interrupted audit can still be finished by the user (e.g. "evaluate what was collected")
        store.finish(audit_id, [], status="failed")
        assert store.summary(audit_id).status == "failed"


def test_running_audit_of_a_live_process_stays_running(store, audit):
    audit_id = store.begin(audit.inputs, audit.created_at)
    with AuditStore(store.path) as reopened:  # same process: the writer is alive
        assert reopened.summary(audit_id).status == RUNNING


def test_list_newest_first_and_delete(store, audit):
    first = store.save(audit)
    second = store.begin(["local"], "2026-11-21T10:00:00+00:00")
    lines = store.list_audits()
    assert [a.id for a in lines] == [second, first]
    assert all(isinstance(a, AuditSummary) for a in lines)
    assert lines[0] == AuditSummary(id=second, created_at="2026-11-21T10:00:00+00:00", status=RUNNING, hosts=0,
                                    pnics=0, errors=None, warnings=None, inputs=("local",), finished_at=None)
    store.delete(first)
    assert [a.id for a in store.list_audits()] == [second]
    with closing(sqlite3.connect(store.path, isolation_level=None)) as raw:
        assert raw.execute("SELECT COUNT(*) FROM hosts").fetchone()[0] == 0  # cascaded
        assert raw.execute("SELECT COUNT(*) FROM problems").fetchone()[0] == 0
    with pytest.raises(AuditNotFound, match=f"audit {first} is not in the history"):
        store.load(first)
    with pytest.raises(KeyError):
        store.delete(first)
    with pytest.raises(AuditNotFound):
        store.add_host(first, Host(name="x"), [])


def test_finish_rejects_unknown_status(store):
    audit_id = store.begin([], "2026-11-21T10:00:00+00:00")
    with pytest.raises(ValueError, match="done, cancelled, failed"):
        store.finish(audit_id, [], status="interrupted")


def test_set_benchmarks_after_finish(store, audit, bench_result):
    audit_id = store.save(audit)
    store.set_benchmarks(audit_id, [bench_result])
    assert store.load(audit_id).benchmarks == [bench_result]


def test_unreadable_stored_host_is_reported_not_raised(store, audit):
    audit_id = store.begin(audit.inputs, audit.created_at)
    store.add_host(audit_id, audit.hosts[0], [])
    store.add_host(audit_id, audit.hosts[1], [])
    with closing(sqlite3.connect(store.path, isolation_level=None)) as raw:
        raw.execute("UPDATE hosts SET doc = '{\"pnics\": []' WHERE audit_id = ? AND seq = 0", (audit_id,))
    back = store.load(audit_id)
    assert [h.name for h in back.hosts] == ["esxi-h0062-x722-cx4lx"]
    assert back.inputs_not_understood[-1].source == f"history:{audit_id}"
    assert "esxi-elatov-z2mini" in back.inputs_not_understood[-1].message


def test_concurrent_writers_keep_every_host(store):
    audit_id = store.begin(["threads"], "2026-11-21T10:00:00+00:00")
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(10):
                store.add_host(audit_id, Host(name=f"t{n}-h{i}", pnics=[PhysicalNic(name="vmnic0")]),
                               [InputProblem(f"t{n}", f"problem {i}")])
                store.list_audits()
        except BaseException as exc:  # collected and re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    back = store.load(audit_id)
    assert len(back.hosts) == 40 and len({h.name for h in back.hosts}) == 40
    assert len(back.inputs_not_understood) == 40
    assert store.summary(audit_id).pnics == 40


def test_no_password_reaches_the_file(tmp_path, audit, monkeypatch):
    password = "Zq7!pw-N0t-In-The-DB"
    path = tmp_path / "history.sqlite3"
    # the password lives in the process (a credential prompt, the environment) but is given to no store call ...
    monkeypatch.setenv("NICADVISOR_TEST_PASSWORD", password)
    # ... except inside URL-style inputs and an error message, where the store must strip it
    audit.inputs.append(f"vcenter://administrator@vsphere.local:{password}@vc.lab")
    audit.inputs_not_understood.append(InputProblem(
        f"ssh://root:{password}@esxi-a.lab:22", f"https://root:{password}@esxi-a.lab/sdk: connection refused"))
    def scan() -> None:
        files = [p for p in tmp_path.iterdir() if p.name.startswith("history.sqlite3")]
        assert path in files
        for f in files:
            data = f.read_bytes()
            for encoding in ("utf-8", "utf-16-le", "utf-16-be"):
                assert password.encode(encoding) not in data, f"{f.name} holds the password ({encoding})"

    with AuditStore(path) as store:
        audit_id = store.save(audit)
        store.delete(store.save(audit))  # deleted rows are overwritten too (secure_delete)
        back = store.load(audit_id)
        assert (tmp_path / "history.sqlite3-wal").exists()
        scan()  # main file and write-ahead log while the store is open
    scan()  # after the close checkpointed the log into the main file
    assert back.inputs[-1] == "vcenter://administrator@vsphere.local:***@vc.lab"
    assert back.inputs_not_understood[-1].source == "ssh://root:***@esxi-a.lab:22"
    assert back.inputs_not_understood[-1].message == "https://root:***@esxi-a.lab/sdk: connection refused"
