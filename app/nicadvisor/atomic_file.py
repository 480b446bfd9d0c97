"""Writing a file atomically: the one writer of reports (JSON, PDF, HTML, CSV), the known-hosts and TLS pin stores
and the imported compatibility guide. A reader never sees a half-written file, and a failed write leaves the old one.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], None], *, private: bool = False,
                 make_folder: bool = False, temp_prefix: str | None = None) -> Path:
    """Call ``write(tmp)`` to create and fill a temporary file, then put it at ``path``; returns ``path`` as a Path.

    * a regular file, or nothing yet: the temporary file is made beside it (``.<name>.<pid>.<hex>.tmp``), flushed to
      disk and renamed onto it, so a reader never sees a half-written file (usual umask permissions; owner-only,
      0600, with ``private``); ``temp_prefix`` replaces the ``.<name>.<pid>.`` start of the temporary name (a
      writer whose leftovers another run must recognise: the imported guide);
    * a symbolic link: the same, onto the file it points to; the link stays a link;
    * a stream (a character device such as ``/dev/stdout`` or a terminal, a FIFO): the bytes are written into it,
      and it is never replaced by a file;
    * anything else (a folder, a block device, a socket): refused with OSError naming it, nothing written.

    ``write`` must create the file it is given (``open(tmp, "x")`` is fine). ``make_folder`` creates the missing
    folders of ``path`` (0700 with ``private``); otherwise a missing folder raises FileNotFoundError naming it. The
    temporary file is removed if ``write`` raises. Raises what ``write``, the rename or the stream raise (OSError
    for an unwritable folder, ``/dev/full``: no space left on device).
    """
    given = Path(path)
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OSError(exc.errno, f"{given}: {exc.strerror}") from None
    if mode is not None and not stat.S_ISREG(mode):
        if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
            raise OSError(f"{given} is not a regular file (a folder, block device or socket): give a file path")
        with tempfile.TemporaryDirectory(prefix="nic-advisor-") as folder:
            tmp = Path(folder) / target.name
            write(tmp)
            with open(tmp, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        return given
    if make_folder:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o777)
    if not target.parent.is_dir():
        raise FileNotFoundError(2, f"{given}: the folder {target.parent} does not exist")
    prefix = f".{target.name}.{os.getpid()}." if temp_prefix is None else temp_prefix
    tmp = target.with_name(f"{prefix}{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp)
        if private:
            os.chmod(tmp, 0o600)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)  # the bytes are on disk before the name points at them (a crash keeps old or new)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return given


def write_private_lines(path: Path, lines: list[str]) -> None:
    """Replace ``path`` with ``lines`` (one per line), owner-only (0600), through :func:`atomic_write`; creates the
    folder. Raises OSError."""
    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8") as fh:
            fh.write("".join(ln + "\n" for ln in lines))

    atomic_write(path, _write, private=True, make_folder=True)
