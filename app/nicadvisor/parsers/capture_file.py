"""The capture-file format: ``# source:``/``# command:``/``# note:``/``# host:`` header lines, then the verbatim
output (the format of ``shared/fixtures/captures``), and :class:`Capture`, the one shape every input becomes (a
capture file, a vm-support bundle member, a live command's output or API recording). Pure: reading the file itself
is :func:`nicadvisor.collect.sources.read_capture`.

**A command that failed** is a capture too, so that every collector records it the same way (the SSH collector, the
collector script, a saved live audit replayed): its notes say how it ended (:func:`exit_note`: ``exit status 127:
sh: vsish: not found``; :data:`TIMEOUT_NOTE`; ``stderr: …`` beside a successful exit), its text is what it printed.
:func:`not_run_of` reads a :class:`~nicadvisor.model.entities.CommandNotRun` back from those notes: a command that
ended with an error and printed at most one line is not parsed, only listed as not run.

**A collection** (:func:`parse_collection_text`) is many captures in one text file, as the collector script writes
them to standard output (``--stdout``: one file per host for ``ssh HOST sh -s < script > host.txt`` or Ansible's
``raw`` module): a first line ``# nic-advisor collection: boundary=B``, then each capture file's text after a line
``--B``, and one line end after it.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field

from nicadvisor.model.entities import CommandNotRun, clip

MAX_CAPTURE_BYTES = 16 * 1024 * 1024  # a capture larger than this is not a command output
MAX_HOST_CHARS = 253  # a "# host:" header longer than a DNS name is cut (it names a host in every report)

# ------------------------------------------------------------------------------------------- capture dates

#: A vm-support bundle's name holds the host time it was made: ``esx-<host>-2023-05-01--10.22-12345.tgz``
#: (shared/design/research/vm-support-bundles.md).
BUNDLE_NAME = re.compile(r"esx-.+?-(\d{4})-(\d{2})-(\d{2})--(\d{2})\.(\d{2})")
#: The collector script's ``# source:`` line ends with the UTC time it ran (collect/script.py ``$when``).
_COLLECTOR = re.compile(r"nic-advisor collect-script .*?(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}):\d{2} UTC")
_CAPTURED = re.compile(r"^#\s*captured:\s*(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d{1,9})?)?"
                       r"(?:[ \t]*(Z|[A-Z]{2,5}|[+-]\d{2}:?\d{2})\b)?)?", re.M)
#: A ``# captured:`` time's zone: ``Z``, ``UTC``, ``GMT`` or an offset (``+09:00``, ``-0800``).
_ZONE = re.compile(r"^(?:Z|UTC|GMT|(?P<sign>[+-])(?P<h>\d{2}):?(?P<m>\d{2}))$")
#: A stated capture time more than this after the clock of the machine reading it is not believed (a header made up,
#: or a host clock set wrong): it would otherwise be "the newer capture" over every real one.
_FUTURE_SLACK = _dt.timedelta(days=1)
_ISO_DATE = re.compile(r"(?<!\d)((?:19|20)\d{2})-(0[1-9]|1[0-2])-([0-2]\d|3[01])(?!\d)")
_PATH_MONTH = re.compile(r"/((?:19|20)\d{2})/(0[1-9]|1[0-2])(?:/|\b)")


def _real(y: str, mo: str, d: str | None = None, hm: str | None = None, zone: str | None = None,
          now: _dt.datetime | None = None) -> _dt.datetime | None:
    """The moment a stated date means (UTC when ``zone`` gives an offset), or None when it is no calendar date
    (``2026-13-45``, ``2026-02-30``, year 0) or lies more than :data:`_FUTURE_SLACK` after ``now`` (default: the
    clock, UTC)."""
    try:
        when = _dt.datetime(int(y), int(mo), int(d or 1), *(int(x) for x in (hm or "00:00").split(":")))
    except ValueError:
        return None
    m = _ZONE.match(zone or "")
    if m and m.group("sign"):
        minutes = int(m.group("h")) * 60 + int(m.group("m"))
        when -= _dt.timedelta(minutes=minutes if m.group("sign") == "+" else -minutes)
    now = now or _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
    return None if when > now + _FUTURE_SLACK else when


def stated_date(head: str) -> tuple[str, str] | None:
    """When a capture file's own header says its output was captured: ``(date, how)`` — the collector's UTC stamp
    (``"2026-05-01 10:22 UTC"``, ``"collector"``), a ``# captured:`` header (``"header"``), or a date its ``# source:``
    line states (a dated post or page: ``"2018-02-20"`` / ``"2017-09"``, ``"source"``: when the output was
    published, the latest it can have been captured); None when the header states no date. A ``# captured:`` time
    with a zone (``Z``, ``+09:00``, ``-0800``) is given in UTC; with a zone named otherwise (``CEST``) only its date
    is kept; without one it is taken as UTC. A date that is no calendar date (``2026-13-45``) or is more than a day
    in the future of this machine's clock is not a date (None: it would otherwise be preferred as "the newer
    capture"). Pure but for reading the clock."""
    for line in head.splitlines():
        if not line.startswith("#"):
            break
        m = _COLLECTOR.search(line)
        if m:
            if _real(*m.group(1).split("-"), m.group(2)) is None:
                return None
            return f"{m.group(1)} {m.group(2)} UTC", "collector"
    m = _CAPTURED.search(head)
    if m:
        date, hm, zone = m.groups()
        known = _ZONE.match(zone or "")
        when = _real(*date.split("-"), hm if (known or not zone) else None, zone)
        if when is None:
            return None
        if not hm or (zone and not known):
            return f"{when:%Y-%m-%d}", "header"
        return f"{when:%Y-%m-%d %H:%M} UTC", "header"
    source = next((ln for ln in head.splitlines() if ln.lower().startswith("# source:")), "")
    m = _ISO_DATE.search(source)
    if m:
        return ("-".join(m.groups()), "source") if _real(*m.groups()) else None
    m = _PATH_MONTH.search(source)
    if m:
        return (f"{m.group(1)}-{m.group(2)}", "source") if _real(*m.groups()) else None
    return None


def capture_time(source: str, header: str = "") -> tuple[str, str] | None:
    """When the output at ``source`` was captured, as far as it tells: its ``header`` lines (:func:`stated_date`), else
    the date and time in the name of the vm-support bundle it is a member of (``"2023-05-01 10:22"``, ``"bundle"``);
    None when neither states one (never the file's modification time). Pure."""
    stated = stated_date(header) if header else None
    if stated is not None:
        return stated
    m = BUNDLE_NAME.search(source.replace("\\", "/").split(":", 1)[0].rsplit("/", 1)[-1])
    if m:
        y, mo, d, h, mi = m.groups()
        return (f"{y}-{mo}-{d} {h}:{mi}", "bundle") if _real(y, mo, d, f"{h}:{mi}") else None
    return None



class CaptureError(ValueError):
    """A file that is not a readable capture (binary, too large, no ``# command:`` header)."""


@dataclass(frozen=True)
class Capture:
    """One recorded output. ``command`` is the ``# command:`` header (may hold several commands),
    ``host`` the ``# host:`` header when present, ``text`` the output after the header lines."""

    source: str
    command: str
    text: str
    host: str | None = None
    notes: tuple[str, ...] = field(default=())
    origin: str | None = None  # the ``# source:`` header
    #: When the output was captured, as its header or bundle name states (:func:`capture_time`): ``(date, how)``.
    captured: tuple[str, str] | None = None
    #: ``host`` is the one the shell prompts of this part of a pasted session name (a file holding several hosts'
    #: prompts, :func:`nicadvisor.parsers.registry.session_hosts`), not a ``# host:`` header
    prompt_host: bool = False


def parse_capture_text(source: str, data: bytes) -> Capture:
    """Split a capture's bytes into header and output (UTF-8, UTF-8 with BOM, or UTF-16 with BOM).

    Raises CaptureError naming ``source`` for binary data or a missing ``# command:`` header.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with BOM: PowerShell 5.1's default redirection
        text = data.decode("utf-16", errors="replace")
    elif b"\x00" in data[:8192]:
        raise CaptureError(f"{source}: binary data, not a command capture")
    else:
        text = data.decode("utf-8-sig", errors="replace")
    headers: dict[str, list[str]] = {}
    lines = text.splitlines(keepends=True)
    body_start = 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        key = stripped[2:].split(":", 1)[0].strip().lower() if stripped.startswith("# ") else ""
        if key in ("source", "command", "note", "host", "captured") and ":" in stripped:
            headers.setdefault(key, []).append(stripped.split(":", 1)[1].strip())
            body_start = i + 1
            continue
        break
    if "command" not in headers:
        raise CaptureError(f"{source}: no '# command:' header line, so the command that produced it is unknown")
    return Capture(
        source=source,
        command=headers["command"][0],
        text="".join(lines[body_start:]),
        host=clip((headers.get("host") or [None])[0] or "", MAX_HOST_CHARS) or None,
        notes=tuple(headers.get("note", [])),
        origin=(headers.get("source") or [None])[0],
        captured=capture_time(source, "".join(lines[:body_start])),
    )


# ---------------------------------------------------------------------------------------- failed commands

DENIED_RE = re.compile(r"\b(?:Permission denied|Operation not permitted)\b", re.IGNORECASE)
"""The OS's wording of EACCES / EPERM (strerror), as printed by ``cat``, ``readlink`` and ``ethtool``
(``netlink error: Operation not permitted`` for a non-root account; seen for real in tests/faults)."""
_ABSENT_RE = re.compile(r"\b(?:not found|No such file or directory|Unknown command or namespace|"
                        r"no such (?:node|command|namespace))\b", re.IGNORECASE)
_UNSUPPORTED_RE = re.compile(r"\b(?:Operation not supported|not supported|Invalid argument|No data available)\b",
                             re.IGNORECASE)
_EXIT_NOTE_RE = re.compile(r"^(?:exit status (?P<rc>\d{1,5})|no exit status)(?:: (?P<err>.*))?$", re.DOTALL)
_STDERR_NOTE_RE = re.compile(r"^stderr: (?P<err>.*)$", re.DOTALL)
#: The note of a command stopped at its time limit: ``timed out after 30 s``.
TIMEOUT_NOTE = "timed out after {seconds:g} s"
_TIMEOUT_NOTE_RE = re.compile(r"^timed out after \d+(?:\.\d+)? s\b")
#: The exit status a shell gives a command it cannot find (POSIX: 127).
EXIT_NOT_FOUND = 127


def one_line(text: str, limit: int = 300) -> str:
    """``text``'s non-blank lines joined by `` / ``, cut at ``limit`` characters (``…`` marks a cut)."""
    t = " / ".join(ln.strip() for ln in text.splitlines() if ln.strip())
    return t if len(t) <= limit else t[:limit] + "…"


def exit_note(rc: int | None, stderr: str) -> str:
    """The note of a command that ended with exit status ``rc`` (None: none was reported) and printed ``stderr``:
    ``exit status 1: cat: /sys/class/net/eth0/speed: Invalid argument``."""
    head = "no exit status" if rc is None else f"exit status {rc}"
    err = one_line(stderr)
    return f"{head}: {err}" if err else head


def reason_of(text: str, rc: int | None = None) -> str:
    """Why a command failed, from what it printed (stderr, or its one line of output) and its exit status: a key of
    :data:`~nicadvisor.model.entities.NOT_RUN_REASONS` (``privilege``, ``absent``, ``unsupported``, ``failed``)."""
    if DENIED_RE.search(text):
        return "privilege"
    if rc == EXIT_NOT_FOUND or _ABSENT_RE.search(text):
        return "absent"
    if _UNSUPPORTED_RE.search(text):
        return "unsupported"
    return "failed"


def not_run_of(capture: Capture) -> CommandNotRun | None:
    """The :class:`~nicadvisor.model.entities.CommandNotRun` a capture's notes describe, or None for a command that
    ran: a note :data:`TIMEOUT_NOTE`; an :func:`exit_note` other than ``exit status 0``; a ``stderr:`` note holding a
    refusal (:data:`DENIED_RE`) beside output. ``partial`` when the command printed more than one line (its output
    is read as usual): a failed command's single line is its error message, not an output."""
    lines = [ln for ln in capture.text.splitlines() if ln.strip()]
    partial = len(lines) > 1
    for note in capture.notes:
        if _TIMEOUT_NOTE_RE.match(note):
            return CommandNotRun(capture.command, "timeout", note, partial)
        m = _EXIT_NOTE_RE.match(note)
        if m and m.group("rc") != "0":
            rc = int(m.group("rc")) if m.group("rc") else None
            said = " ".join([m.group("err") or "", *([] if partial else lines)])
            return CommandNotRun(capture.command, reason_of(said, rc), note if partial or not lines
                                 else f"{note} / {one_line(lines[0])}", partial)
        m = _STDERR_NOTE_RE.match(note)
        if m and DENIED_RE.search(m.group("err")):
            return CommandNotRun(capture.command, "privilege", note, partial=bool(lines))
    return None


# ---------------------------------------------------------------------------------------- collections

COLLECTION_MARK = "# nic-advisor collection:"
"""The first line of a collection (then `` boundary=B``, B made of letters, digits, ``._-``)."""
_COLLECTION_RE = re.compile(r"^# nic-advisor collection: boundary=(?P<b>[A-Za-z0-9._-]{8,128})\s*$")
#: At most this many captures are read from one collection (a collector script of a host with 64 pNICs writes ~900).
MAX_COLLECTION_CAPTURES = 20_000


def is_collection(data: bytes) -> bool:
    """Whether ``data`` starts like a collection (its first line is the :data:`COLLECTION_MARK`)."""
    return data.lstrip(b"\xef\xbb\xbf").startswith(COLLECTION_MARK.encode())


def parse_collection_text(source: str, data: bytes) -> tuple[list[Capture], list[str]]:
    """The captures of a collection (see the module docstring) and what could not be read (each naming
    ``source:#N``, the N-th capture, as a member of the file, and why). The writer ends each capture with one line
    end of its own (so that a boundary always starts a line), which is removed. Line ends ``\\r\\n`` (a terminal's, when it ran with a tty) are
    read as ``\\n``. Raises CaptureError naming ``source`` when the first line is not a collection header with a
    boundary."""
    text = data.decode("utf-8-sig", errors="replace")
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    first, _, rest = text.partition("\n")
    m = _COLLECTION_RE.match(first)
    if not m:
        raise CaptureError(f"{source}: not a NIC Advisor collection (its first line must be "
                           f"'{COLLECTION_MARK} boundary=…')")
    sep = f"--{m.group('b')}"
    parts: list[list[str]] = []
    for line in rest.splitlines(keepends=True):
        if line.rstrip("\n") == sep:
            parts.append([])
        elif parts:
            parts[-1].append(line)
    captures: list[Capture] = []
    problems: list[str] = []
    if len(parts) > MAX_COLLECTION_CAPTURES:
        problems.append(f"{source}: {len(parts)} captures; only the first {MAX_COLLECTION_CAPTURES} are read")
        parts = parts[:MAX_COLLECTION_CAPTURES]
    for i, part in enumerate(parts, 1):
        try:
            text = "".join(part)
            text = text[:-1] if text.endswith("\n") else text  # the line end the writer adds after each capture
            captures.append(parse_capture_text(f"{source}:#{i}", text.encode("utf-8")))
        except CaptureError as exc:
            problems.append(str(exc))
    if not parts:
        problems.append(f"{source}: a collection without captures (no line '{sep}')")
    return captures, problems
