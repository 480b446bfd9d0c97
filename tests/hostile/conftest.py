"""The hostile-input suite: inputs built at test time (sparse files, tiny compressed bombs, FIFOs, link loops) fed
to the real CLI in a child process limited to 1 GiB of address space and 60 s of CPU time, so a regression fails
instead of hanging or exhausting CI. The child's wall-clock time is only guarded against a hang (generously: a loaded
machine stretches wall time, never the CPU time a child spends)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from childtools import FULLY_READ, Run, child_runner  # noqa: E402,F401  (Run: the runners' result)


@pytest.fixture
def cli(tmp_path):
    """``cli(*args)`` runs ``nic-advisor args`` in a child limited to 1 GiB and 60 s of CPU time, ended as hung after
    :data:`HANG_SECONDS` (its own XDG folders).
    ``env``: variables to add (``None`` removes one); ``setup``: Python run in the child before the CLI (a fault to
    induce); ``wrap``: a command line the child runs under (``unshare``, a shell closing stdout)."""
    return child_runner(tmp_path)


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


@pytest.fixture
def ready_cli(cli):
    """``cli`` whose audits read every overlay candidate in full (:data:`FULLY_READ`): a
    :func:`capturetools.ready_host` audits READY (exit 0) unless something else keeps it from READY."""
    def run(*args, setup: str = "", **kwargs) -> Run:
        return cli(*args, setup=FULLY_READ + setup, **kwargs)
    return run
