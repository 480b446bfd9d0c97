"""Issue 29 §2 and §8: the ESXi collector script, run by root under busybox sh and dash, in a shared ``-o`` folder
(sticky and world-writable, as ``/tmp``) where a second, unprivileged user (``nobody``, through ``setpriv``) has made
the folders of the coming minutes first, with links to a file of root's, a pid file naming one of root's processes
and a forged capture. The script makes a new folder of its own (0700, files 0600) and root's file and process are
untouched. Names with ESC/OSC bytes and backslash sequences reach stderr escaped, under dash's ``echo`` too."""
from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from capturetools import CAPTURES
from esxi_personality import TABLE
from fake_esxi import esxi_path
from nicadvisor.collect.sources import gather
from test_collect_script_esxi import SHELLS, run_script

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="needs root and setpriv to act as a second user")
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
VICTIM_TEXT = "ssh-ed25519 AAAAC3root-own-key root@admin\n"


@pytest.fixture
def shared(sticky_folder):
    return sticky_folder


@pytest.fixture
def root_process():
    """One of root's processes, whose pid the second user writes in its pid files."""
    proc = subprocess.Popen(["sleep", "600"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_a_prepared_shared_folder_changes_nothing_of_roots(shell, tmp_path, shared, root_process):
    victim = tmp_path / "root-home" / "authorized_keys"
    victim.parent.mkdir(mode=0o700)
    victim.write_text(VICTIM_TEXT, encoding="utf-8")
    now = dt.datetime.now(dt.timezone.utc)
    stamps = [(now + dt.timedelta(seconds=s)).strftime("%Y%m%d-%H%M%S") for s in range(-2, 120)]
    plant = "\n".join(
        f'd={shared}/nic-advisor-esxi-lab-{s}; mkdir -m 777 "$d" && ln -s {victim} "$d/.out" && '
        f'ln -s {victim} "$d/.err" && ln -s {victim} "$d/.err.capture" && ln -s {victim} "$d/.timeout" && '
        f'echo {root_process.pid} > "$d/.timeout.pid" && chmod 666 "$d/.timeout.pid" && '
        f'printf "# command: esxcli network nic list\\n# host: esxi-lab\\nforged\\n" > "$d/000_forged.txt"'
        for s in stamps)
    subprocess.run([*AS_NOBODY, "sh", "-c", plant], check=True, timeout=60)

    res = run_script(tmp_path, "-o", str(shared), "-n", "esxi-lab", shell=shell)
    assert res.returncode == 0, res.stderr
    assert victim.read_text(encoding="utf-8") == VICTIM_TEXT
    assert root_process.poll() is None  # not killed through a planted pid file
    (folder,) = re.findall(r"outputs written to (\S+);", res.stderr)
    folder = Path(folder)
    st = folder.lstat()
    assert stat.S_ISDIR(st.st_mode) and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o700
    assert folder.name.startswith("nic-advisor-esxi-lab-") and not (folder / "000_forged.txt").exists()
    files = list(folder.iterdir())
    assert files and all(f.lstat().st_uid == 0 and stat.S_IMODE(f.lstat().st_mode) == 0o600 for f in files)
    hosts, problems = gather([folder])
    assert problems == [] and [h.name for h in hosts] == ["esxi-lab"]
    assert not any(c.text == "forged\n" for c in hosts[0].captures)


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_names_reach_the_terminal_escaped(shell, tmp_path):
    listing = CAPTURES / TABLE["esxcli network nic list"]
    hostile = "vmnic1\x1b]0;owned\x07\\c\\n\\033[2J"
    (tmp_path / "caps").mkdir()
    (tmp_path / "caps" / listing.name).write_text(listing.read_text().replace("vmnic1  ", hostile + "  ", 1))
    for name in TABLE.values():
        if name != listing.name:
            (tmp_path / "caps" / name).write_bytes((CAPTURES / name).read_bytes())
    path = esxi_path(tmp_path / "env", tmp_path / "caps", table=dict(TABLE))
    res = run_script(tmp_path, "-o", str(tmp_path / "out"), "-n", "esxi-lab", path=path, shell=shell)
    assert res.returncode == 0, res.stderr
    assert "\x1b" not in res.stderr and "\x07" not in res.stderr
    assert ("skipped a pNIC name that is not safe to pass on: vmnic1\\x1b]0;owned\\x07\\x5cc\\x5cn\\x5c033[2J\n"
            in res.stderr)
