"""Issue 20 §2: a damaged audit history (truncated, a bad header, garbage, random bytes inside) and a full disk under
it crashed ``audit`` and ``history``. Now the CLI says the history could not be used and why, audits and writes its
reports anyway, leaves a damaged file exactly as it was and never writes a new audit into it (bounded child of
conftest.py)."""
from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from capturetools import ready_host
from childtools import FULLY_READ, child_runner


def _history(xdg: Path) -> Path:
    return xdg / "xdg_data_home" / "nic-advisor" / "history.sqlite3"


@pytest.fixture(scope="module")
def _three_audits_history(tmp_path_factory) -> bytes:
    """The bytes of a history holding three audits of a READY host (its candidates read in full: :data:`FULLY_READ`),
    checkpointed into one file: made once for the module's tests, which each write these bytes (or a damaged copy)
    into their own folders (three child audits per test before)."""
    folder = tmp_path_factory.mktemp("good-history")
    run = child_runner(folder)
    host = ready_host(folder)
    for _ in range(3):
        assert run("audit", "--quiet", "--capture", host, setup=FULLY_READ).code == 0
    path = _history(folder / "xdg")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    return path.read_bytes()


@pytest.fixture
def good_history(_three_audits_history, xdg) -> bytes:
    """:func:`_three_audits_history`, with this test's history folder made (where those audits would have left it)."""
    _history(xdg).parent.mkdir(parents=True, exist_ok=True)
    return _three_audits_history


def _damaged(good: bytes, how: str) -> bytes:
    if how == "truncated":
        return good[: len(good) // 2]
    if how == "bad header":
        return b"X" * 100 + good[100:]
    if how == "garbage":
        return random.Random(7).randbytes(len(good))
    # random bytes over the schema page and the first table pages: SQLite finds it damaged
    data = bytearray(good)
    rnd = random.Random(11)
    for _ in range(1000):
        data[rnd.randrange(100, min(len(data), 16_384))] = rnd.randrange(256)
    return bytes(data)


@pytest.mark.parametrize("how", ["truncated", "bad header", "garbage", "random bytes inside"])
def test_a_damaged_history_is_named_left_untouched_and_the_audit_goes_on(cli, ready_cli, tmp_path, xdg, good_history,
                                                                         how):
    path = _history(xdg)
    damaged = _damaged(good_history, how)
    path.write_bytes(damaged)
    run = ready_cli("audit", "--quiet", "--capture", ready_host(tmp_path), "--json", tmp_path / "a.json")
    assert run.code == 0  # the verdict, as without a history
    assert (f"audit history not available, continuing without it: the audit history {path} is damaged ("
            in run.err), run.err
    assert "it was left as it is" in run.err and "saved as audit" not in run.err
    assert json.loads((tmp_path / "a.json").read_text())["verdict"]["status"] == "ready"
    assert path.read_bytes() == damaged  # untouched: no new audit written into it
    listing = cli("history")
    assert listing.code == 2 and f"the audit history {path} is damaged" in listing.err
    assert cli("history", "1", "--json", tmp_path / "h.json").code == 2
    assert path.read_bytes() == damaged


def test_text_that_is_not_utf8_inside_a_sound_file_reads_back_without_a_traceback(cli, xdg, good_history):
    """Bytes changed inside a stored document (SQLite's own check finds nothing): the history still lists and
    reopens it; what cannot be read back is named."""
    path = _history(xdg)
    assert good_history.count(b'{"name":"esx-nested"') == 3
    path.write_bytes(good_history.replace(b'{"name":"esx-nested"', b'{"\xff\xfe\xfd\xfc":"esx-nested"'))
    assert cli("history").code == 0
    run = cli("history", "1")
    assert run.code == 2 and "could not be read back" in run.err


def test_a_full_disk_under_the_history_keeps_the_verdict_and_the_reports(ready_cli, tmp_path, xdg, good_history,
                                                                          mount_ns):
    data = xdg / "xdg_data_home"
    # a 1 MB tmpfs holding the good history, then filled to the last byte
    fill = ('mount -t tmpfs -o size=1m tmpfs "$1" && mkdir -p "$1/nic-advisor" && cp "$2" "$1/nic-advisor/" && '
            '(dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null; true)')
    saved = tmp_path / "history.copy"
    saved.write_bytes(good_history)
    run = ready_cli("audit", "--quiet", "--capture", ready_host(tmp_path), "--json", tmp_path / "a.json",
              wrap=mount_ns(fill, data, saved))
    assert run.code == 0
    assert "cannot be used (database or disk is full)" in run.err or "cannot be used (disk I/O error)" in run.err
    assert "saved as audit" not in run.err
    assert json.loads((tmp_path / "a.json").read_text())["verdict"]["status"] == "ready"


def test_a_full_disk_before_the_history_exists(ready_cli, tmp_path, xdg, mount_ns):
    data = xdg / "xdg_data_home"
    data.mkdir(parents=True, exist_ok=True)
    fill = 'mount -t tmpfs -o size=64k tmpfs "$1" && (dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null; true)'
    run = ready_cli("audit", "--quiet", "--capture", ready_host(tmp_path), "--json", tmp_path / "a.json",
              wrap=mount_ns(fill, data))
    assert run.code == 0 and "audit history" in run.err and "saved as audit" not in run.err
    assert (tmp_path / "a.json").exists()


def test_an_audit_whose_save_failed_is_listed_so_not_as_interrupted(cli, good_host):
    """Issue 29 §15: the disk filled while the audit was written into the history (the store's writes fail with
    ENOSPC from the first host on, induced in the child); once its process is gone the history lists it as
    ``save failed``, not as ``interrupted``."""
    full = ("import errno\nimport nicadvisor.store.history as _h\n"
            "def _full(*a, **k):\n    raise OSError(errno.ENOSPC, 'database or disk is full')\n"
            "_h.AuditStore.add_host = _full\n")
    run = cli("audit", "--quiet", "--capture", good_host, setup=full)
    assert "audit history not used: [Errno 28] database or disk is full" in run.err, run.err
    listed = cli("history")
    assert listed.code == 0
    (line,) = [ln for ln in listed.out.splitlines() if ln.startswith("#1 ")]
    assert "save failed" in line and "interrupted" not in line


def _damage_entry(xdg: Path, sql: str, *args) -> None:
    conn = sqlite3.connect(_history(xdg))
    conn.execute(sql, args)
    conn.commit()
    conn.close()


DEEP = "[" * 100_000 + "]" * 100_000  # far past Python's recursion limit


@pytest.mark.parametrize("damage", [
    ("UPDATE audits SET findings = ? WHERE id = 1", "{not json"),
    ("UPDATE audits SET findings = ? WHERE id = 1", DEEP),
    ("UPDATE hosts SET doc = ? WHERE audit_id = 1", DEEP),
], ids=["findings not JSON", "findings nested too deep", "host nested too deep"])
def test_verify_against_a_damaged_entry_says_so_and_claims_nothing(cli, xdg, good_host, damage):
    """A history entry damaged in place (SQLite's own check finds nothing): ``verify --against`` said "the approved
    audit has no plan item (nothing to verify)" and exited 0 — all done — when its findings could not be read back,
    and crashed (exit 3, RecursionError) on a stored document nested too deep. Now it names what could not be read
    back and exits 2 (not everything checked); ``history ID`` reopens the entry with the same note."""
    assert cli("audit", "--quiet", "--capture", good_host).code in (0, 1)
    _damage_entry(xdg, *damage)
    run = cli("verify", "--against", "1", "--capture", good_host, "--quiet")
    assert run.code in (1, 2), (run.code, run.err[-2000:])
    assert "could not be read back in full" in run.err, run.err
    assert "nothing to verify" not in run.out
    reopened = cli("history", "1")
    assert reopened.code != 3 and "could not be read" in reopened.err + reopened.out, reopened.err[-2000:]
