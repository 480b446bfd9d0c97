"""Issue 20 §2, ``vcg import``: a CSV field over 128 KiB ended in a ``_csv.Error`` traceback; a 120 MB JSON file of
empty objects (under the 256 MB file limit) took 1.9 GB; a ``vcg import --replace`` killed while writing left its
temporary file (7–59 MB) that later imports never removed. Each in the bounded child of conftest.py."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

FILES = Path(__file__).parents[1] / "vcg" / "guide_files"
EXCHANGE_CSV = FILES / "exchange_sample.csv"
EXCHANGE_JSON = FILES / "exchange_sample.json"


def test_a_csv_field_over_128_kib_is_one_sentence_and_nothing_changes(cli, tmp_path, xdg):
    big = tmp_path / "long.csv"
    lines = EXCHANGE_CSV.read_text().splitlines()
    big.write_text("\n".join(lines) + "\n8086,1572,,,Intel," + "x" * 200_000 + ",6.7,i40en,1.1.3,,,,\n")
    run = cli("vcg", "import", big)
    assert run.code == 2
    line = len(lines) + 1
    assert run.err.strip() == (f"nic-advisor vcg import: {big}: line {line}: not readable as CSV (field larger than "
                               "field limit (131072))")
    assert not (xdg / "xdg_data_home" / "nic-advisor" / "vcg" / "guide.json").exists()


def test_a_120mb_json_of_empty_objects_is_refused_before_it_is_parsed(cli, tmp_path):
    bomb = tmp_path / "empty.json"
    with bomb.open("w") as fh:
        fh.write("[")
        for _ in range(40):
            fh.write("{}," * 1_000_000)
        fh.write("{}]")
    assert bomb.stat().st_size > 120_000_000
    run = cli("vcg", "import", bomb, "--dry-run")  # the child may use 1 GiB; parsing it took 1.9 GB
    assert run.code == 2
    assert f"{bomb}: about 80000002 JSON values, more than the 5000000 a guide file may hold" in run.err


_SLOW_IMPORT = """
import os, sys, time
def hang(fd):
    print("writing", flush=True)
    time.sleep(600)
os.fsync = hang  # apply_import syncs its temporary file before it replaces the guide with it
from nicadvisor.cli import main
main(sys.argv[1:])
"""


def _hanging_import(env: dict, cwd: Path, *args: str) -> subprocess.Popen:
    """``vcg import args`` that hangs once the new guide is in its temporary file."""
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_IMPORT, "vcg", "import", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=cwd)
    for line in proc.stdout:
        if line.startswith("writing"):
            return proc
    raise AssertionError("the import never started writing")


def test_a_killed_import_leaves_no_temporary_file_after_the_next_import(cli, tmp_path, xdg):
    env = {**os.environ, **{v: str(xdg / v.lower()) for v in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
                                                               "XDG_CONFIG_HOME")}}
    store = xdg / "xdg_data_home" / "nic-advisor" / "vcg"
    assert cli("vcg", "import", EXCHANGE_JSON).code == 0
    killed = _hanging_import(env, tmp_path, str(EXCHANGE_CSV), "--replace")
    (temp,) = store.glob(".guide.*")
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    killed.stdout.close()
    assert temp.exists()  # what kill -9 leaves
    running = _hanging_import(env, tmp_path, str(EXCHANGE_CSV), "--replace")
    try:
        (mine,) = set(store.glob(".guide.*")) - {temp}
        run = cli("vcg", "import", EXCHANGE_CSV, "--replace")  # the next import, at once (not after 10 minutes)
        assert run.code == 0, run.err
        assert not temp.exists()  # its writer is gone: removed
        assert mine.exists()  # the file of an import still under way is kept
    finally:
        running.kill()
        running.wait()
        running.stdout.close()
