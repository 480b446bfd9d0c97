"""Exports never write through a symbolic link into the file it names: the report replaces the link itself (issue 29
§1: rename onto the path given, not the link's target), a stream (FIFO, /dev/full, /dev/null) is written into, a folder is refused; a regular file is
still replaced atomically."""
from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from nicadvisor.report.json_export import atomic_write


def _writer(text: str):
    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")
    return write


def test_a_symlink_is_replaced_by_the_report_and_its_file_left_alone(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    atomic_write(link, _writer("new"))
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == "new"
    assert target.read_text(encoding="utf-8") == "old"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("made-by-export.json")
    atomic_write(dangling, _writer("x"))
    assert not dangling.is_symlink() and not (tmp_path / "made-by-export.json").exists()


def test_a_fifo_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    atomic_write(fifo, _writer("report"))
    reader.join(120)  # a deadline, not a duration
    assert got == ["report"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_character_device_is_never_replaced():
    before = os.stat("/dev/full")
    with pytest.raises(OSError):
        atomic_write("/dev/full", _writer("report"))  # ENOSPC: the error is reported, the device stays
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    atomic_write("/dev/null", _writer("report"))
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_folder_is_refused_and_a_regular_file_replaced(tmp_path):
    with pytest.raises(OSError, match="not a regular file"):
        atomic_write(tmp_path, _writer("x"))
    f = tmp_path / "r.json"
    f.write_text("old", encoding="utf-8")
    atomic_write(f, _writer("new"))
    assert f.read_text(encoding="utf-8") == "new" and [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_csv_to_a_stream_writes_no_companion_files_beside_it(tmp_path):
    """Review: --csv /dev/null used to create /dev/null-inventory.csv and /dev/null-benchmarks.csv."""
    from nicadvisor.services.audit import AuditRequest, run_audit
    from nicadvisor.services.export import export_audit

    audit = run_audit(AuditRequest(demo=True))
    assert export_audit(audit, csv=Path("/dev/null")) == [Path("/dev/null")]
    assert not Path("/dev/null-inventory.csv").exists()
    written = export_audit(audit, csv=tmp_path / "a.csv")
    assert [p.name for p in written] == ["a.csv", "a-verdict.csv", "a-inventory.csv"]


def test_a_missing_folder_is_named_not_a_temporary_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"the folder .*nowhere does not exist"):
        atomic_write(tmp_path / "nowhere" / "x.json", _writer("x"))
