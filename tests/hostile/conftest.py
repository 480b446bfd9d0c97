"""The hostile-input suite: inputs built at test time (sparse files, tiny compressed bombs, FIFOs, link loops) fed
to the real CLI in a child process limited to 1 GiB of address space and 60 s, so a regression fails instead of
hanging or exhausting CI."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

LIMIT_BYTES = 1 << 30
LIMIT_SECONDS = 60
_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from nicadvisor.cli import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(tmp_path):
    """``cli(*args)`` runs ``nic-advisor args`` in a child limited to 1 GiB and 60 s (its own XDG folders)."""
    env = dict(os.environ)
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        env[var] = str(tmp_path / "xdg" / var.lower())

    def run(*args: str, stdout=subprocess.PIPE) -> Run:
        proc = subprocess.run([sys.executable, "-c", _CHILD.format(limit=LIMIT_BYTES), *map(str, args)],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=LIMIT_SECONDS, env=env,
                              cwd=tmp_path)
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert "MemoryError" not in proc.stderr
        return Run(proc.returncode, proc.stdout or "", proc.stderr)

    return run


@pytest.fixture
def good_host() -> Path:
    from nicadvisor.paths import demo_lab_dir

    return demo_lab_dir() / "esxi-hpe-connectx5"
