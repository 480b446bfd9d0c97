"""Locks that every test process of this machine honours: the pytest-xdist workers (``pytest -n``) and other test
runs beside them. A lock file in the temporary folder, taken with ``flock`` (released by the kernel if its holder
dies, so a killed run never leaves one held)."""
from __future__ import annotations

import contextlib
import fcntl
import tempfile
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def machine_lock(name: str, shared: bool = False) -> Iterator[None]:
    """Hold the machine-wide lock ``name`` for the ``with`` block: exclusive, or ``shared`` with other shared
    holders (readers of a resource that an exclusive holder changes). Waits as long as it takes: a holder ends.

    Used around a choice that must be unique machine-wide until it is visible (a free subnet until its address is
    added), around the account tools (useradd, chpasswd, userdel fail rather than wait while another process holds
    /etc/passwd's lock), and around lldpd's default socket (/run/lldpd.socket: one lab at a time owns it)."""
    path = Path(tempfile.gettempdir()) / f"nicadv-tests-{name}.lock"
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
