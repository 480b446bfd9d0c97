"""Writing a file atomically: the one writer of reports (JSON, PDF, HTML, CSV), their side files, saved captures,
crash files, the known-hosts and TLS pin stores and the imported compatibility guide. A reader never sees a
half-written file, a failed write leaves the old one, and no write goes through a link another user planted.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


class PlantedLinkError(PermissionError):
    """A path to write goes through a symbolic link that another user owns in a shared (sticky or world-writable)
    folder: the write is refused, nothing is written (issue 29 §1)."""


def _shared(st: os.stat_result) -> bool:
    """Whether a folder is shared with other users: sticky (``/tmp``) or writable by everyone."""
    return bool(st.st_mode & (stat.S_ISVTX | stat.S_IWOTH))


def check_no_planted_link(path: str | os.PathLike[str]) -> None:
    """Raise :class:`PlantedLinkError` (one sentence naming the link, its owner and its folder) when any part of
    ``path`` is a symbolic link that this process must not follow: a link in a sticky or world-writable folder
    that this process's user does not own. This is stricter than the kernel's ``protected_symlinks`` rule
    (Documentation/admin-guide/sysctl/fs.rst: world-writable folders count too, the folder's owner gets no
    exception, and it holds when the sysctl is off), checked before anything is opened, so ``root`` never writes
    into a file another user's link points at. Other links pass."""
    full = os.path.abspath(os.fspath(path))
    parts = Path(full).parts
    me = os.geteuid()
    current = parts[0]
    for part in parts[1:]:
        folder, current = current, os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return  # nothing further exists: no link to follow
        except OSError:
            return  # not reachable: the write itself reports it
        if not stat.S_ISLNK(st.st_mode) or st.st_uid == me:
            continue
        try:
            fst = os.stat(folder)
        except OSError:
            continue
        if _shared(fst):
            raise PlantedLinkError(
                f"{current} is a symbolic link owned by another user (uid {st.st_uid}) in the shared folder "
                f"{folder}: it is not followed and nothing was written; remove it or give another path")


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], None], *, private: bool = False,
                 make_folder: bool = False, temp_prefix: str | None = None) -> Path:
    """Call ``write(tmp)`` to create and fill a temporary file, then put it at ``path``; returns ``path`` as a Path.

    * first, any symbolic link in ``path`` that another user planted in a shared folder is refused
      (:func:`check_no_planted_link`, :class:`PlantedLinkError`, nothing written);
    * a regular file, a symbolic link, or nothing yet: ``write`` fills ``tmp`` inside a new private folder
      (``mkdir``, which fails if the name exists, mode 0700) made in the destination's own folder, so no other
      user can put a link or file in its place; the file is flushed to disk and renamed onto ``path`` itself
      (a link at ``path`` is replaced by the file, never its target written), so a reader never sees a
      half-written file (usual umask permissions; owner-only, 0600, with ``private``); ``temp_prefix`` replaces
      the ``.<name>.`` start of the private folder's name (a writer whose leftovers another run must recognise:
      the imported guide);
    * a stream (a character device such as ``/dev/stdout`` or a terminal, a FIFO), directly or through a link
      that may be followed: the bytes are written into it (opened without creating anything), never replaced;
    * anything else (a folder, a block device, a socket): refused with OSError naming it, nothing written.

    ``write`` must create the file it is given (``open(tmp, "x")`` is fine). ``make_folder`` creates the missing
    folders of ``path`` (0700 with ``private``); otherwise a missing folder raises FileNotFoundError naming it. The
    temporary file and folder are removed if ``write`` raises. Raises what ``write``, the rename or the stream raise
    (OSError for an unwritable folder, ``/dev/full``: no space left on device).
    """
    given = Path(path)
    check_no_planted_link(given)
    try:
        mode = os.stat(given).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OSError(exc.errno, f"{given}: {exc.strerror}") from None
    if mode is not None and not stat.S_ISREG(mode):
        if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
            raise OSError(f"{given} is not a regular file (a folder, block device or socket): give a file path")
        with tempfile.TemporaryDirectory(prefix="nic-advisor-") as folder:
            tmp = Path(folder) / given.name
            write(tmp)
            fd = os.open(given, os.O_WRONLY | os.O_NOCTTY)  # never O_CREAT: a stream is written into, not made
            with open(tmp, "rb") as src, open(fd, "wb") as dst:
                shutil.copyfileobj(src, dst)
        return given
    if make_folder:
        given.parent.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o777)
    if not given.parent.is_dir():
        raise FileNotFoundError(2, f"{given}: the folder {given.parent} does not exist")
    check_no_planted_link(given.parent)  # make_folder may have gone through a folder link: checked again
    prefix = f".{given.name[:100]}." if temp_prefix is None else temp_prefix
    folder = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=given.parent))  # O_EXCL-like, 0700
    tmp = folder / given.name
    try:
        write(tmp)
        if private:
            os.chmod(tmp, 0o600)
        fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            os.fsync(fd)  # the bytes are on disk before the name points at them (a crash keeps old or new)
        finally:
            os.close(fd)
        os.replace(tmp, given)  # onto the path given: a link there is replaced, its target left alone
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return given


def write_private_lines(path: Path, lines: list[str]) -> None:
    """Replace ``path`` with ``lines`` (one per line), owner-only (0600), through :func:`atomic_write`; creates the
    folder. Raises OSError."""
    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8") as fh:
            fh.write("".join(ln + "\n" for ln in lines))

    atomic_write(path, _write, private=True, make_folder=True)


def write_private_text(path: str | os.PathLike[str], text: str, *, errors: str = "strict") -> Path:
    """Write ``text`` (UTF-8) to ``path`` owner-only (0600) through :func:`atomic_write`, creating its folder
    (0700): crash files and other files holding input data. Raises OSError (PlantedLinkError for a planted link)."""
    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8", errors=errors) as fh:
            fh.write(text)

    return atomic_write(path, _write, private=True, make_folder=True)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8, line ends as given) to ``path`` through :func:`atomic_write` (usual umask
    permissions). Raises OSError (PlantedLinkError for a planted link)."""
    def _write(tmp: Path) -> None:
        with open(tmp, "x", encoding="utf-8", newline="") as fh:
            fh.write(text)

    return atomic_write(path, _write)
