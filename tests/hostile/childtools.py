"""The hostile suite's bounded children (conftest.py's ``cli`` and ``ready_cli``, and a module's shared set-up):
the real CLI in a child limited to 1 GiB of address space and 60 s of CPU time, its wall-clock time only guarded
against a hang."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

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


def child_runner(folder: Path):
    """``run(*args, stdout=, env=, setup=, wrap=)`` -> :class:`Run`: ``nic-advisor args`` in a child limited to 1 GiB
    and 60 s of CPU time, ended as hung after :data:`HANG_SECONDS`, its XDG folders under ``folder / "xdg"`` and
    ``folder`` its working folder (the :func:`cli` fixture's runner, also for a module's shared set-up)."""
    base = dict(os.environ)
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        base[var] = str(folder / "xdg" / var.lower())

    def run(*args: str, stdout=subprocess.PIPE, env: dict | None = None, setup: str = "",
            wrap: list[str] | tuple = ()) -> Run:
        child_env = {**base, **(env or {})}
        child_env = {k: v for k, v in child_env.items() if v is not None}
        code = _CHILD.format(limit=LIMIT_BYTES, cpu=LIMIT_SECONDS, setup=setup)
        proc = subprocess.run([*wrap, sys.executable, "-c", code, *map(str, args)],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=HANG_SECONDS, env=child_env,
                              cwd=folder, errors="backslashreplace")
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert "MemoryError" not in proc.stderr
        return Run(proc.returncode, proc.stdout or "", proc.stderr)

    return run


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
