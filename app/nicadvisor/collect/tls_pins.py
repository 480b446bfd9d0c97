"""NIC Advisor's store of pinned TLS certificates (vCenter / ESXi SDK / NSX Manager), one pin per server.

A self-signed certificate is trusted only by its SHA-256 thumbprint (:mod:`nicadvisor.collect.tls_pinning`).
Once a connection with a pin the user checked has succeeded, the pin is saved here, so the next run
needs no ``--thumbprint`` and a replaced certificate shows up as a *change* (refused, with the stored
and the presented thumbprints) instead of looking like a first contact.

The store is a text file, by default ``tls_pins`` under ``platformdirs.user_config_dir("nic-advisor")``
(the path is injectable, for tests). One line per server::

    # NIC Advisor pinned TLS certificates: host:port SHA-256 thumbprint
    vc1.example.com:443 4C:3D:58:…:D4:D8
    [fd00::10]:8443 AA:BB:…

Host names are kept lower-case, IPv6 addresses in brackets; thumbprints as :func:`normalize_thumbprint` writes
them (``"AA:BB:…"``, 32 bytes). Lines
that cannot be read are skipped on lookup and kept on rewrite. The file is written atomically
(temporary file + :func:`os.replace`) with owner-only permissions (0600). No network I/O here.

Precedence (applied by :func:`~nicadvisor.collect.tls_pinning.ssl_context_for`): a thumbprint given
explicitly (``--thumbprint``, the GUI's accepted pin) > the stored pin > the system CA store. A
CA-trusted server needs no pin and none is stored for it. The thumbprint format (:func:`normalize_thumbprint`) and
the outcome of a trust decision (:class:`TrustDecision`) are defined here, below the policy module that uses them.
"""
from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from nicadvisor.atomic_file import write_private_lines

log = logging.getLogger(__name__)

_HEADER = "# NIC Advisor pinned TLS certificates: host:port SHA-256 thumbprint"


@dataclass(frozen=True)
class TrustDecision:
    """How a connection's certificate was trusted: ``mode`` is ``"ca"`` (system CA store),
    ``"pinned"`` (matches the caller's thumbprint) or ``"insecure"`` (accepted unverified, pinned for
    this session only); ``thumbprint`` is the SHA-256 of the certificate when it was read; ``stored`` is
    True when the pin came from this pin store, not from the caller."""

    mode: str
    thumbprint: str | None = None
    stored: bool = False

    def describe(self) -> str:
        if self.mode == "ca":
            return "TLS verified against the system CA store"
        if self.mode == "pinned":
            return f"TLS certificate pinned (SHA-256 {self.thumbprint}{', stored pin' if self.stored else ''})"
        return f"TLS certificate NOT verified (insecure mode): accepted SHA-256 {self.thumbprint} for this session"


_HEX_RE = re.compile(r"^[0-9a-f]+$")


def normalize_thumbprint(text: str) -> str:
    """``"aa:bb…"``, ``"AABB…"``, ``"aa bb …"`` → ``"AA:BB:…"`` (32 bytes).

    Raises ValueError for anything that is not a SHA-256 thumbprint (naming SHA-1 when 20 bytes were
    given, since older tools show SHA-1 thumbprints).
    """
    raw = re.sub(r"[\s:-]", "", text or "").lower()
    if raw.startswith("sha256="):
        raw = raw[len("sha256="):]
    if not _HEX_RE.match(raw or "-"):
        raise ValueError(f"not a certificate thumbprint: {text!r}")
    if len(raw) == 40:
        raise ValueError(f"{text!r} is a SHA-1 thumbprint; give the SHA-256 thumbprint (32 bytes)")
    if len(raw) != 64:
        raise ValueError(f"{text!r} is not a SHA-256 thumbprint (expected 32 bytes, got {len(raw) // 2})")
    return ":".join(raw[i:i + 2] for i in range(0, 64, 2)).upper()


def server_key(host: str, port: int) -> str:
    """The store's name of ``host:port``: ``host:port`` lower-case, IPv6 as ``[addr]:port``."""
    h = host.strip().strip("[]").lower()
    return f"[{h}]:{int(port)}" if ":" in h else f"{h}:{int(port)}"


def default_path() -> Path:
    """``tls_pins`` in the app's configuration folder (platformdirs ``user_config_dir("nic-advisor")``)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("nic-advisor")) / "tls_pins"


class TlsPins:
    """The pinned-certificate store (see the module docstring). Thread-safe; the file is read on each
    lookup, so a pin saved by one process is seen by the next.

    ``path`` defaults to :func:`default_path`. Reading raises OSError only when the file exists but cannot
    be read (a missing file is an empty store); writing raises OSError when the folder cannot be written.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.RLock()

    # --- reading -------------------------------------------------------------------------------
    def _lines(self) -> list[str]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise OSError(exc.errno, f"the TLS pin store {self.path} cannot be read ({exc.strerror or exc})") from None
        try:
            return data.decode("utf-8").splitlines()
        except UnicodeDecodeError as exc:  # one sentence naming the file and line, never a traceback (issue 29 §13)
            line = data.count(b"\n", 0, exc.start) + 1
            raise OSError(f"the TLS pin store {self.path} is damaged: line {line} is not UTF-8 text; correct or remove "
                          "that line") from None

    @staticmethod
    def _parse(line: str) -> tuple[str, str] | None:
        """``(server key, normalised thumbprint)`` of a pin line, None for a comment or unreadable line."""

        parts = line.split()
        if len(parts) != 2 or line.lstrip().startswith("#"):
            return None
        try:
            return parts[0].lower(), normalize_thumbprint(parts[1])
        except ValueError:
            return None

    def get(self, host: str, port: int) -> str | None:
        """The stored SHA-256 thumbprint (``"AA:BB:…"``) of ``host:port``, or None when none is stored."""
        key = server_key(host, port)
        with self._lock:
            for line in self._lines():
                parsed = self._parse(line)
                if parsed is not None and parsed[0] == key:
                    return parsed[1]
        return None

    def all(self) -> dict[str, str]:
        """Every stored pin: ``{"host:port": "AA:BB:…"}`` (for a "pinned certificates" list)."""
        with self._lock:
            return dict(p for p in map(self._parse, self._lines()) if p is not None)

    # --- writing -------------------------------------------------------------------------------
    def save(self, host: str, port: int, thumbprint: str) -> bool:
        """Store ``thumbprint`` for ``host:port``, replacing a previous pin of that server (call it only
        after a connection with this pin succeeded, or after the user checked it). Returns False when
        that pin was already stored (nothing written). Raises ValueError for a malformed thumbprint,
        OSError when the file cannot be written."""

        key, value = server_key(host, port), normalize_thumbprint(thumbprint)
        with self._lock:
            if self.get(host, port) == value:
                return False
            keep = [ln for ln in self._lines() if (self._parse(ln) or ("",))[0] != key]
            if not keep or keep[0] != _HEADER:
                keep.insert(0, _HEADER)
            self._write(keep + [f"{key} {value}"])
            return True

    def remove(self, host: str, port: int) -> bool:
        """Forget the pin of ``host:port`` (the user's "forget this certificate" action); True when one
        was removed. Raises OSError when the file cannot be written."""
        key = server_key(host, port)
        with self._lock:
            lines = self._lines()
            keep = [ln for ln in lines if (self._parse(ln) or ("",))[0] != key]
            if len(keep) != len(lines):
                self._write(keep)
            return len(keep) != len(lines)

    def remember(self, host: str, port: int, trust: "TrustDecision | None") -> bool:
        """After a successful connection (TLS and login): save the pin the connection was trusted by,
        when it was an explicit pin (``trust.mode == "pinned"`` and not already from this store). A
        CA-trusted or insecure session stores nothing. Never raises: a store that cannot be written is
        logged (warning) and False returned; True when a new pin was written."""
        if trust is None or trust.mode != "pinned" or trust.stored or not trust.thumbprint:
            return False
        try:
            saved = self.save(host, port, trust.thumbprint)
        except (OSError, ValueError) as exc:
            log.warning("TLS pin of %s not saved in %s: %s", server_key(host, port), self.path, exc)
            return False
        if saved:
            log.info("TLS pin of %s saved in %s: SHA-256 %s", server_key(host, port), self.path, trust.thumbprint)
        return saved

    def _write(self, lines: list[str]) -> None:
        write_private_lines(self.path, lines)
