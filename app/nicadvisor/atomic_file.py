"""Writing a small private file atomically (the known-hosts store, the TLS pin store)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_private_lines(path: Path, lines: list[str]) -> None:
    """Replace ``path`` with ``lines`` (one per line) through a temporary file in the same folder, owner-only
    (0600): a reader never sees a half-written file, and a failed write leaves the old one. Creates the
    folder. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(ln + "\n" for ln in lines))
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
