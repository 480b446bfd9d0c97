"""The collector script use case: the POSIX ``sh`` script that runs the catalogue's read-only commands on a host
(:mod:`nicadvisor.collect.script`), as text or written to a file."""
from __future__ import annotations

import os
from pathlib import Path

from nicadvisor.atomic_file import atomic_write
from nicadvisor.collect.script import KINDS, collector_script

__all__ = ["KINDS", "collect_script", "write_collect_script"]


def collect_script(kind: str) -> str:
    """The collector script for ``kind`` (``esxi`` or ``linux``). Raises ValueError for another kind."""
    return collector_script(kind)


def write_collect_script(kind: str, path: str | os.PathLike[str]) -> Path:
    """Write the collector script for ``kind`` to ``path`` (atomically, executable: 0755); returns the path.
    Raises ValueError for another kind, OSError when it cannot be written."""
    text = collector_script(kind)

    def write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)

    return atomic_write(path, write)
