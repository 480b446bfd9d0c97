"""The capture-file format: ``# source:``/``# command:``/``# note:``/``# host:`` header lines, then the verbatim
output (the format of ``shared/fixtures/captures``), and :class:`Capture`, the one shape every input becomes (a
capture file, a vm-support bundle member, a live command's output or API recording). Pure: reading the file itself
is :func:`nicadvisor.collect.sources.read_capture`."""
from __future__ import annotations

from dataclasses import dataclass, field

from nicadvisor.model.entities import clip

MAX_CAPTURE_BYTES = 16 * 1024 * 1024  # a capture larger than this is not a command output
MAX_HOST_CHARS = 253  # a "# host:" header longer than a DNS name is cut (it names a host in every report)


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
        if key in ("source", "command", "note", "host") and ":" in stripped:
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
    )
