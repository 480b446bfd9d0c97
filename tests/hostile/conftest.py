"""The hostile-input suite: inputs built at test time (sparse files, tiny compressed bombs, FIFOs, link loops) fed
to the real CLI in a child process limited to 1 GiB of address space and 60 s of CPU time, so a regression fails
instead of hanging or exhausting CI. The child's wall-clock time is only guarded against a hang (generously: a loaded
machine stretches wall time, never the CPU time a child spends)."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

LIMIT_BYTES = 1 << 30
LIMIT_SECONDS = 60  # CPU seconds (RLIMIT_CPU)
#: Wall-clock seconds after which a child counts as hung (it waits on something, spending no CPU time).
HANG_SECONDS = 240
_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu}))
{setup}
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
    """``cli(*args)`` runs ``nic-advisor args`` in a child limited to 1 GiB and 60 s of CPU time, ended as hung after
    :data:`HANG_SECONDS` (its own XDG folders).
    ``env``: variables to add (``None`` removes one); ``setup``: Python run in the child before the CLI (a fault to
    induce); ``wrap``: a command line the child runs under (``unshare``, a shell closing stdout)."""
    base = dict(os.environ)
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        base[var] = str(tmp_path / "xdg" / var.lower())

    def run(*args: str, stdout=subprocess.PIPE, env: dict | None = None, setup: str = "",
            wrap: list[str] | tuple = ()) -> Run:
        child_env = {**base, **(env or {})}
        child_env = {k: v for k, v in child_env.items() if v is not None}
        code = _CHILD.format(limit=LIMIT_BYTES, cpu=LIMIT_SECONDS, setup=setup)
        proc = subprocess.run([*wrap, sys.executable, "-c", code, *map(str, args)],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=HANG_SECONDS, env=child_env,
                              cwd=tmp_path, errors="backslashreplace")
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert "MemoryError" not in proc.stderr
        return Run(proc.returncode, proc.stdout or "", proc.stderr)

    return run


@pytest.fixture
def xdg(tmp_path) -> Path:
    """The XDG folders of the ``cli`` children: ``xdg / "xdg_data_home"`` and so on."""
    return tmp_path / "xdg"


@pytest.fixture
def mount_ns():
    """``mount_ns(script, *args)``: a ``wrap`` for ``cli`` that runs the child in a mount namespace of its own
    (nothing it mounts is seen outside, nothing to unmount) after ``sh -c script`` with ``$1``… = ``args`` (e.g. a
    small tmpfs mounted read-only, or filled up); as root, else in a user namespace."""
    def wrap(script: str, *args: str) -> list[str]:
        unshare = ["unshare", "--mount"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
        return [*unshare, "sh", "-c", f'{script} && shift {len(args)} && exec "$@"', "sh", *map(str, args)]
    return wrap


@pytest.fixture
def good_host() -> Path:
    from nicadvisor.paths import demo_lab_dir

    return demo_lab_dir() / "esxi-hpe-connectx5"


#: Child setup: every host's overlay candidates are read in full before the findings are judged
#: (:func:`capturetools.completed`, the test values the verdict's own tests use), so that the real capture of
#: :func:`capturetools.ready_host` — one whole pNIC listing, NOT RATED alone since the decisive checks (issue 16
#: §1) — audits READY and a test can show what keeps such a host from READY.
FULLY_READ = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
import capturetools
import nicadvisor.services.audit as _audit
_judge = _audit.evaluate_findings
def _fully_read(hosts, rules=None):
    for h in hosts:
        capturetools.fully_read(h, *[p.name for p in h.overlay_candidates()])
    return _judge(hosts, rules)
_audit.evaluate_findings = _fully_read
"""


@pytest.fixture
def ready_cli(cli):
    """``cli`` whose audits read every overlay candidate in full (:data:`FULLY_READ`): a
    :func:`capturetools.ready_host` audits READY (exit 0) unless something else keeps it from READY."""
    def run(*args, setup: str = "", **kwargs) -> Run:
        return cli(*args, setup=FULLY_READ + setup, **kwargs)
    return run
