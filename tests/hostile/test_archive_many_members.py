"""Issue 29 §12: a tarball of 100,000 capture members died with MemoryError under a 2 GB address-space cap:
``read_capture_archive`` asked for a 64 MB read per member. Each member is now read by its own (bounded) size. The
tarball is built at test time from one real shared capture, copied 100,000 times; it is read in a child limited to
2 GiB of address space."""
from __future__ import annotations

import io
import subprocess
import sys
import tarfile

from capturetools import capture_path

MEMBERS = 100_000
LIMIT = 2 << 30
CHILD = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
from pathlib import Path
from nicadvisor.collect.bundle import read_capture_archive
captures, skipped = read_capture_archive(Path(sys.argv[1]))
print(len(captures), len(skipped))
"""


def test_a_tarball_of_100000_members_is_read_under_a_2gb_cap(tmp_path):
    data = capture_path("esxi_g_ethtool_-i_ixgbe_esxi41_elatov.txt").read_bytes()
    archive = tmp_path / "many.tgz"
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        for i in range(MEMBERS):
            info = tarfile.TarInfo(f"nic-advisor-esx01/{i:06d}_ethtool_-i.txt")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    run = subprocess.run([sys.executable, "-c", CHILD, str(archive)], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "MemoryError" not in run.stderr
    assert run.stdout.split() == [str(MEMBERS), "0"]
